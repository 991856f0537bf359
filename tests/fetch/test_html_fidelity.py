"""HTML mirrors that hold the whole source: links resolved against the page, JavaScript shells
rendered in Chromium (or recorded partial), and the main text's images kept beside text.md."""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import zlib
from dataclasses import replace

import pytest

from corpus_build.core.errors import RegistryError, UsageError
from corpus_build.core.provenance import Status, mirror_state, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.options import from_corpus

CHROMIUM = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")


def png(width: int, height: int, pad: int = 0) -> bytes:
    """A real PNG made here (grey pixels); `pad` adds an ancillary chunk to make it big."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    extra = chunk(b"tEXt", b"Comment\x00" + b"x" * pad) if pad else b""
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)) + extra + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


SUBPATH_PAGE = """<!doctype html><html lang="en"><head><title>Intro</title></head><body>
<nav class="site-nav"><a href="/">Home of the whole site</a></nav>
<div role="main"><h1 id="top">Introduction to tiles</h1>
<p>See the <a href="glossary.html">glossary</a>, the <a href="../api/tiles.html#T.copy">API reference</a>,
the <a href="#usage">usage section</a> and the <a href="/about.html">about page</a>.<a class="headerlink" href="#top">¶</a></p>
<h2 id="usage">Usage</h2><pre class="highlight-python"><code>T.copy(A[0:128], A_shared)
T.gemm(A_shared, B_shared, C_local)</code></pre>
<p>Footnote reference<a class="footnote-reference" href="#id4">[1]</a>.</p>
<aside class="footnote" id="id4"><p>The footnote text explains the tile layout in detail.</p></aside>
</div><footer>Copyright notice of the site footer</footer><script>var tracker = "do-not-keep-me";</script></body></html>"""

BASE_PAGE = """<!doctype html><html><head><base href="/docs/v3/"><title>Based</title></head><body><main>
<h1>Based page</h1><p>The <a href="ref/index.html">reference</a> lives under the base; <a href="#here">this anchor</a> stays on the page.</p>
</main></body></html>"""


def test_relative_links_resolve_against_the_page_under_a_sub_path(server, make_corpus, options):
    server.add("/docs/v2/guide/intro.html", SUBPATH_PAGE)
    server.add("/docs/v2/guide/based.html", BASE_PAGE)
    corpus = make_corpus([{"id": "intro", "url": server.url("/docs/v2/guide/intro.html"), "kind": "docs"},
                          {"id": "based", "url": server.url("/docs/v2/guide/based.html"), "kind": "docs"}])
    assert all(r.status is Status.OK for r in fetch_corpus(corpus, options))
    text = (corpus.raw_dir(corpus.source("intro")) / "text.md").read_text(encoding="utf-8")
    page = server.url("/docs/v2/guide/intro.html")
    assert f"[glossary]({server.url('/docs/v2/guide/glossary.html')})" in text  # not the host root
    assert f"[API reference]({server.url('/docs/v2/api/tiles.html#T.copy')})" in text
    assert f"[usage section]({page}#usage)" in text and f"({page}#id4)" in text  # anchors keep their page
    assert f"[about page]({server.url('/about.html')})" in text
    assert "```python\nT.copy(A[0:128], A_shared)\nT.gemm(A_shared, B_shared, C_local)\n```" in text
    assert "# Introduction to tiles" in text and "## Usage" in text and "footnote text explains" in text
    assert "¶" not in text and "Home of the whole site" not in text and "Copyright notice" not in text and "do-not-keep-me" not in text
    record = read_provenance(corpus.raw_dir(corpus.source("intro")))
    assert record.document.region == "role=main"
    based = (corpus.raw_dir(corpus.source("based")) / "text.md").read_text(encoding="utf-8")
    assert f"[reference]({server.url('/docs/v3/ref/index.html')})" in based  # <base href> honoured
    assert f"[this anchor]({server.url('/docs/v2/guide/based.html')}#here)" in based


def test_links_are_written_in_the_cited_url_space(server, make_corpus, options):
    server.add("/mirror/docs/v2/guide/intro.html", SUBPATH_PAGE)
    corpus = make_corpus([{"id": "intro", "url": "https://docs.example.org/docs/v2/guide/intro.html", "kind": "docs"}])
    opts = replace(options, rewrites=(("https://docs.example.org/", "http://127.0.0.1:9/"),), fallbacks=(("http://127.0.0.1:9/", server.url("/mirror/")),), retries=0)
    [result] = fetch_corpus(corpus, opts)
    assert result.status is Status.OK, result.error
    text = (corpus.raw_dir(corpus.source("intro")) / "text.md").read_text(encoding="utf-8")
    assert "[glossary](https://docs.example.org/docs/v2/guide/glossary.html)" in text
    assert "[usage section](https://docs.example.org/docs/v2/guide/intro.html#usage)" in text
    # A root-relative link names the page's public host, as a reader of the cited page follows it.
    assert "[about page](https://docs.example.org/about.html)" in text
    assert "127.0.0.1" not in text


SHELL = """<!doctype html><html><head><meta charset="utf-8"><title>文档中心</title></head><body>
<noscript>请启用 JavaScript 以浏览本站 (please enable JavaScript)</noscript><div id="app"></div>
<script>
fetch("/portal/api/page.json").then(r => r.json()).then(page => {
  document.getElementById("app").innerHTML = "<main><h1>" + page.title + "</h1><p>" + page.body + "</p></main>";
});
</script></body></html>"""
SHELL_DATA = {"title": "昇腾算子开发概览", "body": "算子开发分为分析、实现与调优三个阶段，本页逐一说明每个阶段的要点。"}


def _shell_corpus(server, make_corpus, **settings):
    server.add("/portal/docs/overview", SHELL, etag='"shell-1"')
    server.add("/portal/api/page.json", json.dumps(SHELL_DATA, ensure_ascii=False), content_type="application/json; charset=utf-8")
    return make_corpus([{"id": "portal", "url": server.url("/portal/docs/overview"), "kind": "docs"}], **settings)


def test_js_shell_without_a_browser_is_partial_never_ok(server, make_corpus, options):
    corpus = _shell_corpus(server, make_corpus, fetch={"browser": "never", "recheck_after": 0})
    opts = replace(options, browser=from_corpus(corpus).browser)
    assert opts.browser == "never"
    [result] = fetch_corpus(corpus, opts)
    assert result.status is Status.PARTIAL and "needs JavaScript" in result.error and not result.ok
    raw = corpus.raw_dir(corpus.source("portal"))
    record = read_provenance(raw)
    assert record.status is Status.PARTIAL and record.document.partial_reason.startswith("needs JavaScript")
    assert any("noscript" in s for s in record.document.shell) and any("#app" in s for s in record.document.shell)
    assert mirror_state(raw, 30)[0] == "partial"
    assert server.count("/portal/api/page.json") == 0  # nothing ran the page's script
    from corpus_build import render

    words = render.Labels(corpus.settings.ui_lang)("partial_needs_js")
    assert words in render.build_pages(corpus)["sources/portal.md"]  # the site says why, in the reader's words
    # The next run asks again in full (no conditional request) and stays partial: never "unchanged".
    [again] = fetch_corpus(corpus, opts)
    assert again.status is Status.PARTIAL
    assert [h.headers.get("if-none-match") for h in server.hits if h.path == "/portal/docs/overview"] == [None, None]


def test_js_shell_with_auto_but_no_chromium_is_partial(server, make_corpus, options):
    corpus = _shell_corpus(server, make_corpus)
    [result] = fetch_corpus(corpus, replace(options, browser="auto", chromium="/nonexistent/chromium"))
    assert result.status is Status.PARTIAL
    assert "needs JavaScript" in result.error and "/nonexistent/chromium" in result.error


def test_js_shell_status_command_shows_partial_and_why(server, make_corpus, options, capsys):
    from corpus_build import cli

    corpus = _shell_corpus(server, make_corpus)
    fetch_corpus(corpus, replace(options, browser="never"))
    assert cli.main(["--project", str(corpus.root.parent), "status", "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["state"] == "partial" and row["error"].startswith("needs JavaScript")


def test_browser_setting_is_validated(make_corpus):
    # `check` validates the fetch settings too, so the mistake is a registry error at its line.
    with pytest.raises(RegistryError, match=r"corpus.yaml:\d+: error: .*fetch.browser.*auto, always, never"):
        make_corpus([{"id": "x", "url": "https://example.org/"}], fetch={"browser": "sometimes"})
    assert from_corpus(make_corpus([{"id": "x", "url": "https://example.org/"}])).browser == "auto"


needs_chromium = pytest.mark.skipif(
    not shutil.which(CHROMIUM),
    reason=f"no Chromium at {CHROMIUM} (apt-get install chromium): the rendering path is not exercised here",
)


@needs_chromium
def test_js_shell_is_rendered_in_chromium_with_a_screenshot(server, make_corpus, options):
    pytest.importorskip("playwright.async_api", reason="Playwright is not installed (pip install 'corpus-build[browser]')")
    corpus = _shell_corpus(server, make_corpus)
    [result] = fetch_corpus(corpus, replace(options, browser="auto", chromium=CHROMIUM, read_timeout=20, total_timeout=60))
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("portal"))
    record = read_provenance(raw)
    text = (raw / "text.md").read_text(encoding="utf-8")
    assert "# 昇腾算子开发概览" in text and SHELL_DATA["body"] in text and "请启用" not in text
    assert record.document.renderer.startswith("chromium ") and "playwright" in record.document.renderer
    assert record.extractor.versions["chromium"] and record.document.shell  # why it was rendered
    assert (raw / "page.html").read_bytes() == SHELL.encode()  # the original bytes stay as sent
    shot = (raw / "screenshot.webp").read_bytes()
    assert (raw / "rendered.html").is_file() and shot[:4] == b"RIFF" and shot[8:12] == b"WEBP"  # issue 21: not a PNG
    assert {"rendered.html", "screenshot.webp"} <= {f.path for f in record.files}
    assert server.count("/portal/docs/overview") == 1  # the browser was served the downloaded bytes
    assert server.count("/portal/api/page.json") == 1


ARTICLE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>瓦片与内存层级</title></head><body>
<header><nav><a href="/">Blog home</a></nav><img src="/static/logo.png" alt="logo"></header>
<article><h1>瓦片与内存层级</h1><p>本文解释瓦片如何映射到 GPU 的内存层级，以及共享内存布局为何决定带宽。</p>
<figure><img src="img/tiles.png" alt="瓦片示意图"><figcaption>图 1：瓦片被分成四个子块。</figcaption></figure>
<p>缺失的图片不影响正文：<img src="img/missing.png" alt="缺失"></p>
<p>过大的图片只记录不保存：<img src="img/huge.png" alt="过大"></p>
<p>同一张图再次出现：<img src="img/tiles.png" alt="再次"></p>
</article></body></html>"""


