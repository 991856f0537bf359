"""Typed, frozen view records: what each page template is fed, and the template environment.

The page builders (pages.py, mirror.py) turn the registry and the mirrors'
provenance into these records; the templates under render/templates/ lay them
out, one template per page kind. Moving a heading or adding a panel touches a
template, not Python.

Escaping happens in one place: every `{{ … }}` in a template passes through
`markdown.text` (the environment's `finalize`), so registry and provenance text
— titles, notes' surroundings, server errors — stays text on the page. Only
values the templates' own macros produce, and the few filters below that do
their own escaping (`h` for raw HTML, `note`, `user_md`), pass unchanged.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from ..core import mdtext as md


@dataclass(frozen=True)
class Link:
    label: str
    href: str  # a relative .md link (checked by MkDocs), or an http(s) URL when external
    external: bool = False


@dataclass(frozen=True)
class Badge:
    label: str
    css: str


@dataclass(frozen=True)
class Code:
    value: str


@dataclass(frozen=True)
class Strong:
    value: str


# One piece of a line: plain text, a link, a badge, code, or bold text.
Piece = str | Link | Badge | Code | Strong


@dataclass(frozen=True)
class Fact:
    """One row of a key-value table; its pieces are joined by `sep`."""

    key: str
    value: tuple[Piece, ...]
    sep: str = " "


@dataclass(frozen=True)
class Notice:
    """An admonition: kind is failure, warning or info."""

    kind: str
    title: str
    body: str


@dataclass(frozen=True)
class Entry:
    """A source as an annotated bibliography lists it (section pages, reading paths)."""

    id: str
    title: str
    url: str  # safe http(s) URL, or "" when unknown
    page: str  # link to the source's own page, relative to the page being built
    badges: tuple[Badge, ...]
    kind_label: str
    section: Link
    chapters: tuple[Piece, ...] = ()
    tags: tuple[str, ...] = ()
    verified: bool = True
    verify_note: str = ""
    note: str = ""
    verify_note_lang: str = ""  # the note's language when it is not the interface's: shown apart, as written


@dataclass(frozen=True)
class Citation:
    link: Link
    why: str = ""


@dataclass(frozen=True)
class Snapshot:
    """One archived form of the source, published beside its page (PDF, HTML, screenshot, WARC)."""

    kind: str  # pdf, html, screenshot, warc
    label: str
    href: str  # relative to the source page's URL
    size: str = ""


@dataclass(frozen=True)
class MirrorPanel:
    notices: tuple[Notice, ...] = ()
    facts: tuple[Fact, ...] = ()
    thread: tuple[Fact, ...] = ()  # PR/issue facts, shown first
    snapshots: tuple[Snapshot, ...] = ()
    frame: Snapshot | None = None  # the HTML snapshot shown in a sandboxed frame
    excerpt_label: str = ""
    excerpt: str = ""


@dataclass(frozen=True)
class SourcePage:
    title: str
    tags: tuple[str, ...]
    entry: Entry
    breadcrumb: tuple[Link, ...]
    original: Piece
    warning: str  # the unverified note, "" when verified
    facts: tuple[Fact, ...]
    cited_by: tuple[Citation, ...]
    see_also: tuple[Link, ...]
    mirror: MirrorPanel
    cite_box: str = ""  # Markdown of the cite box (render/citation.py)
    link_notice: str = ""  # Markdown: a dead or moved link's notice (linknotice.py), already escaped
    # Extension points: more front matter (e.g. search boosts) and panels after the annotation
    # (heading, Markdown body already escaped), so a new panel needs no change to the layout.
    meta: dict[str, Any] = field(default_factory=dict)
    panels: tuple[tuple[str, Markup], ...] = ()
    # False when no source of the build has an archived copy: the home and status pages say so
    # once, and source pages leave the empty mirror section out.
    show_mirror: bool = True


@dataclass(frozen=True)
class ListItem:
    """A line of a bulleted list: its pieces, then optional pieces after a dash."""

    pieces: tuple[Piece, ...]
    after: tuple[Piece, ...] = ()


@dataclass(frozen=True)
class Block:
    """A headed group on an index page (a section, chapter or digest)."""

    heading: Link
    lines: tuple[Piece, ...] = ()  # one paragraph of facts, joined by " · "
    body: str = ""  # the user's Markdown (intro, summary)
    items: tuple[ListItem, ...] = ()


@dataclass(frozen=True)
class CountRow:
    label: Piece
    count: int
    href: str = ""  # the filtered view of "All sources" that lists these


@dataclass(frozen=True)
class HomePage:
    title: str
    description: str
    summary: tuple[Piece, ...]
    by_section: tuple[CountRow, ...]
    by_kind: tuple[CountRow, ...]
    chapters_heading: Link | None
    chapters: tuple[Link, ...]
    since_heading: str
    since: tuple[ListItem, ...]
    thread_changes: tuple[ListItem, ...]
    latest_digest: Link | None
    recently_added: tuple[ListItem, ...] = ()
    charts: tuple[Markup, ...] = ()
    how_to_use: tuple[str, ...] = ()
    offline_link: str = ""  # Markdown: the offline zip's link (offlinelink.py), already escaped
    more_sections: Link | None = None  # "All N sections →" when the table shows only the largest
    more_chapters: Link | None = None
    notice: str = ""  # said once for the whole site: no source of this build has an archived copy


@dataclass(frozen=True)
class Step:
    number: int
    link: Link
    badges: tuple[Badge, ...]
    why: str
    kind_label: str
    section: Link


@dataclass(frozen=True)
class ReadingPage:
    """A chapter or a learning path."""

    title: str
    subtitle: str
    summary: str
    steps: tuple[Step, ...]
    exports: tuple[Link, ...] = ()  # a chapter's export files (BibTeX, RIS, CSL-JSON); none for a learning path


@dataclass(frozen=True)
class SectionPage:
    title: str
    other_title: str
    folder: str
    intro: str
    entries: tuple[Entry, ...]
    exports: tuple[Link, ...] = ()  # the section's export files (BibTeX, RIS, CSL-JSON)


@dataclass(frozen=True)
class IndexPage:
    """Sections, chapters and digests indexes: a title, links above, blocks below."""

    title: str
    top: tuple[Piece, ...] = ()
    blocks: tuple[Block, ...] = ()
    extra_heading: str = ""
    extra: tuple[ListItem, ...] = ()
    # Paged when there are many blocks (sections, digests): page number, "a–b of n", the pager.
    number: int = 1
    range_label: str = ""
    pager: tuple[PagerLink, ...] = ()
    strings: dict[str, str] = field(default_factory=dict)
    empty: str = ""  # what goes on this page, while it has nothing (a new corpus's chapters or digests)


@dataclass(frozen=True)
class DigestPage:
    title: str
    date: str
    tags: tuple[str, ...]
    facts: tuple[ListItem, ...]
    body: str  # Markdown with wikilinks already resolved
    lang: str = ""  # the page's language when it is not the interface's (a Traditional digest: zh-Hant)


@dataclass(frozen=True)
class SourceRow:
    """A row of the sortable, filterable "All sources" table (raw HTML: hrefs are site URLs)."""

    title: str
    sort_key: str
    href: str
    badges: tuple[Badge, ...]
    kind: str
    kind_label: str
    section: str
    section_label: str
    section_href: str
    lang: str
    lang_label: str
    tags: tuple[str, ...]
    chapters: tuple[int, ...]
    verified: bool
    mirror: str
    mirror_label: str
    added: str


@dataclass(frozen=True)
class Filter:
    """One filter control above the table: the row attribute it reads and its choices."""

    key: str
    label: str
    options: tuple[tuple[str, str], ...]  # (value, label)


@dataclass(frozen=True)
class PagerLink:
    """One link of a pager: a page number, or the previous/next page (href "" when there is none)."""

    label: str
    href: str
    current: bool = False


@dataclass(frozen=True)
class SourcesPage:
    title: str
    exports: tuple[Link, ...]
    rows: tuple[SourceRow, ...]
    filters: tuple[Filter, ...]
    columns: tuple[str, ...]
    strings: dict[str, str] = field(default_factory=dict)  # interface words the script shows
    # One page of the table (render/listing.py): which rows of how many, the pager, and the
    # whole corpus's rows as a script file for sources.js ("" on the numbered pages).
    number: int = 1
    range_label: str = ""
    pager: tuple[PagerLink, ...] = ()
    data: str = ""
    keys: tuple[str, ...] = ()  # the columns shown, by name (listing.COLUMNS); () is every column


@dataclass(frozen=True)
class TagCount:
    tag: str
    count: int
    href: str  # filtered view of "All sources"


@dataclass(frozen=True)
class TagsPage:
    title: str
    intro: str
    tags: tuple[TagCount, ...]
    # Paged when the corpus has many tags (render/tagpages.py): which tags of how many, the pager.
    number: int = 1
    range_label: str = ""
    pager: tuple[PagerLink, ...] = ()
    strings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TagPage:
    """One tag's own page (tags/<slug>/): a page of its sources, a pager, and Material's listing marker."""

    title: str
    tag: str
    top: tuple[Piece, ...]  # the count, the tags index, the filtered view of "All sources"
    rows: tuple[SourceRow, ...]
    columns: tuple[str, ...]
    number: int = 1
    range_label: str = ""
    pager: tuple[PagerLink, ...] = ()
    strings: dict[str, str] = field(default_factory=dict)
    listing: str = ""  # the Material tags directive's arguments (JSON, read as YAML), on page 1 only
    digests: tuple[Link, ...] = ()  # the latest digests carrying the tag (page 1)
    more_digests: Link | None = None  # the digests index, when there are more
    keys: tuple[str, ...] = ()  # the columns shown, by name (listing.COLUMNS); () is every column


@dataclass(frozen=True)
class Table:
    """A Markdown table whose cells are each a few pieces joined by spaces."""

    header: tuple[str, ...]
    rows: tuple[tuple[tuple[Piece, ...], ...], ...]


@dataclass(frozen=True)
class StatusPage:
    title: str
    summary: tuple[Piece, ...]
    charts: tuple[Markup, ...]
    failures: Table
    stale: Table
    # Every mirror state with its count, each linked to "All sources" filtered by it: the
    # page lists only failures and stale mirrors in full, so it does not grow with the corpus.
    by_state: tuple[CountRow, ...] = ()
    notice: str = ""  # no source of this build has an archived copy


@dataclass(frozen=True)
class TextPage:
    title: str
    search_exclude: bool
    links: tuple[Piece, ...]
    notes: tuple[str, ...]
    body: Markup  # already rendered and cleaned by nh3


@dataclass(frozen=True)
class RepoIndexPage:
    """A mirrored repository's docs index (render/repodocs.py)."""

    title: str
    links: tuple[Piece, ...]
    summary: str
    docs: tuple[Link, ...]
    files: tuple[Link, ...]  # cited files shown line by line
    left_out: tuple[str, ...]


