"""The thread page and the paper page in a strict MkDocs build, opened in real headless Chromium."""

from __future__ import annotations

import os
import re
import shutil
from urllib.parse import urlsplit

import pytest

from corpus_build import registry, site
from corpus_build.core.provenance import Status
from corpus_build.fetch import fetch_corpus
from tests.corpus_fixture import PROJECT_ROOT

from .conftest import write_corpus
from .github_threads import sample_pull
from .test_pdf_structure import paper_pdf

CHROMIUM = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")
pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def built(tmp_path, server, options):
    sample_pull().serve(server)
    server.add("/paper.pdf", paper_pdf(), content_type="application/pdf")
    root = write_corpus(tmp_path, [
        {"id": "tl-pr-42", "url": "https://github.com/tile-ai/tilelang/pull/42", "kind": "pull", "title": "Ascend backend PR",
         "note": "评审讨论见讨论全文；论文第 4.3 节 [[tiles-paper#sec-4-3|§4.3]] 给出了调度方法。"},
        {"id": "tiles-paper", "url": server.url("/paper.pdf"), "kind": "paper", "title": "Tiles"},
    ], languages=["zh", "en"])
    (root / "digests").mkdir()
    (root / "digests" / "2026-10-22.md").write_text("---\ntitle: 日报\n---\n\n见 [[tiles-paper#page-2]]。\n", encoding="utf-8")
    corpus = registry.load(root)
    results = fetch_corpus(corpus, options)
    assert all(r.status is Status.OK for r in results), [r.error for r in results]
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    # strict: a link to an anchor the paper page does not have would fail the build.
    return site.build(tmp_path, strict=True)


def test_thread_and_paper_pages_in_chromium(built, tmp_path):
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.site_helpers import serve

    html = (built / "sources" / "tl-pr-42" / "text" / "index.html").read_text()
    assert "<script>alert" not in html and not re.search(r"<[^>]*\son\w+\s*=", html)
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page()
        foreign, dialogs, errors = [], [], []
        page.on("request", lambda r: urlsplit(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:") and foreign.append(r.url))
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(str(e)))
        # From the source page, the mirror panel links to the conversation.
        page.goto(base + "sources/tl-pr-42/")
        page.get_by_role("link", name="讨论全文 →").click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/sources/tl-pr-42/text/")
        facts = page.locator(".cb-thread-facts").inner_text()
        assert "已合并" in facts and "@bob" in facts and "abcdef123456" in facts and "2026-02-01 18:00" in facts
        events = page.locator("ol.cb-timeline > li.cb-event")
        assert events.count() >= 10
        heads = [events.nth(i).locator("> .cb-event-head").inner_text() for i in range(events.count())]
        assert "发起了讨论" in heads[0]
        review = page.locator("li.cb-ev-review").first
        assert "要求修改" in review.inner_text()
        files = review.locator(".cb-review-file .cb-file")
        assert [files.nth(i).inner_text() for i in range(files.count())] == ["src/backend/ascend.py", "docs/ascend.md"]
        hunk = review.locator("pre.cb-hunk").first
        assert hunk.is_visible() and "b = tile(2)" in hunk.inner_text()
        assert review.locator(".cb-review-comment.cb-reply").count() == 2
        # A line comment's hunk with markup in it is shown as text.
        assert "</code></pre><script>alert(3)</script>" in review.inner_text()
        assert page.evaluate("[...document.scripts].filter(s => s.textContent.includes('alert(')).length") == 0
        page.screenshot(path=str(tmp_path / "thread.png"), full_page=True)
        # The annotation's [[tiles-paper#sec-4-3]] lands on heading 4.3 of the paper page.
        page.goto(base + "sources/tl-pr-42/")
        page.get_by_role("link", name="§4.3").click()
        page.wait_for_load_state("load")
        assert page.url.endswith("/sources/tiles-paper/text/#sec-4-3")
        assert page.locator("#sec-4-3").inner_text() == "4.3 Tile Scheduling on Ascend"
        assert page.locator("#page-2").is_visible() and page.locator(".cb-paper-toc a").count() == 6
        # The digest's [[tiles-paper#page-2]] lands on page 2.
        page.goto(base + "digests/2026-10-22/")
        page.get_by_role("link", name="Tiles，第 2 页").click()
        page.wait_for_load_state("load")
        assert page.url.endswith("#page-2") and page.locator("#page-2").inner_text() == "第 2 页"
        browser.close()
    assert foreign == [] and dialogs == [] and errors == []
