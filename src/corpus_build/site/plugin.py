"""The `corpus` MkDocs plugin: regenerate the pages from corpus/ before every build.

This is what makes plain `mkdocs build` and `mkdocs serve` work on the registry:
on_config renders the registry into docs/ (writing only changed files), loads the
corpus's search vocabulary into jieba, and supplies the navigation; on_serve
watches corpus/ so editing a YAML file rebuilds the site. While serving, a registry
error keeps the last good site and shows the errors on every page (serve.py).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import logging
import re
from pathlib import Path
from typing import Any

import jinja2
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from .. import registry, render
from ..core import console
from ..core.errors import CorpusBuildError, Problem, RegistryError
from ..core.model import Corpus
from ..core.runlock import registry_read
from ..render import mirrortext, offlinelink, reuse, sanitize
from . import buildcache, engines, ftindex, fulltext, hosting, mirrorblocks, navmemo, pageskip, populateskip, preview, relink, search, serve, sitedir, slim, stepoutput, twinrender
from .engines import theme_extra

log = logging.getLogger("mkdocs.plugins.corpus")


class CorpusConfig(Config):
    corpus_dir = config_options.Type(str, default="corpus")
    # Where the jieba user dictionary is written (for inspection; it is loaded directly).
    search_dictionary = config_options.Type(str, default=".corpus-build/jieba_user_dict.txt")
    nav = config_options.Type(bool, default=True)
    # Rewrite Material's search index for this corpus (search.py); false keeps Material's own.
    search_tuning = config_options.Type(bool, default=True)
    # Reuse unchanged pages' Markdown, template and search work (buildcache.py); false builds everything.
    build_cache = config_options.Type(bool, default=True)
    cache_dir = config_options.Type(str, default=buildcache.CACHE_DIR)


class CorpusPlugin(BasePlugin[CorpusConfig]):
    # Defining on_startup keeps this object alive across the rebuilds of one `mkdocs serve`,
    # so it remembers the last good corpus. `corpus-build build` never calls it.
    def __init__(self) -> None:
        super().__init__()
        self._serving = False
        self._last_good: Corpus | None = None
        self._errors: list[Problem] = []
        self._docs_watch: serve.DocsWatch | None = None
        self._cache: buildcache.BuildCache | None = None
        self._nav: Any = None
        self._env: Any = None  # the last build's Jinja environment and files (preview.py)
        self._files: Any = None
        self._preview: preview.Preview | None = None
        self._tuned: search.TuneStats | None = None  # set when Material wrote the tuned index itself
        self._navmemo: navmemo.NavMemo | None = None
        self._frozen = False  # gc.freeze() for this build (on_pre_build)
        self._blocks: mirrorblocks.Blocks | None = None  # the mirror text blocks of the last build (mirrorblocks.py)
        self._fulltext_stamp: str | None = None  # what the full-text index of this build is made of (stepoutput.py)
        self._page_digests: fulltext.PageDigests | None = None  # the mirror pages' digests, from _fulltext_key to the index
        self._pages_done = self._pages_total = 0
        self._skip: pageskip.PageSkip | None = None  # unchanged pages linked, not built (pageskip.py)
        self._read_skip: populateskip.PopulateSkip | None = None  # unchanged pages put back, not read (populateskip.py)
        self._relinked: frozenset[str] = frozenset()  # the offline copy's pages whose links relink.py moves
        # The site's build: what it rendered, kept for its offline copy; the copy's build: the site's (twinrender.py).
        self._site_renders: twinrender.SiteRenders | None = None
        self._twin: dict[str, list[str]] | None = None
        self._returned: tuple[str, str] | None = None  # the page on_page_markdown last returned, and its Markdown
        # Each mirror's mark as this build began (render/mirrortext.py), when no `corpus-build build` checks them itself.
        self._marks: dict[str, mirrortext.Mark] | None = None
        self._read: mirrortext.Read | None = None  # each mirror's state as this build's render read it
        self._server: Any = None  # the live server, to ask for another build (mkdocs serve)
        self._build_again = False  # a mirror changed during the first build, before the server existed

    def on_startup(self, *, command, dirty):
        self._serving = command == "serve"

    def on_config(self, config):
        project = Path(config.config_file_path).parent
        corpus_dir = project / self.config.corpus_dir
        self._errors = []
        self._relinked = frozenset()
        if not self._serving:  # plain `mkdocs build` empties site_dir next: never the project, corpus/ or a stranger's folder
            sitedir.put_back(project, Path(config.site_dir))  # a killed build's parked site, back first (a failed build leaves it)
            try:
                sitedir.check(Path(config.site_dir), project=project, docs_dir=Path(config.docs_dir), corpus_dir=corpus_dir, origin="site_dir:", keeps_hidden=True)
            except CorpusBuildError as exc:
                raise PluginError(str(exc)) from None
        if self._docs_watch is not None:
            self._docs_watch.begin()  # render writes into docs/: not a user's change
        try:
            with registry_read(corpus_dir):  # not in the middle of an `add`'s check and put-back
                corpus, problems = registry.load_with_problems(corpus_dir)
            for problem in problems:
                log.info(str(problem))
            # Every mirror as it is before render reads any: checked when the build is done (_mirrors_still).
            self._marks = None if engines.mirrors_guarded() else mirrortext.mirror_marks(corpus)
            # One address for the sitemap, canonical links and the feeds (see hosting.py).
            corpus = hosting.with_site_url(corpus, config.site_url)
            links_as = None
            if config.extra.get(offlinelink.COPY_FLAG):  # site/offline.py's build of the copy inside the zip
                corpus = offlinelink.as_offline_copy(corpus)
                # The site's pages as the site's build wrote them, their links moved here (relink.py).
                found = config.extra.get(offlinelink.SITE_URLS_FLAG)
                links_as = found if isinstance(found, bool) and found and not config.use_directory_urls else None
            if corpus.settings.site_url:
                config.site_url = corpus.settings.site_url
            with mirrortext.states_once() as self._read:  # each mirror's state as this render read it (_mirrors_still)
                result = render.render(corpus, Path(config.docs_dir), directory_urls=config.use_directory_urls, links_as=links_as)
            self._relinked = result.relinked
        except CorpusBuildError as exc:
            if not self._serving:
                raise PluginError(str(exc)) from exc
            # Serving: keep docs/ as last rendered and show the errors on every page, so the
            # live server answers at once instead of holding every request until the fix.
            self._errors = exc.errors if isinstance(exc, RegistryError) else [Problem(str(corpus_dir), 0, 0, str(exc))]
            for problem in self._errors:
                log.error(str(problem))
            corpus = self._last_good or self._first_render(corpus_dir, config, exc)
            if self._docs_watch is not None:
                self._docs_watch.remember()
        else:
            log.info(f"corpus: {len(corpus.sources)} sources; {result}")
            self._last_good = corpus
            if self._docs_watch is not None:
                self._docs_watch.remember()  # our own writes to docs/ trigger no second build
                self._docs_watch.user_changed = False  # this build reads them
        dictionary = project / self.config.search_dictionary
        render.write_search_dictionary(corpus, dictionary)
        if not self.config.build_cache:  # with the cache: when the first page must be segmented (buildcache.py)
            _load_search_dictionary(dictionary)
        if self.config.nav and not config.nav:
            config.nav = render.nav(corpus)
            # Pages linked from index pages, not the nav (per-source pages, tag pages, a collapsed list's pages).
            declared = [p.pattern for p in config.not_in_nav.patterns] if config.not_in_nav else []
            missing = [p for p in render.collapsed_nav(corpus) if p not in declared]
            if missing:
                import pathspec

                config.not_in_nav = pathspec.gitignore.GitIgnoreSpec.from_lines([*declared, *missing])
        # The registry is the source of truth for the corpus's name and interface language.
        # short_title when set (header and tabs); escaped, because Material prints it unescaped,
        # quotes too: it also lands in attributes (the logo's aria-label, our feed links' title).
        config.site_name = sanitize.theme_text(corpus.settings.site_name)
        config.theme["language"] = corpus.settings.ui_lang
        # Material's "Permanent link" on every heading comes from the toc extension: say it in the reader's language.
        words = render.Labels(corpus.settings.ui_lang)
        toc = config.mdx_configs.setdefault("toc", {})
        toc.setdefault("permalink_title", words("permalink"))
        for palette in config.theme.get("palette") or []:  # the light/dark switch's tooltip
            if isinstance(palette, dict) and isinstance(palette.get("toggle"), dict):
                palette["toggle"]["name"] = words("to_light" if palette.get("scheme") == "slate" else "to_dark")
        config.extra["new_sources_feed_title"] = sanitize.theme_text(f"{corpus.settings.title} · {words('new_sources')}")
        config.extra.update(theme_extra(corpus))
        if not config.site_description and corpus.settings.description.strip():
            # Every page's <meta name="description">: mkdocs.yml's words (in the site's language), else the corpus's.
            config.site_description = sanitize.theme_text(" ".join(corpus.settings.description.split()))  # printed unescaped
        _add_theme(config)
        # Our search worker (site/overrides/main.html) goes with the tuned index: `search_tuning:
        # false` gives Material's search whole, worker included (scripts/bench_search.py's stock site).
        config.extra["corpus_search_worker"] = self.config.search_tuning
        self._corpus_dir = corpus_dir
        self._corpus = corpus
        self._project = project
        return config

    # --- the build cache (buildcache.py): small hooks, the work is there -----------------

    def on_pre_build(self, config):
        # What lives through the whole build (the corpus, the config, the theme, and jieba's
        # dictionary when on_config loaded it) is set aside from the garbage collector's full
        # passes, which would walk it again each time: undone when the build ends (a server
        # builds again).
        if not self._frozen:
            gc.freeze()
            self._frozen = True
        dictionary = self._project / self.config.search_dictionary
        if self._cache is not None:
            self._cache.abandon()
        self._cache = None
        if self.config.build_cache:
            self._cache = buildcache.BuildCache(self._project / self.config.cache_dir, config, dictionary, lambda: _load_search_dictionary(dictionary),
                                                 finish_page=slim.html)
        if self._blocks is not None:
            self._blocks.close()
        self._blocks = mirrorblocks.Blocks(sanitize.clean_page, self._cache)
        self._site_renders = self._twin = None
        if self._cache is not None and self._cache.enabled and not self._serving:
            cache_dir = self._project / self.config.cache_dir
            if config.extra.get(offlinelink.COPY_FLAG):  # the offline copy: converts only what the site's pages cannot give
                self._twin = twinrender.load(cache_dir, self._cache.twin_key)
            elif offlinelink.enabled(self._corpus):
                self._site_renders = twinrender.SiteRenders()
            else:
                twinrender.forget(cache_dir)

    def on_nav(self, nav, config, files):
        self._nav = nav
        self._end_read_skip()
        if self._cache is not None and self._cache.enabled and not self._serving and not self._errors and self._blocks is not None:
            record = self._project / self.config.cache_dir / f"pages-read-{_fulltext_stamp_name(config)}.json"
            skip = populateskip.PopulateSkip(self._cache, record, config, self._blocks.holds)
            if skip.install():
                self._read_skip = skip
            else:
                log.info(f"corpus: every page read: {skip.reason}")
        return nav

    def _end_read_skip(self, *, saved: bool = False) -> None:
        skip, self._read_skip = self._read_skip, None
        if skip is None:
            return
        skip.uninstall()
        if saved:
            skip.save()
            log.info(f"corpus: {skip.skipped} page(s) put back as the last build read them, {skip.read} read")

    @event_priority(-100)  # after every other plugin changed the Markdown
    def on_files(self, files, config):
        self._pages_done, self._pages_total = 0, len(files.documentation_pages())  # for the progress line
        return files

    def on_page_markdown(self, markdown, page, config, files):
        entered = markdown
        uri = page.file.src_uri

        def exists(path: str) -> bool:
            return files.get_file_from_path(path) is not None

        if uri in self._relinked:  # the offline copy: the site's page, its raw HTML links moved (relink.py)
            markdown = page.markdown = relink.to_file_urls(markdown, uri, exists)
        if self._blocks is not None and mirrorblocks.OPAQUE_BEGIN in markdown and _generated_and_unsearched(page, markdown):
            # The mirror's text, finished by render, never goes through MkDocs' Markdown step (mirrorblocks.py).
            markdown = page.markdown = self._blocks.take(markdown, uri)
        if self._cache is not None:
            derive = None
            if self._twin is not None:  # the offline copy: the site's conversion of this page, its links moved (twinrender.py)
                plan = twinrender.plan(self._twin, uri, entered, markdown, uri in self._relinked, exists,
                                       self._blocks.keys(uri) if self._blocks is not None else [])
                if plan is not None:
                    derive = functools.partial(self._derive, plan)
            key = self._cache.wrap_render(page, files, derive)
            if self._site_renders is not None and key is not None:
                self._site_renders.add(uri, entered, key)
                self._returned = (uri, markdown)  # checked once the page is rendered (on_page_content)
        return markdown

    def _derive(self, plan: twinrender.Plan, page, config, files) -> list | None:
        record = self._cache.render_record(plan.record_key) if self._cache is not None else None
        if record is None or self._cache is None:
            return None
        return twinrender.derive(plan, record, page, config, files, self._cache.markdown.keeps_links_to_anchors())

    @event_priority(-100)  # after Material's tags plugin filled its listings into the pages
    def on_env(self, env, config, files):
        self._env, self._files = env, files  # for the preview's fast path (preview.py)
        if self._cache is not None:
            self._cache.prepare(config, env, files, self._nav)
            if self._nav is not None:  # the sidebar of pages the nav does not list, drawn once per folder
                with contextlib.suppress(jinja2.TemplateNotFound):
                    self._navmemo = navmemo.NavMemo(env, self._nav)
            self._skip_unchanged(config, env, files)
        self._tuned = None
        plugin = config.plugins.get("material/search") or config.plugins.get("search")
        index = getattr(plugin, "search_index", None)
        if self.config.search_tuning and index is not None and hasattr(index, "generate_search_index"):
            # Material writes the tuned index itself: no untuned file written and read back (search.py).
            index.generate_search_index = functools.partial(self._tuned_index, index, type(index).generate_search_index, config)
        return env

    def _skip_unchanged(self, config, env, files) -> None:
        """Pages as the last build made them are linked from the published site, not built (pageskip.py)."""
        self._end_skip()
        if self._cache is None or not self._cache.enabled or self._serving or self._errors:
            return
        record = self._project / self.config.cache_dir / f"pages-built-{_fulltext_stamp_name(config)}.json"
        skip = pageskip.PageSkip(self._cache, record, config, self._page_collected)
        if skip.install(env, files):
            self._skip = skip
        else:
            log.info(f"corpus: every page built: {skip.reason}")

    def _page_collected(self, page) -> None:
        self._pages_done += 1
        console.progress("building pages", self._pages_done, self._pages_total)

    def _end_skip(self, *, saved: bool = False) -> None:
        skip, self._skip = self._skip, None
        if skip is None:
            return
        skip.uninstall()
        if saved:
            skip.save()
            log.info(f"corpus: {skip.skipped} page(s) linked as the last build made them, {skip.built} built")

    def _tuned_index(self, index, generate, config, prev):
        if prev is not None:  # a dirty reload of `mkdocs serve`: Material merges the last index; tuned from the file after
            return generate(index, prev)
        text, self._tuned = search.tuned_json(index, self._corpus, directory_urls=config.use_directory_urls,
                                              words_memo=self._project / self.config.cache_dir / "script-words.json")
        return text

    def _thaw(self) -> None:
        if self._frozen:
            gc.unfreeze()
            self._frozen = False

    def on_build_error(self, error):
        self._thaw()
        self._end_skip()
        self._end_read_skip()
        if self._blocks is not None:
            self._blocks.cache = None
        if self._cache is not None:
            self._cache.abandon()  # a failed build prunes nothing
            self._cache = None

    def _first_render(self, corpus_dir: Path, config, exc: CorpusBuildError):
        """`mkdocs serve` started on a broken registry: show what can be read, under the errors."""
        corpus, _ = registry.read(corpus_dir)
        try:
            render.render(corpus, Path(config.docs_dir), directory_urls=config.use_directory_urls)
        except (CorpusBuildError, ValueError, KeyError, TypeError) as render_exc:
            raise PluginError(str(exc)) from render_exc
        return corpus

    @event_priority(-50)  # after other plugins have added to the body: clean what is finally published
    def on_page_content(self, html, page, config, files):
        # Every generated page's body through one allow-list (render/sanitize.py): the net under
        # the builders' own escaping of registry and mirror text. The user's own pages in docs/
        # are theirs and keep what they wrote.
        if self._site_renders is not None and self._returned != (page.file.src_uri, page.markdown):
            self._site_renders.drop(page.file.src_uri)  # converted from what a later plugin made of ours (twinrender.py)
        self._returned = None
        if render.GENERATED_MARK.strip() in (page.markdown or ""):
            if self._blocks is not None and page.present_anchor_ids is not None:
                page.present_anchor_ids |= self._blocks.anchors(page.file.src_uri)  # the ids MkDocs' scan of the blocks would have found
            # With the cache: the allow-list's output for this very HTML, when a build made it before.
            return self._cache.cleaned(html, sanitize.clean_page) if self._cache is not None else sanitize.clean_page(html)
        return html

    def on_post_page(self, output, page, config):
        self._page_collected(page)
        if self._cache is None or output is not self._cache.finished:  # the cache's pages come slimmed
            output = slim.html(output)  # the theme's indentation is a third of every page (slim.py)
        if self._blocks is not None:
            if self._read_skip is not None:  # a page put back without reading it: its blocks are still in its file
                try:
                    self._read_skip.take_blocks(page, self._blocks.take)
                except populateskip.PageChanged as exc:
                    raise PluginError(f"corpus: {exc}") from None
            output = self._blocks.put_back(output, page.file.src_uri)  # the mirror text blocks, cleaned (mirrorblocks.py)
        output = page_lang(output, page.meta.get("lang") if page.meta else None)
        return serve.inject(output, serve.banner(self._errors, config.theme["language"])) if self._errors else output

    def on_post_template(self, output_content, template_name, config):
        if self._errors and template_name.endswith(".html"):  # the 404 page the live server answers with
            return serve.inject(output_content, serve.banner(self._errors, config.theme["language"]))
        return output_content

    @event_priority(-100)  # after Material's search plugin has written its index
    def on_post_build(self, config):
        self._end_skip(saved=True)
        self._end_read_skip(saved=True)
        sitedir.mark(Path(config.site_dir))
        if not config.site_url:
            hosting.make_404_portable(Path(config.site_dir))
        index = Path(config.site_dir) / "search" / "search_index.json"
        stats = self._tuned
        if stats is None and self.config.search_tuning and index.is_file():
            stats = search.tune_index_file(index, self._corpus, directory_urls=config.use_directory_urls)
        if stats is not None:
            log.info(f"corpus: search index {stats.docs_before} -> {stats.docs_after} entries, {stats.bytes_after} bytes")
        self._tuned = None
        # The sources' own entries and the term table go into the sharded index too (site/search.py, crossterms.py).
        entries = stats.entries if stats is not None else ()
        search_config = stats.config if stats is not None else None
        if self.config.search_tuning and search_config is not None:
            fulltext.write_search_config(Path(config.site_dir), search_config)
        if self.config.search_tuning and self._files is not None and not self._fulltext_as_last(config, entries, search_config):
            self._index_fulltext(config, self._files, self._corpus, entries)
            self._fulltext_made(config)
        if self._navmemo is not None:
            memo, self._navmemo = self._navmemo, None
            drawn = sum(1 for key in memo.drawn if key[0] == "nav")
            log.info(f"corpus: navigation sidebar drawn {drawn} time(s) for {drawn + memo.reused} unlisted page(s)")
        if self._blocks is not None:
            log.info(f"corpus: {self._blocks.taken} mirror text block(s) kept from the Markdown step, {self._blocks.cleaned} cleaned afresh")
            self._blocks.cache = None  # the preview's pages (serving) clean their few blocks themselves
            if not self._serving:
                self._blocks.close()
                self._blocks = None
        if self._cache is not None:
            if self._site_renders is not None:  # for the offline copy's build, next (twinrender.py)
                self._site_renders.save(self._project / self.config.cache_dir, self._cache.twin_key)
            self._site_renders = self._twin = None
            if self._serving:
                self._cache.keep_cuts()  # for the preview's pages (preview.py)
            self._cache.finish()
            self._cache = None
        if self._serving:
            self._remember_for_preview(config)
        self._thaw()
        self._mirrors_still(config)

    def _mirrors_still(self, config) -> None:
        """The build is done: did a fetch or a watch swap a mirror while it read them?

        Outside `corpus-build build` (which checks the same marks and builds again before it swaps
        the site in: engines._build_from_still_mirrors) MkDocs writes into the site folder as it
        goes, and its build cannot be run again from here: a page may show one capture's record and
        the full-text index another's text. `mkdocs build` (and the offline copy's build) fails with
        what to do; `mkdocs serve` builds again, in full, at once."""
        marks, self._marks = self._marks, None
        read, self._read = self._read, None
        rewritten = mirrortext.moved_mirrors(marks) if marks else []
        if rewritten:  # the render keyed pages made from the older record by the newer files: not to be read back
            reuse.forget_inputs(Path(config.docs_dir))
        moved = mirrortext.recaptured(marks, rewritten, read) if marks else []  # a record only re-checked is shown as read
        if not moved:
            return
        names = mirrortext.moved_names(moved)
        if self._serving:
            log.warning(f"corpus: the mirrors of {len(moved)} source(s) ({names}) changed during the build: building again")
            if self._preview is not None:
                self._preview.built = None  # a full build, not the preview's few pages
            if self._server is not None:
                serve.request_build(self._server)
            else:
                self._build_again = True  # the first build: asked for once the server exists (on_serve)
            return
        raise PluginError(
            f"corpus: the mirrors of {len(moved)} source(s) ({names}) changed while the site was built (a `corpus-build fetch` "
            f"or `watch` running?): pages in {config.site_dir} may not match them (a record read before it was rewritten, or one capture's record beside another's text); build again once it is "
            "done (`corpus-build build` waits for still mirrors and keeps the old site meanwhile)")

    # --- the full-text index, linked when nothing it reads changed (stepoutput.py) ---------

    def _fulltext_key(self, config, entries: Any = (), search_config: Any = None) -> str | None:
        """Everything ftindex.index_site reads: the mirror pages as built, the sources' entries, the corpus's ids,
        glossary and search terms, Material's search config, the code."""
        from importlib import metadata

        from ..core.cachekeys import digest, versions

        try:
            opencc = metadata.version("opencc")
        except metadata.PackageNotFoundError:
            opencc = ""
        ids = {s.id for s in self._corpus.sources}
        pages = []
        # The pages' digests, kept for the index itself (_index_fulltext), and for the next build by
        # the files' inode, mtime and size (fulltext.PageDigests): an unchanged page is not read.
        site_dir = Path(config.site_dir)
        digests = self._page_digests = fulltext.PageDigests(site_dir, self._project / self.config.cache_dir / f"pages-{_fulltext_stamp_name(config)}.json")
        for page in fulltext.site_pages(self._files.documentation_pages(), ids):
            found = digests.of(page.path)
            if found is None:
                return None
            pages.append([page.url, page.title, found])
        digests.save()
        return digest("fulltext", versions(), opencc, sorted(ids), list(self._corpus.settings.glossary), pages,
                      repr(entries), repr(self._corpus.settings.search_terms), repr(search_config))

    def _fulltext_as_last(self, config, entries: Any = (), search_config: Any = None) -> bool:
        self._fulltext_stamp = None
        if self._serving:
            return False
        key = self._fulltext_key(config, entries, search_config)
        if key is None:
            return False
        self._fulltext_stamp = key
        linked = stepoutput.link_last(self._project / self.config.cache_dir, _fulltext_stamp_name(config), key, Path(config.site_dir) / fulltext.FOLDER)
        if linked is None:
            return False
        log.info(f"corpus: full text of the mirror pages as at the last build: its {linked} file(s) linked from the published site")
        return True

    def _index_fulltext(self, config, files, corpus: Corpus, entries: Any) -> None:
        digests, self._page_digests = self._page_digests, None  # (this build's, from _fulltext_key; a preview has none)
        found = ftindex.index_site(Path(config.site_dir), files.documentation_pages(), {s.id for s in corpus.sources},
                                    self._project / self.config.cache_dir,
                                    tuple(corpus.settings.glossary), entries=entries,
                                    search_terms=corpus.settings.search_terms, flavour=_fulltext_stamp_name(config),
                                    digests=digests if digests is not None and digests.root == Path(config.site_dir) else None)
        if found.pages:
            log.info(f"corpus: full text of {found.pages} mirror page(s): {found.passages} passages, {found.terms} terms, "
                     f"{found.bytes} bytes in {found.files} file(s), {found.files_new} new since the last build ({found.analysed} page(s) analysed, {found.reused} as before) "
                     f"in {found.seconds:.2f} s")

    def _preview_fulltext(self, config, files, corpus: Corpus) -> None:
        """The sharded index after the preview's fast path, from the search index it just wrote: the
        edited sources' entries are searchable while serving, as after a full build."""
        if not self.config.search_tuning:
            return
        try:
            data = json.loads((Path(config.site_dir) / "search" / "search_index.json").read_bytes())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict):
            return
        fulltext.write_search_config(Path(config.site_dir), search.config_only(data))
        self._index_fulltext(config, files, corpus, search.entries_of(data.get("docs", [])))

    def _fulltext_made(self, config) -> None:
        cache_dir = self._project / self.config.cache_dir
        if self._fulltext_stamp is None:
            stepoutput.forget(cache_dir, _fulltext_stamp_name(config))
        else:
            stepoutput.remember(cache_dir, _fulltext_stamp_name(config), self._fulltext_stamp, Path(config.site_dir) / fulltext.FOLDER)

    def _remember_for_preview(self, config) -> None:
        if self._preview is None:
            self._preview = preview.Preview(self._corpus_dir, lambda: self._docs_watch, self._shown)
            self._preview.index_fulltext = self._preview_fulltext
        if self._errors or self._env is None or self._files is None or self._nav is None:
            self._preview.built = None  # pages carry the error banner: the next edit gets a full build
            return
        self._preview.remember(config, self._files, self._nav, self._env, self._corpus)

    def _shown(self, corpus: Corpus) -> None:
        self._last_good = self._corpus = corpus

    def on_serve(self, server, config, builder):
        server.watch(str(self._corpus_dir))
        self._server = server
        if self._build_again:  # the first build saw a mirror change under it (_mirrors_still)
            self._build_again = False
            serve.request_build(server)
        # File events, not a scan of every watched file twice a second (serve.py).
        if not serve.use_events(server):
            log.info("corpus: no file events on this system: the live server scans the watched files for changes")
        self._docs_watch = serve.DocsWatch(server, config.docs_dir)
        self._docs_watch.install()
        if self._preview is None:
            self._remember_for_preview(config)
        # An edit of corpus/ rebuilds the pages it changed, not the site (preview.py).
        if self._preview is not None and not self._preview.install(server, builder):
            log.info("corpus: this MkDocs has no fast preview path; every edit is a full build")
        return server


