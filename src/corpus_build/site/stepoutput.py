"""A build step whose inputs are as the last build had them: its output linked from the published site.

`corpus-build build` writes a fresh site into a staging folder and swaps it in whole
(engines.py). A step that writes its own files after MkDocs (the full-text index: about
half of a rebuild at 1,000 mirrored sources after a note was edited, when no mirror page
changed) would write them all again, though they would come out byte for byte the same.
So each such step's output is stamped, under the build cache, with a digest of everything
it reads, and with each file it wrote as published (size, modification time, inode): the
next build whose digest is the same, and whose published files are exactly those, links
them into the staging folder instead of running the step. No file is written, and the
staging folder holds what the step would have written.

Outside `corpus-build build` (plain `mkdocs build` cleans its own site folder first, a live
preview builds into a folder of its own) there is no published site to link from: the step
runs.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from pathlib import Path

from ..core.provenance import write_atomic
from . import engines


def _stamp_file(cache_dir: Path, name: str) -> Path:
    return cache_dir / f"output-{name}.json"


def _files(folder: Path) -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with suppress(OSError):
                info = os.lstat(path)
                found[os.path.relpath(path, folder)] = [info.st_size, info.st_mtime_ns, info.st_ino]
    return found


def link_last(cache_dir: Path, name: str, key: str, output: Path) -> int | None:
    """Link the published twin of `output` (a folder in the staging site) when `key` is the one its
    files were made from and they are as written; the number of files linked, or None (run the step)."""
    published = engines.published_twin(output)
    if published is None or not published.is_dir():
        return None
    try:
        stamp = json.loads(_stamp_file(cache_dir, name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("key") != key or not isinstance(stamp.get("files"), dict):
        return None
    if _files(published) != stamp["files"]:  # changed, added to or removed from since: not what the step wrote
        return None
    made = []
    try:
        for relative in sorted(stamp["files"]):
            target = output / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if os.path.lexists(target):
                os.unlink(target)
            os.link(published / relative, target, follow_symlinks=False)
            made.append(target)
    except OSError:  # another file system, a file gone meanwhile: the step runs after all
        for target in made:
            with suppress(OSError):
                os.unlink(target)
        return None
    return len(made)


def remember(cache_dir: Path, name: str, key: str, output: Path) -> None:
    """After the step ran: its key and its files as written (they keep size, time and inode when the site is swapped in)."""
    with suppress(OSError):
        write_atomic(_stamp_file(cache_dir, name), json.dumps({"key": key, "files": _files(output)}))


def forget(cache_dir: Path, name: str) -> None:
    with suppress(OSError):
        _stamp_file(cache_dir, name).unlink()
