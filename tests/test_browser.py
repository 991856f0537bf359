"""The built default site in headless Chromium: search in Chinese and English, reading paths, links, isolation."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.site_helpers import chromium, playwright_or_skip, serve

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as browser:
        yield browser


@pytest.fixture
def site_page(browser, default_site):
    """A fresh page on the served default site; records console errors and every request's host."""
    site, corpus = default_site
    with serve(site) as base:
        context = browser.new_context()
        page = context.new_page()
        page.console_errors = []
        page.foreign_requests = []
        page.on("console", lambda m: m.type == "error" and page.console_errors.append(m.text))
        page.on("pageerror", lambda e: page.console_errors.append(str(e)))

        def check_origin(request):
            host = urlsplit(request.url).hostname
            if request.url.startswith(("data:", "blob:", "about:")):
                return
            if host != "127.0.0.1":
                page.foreign_requests.append(request.url)

        page.on("request", check_origin)
        page.base = base
        yield page, corpus
        context.close()


def search(page, term: str) -> list[str]:
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)
    box.press("End")  # Material searches on keyup; fill() sends no key events
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    for _ in range(5):  # Material renders ten results at a time, more as the list scrolls
        page.locator(".md-search__scrollwrap").evaluate("el => el.scrollTo(0, el.scrollHeight)")
        page.wait_for_timeout(100)
    return [a.get_attribute("href") for a in page.locator(".md-search-result__item a, a.md-search-result__link").all()]


def test_search_finds_chinese_and_english_terms(site_page):
    page, corpus = site_page
    page.goto(page.base)
    hits = search(page, "昇腾")
    assert any("sources/deepgemm-ascend/" in h or "#deepgemm-ascend" in h for h in hits), hits
    page.goto(page.base)
    hits = search(page, "DeepGEMM")
    assert any("deepgemm" in h.lower() for h in hits), hits
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_chapter_reading_path_in_order_and_links_to_sources(site_page):
    page, corpus = site_page
    chapter = next(c for c in corpus.chapters if c.number == 36)
    page.goto(page.base + "chapters/36/")
    links = page.locator(".cb-reading-path ol > li > strong > a")
    expected = [corpus.source(step.source).title for step in chapter.path]
    assert links.all_inner_texts() == expected
    links.first.click()
    page.wait_for_load_state()
    assert page.url.endswith(f"/sources/{chapter.path[0].source}/")
    assert page.locator("h1").inner_text().rstrip("¶") == expected[0]
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_unverified_sources_are_visibly_marked(site_page):
    page, corpus = site_page
    source = next(s for s in corpus.sources if not s.verified)
    page.goto(page.base + f"sources/{source.id}/")
    assert page.locator(".cb-badge.cb-unverified").first.is_visible()
    assert page.locator(".admonition.warning").count() == 1


def _visible_rows(page):
    return page.locator("table.cb-sources tbody tr:not([hidden])")


PAGE_SIZE = 100  # rows on a page of "All sources" (render/listing.py)


def _ready(page):
    """The controls show; the pointer over them has the script read the data file and draw the table."""
    page.wait_for_selector(".cb-filters:not([hidden])")
    page.hover(".cb-filters")  # the data file is read when the reader reaches for the controls (sources.js)
    page.wait_for_selector("table.cb-sources[data-cb-loaded]", state="attached")