def test_article_images_are_kept_and_failures_recorded(server, make_corpus, options):
    small, huge = png(8, 8), png(8, 8, pad=60_000)
    server.add("/posts/2024/tiles.html", ARTICLE)
    server.add("/posts/2024/img/tiles.png", small, content_type="image/png")
    server.add("/posts/2024/img/huge.png", huge, content_type="image/png")
    server.add("/static/logo.png", small, content_type="image/png")
    corpus = make_corpus([{"id": "tiles", "url": server.url("/posts/2024/tiles.html"), "kind": "article"}])
    [result] = fetch_corpus(corpus, replace(options, max_bytes=50_000))
    assert result.status is Status.OK, result.error  # a failing image is not fatal
    raw = corpus.raw_dir(corpus.source("tiles"))
    record = read_provenance(raw)
    by_url = {i.url: i for i in record.document.image_files}
    good = by_url[server.url("/posts/2024/img/tiles.png")]
    assert good.path.startswith("images/") and good.content_type == "image/png" and good.bytes == len(small)
    assert (raw / good.path).read_bytes() == small and len(good.sha256) == 64
    assert "HTTP 404" in by_url[server.url("/posts/2024/img/missing.png")].error
    assert "size cap" in by_url[server.url("/posts/2024/img/huge.png")].error
    assert server.url("/static/logo.png") not in by_url and server.count("/static/logo.png") == 0  # not main text
    assert server.count("/posts/2024/img/tiles.png") == 1  # used twice, downloaded once
    text = (raw / "text.md").read_text(encoding="utf-8")
    assert text.count(f"![瓦片示意图]({good.path})") == 1 and f"![再次]({good.path})" in text
    assert f"![缺失]({server.url('/posts/2024/img/missing.png')})" in text  # failed: the original stays named
    assert good.path in {f.path for f in record.files}
    from warcio.archiveiterator import ArchiveIterator

    with open(raw / record.warc_file, "rb") as handle:
        captured = [r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(handle) if r.rec_type == "response"]
    assert server.url("/posts/2024/tiles.html") in captured and server.url("/posts/2024/img/tiles.png") in captured
    # The site publishes the copy beside the extracted-text page and shows it from there only.
    from corpus_build import render

    pages = render.build_pages(corpus)
    published = pages[f"sources/tiles/{good.path}"]  # mirror files are handed over as a path to copy, not read into memory
    assert published == raw / good.path and published.read_bytes() == small
    html = pages["sources/tiles/text.md"]
    assert f'src="../{good.path}"' in html
    assert re.findall(r'<img[^>]*src="([^"]*)"', html) == [f"../{good.path}", f"../{good.path}"]  # no other origin
    (raw / good.path).unlink()  # a fresh clone: corpus/.gitignore leaves the images out
    assert "<img" not in render.build_pages(corpus)["sources/tiles/text.md"]  # no broken image


