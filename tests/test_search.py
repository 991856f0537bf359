"""Search that finds what a reader types: the tuned index (search.py) unit by unit, then the
default corpus's built site in headless Chromium with a table of real queries."""

from __future__ import annotations

import json
import re
import sys
from urllib.parse import urlsplit

import pytest

from corpus_build.core.model import Corpus, Section, Settings, Source
from corpus_build.render.places import paths
from corpus_build.site import search
from tests.site_helpers import CHROMIUM, playwright_or_skip

SEPARATOR = "&[lg]t;|[\\s\\u200b\\-_,:;!?=+@#&|'’\"`/\\\\\\[\\](){}<>*~^]+|\\.(?!\\d)"

# (query, the page that must be among the first `within` results (result groups, as shown), within).
QUERIES: list[tuple[str, str, int]] = [
    ("TileLang", "sources/tilelang/", 1),  # its repository's name
    ("DeepGEMM", "sources/deepgemm/", 1),
    ("deepgemm ascend", "sources/deepgemm-ascend/", 1),  # the whole title, DeepGEMM-Ascend
    ("FlashAttention-3", "sources/paper-flashattention-3/", 3),
    ("layout inference", "sources/paper-tilelang/", 3),
    ("Hopper tuning", "sources/hopper-tuning-guide/", 3),
    ("sparse attention", "sources/paper-nsa/", 3),
    ("paged attention", "sources/vllm/", 1),  # vLLM's annotation says PagedAttention
    ("PR 2900", "sources/tilelang-pr-2900/", 1),
    ("#2900", "sources/tilelang-pr-2900/", 1),
    ("tilelang#2900", "sources/tilelang-pr-2900/", 1),
    ("flashatention", "sources/paper-flashattention-2/", 3),  # a typo: one letter missing
    ("hoper tuning", "sources/hopper-tuning-guide/", 1),
    ("sparse atention", "sources/paper-nsa/", 1),
    ("昇腾 DeepGEMM", "sources/deepgemm-ascend/", 3),
    ("昇騰 DeepGEMM", "sources/deepgemm-ascend/", 3),
    ("vLLM 昇腾", "sources/vllm-ascend/", 3),
    ("毕昇编译器", "sources/bisheng-compiler-guide/", 3),
    ("畢昇編譯器", "sources/bisheng-compiler-guide/", 3),
    ("稀疏注意力算子", "sources/flashmla-ascend-prefill-deep-dive/", 3),
    ("專家並行", "sources/deepep-ascend/", 3),
    ("组织日报", "digests/2026-10-22/", 3),  # the digest is written in Traditional (組織日報)
    ("摩尔线程", "digests/2026-10-22/", 3),  # …and says 摩爾執行緒
    ("算子", "digests/2026-10-22/", 10),  # …and 運算元: on the first screen of results
]
# A typo one or two edits away finds first what the word finds first: (typo, word).
TYPOS: list[tuple[str, str]] = [
    ("flashatention", "flashattention"),  # a letter left out
    ("tilelnag", "tilelang"),  # two letters swapped
    ("deepgemn", "deepgemm"),  # a wrong letter
    ("cutlasss", "cutlass"),  # one too many
]

# --- the index transformation, on a hand-made index -------------------------------------


def _corpus(tmp_path, *sources: Source) -> Corpus:
    return Corpus(root=tmp_path, settings=Settings(title="T"), sections=(Section(folder="01-a", number=1, title="A", sources=sources),))


def _source(**fields) -> Source:
    base = {"id": "x", "title": "X", "url": "https://example.org/", "kind": "docs", "lang": "zh", "note": "", "section": "01-a"}
    return Source(**{**base, **fields})


def _index(*docs: dict) -> dict:
    return {"config": {"lang": ["zh", "en"], "separator": SEPARATOR, "pipeline": [], "fields": {}}, "docs": list(docs)}