def test_all_sources_filters_from_the_address_sorts_and_works_without_script(site_page, browser, default_site):
    page, corpus = site_page
    n = len(corpus.sources)
    papers = [s for s in corpus.sources if s.kind == "paper"]
    page.goto(page.base + "sources/?kind=paper")
    _ready(page)
    rows = _visible_rows(page)
    assert rows.count() == min(len(papers), PAGE_SIZE) > 0
    assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.kind)")) == {"paper"}
    assert page.locator(".cb-filter-count").inner_text() == f"显示 {len(papers)} / {n} 条"
    # the text filter narrows further, and the address follows the filters
    page.locator(".cb-filter-text").fill("flashattention")
    visible = _visible_rows(page).evaluate_all(
        "rows => rows.map(r => (r.textContent + ' ' + r.dataset.tag + ' ' + r.querySelector('a').getAttribute('href')).toLowerCase())"
    )
    assert visible and len(visible) < len(papers) and all("flashattention" in v for v in visible), visible
    assert "kind=paper" in page.url and "text=flashattention" in page.url
    page.locator(".cb-filter-reset").click()
    assert _visible_rows(page).count() == min(n, PAGE_SIZE)
    assert page.locator(".cb-filter-count").inner_text() == f"显示 {n} / {n} 条"
    # a tag and a mirror-state filter, from the address as the tags page links them
    tag = max({t for s in corpus.sources for t in s.tags}, key=lambda t: sum(t in s.tags for s in corpus.sources))
    page.goto(page.base + f"sources/?tag={tag}&verified=yes")
    _ready(page)
    assert _visible_rows(page).count() == min(PAGE_SIZE, sum(tag in s.tags and s.verified for s in corpus.sources))
    # sorting: titles ignore leading brackets; clicking again reverses, across every page; another column sorts too
    page.goto(page.base + "sources/")
    _ready(page)
    first = _visible_rows(page).first.locator("td").first.inner_text()
    assert not first.startswith("["), first
    page.locator("th[data-col='0'] button").click()
    ascending = _all_titles(page)
    assert page.locator("th[data-col='0']").get_attribute("aria-sort") == "ascending"
    assert len(ascending) == n and not ascending[0].startswith("[") and ascending[0].lower().startswith("a"), ascending[:3]
    page.locator("th[data-col='0'] button").click()
    assert page.locator("th[data-col='0']").get_attribute("aria-sort") == "descending"
    assert _all_titles(page) == ascending[::-1]
    page.locator("th[data-col='1'] button").click()
    kinds = _visible_rows(page).locator("td:nth-child(2)").all_inner_texts()
    blocks = [k for i, k in enumerate(kinds) if i == 0 or kinds[i - 1] != k]
    assert len(blocks) == len(set(kinds)) > 1  # each kind in one run: sorted by that column
    assert page.console_errors == [] and page.foreign_requests == []
    # without JavaScript: the plain table of the first page, no controls, and a pager to the rest
    site, _ = default_site
    with serve(site) as base:
        context = browser.new_context(java_script_enabled=False)
        plain = context.new_page()
        plain.goto(base + "sources/?kind=paper")
        assert _visible_rows(plain).count() == min(n, PAGE_SIZE)
        assert not plain.locator(".cb-filters").is_visible()
        titles = _visible_rows(plain).locator("td:first-child a").all_inner_texts()
        while plain.locator("nav.cb-pager a", has_text="下一页").count():
            plain.locator("nav.cb-pager a", has_text="下一页").click()
            plain.wait_for_load_state()
            assert "/sources/page/" in plain.url
            titles += _visible_rows(plain).locator("td:first-child a").all_inner_texts()
        assert titles == ascending  # every source once, in the same title order
        context.close()


def _all_titles(page) -> list[str]:
    """The title column over every page of the script's pager, from the page shown to the last."""
    titles = _visible_rows(page).locator("td:first-child a").all_inner_texts()
    following = page.locator("nav.cb-pager button.cb-page", has_text="下一页")
    while following.count() and following.is_enabled():
        following.click()
        titles += _visible_rows(page).locator("td:first-child a").all_inner_texts()
    return titles


