"""Links in text.md name the cited (public) address of what they point to, never the address the
page was fetched from (issue 21): a root-relative link or a `../` past a rewrite's prefix is
resolved against the page's cited URL. The page is served by a real server on 127.0.0.1."""

from __future__ import annotations

import re
from dataclasses import replace

from corpus_build.core.provenance import Status
from corpus_build.fetch import fetch_corpus

PAGE = """<!doctype html><html><head><title>sync</title></head><body><main><h1>Package sync</h1>
<p>See <a href="/pkg/sync/atomic/">sync/atomic</a>, the <a href="/doc/effective_go#concurrency">notes on concurrency</a>,
the <a href="../../../blog/race.html">race detector post</a>, <a href="cond.html">Cond</a> and <a href="#Mutex">Mutex</a>.</p>
<p>An absolute link into the mirror: <a href="MIRROR/pkg/io/">io</a>.</p>
<p><img src="/images/sync.png" alt="diagram"></p></main></body></html>"""


def test_root_relative_and_upward_links_resolve_in_the_cited_space(server, make_corpus, options):
    server.add("/mirror/go/pkg/sync/index.html", PAGE.replace("MIRROR", server.url("/mirror/go")))
    corpus = make_corpus([{"id": "sync", "url": "https://go.example.org/pkg/sync/index.html", "kind": "docs"}])
    opts = replace(options, rewrites=(("https://go.example.org/", server.url("/mirror/go/")),), max_images=0)
    [result] = fetch_corpus(corpus, opts)
    assert result.status is Status.OK, result.error
    text = (corpus.raw_dir(corpus.source("sync")) / "text.md").read_text(encoding="utf-8")
    assert "[sync/atomic](https://go.example.org/pkg/sync/atomic/)" in text
    assert "[notes on concurrency](https://go.example.org/doc/effective_go#concurrency)" in text
    assert "[race detector post](https://go.example.org/blog/race.html)" in text  # a ../ past the prefix
    assert "[Cond](https://go.example.org/pkg/sync/cond.html)" in text
    assert "[Mutex](https://go.example.org/pkg/sync/index.html#Mutex)" in text
    assert "[io](https://go.example.org/pkg/io/)" in text
    assert "![diagram](https://go.example.org/images/sync.png)" in text
    assert not re.search(r"127\.0\.0\.1|localhost", text), text