def test_a_source_page_is_one_result_showing_its_annotation(tmp_path):
    source = _source(id="deepgemm", title="DeepGEMM", url="https://github.com/deepseek-ai/DeepGEMM", kind="repo", tags=("gemm",))
    index = _index(
        {"location": "sources/deepgemm/", "title": "DeepGEMM", "text": "编号 deepgemm 类型 代码仓库", "tags": ["gemm"]},
        {"location": "sources/deepgemm/#注释", "title": "注释", "text": "<p>DeepGEMM-Ascend 的对照物。</p>", "tags": ["gemm"]},
        {"location": "sources/deepgemm/#另见", "title": "另见", "text": "<ul><li>DeepGEMM-Ascend</li></ul>", "tags": ["gemm"]},
        {"location": "sources/deepgemm/#镜像", "title": "镜像", "text": "<p>尚未镜像</p>", "tags": ["gemm"]},
        {"location": "sections/01-a/", "title": "A", "text": "intro"},
        {"location": "sections/01-a/#deepgemm", "title": "DeepGEMM", "text": "<p>DeepGEMM-Ascend 的对照物。</p>"},
    )
    tuned, _ = search.tune(index, _corpus(tmp_path, source))
    locations = [d["location"] for d in tuned["docs"]]
    assert locations == ["sources/deepgemm/", "sections/01-a/"]
    page = tuned["docs"][0]
    assert page["text"] == "<p>DeepGEMM-Ascend 的对照物。</p>"
    meta = page["meta"].split()
    assert {"编号", "类型", "代码仓库", "尚未镜像", "另见"} <= set(meta)
    assert "deepgemm" not in [w.lower() for w in meta]  # already in the title: not counted twice
    assert page["keys"].split() == ["deepgemm"]  # a one-word repository name is a key
    assert page["tags"] == ["gemm"]
    assert list(tuned["config"]["fields"]) == list(search.FIELD_BOOSTS)
    boosts = tuned["config"]["fields"]
    assert boosts["title"]["boost"] > boosts["text"]["boost"] > boosts["tags"]["boost"] > boosts["meta"]["boost"]


def test_words_most_sources_share_leave_their_metadata(tmp_path):
    # A template's labels are in every source's metadata: they weigh nothing (idf) yet made every
    # source match and cost the browser time per source. What sets a source apart stays.
    n = search.COMMON_META_MIN_SOURCES
    sources = [_source(id=f"s{i}", title=f"Source {i}", url=f"https://example.org/{i}") for i in range(n)]
    index = _index(*[
        {"location": f"sources/s{i}/", "title": f"Source {i}",
         "text": f"编号 s{i} 类型 文档 作者 {'octo' if i < n // 4 else 'hubot'} 镜像 尚未镜像 swh{i}"}
        for i in range(n)
    ])
    tuned, _ = search.tune(index, _corpus(tmp_path, *sources))
    metas = [set(d["meta"].split()) for d in tuned["docs"]]
    assert not any({"编号", "类型", "作者", "镜像", "hubot"} & m for m in metas)  # in more than half of them
    assert {"octo", "swh0"} <= metas[0] and "swh7" in metas[7]  # a quarter's author, one source's own word
    few, _ = search.tune(_index(*index["docs"][:3]), _corpus(tmp_path, *sources[:3]))
    assert "编号" in few["docs"][0]["meta"].split()  # three sources: no template to tell apart yet


def test_annotation_heading_found_in_english_and_note_used_when_missing(tmp_path):
    a = _source(id="a", title="A", note="The *first* note.")
    b = _source(id="b", title="B", note="Second note.")
    index = _index(
        {"location": "sources/a/", "title": "A", "text": "meta"},
        {"location": "sources/a/#annotation", "title": "Annotation", "text": "<p>The <em>first</em> note.</p>"},
        {"location": "sources/b/", "title": "B", "text": "meta of b"},
    )
    tuned, _ = search.tune(index, _corpus(tmp_path, a, b))
    by = {d["location"]: d for d in tuned["docs"]}
    assert by["sources/a/"]["text"] == "<p>The <em>first</em> note.</p>"
    assert by["sources/b/"]["text"] == "<p>Second note.</p>"  # a template without the heading


