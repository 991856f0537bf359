"""A mirrored repository's files, as the site and `check` may read them: names, the tree, line counts.

fetch/kinds/git.py leaves a working checkout of the pinned commit at raw/<id>/repo/. Every name
in it is untrusted (a pull request to the mirrored project chooses them), so the checkout is
only ever read through this module:

- a path is a repository-relative POSIX path whose every part is a plain name (`NAME`: letters,
  digits, `._+-`, no leading dot for anything the site publishes), never `..`, never absolute;
- nothing is reached through a symlink (each part is lstat'ed; git checks symlinks out as
  plain files, but a mirror is a tracked folder anyone can edit), and only regular files are read;
- the tree walk is bounded (MAX_WALK entries) and leaves out vendored and third-party folders
  and submodules (VENDORED, `.gitmodules`): their docs are another project's.

`[[repo-id#path]]` and `[[repo-id#path:120-160]]` name a file and lines of the checkout;
`file_fragment` tells such a fragment from a text page's `#sec-…` / `#page-N`, `parse_fragment`
splits it, `check_link` is what `corpus-build check` says about it (core/pdf_structure.check_anchor
calls it for repositories).
"""

from __future__ import annotations

import functools
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from . import safepath

CHECKOUT = "repo"  # the folder fetch/kinds/git.py clones into (its CLONE; a test keeps the two equal)
# One part of a path the site publishes: no leading dot (MkDocs leaves hidden files out of the
# site, and `.git` is git's own), nothing a URL or a shell would read specially.
NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}")
# One part of a path a link may name: hidden folders too (`.github/workflows/ci.yml`), never `.`, `..`, `.git`.
_LINK_NAME = re.compile(r"\.?[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}")
# Folders of other projects' code kept inside a repository; compared lower-cased.
VENDORED = frozenset({
    "3rdparty", "third_party", "third-party", "thirdparty", "3rd_party", "3rd-party", "vendor", "vendored", "node_modules",
    "bower_components", "external", "externals", "extern", "deps", "submodules", "site-packages",
})
MAX_WALK = 50_000  # entries looked at per checkout: the Linux kernel's tree is 90,000 files
MAX_GITMODULES = 64 * 1024
_FRAGMENT = re.compile(r"^(?P<path>.+?)(?::(?P<start>\d{1,9})(?:-(?P<end>\d{1,9}))?)?$")
_TEXT_ANCHOR = re.compile(r"^(?:sec-[^/.:]*|page-\d+)$")  # a text page's places keep their meaning


@dataclass(frozen=True)
class FileLink:
    """What `[[repo-id#path:start-end]]` names: a path, and lines (0 when none)."""

    path: str
    start: int = 0
    end: int = 0

    @property
    def lines(self) -> str:
        """":120-160", ":120" or "" as written in a link."""
        if not self.start:
            return ""
        return f":{self.start}" if self.end == self.start else f":{self.start}-{self.end}"


def file_fragment(kind: str, fragment: str) -> bool:
    """True when `[[id#fragment]]` names a file of a repository's checkout (not a text page's place).

    A repository's README text page has `#sec-…` headings as every text page does; anything
    else after the `#` of a repository is a path.
    """
    return kind == "repo" and bool(fragment) and not _TEXT_ANCHOR.match(fragment)


def parse_fragment(fragment: str) -> FileLink:
    """`csrc/x.cu:120-160` -> FileLink("csrc/x.cu", 120, 160); `:120` alone is one line."""
    match = _FRAGMENT.match(fragment.strip())
    if match is None:
        return FileLink(fragment.strip())
    start = int(match.group("start") or 0)
    end = int(match.group("end") or start)
    return FileLink(match.group("path").strip().removeprefix("./"), start, end)


def plain_path(path: str) -> bool:
    """Every part a publishable NAME: what may become a page or a published file of the site."""
    parts = path.split("/")
    return bool(path) and all(NAME.fullmatch(part) for part in parts)


def _link_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and all(_LINK_NAME.fullmatch(part) and part.lower() != ".git" for part in parts)


def checkout_dir(raw_dir: Path) -> Path | None:
    """raw/<id>/repo when it is a real folder inside the mirror (not a symlink), else None."""
    folder = Path(raw_dir) / CHECKOUT
    try:
        mode = os.lstat(folder).st_mode
    except (OSError, ValueError):
        return None
    return folder if stat.S_ISDIR(mode) and safepath.is_inside(folder, raw_dir) else None


def member(checkout: Path, path: str) -> Path | None:
    """checkout/path when every part is a plain name, none is a symlink and it is a regular file; else None."""
    if not _link_path(path):
        return None
    current = Path(checkout)
    for index, part in enumerate(path.split("/")):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except (OSError, ValueError):
            return None
        last = index == len(path.split("/")) - 1
        if not (stat.S_ISREG(mode) if last else stat.S_ISDIR(mode)):
            return None  # a symlink (or a FIFO, a device) anywhere on the way
    return current if safepath.is_inside(current, checkout) else None


def folder(checkout: Path, path: str) -> bool:
    """True when checkout/path is a folder reached through no symlink (a link to it goes to GitHub's tree view)."""
    current = Path(checkout)
    for part in path.split("/") if _link_path(path) else ():
        current = current / part
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False
        except (OSError, ValueError):
            return False
    return _link_path(path)


