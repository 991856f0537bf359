"""The config written for engines that run no plugins (Zensical) carries registry text escaped."""

from __future__ import annotations

import re

import yaml

from corpus_build import registry, site
from tests.corpus_fixture import CORPUS_YAML, write_corpus

HOSTILE_TITLE = "Corpus</title><svg onload=alert(1)> \" x"


def test_the_site_name_for_plugin_less_engines_is_escaped(tmp_path):
    settings = re.sub(r"(?m)^(title|short_title):.*\n", "", CORPUS_YAML)
    corpus = registry.load(write_corpus(tmp_path, {"corpus.yaml": yaml.safe_dump({"title": HOSTILE_TITLE}, allow_unicode=True) + settings}))
    written = yaml.safe_load(site.write_generated_config(tmp_path, corpus).read_text(encoding="utf-8"))
    assert written["site_name"] == "Corpus&lt;/title&gt;&lt;svg onload=alert(1)&gt; &quot; x"