def test_github_threads_get_their_number_and_repo_siblings_do_not_tie(tmp_path):
    pr = _source(id="tilelang-pr-2900", title="[Docs] Backends", url="https://github.com/tile-ai/tilelang/pull/2900", kind="pull")
    issue = _source(id="t-i-7", title="Issue", url="https://github.com/tile-ai/tilelang/issues/7", kind="issue")
    sibling = _source(id="tilelang-puzzles", title="TileLang Puzzles", url="https://github.com/tile-ai/tilelang-puzzles", kind="repo")
    index = _index(*({"location": f"sources/{s.id}/", "title": s.title, "text": ""} for s in (pr, issue, sibling)))
    tuned, _ = search.tune(index, _corpus(tmp_path, pr, issue, sibling))
    by = {d["location"]: d for d in tuned["docs"]}
    assert by["sources/tilelang-pr-2900/"]["keys"].split() == ["pr2900"]
    assert "2900" in by["sources/tilelang-pr-2900/"]["alt"].split()
    assert by["sources/t-i-7/"]["keys"].split() == ["issue7"]
    assert "keys" not in by["sources/tilelang-puzzles/"]  # two words: its parts are alternatives only
    assert {"tilelang", "puzzles"} <= set(by["sources/tilelang-puzzles/"]["alt"].split())


def test_simplified_and_traditional_fold_both_ways(tmp_path):
    pytest.importorskip("opencc")
    simplified = _source(id="s", title="昇腾算子", note="")
    index = _index(
        {"location": "sources/s/", "title": "昇腾\u200b算子", "text": ""},
        {"location": "digests/d/", "title": "日報", "text": "<p>昇騰\u200b運算元\u200b遷移</p>"},
    )
    tuned, _ = search.tune(index, _corpus(tmp_path, simplified))
    by = {d["location"]: d for d in tuned["docs"]}
    digest_alt = set(by["digests/d/"]["alt"].split())
    assert {"昇腾", "算子"} <= digest_alt  # 昇騰 → 昇腾; 運算元 (s2twp of 算子) → 算子
    source_keys = set(by["sources/s/"]["keys"].split())
    assert {"昇騰", "運算元"} <= source_keys  # title words in the other script are keys
    assert "昇腾" not in by["sources/s/"].get("alt", "").split()  # not repeated in its own script
    assert by["digests/d/"]["text"] == "<p>昇騰\u200b運算元\u200b遷移</p>"  # shown as written


def test_tune_index_file_rewrites_in_place_and_reports(tmp_path):
    index = _index({"location": "sources/x/", "title": "X", "text": "m"}, {"location": "sources/x/#注释", "title": "注释", "text": "n"})
    path = tmp_path / "search_index.json"
    path.write_text(json.dumps(index), encoding="utf-8")
    stats = search.tune_index_file(path, _corpus(tmp_path, _source()))
    assert (stats.docs_before, stats.docs_after) == (2, 1)
    assert json.loads(path.read_text(encoding="utf-8"))["docs"][0]["text"] == "n"
    # The documents go to the sharded index (fulltext.py) as entries; the pages read Material's config alone.
    assert [(e.url, e.title, e.text) for e in stats.entries] == [("sources/x/", "X", "n")]
    assert stats.config is not None and stats.config["docs"] == [] and stats.config["config"][search.ENTRIES_KEY] == 1


# --- the built default site in Chromium -----------------------------------------------------


@pytest.fixture(scope="module")
def browser():
    sync_api = playwright_or_skip()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        yield browser
        browser.close()


def _results(page, base: str, query: str, *, wait: bool = True) -> list[dict]:
    """The result groups Material shows for `query`: first link (page path) and its text.

    wait=False: wait for Material's answer, which may be that nothing was found (its count line says so).
    """
    page.goto(base)
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(query)
    box.press("End")  # Material searches on keyup; fill() sends none
    if wait:
        page.wait_for_selector("li.md-search-result__item", timeout=15_000)
    else:
        none = "没有找到符合条件的结果"  # Material's zh search.result.none
        page.wait_for_function(
            "none => document.querySelector('li.md-search-result__item') || document.querySelector('.md-search-result__meta').textContent.includes(none)",
            arg=none, timeout=15_000,
        )
    # Material draws the results over a few frames: read them once their number stops changing.
    items = page.locator("ol.md-search-result__list > li.md-search-result__item")
    counts = [-1, items.count()]
    while counts[-1] != counts[-2]:
        page.wait_for_timeout(150)
        counts.append(items.count())
    groups = []
    for item in items.all()[:10]:
        link = item.locator("a.md-search-result__link").first
        href = urlsplit(link.get_attribute("href") or "")
        path = href.path.removeprefix(urlsplit(base).path)
        groups.append({"page": path + ("#" + href.fragment if href.fragment else ""), "text": link.inner_text()})
    return groups