_HTML_LANG = re.compile(r'<html lang="[^"]*"')
_LANG_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")


def _fulltext_stamp_name(config: Any) -> str:
    """One stamp per flavour: the offline copy's build (site/offline.py) must not replace the site's."""
    return "fulltext-offline" if config.extra.get(offlinelink.COPY_FLAG) else "fulltext"


def _generated_and_unsearched(page: Any, markdown: str) -> bool:
    """A generated page that Material's search leaves out (its index is made before the template)."""
    meta = page.meta.get("search") if page.meta else None
    return render.GENERATED_MARK.strip() in markdown and isinstance(meta, dict) and meta.get("exclude") is True


def page_lang(output: str, lang: object) -> str:
    """The page's `<html lang>` from its front matter's `lang` (a Traditional digest: zh-Hant)."""
    if not isinstance(lang, str) or not _LANG_TAG.fullmatch(lang):
        return output
    return _HTML_LANG.sub(f'<html lang="{lang}"', output, count=1)


def _load_search_dictionary(path: Path) -> None:
    """Teach jieba the corpus's terms before Material's search segments the pages.

    Material's search plugin segments Chinese with the process-wide jieba
    tokenizer, so loading the dictionary here works with any plugin order and
    any working directory (search's own `jieba_dict_user` option resolves its
    path against the current directory, which breaks `mkdocs -f elsewhere`).
    """
    try:
        import jieba
    except ImportError:  # search then indexes Chinese without segmentation
        return
    jieba.setLogLevel(logging.WARNING)  # its dictionary-loading chatter, at every build
    if path.stat().st_size:
        jieba.load_userdict(str(path))



def _add_theme(config: Any) -> None:
    """The package's templates and assets, so a project needs no overrides/ or docs/assets/ of its own.

    Our templates go after the project's `custom_dir` (the project's own overrides still win)
    and before Material's; the stylesheet and scripts render writes into docs/assets/ are
    linked unless mkdocs.yml already lists them.
    """
    dirs = config.theme.dirs
    ours = str(engines.OVERRIDES_DIR)
    if ours not in dirs:
        custom = config.theme.custom_dir
        dirs.insert(1 if custom and dirs and Path(dirs[0]) == Path(custom) else 0, ours)
    for path in render.STYLESHEETS:
        if path not in [str(p) for p in config.extra_css]:
            config.extra_css.append(path)
    for path in render.SCRIPTS:
        if path not in [str(p) for p in config.extra_javascript]:
            config.extra_javascript.append(path)

