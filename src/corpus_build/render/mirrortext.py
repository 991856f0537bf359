"""A mirror's files as the site may show them: the one path check, and extracted text made safe HTML.

`mirror_file` is how every page builder reaches a file a provenance record names;
`sanitize_markdown` is how every extracted text becomes HTML (python-markdown, then
nh3's allow-list). The mirror panel (mirror.py), the paper pages (paper.py) and the
thread pages (thread.py) all build on these.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core import mdtext as md
from ..core import provenance, safepath
from ..core.model import Corpus, Source
from ..core.provenance import Provenance

DISPLAY_LIMIT = md.DISPLAY_LIMIT  # characters shown on an extracted-text page
_TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2", "h3",
                  "h4", "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub",
                  "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}
_ATTRIBUTES = {"*": {"id"}, "a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
# The mirror's own image copies only (images/<hash>.<raster type>, see fetch/images.py):
# an image from anywhere else would make the site request another origin.
_NO_SRC_IMG = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")
LOCAL_IMAGE = re.compile(r"images/[0-9a-f]{20}\.(?:png|jpg|gif|webp|avif|bmp)")

# A block of finished HTML in a generated page (a mirror's text): the `corpus` plugin takes it
# out before MkDocs reads the page's Markdown and puts it back, cleaned, into the built page
# (site/mirrorblocks.py). Comments: an engine without the plugin passes them through.
OPAQUE_BEGIN = "<!-- cb-block -->"
OPAQUE_END = "<!-- /cb-block -->"


def opaque(block: str) -> str:
    """`block` (HTML, balanced) marked as finished: blank lines around it keep it a block of its own."""
    return f"{OPAQUE_BEGIN}\n\n{block}\n\n{OPAQUE_END}"


def text_page_path(source: Source) -> str:
    return f"sources/{source.id}/text.md"


def mirror_file(corpus: Corpus, source: Source, name: str) -> Path | None:
    """A file a provenance record names, only if it is a regular file inside the source's mirror
    (core/safepath.mirror_member) and the mirror itself is inside the corpus."""
    raw = corpus.raw_dir(source)
    if _REAL is not None:  # within one render: the same rule, each folder resolved once (below)
        assert _MEMBERS is not None
        key = (str(raw), name)
        if key not in _MEMBERS:
            _MEMBERS[key] = _member(raw, corpus.root, name)
        return _MEMBERS[key]
    if not safepath.is_inside(raw, corpus.root):  # raw/<id> itself a symlink out of the corpus
        return None
    return safepath.mirror_member(raw, name)


# While render runs (`resolving_once`): each folder's real path, resolved once. A render asks
# for ten files of each mirror, and resolving a path reads every folder on its way (40% of a
# render with nothing to write, at 1,000 mirrored sources).
_REAL: dict[str, str] | None = None
# And each file asked for, answered once: the archived copies alone are looked for three times per
# source (the files to publish, the snapshots, the mirror box), 12,000 answers for 4,000 files at
# 1,000 mirrored sources, each a stat and a path made (15% of a render after a note edit).
_MEMBERS: dict[tuple[str, str], Path | None] | None = None
# Within one render: each mirror's state, as provenance.mirror_state read it (its records' two files).
# The home page's change list and every source's mirror box ask for it: once each read 1,670 files
# at 1,000 sources where 835 are enough. Kept for one render only: a later one reads them afresh.
_STATES: dict[tuple[str, int], tuple] | None = None


@contextlib.contextmanager
def resolving_once() -> Iterator[None]:
    global _REAL, _MEMBERS
    outer, _REAL = _REAL, {}
    outer_members, _MEMBERS = _MEMBERS, {}
    try:
        with states_once():
            yield
    finally:
        _REAL, _MEMBERS = outer, outer_members


Read = dict[tuple[str, int], tuple]  # states_once's: (mirror folder, stale_after_days) -> mirror_state as read


@contextlib.contextmanager
def states_once(into: Read | None = None) -> Iterator[Read]:
    """Each mirror's state read once until the outermost of these ends: a render, or a whole
    `corpus-build build`, whose snapshot for the next build's change list (changes.save) then
    holds the states its home page was made from, not read a third time. Yields the states read
    (`into`, when given, for the outermost), which `recaptured` compares with the disk afterwards."""
    global _STATES
    outer = _STATES
    states = _STATES = ({} if into is None else into) if outer is None else outer
    try:
        yield states
    finally:
        _STATES = outer


def mirror_state(raw_dir: Path, stale_after_days: int) -> tuple[str, Provenance | None, Provenance | None]:
    """provenance.mirror_state, read once per folder within one render."""
    if _STATES is None:
        return provenance.mirror_state(raw_dir, stale_after_days)
    key = (str(raw_dir), stale_after_days)
    if key not in _STATES:
        _STATES[key] = provenance.mirror_state(raw_dir, stale_after_days)
    return _STATES[key]


# What a mirror is on disk, for the build's check that no mirror changed while it read them
# (site/engines.build_and_remember): its folder (a fetch swaps in a new one, core/swapdir.py), its
# record and its failure record (a watch or a failing fetch rewrites them, each by a rename).
# A render reads a mirror's record and then its files by separate paths, so a swap between the two
# reads pairs one capture's record with the other's text; re-reading each mirror through one opened
# folder would not help, as the fetch deletes the old folder's files right after the swap.
Mark = tuple[tuple[int, ...] | None, ...]


def mirror_mark(raw_dir: Path) -> Mark:
    folder = str(raw_dir)  # plain strings: 3 stats a source, twice a build, at thousands of sources
    parent, name = os.path.split(folder)
    marks: list[tuple[int, ...] | None] = []
    for path in (folder, os.path.join(folder, provenance.FILENAME), os.path.join(parent, provenance.FAILED_DIR, name + ".json")):
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            marks.append(None)
            continue
        # A folder's own times change as files come and go inside it: only which folder it is counts.
        marks.append((info.st_dev, info.st_ino) if path is folder else (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size))
    return tuple(marks)


def mirror_marks(corpus: Corpus) -> dict[str, Mark]:
    """Every source's mirror_mark, by its mirror folder: taken before a build reads any of them."""
    return {str(raw): mirror_mark(raw) for raw in (corpus.raw_dir(source) for source in corpus.sources)}


