"""The mirror on the site: panel, extracted text (sanitised), status page, PR badges, and a browser check."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from corpus_build import registry, site
from corpus_build.fetch import fetch_corpus
from corpus_build.render import build_pages
from corpus_build.render.labels import Labels
from corpus_build.render.mirror import thread_badge
from corpus_build.render.mirrortext import sanitize_markdown
from tests.corpus_fixture import PROJECT_ROOT

from .conftest import write_corpus

EVIL = """<html><head><title>Evil page</title><script>window.__pwned = 1</script></head><body><article>
<h1>Evil page</h1><p>Plenty of ordinary words so that the extractor keeps this paragraph as the main content of the page.</p>
<img src="x" onerror="window.__pwned = 2"><p><a href="javascript:window.__pwned=3">click me</a> and
<a href="https://example.org/ok">a fine link</a>.</p><script>window.__pwned = 4</script>
<p>&lt;script&gt;window.__pwned = 5&lt;/script&gt; written as text, and &lt;img src=y onerror=alert(1)&gt;.</p></article></body></html>"""


@pytest.fixture
def mirrored(tmp_path, server, options):
    server.add("/evil", EVIL)
    # Server-controlled text that reaches the status page: it must stay text (attr_list is on).
    server.add("/gone", "", status=404, reason='Gone {: onclick="window.__pwned = 6" }')
    server.add("/long", "<html><body><article>" + "<p>" + "word " * 300 + "</p>" * 1 + "".join(f"<p>{'lorem ipsum ' * 40} {i}</p>" for i in range(60)) + "</article></body></html>")
    server.add("/api/repos/o/r/issues/9", json.dumps({"number": 9, "title": "Ascend PR", "state": "closed", "body": "<script>x</script>", "user": {"login": "a"}, "labels": []}), content_type="application/json")
    server.add("/api/repos/o/r/issues/9/comments", "[]", content_type="application/json")
    server.add("/api/repos/o/r/pulls/9", json.dumps({"state": "closed", "merged": True, "merged_at": "2026-03-04T05:06:07Z", "merge_commit_sha": "f00", "base": {"label": "o:main"}, "head": {"label": "b:x"}}), content_type="application/json")
    root = write_corpus(tmp_path, [
        {"id": "evil", "url": server.url("/evil"), "kind": "article", "title": "Evil"},
        {"id": "long", "url": server.url("/long"), "kind": "article", "title": "Long"},
        {"id": "r-pr-9", "url": "https://github.com/o/r/pull/9", "kind": "pull", "title": "PR 9"},
        {"id": "missing", "url": server.url("/missing"), "kind": "article", "title": "Missing"},
        {"id": "never", "url": server.url("/never"), "kind": "article", "title": "Never"},
        {"id": "gone", "url": server.url("/gone"), "kind": "article", "title": "Gone"},
    ])
    corpus = registry.load(root)
    from dataclasses import replace

    fetch_corpus(corpus, replace(options, ids=("evil", "long", "r-pr-9", "missing", "gone")))
    return tmp_path, corpus


def test_pages_show_provenance_sanitised_text_and_status(mirrored):
    _, corpus = mirrored
    pages = build_pages(corpus)
    text = pages["sources/evil/text.md"]
    assert "<script" not in text and not re.search(r"<[^>]*\son\w+\s*=", text) and "javascript:" not in text.replace("window.__pwned", "")
    assert 'href="https://example.org/ok"' in text and "&lt;script&gt;" in text
    source_page = pages["sources/evil.md"]
    assert "SHA-256" in source_page and "evil/text.md" in source_page and "cb-fresh" in source_page
    # Mirror text is searched by passage (site/fulltext.py), never by Material's whole-page index.
    assert all("search:\n  exclude: true" in pages[f"sources/{name}/text.md"] for name in ("long", "evil"))
    status = pages["status.md"]
    assert "HTTP 404" in status and "missing" in status and "cb-failed" in status
    assert "merged 2026-03-04" in pages["sources/r-pr-9.md"]
    assert "merged 2026-03-04" in thread_badge(corpus, corpus.source("r-pr-9"), Labels("en"))
    assert "No archived copy on this site" in pages["sources/never.md"]  # issue 37: not "not mirrored yet"


def test_sanitiser_drops_active_content():
    html = sanitize_markdown('# T\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n[x](javascript:alert(3))\n\n[d](data:text/html,hi)')
    assert "<script" not in html and "<img" not in html and not re.search(r"<[^>]*\son\w+\s*=", html)
    assert not re.search(r"<a\s[^>]*href=\"(javascript|data):", html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown as text, not dropped


def _build(project):
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", project / "mkdocs.yml")
    return site.build(project, strict=True)


@pytest.mark.slow
@pytest.mark.browser
def test_mirrored_scripts_execute_nothing_on_the_site(mirrored):
    chromium = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")
    if not shutil.which(chromium):
        pytest.skip("no Chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.site_helpers import serve

    project, _corpus = mirrored
    built = _build(project)
    status_html = (built / "status" / "index.html").read_text()
    # The server's reason phrase is replaced by reader words; it never becomes an attribute either way.
    assert "HTTP 404" in status_html and "window.__pwned = 6" not in status_html and not re.search(r"<[^>]*\son\w+\s*=", status_html)
    html = (built / "sources" / "evil" / "text" / "index.html").read_text()
    assert "window.__pwned" in html  # the words are there, as text
    assert "<script>window.__pwned" not in html and not re.search(r"<[^>]*\son\w+\s*=", html)
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        dialogs = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for path in ("sources/evil/text/", "sources/evil/", "status/", "sources/r-pr-9/text/"):
            page.goto(base + path)
            page.wait_for_load_state("load")
            assert page.evaluate("window.__pwned") is None, path
            for link in page.query_selector_all("a"):
                assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
        assert dialogs == []
        browser.close()
