"""Publishing: site_url reaches MkDocs (sitemap, canonical links, feeds), the Atom feeds follow
RFC 4287, and the 404 page works under a sub-path in Chromium even without site_url."""

from __future__ import annotations

import contextlib
import functools
import http.server
import re
import threading
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from corpus_build import site
from corpus_build.core.errors import SiteError
from corpus_build.site import hosting
from tests import corpus_fixture
from tests.corpus_fixture import write_project
from tests.site_helpers import CHROMIUM, playwright_or_skip

ATOM = "{http://www.w3.org/2005/Atom}"
# RFC 3339 date-time (RFC 4287 §3.3): full date, time, and Z or an offset.
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
SITE_URL = "https://user.github.io/repo/"


def _with_added_dates() -> dict[str, str]:
    sources = corpus_fixture.SOURCES_GPU.replace("- id: cuda-guide\n", "- id: cuda-guide\n  added: 2026-10-20\n", 1)
    sources = sources.replace("- id: tilelang\n", "- id: tilelang\n  added: 2026-10-21\n", 1)
    assert sources.count("added:") == 2
    path = next(k for k, v in corpus_fixture.FILES.items() if v == corpus_fixture.SOURCES_GPU)
    return {path: sources}


def _set_site_url(project: Path, url: str) -> None:
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + f"site_url: {url}\n", encoding="utf-8")


def _is_absolute_iri(value: str) -> bool:
    parts = urlsplit(value)
    return bool(parts.scheme) and not re.search(r"\s", value) and (parts.scheme in ("urn", "tag") or bool(parts.netloc))


def check_atom(xml: str, *, absolute_links: bool) -> list[str]:
    """RFC 4287's rules for a feed document; returns the violations found (empty: valid)."""
    problems: list[str] = []
    root = ET.fromstring(xml)
    if root.tag != ATOM + "feed":
        return [f"root element is {root.tag}, not atom:feed"]

    def one(element, name: str, where: str):
        found = element.findall(ATOM + name)
        if len(found) != 1:
            problems.append(f"{where} has {len(found)} atom:{name}, needs exactly one")
        return found[0] if found else None

    def check_links(element, where: str) -> list[ET.Element]:
        links = element.findall(ATOM + "link")
        for link in links:
            href = link.get("href")
            if not href:
                problems.append(f"{where} has an atom:link without href")
            elif absolute_links and not _is_absolute_iri(href):
                problems.append(f"{where} link {href!r} is not an absolute IRI")
        alternates = [(l.get("type"), l.get("hreflang")) for l in links if l.get("rel", "alternate") == "alternate"]
        if len(alternates) != len(set(alternates)):
            problems.append(f"{where} has two alternate links with the same type and hreflang")
        return links

    for name in ("id", "title", "updated"):
        one(root, name, "feed")
    feed_id = root.find(ATOM + "id")
    if feed_id is not None and not _is_absolute_iri(feed_id.text or ""):
        problems.append(f"feed id {feed_id.text!r} is not an absolute IRI")
    updated = root.find(ATOM + "updated")
    if updated is not None and not RFC3339.match(updated.text or ""):
        problems.append(f"feed updated {updated.text!r} is not an RFC 3339 date-time")
    feed_authors = root.findall(ATOM + "author")
    for author in feed_authors:
        if not (author.findtext(ATOM + "name") or "").strip():
            problems.append("feed author has no atom:name")
    links = check_links(root, "feed")
    if not any(l.get("rel") == "self" for l in links):
        problems.append("feed has no rel=self link (RFC 4287 §4.2.7.2 SHOULD)")
    if not any(l.get("rel", "alternate") == "alternate" for l in links):
        problems.append("feed has no alternate link")
    ids = []
    for index, entry in enumerate(root.findall(ATOM + "entry")):
        where = f"entry {index + 1}"
        for name in ("id", "title", "updated"):
            one(entry, name, where)
        entry_id = entry.findtext(ATOM + "id") or ""
        ids.append(entry_id)
        if not _is_absolute_iri(entry_id):
            problems.append(f"{where} id {entry_id!r} is not an absolute IRI")
        if not RFC3339.match(entry.findtext(ATOM + "updated") or ""):
            problems.append(f"{where} updated is not an RFC 3339 date-time")
        if not feed_authors and not entry.findall(ATOM + "author"):
            problems.append(f"{where} has no atom:author and the feed has none")
        entry_links = check_links(entry, where)
        if entry.find(ATOM + "content") is None and not any(l.get("rel", "alternate") == "alternate" for l in entry_links):
            problems.append(f"{where} has neither atom:content nor an alternate link")
    if len(ids) != len(set(ids)):
        problems.append("two entries share an atom:id")
    return problems


