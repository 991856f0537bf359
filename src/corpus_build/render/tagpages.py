"""The tags index and each tag's own pages, bounded whatever the corpus's size.

The tags page was Material's listing of every tag with every page under it: one
page that grew by a line per tagged page (157 KB for 1,000 sources). Now:

- `tags.md` lists the tags with their counts, most used first, TAGS_PAGE_SIZE to a
  page (`tags/page/N.md` after the first), each linking to the tag's own page;
- `tags/<slug>.md` lists the sources carrying the tag, PAGE_SIZE rows by title as
  "All sources" does, with a pager (`tags/<slug>/page/N.md`) and a link to "All
  sources" filtered by the tag (sorting and filtering there).

Material's tags plugin still reads the `tags:` of source pages and draws their tag
chips; a chip links to a listing that features its tag. So each tag's first page
carries the plugin's marker for that tag alone, and overrides/fragments/tags/default/
listing.html renders that listing as nothing (our table above already lists the
sources, in bounded pages). A chip therefore opens the tag's own page.

Slugs are the tag folded to lower case, every run of other characters than
letters and digits (any script) made one `-`; an empty, reserved or already
taken slug gets a few hex digits of the tag's hash. Slugs are given in the tags'
sorted order, so a tag's address does not depend on the order sources list it.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING
from urllib.parse import quote

from markupsafe import Markup

from . import listing
from .places import paths, rel, site_rel, sort_key
from .views import Link, Piece, TagCount, TagPage, TagsPage

if TYPE_CHECKING:
    from ..core.model import Digest, Source
    from .pages import PageBuilder  # which calls this module: a type only, or the two would import each other

TAGS_PAGE_SIZE = 200  # tags per page of the tags index
DIGESTS_ON_TAG_PAGE = 20  # the latest digests carrying the tag, on its first page
_RESERVED = {"page", "index"}  # tags/page/N.md are the index's own pages
_NOT_WORD = re.compile(r"[\W_]+")
_SLUG_MAX = 60


def slugs(tags: Iterable[str]) -> dict[str, str]:
    """Each tag's slug (its page is tags/<slug>.md), unique and stable."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for tag in sorted(set(tags), key=lambda t: (t.casefold(), t)):
        base = _NOT_WORD.sub("-", unicodedata.normalize("NFKC", tag).casefold())[:_SLUG_MAX].strip("-")
        slug, salt = base, 0
        while not slug or slug in _RESERVED or slug in taken:
            digest = hashlib.sha1(f"{tag}\0{salt}".encode()).hexdigest()[:6]
            slug, salt = f"{base or 'tag'}-{digest}", salt + 1
        taken.add(slug)
        out[tag] = slug
    return out


def index_path(number: int) -> str:
    """Page `number` (from 1) of the tags index, under docs/."""
    return paths.tags if number == 1 else f"tags/page/{number}.md"


def tag_path(slug: str, number: int = 1) -> str:
    """Page `number` (from 1) of one tag's sources, under docs/."""
    return f"tags/{slug}.md" if number == 1 else f"tags/{slug}/page/{number}.md"


