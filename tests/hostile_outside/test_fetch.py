"""`fetch` against hostile pages served on 127.0.0.1: a good mirror is never replaced by a worse
capture, every download is bounded, a killed fetch loses nothing, and no page makes a traceback."""

from __future__ import annotations

import base64
import gzip
import os
import subprocess
import time

import pytest

from tests.hostile_outside.conftest import GOOD_WORDS, SHARED_PAGE, good_article, mirror_text
from tests.hostile_outside.harness import CORPUS_BUILD, assert_no_traceback, assert_ok, assert_refused, cb, env, kill_group, snapshot, tree_bytes
from tests.hostile_outside.server import endless, trickle

PNG_1X1 = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
SHELL = '<!doctype html><html><head><title>App</title></head><body><div id="app"></div><noscript>You need to enable JavaScript to run this app.</noscript><script src="/app.js"></script></body></html>'
SCRIPT_ONLY = "<!doctype html><html><head><title>Tiles explained</title><script>" + "var x=1;" * 20000 + "</script></head><body><script>document.write('hi')</script></body></html>"
PAYWALL = "<!doctype html><html><head><title>Tiles explained</title></head><body><main><h1>Tiles explained</h1><p>Subscribe to continue reading this article.</p></main></body></html>"
NO_TEXT = "<!doctype html><html><head><title>Tiles explained</title></head><body>" + "<div><span></span></div>" * 30_000 + "</body></html>"


def _refetch(proj, *extra, timeout=120):
    return cb("fetch", "page", "--force", *extra, cwd=proj.root, timeout=timeout)


@pytest.mark.parametrize(
    ("body", "ctype"),
    [
        pytest.param(SHELL, "text/html; charset=utf-8", id="js-shell"),
        pytest.param(PNG_1X1, "image/png", id="png-1x1"),
        pytest.param(SCRIPT_ONLY, "text/html; charset=utf-8", id="script-only"),
        pytest.param(PAYWALL, "text/html; charset=utf-8", id="paywall-stub"),
        pytest.param(NO_TEXT, "text/html; charset=utf-8", id="700KB-no-text"),
        pytest.param(b"", "text/html; charset=utf-8", id="empty-200"),
        pytest.param(b"%PDF-1.4\n%%EOF\n", "application/pdf", id="hollow-pdf"),
    ],
)
def test_refetch_worse_capture_keeps_good_text(good_proj, server, tmp_path, body, ctype):
    """fetch --force of a page that became hollow (shell, image, stub…) keeps the good mirror's text."""
    path = SHARED_PAGE
    server.set(path, body, content_type=ctype)
    r = _refetch(good_proj)
    assert_no_traceback(r)
    assert GOOD_WORDS in mirror_text(good_proj), f"a worse capture replaced the good mirror's text ({len(mirror_text(good_proj))} chars left); {r.describe()}"


@pytest.mark.parametrize("status", [404])
def test_refetch_error_status_keeps_good_text(good_proj, server, tmp_path, status):
    """fetch --force of a page that now answers an error status keeps the good mirror and exits 1."""
    path = SHARED_PAGE
    server.set(path, "<html><head><title>Error</title></head><body>gone</body></html>", status=status)
    r = _refetch(good_proj)
    assert_no_traceback(r)
    assert r.rc == 1, r.describe()
    assert GOOD_WORDS in mirror_text(good_proj)


def test_refetch_endless_body_bounded(good_proj, server, tmp_path):
    """A body that never ends is cut at --max-bytes within seconds; the good mirror stays."""
    path = SHARED_PAGE
    server.set(path, endless(b"<p>" + b"x" * 65536 + b"</p>"))
    r = _refetch(good_proj, "--max-bytes", "2000000", timeout=60)
    assert_no_traceback(r)
    assert r.rc == 1, r.describe()
    assert GOOD_WORDS in mirror_text(good_proj)


def test_refetch_gzip_bomb_bounded(good_proj, server, tmp_path):
    """A gzip bomb (64 MB of zeros in 64 KB; fetch.max_decoded_bytes is 30 MB) is capped while decoding; the good mirror stays."""
    path = SHARED_PAGE
    bomb = gzip.compress(b"\0" * (64 << 20), compresslevel=9)
    server.set(path, bomb, **{"Content-Encoding": "gzip"})
    r = _refetch(good_proj, timeout=60)
    assert_no_traceback(r)
    assert r.rc == 1, r.describe()
    assert GOOD_WORDS in mirror_text(good_proj)


def test_refetch_truncated_body_keeps_good_text(good_proj, server, tmp_path):
    """A response cut short (Content-Length larger than the body) is a failure, never the new mirror."""
    path = SHARED_PAGE
    server.set(path, good_article()[:300], **{"Content-Length": "100000"})
    r = _refetch(good_proj, timeout=60)
    assert_no_traceback(r)
    assert GOOD_WORDS in mirror_text(good_proj)


def test_fetch_sigkill_midway_keeps_good_mirror(good_proj, server, tmp_path):
    """SIGKILL during a slow re-download keeps the good mirror; the next fetch leaves no staging folder."""
    path = SHARED_PAGE
    raw = good_proj.raw("page").parent
    before = sorted(p.name for p in raw.iterdir())
    server.set(path, trickle(b"<p>" + b"slow words " * 100 + b"</p>", 0.05, 30))
    proc = subprocess.Popen([*CORPUS_BUILD, "fetch", "page", "--force"], cwd=good_proj.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env(), start_new_session=True)
    time.sleep(3)
    kill_group(proc)
    assert GOOD_WORDS in mirror_text(good_proj), "a killed fetch lost the good mirror"
    server.set(path, good_article())
    r = _refetch(good_proj)
    assert_ok(r)
    after = sorted(p.name for p in raw.iterdir())
    assert after == before, f"staging left in raw/ after the next fetch: {sorted(set(after) - set(before))}"


