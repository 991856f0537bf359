"""`corpus-build add` reads the new source's page for title, authors and date (a real server on 127.0.0.1)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from corpus_build import registry
from corpus_build.cli import main
from tests.corpus_fixture import CORPUS_YAML, write_project
from tests.fetch.server import FixtureServer

ARTICLE = """<!doctype html><html lang="en"><head><title>Site name | ignored</title>
<meta name="citation_title" content="Tiles &amp; Layouts: A Study">
<meta name="citation_author" content="Wang, Lei"><meta name="citation_author" content="Ada Lovelace">
<meta name="citation_publication_date" content="2025/04/24">
</head><body><article><p>Body text about tiles.</p></article></body></html>"""
BLOG = """<!doctype html><html><head><title>A blog post on TMA</title>
<meta name="author" content="Grace Hopper"><meta property="article:published_time" content="2026-03-05T10:00:00+08:00">
</head><body><article><h1>A blog post on TMA</h1><p>Some text about the tensor memory accelerator.</p></article></body></html>"""


@pytest.fixture
def server():
    srv = FixtureServer().start()
    yield srv
    srv.stop()


@pytest.fixture
def online(monkeypatch):
    monkeypatch.delenv("CORPUS_BUILD_OFFLINE", raising=False)


def run(project, *args) -> int:
    return main(["--project", str(project), *args])


def added_field_expected(entry) -> None:
    assert entry.added == dt.date.today()


def test_title_authors_and_date_come_from_the_pages_citation_tags(tmp_path, server, online, capsys):
    project = write_project(tmp_path)
    server.add("/paper.html", ARTICLE)
    assert run(project, "add", server.url("/paper.html"), "--section", "01", "--note", "Why it matters.") == 0, capsys.readouterr()
    captured = capsys.readouterr()
    assert "placeholder" not in captured.out + captured.err
    corpus = registry.load(project / "corpus")
    [source] = [s for s in corpus.sources if s.url == server.url("/paper.html")]
    assert source.id == "tiles-layouts-a-study"  # derived from the page's title
    assert (source.title, source.authors, source.date) == ("Tiles & Layouts: A Study", ("Wang, Lei", "Ada Lovelace"), "2025-04-24")
    added_field_expected(source)
    assert server.count("/paper.html") == 1


def test_without_citation_tags_the_pages_own_metadata_is_used(tmp_path, server, online):
    project = write_project(tmp_path)
    server.add("/blog", BLOG)
    assert run(project, "add", server.url("/blog"), "--section", "01", "--id", "tma-blog") == 0
    source = registry.load(project / "corpus").source("tma-blog")
    assert (source.title, source.authors, source.date) == ("A blog post on TMA", ("Grace Hopper",), "2026-03-05")


def test_arxiv_abstract_page_through_the_corpus_rewrites(tmp_path, server, online):
    project = write_project(tmp_path, {"corpus.yaml": CORPUS_YAML + f"rewrites:\n  https://arxiv.org/: {server.url('/arxiv/')}\n"})
    server.add("/arxiv/abs/2401.00001", ARTICLE)
    assert run(project, "add", "https://arxiv.org/abs/2401.00001", "--section", "02") == 0
    source = registry.load(project / "corpus").source("arxiv-2401.00001")
    assert source.url == "https://arxiv.org/abs/2401.00001" and source.title == "Tiles & Layouts: A Study"
    assert server.count("/arxiv/abs/2401.00001") == 1


def test_a_pull_request_through_the_github_api(tmp_path, server, online, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", server.url("/api"))
    server.add("/api/repos/tile-ai/tilelang/issues/3070", json.dumps({"title": "[Feature] Ascend backend", "user": {"login": "bob"}, "created_at": "2026-10-21T02:00:00Z"}),
               content_type="application/json")
    project = write_project(tmp_path)
    assert run(project, "add", "https://github.com/tile-ai/tilelang/pull/3070", "--section", "02") == 0
    source = registry.load(project / "corpus").source("tilelang-pr-3070")
    assert (source.title, source.authors, source.date) == ("[Feature] Ascend backend", ("bob",), "2026-10-21")


def test_an_unreachable_page_leaves_a_placeholder_title_and_says_so(tmp_path, server, online, capsys):
    project = write_project(tmp_path)
    assert run(project, "add", server.url("/gone"), "--section", "01", "--id", "gone") == 0
    out = capsys.readouterr().err  # warnings go to stderr (the CLI's one convention)
    assert "warning: wrote a placeholder title '127.0.0.1:" in out and "the page could not be read" in out and "404" in out
    source = registry.load(project / "corpus").source("gone")
    assert source.title == server.url("/gone").split("://", 1)[1] and source.authors == () and source.date == ""


def test_offline_sends_nothing_and_warns_about_the_placeholder(tmp_path, server, capsys):
    project = write_project(tmp_path)
    server.add("/paper.html", ARTICLE)
    assert run(project, "add", server.url("/paper.html"), "--section", "01", "--id", "p", "--offline") == 0
    assert server.hits == []
    out = capsys.readouterr().err
    assert "warning: wrote a placeholder title '127.0.0.1:" in out and "(--offline)" in out
    source = registry.load(project / "corpus").source("p")
    added_field_expected(source)