@pytest.mark.browser
@pytest.mark.slow
def test_search_table_in_chromium(browser, default_site):
    from tests.site_helpers import serve

    site, _ = default_site
    rows, failures = [], []
    with serve(site) as base:
        page = browser.new_page()
        errors: list[str] = []
        foreign: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: r.url.startswith(base) or foreign.append(r.url))
        for query, expected, within in QUERIES:
            groups = _results(page, base, query, wait=False)
            pages = [g["page"] for g in groups]
            rank = pages.index(expected) + 1 if expected in pages else None
            rows.append(f"{query!r:24} rank {rank or '-':>2} (≤ {within:>2})  top 3: {pages[:3]}")
            if rank is None or rank > within:
                failures.append(f"{query!r}: expected {expected} in the top {within}, got rank {rank}: {pages[:within]}")
        page.close()
    print("\nsearch table (query, rank of the expected page, first three results):\n" + "\n".join(rows))
    assert errors == [] and foreign == []
    assert failures == [], "\n".join(failures)


@pytest.mark.browser
@pytest.mark.slow
def test_a_typo_finds_what_the_word_finds(browser, default_site):
    from tests.site_helpers import serve

    site, _ = default_site
    with serve(site) as base:
        page = browser.new_page()
        for typo, word in TYPOS:
            wanted = _results(page, base, word)[0]["page"]
            found = [g["page"] for g in _results(page, base, typo, wait=False)]
            assert found[:1] == [wanted], (typo, word, found[:3])
            # What was found one or two edits away is not shown as a missing word.
            assert page.locator(".md-search-result__terms").count() == 0, typo
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_words_run_together_are_not_shown_missing(browser, default_site):
    """vLLM's annotation says PagedAttention: its result for `paged attention` lacks neither word."""
    from tests.site_helpers import serve

    site, _ = default_site
    with serve(site) as base:
        page = browser.new_page()
        groups = _results(page, base, "paged attention")
        assert groups[0]["page"] == "sources/vllm/"
        first = page.locator("ol.md-search-result__list > li.md-search-result__item").first
        assert first.locator(".md-search-result__terms").count() == 0, first.inner_text()
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_every_page_searches_with_our_worker(default_site):
    """Material's config names our worker, with Material's own after the # (site/overrides/main.html)."""
    site, _ = default_site
    for name in ("index.html", "sources/vllm/index.html", "404.html"):
        config = json.loads(re.search(r'<script id="__config" type="application/json">(.*?)</script>', (site / name).read_text(encoding="utf-8"), re.S).group(1))
        worker, _, material = config["search"].partition("#")
        assert worker.endswith("assets/javascripts/workers/corpus-search.js"), (name, config["search"])
        assert re.fullmatch(r"search\.[0-9a-f]+\.min\.js", material) and (site / "assets/javascripts/workers" / material).is_file()
        assert (site / "assets/javascripts/workers/corpus-search.js").is_file()


@pytest.mark.browser
@pytest.mark.slow
def test_first_hit_shows_annotation_and_generic_headings_are_not_results(browser, default_site):
    from tests.site_helpers import serve

    site, corpus = default_site
    with serve(site) as base:
        page = browser.new_page()
        groups = _results(page, base, "DeepGEMM")
        first = groups[0]
        assert first["page"] == "sources/deepgemm/"
        note_start = corpus.source("deepgemm").note.strip()[:12]
        assert note_start in first["text"].replace("\u200b", ""), first["text"]
        assert "编号" not in first["text"] and "代码仓库" not in first["text"]
        links = [a.get_attribute("href") for a in page.locator(".md-search-result a").all()]
        generic = ("#注释", "#另见", "#镜像", "#引用本条目")
        assert not [h for h in links if any(g in (h or "") for g in generic)], links
        page.close()


