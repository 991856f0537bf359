"""Replace a folder by another in one step: a reader sees the old folder or the new one, never a mix.

Used for the site (site/sitedir.py) and for each mirror (fetch/engine.py): the new
content is written into a staging folder beside the target, then

    exchange(staging, target)   renameat2(RENAME_EXCHANGE): one system call swaps the
                                two names; the staging name now holds the old content,
                                which is removed afterwards
    fallback                    where the kernel or file system cannot exchange (not
                                Linux, an old kernel, some network file systems):
                                target -> .<name>.old-<pid>, staging -> target, then
                                remove the old one. A kill between the two renames
                                leaves no target and an .old folder; `recover` renames
                                it back at the start of the next run; for mirrors
                                `put_back` does so before anything reads them, for the
                                site site/sitedir.put_back as a command replacing it starts.

A kill at any moment therefore leaves the complete old or the complete new content under
the target's name (with the fallback, after `recover` or `put_back`), plus at most one
leftover folder that `recover` removes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import re
import shutil
from collections.abc import Collection, Iterable
from contextlib import suppress
from pathlib import Path

from . import failpoints, safepath
from .errors import UsageError
from .runlock import BRIEF_WAIT, RESTORER, run_lock

_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def _load_renameat2():
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        function = libc.renameat2
    except (OSError, AttributeError):  # not glibc ≥ 2.28, not Linux
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


_renameat2 = _load_renameat2()


def exchange(a: Path, b: Path) -> bool:
    """Swap the names `a` and `b` (both exist) atomically; False when this system cannot."""
    if _renameat2 is None:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EPERM):
        return False
    raise OSError(code, os.strerror(code), str(a), None, str(b))


def old_name(target: Path) -> Path:
    """Where the fallback parks the old content between its two renames."""
    return target.with_name(f".{target.name}.old-{os.getpid()}")


PARKED = re.compile(r"\.(?P<name>.+)\.old-\d+")  # old_name's names, exactly


def put_back(root: Path, folders: Iterable[tuple[Path, Collection[str]]]) -> list[Path]:
    """Rename each parked old folder back to its name where a killed fallback swap left that name
    missing; the names put back. `folders`: (a folder, the names in it that may be put back: the
    ids of a section's sources for its raw/). Called whenever the registry is loaded, so that a
    build, `mkdocs serve`, `status` or `links` never reads a corpus with a mirror missing: one
    place before every reader, and the readers keep one layout (raw/<id>), rather than each of
    them learning to look for the parked name.

    Cheap when there is nothing to do (one listing per folder, no lock, nothing written). Else
    under the run lock, taken briefly as RESTORER: a parked folder is only ever a dead run's when
    no fetch holds the lock (a fetch going on may be between its two renames this very moment,
    and it puts back a dead run's folders itself when it starts). When a fetch holds it, or the
    corpus is read-only, nothing is done and nothing is said; the next load tries again."""
    # Only where a rename can happen, looked at before the lock: a parked folder that can never be
    # put back (in a raw/ linked out of corpus/, in a folder we may not write) would otherwise have
    # every load take the run lock for nothing, and rewrite corpus/.fetch.lock each time: a file
    # event under `mkdocs serve`'s watch of corpus/, so another build, another load, for ever.
    folders = [(folder, names) for folder, names in folders if _orphans(folder, names)]
    folders = [(folder, names) for folder, names in folders if safepath.is_inside(folder, root) and os.access(folder, os.W_OK)]
    if not folders:
        return []
    restored: list[Path] = []
    with suppress(UsageError), run_lock(root, RESTORER, wait=BRIEF_WAIT):  # UsageError: held by a fetch, or read-only
        for folder, names in folders:
            for parked, target in _orphans(folder, names):  # again, under the lock
                try:
                    os.rename(parked, target)
                except OSError:  # taken meanwhile, or not ours to rename: left to the next fetch
                    continue
                restored.append(target)
    return restored


def parked(target: Path) -> list[Path]:
    """The parked old folders of a missing `target` (old_name's names, exactly; real folders only)."""
    return [folder for folder, _ in _orphans(target.parent, {target.name})]


def _orphans(folder: Path, names: Collection[str]) -> list[tuple[Path, Path]]:
    """(parked folder, its target) for each parked folder in `folder` whose target is missing."""
    try:
        with os.scandir(folder) as entries:
            found = [(entry, PARKED.fullmatch(entry.name)) for entry in entries if entry.name.startswith(".") and ".old-" in entry.name]
    except OSError:  # no raw/ yet (never fetched), or not a folder
        return []
    orphans = []
    for entry, match in found:
        if match is None or match["name"] not in names or not entry.is_dir(follow_symlinks=False):
            continue  # a look-alike the tool never made: never touched
        target = folder / match["name"]
        if not os.path.lexists(target):
            orphans.append((Path(entry.path), target))
    return sorted(orphans)


def replace(staging: Path, target: Path, *, spare: Path | None = None) -> None:
    """Make `staging` the content of `target` in one step, then remove the old content.

    `spare`: keep the old content's folders there, emptied of every file (`take_folders`). A
    site is swapped whole, so each rebuild made every folder of the new site (2,600 at 1,000
    sources) and removed every folder of the old one: a tenth of a one-note rebuild's CPU. The
    emptied tree takes the name `spare` only once every file in it is gone: a kill before that
    leaves it under the staging name, which the next build removes as it always did."""
    failpoints.hit("swap:before")
    if not os.path.lexists(target):
        os.rename(staging, target)
        failpoints.hit("swap:after")
        return
    if exchange(staging, target):
        failpoints.hit("swap:after")
        if spare is not None and empty_out(staging):  # now the old content
            remove(spare)
            with suppress(OSError):
                os.rename(staging, spare)
        remove(staging)
        return
    old = old_name(target)
    os.rename(target, old)
    failpoints.hit("swap:between")
    os.rename(staging, target)
    failpoints.hit("swap:after")
    remove(old)


def empty_out(folder: Path) -> bool:
    """Unlink everything in `folder` that is not a folder, at any depth; the folders stay. Never
    follows a symbolic link (a link is unlinked, as a file is): each folder is opened by its
    parent's descriptor with O_NOFOLLOW. True when only folders are left."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        top = os.open(folder, flags)
    except OSError:
        return False
    stack = [top]
    clean = True
    try:
        while stack:
            fd = stack.pop()
            try:
                with os.scandir(fd) as entries:
                    listed = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
                for name, is_dir in listed:
                    if is_dir:
                        try:
                            stack.append(os.open(name, flags, dir_fd=fd))
                        except OSError:
                            clean = False
                        continue
                    try:
                        os.unlink(name, dir_fd=fd)
                    except OSError:
                        clean = False
            finally:
                os.close(fd)
    finally:
        for fd in stack:
            os.close(fd)
    return clean


def take_folders(spare: Path, staging: Path) -> list[str] | None:
    """Rename `spare` (folders only, left by `replace(…, spare=…)`) to `staging`; the folders
    in it, relative, deepest first (`prune` removes those a build left empty). None when there is
    no spare, or it holds anything but folders (then it is removed: never built upon)."""
    if not os.path.isdir(spare) or os.path.islink(spare):
        remove(spare)
        return None
    folders: list[str] = []
    stack = [""]
    try:
        while stack:  # (the directory entries' types: no stat per folder)
            relative = stack.pop()
            with os.scandir(os.path.join(spare, relative)) as entries:
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):  # a file, or a link (to a folder too)
                        raise NotADirectoryError(entry.path)
                    inner = os.path.join(relative, entry.name)
                    folders.append(inner)
                    stack.append(inner)
        os.rename(spare, staging)
    except OSError:
        remove(spare)
        return None
    folders.sort(key=lambda path: (-path.count(os.sep), path))
    return folders


def prune(staging: Path, folders: list[str]) -> None:
    """Remove each of `folders` (relative to `staging`, deepest first) that a build left empty:
    a folder the new site has no file in, as a build from nothing would not have made it."""
    for path in folders:
        with suppress(OSError):  # (not empty: the common case, told by the kernel without a listing)
            os.rmdir(os.path.join(staging, path))


def recover(target: Path) -> None:
    """Undo what a killed `replace` left beside `target`: put back a parked old folder when the
    target is missing, and remove any other parked folder (old_name's names only: a user's
    `.site.old-draft` is no folder of ours)."""
    parent = target.parent
    try:
        entries = sorted(parent.iterdir()) if parent.is_dir() else []
    except OSError:
        return
    for entry in entries:
        match = PARKED.fullmatch(entry.name)
        if match is None or match["name"] != target.name:
            continue
        if not os.path.lexists(target):
            os.rename(entry, target)
        else:
            remove(entry)


def remove(folder: Path) -> None:
    """Remove a folder this module made (never follows a symlink: rmtree refuses one)."""
    if os.path.islink(folder):
        os.unlink(folder)
        return
    shutil.rmtree(folder, ignore_errors=True)
