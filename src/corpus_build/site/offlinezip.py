"""offline.zip written again without compressing again what the last zip already holds.

The offline copy is zipped anew at every build (offline.py), and deflating it was a tenth of
a rebuild of the default corpus after one note edit: Material's scripts, the search index
and every page, though most are byte for byte what the last zip holds. So each file is
compared with the last zip's entry of that name (its bytes inflated: a size and a CRC are
no proof), and an equal one's deflated bytes are copied as they are.

Deflate gives the same bytes for the same input with the same zlib, and `write` reuses
entries only when the last zip was written by the same zlib and Python (MADE_BY, kept
beside it): the zip is then byte for byte the one a fresh compression would make
(tests/test_offline.py compares them).

Comparing still read every file and inflated every entry (28 MB for the default corpus, a
tenth of a note edit's rebuild). The copy's site is now kept between builds and its unchanged
files are hard links to the last copy's (offline.py), so the record beside the zip also names
each file it was made from by inode, modification time and size, and the zip itself likewise:
a file that is still that very file (a link, never written through) holds the entry's bytes,
and is copied without reading either. A record whose zip is not the one in place (a build
killed between the two) names nothing.
"""

from __future__ import annotations

import json
import os
import sys
import zipfile
import zlib
from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

MADE_BY = {"zlib": zlib.ZLIB_RUNTIME_VERSION, "python": sys.version}
_LOCAL_HEADER = 30  # the fixed part of a zip entry's local header; its name and extra field follow


def _made_by_file(target: Path) -> Path:
    return target.with_name(f".{target.name}.made-by.json")


Stamp = list[int]  # [inode, mtime_ns, size]


def _stamp(path: Path | str) -> Stamp:
    info = os.stat(path, follow_symlinks=False)
    return [info.st_ino, info.st_mtime_ns, info.st_size]


class _Last:
    """The last zip's entries, read as their deflated bytes."""

    def __init__(self, target: Path):
        self.archive: zipfile.ZipFile | None = None
        self.files: dict[str, Stamp] = {}  # entry name -> the file it was made from, as it was then
        try:
            record = json.loads(_made_by_file(target).read_text(encoding="utf-8"))
            if not isinstance(record, dict) or {k: record.get(k) for k in MADE_BY} != MADE_BY:
                return
            self.archive = zipfile.ZipFile(target)
            if record.get("zip") == _stamp(target) and isinstance(record.get("files"), dict):
                self.files = record["files"]
        except (OSError, ValueError, zipfile.BadZipFile):
            self.archive = None

    def same_file(self, name: str, stamp: Stamp) -> tuple[zipfile.ZipInfo, bytes] | None:
        """The entry `name` and its deflated bytes, when it was made from the very file `stamp` names; None otherwise."""
        if self.archive is None or self.files.get(name) != stamp:
            return None
        try:
            info = self.archive.getinfo(name)
            if info.compress_type != zipfile.ZIP_DEFLATED or info.file_size != stamp[2] or info.flag_bits & ~0x800:
                return None
            raw = self._raw(info)
            return (info, raw) if len(raw) == info.compress_size else None
        except (KeyError, OSError, ValueError):
            return None

    def _raw(self, info: zipfile.ZipInfo) -> bytes:
        fp: Any = self.archive.fp  # type: ignore[union-attr]
        fp.seek(info.header_offset)
        header = fp.read(_LOCAL_HEADER)
        name_length, extra_length = int.from_bytes(header[26:28], "little"), int.from_bytes(header[28:30], "little")
        fp.seek(info.header_offset + _LOCAL_HEADER + name_length + extra_length)
        return bytes(fp.read(info.compress_size))

    def deflated(self, name: str, data: bytes) -> tuple[zipfile.ZipInfo, bytes] | None:
        """The entry `name` and its deflated bytes, when it holds exactly `data`; None otherwise."""
        if self.archive is None:
            return None
        try:
            info = self.archive.getinfo(name)
            if info.compress_type != zipfile.ZIP_DEFLATED or info.file_size != len(data) or info.flag_bits & ~0x800:
                return None
            raw = self._raw(info)
            if len(raw) != info.compress_size or zlib.decompress(raw, -15) != data:
                return None
            return info, raw
        except (KeyError, OSError, zlib.error, ValueError):
            return None

    def close(self) -> None:
        if self.archive is not None:
            self.archive.close()


def _copy_deflated(archive: zipfile.ZipFile, entry: zipfile.ZipInfo, last: zipfile.ZipInfo, raw: bytes) -> None:
    """Add `entry` with the deflated bytes `raw` (of last's content), as `writestr` would have written it."""
    # What ZipFile._open_to_write and _ZipWriteFile.close set for a deflated entry of a seekable file.
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.flag_bits = 0
    entry.file_size, entry.compress_size, entry.CRC = last.file_size, len(raw), last.CRC
    fp: Any = archive.fp
    fp.seek(archive.start_dir)
    entry.header_offset = fp.tell()
    archive._writecheck(entry)  # type: ignore[attr-defined]
    archive._didModify = True  # type: ignore[attr-defined]
    fp.write(entry.FileHeader(False))
    fp.write(raw)
    archive.start_dir = fp.tell()
    archive.filelist.append(entry)
    archive.NameToInfo[entry.filename] = entry


def write(target: Path, partial: Path, entries: Iterable[tuple[zipfile.ZipInfo, Path]]) -> tuple[int, dict[str, Stamp]]:
    """Write the zip of `entries` (each file's bytes, deflated) to `partial`, reusing `target`'s entries that hold
    the same bytes; returns how many were reused, and the files' stamps. The caller moves `partial` to `target`,
    then calls `made` with those stamps."""
    last = _Last(target)
    reused = 0
    stamps: dict[str, Stamp] = {}
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            seekable = getattr(archive, "_seekable", False)
            for entry, path in entries:
                stamp = stamps[entry.filename] = _stamp(path)
                found = last.same_file(entry.filename, stamp) if seekable and stamp[2] * 1.05 <= zipfile.ZIP64_LIMIT else None
                if found is None:
                    data = path.read_bytes()
                    if _stamp(path) != stamp:  # (written meanwhile: not what the record would say)
                        stamps.pop(entry.filename)
                    found = last.deflated(entry.filename, data) if seekable and len(data) * 1.05 <= zipfile.ZIP64_LIMIT else None
                    if found is None:
                        archive.writestr(entry, data)
                        continue
                _copy_deflated(archive, entry, *found)
                reused += 1
    finally:
        last.close()
    return reused, stamps


def made(target: Path, files: dict[str, Stamp] | None = None) -> None:
    """After `target` is in place: who wrote it from which files, for the next `write`."""
    with suppress(OSError):
        record: dict[str, Any] = {**MADE_BY, "zip": _stamp(target), "files": files or {}}
        _made_by_file(target).write_text(json.dumps(record), encoding="utf-8")