def test_the_checker_catches_what_the_old_feed_got_wrong():
    old = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>urn:corpus-build:My Corpusfeed.xml</id>
<updated>2026-10-22T00:00:00Z</updated><link rel="self" href="feed.xml"/>
<entry><title>D</title><id>urn:corpus-build:digest:2026-10-22</id><link href="digests/2026-10-22/"/>
<updated>2026-10-22</updated></entry></feed>"""
    problems = check_atom(old, absolute_links=False)
    assert any("feed id" in p for p in problems)
    assert any("no atom:author" in p for p in problems)
    assert any("RFC 3339" in p for p in problems)


def test_feeds_are_valid_atom_without_site_url(tmp_path):
    project = write_project(tmp_path, _with_added_dates())
    built = site.build(project, strict=True)
    for name in ("feed.xml", "sources.xml"):
        xml = (built / name).read_text(encoding="utf-8")
        assert check_atom(xml, absolute_links=False) == [], name
    sources = ET.fromstring((built / "sources.xml").read_text(encoding="utf-8"))
    titles = [e.findtext(ATOM + "title") for e in sources.findall(ATOM + "entry")]
    assert titles == ["TileLang", "CUDA C++ Programming Guide"]  # newest first, only dated sources
    # The same ids on the next build: feed readers must not see entries twice.
    again = site.build(project, strict=True)
    assert (again / "sources.xml").read_text(encoding="utf-8") == (built / "sources.xml").read_text(encoding="utf-8")
    assert sitemap_urls(built) == []  # MkDocs cannot write addresses it does not know


def sitemap_urls(built: Path) -> list[str]:
    tree = ET.parse(built / "sitemap.xml")
    return [loc.text or "" for loc in tree.iter("{http://www.sitemaps.org/schemas/sitemap/0.9}loc")]


def test_site_url_from_corpus_yaml_reaches_sitemap_canonical_links_and_feeds(tmp_path):
    project = write_project(tmp_path, _with_added_dates())
    _set_site_url(project, SITE_URL)
    built = site.build(project, strict=True)
    urls = sitemap_urls(built)
    assert SITE_URL in urls and SITE_URL + "sources/tilelang/" in urls
    assert all(u.startswith(SITE_URL) for u in urls)
    index = (built / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")
    assert f'<link rel="canonical" href="{SITE_URL}sources/tilelang/">' in index
    for name in ("feed.xml", "sources.xml"):
        xml = (built / name).read_text(encoding="utf-8")
        assert check_atom(xml, absolute_links=True) == [], name
    feed = ET.fromstring((built / "sources.xml").read_text(encoding="utf-8"))
    assert feed.findtext(ATOM + "id") == SITE_URL + "sources.xml"
    first = feed.find(ATOM + "entry")
    assert first.findtext(ATOM + "id") == SITE_URL + "sources/tilelang/"
    assert first.find(ATOM + "link").get("href") == SITE_URL + "sources/tilelang/"
    # With the address known, MkDocs roots the 404 page at it; nothing to rewrite.
    assert 'href="/repo/assets/' in (built / "404.html").read_text(encoding="utf-8")


def test_environment_variable_overrides_corpus_yaml(tmp_path, monkeypatch):
    project = write_project(tmp_path)
    _set_site_url(project, "https://old.example.org/")
    monkeypatch.setenv(hosting.SITE_URL_ENV, "https://user.github.io/other")
    built = site.build(project, strict=True)
    assert all(u.startswith("https://user.github.io/other/") for u in sitemap_urls(built))
    assert "https://user.github.io/other/feed.xml" in (built / "feed.xml").read_text(encoding="utf-8")


def test_a_bad_site_url_is_one_clear_error(tmp_path, monkeypatch):
    project = write_project(tmp_path)
    monkeypatch.setenv(hosting.SITE_URL_ENV, "user.github.io/repo")
    with pytest.raises(SiteError) as caught:
        site.build(project, strict=True)
    message = str(caught.value)
    assert "CORPUS_BUILD_SITE_URL" in message and "https://" in message


def test_resolve_site_url_order():
    env = {hosting.SITE_URL_ENV: "https://a.example/x"}
    assert hosting.resolve_site_url("https://b.example/", None, env) == "https://a.example/x/"
    assert hosting.resolve_site_url("https://b.example", "https://c.example/", {}) == "https://b.example/"
    assert hosting.resolve_site_url("", "https://c.example/", {}) == "https://c.example/"
    assert hosting.resolve_site_url("", None, {}) == ""


def test_pages_workflow_sets_site_url_from_the_repository():
    workflow = (corpus_fixture.PROJECT_ROOT / ".github" / "workflows" / "pages.yml").read_text(encoding="utf-8")
    assert "actions/configure-pages" in workflow
    assert f"{hosting.SITE_URL_ENV}: ${{{{ steps.pages.outputs.base_url }}}}" in workflow


# --- the 404 page under /repo/ in Chromium ----------------------------------------------------


class _PagesLikeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves `site/` under /repo/ and answers a missing path with site/404.html, as GitHub Pages does."""

    site: Path

    def log_message(self, *args) -> None:
        pass

    def translate_path(self, path: str) -> str:
        clean = urlsplit(path).path
        if not clean.startswith("/repo/"):
            return str(self.site / "__nothing__")
        return str(self.site / clean[len("/repo/") :].lstrip("/"))

    def send_error(self, code, message=None, explain=None):
        if code != 404:
            return super().send_error(code, message, explain)
        body = (self.site / "404.html").read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