def _pages(n: int, size: int) -> int:
    return max(1, -(-n // size))


def tag_pages(builder: PageBuilder) -> dict[str, str]:
    """The tags index (paged) and every tag's pages: docs/ path -> Markdown.

    A tag of digests gets its page too (their chips link there): it lists the latest
    DIGESTS_ON_TAG_PAGE of them, the digests index has the rest.
    """
    by_tag: dict[str, list[Source]] = defaultdict(list)
    digests: dict[str, list[Digest]] = defaultdict(list)
    for source in builder.corpus.sources:
        for tag in dict.fromkeys(source.tags):
            by_tag[tag].append(source)
    for digest in builder.corpus.digests:  # newest first
        for tag in dict.fromkeys(digest.tags):
            by_tag.setdefault(tag, [])
            digests[tag].append(digest)
    slug = slugs(by_tag)
    out = _index(builder, Counter({tag: len(found) + len(digests.get(tag, ())) for tag, found in by_tag.items()}), slug)
    for tag, found in by_tag.items():
        out.update(_one_tag(builder, tag, slug[tag], sorted(found, key=lambda s: (sort_key(s.title), s.id)), digests.get(tag, [])))
    return out


def _index(builder: PageBuilder, counts: Counter[str], slug: dict[str, str]) -> dict[str, str]:
    t, du = builder.t, builder.directory_urls
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0].casefold(), item[0]))
    count = _pages(len(ordered), TAGS_PAGE_SIZE)
    out = {}
    for number in range(1, count + 1):
        page = index_path(number)
        chunk = ordered[(number - 1) * TAGS_PAGE_SIZE : number * TAGS_PAGE_SIZE]
        first = (number - 1) * TAGS_PAGE_SIZE + 1
        view = TagsPage(
            title=t("tags") if number == 1 else f"{t('tags')} · {t('page_n', n=number)}",
            intro=t("tags_index_intro"),
            tags=tuple(TagCount(tag, n, site_rel(page, tag_path(slug[tag]), du)) for tag, n in chunk),
            number=number,
            range_label=t("tag_range", first=first, last=first + len(chunk) - 1, total=len(ordered)) if count > 1 else "",
            pager=listing._pager(builder, number, count, page, path=index_path),
            strings={"pager": t("pager")},
        )
        out[page] = builder._render("tags.md.j2", view)
    return out


def _one_tag(builder: PageBuilder, tag: str, slug: str, found: list[Source], digests: list[Digest]) -> dict[str, str]:
    t = builder.t
    size = listing.PAGE_SIZE
    count = _pages(len(found), size)
    out = {}
    for number in range(1, count + 1):
        page = tag_path(slug, number)
        chunk = found[(number - 1) * size : number * size]
        first = (number - 1) * size + 1
        title = t("tag_title", tag=tag)
        top: tuple[Piece, ...] = (
            *((t("sources_n", n=len(found)),) if found or not digests else ()),
            *((t("digests_n", n=len(digests)),) if digests else ()),
            Link(t("tag_all_tags"), rel(page, paths.tags)),
            Link(t("tag_filter"), rel(page, paths.sources) + f"?tag={quote(tag)}"),
        )
        view = TagPage(
            title=title if number == 1 else f"{title} · {t('page_n', n=number)}",
            tag=tag,
            top=top,
            rows=tuple(listing._row(builder, source, page) for source in chunk),
            columns=listing._columns(builder),
            keys=listing.column_keys(builder),
            number=number,
            range_label=t("page_range", first=first, last=first + len(chunk) - 1, total=len(found)) if count > 1 else "",
            pager=listing._pager(builder, number, count, page, path=lambda n: tag_path(slug, n)),
            strings={"pager": t("pager")},
            listing=_directive(tag) if number == 1 else "",
            digests=tuple(Link(f"{d.date} · {d.title}", rel(page, paths.digest(d))) for d in digests[:DIGESTS_ON_TAG_PAGE]) if number == 1 else (),
            more_digests=Link(t("tag_more_digests", n=len(digests)), rel(page, paths.digests)) if number == 1 and len(digests) > DIGESTS_ON_TAG_PAGE else None,
        )
        out[page] = builder._render("tag.md.j2", view)
    return out


def _directive(tag: str) -> Markup:
    """The arguments of `<!-- material/tags … -->` for one tag: YAML (as JSON) that no tag text can end.

    `<`, `>`, `&` and `-` are written as \\u escapes (JSON and YAML read them back), so a
    tag holding `-->` cannot close the comment early.
    """
    text = json.dumps({"include": [tag], "toc": False}, ensure_ascii=False)
    for char in "<>&-":
        text = text.replace(char, f"\\u{ord(char):04x}")
    return Markup(text)


__all__ = ["TAGS_PAGE_SIZE", "index_path", "slugs", "tag_pages", "tag_path"]
