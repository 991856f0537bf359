"""The site folder: which folders a build may replace, and one build of a project at a time.

A build replaces the whole site folder (core/swapdir.py), so the folder it is told to use
must be one that holds nothing but a site. `check` refuses, with one line saying why:

    the project itself, a parent of it, or corpus/, docs/, .git/ (or a folder inside one of
    those, or holding one of them): replacing it would delete the registry or the pages
    a file, or a symbolic link (the link would be replaced by a folder)
    a folder with anything in it that corpus-build did not build: a site corpus-build
    builds carries MARKER; a site built before the marker existed is recognised by what
    MkDocs writes (index.html with a sitemap or search index). Hidden entries other than
    the marker (a `.git` of a gh-pages checkout) are never replaced.

MkDocs' own guard (docs_dir inside site_dir) does not see any of this: the engine builds
into a sibling staging folder, which never contains docs/.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ..core import swapdir
from ..core.errors import SiteError

MARKER = ".corpus-build-site"
MARKER_TEXT = "This folder is a site built by corpus-build. Every build replaces it whole: keep nothing else in it.\n"
LOCK = ".corpus-build/build.lock"
# What MkDocs (and Material) write into every site: a folder holding index.html and one of
# these was built by an engine, and building again may replace it.
_BUILT_BY_AN_ENGINE = ("sitemap.xml", "sitemap.xml.gz", "search/search_index.json")


def check(site: Path, *, project: Path, docs_dir: Path, corpus_dir: Path, origin: str, keeps_hidden: bool = False) -> None:
    """SiteError when building into `site` could delete something that is not a site.

    `origin` says where the folder was named (`--site-dir`, `mkdocs.yml: site_dir`), for the message.
    `keeps_hidden`: the build empties the folder but keeps its hidden entries (plain
    `mkdocs build` does), so a `.git` there is no reason to refuse.
    """
    shown = f"{origin} {site}"
    if os.path.islink(site):
        raise SiteError(f"{shown}: the site folder is a symbolic link; a build replaces the folder whole, so name the real folder ({os.path.realpath(site)}) instead")
    if os.path.lexists(site) and not os.path.isdir(site):
        raise SiteError(f"{shown}: this is a file, not a folder; name a folder for the site (e.g. site/) or move the file away")
    real = Path(os.path.realpath(site))
    protected = {
        "the project folder": Path(os.path.realpath(project)),
        "the registry folder (corpus/)": Path(os.path.realpath(corpus_dir)),
        "the generated pages' folder (docs_dir)": Path(os.path.realpath(docs_dir)),
        "the project's git repository (.git/)": Path(os.path.realpath(Path(project) / ".git")),
    }
    for name, folder in protected.items():
        if real == folder:
            raise SiteError(f"{shown}: this is {name}; a build replaces the site folder whole and would delete it. Name a folder of its own, e.g. site/")
        if folder.is_relative_to(real):
            raise SiteError(f"{shown}: this folder holds {name} ({folder}); a build replaces the site folder whole and would delete it. Name a folder of its own, e.g. site/")
        if name != "the project folder" and real.is_relative_to(folder):
            raise SiteError(f"{shown}: this folder lies inside {name} ({folder}); name a folder outside it, e.g. site/")
    foreign = foreign_entries(real, keeps_hidden=keeps_hidden)
    if foreign:
        listed = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        raise SiteError(
            f"{shown}: this folder holds files corpus-build did not build ({listed}); a build replaces the site folder whole. "
            "Name an empty or new folder, or move those files away"
        )


def foreign_entries(folder: Path, *, keeps_hidden: bool = False) -> list[str]:
    """Entries of an existing site folder that a build must not replace (sorted names); [] when it may."""
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise SiteError(f"{folder}: the site folder cannot be read ({exc.strerror or exc}); check its permissions") from None
    hidden = [name for name in names if name.startswith(".") and name != MARKER]
    if hidden and not keeps_hidden:
        return hidden
    names = [name for name in names if name not in hidden]
    if not names or MARKER in names:
        return []
    if (folder / "index.html").is_file() and any((folder / path).is_file() for path in _BUILT_BY_AN_ENGINE):
        return []  # a site built by an engine (an older corpus-build, or plain `mkdocs build`)
    return names


def mark(folder: Path) -> None:
    """Say in the folder that corpus-build built it (the next build may replace it)."""
    (Path(folder) / MARKER).write_text(MARKER_TEXT, encoding="utf-8")


def put_back(project: Path, site: Path) -> bool:
    """Rename the old site a build killed between the fallback swap's two renames left parked
    (core/swapdir.py: `.site.old-<pid>`, and no `site`) back to its name; True when done.

    A build puts it back itself as it starts (swapdir.recover), but until then the site folder
    was missing: for a static server, and for good when the next `build` or `publish` stopped
    before its build (a registry error). So every command that replaces the site calls this
    first. Cheap when there is nothing to do (one listing, no lock). Else under the build lock,
    tried once: a parked site is only a dead build's when no build holds it (one going on may be
    between its two renames this very moment, and it puts back a dead build's site itself)."""
    if not swapdir.parked(site) or not os.access(site.parent, os.W_OK):
        return False
    with suppress(SiteError), build_lock(project, wait=False) as held:  # SiteError: no lock file can be made here
        if held:
            swapdir.recover(site)
    return site.is_dir()


@contextmanager
def build_lock(project: Path, *, wait: bool = True) -> Iterator[bool]:
    """One build of a project at a time: a second waits (saying so) until the first is done.
    Whether the lock is held: with `wait=False`, False at once when another holds it.

    Two builds would share the staging folder. The kernel releases the lock when a build dies.
    """
    path = Path(project) / LOCK
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise SiteError(f"{path}: cannot open the build lock ({exc.strerror or exc}); check that the project folder is writable and that .corpus-build is a real folder") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held = True
        except BlockingIOError:
            held = False
        if not held and wait:
            print(f"another build of {project} is running; waiting for it to finish", file=sys.stderr)
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = True
        yield held
    finally:
        os.close(fd)
