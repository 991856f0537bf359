"""The mirrors on show: PR and repository facts, archived copies, and a sandboxed HTML snapshot.

The mirrors are written by the test (provenance records through the real
Provenance type, a hostile HTML page, a PDF made with PyMuPDF, a PNG and a WARC
stand-in), then the site is built for real and opened in headless Chromium.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import shutil
import struct
import threading
import zlib
from pathlib import Path
from typing import ClassVar
from urllib.parse import urlsplit

import pytest

from corpus_build import registry, render, site
from corpus_build.core.provenance import Document, Provenance, RepoFacts, Status, ThreadFacts, write_failure, write_provenance
from tests.site_helpers import recorded_files, serve

# Every way a page can run script or reach another origin, each leaving a trace if it works.
HOSTILE_TEMPLATE = """<!doctype html><script>document.documentElement.setAttribute("data-pwned", "before-html")</script>
<html><head><title>Archived</title>
<meta http-equiv="refresh" content="0;url={evil}/refresh">
<base href="{evil}/">
<script>document.documentElement.setAttribute("data-pwned", "inline"); fetch("{evil}/fetch");</script>
<script src="{evil}/remote.js"></script>
<link rel="stylesheet" href="{evil}/remote.css">
</head><body onload="document.body.setAttribute('data-pwned', 'onload')">
<h1 id="archived">Archived words</h1><p>What the page said, kept as archived.</p>
<img src="{evil}/track.png" onerror="document.body.setAttribute('data-pwned', 'onerror')">
<iframe src="{evil}/frame"></iframe>
<form action="{evil}/post"><input name="q"></form>
<script>document.body.setAttribute("data-pwned", "body"); try { top.__pwned = 1 } catch (e) {}</script>
</body></html>"""


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Another origin (another port): every request that reaches it is a request that left the site."""

    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"tracked")

    do_POST = do_GET

    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def other_origin():
    _Recorder.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", _Recorder.hits
    finally:
        server.shutdown()
        server.server_close()


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * 4 for _ in range(4))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def _pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A paper made by the test")
    return doc.tobytes()


def _mirror(corpus, source_id: str, files: dict[str, bytes], **facts) -> None:
    source = corpus.source(source_id)
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (raw / name).write_bytes(data)
    record = Provenance(
        id=source.id, kind=source.kind, cited_url=source.url, status=Status.OK,
        fetched_at="2026-12-01T08:05:28Z", checked_at="2026-12-01T08:05:28Z", fetched_url=source.url,
        http_status=200, files=recorded_files(raw, [n for n in files if n != "screenshot.png"]), **facts,
    )
    write_provenance(raw, record)


@pytest.fixture
def evil():
    with other_origin() as found:
        yield found


@pytest.fixture
def mirrored_project(project, evil):
    return write_mirrors(project, evil[0])


def write_mirrors(project: Path, evil_origin: str) -> Path:
    """Mirrors of four fixture sources and one failure, written beside the fixture corpus."""
    hostile = HOSTILE_TEMPLATE.replace("{evil}", evil_origin)
    # The records carry fixed times; a long freshness window keeps them fresh whenever the tests run.
    with open(project / "corpus" / "corpus.yaml", "a", encoding="utf-8") as settings:
        settings.write("stale_after_days: 36500\n")
    project.joinpath("hostile.html").write_text(hostile, encoding="utf-8")
    corpus = registry.load(project / "corpus")
    _mirror(corpus, "cuda-guide", {"page.html": hostile.encode(), "text.md": b"# Archived words\n\nWhat the page said.", "capture.warc.gz": b"WARC/1.1 stand-in",
                                   "screenshot.png": _png()},
            body_file="page.html", text_file="text.md", warc_file="capture.warc.gz", content_type="text/html; charset=utf-8", bytes=len(hostile))
    _mirror(corpus, "deepgemm-ascend", {"paper.pdf": _pdf()}, body_file="paper.pdf", content_type="application/pdf", document=Document(page_count=1))
    _mirror(corpus, "tilelang", {}, repo=RepoFacts(remote_url="https://github.com/tile-ai/tilelang", branch="main", commit="0123456789abcdef0123456789abcdef01234567",
                                                    commit_date="2026-11-30T16:30:00Z", swhid="swh:1:rev:0123456789abcdef0123456789abcdef01234567"))
    _mirror(corpus, "tilelang-pr-2900", {}, thread=ThreadFacts(number=2900, state="closed", merged=True, merged_at="2026-11-30T20:15:00Z", author="octo",
                                                               labels=("enhancement", "ascend"), comments=7, created_at="2026-10-01T02:00:00Z"))
    failure = Provenance(id="zhihu-port", kind="article", cited_url="", status=Status.FAILED, checked_at="2026-12-01T08:00:00Z",
                         error="transport error for https://x/: [Errno -2] Name or service not known")
    write_failure(corpus.raw_dir(corpus.source("zhihu-port")), failure)
    return project


