"""The lunr index built with the site (site/lunrindex.py) is the index Material's worker builds.

Material's own worker, in Chromium, builds its index from a search_index.json; the test
compares it with ours, term by term and vector by vector (positions aside: ours has none).
The published site no longer uses it (issue 38: its search_index.json holds no documents, the
sharded index has them: tests/test_search_bounded.py), and `write` writes nothing for it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpus_build.site import lunrindex
from tests.site_helpers import chromium, playwright_or_skip, serve

pytestmark = [pytest.mark.browser]

MATERIAL = Path(__import__("material").__file__).parent / "templates" / "assets" / "javascripts"
SEPARATOR = r"&[lg]t;|[\s\u200b\-_,:;!?=+@#&|'’\"`/\\\[\](){}<>*~^]+|\.(?!\d)"

# Written by hand to reach each rule: text between tags, a bare ">" in text, entities, the
# trimmer's edges (accents, CJK Extension A, emoji, full-width forms), JavaScript's \s (U+FEFF)
# and \w (ASCII), numbers with dots, a tag list, boosts, a document with a field missing.
HOSTILE = [
    {"location": "", "title": "Home", "text": "<p>Welcome &amp; read <code>cp.async.bulk</code> 2.5 v1.2.3</p>", "boost": 0.1},
    {"location": "a/", "title": "Café «naïve» résumé", "text": "x > y and z<b>bold</b>tail ÉCOLE İstanbul", "tags": ["GPU", "昇腾 硬件"]},
    {"location": "a/#s", "title": "算子 㐀字 🚀rocket", "text": "<ul><li>共享内存\u200b布局</li><li>ＦＵＬＬ－ｗｉｄｔｈ</li></ul>\ufeffbom word", "boost": 0.5},
    {"location": "b/", "title": "__init__.py & <tricky>", "text": "a<br/>b <img src=x/> c &lt;tag&gt; d_e f-g h'i ‘quoted’ «»", "keys": "pr2900 issue12"},
    {"location": "c/", "title": "Σίσυφος ΣΊΣΥΦΟΣ", "text": "", "alt": "運算元 記憶體", "meta": "swh 1 cnt 5875c2e9 · → ↗ 、"},
]
FIELDS = {"title": {"boost": 20.0}, "keys": {"boost": 30.0}, "text": {"boost": 4.0}, "alt": {"boost": 3.0}, "tags": {"boost": 2.0}, "meta": {"boost": 1.0}}

HARNESS = """
importScripts(%s);
var captured = null;
var build = lunr.Builder.prototype.build;
lunr.Builder.prototype.build = function () { captured = build.call(this); return captured; };
var post = self.postMessage;
self.postMessage = function (m) { post.call(self, m && m.type === 1 ? {index: JSON.parse(JSON.stringify(captured))} : m); };
"""
COMPARE_PAGE = """
async () => {
  const data = await (await fetch("search/search_index.json")).json();
  const worker = new Worker("assets/javascripts/workers/harness.js");
  const answer = new Promise(resolve => worker.onmessage = e => resolve(e.data));
  worker.postMessage({type: 0, data: {...data, options: {suggest: false}}});
  return (await answer).index;
}
"""


def _material_site(root: Path, data: dict) -> Path:
    """A folder with Material's worker and lunr files and a search index: all the worker needs."""
    shutil.copytree(MATERIAL / "workers", root / "assets" / "javascripts" / "workers")
    shutil.copytree(MATERIAL / "lunr", root / "assets" / "javascripts" / "lunr")
    worker = next(p.name for p in (root / "assets" / "javascripts" / "workers").glob("search.*.min.js"))
    (root / "assets" / "javascripts" / "workers" / "harness.js").write_text(HARNESS % json.dumps(worker), encoding="utf-8")
    (root / "search").mkdir()
    (root / "search" / "search_index.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (root / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
    return root


def _materials_index(browser, site: Path) -> dict:
    with serve(site) as url:
        page = browser.new_page()
        page.goto(url)
        index = page.evaluate(COMPARE_PAGE)
        page.close()
    return index


def _assert_same(material: dict, ours: dict) -> None:
    assert ours["fields"] == material["fields"]
    assert [ref for ref, _ in ours["fieldVectors"]] == [ref for ref, _ in material["fieldVectors"]]
    for (ref, mine), (_, theirs) in zip(ours["fieldVectors"], material["fieldVectors"], strict=True):
        assert mine[0::2] == theirs[0::2], ref  # the same terms, numbered alike
        # Scores to lunr's three places; a last-bit difference of the two logarithms may move one by 0.001.
        assert all(abs(a - b) < 0.0011 for a, b in zip(mine[1::2], theirs[1::2], strict=True)), (ref, mine, theirs)
    assert [t for t, _ in ours["invertedIndex"]] == [t for t, _ in material["invertedIndex"]]
    for (term, mine), (_, theirs) in zip(ours["invertedIndex"], material["invertedIndex"], strict=True):
        assert mine["_index"] == theirs["_index"], term
        for field in material["fields"]:
            assert set(mine[field]) == set(theirs[field]), (term, field)


@pytest.fixture(scope="module")
def browser():
    sync_api = playwright_or_skip()
    with chromium(sync_api) as b:
        yield b


def test_hand_made_documents_index_as_materials_worker_indexes_them(tmp_path, browser):
    data = {"config": {"lang": ["zh", "en"], "separator": SEPARATOR, "pipeline": [], "fields": FIELDS}, "docs": HOSTILE}
    material = _materials_index(browser, _material_site(tmp_path / "site", data))
    ours = lunrindex.expand(lunrindex.build(json.loads(json.dumps(data))), HOSTILE)
    _assert_same(material, ours)
    terms = {t for t, _ in ours["invertedIndex"]}
    assert {"naïve", "cp", "async", "bulk", "2.5", "v1.2.3", "共享内存", "布局", "bom"} <= terms
    assert "x" not in terms and "y" in terms  # Material's extract takes "x >" for a tag: both do
    # The trimmer's word characters are ASCII and 一-龥: a letter beyond them goes at a word's edge
    # (café is indexed as caf, a Greek word as nothing), in Material's index and in ours.
    assert "caf" in terms and "" in terms and "café" not in terms


def test_one_language_keeps_no_trimmer(tmp_path, browser):
    data = {"config": {"lang": ["en"], "separator": r"[\s\-]+", "pipeline": [], "fields": {"title": {"boost": 1000}, "text": {}}},
            "docs": [{"location": "", "title": "«Quoted» (words)", "text": "<p>end. «x» café…</p>"}]}
    material = _materials_index(browser, _material_site(tmp_path / "site", data))
    _assert_same(material, lunrindex.expand(lunrindex.build(data), data["docs"]))


def test_unsupported_configurations_get_no_prebuilt_index(tmp_path):
    folder = tmp_path / "search"
    folder.mkdir()
    (folder / "lunr_index.0123456789abcdef.js").write_text("self.cbLunrIndex={};", encoding="utf-8")
    index = folder / "search_index.json"
    for config in ({"lang": ["ja"], "pipeline": [], "fields": FIELDS, lunrindex.KEY: "lunr_index.0123456789abcdef.js"},
                   {"lang": ["en"], "pipeline": ["stemmer"], "fields": FIELDS}):
        index.write_text(json.dumps({"config": config, "docs": HOSTILE}), encoding="utf-8")
        assert lunrindex.write(tmp_path) == 0
        assert lunrindex.KEY not in json.loads(index.read_text(encoding="utf-8"))["config"]
        assert not list(folder.glob("lunr_index.*"))  # an older build's index goes with it
    index.write_text(json.dumps({"config": {"lang": ["zh", "en"], "pipeline": [], "fields": FIELDS}, "docs": HOSTILE + HOSTILE[:1]}), encoding="utf-8")
    assert lunrindex.write(tmp_path) == 0  # two documents at one address: lunr would keep one of them
