"""One rule for every path corpus-build writes or publishes: it stays inside its folder.

A registry is a shared, reviewed folder: a committed symlink (`raw/.failed -> ~/.ssh`,
`01-x/raw -> /etc`, `docs/sources -> ..`) would otherwise make `fetch`, `watch` or
`render` write or delete files outside the project, and the site publish them. Every
writer asks `inside(path, root)` before it writes under `root`; readers that publish
(the mirror panel, text pages) ask `is_inside`. Symlinks that stay inside the folder
are fine: only where a path really lands counts.

Why resolve() and not O_NOFOLLOW on each component: the writers use ordinary
`open`/`os.replace`, and the checks happen once per folder per run, before any write;
the race with someone swapping a folder for a symlink mid-run needs write access to
the corpus already, which is outside the threat (untrusted *content* in the corpus).
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import UnsafePathError


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a loop of symlinks, a NUL byte
        return Path("/nonexistent-unsafe-path")


def is_inside(path: Path, root: Path) -> bool:
    """True when `path` (following every symlink on the way) lands inside `root`."""
    return _real(path).is_relative_to(_real(root))


def mirror_member(raw: Path, name: str) -> Path | None:
    """`raw/name` when it is a regular file inside the mirror folder `raw`, else None.

    The name comes from provenance.json, a tracked file anyone can edit in a pull request:
    a name like "../../../../etc/passwd", an absolute path or a symlink must not put a file
    of the build machine on the site.
    """
    path = Path(raw) / name
    if not name or Path(name).is_absolute() or path.is_symlink():
        return None
    try:
        inside = path.resolve().is_relative_to(Path(raw).resolve())
    except (OSError, ValueError):
        return None
    return path if inside and path.is_file() else None


def inside(path: Path, root: Path, what: str = "") -> Path:
    """`path` unchanged when it lands inside `root`; else UnsafePathError naming both.

    The path need not exist; its existing part is what can point elsewhere.
    """
    if not is_inside(path, root):
        target = _real(path)
        link = _first_link(path, root)
        where = f"{link} is a symlink to {os.readlink(link)}" if link else f"{path} resolves to {target}"
        raise UnsafePathError(
            f"{path}: {where}, outside {root}; corpus-build writes and publishes only inside it. "
            f"Replace the symlink with a real folder{' (' + what + ')' if what else ''} and run again"
        )
    return path


def _first_link(path: Path, root: Path) -> Path | None:
    """The first symlink between `root` and `path` (for the message), if any."""
    try:
        relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except ValueError:
        return None
    current = Path(os.path.abspath(root))
    for part in relative.parts:
        current = current / part
        if current.is_symlink():
            return current
    return None


def inside_all(root: Path, *paths: Path) -> None:
    """Check several paths under one root (folders a stage is about to write into)."""
    for path in paths:
        inside(path, root)
