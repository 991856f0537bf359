"""When a file's metadata says it is unchanged, and when only its bytes can (git's "racily clean" rule).

A rebuild skips work for a file whose stat is the one it recorded. Which fields, and why:

- the inode: a `git checkout`, an editor's save-by-rename, a `cp` over it give a new file;
- the modification time in nanoseconds, and the size: an edit in place;
- the change time (ctime): `os.utime` (`touch -r`, `cp -p`, an archive unpacked) sets the
  modification time back, never the change time, so an edit given its old time still shows.

What no field shows: a write in the same tick of the file system's clock as the one recorded.
Timestamps are as fine as the file system keeps them (2 s on FAT, 1 s on ext3 and HFS+, a
server's clock over NFS), so a file written, looked at, and written again within one tick
keeps every field (same size: a digit changed). Git calls such an entry racily clean and
compares its bytes. So does this module: a file whose modification or change time is not older
than the moment it was looked at, as the file system's own clock reads it (`clock`), is racy,
and only a comparison of its bytes (a hash recorded with the stat) may call it unchanged. Files
written long before a build are never racy: the "nothing changed" checks stay stat-only for
them.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from pathlib import Path

# When the file system's clock cannot be read (a read-only folder): the wall clock, less the
# coarsest tick in common use (FAT's 2 s) and then some, for a kernel that stamps files from
# a clock a little behind the one Python reads.
_FALLBACK_MARGIN_NS = 3_000_000_000


def clock(folder: Path) -> int:
    """The file system's time now at `folder` (nanoseconds), as it stamps files: a file written
    later is stamped at least this. Read by writing a tiny probe file there and stating it, so a
    coarse tick or a file server's own clock is taken into account without knowing either."""
    wall = time.time_ns()
    probe = Path(folder) / f".clock-probe-{os.getpid()}"
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        # Made anew, never opened through what has its name: the cache folder comes from outside
        # (CI restores it), and a link planted there would have the probe write onto its target.
        probe.unlink(missing_ok=True)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        try:
            os.write(fd, b"\n")
        finally:
            os.close(fd)
        info = os.stat(probe, follow_symlinks=False)  # after the close: a file server's stamp, not the client's
    except OSError:
        return wall - _FALLBACK_MARGIN_NS
    finally:
        with suppress(OSError):
            os.unlink(probe)
    return min(info.st_mtime_ns, info.st_ctime_ns)


def key(info: os.stat_result) -> list[int]:
    """The fields that change when a file does (module docstring): inode, mtime, ctime (ns), size."""
    return [info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size]


def racy(info: os.stat_result | list[int], since: int) -> bool:
    """Whether a file stated at or after `since` (a `clock` reading) may have been written again
    within the same tick without its stat showing it: its bytes must be compared."""
    if isinstance(info, list):
        return info[1] >= since or info[2] >= since
    return info.st_mtime_ns >= since or info.st_ctime_ns >= since