# --- times -----------------------------------------------------------------------------


def local_time(stamp: str, tz: dt.tzinfo, *, with_time: bool = True) -> str:
    """An ISO UTC stamp as the reader's wall-clock time in the corpus's zone (2026-12-01 16:05)."""
    if not stamp:
        return ""
    try:
        when = dt.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    when = when.astimezone(tz)
    return when.strftime("%Y-%m-%d %H:%M" if with_time else "%Y-%m-%d")


# --- the template environment ----------------------------------------------------------


def _finalize(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, Markup):
        return value
    return Markup(md.text(value))


def _href(link: Link) -> Markup:
    if link.external:
        return Markup("<" + safe_url(link.href) + ">")
    return Markup(link.href)


def safe_url(url: str) -> str:
    """Only http(s) URLs are linked, percent-encoded so `<`, `>` and spaces cannot break out."""
    if not url.lower().startswith(("http://", "https://")):
        return ""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~")


def _h(value: Any) -> Markup:
    return Markup(html.escape(str(value)))


def _code(value: Any) -> Markup:
    return Markup(str(value).replace("`", "").replace("\n", " "))


def _piece(p: Piece) -> Markup:
    """One piece of a line as Markdown (a Python filter: Jinja macros cost ~20 µs a call, and pages have thousands)."""
    if isinstance(p, Link):
        return Markup(f"[{md.text(p.label)}]({_href(p)})")
    if isinstance(p, Badge):
        return Markup(f'<span class="cb-badge cb-{html.escape(p.css)}">{html.escape(p.label)}</span>')
    if isinstance(p, Code):
        return Markup(f"`{_code(p.value)}`")
    if isinstance(p, Strong):
        return Markup(f"**{md.text(p.value)}**")
    return _finalize(p)