def test_source_pages_show_thread_repo_and_archive_facts_in_reader_words(mirrored_project, tmp_path):
    corpus = registry.load(mirrored_project / "corpus")
    pages = render.build_pages(corpus)
    pr = pages["sources/tilelang-pr-2900.md"]
    for fact in ("| Repository | [tile-ai/tilelang](<https://github.com/tile-ai/tilelang>) |", "| Number | #2900 |", "merged 2026-12-01",
                 "| Author | [octo](<https://github.com/octo>) |", "`enhancement` `ascend`", "| Comments | 7 |", "| Opened | 2026-10-01 10:00 |"):
        assert fact in pr, fact
    repo = pages["sources/tilelang.md"]
    assert "| Pinned commit | `0123456789ab` 2026-12-01 00:30 |" in repo  # local time, +08:00 by default
    assert "[swh:1:rev:0123456789abcdef0123456789abcdef01234567](<https://archive.softwareheritage.org/swh:1:rev:0123456789abcdef0123456789abcdef01234567>)" in repo
    html_page = pages["sources/cuda-guide.md"]
    assert 'href="archive/page.html"' in html_page and 'href="archive/screenshot.png"' in html_page and 'href="archive/capture.warc.gz" download' in html_page
    assert '<iframe sandbox src="archive/page.html"' in html_page
    assert "2026-12-01 16:05" in html_page and "2026-12-01T08:05:28Z" not in html_page
    pdf = pages["sources/deepgemm-ascend.md"]
    assert 'href="archive/paper.pdf" target="_blank"' in pdf
    failed = pages["sources/zhihu-port.md"]
    assert "the server could not be reached" in failed and "Errno" not in failed
    for page in (pr, repo, html_page, pdf, failed, pages["status.md"]):
        assert "corpus-build" not in page.replace("generated by corpus-build", ""), "a CLI command on a reader's page"
        assert "`ok`" not in page and "Errno" not in page
    snapshot = pages["sources/cuda-guide/archive/page.html"]
    assert isinstance(snapshot, bytes)
    text = snapshot.decode()
    assert text.index('http-equiv="Content-Security-Policy"') < text.index("<script") < text.index("<html")
    assert "refresh" not in text and "<base" not in text


CHROMIUM = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")