def moved_mirrors(marks: dict[str, Mark]) -> list[str]:
    """The mirror folders of `marks` that are no longer what they were (swapped, re-recorded, gone)."""
    return [raw for raw, mark in marks.items() if mirror_mark(Path(raw)) != mark]


def recaptured(marks: dict[str, Mark], moved: list[str], read: Read | None) -> list[str]:
    """Of the `moved` folders (moved_mirrors), those whose pages may not show what is on disk now: all
    but a mirror whose record alone was rewritten in place (the same folder, the same failure record)
    and says what the render read of it (`read`), apart from when and how it was last checked.

    An unchanged fetch re-records every source it checks that way (status, check time, attempts), the
    capture untouched; counted as a change, no plain `mkdocs build` could finish beside a fetch. Each
    page shows that source's record as the render read it, once (states_once): the capture as it still
    is, its check as of a moment before; the next build shows the new one, once the caller has dropped
    the render's reuse keys (reuse.forget_inputs: a view made from the older record under the newer
    record's stamps). A record no longer saying the same (a watch's thread state), a swap, a failure
    record written or cleared: moved."""
    if not moved or read is None:
        return moved
    records = {folder: state[1] for (folder, _days), state in read.items()}
    out = []
    for raw in moved:
        mark, now, before = marks[raw], mirror_mark(Path(raw)), records.get(raw)
        alike = before is not None and mark[0] is not None and (mark[0], mark[2]) == (now[0], now[2])
        current = provenance.read_provenance(Path(raw)) if alike else None
        if current is None or _as_shown(current) != _as_shown(before):
            out.append(raw)
    return out


def _as_shown(record: Provenance | None) -> Provenance | None:
    """A record without what an unchanged fetch rewrites: when and how it was checked (ok and unchanged are one state on a page)."""
    if record is None:
        return None
    status = provenance.Status.OK if record.status is provenance.Status.UNCHANGED else record.status
    return dataclasses.replace(record, status=status, checked_at="", attempts=(), error="")


