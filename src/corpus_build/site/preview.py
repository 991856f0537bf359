"""`mkdocs serve` at thousands of sources: an edit of the registry shows within a second or two.

MkDocs' live server answers every change with a full build: at 5,000 sources that is
tens of seconds per saved note, even with the build cache. While serving, the plugin
hands the server `Preview.rebuild` instead (on_serve), which for an edit of corpus/
alone does the work in the order a curator looks at it:

1. Read the registry again (unchanged sections are reused: registry/reader.py) and find the
   sources whose entries changed. Lay out those sources' own pages, build just them
   through MkDocs' own page steps (so every plugin hook runs: the allow-list pass, the
   tags, the search entries) and put their entries into the published search index in
   place of the old ones.
2. Render the whole registry (only changed files are written into docs/), build the
   other pages whose Markdown changed (the section page, the "All sources" page holding
   the row, exports…), copy changed data files, write the full search index. The
   browsers reload once, when this is done. Only in a corpus of SHOW_FIRST_FROM sources
   or more, where step 2 takes seconds, are they let reload into step 1's pages first,
   with the server answering while the rest is built, and then once more. The corpus's
   size decides, not the time step 2 took: on a busy machine a small corpus's edit would
   otherwise reload twice.

Anything else takes MkDocs' own full build, as before: a change to mkdocs.yml, the
theme or a user's own page in docs/; a source, section, chapter or digest added or
removed; a changed navigation; a page whose title or front matter (tags) changed; a
registry with errors (the full build shows them on every page). The fast path leans
on three private parts of MkDocs 1.6 (the page steps of `mkdocs.commands.build`, and
the live server's `builder` and epoch): when they are missing, serve works as before.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import registry, render
from ..core.errors import CorpusBuildError
from ..core.model import Corpus, Source
from ..core.provenance import write_atomic
from ..render import mirrortext, reuse
from . import hosting, search

log = logging.getLogger("mkdocs.plugins.corpus")
# From this many sources the edited sources' pages are shown as soon as they are built, and the
# browsers reload again when the rest is done (scripts/bench_mirrored.py: at 1,000 mirrored
# sources the rest takes seconds). Below it one reload, when everything is built.
SHOW_FIRST_FROM = 1000


class NeedFullBuild(Exception):
    """The edit touches more than pages' content: MkDocs' full build must run."""


def _fingerprint(paths: list[Path]) -> str:
    """Size and times of every file under `paths`: a change outside corpus/ that a full build must see."""
    h = hashlib.sha256()
    for root in paths:
        items = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []
        for path in items:
            try:
                info = path.stat()
            except OSError:
                continue
            h.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return h.hexdigest()


def _entry(source: Source) -> Source:
    return dataclasses.replace(source, line=0)  # a line moved by an edit above it changes no page


@dataclasses.dataclass
class _Built:
    """What the last full build left, for building a few pages again."""

    config: Any
    files: Any
    nav: Any
    env: Any
    corpus: Corpus
    nav_items: list[Any]
    outside: str  # _fingerprint of mkdocs.yml and the theme's own folder


class Preview:
    def __init__(self, corpus_dir: Path, docs_watch: Callable[[], Any], on_corpus: Callable[[Corpus], None]):
        self.corpus_dir = corpus_dir
        self._docs_watch = docs_watch  # the plugin's serve.DocsWatch (its user_changed flag)
        self.on_corpus = on_corpus  # tells the plugin the corpus now shown (its last good corpus)
        self.built: _Built | None = None
        self.server: Any = None
        self.full: Callable[[], None] | None = None
        # The plugin's full-text step (the sharded index with every source's entries: fulltext.py),
        # run after the search index is written, as a full build runs it in on_post_build.
        self.index_fulltext: Callable[[Any, Any, Corpus], None] | None = None
        self.last: str = ""  # "fast" or "full": what the last rebuild was (for the log and the tests)
        self.shown_early = False  # the last rebuild let the browsers reload before it was done
        self.config_file = ""  # mkdocs.yml, for messages

    # --- wiring (plugin.py) ---------------------------------------------------

    def install(self, server: Any, builder: Callable[[], None]) -> bool:
        """Take over the live server's rebuilds; False (and nothing changed) where MkDocs differs."""
        try:
            from mkdocs.commands import build as mkdocs_build
        except ImportError:
            return False
        needed = (hasattr(mkdocs_build, "_populate_page"), hasattr(mkdocs_build, "_build_page"), hasattr(server, "_epoch_cond"),
                  hasattr(server, "_wanted_epoch"), hasattr(server, "builder"))
        if not all(needed):
            return False
        self.server, self.full = server, builder
        server.builder = self.rebuild
        return True

    def remember(self, config: Any, files: Any, nav: Any, env: Any, corpus: Corpus) -> None:
        """After a successful full build while serving."""
        self.built = _Built(config, files, nav, env, corpus, render.nav(corpus), _fingerprint(self._outside(config)))
        self.config_file = str(config.config_file_path or "")
        _release_cache_hooks(env, _search_plugin(config))

    def _outside(self, config: Any) -> list[Path]:
        """What MkDocs watches besides docs/ and corpus/: the config, the theme's own folder, `watch:` paths."""
        found = [Path(config.config_file_path)] if config.config_file_path else []
        if config.theme.custom_dir:
            found.append(Path(config.theme.custom_dir))
        corpus = self.corpus_dir.resolve()
        for item in config.watch or []:
            path = Path(item).resolve()
            if path != corpus and corpus not in path.parents:
                found.append(path)
        return found

    # --- the rebuild ---------------------------------------------------------------

    def rebuild(self) -> None:
        started = time.perf_counter()
        self.shown_early = False
        try:
            shown = self._fast(started)
        except NeedFullBuild as why:
            log.info(f"corpus: full build ({why})")
            shown = False
        except (CorpusBuildError, OSError) as exc:  # the full build reports it properly
            log.info(f"corpus: full build ({exc})")
            shown = False
        if not shown:
            self.built = None  # the full build's on_post_build remembers the new state
            self.last = "full"
            if self.shown_early:
                self._bump()  # the browsers saw the first pages: the full build's result is a new version
            assert self.full is not None
            try:
                self.full()
            except Exception as exc:
                if not _engine_error(exc):
                    raise
                self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        """MkDocs' full build stopped (mkdocs.yml unreadable, a theme or plugin missing): say so once,
        in one message, and let the server answer at once with what it has.

        MkDocs' own loop would print a traceback and hold every request until a build succeeds
        ("the server will appear stuck"). A configuration that does not load stops the build
        before it touches the served site: the last good site stays, and saving a fixed file
        builds again.
        """
        where = f"{self.config_file}: " if self.config_file else ""
        reason = str(exc).strip() or type(exc).__name__
        if _configuration_error(exc):
            log.error(f"{where}{reason}; the site served is still the last good one. Fix the file and save it: the site builds again then")
        else:
            log.error(f"the build stopped: {reason}; the site served may lack pages until a build succeeds. Fix the cause and save a file again")
        server = self.server
        if server is not None and hasattr(server, "_epoch_cond"):
            with server._epoch_cond:  # nothing new to show: no reload, and no request waits for one
                server._wanted_epoch = server._visible_epoch
                server._epoch_cond.notify_all()

    def _fast(self, started: float) -> bool:
        built = self.built
        watch = self._docs_watch()
        if built is None:
            raise NeedFullBuild("no earlier build to start from")
        if watch is not None and watch.user_changed:
            raise NeedFullBuild("a page in docs/ changed")
        if _fingerprint(self._outside(built.config)) != built.outside:
            raise NeedFullBuild("mkdocs.yml or the theme changed")
        try:
            corpus, _warnings = registry.load_with_problems(self.corpus_dir)
        except CorpusBuildError as exc:
            raise NeedFullBuild("the registry has errors") from exc
        corpus = hosting.with_site_url(corpus, built.config.site_url)
        marks = mirrortext.mirror_marks(corpus)  # a fetch beside the rebuild: checked when it is done
        old = built.corpus
        if render.nav(corpus) != built.nav_items:
            raise NeedFullBuild("the navigation changed")
        if [s.id for s in corpus.sources] != [s.id for s in old.sources] or corpus.settings != old.settings:
            raise NeedFullBuild("sources were added, removed or moved, or corpus.yaml changed")
        pages = _Pages(built)
        # 1. The changed sources' own pages first: what the curator is looking at.
        from ..render import GENERATED_MARK, PageBuilder, paths

        builder = PageBuilder(corpus, directory_urls=built.config.use_directory_urls)
        # Unchanged sections come back as the same objects (registry/reader.py): compare those by identity.
        changed = [s for s in corpus.sources if s is not (o := old.by_id[s.id]) and s != o and _entry(s) != _entry(o)]
        first = []
        if watch is not None:
            watch.begin()  # our writes into docs/ are not a user's change
        for source in changed:
            relative = paths.source(source.id)
            if _write_docs(Path(built.config.docs_dir) / relative, builder.source_page(source) + GENERATED_MARK):
                first.append(relative)
        if watch is not None:
            watch.remember([Path(built.config.docs_dir) / relative for relative in first])
        pages.build(first)
        if first and len(corpus.sources) >= SHOW_FIRST_FROM:
            self._show()  # the pages the curator is looking at, now; the rest follows
            self.shown_early = True
            log.info(f"corpus: {len(first)} changed source page(s) shown in {time.perf_counter() - started:.2f} s; the rest follows")
            pages.publish_index(corpus, partial=True)
        # 2. Everything else the edit changed, while the server answers.
        if watch is not None:
            watch.begin()
        result = render.render(corpus, Path(built.config.docs_dir), directory_urls=built.config.use_directory_urls)
        if watch is not None:
            watch.remember()
        if result.removed:
            raise NeedFullBuild("generated pages were removed")
        pages.build(list(result.written))
        built.corpus = corpus
        self.on_corpus(corpus)  # the plugin's hook tunes the index for this corpus
        pages.publish_index(corpus, partial=False)
        if self.index_fulltext is not None:
            if not self.shown_early:
                self._show()  # every page is built: the browsers need not wait for the search files
            self.index_fulltext(built.config, built.files, corpus)
        if mirrortext.moved_mirrors(marks):  # pages and index may pair two captures: a full build (which checks again)
            reuse.forget_inputs(Path(built.config.docs_dir))
            raise NeedFullBuild("a mirror changed during the rebuild")
        self.last = "fast"
        log.info(f"corpus: {len(first)} + {len(result.written)} page(s) rebuilt in {time.perf_counter() - started:.2f} s")
        if self.shown_early:
            self._bump()  # the browsers saw the first pages: they reload once more for the rest
        return True

    def _show(self) -> None:
        """Let the browsers reload now, and keep answering requests while the rest is built."""
        server = self.server
        with server._epoch_cond:
            server._visible_epoch = server._wanted_epoch
            server._epoch_cond.notify_all()

    def _bump(self) -> None:
        """A new version for the browsers to reload into (the server publishes it when rebuild returns)."""
        server = self.server
        with server._epoch_cond:
            server._wanted_epoch = max(server._wanted_epoch + 1, time.monotonic_ns() // 1_000_000)


class _Pages:
    """Building single pages with MkDocs' own page steps, and the search index they feed."""

    def __init__(self, built: _Built):
        from mkdocs.structure.files import InclusionLevel

        self.built = built
        self.config = built.config
        self.search = _search_plugin(built.config)
        self.doc_files = built.files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
        self.rebuilt: list[str] = []  # page URLs whose search entries were replaced

    def build(self, relatives: list[str]) -> None:
        for relative in relatives:
            file = self.built.files.get_file_from_path(relative)
            if file is None:
                raise NeedFullBuild(f"{relative} is a new file")
            if file.page is None:
                if file.is_documentation_page():
                    raise NeedFullBuild(f"{relative} is not in the last build")
                file.copy_file()  # exports, feeds, the listing's data file
                continue
            self._page(file)

    def _page(self, file: Any) -> None:
        from mkdocs.commands import build as mkdocs_build

        page, config = file.page, self.config
        if "<!-- material/tags" in Path(file.abs_src_path).read_text(encoding="utf-8"):
            raise NeedFullBuild(f"{file.src_uri} holds a tags listing (filled in by the whole build)")
        before = (page.title, json.dumps(page.meta, sort_keys=True, default=str))
        mkdocs_build._populate_page(page, config, self.built.files)
        if (page.title, json.dumps(page.meta, sort_keys=True, default=str)) != before:
            raise NeedFullBuild(f"the title or front matter of {file.src_uri} changed")
        entries = self.search.search_index.entries if self.search is not None else None
        at = None
        if entries is not None:
            kept = [e for e in entries if e["location"].split("#", 1)[0] != page.url]
            at = next((i for i, e in enumerate(entries) if e["location"].split("#", 1)[0] == page.url), len(kept))
            entries[:] = kept
        count = len(entries) if entries is not None else 0
        mkdocs_build._build_page(page, config, self.doc_files, self.built.nav, self.built.env, excluded=file.inclusion.is_excluded())
        if entries is not None and at is not None:
            new = entries[count:]
            del entries[count:]
            entries[at:at] = new
        self.rebuilt.append(page.url)

    def publish_index(self, corpus: Corpus, *, partial: bool) -> None:
        """The search index with the rebuilt pages' entries (partial: only theirs tuned again)."""
        if self.search is None or not self.rebuilt:
            return
        target = Path(self.config.site_dir) / "search" / "search_index.json"
        if not partial:
            self.search.on_post_build(config=self.config)  # Material writes its index (tuned, by the plugin's hook)
            if "generate_search_index" not in vars(self.search.search_index):
                search.tune_index_file(target, corpus, directory_urls=self.config.use_directory_urls)
            return
        data = json.loads(target.read_text(encoding="utf-8"))
        urls = set(self.rebuilt)
        raw = {"config": data.get("config", {}), "docs": [e for e in self.search.search_index.entries if e["location"].split("#", 1)[0] in urls]}
        tuned = search.tune(raw, corpus, directory_urls=self.config.use_directory_urls)[0]["docs"]
        docs = data.get("docs", [])
        at = next((i for i, d in enumerate(docs) if d["location"].split("#", 1)[0] in urls), len(docs))
        rest = [d for d in docs if d["location"].split("#", 1)[0] not in urls]
        data["docs"] = rest[:at] + tuned + rest[at:]
        write_atomic(target, json.dumps(data, ensure_ascii=False, separators=(",", ":")))  # a reader never sees half an index


def _engine_error(exc: BaseException) -> bool:
    """An error the site engine reports for the user to fix (its exceptions' common base), not a bug."""
    return any(cls.__name__ in ("MkDocsException", "ProperDocsException") and cls.__module__.endswith(".exceptions") for cls in type(exc).__mro__)


def _configuration_error(exc: BaseException) -> bool:
    return type(exc).__name__ in ("ConfigurationError", "Abort") and "strict mode" not in str(exc)


def _write_docs(target: Path, text: str) -> bool:
    """A generated page into docs/ when it changed (atomically); True when written."""
    try:
        if target.read_bytes() == text.encode("utf-8"):
            return False
    except OSError:
        raise NeedFullBuild(f"{target} is not there") from None
    write_atomic(target, text)
    return True


def _search_plugin(config: Any) -> Any:
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    return plugin if plugin is not None and hasattr(plugin, "search_index") else None


def _release_cache_hooks(env: Any, search_plugin: Any) -> None:
    """Undo the build cache's hooks on the last build's templates and search index.

    buildcache.py wraps them for one build; its store is closed once the build ends,
    and the preview builds pages without it (a handful of pages gains nothing from it).
    Its segmenter (segment.py) stays on the search index: it loads the corpus's words
    into jieba before its first cut, which Material's own method would not.
    """
    for template in list(env.cache.values()) if getattr(env, "cache", None) else []:
        if isinstance(vars(template).get("render"), functools.partial):
            del template.render
    index = getattr(search_plugin, "search_index", None)
    if index is not None and "add_entry_from_context" in vars(index):
        del index.add_entry_from_context