def read_member(path: Path, limit: int) -> bytes | None:
    """At most `limit` + 1 bytes of a file `member` found, opened without following a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read(limit + 1)


def is_binary(data: bytes) -> bool:
    """As git decides: a NUL byte in the first 8,000 bytes."""
    return b"\0" in data[:8000]


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


@dataclass(frozen=True)
class Tree:
    """The files of a checkout the site may publish, and what the walk left out."""

    files: tuple[str, ...]  # repository-relative paths of regular files, plain names only, sorted
    vendored: tuple[str, ...] = ()  # folders left out as another project's (with a trailing /)
    odd_names: int = 0  # entries whose name is not a plain NAME
    symlinks: int = 0  # symlinks, never followed
    truncated: bool = False  # the walk stopped at MAX_WALK entries


def tree(checkout: Path) -> Tree:
    """The checkout's files (see Tree); kept per folder version, so `check` and render walk it once."""
    try:
        info = os.lstat(checkout)
    except OSError:
        return Tree(())
    return _tree(str(checkout), info.st_mtime_ns, info.st_ino)


def _submodules(checkout: Path) -> set[str]:
    found = member(checkout, ".gitmodules")
    data = read_member(found, MAX_GITMODULES) if found is not None else None
    if not data:
        return set()
    paths = set()
    for line in data[:MAX_GITMODULES].decode("utf-8", "replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "path" and value.strip():
            paths.add(value.strip().strip("/"))
    return paths


@functools.lru_cache(maxsize=32)
def _tree(folder: str, _mtime_ns: int, _inode: int) -> Tree:
    checkout = Path(folder)
    submodules = _submodules(checkout)
    files: list[str] = []
    vendored: list[str] = []
    odd = links = seen = 0
    truncated = False
    stack = [""]
    while stack and not truncated:
        prefix = stack.pop()
        try:
            with os.scandir(checkout / prefix if prefix else checkout) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in listed:
            seen += 1
            if seen > MAX_WALK:
                truncated = True
                break
            name = entry.name
            if name.startswith("."):
                continue  # .git, .github: hidden, never published (MkDocs leaves them out too)
            if not NAME.fullmatch(name):
                odd += 1
                continue
            path = f"{prefix}/{name}" if prefix else name
            try:
                if entry.is_symlink():
                    links += 1
                elif entry.is_dir(follow_symlinks=False):
                    if name.lower() in VENDORED or path in submodules:
                        vendored.append(path + "/")
                    else:
                        stack.append(path)
                elif entry.is_file(follow_symlinks=False):
                    files.append(path)
            except OSError:
                continue
    return Tree(tuple(sorted(files)), tuple(sorted(vendored)), odd, links, truncated)


def check_link(raw_dir: Path, source_id: str, fragment: str) -> tuple[str, str] | None:
    """("error" | "warning", message) when `[[source_id#path:lines]]` cannot be followed, None when it can."""
    from .provenance import read_provenance

    link = parse_fragment(fragment)
    written = f"[[{source_id}#{fragment}]]"
    if link.start == 0 and re.search(r":\d", fragment) is None and fragment.rstrip().endswith(":"):
        return "error", f"link {written} ends with ':' but names no line; write :120 or :120-160, or leave the ':' out"
    if ":" in fragment and link.start == 0 and re.search(r":0+(-|$)", fragment):
        return "error", f"link {written} names line 0; lines count from 1"
    if link.start and link.end < link.start:
        return "error", f"link {written} names lines {link.start}-{link.end}, whose first line is after its last; write :{link.end}-{link.start}"
    if not _link_path(link.path):
        return "error", f"link {written} names '{link.path}', which is no path inside a repository; write it from the repository's top folder, e.g. docs/guide.md"
    record = read_provenance(raw_dir)
    checkout = checkout_dir(raw_dir)
    if record is None or record.repo is None or checkout is None:
        return "warning", f"link {written} cannot be checked yet: '{source_id}' has no mirrored checkout; run `corpus-build fetch {source_id}`"
    found = member(checkout, link.path)
    if found is None:
        return "error", f"link {written}: the repository (commit {record.repo.commit[:12]}) has no file {link.path}{_did_you_mean(checkout, link.path)}"
    if not link.start:
        return None
    data = read_member(found, 64 * 1024 * 1024)
    if data is None:
        return "error", f"link {written}: {link.path} cannot be read in the mirror"
    if is_binary(data):
        return "error", f"link {written}: {link.path} is a binary file, which has no lines; link it without a line range"
    count = line_count(data)
    if link.end > count:
        what = f"line {link.start}" if link.start == link.end else f"lines {link.start}-{link.end}"
        return "error", f"link {written} names {what}, but {link.path} has {count} line(s)"
    return None


def _did_you_mean(checkout: Path, path: str) -> str:
    import difflib

    files = tree(checkout).files
    name = path.rsplit("/", 1)[-1]
    same_name = [f for f in files if f.rsplit("/", 1)[-1] == name]
    if len(same_name) == 1:
        return f"; did you mean {same_name[0]}?"
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    nearby = [f for f in files if f.startswith(folder + "/")] if folder else []
    for pool in (same_name, nearby, files[:20_000]):
        close = difflib.get_close_matches(path, pool, n=1, cutoff=0.6)
        if close:
            return f"; did you mean {close[0]}?"
    return ""
