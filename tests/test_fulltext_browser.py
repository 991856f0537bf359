"""Full-text search in a real browser: Chinese and English queries find a PDF page, a documentation
section and a pull request's comment, each linked at its anchor with the words marked; Traditional
and Simplified fold; the offline copy (file://) answers too; nothing is requested off the site."""

from __future__ import annotations

import re
import zipfile
from urllib.parse import unquote, urlsplit

import pytest

from corpus_build.cli import main
from tests.fulltext_fixture import write_fulltext_project
from tests.site_helpers import chromium, playwright_or_skip, search_box, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DOCS = [
    {"id": "copy-guide", "kind": "html", "lang": "en", "title": "Moving data", "passages": [
        {"heading": "Overview", "text": "Copies move tiles between memories."},
        {"heading": "Bulk copies", "text": "A bulk copy with a quokka descriptor lowers to cp.async.bulk.tensor on Hopper."},
        {"heading": "布局与对齐", "text": "共享内存的布局必须按 128 字节对齐，否则搬运会退化为逐元素拷贝。"},
    ]},
    {"id": "dispatch-paper", "kind": "pdf", "lang": "en", "title": "Expert dispatch", "passages": [
        {"text": "Page one introduces the setting."},
        {"text": "Page two: the wombat schedule overlaps communication with computation."},
        {"text": "第三页：低延迟模式下，每个专家的令牌数上限决定了缓冲区大小。"},
    ]},
    {"id": "tma-pr", "kind": "thread", "pull": True, "lang": "zh-Hant", "title": "Lower T.copy to TMA", "passages": [
        {"author": "alice", "text": "This PR lowers bulk copies to TMA."},
        {"author": "bob", "text": "在 Hopper 上，共享記憶體不足時運算元會退回到較慢的實作。"},
        {"author": "carol", "text": "The platypus flag disables the lowering for debugging."},
    ]},
]

CASES = [
    # (query, the passage's page, its anchor, a word that must be marked in the snippet)
    ("quokka descriptor", "copy-guide", "sec-bulk-copies", "quokka"),
    ("共享内存 对齐", "copy-guide", "sec-布局与对齐", "对齐"),
    ("wombat schedule", "dispatch-paper", "page-2", "wombat"),
    ("令牌数上限", "dispatch-paper", "page-3", "令牌数上限"),
    ("platypus flag", "tma-pr", "event-3", "platypus"),
    # Simplified query, Traditional comment, and a term Taiwan writes differently (算子 / 運算元).
    ("内存不足 算子", "tma-pr", "event-2", "記憶體不足"),
]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = write_fulltext_project(tmp_path_factory.mktemp("ftb") / "project", DOCS)
    corpus_yaml = root / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    assert main(["--project", str(root), "build"]) == 0
    return root


def _search(page, query):
    return search_box(page, query, settle_ms=200)


def test_passages_of_pdf_pages_doc_sections_and_pr_comments_are_found(project):
    sync_api = playwright_or_skip()
    with serve(project / "site") as url, chromium(sync_api) as browser:
        page = browser.new_page()
        errors, foreign, index_files = [], [], []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("request", lambda r: not r.url.startswith(url) and not r.url.startswith("data:") and foreign.append(r.url))
        asked: list[str] = []
        page.on("request", lambda r: "/search/fulltext/" in r.url and (index_files.append(r.resource_type), asked.append(r.url)))
        page.goto(url)
        for query, source, anchor, marked in CASES:
            links = _search(page, query)
            hits = [link for link in links if urlsplit(link["href"]).path.endswith(f"/sources/{source}/text/")
                    and unquote(urlsplit(link["href"]).fragment) == anchor]
            assert hits, (query, [link["href"] for link in links])
            assert f"<mark>{marked}</mark>" in hits[0]["html"], (query, hits[0]["html"])
            page.goto(url)
        # A result opens its passage: the page scrolls to the anchor.
        asked.clear()
        links = _search(page, "wombat schedule")
        # The shards fetched as the query arrived (before Material answers) are not fetched again for the answer.
        assert any("/t-" in u for u in asked) and len(asked) == len(set(asked)), asked
        target = next(link["href"] for link in links if link["href"].endswith("#page-2"))
        page.goto(target)
        page.wait_for_function("() => document.getElementById('page-2') && document.getElementById('page-2').getBoundingClientRect().top < innerHeight")
        assert not errors and not foreign, (errors, foreign)
        # Over http the worker fetches the index files side by side (importScripts would load them one by one).
        assert index_files and set(index_files) == {"fetch"}, index_files


def test_the_offline_copy_finds_mirror_text_from_file_url(project, tmp_path):
    sync_api = playwright_or_skip()
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        zf.extractall(tmp_path / "copy")
    home = (tmp_path / "copy" / "site" / "index.html").as_uri()
    with chromium(sync_api) as browser:
        page = browser.new_page()
        foreign, asked, errors = [], [], []
        page.on("request", lambda r: urlsplit(r.url).scheme not in ("file", "data", "blob", "about") and foreign.append(r.url))
        page.on("request", lambda r: asked.append(r.url))
        page.on("console", lambda m: m.type in ("error", "warning") and errors.append(m.text))
        page.goto(home)
        links = _search(page, "platypus flag")
        assert any("/sources/tma-pr/text" in link["href"] and link["href"].endswith("#event-3") for link in links), links  # text.html offline
        assert not foreign
        # The worker stand-in loads scripts asynchronously: the index's files load (importScripts), and neither
        # Material's lunr worker nor a lunr index: every entry is in the sharded index (issue 38).
        assert any("/search/fulltext/index.js" in url for url in asked), asked
        assert not any("/search/lunr_index." in url or re.search(r"/workers/search\.[0-9a-f]+\.min\.js", url) for url in asked), asked
        assert any(page.locator(".md-search-result__item mark").all_inner_texts()) and not errors, errors
