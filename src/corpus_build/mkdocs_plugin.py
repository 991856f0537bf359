"""The `corpus` MkDocs plugin: regenerate the pages from corpus/ before every build.

This is what makes plain `mkdocs build` and `mkdocs serve` work on the registry:
on_config renders the registry into docs/ (writing only changed files), loads the
corpus's search vocabulary into jieba, and supplies the navigation; on_serve
watches corpus/ so editing a YAML file rebuilds the site.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority

from . import publish, registry, render, search
from .errors import CorpusBuildError

log = logging.getLogger("mkdocs.plugins.corpus")


class CorpusConfig(Config):
    corpus_dir = config_options.Type(str, default="corpus")
    # Where the jieba user dictionary is written (for inspection; it is loaded directly).
    search_dictionary = config_options.Type(str, default=".corpus-build/jieba_user_dict.txt")
    nav = config_options.Type(bool, default=True)
    # Rewrite Material's search index for this corpus (search.py); false keeps Material's own.
    search_tuning = config_options.Type(bool, default=True)


class CorpusPlugin(BasePlugin[CorpusConfig]):
    def on_config(self, config):
        project = Path(config.config_file_path).parent
        corpus_dir = project / self.config.corpus_dir
        try:
            corpus, problems = registry.load_with_problems(corpus_dir)
        except CorpusBuildError as exc:
            raise PluginError(str(exc)) from exc
        for problem in problems:
            log.info(str(problem))
        try:
            # One address for the sitemap, canonical links and the feeds (see publish.py).
            site_url = publish.resolve_site_url(corpus.settings.site_url, config.site_url, os.environ)
        except CorpusBuildError as exc:
            raise PluginError(str(exc)) from exc
        if site_url:
            config.site_url = site_url
            corpus = dataclasses.replace(corpus, settings=dataclasses.replace(corpus.settings, site_url=site_url))
        config.extra["new_sources_feed_title"] = f"{corpus.settings.title} · {render.Labels(corpus.settings.ui_lang)('new_sources')}"
        try:
            result = render.render(corpus, Path(config.docs_dir), directory_urls=config.use_directory_urls)
        except CorpusBuildError as exc:
            raise PluginError(str(exc)) from exc
        log.info(f"corpus: {len(corpus.sources)} sources; {result}")
        dictionary = project / self.config.search_dictionary
        render.write_search_dictionary(corpus, dictionary)
        _load_search_dictionary(dictionary)
        if self.config.nav and not config.nav:
            config.nav = render.nav(corpus)
        # The registry is the source of truth for the corpus's name and interface language.
        config.site_name = corpus.settings.title
        config.theme["language"] = corpus.settings.ui_lang
        self._corpus_dir = corpus_dir
        self._corpus = corpus
        return config

    @event_priority(-100)  # after Material's search plugin has written its index
    def on_post_build(self, config):
        if not config.site_url:
            publish.make_404_portable(Path(config.site_dir))
        index = Path(config.site_dir) / "search" / "search_index.json"
        if self.config.search_tuning and index.is_file():
            stats = search.tune_index_file(index, self._corpus, directory_urls=config.use_directory_urls)
            log.info(f"corpus: search index {stats.docs_before} -> {stats.docs_after} entries, {stats.bytes_before} -> {stats.bytes_after} bytes")

    def on_serve(self, server, config, builder):
        server.watch(str(self._corpus_dir))
        return server


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
