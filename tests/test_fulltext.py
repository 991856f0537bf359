"""Full-text search over mirrors (site/fulltext.py, site/hanfold.py): passages, words, files, folding."""

from __future__ import annotations

import json
import marshal
import re

import pytest

from corpus_build.cli import main
from corpus_build.site import ftindex, fulltext
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


def test_phrases_are_replaced_where_the_pattern_replaces_them():
    # The index folds with a lookup (Fold._replace_phrases), the worker with the pattern: they agree,
    # on the real table and on a small one whose words overlap.
    import random

    rng = random.Random(5)
    for fold in (default_fold(("昇腾",)), Fold({}, {"ab": "X", "abc": "Y", "bcd": "Z", "b": "W", "cdab": "V"})):
        words = sorted(fold.phrases)
        pieces = [*words, *(w[: len(w) // 2 + 1] for w in words), "a", "c", "d", "的", " "]
        for _ in range(300):
            text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
            assert fold._replace_phrases(text) == fold._phrase_re.sub(lambda m, f=fold: f.phrases[m.group(0)], text), text


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
    passages = [row for name in manifest["chunks"] for run in _data(folder / name)["pages"] for row in run[3]]
    assert any(p[0] == "event-2" and "運算元" in p[2] for p in passages)
    lunr = json.loads((built / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not any("/text/" in d["location"] for d in lunr["docs"])  # mirror text is searched here, not by lunr


def test_a_rebuild_names_unchanged_files_as_before(built):
    folder = built / "site" / fulltext.FOLDER
    before = {p.name for p in folder.glob("*.js") if p.name != "index.js"}
    assert main(["--project", str(built), "build"]) == 0
    after = {p.name for p in folder.glob("*.js") if p.name != "index.js"}
    assert after == before  # the same names: a browser's cached files stay valid
    state = marshal.loads((built / ".corpus-build" / "cache" / "fulltext-store" / "state").read_bytes())
    assert len([name for name in state["runs"] if name.startswith("p:")]) == 3  # each page's analysis kept for the next build
    assert len([name for name in state["runs"] if name.startswith("e:")]) >= 3  # and each entry address's (a source's title, note...)
    assert len(list((built / ".corpus-build" / "cache" / "fulltext-store" / "a").iterdir())) == len(state["runs"])
    raw = next((built / "corpus").glob("*/raw/tma-notes/text.md"))
    raw.write_text(raw.read_text(encoding="utf-8") + "\n## Added\n\nA brand new zanzibar section.\n", encoding="utf-8")
    old_cache = built / ".corpus-build" / "cache" / "fulltext-pages.marshal"  # what builds before the store kept: removed
    old_cache.write_bytes(b"\0" * 1000)
    assert main(["--project", str(built), "build"]) == 0
    assert not old_cache.exists()
    changed = {p.name for p in folder.glob("*.js")} - set(before) - {"index.js"}
    assert changed and len(changed) < len(before)  # new shard(s) and passage file(s), the rest kept
    assert set(before) - {p.name for p in folder.glob("*.js")}  # and the replaced ones removed
    rows = [row for name in _data(folder / "index.js")["shards"] for row in _data(folder / name)]
    assert "zanzibar" in {r[0] for r in rows}


def test_passage_files_follow_pages():
    # A query loads the files of the passages it shows: a page's passages share a file, small
    # pages share one, and a long page is cut at CHUNK_CHARS.
    def runs(*pages):  # (passages, characters each) per page, numbered with a gap between pages
        out, first = [], 0
        for n, (count, size) in enumerate(pages):
            out.append((first, fulltext.Page(f"/p{n}/", "", None), [[f"sec-{i}", "", "x" * size] for i in range(count)]))
            first += count + 3
        return out

    limit = fulltext.CHUNK_CHARS
    big = fulltext._chunk_groups(runs((6, 700), (6, 700)))
    assert [[(first, len(rows)) for first, _page, rows in group] for group in big] == [[(0, 6)], [(9, 6)]]
    small = fulltext._chunk_groups(runs(*[(1, 100)] * 40))
    assert sum(len(g) for g in small) == 40 and 40 / 8 < len(small) < 40 / 2  # SMALL_GROUP pages a file, about
    assert all(sum(len(r[2]) for _f, _p, rows in g for r in rows) <= limit for g in small)
    long = fulltext._chunk_groups(runs((30, 600)))
    assert len(long) > 1 and all(sum(len(r[2]) for r in g[0][2]) <= limit for g in long)
    assert sum(len(g[0][2]) for g in long) == 30  # every passage once
    assert [g[0][0] for g in long] == sorted(g[0][0] for g in long)
    assert fulltext._chunk_groups([]) == []


def _mirror_page(path, n, words, extra=""):
    sections = "".join(f'<h2 id="sec-{k}">Part {k}</h2><p>{" ".join(words[(n * 7 + k * 13 + j) % len(words)] for j in range(60))}</p>'
                       for k in range(3))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'<article class="md-content__inner md-typeset"><div class="cb-extracted">{sections}{extra}</div></article>', encoding="utf-8")


def test_an_edit_rewrites_the_files_of_the_passages_it_touched(tmp_path):
    # Passage numbers, passage files and shard cuts do not depend on the pages before them:
    # editing one page rewrites its passage file and the shards of the words that changed.
    site, cache = tmp_path / "site", tmp_path / "cache"
    words = [f"w{i}" for i in range(3000)] + [f"词{chr(0x4e00 + i)}" for i in range(400)]
    fold = default_fold(())
    pages = [fulltext.Page(f"/sources/s{n}/text/", f"S{n}", site / f"s{n}" / "index.html") for n in range(300)]
    for n, page in enumerate(pages):
        _mirror_page(page.path, n, words)
    ftindex.build(site, pages, fold, cache)
    folder = site / fulltext.FOLDER
    before = {p.name for p in folder.glob("*.js")}
    manifest = _data(folder / "index.js")
    assert len(manifest["shards"]) > 10 and len(manifest["chunks"]) > 10

    _mirror_page(pages[150].path, 150, words, "<p>zanzibar quokka w5</p>")  # a new paragraph in the last section
    stats = ftindex.build(site, pages, fold, cache)
    new = {p.name for p in folder.glob("*.js")} - before - {"index.js"}
    changed_chunks = [n for n in new if n.startswith("p-")]
    changed_shards = [n for n in new if n.startswith("t-")]
    assert len(changed_chunks) == 1 and "zanzibar" in (folder / changed_chunks[0]).read_text(encoding="utf-8")
    # At most the shards of the words of the passage that changed (the edited page's last).
    touched = set(fulltext.terms("part 2 zanzibar quokka w5 " + " ".join(words[(150 * 7 + 2 * 13 + j) % len(words)] for j in range(60))))
    manifest = _data(folder / "index.js")
    holding = {manifest["shards"][_shard_of(manifest["firsts"], t)] for t in touched}
    assert changed_shards and set(changed_shards) <= holding and len(holding) <= len(manifest["shards"]) / 2
    assert set(manifest["shards"]) - holding <= before  # every other shard kept, by name
    assert stats.files_new == len(new) + 1 and stats.reused == len(pages) - 1
    # The same index, by its meaning, as a build from nothing gives.
    fresh = tmp_path / "fresh"
    ftindex.build(fresh, pages, fold, None)
    assert _postings_by_text(fresh / fulltext.FOLDER) == _postings_by_text(folder)


def test_a_page_that_outgrows_its_numbers_moves_and_removed_pages_leave(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    words = [f"v{i}" for i in range(500)]
    fold = default_fold(())
    pages = [fulltext.Page(f"/sources/s{n}/text/", f"S{n}", site / f"s{n}" / "index.html") for n in range(20)]
    for n, page in enumerate(pages):
        _mirror_page(page.path, n, words)
    ftindex.build(site, pages, fold, cache)
    layout = cache / "fulltext-layout.json"
    slots = json.loads(layout.read_text(encoding="utf-8"))["slots"]
    _mirror_page(pages[3].path, 3, words, "".join(f'<h2 id="sec-x{k}">More {k}</h2><p>extra words {k}</p>' for k in range(12)))
    kept = pages[:10] + pages[11:]
    ftindex.build(site, kept, fold, cache)
    moved = json.loads(layout.read_text(encoding="utf-8"))["slots"]
    assert moved[pages[3].url][0] >= max(a + b for a, b in slots.values())  # to the end, with room to grow
    assert all(moved[p.url] == slots[p.url] for p in kept if p is not pages[3])
    assert pages[10].url not in moved
    # A layout whose ranges overlap (not one a build wrote) is not used: numbers afresh.
    layout.write_text(json.dumps({**json.loads(layout.read_text(encoding="utf-8")), "slots": {pages[0].url: [0, 9], pages[1].url: [5, 9]}}))
    assert fulltext.Layout(layout).slots == {}
    ftindex.build(tmp_path / "fresh", kept, fold, None)
    assert _postings_by_text(site / fulltext.FOLDER) == _postings_by_text(tmp_path / "fresh" / fulltext.FOLDER)


def _shard_of(firsts, term):
    key = term.encode("utf-16-be")
    return max([i for i, first in enumerate(firsts) if first.encode("utf-16-be") <= key] or [0])


def _postings_by_text(folder):
    """term -> sorted (page, anchor, text) of its passages: the index's meaning, whatever the numbers."""
    manifest = _data(folder / "index.js")
    where = {}
    for name in manifest["chunks"]:
        for url, _title, first, rows in _data(folder / name)["pages"]:
            for i, row in enumerate(rows):
                where[first + i] = (url, row[0], row[2])
    out = {}
    for name in manifest["shards"]:
        for term, df, code in _data(folder / name):
            pids, pid = [], 0
            for delta in fulltext.decode(code)[::2]:
                pid += delta
                pids.append(pid)
            assert df == len(pids)
            out[term] = sorted(where[p] for p in pids)
    return out


def test_the_folding_table_is_made_once_per_user_not_once_per_project(tmp_path, monkeypatch):
    """A new project's first build reads the folding table from the user's cache
    ($XDG_CACHE_HOME/corpus-build) instead of spending two seconds making it again."""
    from corpus_build.site import hanfold

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    made = []
    real = hanfold.default_fold

    def counting(glossary=()):
        made.append(glossary)
        return real(glossary)

    monkeypatch.setattr(hanfold, "default_fold", counting)
    first = hanfold.cached_fold(tmp_path / "p1" / "cache", ("记忆体",))
    second = hanfold.cached_fold(tmp_path / "p2" / "cache", ("记忆体",))
    assert made == [("记忆体",)]  # the second project made none
    assert (first.chars, first.phrases) == (second.chars, second.phrases)
    assert list((tmp_path / "p2" / "cache").glob("hanfold-*.json")) and list((tmp_path / "xdg" / "corpus-build").glob("hanfold-*.json"))
    hanfold.cached_fold(tmp_path / "p3" / "cache", ("另一个",))  # another glossary: made, and the first table kept for others
    assert len(made) == 2 and len(list((tmp_path / "xdg" / "corpus-build").glob("hanfold-*.json"))) == 2
