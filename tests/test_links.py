"""`corpus-build links` against a real HTTP server on 127.0.0.1: every verdict, the cache, robots.txt, the site."""

from __future__ import annotations

import datetime as dt
import json
import socket
from pathlib import Path

import httpx
import pytest
import yaml

from corpus_build import registry
from corpus_build.cli import main
from corpus_build.core.linkrecords import LinkState, load_results
from corpus_build.links.check import check_links
from corpus_build.links.options import LinkOptions, from_corpus, parse_duration
from corpus_build.render import build_pages
from corpus_build.render.places import paths
from tests.fetch.server import FixtureServer, Reply

DEAD_HOST = "gone-for-good.example"


@pytest.fixture
def server():
    srv = FixtureServer().start()
    yield srv
    srv.stop()


def page(title: str, body: str = "Some real content.") -> str:
    return f"<!doctype html><html><head><title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>"


def populate(server: FixtureServer) -> None:
    server.add("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    server.add("/ok", page("A fine article", "It mentions a 404 page in passing."))
    server.add("/gone", page("Gone"), status=404)
    server.add("/removed", "", status=410)
    server.add("/old", "", status=301, headers={"Location": "/new"})
    server.add("/new", page("The new home"))
    server.add("/temp", "", status=302, headers={"Location": "/ok"})
    server.add("/vanished", "", status=301, headers={"Location": "/"})
    server.add("/", page("Home"))
    server.add("/soft", page("Page not found", "Sorry."))
    server.add("/soft-zh", page("页面不存在 - 某网站", "抱歉"))
    server.add("/issue", page("ModuleNotFoundError: file not found when importing · Issue #7 · a/b"))  # a real page
    server.add("/limited", "slow down", status=429, headers={"Retry-After": "60"})
    server.add("/api-limited", "{}", status=403, content_type="application/json", headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1900000000"})
    server.add("/private/secret", page("Secret"))
    server.add("/paper.pdf", b"%PDF-1.4 fake", content_type="application/pdf")

    def no_head(request):
        if request.method == "HEAD":
            return Reply(405, b"", {"Allow": "GET"})
        return Reply(206 if "range" in request.headers else 200, page("Refuses HEAD").encode(), {"Content-Type": "text/html"})

    server.routes["/nohead"] = no_head


SOURCES = {
    "ok": "/ok", "gone": "/gone", "removed": "/removed", "old": "/old", "temp": "/temp", "vanished": "/vanished",
    "soft": "/soft", "soft-zh": "/soft-zh", "limited": "/limited", "api-limited": "/api-limited",
    "secret": "/private/secret", "paper": "/paper.pdf", "nohead": "/nohead", "issue": "/issue",
}


def write_project(root: Path, server: FixtureServer, extra: list[dict] | None = None, lang: str = "zh") -> Path:
    corpus = root / "corpus"
    (corpus / "01-main").mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(yaml.safe_dump({"title": "Links", "languages": [lang], "links": {"recheck_after": "1d", "delay": 0}}), encoding="utf-8")
    (corpus / "01-main" / "section.yaml").write_text("title: Main\n", encoding="utf-8")
    entries = [{"id": i, "title": f"Source {i}", "url": server.url(p), "kind": "article", "lang": "en", "note": "why"} for i, p in SOURCES.items()]
    entries += extra or []
    text = "# my sources, hand-written\n" + yaml.safe_dump(entries, sort_keys=False)
    (corpus / "01-main" / "sources.yaml").write_text(text, encoding="utf-8")
    return root


class DnsFailure(httpx.AsyncBaseTransport):
    """The transport seam: one host name does not resolve; everything else goes to the real network stack."""

    def __init__(self) -> None:
        self.real = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.host == DEAD_HOST:
            try:
                raise socket.gaierror(-2, "Name or service not known")
            except socket.gaierror as exc:
                raise httpx.ConnectError("[Errno -2] Name or service not known", request=request) from exc
        return await self.real.handle_async_request(request)

    async def aclose(self) -> None:
        await self.real.aclose()


def by_id(run) -> dict:
    return {r.id: r for r in run.results}


def test_every_verdict_and_a_second_run_from_the_cache(tmp_path, server):
    populate(server)
    corpus = registry.load(write_project(tmp_path, server) / "corpus")
    run = check_links(corpus, from_corpus(corpus))
    got = by_id(run)
    assert got["ok"].state is LinkState.OK
    assert got["temp"].state is LinkState.OK  # a temporary redirect is not a move
    assert got["paper"].state is LinkState.OK and got["paper"].method == "HEAD"  # not HTML: no GET needed
    assert got["nohead"].state is LinkState.OK and got["nohead"].method == "GET" and got["nohead"].status == 206
    assert got["gone"].state is LinkState.DEAD and got["gone"].status == 404
    assert got["removed"].state is LinkState.DEAD and got["removed"].status == 410
    assert got["old"].state is LinkState.MOVED and got["old"].target == server.url("/new")
    assert got["vanished"].state is LinkState.SOFT_404 and "home page" in got["vanished"].reason
    assert got["soft"].state is LinkState.SOFT_404 and "Page not found" in got["soft"].reason
    assert got["soft-zh"].state is LinkState.SOFT_404
    assert got["issue"].state is LinkState.OK  # "not found" inside a longer title is not an error page
    assert got["limited"].state is LinkState.UNKNOWN and "rate limited" in got["limited"].reason
    assert got["api-limited"].state is LinkState.UNKNOWN and "rate limited" in got["api-limited"].reason
    assert got["secret"].state is LinkState.ROBOTS
    assert server.count("/private/secret") == 0  # robots.txt honoured: never asked
    assert server.count("/robots.txt") == 1  # once per host and run
    # A GET on an HTML page asks for a range only.
    assert all(h.headers.get("range") == "bytes=0-65535" for h in server.hits if h.method == "GET" and h.path == "/ok")
    assert run.cached == 0 and run.checked == len(SOURCES)

    saved = json.loads((tmp_path / "corpus" / ".links" / "results.json").read_text(encoding="utf-8"))
    assert saved["results"]["gone"]["state"] == "dead"

    hits = len(server.hits)
    again = check_links(corpus, from_corpus(corpus))
    assert len(server.hits) == hits and again.requests == 0  # answered from the cache
    assert again.cached == len(SOURCES)
    assert {r.id: r.state for r in again.results} == {r.id: r.state for r in run.results}

    forced = check_links(corpus, from_corpus(corpus, force=True))
    assert forced.cached == 0 and len(server.hits) > hits
    assert by_id(forced)["gone"].since == got["gone"].since  # the state goes on: its start is kept


def test_results_older_than_recheck_after_are_asked_again(tmp_path, server):
    populate(server)
    corpus = registry.load(write_project(tmp_path, server) / "corpus")
    options = from_corpus(corpus, ids=("ok",))
    start = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
    check_links(corpus, options, now=start)
    assert check_links(corpus, options, now=start + dt.timedelta(hours=23)).cached == 1
    assert check_links(corpus, options, now=start + dt.timedelta(hours=25)).cached == 0


def test_dns_failure_is_unknown_for_a_week_then_dead(tmp_path, server):
    populate(server)
    extra = [{"id": "lost", "title": "Lost host", "url": f"http://{DEAD_HOST}/paper", "kind": "article", "lang": "en", "note": "why"}]
    corpus = registry.load(write_project(tmp_path, server, extra) / "corpus")
    options = from_corpus(corpus, ids=("lost",), force=True)
    first = dt.datetime(2026, 12, 1, 3, 0, tzinfo=dt.UTC)
    result = check_links(corpus, options, transport=DnsFailure(), now=first).results[0]
    assert result.state is LinkState.UNKNOWN and "does not resolve" in result.reason
    result = check_links(corpus, options, transport=DnsFailure(), now=first + dt.timedelta(days=3)).results[0]
    assert result.state is LinkState.UNKNOWN and result.dns_failing_since == "2026-12-01T03:00:00Z"
    result = check_links(corpus, options, transport=DnsFailure(), now=first + dt.timedelta(days=7, hours=1)).results[0]
    assert result.state is LinkState.DEAD and result.since == "2026-12-01T03:00:00Z"


def test_cli_exit_codes_json_fix_and_status(tmp_path, server, capsys):
    populate(server)
    project = write_project(tmp_path, server)
    sources = project / "corpus" / "01-main" / "sources.yaml"
    before = sources.read_text(encoding="utf-8")
    assert main(["--project", str(project), "links"]) == 1  # dead links found
    out = capsys.readouterr().out
    assert f"moved: old: {server.url('/old')} -> {server.url('/new')}; fix: corpus-build links --fix-moved old" in out
    assert "dead: gone:" in out and "14 links:" in out

    assert main(["--project", str(project), "links", "--json", "ok", "old"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["state"]) for r in records] == [("ok", "ok"), ("old", "moved")]

    assert main(["--project", str(project), "status"]) == 0
    out = capsys.readouterr().out
    assert "dead: gone:" in out and "moved: old:" in out
    assert main(["--project", str(project), "status", "--json"]) == 0
    rows = {r["id"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert rows["gone"]["link"] == "dead" and rows["old"]["link"] == "moved" and rows["ok"]["link"] == "ok"

    results_before = load_results(project / "corpus")
    assert main(["--project", str(project), "links", "--fix-moved", "old", "--dry-run"]) == 0
    assert f"would fix 'old': {server.url('/old')} -> {server.url('/new')}" in capsys.readouterr().out
    assert sources.read_text(encoding="utf-8") == before and load_results(project / "corpus") == results_before
    assert main(["--project", str(project), "links", "--dry-run"]) == 2  # nothing to write without --fix-moved

    assert main(["--project", str(project), "links", "--fix-moved", "old"]) == 0
    after = sources.read_text(encoding="utf-8")
    assert after == before.replace(server.url("/old") + "\n", server.url("/new") + "\n")  # that URL's bytes only
    assert registry.load(project / "corpus").by_id["old"].url == server.url("/new")
    assert "old" not in load_results(project / "corpus")  # checked afresh next time

    assert main(["--project", str(project), "links", "--fix-moved", "ok"]) == 2
    assert "not recorded as moved" in capsys.readouterr().err
    assert main(["--project", str(project), "links", "nosuch"]) == 2


def test_site_shows_dead_links_with_alternatives(tmp_path, server):
    populate(server)
    extra = [{"id": "lost-repo", "title": "A lost repository", "url": server.url("/gone-repo"), "kind": "repo", "lang": "en", "note": "why"}]
    project = write_project(tmp_path, server, extra)
    corpus = registry.load(project / "corpus")
    # A mirror of the dead repository, as `corpus-build fetch` leaves it.
    raw = corpus.raw_dir(corpus.by_id["lost-repo"])
    raw.mkdir(parents=True)
    (raw / "text.md").write_text("# README\n\nHello.\n", encoding="utf-8")
    swhid = "swh:1:rev:" + "ab" * 20
    (raw / "provenance.json").write_text(json.dumps({
        "id": "lost-repo", "kind": "repo", "cited_url": server.url("/gone-repo"), "status": "ok", "schema_version": 1,
        "fetched_at": "2026-11-20T02:00:00Z", "checked_at": "2026-11-20T02:00:00Z", "text_file": "text.md",
        "repo": {"commit": "ab" * 20, "branch": "main", "commit_date": "2026-11-01", "swhid": swhid},
    }), encoding="utf-8")
    check_links(corpus, from_corpus(corpus), now=dt.datetime(2026, 11, 30, 20, 0, tzinfo=dt.UTC))
    pages = build_pages(registry.load(project / "corpus"))

    repo_page = pages[paths.source("lost-repo")]
    assert "原链接已失效（自 2026 年 11 月 30 日）" in repo_page
    mirror_at = repo_page.index("本站镜像的文本（2026 年 11 月 20 日 抓取）](lost-repo/text.md)")
    swh_at = repo_page.index(f"https://archive.softwareheritage.org/{swhid};origin={server.url('/gone-repo')}")
    wayback_at = repo_page.index("https://web.archive.org/web/*/" + server.url("/gone-repo"))
    assert mirror_at < swh_at < wayback_at  # our mirror first, then Software Heritage, then the Wayback Machine

    soft = pages[paths.source("soft")]
    assert "原链接已失效" in soft and "Software Heritage" not in soft  # not a repository
    assert "原链接已迁移" in pages[paths.source("old")] and server.url("/new") in pages[paths.source("old")]
    assert "原链接" not in pages[paths.source("ok")] and "原链接" not in pages[paths.source("limited")]

    status = pages[paths.status]
    assert "## 失效与迁移的链接" in status
    for source_id in ("gone", "removed", "soft", "old", "lost-repo"):
        assert f"(sources/{source_id}.md)" in status.split("## 失效与迁移的链接")[1]
    assert "(sources/limited.md)" not in status.split("## 失效与迁移的链接")[1]
    assert "T20:00" not in status  # dates for readers, no raw timestamps


def test_settings_are_validated():
    assert parse_duration("3d", "x") == 3 * 86400 and parse_duration(90, "x") == 90 and parse_duration("12h", "x") == 43200
    from corpus_build.core.errors import UsageError

    with pytest.raises(UsageError, match="duration"):
        parse_duration("soon", "corpus.yaml `links.recheck_after`")
    assert LinkOptions().recheck_after == 3 * 86400


def test_requests_to_one_host_are_spaced_by_robots_crawl_delay(tmp_path, server):
    import time

    server.add("/robots.txt", "User-agent: *\nCrawl-delay: 0.3\n", content_type="text/plain")
    for i in range(4):
        server.add(f"/doc{i}.pdf", b"%PDF-1.4", content_type="application/pdf")
    stamps: list[float] = []

    class Stamped(httpx.AsyncHTTPTransport):
        """The real transport; notes when the checker hands it each document request.

        Stamped on the client side, where the pacing is promised: the server thread's arrival
        times also carry the machine's scheduling jitter, which can bring two requests closer.
        """

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path.startswith("/doc"):
                stamps.append(time.monotonic())
            return await super().handle_async_request(request)
    corpus_dir = tmp_path / "corpus"
    (corpus_dir / "01-main").mkdir(parents=True)
    (corpus_dir / "corpus.yaml").write_text("title: Polite\nlinks: {delay: 0, jobs: 4, per_host: 4}\n", encoding="utf-8")
    (corpus_dir / "01-main" / "section.yaml").write_text("title: Main\n", encoding="utf-8")
    entries = [{"id": f"doc{i}", "title": f"Doc {i}", "url": server.url(f"/doc{i}.pdf"), "kind": "paper", "lang": "en", "note": "x"} for i in range(4)]
    (corpus_dir / "01-main" / "sources.yaml").write_text(yaml.safe_dump(entries), encoding="utf-8")
    corpus = registry.load(corpus_dir)
    run = check_links(corpus, from_corpus(corpus), transport=Stamped())
    assert {r.state for r in run.results} == {LinkState.OK}
    gaps = [b - a for a, b in zip(sorted(stamps), sorted(stamps)[1:])]
    # Four jobs at once, yet one request per Crawl-delay. A loaded machine only makes gaps longer.
    assert len(stamps) == 4 and min(gaps) >= 0.3 * 0.9, gaps


def test_fix_moved_never_overwrites_an_edit_saved_while_it_checks_the_registry(tmp_path, server, capsys, monkeypatch):
    """`--fix-moved` writes the new URL, checks the registry and, when it does not validate, put
    every file back as it had read it: over an entry the user saved in the meantime."""
    from corpus_build.registry import reader

    populate(server)
    project = write_project(tmp_path, server)
    sources = project / "corpus" / "01-main" / "sources.yaml"
    assert main(["--project", str(project), "links"]) == 1  # finds 'old' moved
    capsys.readouterr()
    real_check = reader.check
    draft = "# saved by the user during the check\n- id: draft\n  title: Draft\n  url: https://example.org/draft\n  kind: not-yet\n"

    def check_while_the_user_saves(corpus_root, **kwargs):  # the user saves an entry still being typed, then the real check runs
        sources.write_text(draft + sources.read_text(encoding="utf-8"), encoding="utf-8")
        return real_check(corpus_root, **kwargs)

    monkeypatch.setattr(reader, "check", check_while_the_user_saves)
    monkeypatch.setattr(registry, "check", check_while_the_user_saves)  # links/fix.py calls it by this name
    assert main(["--project", str(project), "links", "--fix-moved", "old"]) == 1
    assert "not-yet" in capsys.readouterr().err
    assert sources.read_text(encoding="utf-8").startswith(draft)  # the user's entry is kept
