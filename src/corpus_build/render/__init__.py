"""Render the registry into Markdown pages under docs/ (the input of the MkDocs build).

Only files whose content changed are written, so `mkdocs serve` reloads little, and
pages of sources that left the registry are removed. Which files are ours is kept
in a manifest (a dot-file, which MkDocs never publishes); hand-written files in
docs/ are never touched.

Render reads the registry's records and the files earlier stages wrote (provenance,
link results: core/), never a stage's code; page builders are in pages.py, where pages
live in places.py, view records in views.py and their layouts in templates/.
"""

from __future__ import annotations

import html
import json
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core import bibfacts, console, jsondata, safepath
from ..core.errors import SiteError
from ..core.model import Corpus
from ..core.provenance import create_new, write_atomic
from . import export, feed, mirror, mirrortext, repodocs
from .labels import Labels
from .linknotice import status_section as link_status_section
from .pages import DIGESTS_IN_NAV, GENERATED_MARK, PageBuilder
from .places import paths
from .reuse import Reuse
from .reuse import active as reuse_active

MANIFEST = ".corpus-build-manifest.json"
# Every page carries the whole nav, so its size is bounded: past this many sections
# (or chapters), the nav links only their index page, which lists them all.
NAV_MAX_ITEMS = 40
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{2,}")


@dataclass(frozen=True)
class RenderResult:
    written: tuple[str, ...]
    unchanged: int
    removed: tuple[str, ...]
    # Pages whose raw HTML links were written for the other kind of URL (`links_as`): site/relink.py moves them.
    relinked: frozenset[str] = frozenset()

    def __str__(self) -> str:
        written = len(self.written)
        return f"{written} {'file' if written == 1 else 'files'} written, {self.unchanged} unchanged, {len(self.removed)} removed"


def build_pages(corpus: Corpus, *, directory_urls: bool = True, reuse: Reuse | None = None) -> dict[str, str | bytes | Path]:
    """Every generated file: path relative to docs/ -> content (text, bytes, or a mirror file to copy).

    With `reuse`, pages whose view record is unchanged are read back from docs/ (reuse.py).
    """
    return dict(iter_pages(corpus, directory_urls=directory_urls, reuse=reuse))


