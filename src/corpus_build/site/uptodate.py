"""`corpus-build build` with nothing changed: the last build's site stands, after a few file checks.

A build's output depends on the project's files (mkdocs.yml, corpus/ with every mirror, docs/,
the theme folder and hooks mkdocs.yml names), on the code that builds (our code, every installed
distribution), on the build's options and environment, on the home page's "since the last
build" snapshot, and on the clock (a mirror turns stale, the freshness chart's buckets, the
sitemap's date). After each successful build the stamp `.corpus-build/last-site.json` records
all of it, and the published site's own files (path, size, modification time, inode). The next
build whose stamp is the same, before the stamp's expiry, and whose site folder still holds
exactly those files, does nothing: building again would give these very bytes.

Input files are compared by their stat, not read: inode, size, modification and change time
(core/filestamp.py: an edit given back its old size and modification time still changes the
change time). A file the file system stamped at or after the build began (`since`, its clock
then) may have been written again in the same tick without its stat showing it (racily clean):
such a file is known by its bytes, hashed into the stamp and at the next check. The site's own
files are compared by inode, size and modification time: unchanged pages are hard-linked from
the published site into the next one, which moves their change time and nothing else.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..core import filestamp
from ..core.provenance import write_atomic

STAMP = Path(".corpus-build") / "last-site.json"
SCHEMA = 2  # 2: inputs by change time too, racily clean ones by their bytes (`since`)
_SKIP_DIRS = {".git", "__pycache__"}
_ENV = ("CORPUS_BUILD_SITE_URL", "SOURCE_DATE_EPOCH", "CORPUS_BUILD_OFFLINE")
MAX_WARNINGS = 200


def _tree(root: Path, h: Any, skip: set[str] | None = None, since: int | None = None) -> None:
    """Every file under `root`: path, size, modification time and inode; with `since`, the change
    time too, and the bytes of a file stamped at or after `since` (racily clean, core/filestamp.py).

    Links are followed, as MkDocs follows them when it reads docs/ or a theme folder (a page
    linked to ../CHANGELOG.md is that file's bytes); a linked folder is walked once, by its real
    path, so a link to a parent folder does not loop.
    """
    top = os.path.realpath(root)
    stack = [(str(root), top)]  # (a folder as walked, its real path)
    base = len(str(root)) + 1
    seen = {top}
    while stack:
        folder, folder_real = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            h.update(f"!{folder[base:]}\0".encode())
            continue
        for entry in entries:
            try:
                if entry.is_dir():
                    # A folder that is no link is where its parent really is: resolving every one of
                    # them (an lstat per level of its path) was a twelfth of a one-note rebuild's CPU.
                    real = os.path.realpath(entry.path) if entry.is_symlink() else os.path.join(folder_real, entry.name)
                    if entry.name not in _SKIP_DIRS and (skip is None or entry.path not in skip) and real not in seen:
                        seen.add(real)
                        stack.append((entry.path, real))
                    continue
                info = entry.stat()
            except OSError:
                h.update(f"!{entry.path[base:]}\0".encode("utf-8", "surrogateescape"))  # a broken link: its coming back is a change
                continue
            h.update(f"{entry.path[base:]}\0{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}\0".encode("utf-8", "surrogateescape"))
            if since is not None:
                _also(h, entry.path, info, since)


def _also(h: Any, path: str, info: os.stat_result, since: int) -> None:
    """An input's change time, and its bytes when its stat cannot vouch for them (racily clean)."""
    h.update(f"{info.st_ctime_ns}\0".encode())
    # Only a regular file's bytes: opening a named pipe waits for a writer (the build hung on a
    # pipe made in corpus/), a device may never end. Those are known by their stat; O_NONBLOCK
    # for one swapped in between the stat and the open.
    if filestamp.racy(info, since) and stat.S_ISREG(info.st_mode):
        try:
            with open(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as handle:
                if stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                    h.update(hashlib.file_digest(handle, "sha256").digest())
        except OSError:
            h.update(b"!unreadable\0")


def _read_config(config_file: Path) -> dict[str, Any]:
    """mkdocs.yml's plain values, its tags (`!!python/…`, `!ENV`) read as nothing, as engines.py reads it."""
    import yaml

    class Tolerant(yaml.SafeLoader):
        pass

    Tolerant.add_multi_constructor("", lambda loader, suffix, node: None)
    try:
        data = yaml.load(config_file.read_text(encoding="utf-8"), Loader=Tolerant)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _distributions() -> list[str]:
    """The installed distributions' names and versions (their dist-info folders), and our own code's hash."""
    from ..core.cachekeys import versions

    found = [json.dumps(versions(), sort_keys=True)]
    for folder in sorted({p for p in sys.path if p and os.path.isdir(p)}):
        with suppress(OSError):
            found += sorted(name for name in os.listdir(folder) if name.endswith((".dist-info", ".egg-info", ".pth")))
    return found


def _config_inputs(project: Path) -> tuple[list[Path], list[str]]:
    """Files mkdocs.yml brings in (INHERIT chain, theme folder, hooks) and the environment variables it reads (!ENV)."""
    import re

    files, names = [], []
    seen: set[Path] = set()
    config = project / "mkdocs.yml"
    while config not in seen:
        seen.add(config)
        files.append(config)
        try:
            text = config.read_text(encoding="utf-8")
        except OSError:
            break
        names += re.findall(r"!ENV\s*\[?\s*([A-Za-z_][A-Za-z0-9_]*)", text)
        names += re.findall(r"!ENV\s*\[([^\]]*)\]", text)
        data = _read_config(config)
        theme = data.get("theme")
        if isinstance(theme, dict) and isinstance(theme.get("custom_dir"), str):
            files.append(config.parent / theme["custom_dir"])
        files += [config.parent / folder for folder in _custom_icons(data)]
        for hook in data.get("hooks") or []:
            if isinstance(hook, str):
                files.append(config.parent / hook)
        parent = data.get("INHERIT")
        if not isinstance(parent, str):
            break
        config = (config.parent / parent).resolve()
    flat = sorted({n.strip() for group in names for n in group.split(",") if n.strip()})
    return files, flat


def _custom_icons(data: dict[str, Any]) -> list[str]:
    """The icon folders pymdownx.emoji reads (Material's `options: custom_icons`): their SVGs are inlined in pages."""
    found: list[str] = []
    for extension in data.get("markdown_extensions") or []:
        if not isinstance(extension, dict):
            continue
        for settings in extension.values():
            options = settings.get("options") if isinstance(settings, dict) else None
            icons = options.get("custom_icons") if isinstance(options, dict) else None
            if isinstance(icons, list):
                found += [folder for folder in icons if isinstance(folder, str)]
    return found


def inputs_state(project: Path, since: int) -> str:
    """The user's own inputs (corpus/, mkdocs.yml and what it brings in, the environment it reads)
    as one digest: taken before a build and again after it, a difference means something was
    edited while the build ran, and what was built may be the older version. `since`: the file
    system's clock as the build began (core/filestamp.clock)."""
    project = Path(project).resolve()
    h = hashlib.sha256()
    _hash_inputs(h, project, [project / "corpus"], since)
    return h.hexdigest()


def _hash_inputs(h: Any, project: Path, folders: list[Path], since: int, skip: set[str] | None = None) -> None:
    """The environment the build reads, then `folders` and the files mkdocs.yml brings in, into `h`."""
    extra_files, env_names = _config_inputs(project)
    h.update(json.dumps({name: os.environ.get(name) for name in sorted({*_ENV, *env_names})}).encode())
    for path in [*folders, *extra_files]:
        h.update(f"\n#{path}\n".encode("utf-8", "surrogateescape"))
        if path.is_dir():
            _tree(path, h, skip=skip, since=since)
        else:
            with suppress(OSError):
                info = path.stat()
                h.update(f"{info.st_size}\0{info.st_mtime_ns}\0{info.st_ino}".encode())
                _also(h, str(path), info, since)


def fingerprint(project: Path, site_dir: Path, options: dict[str, Any], since: int) -> str:
    """What the next build would be made of (everything but the site and the clock), as one digest;
    `since`: the file system's clock as the stamped build began (racily clean files by their bytes)."""
    project = Path(project).resolve()
    h = hashlib.sha256()
    h.update(json.dumps([SCHEMA, _distributions(), sorted(options.items()), str(site_dir)], default=str).encode())
    docs = project / str(_read_config(project / "mkdocs.yml").get("docs_dir") or "docs")
    cache = project / ".corpus-build"
    _hash_inputs(h, project, [project / "corpus", docs], since, skip={str(site_dir)})
    # The snapshot the home page compares with ("since the last build"): read, not only stated.
    with suppress(OSError):
        h.update(hashlib.sha256((cache / "last-build.json").read_bytes()).digest())
    return h.hexdigest()


def site_state(site_dir: Path) -> str:
    h = hashlib.sha256()
    if not site_dir.is_dir():
        return ""
    _tree(site_dir, h)
    return h.hexdigest()


def expiry(now: dt.datetime) -> float:
    """The first moment the same registry would build differently: the next UTC midnight.

    The sitemap's date and arXiv months step there, and so do the mirrors' ages: the freshness
    chart's buckets and the stale state count whole UTC days (core.provenance.days_old), so
    however many mirrors there are, none turns a week old or stale in the middle of a day.
    """
    midnight = dt.datetime.combine(now.astimezone(dt.UTC).date() + dt.timedelta(days=1), dt.time(0), tzinfo=dt.UTC)
    return midnight.timestamp()


def _stamp_path(project: Path) -> Path:
    return Path(project) / STAMP


def unchanged(project: Path, site_dir: Path, options: dict[str, Any]) -> dict | None:
    """The last build's stamp when this build would change nothing, else None."""
    try:
        stamp = json.loads(_stamp_path(project).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("schema") != SCHEMA or not stamp.get("home_unchanged"):
        return None
    now = dt.datetime.now(dt.UTC)
    if not isinstance(stamp.get("expires"), (int, float)) or now.timestamp() >= stamp["expires"]:
        return None
    since = stamp.get("since")
    if not isinstance(since, int) or stamp.get("inputs") != fingerprint(project, site_dir, options, since) or stamp.get("site") != site_state(site_dir):
        return None
    return stamp


def record(project: Path, site_dir: Path, options: dict[str, Any], corpus: Any, *, home_unchanged: bool, warnings: list[tuple[str, int, str]],
           since: int, inputs_before: str | None = None) -> None:
    """After a successful build (the snapshot saved): what the next build compares with.

    `since`: the file system's clock as the build began (core/filestamp.clock); `inputs_before`:
    `inputs_state` then. An edit saved while the build ran may have been read too late: no
    stamp then, so the next build is a real one.
    """
    if inputs_before is not None and inputs_state(project, since) != inputs_before:
        forget(project)
        return
    now = dt.datetime.now(dt.UTC)
    stamp = {
        "schema": SCHEMA,
        "built_at": now.strftime("%Y-%m-%d %H:%M"),
        "sources": len(corpus.sources),
        "expires": expiry(now),
        # A build whose home page listed changes since the one before: the next one lists none (or others).
        "home_unchanged": home_unchanged,
        "since": since,
        "inputs": fingerprint(project, site_dir, options, since),
        "site": site_state(site_dir),
        "warnings": warnings[:MAX_WARNINGS],
    }
    with suppress(OSError):  # without the stamp the next build is a real one: nothing lost
        write_atomic(_stamp_path(project), json.dumps(stamp, ensure_ascii=False))


def forget(project: Path) -> None:
    with suppress(OSError):
        _stamp_path(project).unlink()


def replay(stamp: dict) -> None:
    """The last build's warnings, said again: this build would have said them."""
    for name, level, message in stamp.get("warnings") or []:
        logging.getLogger(str(name)).log(int(level), str(message))


@contextmanager
def warnings_kept() -> Iterator[list[tuple[str, int, str]]]:
    """The warnings the engine and the plugin log during the build, for `replay`."""
    found: list[tuple[str, int, str]] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append((record.name, record.levelno, record.getMessage()))

    handler = Keep(logging.WARNING)
    targets = [logging.getLogger(name) for name in ("mkdocs", "properdocs", "corpus_build")]
    for logger in targets:
        logger.addHandler(handler)
    try:
        yield found
    finally:
        for logger in targets:
            logger.removeHandler(handler)
