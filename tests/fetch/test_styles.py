"""An HTML page's stylesheets kept for its archived copy (issue 21): the linked sheets, what they
@import, the images and fonts they name, each through the run's client, failures recorded.

A real server on 127.0.0.1 serves the page, its sheets, a background image and a font header
made here; nothing comes from outside.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from corpus_build.core.provenance import Provenance, Status, read_provenance
from corpus_build.fetch import fetch_corpus
from tests.site_helpers import box_font

from .test_html_fidelity import png

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Styled guide</title>
<link rel="stylesheet" href="css/site.css">
<link rel="alternate stylesheet" href="css/alt.css" title="other">
<link rel="stylesheet" href="/missing.css">
<link rel="stylesheet" href="css/wrong-type.css">
<link rel="icon" href="/favicon.ico">
<style>@import url("/css/inline-import.css"); .note { background: url(img/note.png) }</style>
</head><body><main><h1 class="title">Styled guide</h1><p class="lead" style="background-image: url('img/attr.png')">Words shown in the site's colours.</p></main></body></html>"""
SITE_CSS = """@charset "utf-8";
@import "theme.css";
@font-face { font-family: Guide; src: url(../fonts/guide.eot) format("embedded-opentype"), url(../fonts/guide.woff2) format("woff2"); }
body { font-family: Guide, serif; background: #fafafa url("../img/bg.png") repeat-x; }
.logo { background: url(http://127.0.0.1:9/elsewhere.png); }
.vector { background: url(../img/icon.svg); }
"""
THEME_CSS = """@import url(deeper.css); h1.title { color: rgb(200, 16, 46); font-size: 31px; }"""
DEEPER_CSS = """@import url(deepest.css); p.lead { letter-spacing: 2px; }"""
DEEPEST_CSS = """@import url(too-deep.css); p { margin: 0 }"""
SVG = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
IMAGES = {"/guide/img/bg.png": 6, "/guide/img/note.png": 5, "/guide/img/attr.png": 4}
WOFF2 = b"wOF2\x00\x01\x00\x00" + b"\x00" * 40  # a header is all the sniffing reads


def _serve(server) -> None:
    server.add("/guide/index.html", PAGE)
    for path, body in (("/guide/css/site.css", SITE_CSS), ("/guide/css/theme.css", THEME_CSS), ("/guide/css/deeper.css", DEEPER_CSS),
                       ("/guide/css/deepest.css", DEEPEST_CSS), ("/guide/css/alt.css", "p{color:red}"), ("/css/inline-import.css", ".x{color:blue}")):
        server.add(path, body, content_type="text/css; charset=utf-8")
    server.add("/guide/css/wrong-type.css", "<html>soft 404</html>", content_type="text/html")
    for path, width in IMAGES.items():
        server.add(path, png(width, 3), content_type="image/png")
    server.add("/guide/img/icon.svg", SVG, content_type="image/svg+xml")
    server.add("/guide/fonts/guide.woff2", WOFF2, content_type="application/octet-stream")  # a type CDNs send: the bytes decide


def _record(corpus, source_id: str) -> Provenance:
    record = read_provenance(corpus.raw_dir(corpus.source(source_id)))
    assert record is not None
    return record


