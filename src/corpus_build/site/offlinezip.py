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
"""

from __future__ import annotations

import json
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


class _Last:
    """The last zip's entries, read as their deflated bytes."""

    def __init__(self, target: Path):
        self.archive: zipfile.ZipFile | None = None
        try:
            if json.loads(_made_by_file(target).read_text(encoding="utf-8")) != MADE_BY:
                return
            self.archive = zipfile.ZipFile(target)
        except (OSError, ValueError, zipfile.BadZipFile):
            self.archive = None

    def deflated(self, name: str, data: bytes) -> tuple[zipfile.ZipInfo, bytes] | None:
        """The entry `name` and its deflated bytes, when it holds exactly `data`; None otherwise."""
        if self.archive is None:
            return None
        try:
            info = self.archive.getinfo(name)
            if info.compress_type != zipfile.ZIP_DEFLATED or info.file_size != len(data) or info.flag_bits & ~0x800:
                return None
            fp: Any = self.archive.fp
            fp.seek(info.header_offset)
            header = fp.read(_LOCAL_HEADER)
            name_length, extra_length = int.from_bytes(header[26:28], "little"), int.from_bytes(header[28:30], "little")
            fp.seek(info.header_offset + _LOCAL_HEADER + name_length + extra_length)
            raw = fp.read(info.compress_size)
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


def write(target: Path, partial: Path, entries: Iterable[tuple[zipfile.ZipInfo, bytes]]) -> int:
    """Write the zip of `entries` (deflated) to `partial`, reusing `target`'s entries that hold the same bytes;
    returns how many were reused. The caller moves `partial` to `target`, then calls `made`."""
    last = _Last(target)
    reused = 0
    try:
        with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            seekable = getattr(archive, "_seekable", False)
            for entry, data in entries:
                found = last.deflated(entry.filename, data) if seekable and len(data) * 1.05 <= zipfile.ZIP64_LIMIT else None
                if found is None:
                    archive.writestr(entry, data)
                else:
                    _copy_deflated(archive, entry, *found)
                    reused += 1
    finally:
        last.close()
    return reused


def made(target: Path) -> None:
    """After `target` is in place: who wrote it, for the next `write`."""
    with suppress(OSError):
        _made_by_file(target).write_text(json.dumps(MADE_BY), encoding="utf-8")
