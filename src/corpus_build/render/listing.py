"""The whole-corpus pages, bounded whatever the corpus's size: "All sources" in pages, and its data.

"All sources" was one table of every source, in every build's biggest page (88 KB
for 121 sources, ~3.5 MB for 5,000, and an 8,000-pixel scroll). Now:

- `sources/index.md` shows the first PAGE_SIZE rows, sorted by title, and a pager;
  `sources/page/N.md` the next ones. A reader without JavaScript pages through the
  plain tables. The numbered pages sit one folder below `sources/`, where no
  source's page can be (a source page is `sources/<id>.md`; its own sub-pages are
  `text` and `archive`, never a number).
- `sources-index.js` holds every row, as compact JSON assigned to
  `window.cbSources`. docs/assets/sources.js loads it with a `<script>` element —
  which, unlike fetch(), also works in the offline copy opened from file:// — and
  filters, sorts and pages the whole corpus in the browser; the filter choices
  (every tag, section, chapter…) live there too, so they do not weigh on the page.
  The addresses the home, tags and status pages link (`sources/?kind=paper&tag=x`,
  `?mirror=failed`) keep working.

Every row in the data file is built from registry text; it is JSON-encoded, and
the script writes it into the page with textContent, never as HTML.
"""

from __future__ import annotations

import functools
import json
import posixpath
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

from . import export, mirror
from .mirror import MIRROR_STATES
from .places import paths, site_rel, site_url, sort_key
from .views import Filter, PagerLink, SourceRow, SourcesPage

if TYPE_CHECKING:
    from ..core.model import Section, Source
    from .pages import PageBuilder  # which calls this module: a type only, or the two would import each other

PAGE_SIZE = 100  # rows per page, with or without JavaScript
# The table's columns by name, in order (sources.js sorts by these names: ?sort=-added).
COLUMNS = ("title", "kind", "section", "lang", "mirror", "added")
PAGER_WINDOW = 2  # page numbers shown either side of the current one
DATA_FILE = "sources-index.js"  # under docs/, beside corpus.bib: no source id can take the name
T = TypeVar("T")


def page_path(number: int) -> str:
    """Where page `number` (from 1) of "All sources" lives under docs/."""
    return paths.sources if number == 1 else f"sources/page/{number}.md"