@pytest.mark.slow
@pytest.mark.browser
def test_archived_page_runs_no_script_and_sends_no_request(mirrored_project, evil):
    if not shutil.which(CHROMIUM):
        pytest.skip(f"no Chromium at {CHROMIUM}")
    sync_api = pytest.importorskip("playwright.sync_api")
    evil_origin, hits = evil
    built = site.build(mirrored_project, strict=True)
    # The control: the same page published as is, without CSP or frame, to prove the traces work.
    hostile = (mirrored_project / "hostile.html").read_text(encoding="utf-8")
    (built / "control.html").write_text(hostile.replace('<meta http-equiv="refresh" content="0;url=' + evil_origin + '/refresh">', ""), encoding="utf-8")
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context()
        context.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/])"), lambda route: route.abort())  # nothing leaves the machine
        page = context.new_page()
        foreign: list[str] = []
        page.on("request", lambda r: urlsplit(r.url).hostname not in (None, "127.0.0.1") and foreign.append(r.url))
        page.goto(base + "control.html")
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        assert page.locator("body").get_attribute("data-pwned") is not None, "the control page should have run its scripts"
        assert hits, "the control page should have reached the other origin"
        hits.clear()
        page.goto(base + "sources/cuda-guide/")
        page.locator(".cb-frame summary").click()
        frame_element = page.locator(".cb-frame iframe")
        assert frame_element.get_attribute("sandbox") == ""
        frame_element.wait_for()
        frame = page.frame_locator(".cb-frame iframe")
        assert frame.locator("h1").inner_text() == "Archived words"
        page.wait_for_timeout(500)
        assert frame.locator("html").get_attribute("data-pwned") is None
        assert frame.locator("body").get_attribute("data-pwned") is None
        assert page.evaluate("window.__pwned") is None
        assert hits == [], hits  # nothing reached the other origin: no script, style, image, frame, form or refresh
        assert foreign == [], foreign
        assert page.locator('a[href="archive/screenshot.png"]').count() == 1
        # Opened directly (the "archived page" link), outside the frame: the policy alone holds.
        page.locator("a.cb-snapshot-html").click()
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        assert page.url.endswith("/sources/cuda-guide/archive/page.html")
        assert page.locator("h1").inner_text() == "Archived words"
        assert page.locator("html").get_attribute("data-pwned") is None and page.locator("body").get_attribute("data-pwned") is None
        assert hits == [] and foreign == [], (hits, foreign)
        response = page.request.get(base + "sources/deepgemm-ascend/archive/paper.pdf")
        assert response.ok and response.headers["content-type"] == "application/pdf"
        browser.close()


def test_charts_are_drawn_at_build_time_from_registry_and_mirrors(mirrored_project):
    corpus = registry.load(mirrored_project / "corpus")
    pages = render.build_pages(corpus)
    home, status = pages["index.md"], pages["status.md"]
    # sources by section and kind: one bar segment per (section, kind), with its count as a tooltip
    # each chart one wide <svg>, and a narrow one for phones where the labels would be too small (issue 37)
    assert home.count('<div class="cb-chart" data-search-exclude>') == 2 and home.count("<svg") - home.count("cb-chart-narrow") == 2
    assert "<title>GPU hardware: repository 1</title>" in home and "<title>Ascend stack: pull request 1</title>" in home
    # cited PRs over time: opened 2026-10 and merged 2026-12 (local time) from the PR's thread facts
    assert "<title>2026-10 opened 1</title>" in home and "<title>2026-12 merged 1</title>" in home
    # mirror freshness: the four mirrors and the failure
    assert "<title>failed 1</title>" in status and re.search(r"<title>(within a week|within a month|older) 4</title>", status)
    assert "<script" not in home and "<script" not in status


def test_the_screenshot_the_record_names_is_published(project):
    """Browser-rendered pages are kept as WebP now (issue 21); the panel links whatever the record names."""
    corpus = registry.load(project / "corpus")
    webp = b"RIFF\x20\x00\x00\x00WEBPVP8 " + b"\x00" * 24  # the bytes are never decoded here
    _mirror(corpus, "cuda-guide", {"page.html": b"<p>Words.</p>", "text.md": b"Words.", "screenshot.webp": webp},
            body_file="page.html", text_file="text.md", content_type="text/html", document=Document(screenshot="screenshot.webp"))
    pages = render.build_pages(registry.load(project / "corpus"))
    assert pages["sources/cuda-guide/archive/screenshot.webp"] is not None
    assert "archive/screenshot.webp" in pages["sources/cuda-guide.md"] and "screenshot.png" not in pages["sources/cuda-guide.md"]


