"""Parsed sections kept between runs: reading the registry costs what changed in it.

Every command reads the whole registry, and at 5,000 sources parsing and checking
the YAML takes over a second; a build after one edit would spend it on a hundred
unchanged files. A section's result (its sources, and the problems its two files
report) depends only on those files' bytes, where the corpus is, and our code. It
is kept as JSON under `.corpus-build/cache/sections/` beside the corpus folder,
keyed by exactly those (the corpus folder by its name: problems name files relative to
the project), so any change of a byte reads the files afresh.

JSON, not pickle: the cache folder may be restored from elsewhere (CI), and loading
it must never run code. A file that is not a plain, readable, small UTF-8 file is
not cached (reader.py reads it the careful way and reports it). Nothing here ever
fails a command: an unreadable or unwritable cache is a slower read.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from ..core import cachekeys, jsondata
from ..core.errors import Problem
from ..core.model import Section, Source
from ..core.provenance import write_atomic
from . import yamlfile

FOLDER = Path(".corpus-build") / "cache" / "sections"
SCHEMA = 1
Result = tuple[Section, list[Problem], set[str], bool]  # section, its problems, lost ids, sources lost


def _key(root: Path, folder: Path) -> str | None:
    """The key of the folder's two files as they are now; None when one of them is not cacheable."""
    # The corpus folder's name, not its path: problems name files relative to the project,
    # so a cache restored into another checkout (CI) is still valid.
    h = hashlib.sha256(f"{SCHEMA}\0{cachekeys.code_version()}\0{root.name}\0{folder.name}\0".encode())
    for name in ("section.yaml", "sources.yaml"):
        path = folder / name
        if not os.path.lexists(path):
            h.update(b"absent\0")
            continue
        scratch: list[Problem] = []
        text = yamlfile.read_text(path, scratch)
        if text is None or scratch or path.is_symlink():
            return None
        h.update(hashlib.sha256(text.encode("utf-8")).digest())
    return h.hexdigest()


def _place(root: Path, folder: Path) -> Path:
    return root.parent / FOLDER / f"{folder.name}.json"


def get(root: Path, folder: Path) -> tuple[str | None, Result | None]:
    """(key, the cached result when it is for exactly these files)."""
    try:
        key = _key(root, folder)
        if key is None:
            return None, None
        data = jsondata.loads(_place(root, folder).read_text(encoding="utf-8"))
        if data.get("key") != key:
            return key, None
        return key, (_section(data["section"]), [Problem(**p) for p in data["problems"]], set(data["lost_ids"]), bool(data["lost"]))
    except (OSError, ValueError, TypeError, KeyError):
        return (key if "key" in locals() else None), None


def put(root: Path, folder: Path, key: str | None, result: Result) -> None:
    if key is None:
        return
    section, problems, lost_ids, lost = result
    data = {"key": key, "section": _plain(section), "problems": [dataclasses.asdict(p) for p in problems], "lost_ids": sorted(lost_ids), "lost": lost}
    target = _place(root, folder)
    with contextlib.suppress(OSError):  # an unwritable cache is a slower read next time
        write_atomic(target, json.dumps(data, ensure_ascii=False, separators=(",", ":")))


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def _source(data: dict[str, Any]) -> Source:
    values: dict[str, Any] = {}
    for f in dataclasses.fields(Source):
        value = data[f.name]
        if isinstance(value, list):
            value = tuple(value)
        elif f.name == "added" and value is not None:
            value = dt.date.fromisoformat(value)
        values[f.name] = value
    return Source(**values)


def _section(data: dict[str, Any]) -> Section:
    return Section(**{**data, "sources": tuple(_source(s) for s in data["sources"])})