def _pieces(items: Any, sep: str = " ") -> Markup:
    return Markup(sep.join(_piece(p) for p in items))


# A `code` span in a title (issue and PR titles name functions and types this way).
CODE_SPAN = re.compile(r"`([^`\n]+)`")


def title_md(value: Any) -> Markup:
    """A registry title as Markdown: its `code` spans stay code, everything else is escaped text."""
    text, out, last = str(value), [], 0
    for match in CODE_SPAN.finditer(text):
        # A code span's content is literal to Markdown and HTML-escaped by it: `<dst>` shows as typed.
        out += [md.text(text[last : match.start()]), "`" + match.group(1) + "`"]
        last = match.end()
    out.append(md.text(text[last:]))
    return Markup("".join(out))


_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def dates_whole(value: Markup) -> Markup:
    """A heading's ISO dates kept on one line: a narrow screen broke 2026-10-22 after "2026-10-"."""
    return Markup(_ISO_DAY.sub(r'<span class="cb-nowrap">\1</span>', str(value)))


def plain_title(value: Any) -> str:
    """A title for places that show plain text (<title>, the header, the nav): code spans lose their backticks."""
    return CODE_SPAN.sub(r"\1", str(value))


def _note(body: str) -> Markup:
    return Markup(md.quote_block(body))


def _user_md(body: str) -> Markup:
    return Markup(md.user_markdown(body))


def _front_matter(**meta: Any) -> Markup:
    return Markup(md.front_matter(**meta))


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("corpus_build.render", "templates"),
        autoescape=True,  # macro results are Markup; _finalize escapes everything else for Markdown
        finalize=_finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        # Our templates are package files: no stat of each one at every page (4% of a render at 5,000).
        # A process keys its caches by the code it started with (core/cachekeys.code_version) anyway.
        auto_reload=False,
    )
    env.filters.update(h=_h, href=_href, code=_code, note=_note, user_md=_user_md, piece=_piece, pieces=_pieces,
                       title_md=title_md, plain_title=plain_title, dates_whole=dates_whole)
    env.globals.update(front_matter=_front_matter)
    env.tests.update(
        link=lambda v: isinstance(v, Link),
        badge=lambda v: isinstance(v, Badge),
        code=lambda v: isinstance(v, Code),
        strong=lambda v: isinstance(v, Strong),
    )
    return env


def render(template: str, **context: Any) -> str:
    return str(environment().get_template(template).render(**context))
