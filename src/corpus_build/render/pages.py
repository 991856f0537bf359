"""Page builders: each turns the registry into a view record (views.py) and renders its template.

Every page lives at a fixed path under docs/ (see `paths`), and links between
pages are relative `.md` links so MkDocs checks them in a strict build. The
layouts live in render/templates/, one template per page kind.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from markupsafe import Markup

from .. import offline, urls
from ..links.site import source_notice as link_notice
from ..model import Chapter, Corpus, Digest, LearningPath, ReadingStep, Section, Source
from ..registry import WIKILINK
from . import changes, charts, citation, export, mirror
from . import markdown as md
from .labels import Labels
from .views import (
    Badge,
    Block,
    Citation,
    Code,
    CountRow,
    DigestPage,
    Entry,
    Fact,
    HomePage,
    IndexPage,
    Link,
    ListItem,
    Piece,
    ReadingPage,
    SectionPage,
    SourcePage,
    Step,
    Strong,
    local_time,
    render,
    safe_url,
)

DIGESTS_IN_NAV = 10  # older digests stay reachable from the digest index


class paths:
    """Where each generated page lives, relative to docs/."""

    home = "index.md"
    sections = "sections/index.md"
    sources = "sources/index.md"
    chapters = "chapters/index.md"
    digests = "digests/index.md"
    tags = "tags.md"
    status = "status.md"
    feed = "feed.xml"
    bibtex = "corpus.bib"
    csl_json = "corpus.json"

    @staticmethod
    def sections_page(number: int) -> str:
        """Page `number` (from 1) of the sections index; no section folder is named `page` (NN-slug)."""
        return "sections/index.md" if number == 1 else f"sections/page/{number}.md"

    @staticmethod
    def digests_page(number: int) -> str:
        """Page `number` (from 1) of the digests index; digests are named by date, never `page`."""
        return "digests/index.md" if number == 1 else f"digests/page/{number}.md"

    @staticmethod
    def section(section: Section) -> str:
        return f"sections/{section.folder}.md"

    @staticmethod
    def source(source_id: str) -> str:
        return f"sources/{source_id}.md"

    @staticmethod
    def chapter(number: int) -> str:
        return f"chapters/{number:02d}.md"

    @staticmethod
    def learning_path(path_id: str) -> str:
        return f"chapters/path-{path_id}.md"

    @staticmethod
    def digest(digest: Digest) -> str:
        return f"digests/{digest.date.isoformat()}.md"


def rel(from_page: str, to_page: str) -> str:
    """A relative link from one generated page to another (both relative to docs/).

    As posixpath.relpath, without its abspath/getcwd calls (thousands per render).
    """
    folders = from_page.split("/")[:-1]
    target = to_page.split("/")
    common = 0
    while common < len(folders) and common < len(target) - 1 and folders[common] == target[common]:
        common += 1
    return "../" * (len(folders) - common) + "/".join(target[common:])


def site_url(page: str, directory_urls: bool) -> str:
    """Where MkDocs publishes a docs/ page, relative to the site root (sources/x.md -> sources/x/)."""
    stem = page[: -len(".md")]
    if stem == "index" or stem.endswith("/index"):
        return stem[: -len("index")]
    return stem + "/" if directory_urls else stem + ".html"


def site_rel(from_page: str, to_page: str, directory_urls: bool) -> str:
    """A link for raw HTML (which MkDocs does not rewrite) from one page's URL to another's."""
    source, target = site_url(from_page, directory_urls), site_url(to_page, directory_urls)
    base = source if source.endswith("/") or not source else posixpath.dirname(source)
    relative = posixpath.relpath(target or ".", base.rstrip("/") or ".")
    return relative + "/" if target.endswith("/") and relative != "." else ("./" if relative == "." else relative)


# Brackets, quotes and leading punctuation do not decide where a title sorts ("[Ascend] X" sorts as "Ascend X").
_SORT_SKIP = re.compile(r"^[\W_]+")
_BRACKETS = re.compile(r"[\[\](){}<>【】「」『』《》（）\"'“”‘’]")


def sort_key(title: str) -> str:
    return _SORT_SKIP.sub("", _BRACKETS.sub("", title)).casefold() or title.casefold()


@dataclass
class Citations:
    """Who cites each source: chapters, learning paths and digests (computed once per render)."""

    chapters: dict[str, list[Chapter]] = field(default_factory=lambda: defaultdict(list))
    paths: dict[str, list[LearningPath]] = field(default_factory=lambda: defaultdict(list))
    digests: dict[str, list[Digest]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, corpus: Corpus) -> Citations:
        citations = cls()
        for chapter in corpus.chapters:
            for step in chapter.path:
                citations.chapters[step.source].append(chapter)
        for learning_path in corpus.paths:
            for step in learning_path.path:
                citations.paths[step.source].append(learning_path)
        for digest in corpus.digests:
            for source_id in dict.fromkeys(m.group(1).partition("#")[0].strip() for m in WIKILINK.finditer(digest.body)):
                citations.digests[source_id].append(digest)
        return citations


class PageBuilder:
    def __init__(self, corpus: Corpus, *, directory_urls: bool = True):
        self.corpus = corpus
        self.t = Labels(corpus.settings.ui_lang)
        self.tz = corpus.settings.tzinfo
        self.citations = Citations.of(corpus)
        self.by_id = corpus.by_id
        self.directory_urls = directory_urls
        self._mirrors: dict[str, mirror.MirrorInfo] = {}
        # Each mirror's bibliographic facts, read once by build_pages (None: the cite box reads them).
        self.bib_facts: dict | None = None

    def _render(self, template: str, view: object) -> str:
        return render(template, view=view, t=self.t)

    # --- shared pieces -------------------------------------------------------------

    def export_row(self, page: str, files: dict[str, str]) -> tuple[Link, ...]:
        """BibTeX · RIS · CSL-JSON of one export (render/export.py writes the files), in the cite box's order."""
        return tuple(Link(export.FORMATS[ext], rel(page, files[ext])) for ext in ("bib", "ris", "json") if ext in files)

    def section_title(self, section: Section) -> str:
        if self.t.lang == "zh" and section.title_zh:
            return section.title_zh
        return section.title

    def chapter_title(self, chapter: Chapter) -> str:
        return f"{self.t.chapter(chapter.number)} · {chapter.title}"

    def mirror_info(self, source: Source) -> mirror.MirrorInfo:
        """The source's mirror state and records (read once per render)."""
        if source.id not in self._mirrors:
            self._mirrors[source.id] = mirror.info(self.corpus, source)
        return self._mirrors[source.id]

    def thread_state(self, source: Source) -> Badge | None:
        """The open / merged / closed badge of a mirrored issue or PR."""
        if source.kind not in ("issue", "pull", "discussion"):
            return None
        return mirror.thread_state_badge(self.mirror_info(source).record, self.t, self.tz)

    def badges(self, source: Source, *, kind: bool = True) -> tuple[Badge, ...]:
        t = self.t
        parts = [Badge(t.kind(source.kind), f"kind-{source.kind}"), Badge(t(f"lang_{source.lang}"), "lang")] if kind else []
        state = self.thread_state(source)
        if state:
            parts.append(state)
        if not source.verified:
            parts.append(Badge(t("unverified"), "unverified"))
        return tuple(parts)

    def section_link(self, section: Section, page: str) -> Link:
        return Link(self.section_title(section), rel(page, paths.section(section)))

    def source_link(self, source: Source, page: str) -> Link:
        return Link(source.title, rel(page, paths.source(source.id)))

    def chapter_links(self, source: Source, page: str) -> tuple[Piece, ...]:
        known = {c.number for c in self.corpus.chapters}
        return tuple(Link(self.t.chapter(n), rel(page, paths.chapter(n))) if n in known else self.t.chapter(n) for n in source.chapters)

    def unverified_text(self, source: Source) -> str:
        body = self.t("unverified_body")
        return body + (self.t.colon + source.verify_note if source.verify_note else "")

    def entry(self, source: Source, page: str) -> Entry:
        return Entry(
            id=source.id, title=source.title, url=safe_url(source.url), page=rel(page, paths.source(source.id)),
            badges=self.badges(source), kind_label=self.t.kind(source.kind),
            section=self.section_link(self.corpus.section(source.section), page),
            chapters=self.chapter_links(source, page), tags=source.tags, verified=source.verified,
            verify_note=source.verify_note, note=self.resolve_wikilinks(source.note, page),
        )

    def filtered(self, page: str, key: str, value: str) -> Link:
        """A link to "All sources" showing only rows whose `key` is `value` (read by sources.js)."""
        from urllib.parse import quote

        return Link("", rel(page, paths.sources) + f"?{key}={quote(value)}")

    # --- pages -----------------------------------------------------------------------

    def home(self) -> str:
        c, t, page = self.corpus, self.t, paths.home
        sources = c.sources
        index = rel(page, paths.sources)
        summary: tuple[Piece, ...] = (
            Link(t("sources_n", n=len(sources)), index),
            Link(t("sections_n", n=len(c.sections)), rel(page, paths.sections)),
            Link(t("chapters_n", n=len(c.chapters)), rel(page, paths.chapters)),
            Link(t("digests_n", n=len(c.digests)), rel(page, paths.digests)),
        )
        # A summary, not a list of everything: the largest HOME_ROWS sections (in their order) and a link to all.
        largest = set(sorted(range(len(c.sections)), key=lambda i: (-len(c.sections[i].sources), i))[:HOME_ROWS])
        shown = tuple(s for i, s in enumerate(c.sections) if i in largest)
        by_section = tuple(CountRow(self.section_link(s, page), len(s.sources), self.filtered(page, "section", s.folder).href) for s in shown)
        kinds = Counter(s.kind for s in sources)
        by_kind = tuple(
            CountRow(t.kind(kind), count, self.filtered(page, "kind", kind).href) for kind, count in kinds.most_common()
        )
        latest = c.digests[0] if c.digests else None
        since_heading, since = self.since_last_build(page)
        added = sorted((s for s in sources if s.added), key=lambda s: (s.added, s.id), reverse=True)[:RECENTLY_ADDED]
        view = HomePage(
            title=c.settings.title,
            description=c.settings.description.strip(),
            summary=summary,
            by_section=by_section,
            by_kind=by_kind,
            chapters_heading=Link(t("chapters"), rel(page, paths.chapters)) if c.chapters else None,
            chapters=tuple(Link(self.chapter_title(ch), rel(page, paths.chapter(ch.number))) for ch in c.chapters[:HOME_ROWS]),
            since_heading=since_heading,
            since=_bounded(since, t),
            thread_changes=_bounded(self.recent_changes(page), t),
            latest_digest=Link(f"{latest.date} · {latest.title}", rel(page, paths.digest(latest))) if latest else None,
            offline_link=Markup(offline.home_link(c, t("offline_copy"))),
            recently_added=tuple(
                ListItem((self.source_link(s, page),), (s.added.isoformat(), " · ", self.t.kind(s.kind))) for s in added if s.added
            ),
            charts=(charts.sections_by_kind(dataclasses.replace(c, sections=shown), t, self.section_title),
                    charts.threads_over_time(c, t, [self.mirror_info(s) for s in sources])),
            how_to_use=_HOW_TO_USE[t.lang],
            more_sections=Link(t("home_more_sections", n=len(c.sections)), rel(page, paths.sections)) if len(shown) < len(c.sections) else None,
            more_chapters=Link(t("home_more_chapters", n=len(c.chapters)), rel(page, paths.chapters)) if len(c.chapters) > HOME_ROWS else None,
        )
        return self._render("home.md.j2", view)

    def since_last_build(self, page: str) -> tuple[str, tuple[ListItem, ...]]:
        """Sources added or removed, PR states, failing mirrors, digests: since the last `corpus-build build`."""
        previous = changes.load(self.corpus)
        if previous is None:
            return "", ()
        diff = changes.compare(previous, changes.take(self.corpus))
        t, lines = self.t, []

        def source_link(source_id: str) -> Link:
            return self.source_link(self.by_id[source_id], page)

        lines += [ListItem((t("change_added"), t.colon, source_link(i))) for i in diff["added"]]
        lines += [ListItem((t("change_removed"), t.colon, title)) for title in diff["removed"]]
        lines += [ListItem((source_link(i), t.colon, self.state_word(old), " → ", Strong(self.state_word(new)))) for i, old, new in diff["state"]]
        lines += [ListItem((t("change_failing"), t.colon, source_link(i))) for i in diff["failing"]]
        lines += [ListItem((t("change_recovered"), t.colon, source_link(i))) for i in diff["recovered"]]
        digests = {d.date.isoformat(): d for d in self.corpus.digests}
        lines += [
            ListItem((t("change_digest"), t.colon, Link(digests[d].title, rel(page, paths.digest(digests[d]))))) for d in diff["digests"] if d in digests
        ]
        if not lines:
            return "", ()
        when = local_time(str(previous.get("built_at", "")), self.tz) or "?"
        return t("since_last_build", when=when), tuple(lines)

    def state_word(self, state: str) -> str:
        """open / draft / merged / closed in the reader's words."""
        if state == "merged":
            return self.t("thread_merged_word")
        return self.t(f"thread_{state}") if state in ("open", "draft", "closed") else state

    def recent_changes(self, page: str) -> tuple[ListItem, ...]:
        """Cited PRs and issues whose state moved at the last `corpus-build watch` (open → merged…)."""
        by_thread = {}
        for source in self.corpus.sources:
            parts = urls.github_parts(source.url) if source.url else None
            if parts and parts[2].split("/")[0] in ("pull", "issues", "discussions") and "/" in parts[2]:
                by_thread[f"{parts[0]}/{parts[1]}#{parts[2].split('/')[1]}".lower()] = source
        lines = []
        for change in changes.thread_changes(self.corpus):
            cited = by_thread.get(change.key)
            label = f"{change.key} {change.title}".strip()
            head: Piece = Link(label, rel(page, paths.source(cited.id))) if cited else change.key
            lines.append(ListItem((head, self.t.colon, self.state_word(change.before), " → ", Strong(self.state_word(change.after)))))
        return tuple(lines)

    def sections_index(self) -> dict[str, str]:
        """The sections, INDEX_PAGE_SIZE to a page: sections/index.md, then sections/page/N.md."""
        from .listing import paged

        t, out = self.t, {}
        for number, page, chunk, range_label, pager in paged(self, self.corpus.sections, INDEX_PAGE_SIZE, paths.sections_page, "sections_range"):
            blocks = []
            for section in chunk:
                other = section.title if t.lang == "zh" and section.title_zh else section.title_zh
                lines: tuple[Piece, ...] = (t("sources_n", n=len(section.sources)),) + ((other,) if other else ())
                blocks.append(Block(self.section_link(section, page), lines, section.intro.strip()))
            title = t("sections") if number == 1 else f"{t('sections')} · {t('page_n', n=number)}"
            view = IndexPage(title, blocks=tuple(blocks), number=number, range_label=range_label, pager=pager, strings={"pager": t("pager")})
            out[page] = self._render("sections.md.j2", view)
        return out

    def section_page(self, section: Section) -> str:
        page = paths.section(section)
        title = self.section_title(section)
        other = section.title if title != section.title else section.title_zh
        view = SectionPage(title, other, section.folder, section.intro.strip(), tuple(self.entry(s, page) for s in section.sources),
                           exports=self.export_row(page, {ext: export.section_path(section, ext) for ext in export.FORMATS}) if section.sources else ())
        return self._render("section.md.j2", view)

    def source_page(self, source: Source) -> str:
        return self._render("source.md.j2", self.source_view(source))

    def source_view(self, source: Source) -> SourcePage:
        t, page = self.t, paths.source(source.id)
        section = self.corpus.section(source.section)
        facts = [
            Fact(t("id"), (Code(source.id),)),
            Fact(t("kind"), (t.kind(source.kind),)),
            Fact(t("section"), (self.section_link(section, page),)),
            Fact(t("lang"), (t(f"lang_{source.lang}"),)),
        ]
        if source.url:
            facts.append(Fact("URL", (Link(source.url, source.url, external=True),)))
        if source.chapters:
            facts.append(Fact(t("chapters_short"), self.chapter_links(source, page), ", "))
        if source.tags:
            facts.append(Fact(t("tags"), tuple(Link(tag, self.filtered(page, "tag", tag).href) for tag in source.tags), ", "))
        if source.added:
            facts.append(Fact(t("added"), (source.added.isoformat(),)))
        original: Piece = Link(f"{t('original')} ↗", source.url, external=True) if source.url else t("no_url")
        view = SourcePage(
            title=source.title,
            tags=source.tags,
            entry=self.entry(source, page),
            breadcrumb=(Link(t("home_crumb"), rel(page, paths.home)), self.section_link(section, page)),
            original=original,
            warning=self.unverified_text(source),
            facts=tuple(facts),
            cited_by=self.cited_by(source, page),
            see_also=tuple(self.source_link(self.by_id[i], page) for i in source.see_also if i in self.by_id),
            link_notice=Markup(link_notice(self.corpus, source, t, page)),
            cite_box=Markup(citation.box(self.corpus, source, t, page, self.bib_facts)),  # already escaped by citation.box
            mirror=mirror.panel_view(self.corpus, source, t, page, self.mirror_info(source), directory_urls=self.directory_urls),
        )
        return view

    def cited_by(self, source: Source, page: str) -> tuple[Citation, ...]:
        found = []
        for chapter in self.citations.chapters.get(source.id, []):
            why = next((s.why for s in chapter.path if s.source == source.id), "")
            found.append(Citation(Link(self.chapter_title(chapter), rel(page, paths.chapter(chapter.number))), why))
        for learning_path in self.citations.paths.get(source.id, []):
            found.append(Citation(Link(learning_path.title, rel(page, paths.learning_path(learning_path.id)))))
        for digest in self.citations.digests.get(source.id, []):
            found.append(Citation(Link(f"{digest.date} · {digest.title}", rel(page, paths.digest(digest)))))
        return tuple(found)

    def sources_pages(self) -> dict[str, str]:
        """"All sources": its pages (sources/index.md, sources/page/N.md) and the data file of every row."""
        from . import listing  # bounded pages whatever the corpus's size

        return listing.sources_pages(self)

    def chapters_index(self) -> str:
        t, page = self.t, paths.chapters
        blocks = []
        for chapter in self.corpus.chapters:
            lines: tuple[Piece, ...] = ((chapter.title_en,) if chapter.title_en else ()) + (t("sources_n", n=len(chapter.path)),)
            blocks.append(Block(Link(self.chapter_title(chapter), rel(page, paths.chapter(chapter.number))), lines, chapter.summary.strip()))
        extra = tuple(
            ListItem((Link(p.title, rel(page, paths.learning_path(p.id))),), (t("sources_n", n=len(p.path)),)) for p in self.corpus.paths
        )
        return self._render("chapters.md.j2", IndexPage(t("chapters"), blocks=tuple(blocks), extra_heading=t("learning_paths"), extra=extra))

    def reading_steps(self, steps: tuple[ReadingStep, ...], page: str) -> tuple[Step, ...]:
        found = []
        for index, step in enumerate(steps, start=1):
            source = self.by_id[step.source]
            section = self.corpus.section(source.section)
            found.append(Step(index, self.source_link(source, page), self.badges(source, kind=False), step.why, self.t.kind(source.kind),
                              self.section_link(section, page)))
        return tuple(found)

    def chapter_page(self, chapter: Chapter) -> str:
        page = paths.chapter(chapter.number)
        exports = self.export_row(page, {ext: export.chapter_path(chapter, ext) for ext in export.FORMATS}) if export.chapter_sources(self.corpus, chapter) else ()
        view = ReadingPage(self.chapter_title(chapter), chapter.title_en, chapter.summary.strip(), self.reading_steps(chapter.path, page), exports=exports)
        return self._render("reading.md.j2", view)

    def learning_path_page(self, learning_path: LearningPath) -> str:
        page = paths.learning_path(learning_path.id)
        view = ReadingPage(learning_path.title, learning_path.title_en, learning_path.summary.strip(), self.reading_steps(learning_path.path, page))
        return self._render("reading.md.j2", view)

    def digests_index(self) -> dict[str, str]:
        """The digests, newest first, INDEX_PAGE_SIZE to a page: digests/index.md, then digests/page/N.md."""
        from .listing import paged

        t, out = self.t, {}
        for number, page, chunk, range_label, pager in paged(self, self.corpus.digests, INDEX_PAGE_SIZE, paths.digests_page, "digests_range"):
            blocks = tuple(Block(Link(f"{d.date} · {d.title}", rel(page, paths.digest(d))), items=self.digest_facts(d)) for d in chunk)
            title = t("digests") if number == 1 else f"{t('digests')} · {t('page_n', n=number)}"
            view = IndexPage(title, top=(Link(t("feed"), rel(page, paths.feed)),), blocks=blocks, number=number, range_label=range_label,
                             pager=pager, strings={"pager": t("pager")})
            out[page] = self._render("digests.md.j2", view)
        return out

    def digest_facts(self, digest: Digest) -> tuple[ListItem, ...]:
        t, meta = self.t, digest.meta
        facts = []
        if meta.get("window_start") and meta.get("window_end"):
            start, end = (self._digest_time(meta["window_start"]), self._digest_time(meta["window_end"]))
            facts.append(ListItem((t("window"), t.colon, start, " → ", end)))
        if digest.repos:
            facts.append(ListItem((t("repos"), t.colon, *_join([Code(r) for r in digest.repos], ", "))))
        return tuple(facts)

    def _digest_time(self, value: object) -> str:
        import datetime as dt

        if isinstance(value, dt.datetime):
            value = value.isoformat()
        return local_time(str(value), self.tz) or str(value)

    def digest_page(self, digest: Digest) -> str:
        page = paths.digest(digest)
        view = DigestPage(digest.title, digest.date.isoformat(), digest.tags, self.digest_facts(digest), self.resolve_wikilinks(digest.body, page))
        return self._render("digest.md.j2", view)

    def resolve_wikilinks(self, body: str, page: str) -> str:
        def replace(match) -> str:
            target, _, fragment = match.group(1).partition("#")
            source = self.by_id.get(target.strip())
            if source is None:  # registry.check reports it; keep the text visible
                return match.group(0)
            if fragment.strip():  # [[paper-id#page-12]]: a place on the paper's text page
                from .paper import anchor_link

                return anchor_link(self.corpus, source, fragment.strip(), match.group(2), self.t, page)
            label = match.group(2) or source.title
            return md.link(label, rel(page, paths.source(source.id)))

        return WIKILINK.sub(replace, body)

    def tags_pages(self) -> dict[str, str]:
        """The tags index (tags.md, tags/page/N.md) and each tag's own pages (tags/<slug>.md …)."""
        from . import tagpages  # bounded pages whatever the corpus's size

        return tagpages.tag_pages(self)


