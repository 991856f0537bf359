"""What a Chinese reader sees (issue 22): the 404 page one folder down, interface words,
the mirror panel, the charts. The default site and a Chinese fixture with mirrors, built for
real and read in headless Chromium."""

from __future__ import annotations

import re

import pytest

from corpus_build import site
from tests.reader_fixture import write_reader_project
from tests.site_helpers import chromium, playwright_or_skip, serve
from tests.test_hosting import serve_under_repo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

sync_api = playwright_or_skip(module=True)

# Words of Material's or ours that must not reach a Chinese page.
ENGLISH = re.compile(r"Not found|Made with|needs JavaScript|fetch\.browser|never fetched|\btimeline\b|An annotated")


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api) as found:
        yield found


@pytest.fixture(scope="module")
def reader_site(tmp_path_factory):
    project = write_reader_project(tmp_path_factory.mktemp("reader"))
    built = site.build(project, strict=True)
    with serve(built) as base:
        yield base


def _open(browser, url: str, width: int = 1200):
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = page.goto(url)
    page.wait_for_load_state("networkidle")
    return page, response, errors


def _search(page, term: str) -> list[str]:
    box = page.locator("input.md-search__input")
    box.click()
    box.fill(term)
    box.press("End")  # Material searches on keyup
    page.wait_for_selector(".md-search-result__item", timeout=15_000)
    return [a.get_attribute("href") or "" for a in page.locator(".md-search-result__item a").all()]


# --- item 4: the 404 page one folder down ------------------------------------------------


@pytest.mark.parametrize("missing", ["sources/old-id/", "sources/old-id/text/deeper"])
def test_404_one_folder_down_loads_every_asset_and_searches(default_site, browser, missing):
    built, _corpus = default_site
    with serve_under_repo(built) as base:
        page = browser.new_page()
        failed: list[str] = []
        # The page itself answers 404, and so do the finder's probes for 404.html above it; nothing else may fail.
        page.on("response", lambda r: r.status >= 400 and r.url != base + missing and not r.url.endswith("/404.html") and failed.append(f"{r.status} {r.url}"))
        page.on("requestfailed", lambda r: failed.append(f"failed {r.url}"))
        response = page.goto(base + missing)
        assert response is not None and response.status == 404
        page.wait_for_load_state("networkidle")
        sheets = page.evaluate("() => [...document.styleSheets].filter(s => s.href).map(s => new URL(s.href).pathname)")
        assert any(s.startswith("/repo/assets/stylesheets/main.") for s in sheets) and "/repo/assets/corpus.css" in sheets, sheets
        hrefs = _search(page, "TileLang")
        assert any(h.startswith(base) for h in hrefs), hrefs  # results lead into the site, not below the missing page
        assert failed == []
        page.close()


# --- item 5: the reader's language everywhere -----------------------------------------------


def test_default_site_speaks_chinese_in_the_theme_and_names_sections_by_title(default_site, browser):
    built, corpus = default_site
    with serve_under_repo(built) as base:  # answers a missing page with 404.html
        page, response, _ = _open(browser, base + "no-such-page/")
        assert response is not None and response.status == 404
        assert page.locator("h1").first.inner_text() == "404 - 找不到页面"
        footer = page.locator(".md-copyright").inner_text()
        assert "Material for MkDocs" in footer and "构建" in footer and "Made with" not in footer
        assert not ENGLISH.search(page.locator(".md-main").inner_text())
        page.close()
    with serve(built) as base:
        page, _, _ = _open(browser, base)
        description = page.locator('meta[name="description"]').get_attribute("content") or ""
        assert re.search(r"[\u4e00-\u9fff]", description) and "An annotated" not in description, description
        page.close()
        section = corpus.sections[0]
        page, _, _ = _open(browser, base + f"sections/{section.folder}/")
        content = page.locator(".md-content").inner_text()
        assert section.folder not in content and section.title in content  # the other title, not the folder name
        assert section.folder not in page.locator(".md-header").inner_text()
        page.close()
        digest = corpus.digests[0]  # the user's digest is in Traditional Chinese
        page, _, _ = _open(browser, base + f"digests/{digest.date.isoformat()}/")
        assert page.evaluate("() => document.documentElement.lang") == "zh-Hant"
        page.close()
        page, _, _ = _open(browser, base)
        assert page.evaluate("() => document.documentElement.lang") == "zh"  # Simplified pages keep the site's zh
        page.close()


def test_partial_mirror_and_missing_thread_parts_are_said_in_chinese(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "sources/js-shell/")
    row = page.locator("td", has_text="缺少的内容").locator("xpath=following-sibling::td[1]")
    assert row.inner_text() == "原页面由脚本生成，存档中只有页面框架，没有正文"
    assert not ENGLISH.search(page.locator(".md-content").inner_text())
    page.close()
    page, _, _ = _open(browser, reader_site + "sources/tilelang-issue-7/text/")
    text = page.locator(".md-content").inner_text()
    assert "GitHub 未提供本讨论的事件记录" in text and not ENGLISH.search(text), text
    page.close()