@pytest.mark.browser
@pytest.mark.slow
def test_simplified_queries_reach_the_traditional_digest(browser, default_site):
    """昇腾 and 算子 are everywhere; the digest (昇騰, 運算元) must be among the results."""
    from tests.site_helpers import serve

    site, _ = default_site
    with serve(site) as base:
        page = browser.new_page()
        for query in ("昇腾", "算子"):
            _results(page, base, query)
            wrap = page.locator(".md-search__scrollwrap")
            for _ in range(20):  # Material renders ten results at a time, more on scrolling
                wrap.evaluate("el => el.scrollTo(0, el.scrollHeight)")
                page.wait_for_timeout(100)
            hrefs = [a.get_attribute("href") or "" for a in page.locator("a.md-search-result__link").all()]
            assert any("digests/2026-10-22/" in h for h in hrefs), (query, len(hrefs))
        page.close()


def test_the_index_tuned_in_memory_equals_the_index_tuned_from_materials_file(tmp_path):
    """search.tuned_json (the plugin's hook on Material's generate_search_index) gives, byte for
    byte, what tuning the file Material would have written gives: odd values included."""
    import datetime as dt
    import json as json_module

    from markupsafe import Markup
    from material.plugins.search.plugin import SearchIndex

    corpus = _corpus(tmp_path, _source())
    index = SearchIndex(lang=["zh", "en"], separator=r"[\s\-]+", pipeline=[], fields={"title": {"boost": 1e3}, "text": {"boost": 1.0}, "tags": {"boost": 1e6}})
    index.entries = [
        {"location": "sources/tilelang/", "title": Markup("TileLang <b>x</b>"), "text": "<p>A tile DSL.</p>", "tags": ["dsl", 2026, dt.date(2026, 1, 2)]},
        {"location": "sources/tilelang/#annotation", "title": "注释", "text": "<p>昇腾 算子</p>"},
        {"location": "", "title": "Home", "text": "Welcome", "boost": 2, "extra": (1, 2.5, None, True)},
    ]
    path = tmp_path / "search_index.json"
    path.write_text(index.generate_search_index(None), encoding="utf-8")
    from_file = search.tune_index_file(path, corpus)
    text, stats = search.tuned_json(index, corpus)
    assert text == path.read_text(encoding="utf-8")
    assert (stats.docs_before, stats.docs_after) == (from_file.docs_before, from_file.docs_after)
    assert stats.entries == from_file.entries and stats.entries[0].title == "TileLang x"  # plain, no zero-width spaces (issue 37)
    assert stats.config == from_file.config
    assert json_module.loads(text)["docs"][0]["title"] == "TileLang <b>x</b>"


def test_bench_reads_a_held_out_query_table_and_names_a_bad_entry(tmp_path, monkeypatch):
    """scripts/bench_search.py --queries: ids become their pages, paths stay, a bad table is one message."""
    import importlib.util

    from tests.corpus_fixture import PROJECT_ROOT

    spec = importlib.util.spec_from_file_location("bench_search", PROJECT_ROOT / "scripts" / "bench_search.py")
    bench = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "bench_search", bench)  # its dataclass looks its module up
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script puts the project on it
    spec.loader.exec_module(bench)
    corpus = _corpus(tmp_path, _source(id="vllm", title="vLLM"))
    table = tmp_path / "held-out.yml"
    table.write_text("- query: paged attention\n  expect: [vllm, digests/2026-10-22/]\n  note: phrase\n- {query: 首页, expect: ''}\n", encoding="utf-8")
    cases = bench.read_cases(table, corpus)
    assert cases == [bench.Case("paged attention", ("sources/vllm/", "digests/2026-10-22/"), "phrase"), bench.Case("首页", ("",), "")]
    assert bench.first_rank(["x/", "digests/2026-10-22/", "sources/vllm/"], cases[0].expect) == 2
    for text, message in (
        ("- query: q\n  expect: [nope]\n", "entry 1 ('q'): no source has the id 'nope'"),
        ("- query: q\n  expected: [vllm]\n", "unknown key(s) expected"),
        ("query: q\n", "expected a list"),
        ("- query: 'q\n", "held-out.yml:"),
    ):
        table.write_text(text, encoding="utf-8")
        with pytest.raises(bench.QueryTableError, match=re.escape(message)):
            bench.read_cases(table, corpus)


