"""Page builders: each returns the Markdown of one generated page from the registry.

Every page lives at a fixed path under docs/ (see `paths`), and links between
pages are relative `.md` links so MkDocs checks them in a strict build.
"""

from __future__ import annotations

import posixpath
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .. import urls
from ..errors import CorpusBuildError
from ..model import Chapter, Corpus, Digest, LearningPath, Section, Source
from ..registry import WIKILINK
from . import changes, mirror
from . import citation
from . import markdown as md
from .labels import Labels

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
    """A relative link from one generated page to another (both relative to docs/)."""
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


@dataclass
class Citations:
    """Who cites each source: chapters, learning paths and digests (computed once per render)."""

    chapters: dict[str, list[Chapter]] = field(default_factory=lambda: defaultdict(list))
    paths: dict[str, list[LearningPath]] = field(default_factory=lambda: defaultdict(list))
    digests: dict[str, list[Digest]] = field(default_factory=lambda: defaultdict(list))

    @classmethod
    def of(cls, corpus: Corpus) -> "Citations":
        citations = cls()
        for chapter in corpus.chapters:
            for step in chapter.path:
                citations.chapters[step.source].append(chapter)
        for learning_path in corpus.paths:
            for step in learning_path.path:
                citations.paths[step.source].append(learning_path)
        for digest in corpus.digests:
            for source_id in dict.fromkeys(m.group(1).strip() for m in WIKILINK.finditer(digest.body)):
                citations.digests[source_id].append(digest)
        return citations


