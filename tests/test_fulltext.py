"""Full-text search over mirrors (site/fulltext.py, site/hanfold.py): passages, words, files, folding."""

from __future__ import annotations

import json
import re

import pytest

from corpus_build.cli import main
from corpus_build.site import fulltext
from corpus_build.site.hanfold import Fold, default_fold, trie_pattern
from tests.fulltext_fixture import write_fulltext_project

DOCS = [
    {"id": "tma-notes", "kind": "html", "lang": "en", "title": "TMA notes", "passages": [
        {"heading": "Overview", "text": "The Tensor Memory Accelerator copies tiles asynchronously."},
        {"heading": "Descriptor alignment", "text": "A descriptor must be 64-byte aligned; cuTensorMapEncodeTiled fails otherwise."},
    ]},
    {"id": "ascend-paper", "kind": "pdf", "lang": "zh-Hans", "title": "昇腾论文", "passages": [
        {"text": "第一页介绍 Cube 单元。"}, {"text": "第二页讨论内存搬运与双缓冲。"},
    ]},
    {"id": "tw-pr", "kind": "thread", "pull": True, "lang": "zh-Hant", "title": "共享記憶體不足", "passages": [
        {"author": "alice", "text": "Hopper 上每個 warp 有 32 個執行緒。"},
        {"author": "bob", "text": "共享記憶體不足時，運算元會退回較慢的實作 <script>alert(1)</script>。"},
    ]},
]


def _data(path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text[text.index("(", text.index("cbFulltext.")) + 1 : text.rindex(")")])


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    project = write_fulltext_project(tmp_path_factory.mktemp("ft") / "project", DOCS)
    assert main(["--project", str(project), "build"]) == 0
    return project


def test_words_fold_scripts_case_ligatures_and_plurals():
    fold = default_fold(("昇腾",))
    assert fulltext.terms(fold.text("記憶體與執行緒的運算元")) == fulltext.terms(fold.text("内存与线程的算子"))
    assert fulltext.terms(fold.text("The ﬁrst Kernels")) == ["the", "first", "kernel"]
    assert fulltext.terms("t.copy __syncthreads enable_tma vllm昇腾") == ["t", "copy", "syncthread", "enable_tma", "vllm", "昇腾"]
    # Simplified text keeps its own words: only text with Traditional characters gets the Taiwanese-term step.
    assert fold.text("资料") == "资料" and fold.text("資料") == "数据"


def test_the_phrase_pattern_takes_the_longest_word():
    pattern = re.compile(trie_pattern(["ab", "abc", "ad", "b"]))
    assert [m.group(0) for m in pattern.finditer("abcadab")] == ["abc", "ad", "ab"]
    fold = Fold({}, {"ab": "X", "abc": "Y"})
    assert fold.tables("XY")["pattern"] == trie_pattern(["ab", "abc"])


def test_numbers_survive_the_compact_code():
    numbers = [0, 1, 31, 32, 1023, 1024, 123456, 7]
    assert fulltext.decode(fulltext.encode(numbers)) == numbers
    assert not set(fulltext.encode(numbers)) & set("\"\\'<>")


def test_pages_are_cut_at_their_anchors_and_blocks_stay_short(built):
    site = built / "site" / "sources"
    paper = fulltext.passages((site / "ascend-paper" / "text" / "index.html").read_text(encoding="utf-8"))
    assert [(a, t) for a, t, _x in paper if a] == [("page-1", "第 1 页"), ("page-2", "第 2 页")]
    assert "内存搬运" in dict((a, x) for a, _t, x in paper)["page-2"]
    pr = fulltext.passages((site / "tw-pr" / "text" / "index.html").read_text(encoding="utf-8"))
    events = {a: x for a, _t, x in pr if a.startswith("event-")}
    assert "運算元" in events["event-2"] and "<script>" in events["event-2"]  # text, escaped on the page, plain here
    assert "GitHub" not in events["event-2"]  # the interface note under the timeline is not the thread's
    doc = fulltext.passages((site / "tma-notes" / "text" / "index.html").read_text(encoding="utf-8"))
    assert ("sec-descriptor-alignment", "Descriptor alignment") in [(a, t) for a, t, _x in doc]
    assert all(len(b) <= 2 * fulltext.BLOCK for b in fulltext.blocks("word " * 2000))


def test_the_index_names_files_by_content_and_holds_every_passage(built):
    folder = built / "site" / fulltext.FOLDER
    manifest = _data(folder / "index.js")
    assert manifest["passages"] >= 6 and all((folder / n).is_file() for n in manifest["shards"] + manifest["chunks"] + [manifest["fold"]])
    rows = [row for name in manifest["shards"] for row in _data(folder / name)]
    terms = [r[0] for r in rows]
    assert terms == sorted(terms, key=lambda t: t.encode("utf-16-be"))  # the worker's binary search needs this order
    assert {"descriptor", "内存", "算子", "线程"} <= set(terms)  # 運算元 and 執行緒 are indexed as 算子 and 线程
    passages = [p for name in manifest["chunks"] for p in _data(folder / name)["passages"]]
    assert any(p[1] == "event-2" and "運算元" in p[3] for p in passages)
    lunr = json.loads((built / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not any("/text/" in d["location"] for d in lunr["docs"])  # mirror text is searched here, not by lunr


def test_a_rebuild_names_unchanged_files_as_before(built):
    folder = built / "site" / fulltext.FOLDER
    before = {p.name for p in folder.glob("*.js") if p.name != "index.js"}
    assert main(["--project", str(built), "build"]) == 0
    after = {p.name for p in folder.glob("*.js") if p.name != "index.js"}
    assert after == before  # the same names: a browser's cached files stay valid
    cache = fulltext.PageCache(built / ".corpus-build" / "cache" / "fulltext-pages.marshal", default_fold(("昇腾", "算子")))
    assert len(cache.old) == 3  # each page's analysis kept for the next build
    raw = next((built / "corpus").glob("*/raw/tma-notes/text.md"))
    raw.write_text(raw.read_text(encoding="utf-8") + "\n## Added\n\nA brand new zanzibar section.\n", encoding="utf-8")
    assert main(["--project", str(built), "build"]) == 0
    changed = {p.name for p in folder.glob("*.js")} - set(before) - {"index.js"}
    assert changed and len(changed) < len(before)  # new shard(s) and passage file(s), the rest kept
    assert set(before) - {p.name for p in folder.glob("*.js")}  # and the replaced ones removed
    rows = [row for name in _data(folder / "index.js")["shards"] for row in _data(folder / name)]
    assert "zanzibar" in {r[0] for r in rows}


def test_passage_files_follow_pages():
    # A query loads the files of the passages it shows: a page's passages share a file, small
    # pages share one, and a long page is cut at CHUNK_CHARS.
    def records(*pages):  # (page number, passages, characters each)
        return [[page, f"sec-{i}", "", "x" * size] for page, count, size in pages for i in range(count)]

    limit = fulltext.CHUNK_CHARS
    assert fulltext._chunk_bounds(records((0, 6, 700), (1, 6, 700))) == [(0, 6), (6, 12)]
    assert fulltext._chunk_bounds(records((0, 1, 100), (1, 1, 100), (2, 1, 100))) == [(0, 3)]
    long = fulltext._chunk_bounds(records((0, 30, 600)))
    assert len(long) > 1 and all((end - start) * 600 <= limit for start, end in long)
    assert [s for s, _ in long][1:] == [e for _, e in long][:-1] and long[-1][1] == 30  # every passage once
    assert fulltext._chunk_bounds([]) == []