def test_a_page_rendered_in_chromium_is_archived_as_rendered_not_as_its_shell(project):
    """The frame showed the empty shell ("请启用 JavaScript…") though rendered.html was kept (issue 21)."""
    corpus = registry.load(project / "corpus")
    shell = b"<html><body><noscript>\xe8\xaf\xb7\xe5\x90\xaf\xe7\x94\xa8 JavaScript</noscript><div id=app></div><script src=app.js></script></body></html>"
    rendered = b"<html><head></head><body><div id=app><h1>Rendered words</h1><p>What the reader saw.</p></div></body></html>"
    _mirror(corpus, "cuda-guide", {"page.html": shell, "rendered.html": rendered, "text.md": b"Rendered words"},
            body_file="page.html", text_file="text.md", content_type="text/html", document=Document(renderer="chromium 156 (playwright 1.64)"))
    published = render.build_pages(registry.load(project / "corpus"))["sources/cuda-guide/archive/page.html"]
    data = published if isinstance(published, bytes) else Path(published).read_bytes()
    assert b"Rendered words" in data and b"What the reader saw." in data
    assert b"JavaScript</noscript>" not in data
    assert b"Content-Security-Policy" in data  # the same safety pass as any archived page


def test_the_archived_copy_shows_the_mirror_s_images_and_asks_for_nothing_it_lacks(project, tmp_path):
    """Issue 21: images were requested below /sources/<id>/ and failed, though the mirror had them."""
    from corpus_build.core.provenance import SavedImage
    from tests.site_helpers import chromium, playwright_or_skip

    corpus = registry.load(project / "corpus")
    source = corpus.source("cuda-guide")
    page = (b"<html><head><link rel=stylesheet href='_static/theme.css'><link rel=icon href='/favicon.ico'></head><body>"
            b"<h1>Guide</h1><p><img src='_images/grid.png' alt='the grid' srcset='_images/grid@2x.png 2x'></p>"
            b"<p><img src='_images/missing.png' alt='a lost figure'></p></body></html>")
    name = "images/0123456789abcdef0123.png"
    raw = corpus.raw_dir(source)
    (raw / "images").mkdir(parents=True)
    (raw / name).write_bytes(_png())
    _mirror(corpus, "cuda-guide", {"page.html": page, "text.md": b"Guide"}, body_file="page.html", text_file="text.md", content_type="text/html",
            document=Document(image_files=(SavedImage(url=source.url + "_images/grid.png", path=name, content_type="image/png", bytes=1),)))
    files = render.build_pages(registry.load(project / "corpus"))
    archived = files["sources/cuda-guide/archive/page.html"]
    assert b'src="../images/0123456789abcdef0123.png"' in archived and b"srcset" not in archived
    assert b"_static/theme.css" not in archived and b"favicon" not in archived and b"missing.png" not in archived
    assert b"a lost figure" in archived  # the alt text stays, shown in place of the lost image

    # In Chromium: the kept image loads, and no request fails.
    sync_api = playwright_or_skip(module=True)
    site = tmp_path / "served"
    for path in ("sources/cuda-guide/archive/page.html", f"sources/cuda-guide/{name}"):
        content = files[path]
        (site / path).parent.mkdir(parents=True, exist_ok=True)
        (site / path).write_bytes(content if isinstance(content, bytes) else Path(content).read_bytes())
    with serve(site) as base, chromium(sync_api) as browser:
        tab = browser.new_page()
        failed = []
        tab.on("requestfailed", lambda r: failed.append(r.url))
        tab.on("response", lambda r: r.status >= 400 and failed.append(r.url))
        tab.goto(base + "sources/cuda-guide/archive/page.html")
        tab.wait_for_load_state("load")
        assert tab.evaluate("document.querySelector('img[alt=\"the grid\"]').naturalWidth") > 0
        assert failed == [], failed


