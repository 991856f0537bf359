"""A good mirror, then the server answers worse. Every variant is one source of one project, so one
`fetch --force` judges them all at once: each mirror must stay byte for byte, `status` must say
the last fetch did not give a good copy (also after a plain `fetch` that follows), and the built
site must still show the old text. A control source whose page got better must be replaced.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from tests.hostile_mirror.conftest import ZH_SENTENCE, Project, article, pdf_bytes, sentence, zh_article
from tests.hostile_mirror.server import LocalServer
from tests.hostile_outside.harness import Run, assert_no_traceback, assert_ok

LOGIN = "<!doctype html><html><head><meta charset=utf-8><title>Sign in · Tiles blog</title></head><body><main><h1>Sign in to continue</h1><p>Members only. Please sign in to read this article.</p><form method=post action=/login><input name=user><input type=password name=password><button>Sign in</button></form></main></body></html>"
SOFT_404 = "<!doctype html><html><head><meta charset=utf-8><title>Page not found | Tiles blog</title></head><body><main><h1>Page not found</h1><p>Sorry, the page you are looking for does not exist or has been moved.</p><p><a href='/'>Back to the home page</a></p></main></body></html>"
BLURB = "The Tiles blog has written about GPU kernels, compilers and the people who build them since 2019, with long essays on scheduling, memory hierarchies and the craft of performance work."
SOFT_404_LONG = (
    "<!doctype html><html><head><meta charset=utf-8><title>404 - Page Not Found</title></head><body><main><h1>Sorry, we could not find that page</h1>"
    + "".join(f"<p>{BLURB} Essay {i} of our archive is still here for you to read.</p>" for i in range(30))
    + "</main></body></html>"
)
COOKIE_ONLY = (
    "<!doctype html><html><head><meta charset=utf-8><title>Tiles explained</title></head><body>"
    "<div id=cookie-banner class='cookie-consent'><h2>We value your privacy</h2><p>We and our 842 partners use cookies to store and access information on your device for personalised ads and content, measurement and audience insights.</p>"
    "<button>Accept all</button><button>Reject all</button><a href='/privacy'>Manage preferences</a></div><main id=content></main></body></html>"
)
FRONT_PAGE = (
    "<!doctype html><html><head><meta charset=utf-8><title>Tiles blog</title></head><body><main><h1>Tiles blog</h1>"
    + "".join(f"<p>{BLURB} This week, story {i}: a long read about warps, caches and pipelines that many readers asked for.</p>" for i in range(40))
    + "</main></body></html>"
)
OTHER_FRONT = (
    "<!doctype html><html><head><meta charset=utf-8><title>Example Gardens</title></head><body><main><h1>Welcome to Example Gardens</h1>"
    + "".join(f"<p>Spring planting guide {i}: tomatoes, beans and squash like warm soil, full sun and steady water; mulch keeps the roots cool through the summer.</p>" for i in range(60))
    + "</main></body></html>"
)
CAPTCHA = "<!doctype html><html><head><meta charset=utf-8><title>Just a moment...</title></head><body><main><h1>Checking your browser before accessing the site.</h1><p>This process is automatic. Your browser will redirect to your requested content shortly.</p></main></body></html>"
ZH_BLURB = "本博客自二〇一九年起持续撰写关于图形处理器内核、编译器以及构建它们的人的长文，涵盖调度、存储层次与性能优化的方方面面。"
SOFT_404_ZH_LONG = (
    "<!doctype html><html lang=zh><head><meta charset=utf-8><title>页面不存在 - 昇腾博客</title></head><body><main><h1>抱歉，您访问的页面不存在</h1>"
    + "".join(f"<p>{ZH_BLURB}第{i}篇旧文仍可阅读。</p>" for i in range(36))
    + "</main></body></html>"
)
META_REFRESH = "<!doctype html><html><head><meta charset=utf-8><meta http-equiv=refresh content='0; url=/'><title>Tiles explained</title></head><body><p>This article has moved. <a href='/'>Continue</a></p></body></html>"
LANDING = "<!doctype html><html><head><meta charset=utf-8><title>Tiles explained | Journal of Kernels</title></head><body><main><h1>Tiles explained</h1><h2>Abstract</h2><p>We describe a tile scheduler.</p><p><a href='/buy'>Purchase PDF ($39.95)</a></p></main></body></html>"


@dataclass(frozen=True)
class Variant:
    kind: str  # the source's kind
    worse: Callable[[LocalServer, LocalServer, str], None]  # sets the worse answer for the path


def _html(body: str | bytes, **kw) -> Callable[[LocalServer, LocalServer, str], None]:
    return lambda s, o, path: s.set(path, body, **kw) and None


def _redirect_to(target: Callable[[LocalServer, LocalServer, str], str]) -> Callable[[LocalServer, LocalServer, str], None]:
    return lambda s, o, path: s.set(path, b"", status=301, Location=target(s, o, path)) and None


def _login_redirect(s: LocalServer, o: LocalServer, path: str) -> None:
    s.set("/login", LOGIN)
    s.set(path, b"", status=302, Location=s.url("/login") + "?next=" + path)


def _truncated_html(s: LocalServer, o: LocalServer, path: str) -> None:
    full = article(path).encode()
    s.set(path, full[: len(full) // 3], announced_length=len(full))


def _truncated_chunked(s: LocalServer, o: LocalServer, path: str) -> None:
    # A chunked body that stops before its last (empty) chunk: the connection just closes.
    full = article(path).encode()
    cut = full[: len(full) * 6 // 10]

    def gen():
        for start in range(0, len(cut), 1000):
            piece = cut[start : start + 1000]
            yield f"{len(piece):x}\r\n".encode() + piece + b"\r\n"

    s.set(path, gen, **{"Transfer-Encoding": "chunked"})


def _truncated_gzip(s: LocalServer, o: LocalServer, path: str) -> None:
    # A gzip stream cut at 60% (no end of stream, no trailer) sent with a Content-Length that
    # matches what is sent: HTTP says complete, the encoding says cut short.
    full = gzip.compress(article(path).encode(), compresslevel=1)
    s.set(path, full[: len(full) * 6 // 10], **{"Content-Encoding": "gzip"})


def _truncated_pdf(s: LocalServer, o: LocalServer, path: str) -> None:
    full = pdf_bytes(path)
    s.set(path, full[: len(full) // 2], content_type="application/pdf", announced_length=len(full))


def _utf8_declared_latin1(s: LocalServer, o: LocalServer, path: str) -> None:
    # The same UTF-8 bytes, now declared ISO-8859-1 by the server (and no <meta>): a misconfigured
    # server turns every Chinese character into three Latin-1 letters.
    s.set(path, zh_article().replace("<meta charset=utf-8>", ""), content_type="text/html; charset=iso-8859-1")


def _mojibake_cp1252_meta(s: LocalServer, o: LocalServer, path: str) -> None:
    # The same UTF-8 bytes, now with a <meta> that declares windows-1252 and no charset in the header
    # (a template change): read as declared, every Chinese character becomes three Latin letters.
    s.set(path, zh_article().replace("<meta charset=utf-8>", "<meta charset=windows-1252>"), content_type="text/html")


def _mojibake_cp1252_header(s: LocalServer, o: LocalServer, path: str) -> None:
    s.set(path, zh_article().replace("<meta charset=utf-8>", ""), content_type="text/html; charset=windows-1252")


def _gbk_undeclared(s: LocalServer, o: LocalServer, path: str) -> None:
    # The good page was GBK declared in the header; now nothing declares it (a server move).
    s.set(path, zh_article().replace("<meta charset=utf-8>", "").encode("gbk"), content_type="text/html")


def _mojibake_gbk(s: LocalServer, o: LocalServer, path: str) -> None:
    # GBK bytes declared as UTF-8: every Chinese character becomes U+FFFD.
    s.set(path, zh_article().replace("<meta charset=utf-8>", "").encode("gbk"), content_type="text/html; charset=utf-8")


def _garbage_pdf(s: LocalServer, o: LocalServer, path: str) -> None:
    s.set(path, b"%PDF-1.7\n" + os.urandom(20_000) + b"\n%%EOF\n", content_type="application/pdf")


def _pdf_withdrawn(s: LocalServer, o: LocalServer, path: str) -> None:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((36, 48), "This article has been withdrawn at the request of the authors.", fontsize=10)
    s.set(path, doc.tobytes(), content_type="application/pdf")
    doc.close()


HTML, PDF, ZH, ZH_GBK = "article", "paper", "zh", "zh-gbk"

VARIANTS: dict[str, Variant] = {
    "gone-404": Variant(HTML, _html(SOFT_404, status=404)),
    "gone-410": Variant(HTML, _html(SOFT_404, status=410)),
    "error-500": Variant(HTML, _html("<html><body><h1>Internal Server Error</h1></body></html>", status=500)),
    "error-503-long": Variant(HTML, _html(FRONT_PAGE, status=503)),
    "soft-404": Variant(HTML, _html(SOFT_404)),
    "soft-404-long": Variant(HTML, _html(SOFT_404_LONG)),
    "login-wall": Variant(HTML, _html(LOGIN)),
    "login-redirect": Variant(HTML, _login_redirect),
    "shorter": Variant(HTML, lambda s, o, path: s.set(path, article(path, paragraphs=10)) and None),
    "empty-200": Variant(HTML, _html(b"")),
    "truncated": Variant(HTML, _truncated_html),
    "truncated-chunked": Variant(HTML, _truncated_chunked),
    "truncated-gzip": Variant(HTML, _truncated_gzip),
    "cookie-banner-only": Variant(HTML, _html(COOKIE_ONLY)),
    "home-redirect": Variant(HTML, _redirect_to(lambda s, o, path: s.url("/"))),
    "other-site-front": Variant(HTML, _redirect_to(lambda s, o, path: o.url("/"))),
    "captcha": Variant(HTML, _html(CAPTCHA)),
    "meta-refresh-home": Variant(HTML, _html(META_REFRESH)),
    "bad-gzip": Variant(HTML, _html(b"this is not gzip at all " * 200, **{"Content-Encoding": "gzip"})),
    "redirect-then-404": Variant(HTML, _redirect_to(lambda s, o, path: s.url("/nowhere/at/all"))),
    "no-content-204": Variant(HTML, _html(b"", status=204)),
    "bogus-304": Variant(HTML, _html(b"", status=304)),
    "plain-text-error": Variant(HTML, _html("Service temporarily unavailable, try again later.", content_type="text/plain; charset=utf-8")),
    "soft-404-zh-long": Variant(ZH, _html(SOFT_404_ZH_LONG)),
    "pdf-withdrawn": Variant(PDF, _pdf_withdrawn),
    "pdf-now-html": Variant(PDF, _html(LANDING)),
    "pdf-garbage": Variant(PDF, _garbage_pdf),
    "pdf-truncated": Variant(PDF, _truncated_pdf),
    "pdf-type-error-page": Variant(PDF, _html(SOFT_404, content_type="application/pdf")),
    "utf8-declared-latin1": Variant(ZH, _utf8_declared_latin1),
    "mojibake-gbk": Variant(ZH, _mojibake_gbk),
    "gbk-undeclared": Variant(ZH_GBK, _gbk_undeclared),
    "utf8-meta-cp1252": Variant(ZH, _mojibake_cp1252_meta),
    "utf8-header-cp1252": Variant(ZH, _mojibake_cp1252_header),
}
BETTER = "better"  # control: the page grew; this one must be replaced
# Not worse for a reader: UTF-8 bytes a server or a <meta> declares ISO-8859-1 or windows-1252
# are read as UTF-8 (they are valid UTF-8 and Chinese), GBK bytes nothing declares any more are
# detected, so the text stays the same; these are checked on their own.
READ_RIGHT = ("utf8-declared-latin1", "utf8-meta-cp1252", "utf8-header-cp1252", "gbk-undeclared")
# A 304 to a request that asked for no validation is the server saying "nothing changed": the tool
# may take it at its word (an unchanged fetch refreshes provenance's check time), but must keep
# every file of the mirror.
SAYS_UNCHANGED = "bogus-304"
WORSE = [name for name in VARIANTS if name not in (*READ_RIGHT, SAYS_UNCHANGED)]


def _path(name: str) -> str:
    return f"/worse/{name}.pdf" if VARIANTS.get(name, Variant(HTML, _html(""))).kind == PDF else f"/worse/{name}"


def _good(server: LocalServer, name: str) -> str:
    path = _path(name)
    kind = VARIANTS[name].kind if name in VARIANTS else HTML
    if kind == PDF:
        return server.set(path, pdf_bytes(path), content_type="application/pdf")
    if kind == ZH:
        return server.set(path, zh_article())
    if kind == ZH_GBK:
        return server.set(path, zh_article().replace("<meta charset=utf-8>", "").encode("gbk"), content_type="text/html; charset=gbk")
    return server.set(path, article(path))


def good_words(name: str) -> str:
    """A sentence of the good mirror (what the site must keep showing)."""
    kind = VARIANTS[name].kind if name in VARIANTS else HTML
    if kind == PDF:
        return sentence(_path(name), 5)[:60]
    if kind in (ZH, ZH_GBK):
        return ZH_SENTENCE[:20]
    return sentence(_path(name), 5)


@dataclass
class Outcome:
    proj: Project
    before: dict[str, dict[str, str]]
    before_bytes: dict[str, dict[str, bytes]]
    forced: Run
    after: dict[str, dict[str, str]]
    status_forced: dict[str, dict]
    again: Run
    status_again: dict[str, dict]
    build: Run


def _files(proj: Project, name: str) -> dict[str, bytes]:
    raw = proj.raw(name)
    return {str(p.relative_to(raw)): p.read_bytes() for p in sorted(raw.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def outcome(template, server, other_site, tmp_path_factory) -> Outcome:
    root = tmp_path_factory.mktemp("worse") / "proj"
    shutil.copytree(template, root, symlinks=True)
    proj = Project(root)
    server.set("/", article("front", 3, title="Tiles blog"))
    for name in [*VARIANTS, BETTER]:
        variant = VARIANTS.get(name)
        kind = "paper" if variant and variant.kind == PDF else "article"
        lang = "zh" if variant and variant.kind in (ZH, ZH_GBK) else "en"
        proj.add(name, _good(server, name), kind=kind, lang=lang, title=f"Source {name}")
    first = proj.cb("fetch", timeout=120)
    assert_ok(first)
    for name in [*VARIANTS, BETTER]:
        assert proj.text(name), f"the good page of {name} was not mirrored: {first.describe()}\n{first.out}"
    before = {name: proj.mirror(name) for name in VARIANTS}
    before_bytes = {name: _files(proj, name) for name in VARIANTS}
    # The site's front page becomes a real front page; another site's too.
    server.set("/", FRONT_PAGE)
    other_site.set("/", OTHER_FRONT)
    for name, variant in VARIANTS.items():
        variant.worse(server, other_site, _path(name))
    server.set(_path(BETTER), article(_path(BETTER) + "-v2", paragraphs=60))
    forced = proj.cb("fetch", "--force", timeout=120)
    after = {name: proj.mirror(name) for name in VARIANTS}
    status_forced = proj.status()
    again = proj.cb("fetch", timeout=120)
    status_again = proj.status()
    build = proj.cb("build", timeout=180)
    outcome = Outcome(proj, before, before_bytes, forced, after, status_forced, again, status_again, build)
    # Restore the shared server's routes the other modules may use.
    server.set("/", article("front", 3, title="Tiles blog"))
    return outcome


def test_runs_end_cleanly(outcome):
    """The forced fetch against 20 worse answers and the plain fetch after it: no traceback, exit 1 (sources did not give a good copy)."""
    for r in (outcome.forced, outcome.again):
        assert_no_traceback(r)
    assert outcome.forced.rc == 1, f"a fetch in which sources answered 404/500 must exit 1: {outcome.forced.describe()}"
    assert_ok(outcome.build)


@pytest.mark.parametrize("name", WORSE)
def test_mirror_kept_byte_for_byte(outcome, name):
    """The worse answer leaves raw/<id>/ exactly as it was: every file, provenance.json included."""
    if outcome.after[name] != outcome.before[name]:
        now = _files(outcome.proj, name)
        was = outcome.before_bytes[name]
        changed = sorted(k for k in set(now) | set(was) if now.get(k) != was.get(k))
        detail = ""
        if "provenance.json" in changed and "provenance.json" in now and "provenance.json" in was:
            a, b = json.loads(was["provenance.json"]), json.loads(now["provenance.json"])
            detail = "; provenance fields changed: " + ", ".join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)))
        text = outcome.proj.text(name)
        pytest.fail(f"{name}: the worse answer changed the mirror: {changed}{detail}; text.md now starts {text[:160]!r}; fetch said: {_row(outcome.forced, name)}")


@pytest.mark.parametrize("name", WORSE)
def test_status_is_honest(outcome, name):
    """After the worse answer, `status` does not call the mirror ok/unchanged and says why; a plain fetch that follows does not wash that out."""
    for label, status in (("after fetch --force", outcome.status_forced), ("after a plain fetch that followed", outcome.status_again)):
        rec = status[name]
        assert rec["state"] not in ("ok", "unchanged"), f"{name} {label}: status says {rec['state']!r} although the server answers worse; fetch said: {_row(outcome.forced, name)}"
        assert rec["error"], f"{name} {label}: state {rec['state']!r} with no reason: {rec}"


@pytest.mark.parametrize("name", WORSE)
def test_site_shows_old_text(outcome, name):
    """The built site still shows the good mirror's text for the source."""
    page = outcome.proj.root / "site" / "sources" / name / "text" / "index.html"
    assert page.is_file(), f"{name}: no text page in the site: {sorted(p.name for p in page.parent.parent.iterdir()) if page.parent.parent.is_dir() else 'no source folder'}"
    html = page.read_text(encoding="utf-8")
    assert good_words(name) in html, f"{name}: the site's text page no longer shows the good text"