def test_fetch_deeply_nested_html(fetch_proj, server, tmp_path):
    """A page nested 100,000 elements deep is mirrored or fails in one line, never a traceback."""
    body = "<html><head><title>Deep</title></head><body>" + "<div>" * 100_000 + "deep words here" + "</div>" * 100_000 + "</body></html>"
    url = server.set(f"/{tmp_path.name}/page", body)
    fetch_proj.append_source("page", url, "Deep")
    r = cb("fetch", "page", cwd=fetch_proj.root, timeout=120)
    assert_no_traceback(r)


def test_fetch_bogus_charset_and_bytes(fetch_proj, server, tmp_path):
    """A page declaring an unknown charset with invalid bytes is mirrored or fails in one line, never a traceback."""
    body = b"<html><head><meta charset='x-no-such-charset'><title>\xff\xfe\x00bad</title></head><body><main><p>" + bytes(range(256)) * 50 + b"</p></main></body></html>"
    url = server.set(f"/{tmp_path.name}/page", body, content_type="text/html; charset=x-no-such-charset")
    fetch_proj.append_source("page", url, "Charset")
    r = cb("fetch", "page", cwd=fetch_proj.root, timeout=120)
    assert_no_traceback(r)


def test_fetch_redirect_loop_one_line(fetch_proj, server, tmp_path):
    """A redirect loop fails that source in one line (exit 1), never a traceback."""
    a, b = f"/{tmp_path.name}/a", f"/{tmp_path.name}/b"
    server.set(a, b"", status=302, Location=server.url(b))
    server.set(b, b"", status=302, Location=server.url(a))
    fetch_proj.append_source("page", server.url(a), "Loop")
    r = cb("fetch", "page", cwd=fetch_proj.root, timeout=120)
    assert_no_traceback(r)
    assert r.rc == 1, r.describe()


def test_fetch_raw_symlink_outside_refused(fetch_proj, server, tmp_path):
    """A raw/<id> symlink that leads out of corpus/ stops the fetch before it writes there."""
    url = server.set(f"/{tmp_path.name}/page", good_article())
    fetch_proj.append_source("page", url)
    fetch_proj.raw("page").parent.mkdir(parents=True, exist_ok=True)
    os.symlink(fetch_proj.outside, fetch_proj.raw("page"))
    before = snapshot(fetch_proj.outside)
    r = cb("fetch", "page", cwd=fetch_proj.root, timeout=120)
    assert snapshot(fetch_proj.outside) == before, f"fetch wrote through a symlink out of corpus/; {r.describe()}"
    assert_no_traceback(r)
    assert r.rc != 0, r.describe()


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--jobs", "99999999999999999999"], ["--max-bytes", "-1"], ["--rewrite", "no-equals-sign"]])
def test_fetch_bad_option_values(fetch_proj, args):
    """fetch with an impossible option value is refused in one line (exit 2) before any download."""
    r = cb("fetch", *args, cwd=fetch_proj.root, timeout=60)
    assert_refused(r, (2,))


def test_font_bomb_published_once(fetch_proj, server, tmp_path):
    """One 100 KB font named by 15 @font-face rules is published about once, not 15 times."""
    prefix = f"/{tmp_path.name}"
    font = b"wOF2" + b"\x00\x01\x00\x00" + os.urandom(100_000)
    server.set(f"{prefix}/font.woff2", font, content_type="font/woff2")
    css = "".join(f"@font-face {{ font-family: f{i}; src: url(font.woff2) format('woff2'); }}\n.c{i} {{ font-family: f{i}; }}\n" for i in range(15))
    server.set(f"{prefix}/f.css", css, content_type="text/css")
    page = good_article().replace("</title>", f"</title><link rel=stylesheet href='{prefix}/f.css'>").replace("<main>", "<main>" + "".join(f"<span class=c{i}>x</span>" for i in range(15)))
    fetch_proj.append_source("page", server.set(f"{prefix}/page", page))
    assert_ok(cb("fetch", "page", cwd=fetch_proj.root, timeout=120))
    r = cb("build", cwd=fetch_proj.root, timeout=300)
    assert_ok(r)
    published = tree_bytes(fetch_proj.site / "sources" / "page")
    fetched = len(page) + len(css) + len(font)
    assert published <= 1.4 * fetched + 100_000, f"the archive publishes {published:,} bytes from {fetched:,} fetched (a font inlined once per rule)"


def test_style_attributes_not_amplified(fetch_proj, server, tmp_path):
    """3,000 distinct style= attributes publish no more style bytes than the page carried."""
    attrs = [f"color:#{i:06x};margin-left:{i % 97}px" for i in range(3000)]
    page = good_article().replace("<main>", "<main><p>" + "".join(f"<span style='{a}'>w</span>" for a in attrs) + "</p>")
    fetch_proj.append_source("page", server.set(f"/{tmp_path.name}/page", page))
    assert_ok(cb("fetch", "page", cwd=fetch_proj.root, timeout=120))
    r = cb("build", cwd=fetch_proj.root, timeout=300)
    assert_ok(r)
    css = sum(p.stat().st_size for p in (fetch_proj.site / "sources" / "page").rglob("*.css"))
    carried = sum(len(a) for a in attrs)
    assert css <= carried, f"{len(attrs)} style attributes ({carried:,} bytes) became {css:,} bytes of published CSS"