def _bounded(lines: tuple[ListItem, ...], t: Labels) -> tuple[ListItem, ...]:
    """At most HOME_ROWS lines, the last saying how many more (the home page does not grow with a big import)."""
    if len(lines) <= HOME_ROWS:
        return lines
    return (*lines[: HOME_ROWS - 1], ListItem((t("home_more_lines", n=len(lines) - HOME_ROWS + 1),)))


def _join(items: list[Piece], sep: str) -> list[Piece]:
    out: list[Piece] = []
    for index, item in enumerate(items):
        if index:
            out.append(sep)
        out.append(item)
    return out


RECENTLY_ADDED = 10
INDEX_PAGE_SIZE = 20  # sections or digests per page of their index
HOME_ROWS = 20  # sections, chapters and change lines the home page shows at most; the index pages list them all

_HOW_TO_USE = {
    "zh": (
        "用页面顶部的搜索框查找条目（中英文都可以，例如“昇腾”“TileLang”）。",
        "在**全部条目**中按类型、分区、标签、章节或语言筛选，点击列标题排序。",
        "按**分区**浏览带注释的书目；每个条目都有详情页，列出引用它的章节与日报，以及存档副本。",
        "按**章节阅读路径**从基础读到细节。",
    ),
    "en": (
        "Search from the box at the top (Chinese or English).",
        "Filter **All sources** by kind, section, tag, chapter or language, and sort it by any column.",
        "Browse the annotated bibliography by **section**; every source has a page listing the chapters and digests that cite it, and its archived copies.",
        "Follow a **chapter reading path** from foundations to specifics.",
    ),
}
