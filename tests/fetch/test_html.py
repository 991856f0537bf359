"""HTML pages: original bytes kept, Markdown extracted, charset detected, conditional refresh."""

from __future__ import annotations

import json

from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus

from .server import Reply

ARTICLE = """<html lang="{lang}"><head><meta charset="{charset}"><title>{title}</title>
<meta property="article:published_time" content="2024-05-01"></head><body><nav>menu</nav>
<article><h1>{title}</h1><p>{para}</p><h2>Usage</h2><pre><code>print("hi")</code></pre>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>
<p><a href="/next">Next page</a> and more words so the extractor keeps this paragraph as content.</p>
<img src="/img/figure.png" alt="figure"></article></body></html>"""


def page(title="Kernel guide", para="Tiles map onto the memory hierarchy; this paragraph explains how.", lang="en", charset="utf-8"):
    return ARTICLE.format(title=title, para=para, lang=lang, charset=charset)


def test_html_page_is_mirrored_with_markdown_and_metadata(server, make_corpus, options):
    server.add("/guide", page(), etag='"v1"')
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("guide"))
    record = read_provenance(raw)
    assert (raw / "page.html").read_bytes() == page().encode()
    text = (raw / record.text_file).read_text(encoding="utf-8")
    assert "## Usage" in text and 'print("hi")' in text and "| a | b |" in text and "[Next page](" in text
    assert record.document.title == "Kernel guide"
    assert record.document.language == "en"
    assert record.document.published == "2024-05-01"
    assert record.document.images == (server.url("/img/figure.png"),)
    assert record.etag == '"v1"' and record.http_status == 200 and record.content_type.startswith("text/html")
    assert record.extractor.name == "corpus-build-html" and "trafilatura" in record.extractor.versions and "lxml" in record.extractor.versions
    assert record.bytes == len(page().encode()) and len(record.sha256) == 64
    assert {f.path for f in record.files} >= {"page.html", "text.md", "capture.warc.gz"}
    assert all(f.swhid.startswith("swh:1:cnt:") for f in record.files)
    on_disk = json.loads((raw / "provenance.json").read_text())
    assert on_disk["schema_version"] == 1 and list(on_disk) == sorted(on_disk)
    lock = json.loads((corpus.root / "corpus.lock").read_text())
    assert lock["sources"]["guide"]["sha256"] == record.sha256