# --- item 8: the mirror panel --------------------------------------------------------------


def test_pdf_excerpt_is_its_own_paragraph_after_the_archive_line(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "sources/deepgemm-ascend/")
    archive = page.locator("p", has=page.locator("a.cb-snapshot-pdf"))
    assert archive.count() == 1 and "摘录" not in archive.inner_text()
    label = page.locator("p", has_text=re.compile(r"^摘录$"))
    assert label.count() == 1
    gap = page.evaluate("([a, b]) => b.getBoundingClientRect().top - a.getBoundingClientRect().bottom",
                        [archive.element_handle(), label.element_handle()])
    assert gap > 4, gap  # a paragraph's margin between them, not the same line box
    page.close()


@pytest.mark.parametrize("width", [360, 1000])
def test_panel_labels_never_break_inside_a_word(reader_site, browser, width):
    # A table of Chinese values only: the browser may squeeze the label column to its narrowest.
    page, _, _ = _open(browser, reader_site + "sources/js-shell/", width=width)
    labels = page.locator(".md-content table td:first-child")
    assert labels.count() >= 5
    for cell in labels.all():
        lines = page.evaluate("""td => { const r = document.createRange(); r.selectNodeContents(td);
            return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size }""", cell.element_handle())
        assert lines == 1, cell.inner_text()  # 缺少的内容 on one line, not 缺少的内 / 容
    page.close()


def test_issue_title_shows_code_not_backticks(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "sources/tilelang-issue-7/")
    h1 = page.locator(".md-content h1").first
    assert "`" not in h1.inner_text()
    assert [c.inner_text() for c in h1.locator("code").all()] == ["T.copy", "<dst>"]
    assert "`" not in page.title() and "T.copy" in page.title()
    page.close()
    page, _, _ = _open(browser, reader_site + "sources/tilelang-issue-7/text/")
    assert "`" not in page.locator(".md-content").inner_text()
    assert [c.inner_text() for c in page.locator(".cb-thread-title code").all()] == ["T.copy", "<dst>"]
    page.close()


def test_loopback_final_address_is_never_a_link(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "sources/tilelang-issue-7/")
    hrefs = page.evaluate("() => [...document.querySelectorAll('a[href]')].map(a => a.href)")
    served = reader_site.rstrip("/")
    local = [h for h in hrefs if re.match(r"https?://(127\.|localhost|10\.|192\.168\.|\[::1\])", h) and not h.startswith(served)]
    assert local == []
    assert "127.0.0.1:8765" not in page.locator(".md-content").inner_text()
    page.close()


def test_source_without_url_says_there_is_nothing_to_fetch(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "sources/offline-note/")
    text = page.locator(".md-content").inner_text()
    assert "没有网址，没有可抓取的内容" in text and "尚未镜像" not in text and "存档后" not in text
    page.close()
    page, _, _ = _open(browser, reader_site + "status/")
    assert "无网址，不存档" in page.locator(".md-content").inner_text()
    page.close()


# --- item 9: the charts ------------------------------------------------------------------------


def test_activity_chart_has_a_title_a_scale_and_says_what_it_leaves_out(reader_site, browser):
    page, _, _ = _open(browser, reader_site)
    chart = page.locator(".cb-chart", has=page.locator("svg[aria-label^='引用的 PR']"))
    assert chart.count() == 1
    assert chart.locator(".cb-chart-title").inner_text() == "引用的 PR 与 issue：每月新开、合并与关闭"
    svg_text = page.evaluate("c => [...c.querySelectorAll('svg text')].map(t => t.textContent)", chart.element_handle())
    assert "个数" in svg_text and "月份" in svg_text and "0" in svg_text  # the scale's name, the axis, its zero
    # The PR opened in 2023-01 is outside the 18 months shown (to its merge, 2026-12 in +08:00): the note says so.
    note = chart.locator(".cb-chart-note").inner_text()
    assert note == "显示 2025-07 至 2026-12（18 个月）；更早的 1 个事件（2023-01 至 2025-06）不在图中。", note
    assert chart.locator(".cb-chart-title").is_visible() and chart.locator(".cb-chart-note").is_visible()
    page.close()


def test_freshness_chart_counts_partial_mirrors(reader_site, browser):
    page, _, _ = _open(browser, reader_site + "status/")
    bars = page.evaluate("() => [...document.querySelectorAll('.cb-chart svg rect title')].map(t => t.textContent)")
    assert "部分存档 1" in bars, bars
    total = sum(int(b.rsplit(" ", 1)[1]) for b in bars)
    assert total == 8, bars  # every source of the fixture in one bar
    page.close()