def test_a_render_hashes_only_the_mirror_files_that_changed_since_the_last(mirrored_project):
    """render/reuse.py, file_digest: a mirror file with the stamp it had when the last render hashed
    it is not read again; an edit that keeps its size and sets its mtime back still changes its
    ctime, and the text page shows the edit."""
    from corpus_build.render.reuse import Reuse
    from corpus_build.render.reuse import active as reuse_active

    corpus = registry.load(mirrored_project / "corpus")
    docs = mirrored_project / "docs"
    render.render(corpus, docs)
    render.render(corpus, docs)  # (now every digest has a stamp)

    def render_counting() -> tuple[int, str]:
        reuse = Reuse(docs)
        with reuse_active(reuse):
            pages = render.build_pages(corpus, reuse=reuse)
        reuse.save()
        return reuse.hashed, str(pages["sources/cuda-guide/text.md"])

    hashed, text = render_counting()
    assert hashed == 0 and "What the page said." in text
    mirror_text = corpus.raw_dir(corpus.source("cuda-guide")) / "text.md"
    before = os.stat(mirror_text)
    mirror_text.write_bytes(mirror_text.read_bytes().replace(b"page said", b"page SAID"))
    os.utime(mirror_text, ns=(before.st_atime_ns, before.st_mtime_ns))  # the same size and mtime: only the ctime tells
    hashed, text = render_counting()
    assert hashed == 1 and "What the page SAID." in text
    assert render_counting()[0] == 0


def test_a_render_looks_for_each_mirror_file_once(mirrored_project, monkeypatch):
    """The archived copies are asked for by the files to publish, the snapshots and the mirror box:
    within one render each file of a mirror is looked at (its lstat) once, and the site is the same."""
    from collections import Counter

    corpus = registry.load(mirrored_project / "corpus")
    docs = mirrored_project / "docs"
    render.render(corpus, docs)
    expected = {p.relative_to(docs): p.read_bytes() for p in docs.rglob("*") if p.is_file() and not p.name.startswith(".")}
    raw = str(corpus.raw_dir(corpus.source("cuda-guide")))
    looked: Counter[str] = Counter()
    lstat = os.lstat

    def counted(path, *args, **kwargs):
        if str(path).startswith(raw + os.sep):
            looked[str(path)] += 1
        return lstat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", counted)
    shutil.rmtree(docs)
    render.render(corpus, docs)
    assert looked and max(looked.values()) == 1, looked.most_common(3)
    assert {p.relative_to(docs): p.read_bytes() for p in docs.rglob("*") if p.is_file() and not p.name.startswith(".")} == expected


