"""The `corpus` MkDocs plugin: regenerate the pages from corpus/ before every build.

This is what makes plain `mkdocs build` and `mkdocs serve` work on the registry:
on_config renders the registry into docs/ (writing only changed files), writes the
jieba dictionary the search plugin loads, and supplies the navigation; on_serve
watches corpus/ so editing a YAML file rebuilds the site. List it before `search`
in mkdocs.yml: the search plugin reads the dictionary in its own on_config.
"""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin

from . import registry, render
from .errors import CorpusBuildError

log = logging.getLogger("mkdocs.plugins.corpus")


class CorpusConfig(Config):
    corpus_dir = config_options.Type(str, default="corpus")
    # Where the jieba user dictionary is written; point search's jieba_dict_user at it.
    search_dictionary = config_options.Type(str, default=".corpus-build/jieba_user_dict.txt")
    nav = config_options.Type(bool, default=True)


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
        result = render.render(corpus, Path(config.docs_dir), directory_urls=config.use_directory_urls)
        log.info(f"corpus: {len(corpus.sources)} sources; {result}")
        render.write_search_dictionary(corpus, project / self.config.search_dictionary)
        _quiet_jieba()
        if self.config.nav and not config.nav:
            config.nav = render.nav(corpus)
        self._corpus_dir = corpus_dir
        return config

    def on_serve(self, server, config, builder):
        server.watch(str(self._corpus_dir))
        return server


def _quiet_jieba() -> None:
    """jieba prints its dictionary-loading chatter on stderr at every build; keep warnings only."""
    try:
        import jieba
    except ImportError:  # search then indexes Chinese without segmentation
        return
    jieba.setLogLevel(logging.WARNING)