def moved_names(moved: list[str]) -> str:
    """`moved_mirrors`' folders as a message names them: the first five ids."""
    return ", ".join(Path(raw).name for raw in moved[:5]) + (" …" if len(moved) > 5 else "")


def _real(folder: str) -> str:
    assert _REAL is not None
    found = _REAL.get(folder)
    if found is None:
        try:
            found = os.path.realpath(folder)
        except (OSError, ValueError):  # a loop of symlinks, a NUL byte
            found = "/nonexistent-unsafe-path"
        _REAL[folder] = found
    return found


def _member(raw: Path, root: Path, name: str) -> Path | None:
    """safepath.is_inside(raw, root) and safepath.mirror_member(raw, name), with the folders' real paths kept."""
    real_raw, real_root = _real(str(raw)), _real(str(root))
    if not (real_raw == real_root or real_raw.startswith(real_root.rstrip(os.sep) + os.sep)):
        return None
    if not name or os.path.isabs(name) or "\0" in name:
        return None
    path = os.path.join(raw, name)
    try:
        info = os.lstat(path)  # the file itself a symlink: refused, wherever it points
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    folder, leaf = os.path.split(path)  # not normalised: `sym/../x` is resolved as the system resolves it
    real = os.path.join(_real(folder), leaf)  # its folder resolved (a symlinked `images/` counts), the file is no link
    return Path(path) if real.startswith(real_raw.rstrip(os.sep) + os.sep) else None


_CONVERTERS = threading.local()


def _converter() -> Any:
    """The one configuration for extracted text (core/mdtext: `check` lists the same heading ids),
    one converter per thread, reset for each text.

    Making a converter loads its extensions: 10 ms, as long as converting a 20 KB text, and a
    thread page converts every comment on its own. A reset converter gives the very output of a
    new one (tests/test_mirror_cache.py).
    """
    converter = getattr(_CONVERTERS, "markdown", None)
    if converter is None:
        import markdown

        from ..core import mdinline

        converter = markdown.Markdown(extensions=md.TEXT_EXTENSIONS, extension_configs=md.TEXT_EXTENSION_CONFIGS, output_format="html")
        mdinline.install(converter)  # prose without `*`, `[`, `<`…: no inline pattern scans it (half of converting it)
        _CONVERTERS.markdown = converter
    return converter.reset()


def sanitize_markdown(text: str, image_prefix: str | None = None, images: frozenset[str] = frozenset(),
                      resolve: Callable[[str, str], str | None] | None = None) -> str:
    """Extracted Markdown -> clean HTML (python-markdown, then nh3 with an allow-list).

    With `image_prefix`, <img> of the mirror's local copies that are published (`images`)
    are kept, their src prefixed (the path from the page to the published images/ folder);
    every other image is dropped. With `resolve` (a repository's docs, render/repodocs.py),
    every link's href and image's src is what `resolve(tag, value)` makes of it (None: none),
    and images are kept where it gives them one.
    """
    import nh3

    rendered = _converter().convert(md.escape_markup(text))
    tags, attributes = _TAGS, _ATTRIBUTES
    if image_prefix is not None or resolve is not None:
        tags, attributes = _TAGS | {"img"}, {**_ATTRIBUTES, "img": {"src", "alt", "title"}}

    def keep(tag: str, attribute: str, value: str) -> str | None:
        if resolve is not None and (tag, attribute) in (("a", "href"), ("img", "src")):
            return resolve(tag, value)
        if tag == "img" and attribute == "src":
            return image_prefix + value if image_prefix is not None and value in images and LOCAL_IMAGE.fullmatch(value) else None
        return value

    cleaned = nh3.clean(rendered, tags=tags, attributes=attributes, url_schemes={"http", "https", "mailto"},
                        link_rel="noopener noreferrer nofollow", attribute_filter=keep)
    # An image the filter took the src from (not a local copy) would show as a broken icon.
    return _NO_SRC_IMG.sub("", cleaned) if image_prefix is not None or resolve is not None else cleaned