@contextlib.contextmanager
def serve_under_repo(site_dir: Path):
    handler = type("Handler", (_PagesLikeHandler,), {"site": site_dir})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/repo/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("missing", ["no-such-page/", "sources/no-such-source/deeper/", "sources/missing.html"])
def test_404_under_a_sub_path_loads_its_styles(tmp_path, missing):
    sync_api = playwright_or_skip()
    project = write_project(tmp_path)
    built = site.build(project, strict=True)
    with serve_under_repo(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        page = browser.new_page()
        failed: list[str] = []
        page.on("response", lambda r: r.status >= 400 and r.url != base + missing and not r.url.endswith("404.html") and failed.append(f"{r.status} {r.url}"))
        page.on("requestfailed", lambda r: failed.append(f"failed {r.url}"))
        response = page.goto(base + missing)
        assert response is not None and response.status == 404
        page.wait_for_load_state("networkidle")
        sheets = page.evaluate("() => [...document.styleSheets].filter(s => s.href && s.href.includes('/repo/assets/stylesheets/main.')).map(s => s.cssRules.length)")
        assert sheets and sheets[0] > 100, sheets  # Material's stylesheet loaded and parsed
        header = page.evaluate("() => getComputedStyle(document.querySelector('.md-header')).position")
        assert header in ("sticky", "fixed"), header  # styled, not a bare document
        home = page.locator("a.md-header__button.md-logo").get_attribute("href")
        assert page.evaluate("h => new URL(h, document.baseURI).pathname", home) == "/repo/"
        # Chromium's preload scanner guesses relative addresses against the missing page's
        # folder before the script sets <base>; those guesses may fail. Nothing else may.
        guessed = base + missing[: missing.rfind("/") + 1]
        assert [f for f in failed if not (missing.count("/") and f.split(" ", 1)[1].startswith(guessed))] == []
        browser.close()