def test_parts_of_camel_and_snake_case_names_in_a_title_are_alternatives(tmp_path):
    # The index keeps atomic_add one word; its parts let `atomic add` (and 原子加 through the
    # cross-language table) find the title that names it.
    source = _source(id="i", title="Vectorized `T.atomic_add` downgrades `memory_order` in FlashMLA", kind="issue")
    tuned, _ = search.tune(_index({"location": "sources/i/", "title": source.title, "text": ""}), _corpus(tmp_path, source))
    alt = set(tuned["docs"][0]["alt"].split())
    assert {"atomic", "add", "memory", "order", "flash", "mla"} <= alt


def test_script_words_are_converted_once_and_kept_for_the_next_build(tmp_path, monkeypatch):
    """search.ScriptFolder.for_docs with a memo: the same equivalents as without it; the next build's
    words already converted are not converted again (OpenCC's dictionaries need not load), a new word
    is, and a memo of another OpenCC (its version in the file) is not used."""
    from corpus_build.site import search as search_module

    docs = [{"title": "算子 運算元", "text": "摩爾執行緒 昇腾 内存"}]
    memo = tmp_path / "script-words.json"
    fresh = search_module.ScriptFolder.for_docs(docs).equivalents
    assert fresh
    assert search_module.ScriptFolder.for_docs(docs, memo=memo).equivalents == fresh
    asked: list[int] = []
    real = search_module._converters

    def counting():
        asked.append(1)
        return real()

    monkeypatch.setattr(search_module, "_converters", counting)
    assert search_module.ScriptFolder.for_docs(docs, memo=memo).equivalents == fresh
    assert asked == []
    more = [*docs, {"title": "記憶體", "text": ""}]
    assert search_module.ScriptFolder.for_docs(more, memo=memo).equivalents == search_module.ScriptFolder.for_docs(more).equivalents
    assert asked
    asked.clear()
    data = json.loads(memo.read_text(encoding="utf-8"))
    data["version"] = "opencc 0.0 other"
    data["words"] = {word: [word] * 4 for word in data["words"]}  # what another OpenCC might have said
    memo.write_text(json.dumps(data), encoding="utf-8")
    assert search_module.ScriptFolder.for_docs(more, memo=memo).equivalents == search_module.ScriptFolder.for_docs(more).equivalents
    assert asked


def test_the_offline_copys_listing_and_section_pages_are_weighted_as_on_the_site(tmp_path):
    """Without directory URLs (the offline copy) MkDocs names a folder's page `chapters/index.html`:
    the listing pages still rank below what they list, and a section's copy of a source's note
    still gives way to the source's own page."""
    source = _source(id="deepgemm", title="DeepGEMM")
    corpus = _corpus(tmp_path, source)
    section_url = paths.section(corpus.sections[0])[: -len(".md")] + ".html"
    index = _index(
        {"location": "index.html", "title": "首页", "text": "DeepGEMM"},
        {"location": "chapters/index.html", "title": "章节", "text": "DeepGEMM"},
        {"location": "sources/deepgemm.html", "title": "DeepGEMM", "text": "编号 deepgemm"},
        {"location": f"{section_url}#deepgemm", "title": "DeepGEMM", "text": "<p>对照物</p>"},
    )
    tuned, _ = search.tune(index, corpus, directory_urls=False)
    boosts = {doc["location"]: doc.get("boost", 1.0) for doc in tuned["docs"]}
    assert boosts["index.html"] == search.LISTING_BOOST and boosts["chapters/index.html"] == search.LISTING_BOOST, boosts
    assert f"{section_url}#deepgemm" not in boosts, boosts