def test_better_page_replaces_mirror(outcome):
    """Control: a page that grew (60 paragraphs, new words) replaces the mirror, and status says ok."""
    text = outcome.proj.text(BETTER)
    assert sentence(_path(BETTER) + "-v2", 50) in text, f"the better page was not mirrored: {_row(outcome.forced, BETTER)}"
    assert outcome.status_forced[BETTER]["state"] == "ok", outcome.status_forced[BETTER]


def _row(r: Run, name: str) -> str:
    rows = [line for line in (r.out + "\n" + r.err).splitlines() if name in line]
    return " | ".join(rows)[:600] or "(no line names it)"


@pytest.mark.parametrize("name", READ_RIGHT)
def test_mislabelled_utf8_still_reads(outcome, name):
    """UTF-8 Chinese now declared ISO-8859-1 or windows-1252, GBK no longer declared: whatever fetch keeps, text.md and the site still read as Chinese, not mojibake."""
    text = outcome.proj.text(name)
    assert ZH_SENTENCE in text, f"the mirror's text is no longer the Chinese text: {text[:200]!r}"
    html = (outcome.proj.root / "site" / "sources" / name / "text" / "index.html").read_text(encoding="utf-8")
    assert ZH_SENTENCE[:20] in html


def test_unasked_304_keeps_files(outcome):
    """A 304 answered to `fetch --force` keeps every file of the mirror (provenance may record the check)."""
    now = _files(outcome.proj, SAYS_UNCHANGED)
    was = outcome.before_bytes[SAYS_UNCHANGED]
    changed = sorted(k for k in set(now) | set(was) if now.get(k) != was.get(k) and k != "provenance.json")
    assert not changed, f"a 304 changed the mirror's files: {changed}"
    assert outcome.status_forced[SAYS_UNCHANGED]["state"] in ("ok", "unchanged", "kept", "failed")


def test_source_pages_say_copies_kept(outcome):
    """Where fetch kept the old copy (a declined capture, not a failed download), the source's page says the last fetch returned less and did not replace it."""
    kept = [name for name in WORSE if outcome.status_forced[name]["state"] == "kept"]
    assert len(kept) >= 10, f"expected most worse answers to be declined captures, got {kept}"
    silent = [name for name in kept if "did not replace it" not in (outcome.proj.root / "site" / "sources" / name / "index.html").read_text(encoding="utf-8")]
    assert not silent, f"source pages that do not say the old copy was kept: {silent}"