def test_gbk_page_declared_in_meta_comes_out_as_chinese(server, make_corpus, options):
    html = page(title="昇腾算子开发指南", para="本文介绍如何在昇腾处理器上编写高性能算子，包括数据搬运与计算流水。", lang="zh-CN", charset="gbk")
    # The server says nothing about the charset: only <meta charset="gbk"> does.
    server.add("/zh", html.encode("gbk"), content_type="text/html")
    corpus = make_corpus([{"id": "zh", "url": server.url("/zh"), "kind": "article"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("zh"))
    record = read_provenance(raw)
    assert record.document.title == "昇腾算子开发指南"
    assert "本文介绍如何在昇腾处理器上编写高性能算子" in (raw / "text.md").read_text(encoding="utf-8")
    assert (raw / "page.html").read_bytes() == html.encode("gbk")  # original bytes untouched


def test_etag_304_and_identical_body_leave_the_mirror_untouched(server, make_corpus, options):
    server.add("/etag", page(), etag='"abc"')
    server.add("/noetag", page(title="Same bytes"))
    corpus = make_corpus([{"id": "etag", "url": server.url("/etag")}, {"id": "noetag", "url": server.url("/noetag")}])
    assert all(r.status is Status.OK for r in fetch_corpus(corpus, options))
    raw = corpus.raw_dir(corpus.source("etag"))
    before = (raw / "page.html").stat().st_mtime_ns
    results = fetch_corpus(corpus, options)
    assert [r.status for r in results] == [Status.UNCHANGED, Status.UNCHANGED]
    assert (raw / "page.html").stat().st_mtime_ns == before
    assert [h.headers.get("if-none-match") for h in server.hits if h.path == "/etag"] == [None, '"abc"']
    record = read_provenance(raw)
    assert record.status is Status.UNCHANGED and record.attempts[-1].outcome == "not-modified"
    # --force downloads again, ignoring the ETag.
    from dataclasses import replace

    [forced, _] = fetch_corpus(corpus, replace(options, force=True))
    assert forced.status is Status.OK
    assert [h.headers.get("if-none-match") for h in server.hits if h.path == "/etag"][-1] is None


def test_redirects_are_followed_and_recorded(server, make_corpus, options):
    server.add("/final", page())
    server.routes["/old"] = lambda r: Reply(301, b"", {"Location": "/middle"})
    server.routes["/middle"] = lambda r: Reply(302, b"", {"Location": server.url("/final")})
    server.routes["/loop"] = lambda r: Reply(302, b"", {"Location": "/loop"})
    server.routes["/to-file"] = lambda r: Reply(302, b"", {"Location": "file:///etc/passwd"})
    corpus = make_corpus([{"id": "moved", "url": server.url("/old")}, {"id": "loop", "url": server.url("/loop")}, {"id": "escape", "url": server.url("/to-file")}])
    moved, loop, escape = fetch_corpus(corpus, options)
    assert moved.status is Status.OK
    record = read_provenance(corpus.raw_dir(corpus.source("moved")))
    assert record.cited_url == server.url("/old") and record.fetched_url == server.url("/final")
    assert record.redirects == (server.url("/old"), server.url("/middle"))
    assert loop.status is Status.FAILED and "redirects" in loop.error
    assert escape.status is Status.FAILED and "only http(s)" in escape.error


def test_500_then_200_is_retried(server, make_corpus, options):
    answers = iter([Reply(500, b"oops"), Reply(503, b"busy", {"Retry-After": "0"}), Reply(200, page().encode(), {"Content-Type": "text/html"})])
    server.routes["/flaky"] = lambda r: next(answers)
    corpus = make_corpus([{"id": "flaky", "url": server.url("/flaky")}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    record = read_provenance(corpus.raw_dir(corpus.source("flaky")))
    assert [a.outcome for a in record.attempts] == ["http-500", "http-503", "ok"]


def test_404_is_a_recorded_failure_not_a_crash(server, make_corpus, options):
    server.add("/good", page())
    corpus = make_corpus([{"id": "gone", "url": server.url("/gone")}, {"id": "good", "url": server.url("/good")}])
    gone, good = fetch_corpus(corpus, options)
    assert good.status is Status.OK
    assert gone.status is Status.FAILED and "HTTP 404" in gone.error
    raw = corpus.raw_dir(corpus.source("gone"))
    assert not raw.exists()
    failure = read_failure(raw)
    assert failure.status is Status.FAILED and failure.attempts[0].status == 404
    assert server.count("/gone") == 1  # 404 is not retried


def test_rewrites_and_fallbacks(server, make_corpus, options):
    from dataclasses import replace

    server.add("/mirror/page", page(title="From the mirror"))
    corpus = make_corpus([{"id": "hf-doc", "url": "https://primary.invalid/page", "kind": "docs"}])
    opts = replace(options, rewrites=(("https://primary.invalid/", "http://127.0.0.1:9/"),), fallbacks=(("http://127.0.0.1:9/", server.url("/mirror/")),), retries=0)
    [result] = fetch_corpus(corpus, opts)
    assert result.status is Status.OK, result.error
    record = read_provenance(corpus.raw_dir(corpus.source("hf-doc")))
    assert record.cited_url == "https://primary.invalid/page"
    assert record.requested_url == server.url("/mirror/page")
    assert [a.url for a in record.attempts] == ["http://127.0.0.1:9/page", server.url("/mirror/page")]