def iter_pages(corpus: Corpus, *, directory_urls: bool = True, reuse: Reuse | None = None, links_as: bool | None = None,
               relinked: set[str] | None = None) -> Iterator[tuple[str, str | bytes | Path]]:
    """build_pages one file at a time: render writes each as it comes, so a corpus of 20,000
    sources never holds all its pages at once (that was half a gigabyte at the build's start).

    `links_as`: the kind of URL (directory URLs or not) the raw HTML links of the builders' pages
    (home, lists, tags, sources, chapters, digests) are written for, when not `directory_urls`'s:
    the offline copy's build takes the site's pages as they are and moves those links itself
    (site/relink.py); their paths go into `relinked`. Mirror text, repository pages and the
    files beside them are always made for `directory_urls`.
    """
    links_as = directory_urls if links_as is None else links_as
    builder = PageBuilder(corpus, directory_urls=links_as, script_urls=directory_urls)
    # Read each mirror's facts once, for the exports and every source page's cite box.
    bib_facts = bibfacts.all_facts(corpus, lambda source: builder.mirror_info(source).record)
    found = bibfacts.with_found_titles(corpus, bib_facts)
    if found is not corpus:
        # Placeholder titles (`add --offline`) give way to the mirror's on every page; the
        # mirrors already read are the same for the new corpus.
        read, corpus = builder, found
        builder = PageBuilder(corpus, directory_urls=links_as, script_urls=directory_urls)
        builder._mirrors = read._mirrors  # keyed by id: a title does not change a mirror
    builder.reuse = reuse
    builder.bib_facts = bib_facts

    def digest_url(digest) -> str:
        page = paths.digest(digest)
        return page[: -len(".md")] + "/" if directory_urls else page[: -len(".md")] + ".html"

    def source_url(source) -> str:
        page = paths.source(source.id)
        return page[: -len(".md")] + "/" if directory_urls else page[: -len(".md")] + ".html"

    def pages() -> Iterator[tuple[str, str | bytes | Path]]:
        yield paths.home, builder.home()
        yield paths.chapters, builder.chapters_index()
        yield paths.status, mirror.status_page(corpus, builder.t, builder.mirror_info) + link_status_section(corpus, builder.t)  # links stage
        yield from builder.sources_pages().items()  # "All sources", in pages, and its data file (listing.py)
        yield from builder.sections_index().items()  # the sections and the digests, in pages of INDEX_PAGE_SIZE
        yield from builder.digests_index().items()
        yield from builder.tags_pages().items()  # the tags index and each tag's pages (tagpages.py)
        for section in corpus.sections:
            yield paths.section(section), builder.section_page(section)
        for source in corpus.sources:
            yield paths.source(source.id), builder.source_page(source)
        for chapter in corpus.chapters:
            yield paths.chapter(chapter.number), builder.chapter_page(chapter)
        for learning_path in corpus.paths:
            yield paths.learning_path(learning_path.id), builder.learning_path_page(learning_path)
        for digest in corpus.digests:
            yield paths.digest(digest), builder.digest_page(digest)
        yield paths.feed, feed.atom(corpus, digest_url)
        yield feed.SOURCES_FEED, feed.new_sources(corpus, source_url, Labels(corpus.settings.ui_lang)("new_sources"))
        # BibTeX, CSL-JSON and RIS of the whole corpus (paths.bibtex, paths.csl_json), each section and chapter.
        yield from export.export_files(corpus, bib_facts).items()

    def mirror_pages() -> Iterator[tuple[str, str | bytes | Path]]:
        yield from mirror.extra_pages(corpus, builder.t, directory_urls, builder.mirror_info, builder.reuse, GENERATED_MARK, builder.source_inputs)
        # A repository's own docs and the files notes cite (render/repodocs.py).
        yield from repodocs.pages(corpus, builder.t, directory_urls, builder.mirror_info, builder.reuse, GENERATED_MARK).items()

    for path, content in pages():
        if relinked is not None and links_as != directory_urls and path.endswith(".md"):
            relinked.add(path)
        yield path, (content + GENERATED_MARK if path.endswith(".md") and isinstance(content, str) else content)
    for path, content in mirror_pages():
        yield path, (content + GENERATED_MARK if path.endswith(".md") and isinstance(content, str) else content)
    yield from mirror.extra_files(corpus, builder.mirror_info, builder.reuse)
    yield from repodocs.files(corpus, builder.mirror_info).items()
    # The pages' own stylesheet and scripts come with the package, so a new project needs none.
    for asset in ASSETS:
        yield f"assets/{asset}", ASSETS_DIR / asset


# Shipped in the package beside the templates; the plugin links them into every page
# (site/plugin.py), and a project's mkdocs.yml may list more of its own.
ASSETS_DIR = Path(__file__).parent / "assets"
ASSETS = ("corpus.css", "sources.js", "cite.js")
STYLESHEETS = tuple(f"assets/{name}" for name in ASSETS if name.endswith(".css"))
SCRIPTS = tuple(f"assets/{name}" for name in ASSETS if name.endswith(".js"))


def render(corpus: Corpus, docs_dir: Path, *, directory_urls: bool = True, links_as: bool | None = None) -> RenderResult:
    """Write the generated pages into docs/ (`links_as`: see iter_pages)."""
    docs_dir = Path(docs_dir)
    # A committed `docs -> /somewhere` symlink must not make render write (or remove) files there.
    safepath.inside(docs_dir, corpus.root.parent, "docs/ holds the generated pages, inside the project")
    docs_dir.mkdir(parents=True, exist_ok=True)
    reuse = Reuse(docs_dir)
    pages: set[str] = set()
    relinked: set[str] = set()
    manifest_path = docs_dir / MANIFEST
    try:
        previous = set(jsondata.loads(manifest_path.read_text(encoding="utf-8")))
    except (OSError, ValueError):
        previous = set()
    expected = len(previous) or len(corpus.sources)  # the last render's count is the best guess of this one's
    with mirrortext.resolving_once(), reuse_active(reuse):
        written, unchanged = _write_pages(corpus, docs_dir, directory_urls, reuse, previous, pages, expected, links_as, relinked)
    removed = []
    for relative in sorted(previous - set(pages)):
        target = docs_dir / relative
        if target.is_file() and safepath.is_inside(target, docs_dir):
            target.unlink()
            removed.append(relative)
            _remove_empty_parents(target.parent, docs_dir)
    reuse.save()
    new_manifest = json.dumps(sorted(pages), indent=0)
    if not manifest_path.exists() or manifest_path.read_text(encoding="utf-8") != new_manifest:
        write_atomic(manifest_path, new_manifest)  # (a kill leaves the old list or the new, never half of one)
    return RenderResult(tuple(written), unchanged, tuple(removed), frozenset(relinked))


