"""Cross-language search (issue 37): the field's terms in Chinese and English (site/crossterms.py),
extended by corpus.yaml's `search_terms`, folded as the index folds text, shipped in the manifest;
a Chinese query finds English-annotated sources and the reverse."""

from __future__ import annotations

import json

import pytest

from corpus_build.site import crossterms, fulltext
from corpus_build.site.hanfold import default_fold
from tests.corpus_fixture import CORPUS_YAML, write_corpus


def test_spellings_fold_and_groups_that_share_one_merge():
    table = crossterms.table([("記憶體", "DRAM"), ("稀疏注意力", "Sparse-Attention", "稀疏注意力机制")], default_fold(("算子",)))
    memory = next(group for group in table if "memory" in group)
    assert "内存" in memory and "dram" in memory  # 記憶體 folds to 内存 (Taiwanese term), joining the built-in group
    sparse = next(group for group in table if "sparse attention" in group)
    assert "稀疏注意力机制" in sparse and sparse.count("sparse attention") == 1  # hyphens and case as the index reads them
    kernel = next(group for group in table if "kernel" in group)
    assert {"算子", "operator"} <= set(kernel)  # 運算元 folds to 算子 itself: one spelling


def test_the_corpus_adds_terms_in_corpus_yaml(tmp_path):
    from corpus_build.registry import reader

    write_corpus(tmp_path, {"corpus.yaml": CORPUS_YAML + "search_terms:\n  - [独角兽, unicorn kernel]\n"})
    corpus, problems = reader.read(tmp_path / "corpus")
    assert not [p for p in problems if p.severity == "error"], problems
    assert corpus.settings.search_terms == (("独角兽", "unicorn kernel"),)


def test_the_manifest_ships_the_table_with_the_corpus_terms(tmp_path):
    fulltext.build(tmp_path, [], default_fold(), search_terms=[("独角兽", "unicorn kernel")])
    text = (tmp_path / fulltext.FOLDER / "index.js").read_text(encoding="utf-8")
    manifest = json.loads(text[text.index("(") + 1: text.rindex(")")])
    assert ["独角兽", "unicorn kernel"] in manifest["terms"]
    assert any("稀疏注意力" in group and "sparse attention" in group for group in manifest["terms"])


# Issue 37's four misses (written from the registry by someone who had not read the search code).
CROSS = [
    ("原生稀疏注意力", {"sources/paper-nsa/"}),
    ("低精度 量化 计算", {"sources/paper-ladder/", "sources/bitblas/"}),
    ("昇騰算子開發", {"sources/ascend-c/", "sources/ascend-operator-dev-overview/"}),
    ("hopper microbenchmark", {"sources/paper-dissecting-hopper/"}),
]


@pytest.mark.browser
@pytest.mark.slow
def test_a_query_in_one_language_finds_sources_annotated_in_the_other(default_site):
    from playwright import sync_api

    from tests.site_helpers import chromium, playwright_or_skip, serve

    playwright_or_skip()
    site, _ = default_site
    ask = """async (queries) => {
      document.querySelector('input.md-search__input').focus();  // search opens: the worker may start
      const index = await (await fetch('search/search_index.json')).json();
      const w = new Worker(JSON.parse(document.getElementById('__config').textContent).search);
      const send = m => new Promise(resolve => { w.onmessage = e => resolve(e.data); w.postMessage(m); });
      await send({type: 0, data: index});
      const out = {};
      for (const q of queries) out[q] = (await send({type: 2, data: q})).data.items.map(g => g[0].location);
      w.terminate();
      return out;
    }"""
    with serve(site) as base, chromium(sync_api) as browser:
        page = browser.new_page()
        page.goto(base + "404.html")
        found = page.evaluate(ask, [q for q, _ in CROSS])
        page.close()
    misses = {q: found[q][:3] for q, expected in CROSS if not expected & set(found[q][:3])}
    assert misses == {}, misses