def test_all_sources_filters_the_whole_corpus_not_only_the_first_page(site_page, browser, default_site):
    page, corpus = site_page
    ordered = _plain_order(browser, default_site)
    assert len(ordered) > PAGE_SIZE, "the default corpus must outgrow one page for this test"
    late = ordered[-1]  # on the last page without the script
    page.goto(page.base + "sources/")
    _ready(page)
    assert late not in _visible_rows(page).locator("td:first-child a").all_inner_texts()
    page.locator(".cb-filter-text").fill(late)
    assert late in _visible_rows(page).locator("td:first-child a").all_inner_texts()
    assert page.locator(".cb-filter-count").inner_text().endswith(f"/ {len(corpus.sources)} 条")
    # the pager's page is in the address: a reload, or a link, opens the same rows
    page.locator(".cb-filter-reset").click()
    page.locator("nav.cb-pager button.cb-page", has_text="2").first.click()
    assert "page=2" in page.url
    second = _visible_rows(page).locator("td:first-child a").all_inner_texts()
    assert second == ordered[PAGE_SIZE : 2 * PAGE_SIZE]
    page.reload()
    _ready(page)
    assert _visible_rows(page).locator("td:first-child a").all_inner_texts() == second
    # a filter from the address whose rows the plain pages spread over both pages: all of them, on one
    spread = [s for s in corpus.sections if {x.title for x in s.sources} & set(ordered[:PAGE_SIZE]) and {x.title for x in s.sources} & set(ordered[PAGE_SIZE:])]
    section = max(spread, key=lambda s: len(s.sources))
    page.goto(page.base + f"sources/?section={section.folder}")
    _ready(page)
    shown = _visible_rows(page).evaluate_all("rows => rows.map(r => r.dataset.section)")
    assert shown == [section.folder] * min(PAGE_SIZE, len(section.sources))
    # rows link to their source pages
    _visible_rows(page).first.locator("td:first-child a").click()
    page.wait_for_load_state()
    assert "/sources/" in page.url and page.locator("h1").count() == 1
    assert page.console_errors == [] and page.foreign_requests == []
    # from file:// (the offline copy): the data file loads by a script element, so filters still work
    site, _ = default_site
    local = browser.new_context()
    offline = local.new_page()
    offline.goto((site / "sources" / "index.html").as_uri() + "?kind=paper")
    _ready(offline)
    assert _visible_rows(offline).count() == sum(s.kind == "paper" for s in corpus.sources)
    local.close()


def _plain_order(browser, default_site) -> list[str]:
    """Every title as the plain pages list them, without the script."""
    site, _ = default_site
    with serve(site) as base:
        context = browser.new_context(java_script_enabled=False)
        plain = context.new_page()
        plain.goto(base + "sources/")
        titles = _visible_rows(plain).locator("td:first-child a").all_inner_texts()
        while plain.locator("nav.cb-pager a", has_text="下一页").count():
            plain.locator("nav.cb-pager a", has_text="下一页").click()
            plain.wait_for_load_state()
            titles += _visible_rows(plain).locator("td:first-child a").all_inner_texts()
        context.close()
    return titles


def test_home_counts_open_filtered_views_and_source_pages_have_a_breadcrumb(site_page):
    page, corpus = site_page
    page.goto(page.base)
    page.locator("a[href='sources/?kind=repo']").first.click()
    page.wait_for_load_state()
    repos = sum(s.kind == "repo" for s in corpus.sources)
    assert _visible_rows(page).count() == repos
    source = corpus.source("tilelang")
    page.goto(page.base + "sources/tilelang/")
    crumbs = page.locator(".cb-breadcrumb a").all_inner_texts()
    assert crumbs[0] == "首页" and len(crumbs) == 2
    page.locator(".cb-breadcrumb a").nth(1).click()
    page.wait_for_load_state()
    assert f"/sections/{source.section}/" in page.url
    assert page.title().endswith("TileLang 与昇腾算子栈阅读语料") and " / " not in page.title()
    # The sidebar's site name keeps to one line, whatever its length: it never covers the nav below it.
    page.set_viewport_size({"width": 1300, "height": 700})
    title = page.locator(".md-nav--primary > .md-nav__title")
    assert title.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
    assert title.evaluate("e => e.getBoundingClientRect().height") < 2 * title.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)") + 16
    assert page.console_errors == [] and page.foreign_requests == []