def _write_pages(corpus: Corpus, docs_dir: Path, directory_urls: bool, reuse: Reuse, previous: set[str], pages: set[str], expected: int,
                 links_as: bool | None = None, relinked: set[str] | None = None) -> tuple[list[str], int]:
    """Write every generated file whose content changed; returns (written, unchanged count)."""
    written, unchanged = [], 0
    checked: set[Path] = set()  # folders known to stay inside docs/ (a docs/sources symlink must not be written through)
    for relative, content in iter_pages(corpus, directory_urls=directory_urls, reuse=reuse, links_as=links_as, relinked=relinked):
        pages.add(relative)
        console.progress("rendering pages", len(pages), max(expected, len(pages)))
        target = docs_dir / relative
        if target.parent not in checked:
            checked.add(target.parent if _plain_folder_in(target.parent, checked) else safepath.inside(target.parent, docs_dir, "docs/ holds generated pages"))
        data = content.read_bytes() if isinstance(content, Path) else content if isinstance(content, bytes) else content.encode("utf-8")
        if reuse.note(relative, content, GENERATED_MARK, data):  # read back from this very file, untouched since
            unchanged += 1
            continue
        try:
            existing = target.read_bytes()
        except OSError:
            existing = None
        if existing == data:
            unchanged += 1
            continue
        if existing is not None and relative not in previous and not (existing.endswith(GENERATED_MARK.encode("utf-8")) or "/archive/" in relative or "/repo-images/" in relative):
            raise SiteError(
                f"{target}: a file that corpus-build did not write is where it would put a generated page; "
                "move it elsewhere (docs/ holds generated pages), or delete it if it is an old generated page"
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        try:
            with os.fdopen(create_new(tmp), "wb") as handle:  # (never through a link left under its name)
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:  # a full disk: the previous page stays, no temp file is left
            tmp.unlink(missing_ok=True)
            raise
        written.append(relative)
    return written, unchanged


def _plain_folder_in(folder: Path, checked: set[Path]) -> bool:
    """Whether `folder` is a folder (or nothing yet) right inside one already known to stay inside
    docs/: then it does too, with one lstat, where resolving its whole path took one per level
    (a folder per source: a tenth of a one-note rebuild's render at 1,000 sources)."""
    parent = folder.parent
    if parent not in checked:
        if parent == folder or not _plain_folder_in(parent, checked):
            return False
        checked.add(parent)
    try:
        return stat.S_ISDIR(os.lstat(folder).st_mode)
    except FileNotFoundError:
        return True  # made by render below, as a folder
    except OSError:
        return False


def _remove_empty_parents(folder: Path, stop: Path) -> None:
    while folder != stop and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def nav(corpus: Corpus) -> list:
    """The global navigation: sections, chapters and recent digests; per-source pages stay out.

    Its size does not grow with the corpus: long lists of sections or chapters
    collapse to their index page (NAV_MAX_ITEMS).

    Thousands of per-source pages in the nav would make every page carry all of
    them (measured: 21 s and 279 MB for 1,000 pages, against 2.3 s and 20 MB).
    """
    builder = PageBuilder(corpus)
    t = Labels(corpus.settings.ui_lang)

    def title(text: str) -> str:  # Material prints nav titles unescaped; registry text must stay text
        return html.escape(text, quote=False)

    sections: list = [paths.sections]
    if len(corpus.sections) <= NAV_MAX_ITEMS:
        sections += [{title(builder.section_title(s)): paths.section(s)} for s in corpus.sections]
    chapters: list = [paths.chapters]
    if len(corpus.chapters) + len(corpus.paths) <= NAV_MAX_ITEMS:
        chapters += [{title(builder.chapter_title(c)): paths.chapter(c.number)} for c in corpus.chapters]
        chapters += [{title(p.title): paths.learning_path(p.id)} for p in corpus.paths]
    digests: list = [paths.digests]
    digests += [{f"{d.date}": paths.digest(d)} for d in corpus.digests[:DIGESTS_IN_NAV]]
    # An index with nothing under it is a page, not a section: no expand arrow over nothing
    # (a new corpus's chapters and digests; their pages say what goes there).
    return [
        {t("home"): paths.home},
        {t("sections"): sections},
        {t("chapters_short"): chapters if len(chapters) > 1 else paths.chapters},
        {t("digests"): digests if len(digests) > 1 else paths.digests},
        {t("all_sources"): paths.sources},
        {t("tags"): paths.tags},
        {t("status"): paths.status},
    ]


# Generated pages the nav never lists (reached from index pages): declared by the plugin, so
# a project whose mkdocs.yml predates one of them still builds strict.
NEVER_IN_NAV = ("/sources/", "/digests/", "/chapters/path-*", "/tags/", "/sections/page/")


def collapsed_nav(corpus: Corpus) -> list[str]:
    """`not_in_nav` patterns for the generated pages `nav` leaves out: always NEVER_IN_NAV,
    and a list's pages when it collapses.

    MkDocs warns about every page outside the nav, and a strict build (the daily
    publish) fails on warnings: at 41 sections the section pages must be declared.
    """
    found = list(NEVER_IN_NAV)
    if len(corpus.sections) > NAV_MAX_ITEMS:
        found.append("/sections/")
    if len(corpus.chapters) + len(corpus.paths) > NAV_MAX_ITEMS:
        found.append("/chapters/")
    return found


def search_vocabulary(corpus: Corpus, *, cuts_memo: Path | None = None) -> list[str]:
    """Words Chinese search must keep whole: the glossary, Chinese tags, and unknown title terms.

    jieba does not know domain terms such as 昇腾 and indexes them character by
    character; a query for the whole term then finds nothing. Besides the curated
    glossary and tags, a short Chinese run in a title (2-4 characters, e.g. the 昇腾
    of "昇腾适配" once split off) joins when jieba can only cut it into single
    characters. Longer runs are left alone: adding "硬件与" as a word would stop
    "硬件" from matching. `cuts_memo` keeps jieba's cuts of the titles for the next
    build (render/stockcut.py).
    """
    words: dict[str, None] = dict.fromkeys(corpus.settings.glossary)
    for source in corpus.sources:
        for tag in source.tags:
            if _CJK_RUN.search(tag) and " " not in tag:
                words[tag] = None
    titles = [s.title for s in corpus.sources] + [s.title_zh for s in corpus.sections] + [c.title for c in corpus.chapters]
    for term in _unknown_terms(titles, cuts_memo):
        words.setdefault(term, None)
    return [w for w in words if w.strip()]


def _unknown_terms(texts: list[str], cuts_memo: Path | None = None) -> list[str]:
    # jieba with its stock dictionary only: the process-wide tokenizer learns our own words.
    from . import stockcut

    try:
        import jieba  # noqa: F401  (without it, search indexes Chinese unsegmented: no terms to add)
    except ImportError:
        return []
    runs = [run for text in texts for run in _CJK_RUN.findall(text)]
    cuts = stockcut.cut_all(runs, cuts_memo)
    found: dict[str, None] = {}
    for run in runs:
        # A run jieba cuts into known words plus unknown single characters: the
        # single characters next to each other form the unknown term (昇腾 in 昇腾适配).
        pieces = cuts[run]
        singles: list[str] = []
        for piece in [*pieces, ""]:
            if len(piece) == 1:
                singles.append(piece)
                continue
            if len(singles) == 2 and len(pieces) > 2:
                found["".join(singles)] = None
            singles = []
        if 2 <= len(run) <= 4 and all(len(p) == 1 for p in pieces):
            found[run] = None
    return list(found)


def write_search_dictionary(corpus: Corpus, target: Path) -> bool:
    """A jieba user dictionary (one `word frequency` line each); True when it changed."""
    content = "".join(f"{word} 100000\n" for word in search_vocabulary(corpus, cuts_memo=target.with_suffix(".cuts.json")))
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_file() and not target.is_symlink() and target.read_text(encoding="utf-8") == content:
        return False
    write_atomic(target, content)
    return True