def page_count(sources: int) -> int:
    return max(1, -(-sources // PAGE_SIZE))


def sources_pages(builder: PageBuilder) -> dict[str, str]:
    """Every page of "All sources" (docs/ path -> Markdown) and its data file (DATA_FILE -> script)."""
    t = builder.t
    ordered = sorted(builder.corpus.sources, key=lambda s: (sort_key(s.title), s.id))
    count = page_count(len(ordered))
    out: dict[str, str] = {}
    choices = _filters(builder, ordered)
    filters = tuple(Filter(f.key, f.label, ()) for f in choices)  # the choices come with the data
    strings = {
        "text": t("filter_text"), "any": t("filter_any"), "reset": t("filter_reset"), "sort": t("filter_sort"),
        "count": t("filter_count", shown="{shown}", total="{total}"), "prev": t("page_prev"), "next": t("page_next"),
        "page_of": t("page_of", page="{page}", pages="{pages}"), "pager": t("pager"),
        "range": t("page_range_sorted", first="{first}", last="{last}", total="{total}", column="{column}", direction="{direction}"),
        "ascending": t("sort_ascending"), "descending": t("sort_descending"), "none": t("filter_none"),
    }
    for number in range(1, count + 1):
        page = page_path(number)
        chunk = ordered[(number - 1) * PAGE_SIZE : number * PAGE_SIZE]
        first = (number - 1) * PAGE_SIZE + 1
        view = SourcesPage(
            title=t("all_sources") if number == 1 else f"{t('all_sources')} · {t('page_n', n=number)}",
            exports=builder.export_row(page, export.WHOLE),
            rows=tuple(_row(builder, source, page) for source in chunk),
            filters=filters if number == 1 else (),
            columns=_columns(builder),
            keys=column_keys(builder),
            strings=strings,
            number=number,
            range_label=t("page_range", first=first, last=first + len(chunk) - 1, total=len(ordered)) if count > 1 else "",
            pager=_pager(builder, number, count, page),
            data=_data_src(builder) if number == 1 else "",
        )
        out[page] = builder._render("sources.md.j2", view)
    out[DATA_FILE] = data_file(builder, ordered, choices)
    return out


def column_keys(builder: PageBuilder) -> tuple[str, ...]:
    """The columns worth showing: no mirror state when no source has a mirror (every row would say
    "not archived"), no date when no source has an `added` date (every cell would be empty)."""
    leave = set()
    if not builder.has_mirrors():
        leave.add("mirror")
    if not any(s.added for s in builder.corpus.sources):
        leave.add("added")
    return tuple(key for key in COLUMNS if key not in leave)


def _columns(builder: PageBuilder) -> tuple[str, ...]:
    t = builder.t
    names = {"title": t("title"), "kind": t("kind"), "section": t("section"), "lang": t("lang"), "mirror": t("mirror_state"), "added": t("added")}
    return tuple(names[key] for key in column_keys(builder))


def _row(builder: PageBuilder, source: Source, page: str, du: bool | None = None) -> SourceRow:
    t, du = builder.t, builder.directory_urls if du is None else du
    section = builder.corpus.section(source.section)
    state = builder.mirror_info(source).state
    return SourceRow(
        title=source.title, sort_key=sort_key(source.title), href=site_rel(page, paths.source(source.id), du),
        badges=builder.badges(source, kind=False), kind=source.kind, kind_label=t.kind(source.kind),
        section=section.folder, section_label=builder.section_title(section), section_href=site_rel(page, paths.section(section), du),
        lang=source.lang, lang_label=t(f"lang_{source.lang}"), tags=source.tags, chapters=source.chapters,
        verified=source.verified, mirror=state, mirror_label=mirror.state_label(state, t),
        added=source.added.isoformat() if source.added else "",
    )


def _filters(builder: PageBuilder, sources: list[Source]) -> tuple[Filter, ...]:
    t = builder.t
    kinds = sorted({s.kind for s in sources}, key=lambda k: t.kind(k))
    tags = sorted({tag for s in sources for tag in s.tags}, key=str.casefold)
    chapter_numbers = sorted({n for s in sources for n in s.chapters})
    present = {builder.mirror_info(s).state for s in sources}
    states = [s for s in MIRROR_STATES if s in present]
    return (
        Filter("kind", t("kind"), tuple((k, t.kind(k)) for k in kinds)),
        Filter("section", t("section"), tuple((s.folder, builder.section_title(s)) for s in builder.corpus.sections)),
        Filter("tag", t("tags"), tuple((tag, tag) for tag in tags)),
        Filter("chapter", t("chapters_short"), tuple((str(n), t.chapter(n)) for n in chapter_numbers)),
        Filter("lang", t("lang"), tuple((lang, t(f"lang_{lang}")) for lang in ("zh", "en") if any(s.lang == lang for s in sources))),
        Filter("verified", t("verified"), (("yes", t("verified_yes")), ("no", t("verified_no")))),
        *((Filter("mirror", t("mirror_state"), tuple((s, mirror.state_label(s, t)) for s in states)),) if builder.has_mirrors() else ()),
    )


def _pager(builder: PageBuilder, number: int, count: int, page: str, path: Callable[[int], str] = page_path) -> tuple[PagerLink, ...]:
    """Previous, the first page, a window around this one, the last page, next: a bounded row of links.

    `path` names page n's docs/ path (All sources by default; the tags index and tag pages pass theirs).
    """
    if count == 1:
        return ()
    t, du = builder.t, builder.directory_urls

    def href(n: int) -> str:
        return site_rel(page, path(n), du)

    shown = sorted({1, count, *range(max(1, number - PAGER_WINDOW), min(count, number + PAGER_WINDOW) + 1)})
    links = [PagerLink(f"‹ {t('page_prev')}", href(number - 1) if number > 1 else "")]
    for previous, n in zip([0, *shown], shown, strict=False):
        if n - previous > 1:
            links.append(PagerLink("…", ""))
        links.append(PagerLink(str(n), href(n), current=n == number))
    links.append(PagerLink(f"{t('page_next')} ›", href(number + 1) if number < count else ""))
    return tuple(links)


def paged(builder: PageBuilder, items: Sequence[T], size: int, path: Callable[[int], str], range_key: str) -> Iterator[tuple[int, str, Sequence[T], str, tuple[PagerLink, ...]]]:
    """Split an index into pages of `size`: (number, docs/ path, its items, "items a–b of n", pager) each.

    The range line is the label `range_key` (with first, last, total), only when there is more than one page.
    """
    count = max(1, -(-len(items) // size))
    for number in range(1, count + 1):
        page = path(number)
        chunk = items[(number - 1) * size : number * size]
        first = (number - 1) * size + 1
        label = builder.t(range_key, first=first, last=first + len(chunk) - 1, total=len(items)) if count > 1 else ""
        yield number, page, chunk, label, _pager(builder, number, count, page, path=path)


def _data_src(builder: PageBuilder) -> str:
    """The data file's address from the first page's URL (sources/, with or without directory URLs)."""
    return posixpath.relpath(DATA_FILE, site_url(paths.sources, builder.directory_urls).rstrip("/") or ".")


def data_file(builder: PageBuilder, ordered: list[Source], filters: tuple[Filter, ...]) -> str:
    """Every row of "All sources" as a script: `window.cbSources = {…}` (read by docs/assets/sources.js).

    Hrefs are relative to the first page (sources/), the only page the script runs on.
    Rows come sorted by title: a row's place in the list is its title order.
    """
    t = builder.t
    sections = builder.corpus.sections
    section_index = {s.folder: i for i, s in enumerate(sections)}
    rows = []
    for source in ordered:
        row = _row(builder, source, paths.sources, builder.script_urls)
        record: dict[str, object] = {"t": row.title, "h": row.href, "k": row.kind, "s": section_index[row.section], "l": row.lang, "m": row.mirror}
        if row.badges:
            record["b"] = [[b.label, b.css] for b in row.badges]
        if row.tags:
            record["g"] = list(row.tags)
        if row.chapters:
            record["c"] = [str(n) for n in row.chapters]
        if not row.verified:
            record["v"] = 0
        if row.added:
            record["a"] = row.added
        rows.append(record)
    data = {
        "page_size": PAGE_SIZE,
        "filters": [{"key": f.key, "options": [list(o) for o in f.options]} for f in filters],
        "labels": {
            "kind": {k: t.kind(k) for k in sorted({s.kind for s in ordered})},
            "lang": {lang: t(f"lang_{lang}") for lang in ("zh", "en")},
            "mirror": {s: mirror.state_label(s, t) for s in MIRROR_STATES},
        },
        "sections": [[s.folder, builder.section_title(s), _section_href(builder, s)] for s in sections],
        "rows": rows,
    }
    data["fold"] = script_folding(json.dumps(data, ensure_ascii=False))
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return f"/* All sources of the corpus, for assets/sources.js (generated by corpus-build from corpus/) */\nwindow.cbSources = {payload};\n"


# Han characters a reader may type: CJK Unified Ideographs, Extension A and the compatibility block.
_HAN_BLOCKS = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF))


def script_folding(text: str) -> dict[str, str]:
    """Traditional → Simplified, one character each, for the filter of "All sources" to fold both scripts.

    The script folds the reader's words and every row to Simplified with this map, so 昇騰
    finds the rows that say 昇腾 and the other way round. Only characters that matter here:
    each one `text` (the rows' data) holds, or whose Simplified form it holds. Character by
    character, as a filter matches (a Taiwanese term, 運算元 for 算子, is search's to fold:
    site/search.py). Empty without OpenCC.
    """
    present = set(text)
    return {c: s for c, s in _t2s_characters().items() if c in present or s in present}


@functools.cache  # the same for every build of the process (each preview edit renders again)
def _t2s_characters() -> dict[str, str]:
    try:
        import opencc
    except ImportError:  # pragma: no cover - opencc is a dependency
        return {}
    han = [chr(code) for low, high in _HAN_BLOCKS for code in range(low, high + 1)]
    # One conversion for every character, one a line: no phrase spans two lines.
    simplified = opencc.OpenCC("t2s").convert("\n".join(han)).split("\n")
    return {c: s for c, s in zip(han, simplified, strict=True) if len(s) == 1 and s != c}


def _section_href(builder: PageBuilder, section: Section) -> str:
    return site_rel(paths.sources, paths.section(section), builder.script_urls)


__all__ = ["COLUMNS", "DATA_FILE", "PAGE_SIZE", "column_keys", "data_file", "page_count", "page_path", "script_folding", "sources_pages"]