class PageBuilder:
    def __init__(self, corpus: Corpus):
        self.corpus = corpus
        self.t = Labels(corpus.settings.ui_lang)
        self.citations = Citations.of(corpus)
        self.by_id = corpus.by_id
        self._thread_badges: dict[str, str] = {}

    # --- shared pieces -------------------------------------------------------------

    def section_title(self, section: Section) -> str:
        if self.t.lang == "zh" and section.title_zh:
            return section.title_zh
        return section.title

    def chapter_title(self, chapter: Chapter) -> str:
        return f"{self.t.chapter(chapter.number)} · {chapter.title}"

    def thread_state(self, source: Source) -> str:
        """The open / merged / closed badge of a mirrored issue or PR (read once per render)."""
        if source.kind not in ("issue", "pull", "discussion"):
            return ""
        if source.id not in self._thread_badges:
            self._thread_badges[source.id] = mirror.thread_badge(self.corpus, source, self.t)
        return self._thread_badges[source.id]

    def badges(self, source: Source) -> str:
        parts = [md.badge(self.t.kind(source.kind), f"kind-{source.kind}"), md.badge(self.t(f"lang_{source.lang}"), "lang")]
        if self.thread_state(source):
            parts.append(self.thread_state(source))
        if not source.verified:
            parts.append(md.badge(self.t("unverified"), "unverified"))
        return " ".join(parts)

    def original_link(self, source: Source) -> str:
        if not source.url:
            return self.t("no_url")
        return md.url_link(f"{self.t('original')} ↗", source.url)

    def chapter_links(self, source: Source, page: str) -> str:
        known = {c.number for c in self.corpus.chapters}
        return ", ".join(
            md.link(self.t.chapter(n), rel(page, paths.chapter(n))) if n in known else md.text(self.t.chapter(n)) for n in source.chapters
        )

    def tag_list(self, source: Source) -> str:
        return ", ".join(f"`{tag}`" for tag in source.tags)

    def unverified_warning(self, source: Source) -> str:
        if source.verified:
            return ""
        body = self.t("unverified_body")
        if source.verify_note:
            body += f": {md.text(source.verify_note)}"
        return f'!!! warning "{self.t("unverified")}"\n\n    {body}\n\n'

    def entry(self, source: Source, page: str, heading: str = "###") -> str:
        """A source as it appears in an annotated bibliography."""
        title = md.url_link(source.title, source.url) if source.url else md.text(source.title)
        facts = [self.badges(source)]
        if source.chapters:
            facts.append(self.chapter_links(source, page))
        if source.tags:
            facts.append(self.tag_list(source))
        facts.append(md.link(self.t("details") + " →", rel(page, paths.source(source.id))))
        out = f"{heading} {title} {{#{source.id}}}\n\n" + " · ".join(facts) + "\n\n"
        if not source.verified:
            out += f"*{self.t('unverified_body')}{': ' + md.text(source.verify_note) if source.verify_note else ''}*\n\n"
        return out + md.quote_block(source.note) + "\n"

    # --- pages -----------------------------------------------------------------------

    def home(self) -> str:
        c, t = self.corpus, self.t
        page = paths.home
        # No front-matter title: Material then titles the home page with the site name alone.
        out = f"# {md.text(c.settings.title)}\n\n"
        if c.settings.description:
            out += c.settings.description.strip() + "\n\n"
        sources = c.sources
        out += f"## {t('counts')}\n\n"
        out += t("sources_n", n=len(sources)) + f" · {len(c.sections)} {t('sections')} · {len(c.chapters)} {t('chapters_short')} · {len(c.digests)} {t('digests')}\n\n"
        rows = [[md.link(self.section_title(s), rel(page, paths.section(s))), str(len(s.sources))] for s in c.sections]
        out += f"### {t('by_section')}\n\n" + md.table([t("section"), t("count")], rows) + "\n"
        kinds = Counter(s.kind for s in sources)
        rows = [[t.kind(kind), str(count)] for kind, count in kinds.most_common()]
        out += f"### {t('by_kind')}\n\n" + md.table([t("kind"), t("count")], rows) + "\n"
        if c.chapters:
            out += f"## {md.link(t('chapters'), rel(page, paths.chapters))}\n\n"
            out += "".join(f"- {md.link(self.chapter_title(ch), rel(page, paths.chapter(ch.number)))}\n" for ch in c.chapters) + "\n"
        since = self.since_last_build(page)
        if since:
            out += since
        changes = self.recent_changes(page)
        if changes:
            out += f"## {t('recent_changes')}\n\n" + changes + "\n"
        if c.digests:
            latest = c.digests[0]
            out += f"## {t('latest_digest')}\n\n- {md.link(f'{latest.date} · {latest.title}', rel(page, paths.digest(latest)))}\n\n"
        out += f"## {t('how_to_use')}\n\n" + _HOW_TO_USE[t.lang]
        return out

    def since_last_build(self, page: str) -> str:
        """Sources added or removed, PR states, failing mirrors, digests: since the last `corpus-build build`."""
        previous = changes.load(self.corpus)
        if previous is None:
            return ""
        diff = changes.compare(previous, changes.take(self.corpus))
        t, lines = self.t, []

        def source_link(source_id: str) -> str:
            return md.link(self.by_id[source_id].title, rel(page, paths.source(source_id)))

        lines += [f"- {t('change_added')}: {source_link(i)}" for i in diff["added"]]
        lines += [f"- {t('change_removed')}: {md.text(title)}" for title in diff["removed"]]
        lines += [f"- {source_link(i)}: {md.text(old)} → **{md.text(new)}**" for i, old, new in diff["state"]]
        lines += [f"- {t('change_failing')}: {source_link(i)}" for i in diff["failing"]]
        lines += [f"- {t('change_recovered')}: {source_link(i)}" for i in diff["recovered"]]
        digests = {d.date.isoformat(): d for d in self.corpus.digests}
        lines += [f"- {t('change_digest')}: {md.link(digests[d].title, rel(page, paths.digest(digests[d])))}" for d in diff["digests"] if d in digests]
        if not lines:
            return ""
        return f"## {t('since_last_build', when=previous.get('built_at', '?'))}\n\n" + "\n".join(lines) + "\n\n"

    def recent_changes(self, page: str) -> str:
        """Cited PRs and issues whose state moved at the last `corpus-build watch` (open → merged…)."""
        from ..watch.state import WatchState

        try:
            cited = WatchState.load(self.corpus.root).cited
        except CorpusBuildError:
            return ""  # a broken state file is reported by `watch`; the site still builds
        by_thread = {}
        for source in self.corpus.sources:
            parts = urls.github_parts(source.url) if source.url else None
            if parts and parts[2].split("/")[0] in ("pull", "issues", "discussions") and "/" in parts[2]:
                by_thread[f"{parts[0]}/{parts[1]}#{parts[2].split('/')[1]}".lower()] = source
        lines = []
        for key, record in sorted(cited.items()):
            before, after = record.get("before"), record.get("state")
            if not before or not after or before == after:
                continue
            source = by_thread.get(key)
            label = md.link(f"{key} {record.get('title', '')}".strip(), rel(page, paths.source(source.id))) if source else md.text(key)
            lines.append(f"- {label}: {md.text(before)} → **{md.text(after)}**")
        return "\n".join(lines) + "\n" if lines else ""

    def sections_index(self) -> str:
        page = paths.sections
        out = md.front_matter(title=self.t("sections")) + f"# {self.t('sections')}\n\n"
        for section in self.corpus.sections:
            out += f"## {md.link(self.section_title(section), rel(page, paths.section(section)))}\n\n"
            out += f"{self.t('sources_n', n=len(section.sources))}"
            other = section.title if self.t.lang == "zh" and section.title_zh else section.title_zh
            out += f" · {md.text(other)}\n\n" if other else "\n\n"
            if section.intro:
                out += section.intro.strip() + "\n\n"
        return out

    def section_page(self, section: Section) -> str:
        page = paths.section(section)
        title = self.section_title(section)
        out = md.front_matter(title=title) + f"# {md.text(title)}\n\n"
        other = section.title if title != section.title else section.title_zh
        if other:
            out += f"*{md.text(other)}* · `{section.folder}`\n\n"
        if section.intro:
            out += section.intro.strip() + "\n\n"
        return out + "".join(self.entry(source, page) for source in section.sources)

    def source_page(self, source: Source) -> str:
        t, page = self.t, paths.source(source.id)
        section = self.corpus.section(source.section)
        out = md.front_matter(title=source.title, tags=list(source.tags)) + f"# {md.text(source.title)}\n\n"
        out += self.badges(source) + f" · {self.original_link(source)}\n\n"
        out += self.unverified_warning(source)
        rows = [
            [t("id"), f"`{source.id}`"],
            [t("kind"), t.kind(source.kind)],
            [t("section"), md.link(self.section_title(section), rel(page, paths.section(section)))],
            [t("lang"), t(f"lang_{source.lang}")],
        ]
        if source.url:
            rows.append(["URL", md.url_link(source.url, source.url)])
        if source.chapters:
            rows.append([t("chapters_short"), self.chapter_links(source, page)])
        if source.tags:
            rows.append([t("tags"), self.tag_list(source)])
        out += md.table(["", ""], rows) + "\n"
        out += f"## {t('annotation')}\n\n" + md.quote_block(source.note) + "\n"
        out += f"## {t('cited_by')}\n\n" + self.cited_by(source, page)
        if source.see_also:
            out += f"## {t('see_also')}\n\n"
            for other_id in source.see_also:
                other = self.by_id.get(other_id)
                if other:
                    out += f"- {md.link(other.title, rel(page, paths.source(other.id)))}\n"
            out += "\n"
        out += f"## {t('mirror')}\n\n" + mirror.panel(self.corpus, source, t, page)
        out += "\n" + citation.box(self.corpus, source, t, page, getattr(self, "bib_facts", None))  # biblio: the lead moves this into the source template
        return out

    def cited_by(self, source: Source, page: str) -> str:
        lines = []
        for chapter in self.citations.chapters.get(source.id, []):
            why = next((s.why for s in chapter.path if s.source == source.id), "")
            lines.append(f"- {md.link(self.chapter_title(chapter), rel(page, paths.chapter(chapter.number)))}" + (f" — {md.text(why)}" if why else ""))
        for learning_path in self.citations.paths.get(source.id, []):
            lines.append(f"- {md.link(learning_path.title, rel(page, paths.learning_path(learning_path.id)))}")
        for digest in self.citations.digests.get(source.id, []):
            lines.append(f"- {md.link(f'{digest.date} · {digest.title}', rel(page, paths.digest(digest)))}")
        return ("\n".join(lines) if lines else self.t("not_cited")) + "\n\n"

    def sources_index(self) -> str:
        t, page = self.t, paths.sources
        out = md.front_matter(title=t("all_sources")) + f"# {t('all_sources')}\n\n"
        out += f"{t('export')}: {md.link('BibTeX', rel(page, paths.bibtex))} · {md.link('CSL-JSON', rel(page, paths.csl_json))}\n\n"
        rows = []
        for source in sorted(self.corpus.sources, key=lambda s: s.title.lower()):
            section = self.corpus.section(source.section)
            flag = " " + self.thread_state(source) if self.thread_state(source) else ""
            flag += " " + md.badge(t("unverified"), "unverified") if not source.verified else ""
            rows.append(
                [
                    md.link(source.title, rel(page, paths.source(source.id))) + flag,
                    t.kind(source.kind),
                    source.lang,
                    md.link(self.section_title(section), rel(page, paths.section(section))),
                ]
            )
        return out + md.table([t("title"), t("kind"), t("lang"), t("section")], rows)

    def chapters_index(self) -> str:
        t, page = self.t, paths.chapters
        out = md.front_matter(title=t("chapters")) + f"# {t('chapters')}\n\n"
        for chapter in self.corpus.chapters:
            out += f"## {md.link(self.chapter_title(chapter), rel(page, paths.chapter(chapter.number)))}\n\n"
            if chapter.title_en:
                out += f"*{md.text(chapter.title_en)}* · "
            out += t("sources_n", n=len(chapter.path)) + "\n\n"
            if chapter.summary:
                out += chapter.summary.strip() + "\n\n"
        if self.corpus.paths:
            out += f"## {t('learning_paths')}\n\n"
            for learning_path in self.corpus.paths:
                out += f"- {md.link(learning_path.title, rel(page, paths.learning_path(learning_path.id)))} — {t('sources_n', n=len(learning_path.path))}\n"
        return out

    def reading_path(self, steps, page: str) -> str:
        out = '<div class="cb-reading-path" markdown>\n\n'
        for index, step in enumerate(steps, start=1):
            source = self.by_id[step.source]
            section = self.corpus.section(source.section)
            out += f"{index}. **{md.link(source.title, rel(page, paths.source(source.id)))}**"
            if self.thread_state(source):
                out += " " + self.thread_state(source)
            if not source.verified:
                out += " " + md.badge(self.t("unverified"), "unverified")
            out += "\n"
            if step.why:
                out += f"    — {md.text(step.why)}\n"
            out += f"    <br><small>{md.text(self.t.kind(source.kind))} · {md.link(self.section_title(section), rel(page, paths.section(section)))}</small>\n"
        return out + "\n</div>\n"

    def chapter_page(self, chapter: Chapter) -> str:
        page = paths.chapter(chapter.number)
        title = self.chapter_title(chapter)
        out = md.front_matter(title=title) + f"# {md.text(title)}\n\n"
        if chapter.title_en:
            out += f"*{md.text(chapter.title_en)}*\n\n"
        if chapter.summary:
            out += chapter.summary.strip() + "\n\n"
        return out + f"## {self.t('reading_path')}\n\n" + self.reading_path(chapter.path, page)

    def learning_path_page(self, learning_path: LearningPath) -> str:
        page = paths.learning_path(learning_path.id)
        out = md.front_matter(title=learning_path.title) + f"# {md.text(learning_path.title)}\n\n"
        if learning_path.title_en:
            out += f"*{md.text(learning_path.title_en)}*\n\n"
        if learning_path.summary:
            out += learning_path.summary.strip() + "\n\n"
        return out + f"## {self.t('reading_path')}\n\n" + self.reading_path(learning_path.path, page)

    def digests_index(self) -> str:
        t, page = self.t, paths.digests
        out = md.front_matter(title=t("digests")) + f"# {t('digests')}\n\n"
        out += f"{md.link(t('feed'), rel(page, paths.feed))}\n\n"
        for digest in self.corpus.digests:
            out += f"## {md.link(f'{digest.date} · {digest.title}', rel(page, paths.digest(digest)))}\n\n"
            facts = self.digest_facts(digest)
            if facts:
                out += facts + "\n"
        return out

    def digest_facts(self, digest: Digest) -> str:
        t, meta = self.t, digest.meta
        facts = []
        if meta.get("window_start") and meta.get("window_end"):
            facts.append(f"{t('window')}: {md.text(str(meta['window_start']))} → {md.text(str(meta['window_end']))}")
        if digest.repos:
            facts.append(f"{t('repos')}: " + ", ".join(f"`{r}`" for r in digest.repos))
        return "".join(f"- {fact}\n" for fact in facts)

    def digest_page(self, digest: Digest) -> str:
        page = paths.digest(digest)
        out = md.front_matter(title=digest.title, date=digest.date.isoformat(), tags=list(digest.tags))
        out += f"# {md.text(digest.title)}\n\n" + self.digest_facts(digest) + "\n"
        return out + self.resolve_wikilinks(digest.body, page)

    def resolve_wikilinks(self, body: str, page: str) -> str:
        def replace(match) -> str:
            source = self.by_id.get(match.group(1).strip())
            if source is None:  # registry.check reports it; keep the text visible
                return match.group(0)
            label = match.group(2) or source.title
            return md.link(label, rel(page, paths.source(source.id)))

        return WIKILINK.sub(replace, body)

    def tags_page(self) -> str:
        return md.front_matter(title=self.t("tags")) + f"# {self.t('tags')}\n\n<!-- material/tags -->\n"


_HOW_TO_USE = {
    "zh": (
        "- 用页面顶部的搜索框查找条目（中英文都可以，例如 `昇腾`、`TileLang`）。\n"
        "- 按**分区**浏览带注释的书目；每个条目都有详情页，列出引用它的章节与日报。\n"
        "- 按**章节阅读路径**从基础读到细节。\n"
        "- 本地预览：`mkdocs serve`；新增条目：`corpus-build add URL --section 分区目录`，再 `corpus-build build`。\n"
    ),
    "en": (
        "- Search from the box at the top (Chinese or English).\n"
        "- Browse the annotated bibliography by **section**; every source has a page listing the chapters and digests that cite it.\n"
        "- Follow a **chapter reading path** from foundations to specifics.\n"
        "- Preview locally with `mkdocs serve`; add a source with `corpus-build add URL --section FOLDER`, then `corpus-build build`.\n"
    ),
}