def test_stylesheets_imports_images_and_fonts_are_kept_and_failures_recorded(server, make_corpus, options):
    _serve(server)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("guide"))
    record = _record(corpus, "guide")
    by_url = {s.url: s for s in record.document.style_files}
    site = by_url[server.url("/guide/css/site.css")]
    assert site.role == "stylesheet" and site.path.startswith("styles/") and site.path.endswith(".css")
    assert (raw / site.path).read_text(encoding="utf-8") == SITE_CSS  # kept as sent; render sanitises
    assert by_url[server.url("/guide/css/theme.css")].role == "import" and by_url[server.url("/guide/css/deeper.css")].path
    assert by_url[server.url("/guide/css/deepest.css")].path  # three levels of @import
    assert "deeper than 3" in by_url[server.url("/guide/css/too-deep.css")].error and server.count("/guide/css/too-deep.css") == 0
    assert by_url[server.url("/css/inline-import.css")].role == "import"  # named by a <style> block
    for path, width in IMAGES.items():
        image = by_url[server.url(path)]
        assert image.role == "image" and image.path.endswith(".png") and (raw / image.path).read_bytes() == png(width, 3)
    font = by_url[server.url("/guide/fonts/guide.woff2")]
    assert font.role == "font" and font.path.endswith(".woff2")
    assert server.count("/guide/fonts/guide.eot") == 0  # no browser of ours picks it beside WOFF2
    assert "neither a raster image" in by_url[server.url("/guide/img/icon.svg")].error and not by_url[server.url("/guide/img/icon.svg")].path
    assert "HTTP 404" in by_url[server.url("/missing.css")].error
    assert "'text/html' is not a stylesheet" in by_url[server.url("/guide/css/wrong-type.css")].error
    elsewhere = by_url["http://127.0.0.1:9/elsewhere.png"]  # a port nothing listens on: recorded, not fatal
    assert elsewhere.error and not elsewhere.path
    assert server.count("/guide/css/alt.css") == 0 and server.count("/favicon.ico") == 0  # not the page's own look
    assert not [p for p in (raw / "styles").iterdir() if p.suffix == ".part" or p.name.startswith(".")]
    kept = {s.path for s in record.document.style_files if s.path}
    assert kept <= {f.path for f in record.files}  # hashed like every file of the mirror
    from warcio.archiveiterator import ArchiveIterator

    with open(raw / record.warc_file, "rb") as handle:
        captured = {r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(handle) if r.rec_type == "response"}
    assert server.url("/guide/css/site.css") in captured and server.url("/guide/img/bg.png") in captured


def test_style_cap_per_source_and_zero_keeps_none(server, make_corpus, options):
    _serve(server)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, max_styles=2))
    assert result.status is Status.OK, result.error
    files = _record(corpus, "guide").document.style_files
    assert sum(1 for s in files if not s.error.startswith("not kept: over the cap")) == 2
    assert any("fetch.max_styles" in s.error for s in files)
    before = len(server.hits)
    [again] = fetch_corpus(corpus, replace(options, max_styles=0, force=True))
    assert again.status is Status.OK and _record(corpus, "guide").document.style_files == ()
    assert [h.path for h in server.hits[before:]] == ["/guide/index.html"]


def test_records_from_before_styles_still_load():
    old = {"id": "x", "kind": "docs", "cited_url": "https://example.org/", "status": "ok", "document": {"title": "T", "image_files": []}}
    assert Provenance.from_dict(old).document.style_files == ()
    odd = {**old, "document": {"style_files": [{"url": "https://example.org/a.css", "role": "stylesheet", "path": "styles/a.css", "later_field": 1}, "junk"]}}
    [style] = Provenance.from_dict(odd).document.style_files
    assert style.path == "styles/a.css"
    record = Provenance.from_dict(odd)
    assert Provenance.from_dict(record.to_dict()) == record


# --- the archived copy on the site ----------------------------------------------------------------

