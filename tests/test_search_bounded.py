"""Search that stays bounded (issue 38): a page view downloads nothing of search until the reader
opens it, then only the worker, Material's configuration, the index's manifest and the files a query
needs; every source is an entry of the sharded index (site/search.py → site/fulltext.py)."""

from __future__ import annotations

import gzip
import json

import pytest

from corpus_build.site import search
from tests.site_helpers import playwright_or_skip, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SEARCH_FILES = ("search_index.json", "/workers/", "/lunr/", "/search/")


def _is_search(url: str) -> bool:
    return any(part in url for part in SEARCH_FILES)


@pytest.fixture(scope="module")
def browser():
    sync_api = playwright_or_skip()
    from tests.site_helpers import CHROMIUM

    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        yield browser
        browser.close()


def test_the_pages_read_a_search_config_without_documents(default_site):
    site, corpus = default_site
    data = json.loads((site / "search" / search.CONFIG_FILE).read_text(encoding="utf-8"))
    assert data["docs"] == [] and data["config"][search.ENTRIES_KEY] == 1
    whole = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert whole["config"] == data["config"] and len(whole["docs"]) > len(corpus.sources) // 2  # for whoever reads it
    manifest = (site / "search" / "fulltext" / "index.js").read_text(encoding="utf-8")
    manifest_data = json.loads(manifest[manifest.index("(") + 1: manifest.rindex(")")])
    assert manifest_data["entryCount"] >= len(corpus.sources)  # every source, and the hand-written pages' headings
    assert not list((site / "search").glob("lunr_index.*"))


def test_nothing_of_search_loads_before_the_box_opens_and_little_after(browser, default_site):
    site, _ = default_site
    with serve(site) as base:
        context = browser.new_context()
        page = context.new_page()
        got: list[tuple[str, int]] = []

        def record(response) -> None:
            try:
                body = response.body()
            except Exception:  # noqa: BLE001 - a redirect or an aborted request has no body
                body = b""
            got.append((response.url, len(gzip.compress(body, 6))))

        page.on("response", record)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "sources/vllm/")
        page.wait_for_timeout(1500)
        before = [url for url, _ in got if _is_search(url)]
        assert before == [], before
        box = page.locator("input.md-search__input")
        box.click()
        page.wait_for_function("() => !/初始化|Initializing/i.test(document.querySelector('.md-search-result__meta').textContent)", timeout=30_000)
        box.fill("DeepGEMM")
        box.press("End")
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        page.wait_for_timeout(300)
        first = page.locator(".md-search-result__item a.md-search-result__link").first.get_attribute("href") or ""
        assert first.split("?")[0].endswith("sources/deepgemm/"), first
        loaded = [(url, size) for url, size in got if _is_search(url)]
        names = [url.rsplit("/", 1)[-1] for url, _ in loaded]
        # Neither the whole search_index.json nor Material's lunr worker nor a lunr index: our worker answers
        # from the sharded index, Material's page script reads search_config.json.
        assert not any(name.startswith(("search.", "lunr", "search_index")) for name in names), names
        assert search.CONFIG_FILE in names, names
        assert any(name.startswith("corpus-search.js") for name in names) and "index.js" in names, names
        assert sum(size for _, size in loaded) < 150_000, loaded
        assert not errors, errors
        context.close()


def test_result_titles_carry_no_zero_width_spaces(browser, default_site):
    """Issue 37: a copied result title read 第\u200b 36 \u200b章 (jieba's cuts in Material's index)."""
    site, _ = default_site
    with serve(site) as base:
        page = browser.new_page()
        page.goto(base)
        box = page.locator("input.md-search__input")
        box.click()
        box.fill("昇腾稀疏注意力")
        box.press("End")
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        page.wait_for_timeout(300)
        titles = page.locator(".md-search-result__item h1, .md-search-result__item h2").all_inner_texts()
        assert any("第 36 章" in t for t in titles), titles
        assert not any("\u200b" in t for t in titles), titles
        page.close()


def test_a_page_opened_from_a_result_highlights_with_the_config_alone(browser, default_site):
    """A result's link carries ?h=: the page marks the words (Material reads the separator from the
    configuration), and the worker still waits for the reader to open search."""
    site, _ = default_site
    with serve(site) as base:
        page = browser.new_page()
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url.rsplit("/", 1)[-1]))
        page.goto(base + "sources/deepgemm/?h=deepgemm")
        page.wait_for_function("() => document.querySelectorAll('article mark').length > 0", timeout=15_000)
        page.wait_for_timeout(500)
        assert search.CONFIG_FILE in asked and not [name for name in asked if name.startswith(("corpus-search", "search_index", "index.js"))], asked
        page.close()


def test_the_manifest_is_requested_beside_the_script_that_reads_it(browser, default_site):
    """On a network with round trips, search is ready after two of them, not three: the worker asks
    for the index's manifest before it loads corpus-fulltext.js, which would ask only once loaded."""
    import time

    site, _ = default_site
    rtt = 0.4
    with serve(site, delay=rtt) as base:
        context = browser.new_context()
        page = context.new_page()
        started: dict[str, float] = {}
        finished: dict[str, float] = {}
        page.on("request", lambda r: started.setdefault(r.url.rsplit("/", 1)[-1].split("#")[0], time.monotonic()))
        page.on("requestfinished", lambda r: finished.setdefault(r.url.rsplit("/", 1)[-1].split("#")[0], time.monotonic()))
        page.goto(base + "sources/vllm/", timeout=60_000)
        page.wait_for_timeout(500)
        page.evaluate("() => { window.__opened = performance.now(); }")
        page.locator("input.md-search__input").click()
        page.wait_for_function("() => !/初始化|Initializing/i.test(document.querySelector('.md-search-result__meta').textContent)", timeout=60_000)
        ready = page.evaluate("() => performance.now() - window.__opened") / 1000
        print(f"search ready {ready:.2f} s after opening, each answer {rtt:.1f} s away")
        assert {"index.js", "corpus-fulltext.js", "corpus-search.js"} <= started.keys() and "corpus-fulltext.js" in finished, started
        assert started["index.js"] < finished["corpus-fulltext.js"], "the manifest waited for the script that reads it"
        context.close()