def test_a_broken_or_planted_digest_cache_costs_a_hash_never_the_pages(mirrored_project, tmp_path_factory):
    """docs/.corpus-build-digests.json (render/reuse.py, file_digest) cut short, garbage, of another
    shape, a folder, a link out of the project, or a link planted under its temporary copy's name:
    the render goes on, writes what a clean render writes, and touches nothing outside. A mirror file
    swapped by a rename for one of the same size and mtime, or restored from a copy with its times
    kept, is hashed again and shown as it is now."""
    from corpus_build.render.reuse import DIGESTS

    def pages(docs: Path) -> dict[str, bytes]:
        return {str(p.relative_to(docs)): p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file() and not p.name.startswith(".")}

    docs, clean = mirrored_project / "docs", mirrored_project / "clean"
    elsewhere = tmp_path_factory.mktemp("elsewhere")  # (the project is the test's tmp_path)
    outside = elsewhere / "outside.json"
    outside.write_text("mine", encoding="utf-8")
    corpus = registry.load(mirrored_project / "corpus")
    render.render(corpus, docs)
    render.render(corpus, docs)
    text_md = corpus.raw_dir(corpus.source("cuda-guide")) / "text.md"
    stamp = os.stat(text_md)
    forms = {
        "cut short": lambda: (docs / DIGESTS).write_bytes((docs / DIGESTS).read_bytes()[:40]),
        "garbage": lambda: (docs / DIGESTS).write_bytes(b"\xff\xfe\x00garbage"),
        "a list": lambda: (docs / DIGESTS).write_text("[1, 2]", encoding="utf-8"),
        "other entries": lambda: (docs / DIGESTS).write_text(json.dumps({str(text_md): ["a", "b", "c", "d", 5], "x": 3,
                                                                         str(text_md) + "/": [1, 2, 3, 4, None]}), encoding="utf-8"),
        "deeply nested": lambda: (docs / DIGESTS).write_text("[" * 100_000, encoding="utf-8"),
        "a folder": lambda: ((docs / DIGESTS).unlink(), (docs / DIGESTS / "x").mkdir(parents=True)),
        "a link out": lambda: (shutil.rmtree(docs / DIGESTS) if (docs / DIGESTS).is_dir() else (docs / DIGESTS).unlink(),
                               (docs / DIGESTS).symlink_to(outside)),
        "a link as its copy": lambda: (docs / f".{DIGESTS}.{os.getpid()}.{threading.get_ident()}.tmp").symlink_to(outside),
    }
    for n, (what, breakage) in enumerate(forms.items()):
        breakage()
        # And the mirror's text edited at each step: the same size, its mtime set back, put in place by a rename.
        edited = text_md.with_name("edited.md")
        edited.write_bytes(text_md.read_bytes()[:-1] + str(n % 10).encode())
        os.utime(edited, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        os.replace(edited, text_md)
        render.render(corpus, docs)
        render.render(corpus, clean)
        assert pages(docs) == pages(clean), what
        assert f"What the page said{n % 10}" in (docs / "sources" / "cuda-guide" / "text.md").read_text(encoding="utf-8"), what
        assert outside.read_text(encoding="utf-8") == "mine", what
        shutil.rmtree(clean)
    # A copy of the project restored with its times kept (a tarball, a CI cache), the mirror text edited before.
    text_md.write_bytes(text_md.read_bytes()[:-1] + b"!")
    os.utime(text_md, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    restored = elsewhere / "restored"
    shutil.copytree(mirrored_project, restored, symlinks=True)  # copy2: mtimes kept
    shutil.rmtree(mirrored_project)
    restored.rename(mirrored_project)  # the same paths, as a fresh checkout at the same place
    corpus = registry.load(mirrored_project / "corpus")
    render.render(corpus, docs)
    assert "What the page said!" in (docs / "sources" / "cuda-guide" / "text.md").read_text(encoding="utf-8")


def test_reuse_state_files_linked_to_a_pipe_or_a_device_are_no_state(mirrored_project, tmp_path_factory):
    """docs/'s reuse state files (views, words, digests: render/reuse.py) as links to a FIFO no one
    writes (the render waited forever) or to /dev/zero (it read until memory ran out): each is
    read as no state, replaced by a file when the render saves, and the pages are a clean render's."""
    import signal

    from corpus_build.render.reuse import DIGESTS, INDEX, WORDS

    elsewhere = tmp_path_factory.mktemp("elsewhere")
    fifo = elsewhere / "pipe"
    os.mkfifo(fifo)
    corpus = registry.load(mirrored_project / "corpus")
    docs, clean = mirrored_project / "docs", mirrored_project / "clean"
    render.render(corpus, docs)
    render.render(corpus, clean)

    def hung(signum, frame):
        raise TimeoutError("the render did not end")

    signal.signal(signal.SIGALRM, hung)
    for target in (fifo, Path("/dev/zero")):
        for name in (INDEX, WORDS, DIGESTS):
            (docs / name).unlink()
            (docs / name).symlink_to(target)
        signal.alarm(30)
        try:
            render.render(corpus, docs)
        finally:
            signal.alarm(0)
        for name in (INDEX, WORDS, DIGESTS):
            assert (docs / name).is_file() and not (docs / name).is_symlink(), name
        for page in clean.rglob("*"):
            if page.is_file() and not page.name.startswith("."):
                assert (docs / page.relative_to(clean)).read_bytes() == page.read_bytes(), page