ARTICLE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Styled article</title>
<link rel="stylesheet" href="css/site.css">
<style>.note { border: 3px solid rgb(0, 128, 0); background: url(img/note.png) }</style>
</head><body><article><h1 class="title">Styled article</h1>
<p class="lead">Words shown in the site's colours and letter spacing, as the original shows them.</p>
<div class="banner">A banner drawn over a background image.</div>
<p class="note">A note framed by the page's own style block.</p>
<p id="attr" style="color: rgb(1, 2, 3); background-image: url('img/attr.png')">Coloured by its own attribute.</p>
<figure><img src="img/figure.png" alt="a figure"><figcaption>A figure of the article.</figcaption></figure>
</article></body></html>"""
ARTICLE_CSS = """@import "theme.css";
@font-face { font-family: Guide; src: url(../fonts/guide.ttf) format("truetype"); }
body { font-family: Guide, sans-serif; }
.banner { background: url("../img/bg.png") repeat-x; min-height: 30px; }
.tracker { background: url(http://127.0.0.1:9/pixel.png); }
"""
ARTICLE_THEME = "h1.title { color: rgb(200, 16, 46); font-size: 31px; } p.lead { letter-spacing: 2px; }"
# What the browser test reads on both pages: (selector, CSS property).
LOOKS = (("h1.title", "color"), ("h1.title", "font-size"), ("p.lead", "letter-spacing"), (".note", "border-top-color"), ("#attr", "color"))


def _latin_font() -> bytes:
    """Every Latin letter a box, so its use shows."""
    return box_font("CB Test Guide", [*range(0x41, 0x5B), *range(0x61, 0x7B)], advance=600, margin=50, height=700, ascent=800)


def _serve_article(server) -> None:
    server.add("/blog/styled.html", ARTICLE)
    server.add("/blog/css/site.css", ARTICLE_CSS, content_type="text/css")
    server.add("/blog/css/theme.css", ARTICLE_THEME, content_type="text/css")
    for path, width in (("/blog/img/bg.png", 40), ("/blog/img/note.png", 8), ("/blog/img/attr.png", 9), ("/blog/img/figure.png", 30)):
        server.add(path, png(width, 20), content_type="image/png")
    server.add("/blog/fonts/guide.ttf", _latin_font(), content_type="font/ttf")


def test_the_archived_copy_links_only_the_published_styles(server, make_corpus, options):
    from corpus_build import render

    _serve_article(server)
    corpus = make_corpus([{"id": "styled", "url": server.url("/blog/styled.html"), "kind": "article"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    files = render.build_pages(corpus)
    page = files["sources/styled/archive/page.html"]
    assert isinstance(page, bytes)
    html = page.decode()
    published = {name: files[name] for name in files if name.startswith("sources/styled/archive/styles/")}
    links = re.findall(r'<link[^>]*href="([^"]*)"', html)
    assert len(links) == 3 and all(f"sources/styled/archive/{href}" in published for href in links), (links, sorted(published))
    assert "<style" not in html and not re.search(r"\sstyle=", html)  # the policy would refuse them: moved into files
    assert 'data-cb-style="0"' in html and "font-src 'self'" in html
    sheets = {name: content for name, content in published.items() if name.endswith(".css")}
    assert all(isinstance(content, bytes) for content in sheets.values())  # sanitised, not copied
    text = "\n".join(content.decode() for content in sheets.values() if isinstance(content, bytes))
    assert "127.0.0.1" not in text and "127.0.0.1" not in "".join(links)  # no fetch-time address left
    assert "rgb(200, 16, 46)" in text and "[data-cb-style=\"0\"]{color:rgb(1, 2, 3)!important" in text
    assert ".tracker{background:none}" in text
    copied = [content for name, content in published.items() if not name.endswith(".css")]
    assert len(copied) == 3 and all(isinstance(c, Path) for c in copied)  # the three images, copied from the mirror
    assert 'src:url(data:font/ttf;base64,' in text  # the font inside its sheet: a sandboxed frame gets no font file without CORS
    # Each sanitised sheet is kept for the next build (tinycss2 costs ~3 µs a byte), and read back from there.
    # (The cache names the font by its file; the page's sheets get it inline where one rule names it.)
    cached = sorted((corpus.root.parent / ".corpus-build" / "cache" / "styles").glob("*.css"))

    def font_named(sheet: bytes) -> bytes:
        return re.sub(rb"url\((?:data:font/ttf;base64,[^)]*|[0-9a-f]{20}\.ttf)\)", b"url(FONT)", sheet)

    assert len(cached) == 2 and {font_named(p.read_bytes()) for p in cached} == {font_named(c) for n, c in sheets.items() if "/inline-" not in n and "/attributes-" not in n}
    cached[0].write_bytes(b"/* kept from the last build */")
    assert b"/* kept from the last build */" in {c for n, c in render.build_pages(corpus).items() if n.endswith(".css")}
    record = _record(corpus, "styled")
    raw = corpus.raw_dir(corpus.source("styled"))
    for saved in record.document.style_files:
        if saved.path:
            (raw / saved.path).unlink()  # a fresh clone: corpus/.gitignore leaves styles/ out
    again = render.build_pages(corpus)["sources/styled/archive/page.html"]
    assert isinstance(again, bytes) and b"css/site.css" not in again  # no link to a file not there
    # Only the page's own <style> block and attributes are left, their lost images as `none`.
    assert [href.split("-")[0] for href in re.findall(r'<link[^>]*href="([^"]*)"', again.decode())] == ["styles/inline", "styles/attributes"]


def _looks(frame) -> dict:
    return {f"{selector} {prop}": frame.eval_on_selector(selector, f"e => getComputedStyle(e).getPropertyValue('{prop}')") for selector, prop in LOOKS}


@pytest.mark.slow
@pytest.mark.browser
def test_the_archived_copy_looks_like_the_original_and_asks_only_the_site(tmp_path, server, options):
    """Fetched from a real server, built for real, opened in Chromium beside the original: the same
    words, the stylesheet's colours and sizes, the images and the font loaded, every request to the site."""
    from corpus_build import registry
    from tests.site_helpers import chromium, playwright_or_skip, serve

    from .conftest import write_corpus
    from .test_site import _build

    sync_api = playwright_or_skip()
    _serve_article(server)
    corpus = registry.load(write_corpus(tmp_path, [{"id": "styled", "url": server.url("/blog/styled.html"), "kind": "article", "title": "Styled"}]))
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    built = _build(tmp_path)
    hits_before = len(server.hits)
    with chromium(sync_api) as browser:
        original = browser.new_page()
        original.goto(server.url("/blog/styled.html"))
        original.wait_for_load_state("load")
        want = _looks(original)
        words = original.inner_text("article")
        original.close()
        assert want["h1.title color"] == "rgb(200, 16, 46)" and want["#attr color"] == "rgb(1, 2, 3)", want  # the control: the styles work there
        hits_before = len(server.hits)
        with serve(built) as base:
            context = browser.new_context()
            requested: list[str] = []
            context.on("request", lambda request: requested.append(request.url))
            page = context.new_page()
            page.goto(base + "sources/styled/archive/page.html")
            page.wait_for_load_state("load")
            page.evaluate("document.fonts.ready")
            assert page.inner_text("article") == words
            assert _looks(page) == want
            assert page.eval_on_selector("img", "e => e.naturalWidth") == 30
            backgrounds = page.eval_on_selector_all(".banner, .note, #attr", "els => els.map(e => getComputedStyle(e).backgroundImage)")
            assert all(b.startswith(f'url("{base}sources/styled/archive/styles/') for b in backgrounds), backgrounds
            widths = [page.evaluate("src => new Promise(done => { const i = new Image(); i.onload = () => done(i.naturalWidth); i.onerror = () => done(0); i.src = src })",
                                    b[5:-2]) for b in backgrounds]
            assert widths == [40, 8, 9], widths
            fonts = page.evaluate("[...document.fonts].map(f => [f.family, f.status])")
            assert ["Guide", "loaded"] in [[family.strip('"'), status] for family, status in fonts], fonts
            # In the sandboxed frame of the source page: the same look.
            page.goto(base + "sources/styled/")
            page.locator(".cb-frame summary").click()
            page.locator(".cb-frame iframe").wait_for()
            frame = page.frame_locator(".cb-frame iframe")
            frame.locator("h1").wait_for()
            frame_page = next(f for f in page.frames if f.url.endswith("/archive/page.html"))
            frame_page.wait_for_load_state("load")
            frame_page.evaluate("document.fonts.ready")
            assert _looks(frame_page) == want
            fonts = frame_page.evaluate("[...document.fonts].map(f => [f.family, f.status])")
            assert ["Guide", "loaded"] in [[family.strip('"'), status] for family, status in fonts], fonts
            context.close()
    assert requested and all(url.startswith(base) for url in requested), [u for u in requested if not u.startswith(base)]
    assert len(server.hits) == hits_before  # the original server is never asked by the site


def test_a_mirror_made_before_styles_were_kept_is_fetched_again_once(server, make_corpus, options):
    """Else its archived copy stays unstyled until the page changes: the server would answer 304."""
    import json

    server.add("/guide/index.html", PAGE, etag='"v1"')
    server.add("/guide/css/site.css", "h1 { color: red }", content_type="text/css")
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [first] = fetch_corpus(corpus, options)
    assert first.status is Status.OK and _record(corpus, "guide").document.style_files
    # The record as corpus-build wrote it before: no style files, no "styles" among the versions.
    path = corpus.raw_dir(corpus.source("guide")) / "provenance.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["document"].pop("style_files")
    data["extractor"]["versions"].pop("styles")
    path.write_text(json.dumps(data), encoding="utf-8")
    [second] = fetch_corpus(corpus, options)
    assert second.status is Status.OK and _record(corpus, "guide").document.style_files  # asked in full, styles kept
    [third] = fetch_corpus(corpus, options)
    assert third.status is Status.UNCHANGED  # and from then on conditional as before
    asked = [h.headers.get("if-none-match") for h in server.hits if h.path == "/guide/index.html"]
    assert asked == [None, None, '"v1"'], asked