def test_image_cap_per_source(server, make_corpus, options):
    body = "<html><body><article><h1>Many figures</h1>" + "".join(f'<p>Figure {n} shows a tile.<img src="/f{n}.png" alt="f{n}"></p>' for n in range(5)) + "</article></body></html>"
    server.add("/many", body)
    for n in range(5):
        server.add(f"/f{n}.png", png(4, 4 + n), content_type="image/png")
    corpus = make_corpus([{"id": "many", "url": server.url("/many"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, max_images=2))
    assert result.status is Status.OK, result.error
    saved = read_provenance(corpus.raw_dir(corpus.source("many"))).document.image_files
    assert [bool(i.path) for i in saved] == [True, True, False, False, False]
    assert all("fetch.max_images" in i.error for i in saved[2:])
    assert sum(server.count(f"/f{n}.png") for n in range(5)) == 2


@pytest.mark.slow
@pytest.mark.browser
@needs_chromium
def test_site_shows_the_mirrored_images_from_its_own_origin(tmp_path, server, options):
    """Built for real and opened in Chromium: the extracted-text page shows the kept image,
    loaded from the site; the image that failed (and any other origin) is never requested."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from corpus_build import registry
    from tests.site_helpers import serve

    from .conftest import write_corpus
    from .test_site import _build

    server.add("/posts/2024/tiles.html", ARTICLE)
    server.add("/posts/2024/img/tiles.png", png(40, 30), content_type="image/png")
    corpus = registry.load(write_corpus(tmp_path, [{"id": "tiles", "url": server.url("/posts/2024/tiles.html"), "kind": "article", "title": "Tiles"}]))
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    hits_before = len(server.hits)
    built = _build(tmp_path)
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        requested = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(base + "sources/tiles/text/")
        page.wait_for_load_state("load")
        sizes = page.eval_on_selector_all(".cb-extracted img", "els => els.map(e => [e.naturalWidth, e.naturalHeight, e.currentSrc])")
        browser.close()
    assert len(sizes) == 2 and all(w == 40 and h == 30 and src.startswith(base + "sources/tiles/images/") for w, h, src in sizes), sizes
    assert all(url.startswith(base) for url in requested), [u for u in requested if not u.startswith(base)]
    assert len(server.hits) == hits_before  # the original server is never asked by the site


@needs_chromium
def test_browser_always_renders_an_ordinary_page_too(server, make_corpus, options):
    pytest.importorskip("playwright.async_api", reason="Playwright is not installed (pip install 'corpus-build[browser]')")
    server.add("/plain", "<html><body><main><h1>Plain page</h1><p id='p'>Static words.</p></main>"
                         "<script>document.getElementById('p').textContent += ' Added by script.';</script></body></html>")
    corpus = make_corpus([{"id": "plain", "url": server.url("/plain"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, browser="always", chromium=CHROMIUM, read_timeout=20, total_timeout=60))
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("plain"))
    record = read_provenance(raw)
    assert "Static words. Added by script." in (raw / "text.md").read_text(encoding="utf-8")
    assert record.document.renderer.startswith("chromium ") and record.document.screenshot == "screenshot.webp"
    assert not record.document.shell  # not a shell: rendered because the corpus asked for it


@needs_chromium
def test_a_rendered_page_s_warc_holds_what_its_script_fetched(server, make_corpus, options):
    """Replaying the WARC must find the rendered text: the JSON the page's script read is in it (issue 21)."""
    pytest.importorskip("playwright.async_api", reason="Playwright is not installed (pip install 'corpus-build[browser]')")
    from warcio.archiveiterator import ArchiveIterator

    corpus = _shell_corpus(server, make_corpus)
    [result] = fetch_corpus(corpus, replace(options, browser="auto", chromium=CHROMIUM, read_timeout=20, total_timeout=60, warc=True))
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("portal"))
    record = read_provenance(raw)
    responses = {}
    with open(raw / record.warc_file, "rb") as stream:
        for entry in ArchiveIterator(stream):
            if entry.rec_type == "response":
                responses[entry.rec_headers.get_header("WARC-Target-URI")] = entry.content_stream().read()
    json_urls = [u for u in responses if u.endswith("/portal/api/page.json")]
    assert json_urls, sorted(responses)
    assert SHELL_DATA["body"].encode() in responses[json_urls[0]]  # the words the rendered page shows
    assert not [p for p in raw.iterdir() if p.name.startswith(".rendered-")]  # bodies went into the WARC, no file left
