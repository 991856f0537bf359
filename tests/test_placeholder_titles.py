"""A placeholder title (`add --offline`) heals: after a fetch the site shows the mirror's title and
authors (and says so), `check` warns until the registry has the real title, and `corpus-build adopt`
writes it in without touching the rest of sources.yaml. Real server on 127.0.0.1, real fetch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from corpus_build import registry
from corpus_build.cli import main
from corpus_build.core import bibfacts
from corpus_build.fetch import FetchOptions, fetch_corpus
from corpus_build.registry.add import default_title
from corpus_build.render import build_pages
from tests.corpus_fixture import write_project
from tests.fetch.server import FixtureServer

ARTICLE = """<!doctype html><html lang="en"><head><title>Tiles &amp; Layouts: A Study | Example</title>
<meta name="citation_title" content="Tiles &amp; Layouts: A Study">
<meta name="citation_author" content="Wang, Lei"><meta name="citation_author" content="Ada Lovelace">
</head><body><article><h1>Tiles &amp; Layouts: A Study</h1><p>Body text about tiles, layouts and the kernels that use them.</p></article></body></html>"""


@pytest.fixture
def server():
    srv = FixtureServer().start()
    yield srv
    srv.stop()


def run(project, *args) -> int:
    return main(["--project", str(project), *args])


def options(server) -> FetchOptions:
    return FetchOptions(jobs=1, per_host=1, backoff=0.01, max_backoff=0.1, retries=0, total_timeout=10, read_timeout=5,
                        extract_workers=0, recheck_after=0, github_api_url=server.url("/api"))


def placeholder_warnings(project) -> list:
    return [p for p in registry.check(project / "corpus") if p.code == "placeholder-title"]


def test_a_placeholder_title_gives_way_to_the_mirrors_until_adopt_writes_it_in(tmp_path, server, capsys, monkeypatch):
    monkeypatch.setenv("CORPUS_BUILD_OFFLINE", "1")
    project = write_project(tmp_path)
    (project / "corpus" / "corpus.yaml").write_text("title: T\nlanguages: [zh, en]\n", encoding="utf-8")
    server.add("/paper.html", ARTICLE)
    url = server.url("/paper.html")
    assert run(project, "add", url, "--section", "01", "--id", "p", "--offline", "--note", "为什么值得读。") == 0
    assert capsys.readouterr().err.count("placeholder") == 1  # add says it once, with its reason
    placeholder = url.split("://", 1)[1]
    corpus = registry.load(project / "corpus")
    assert corpus.source("p").title == placeholder
    # Before any fetch, check keeps saying so (it used to say it once, at add).
    [warning] = placeholder_warnings(project)
    assert warning.severity == "warning" and warning.path == "corpus/01-gpu/sources.yaml" and warning.line == corpus.source("p").line
    assert f"'{placeholder}'" in warning.message and "corpus-build fetch p" in warning.message

    [result] = fetch_corpus(corpus, replace(options(server), ids=("p",)))
    assert result.status.value == "ok", result.error
    [warning] = placeholder_warnings(project)
    assert "the mirror found 'Tiles & Layouts: A Study'" in warning.message and "corpus-build adopt p" in warning.message

    pages = build_pages(registry.load(project / "corpus"))
    page = pages["sources/p.md"]
    assert "# Tiles &amp; Layouts: A Study" in page or "# Tiles & Layouts: A Study" in page, page[:400]
    assert "Tiles &amp; Layouts: A Study[EB/OL]" in page and "Lei Wang, Ada Lovelace." in page  # the cite box
    assert "标题取自原页面的引用元数据；登记表中只有占位标题“" + placeholder + "”。" in page  # said once, in the reader's language
    assert "Tiles" in pages["index.md"] and placeholder not in pages["index.md"]  # home: recently added
    for name, before in (("corpus.bib", "title = {{"), ("corpus.json", '<span class=\\"nocase\\">'), ("corpus.ris", "TI  - ")):
        assert before + "Tiles" in pages[name] and before + placeholder not in pages[name], name
    assert "author = {Wang, Lei and Lovelace, Ada}" in pages["corpus.bib"]

    # adopt writes the title and authors in, and only that: the comment and every other line stay.
    sources_yaml = project / "corpus" / "01-gpu" / "sources.yaml"
    before = sources_yaml.read_text(encoding="utf-8")
    capsys.readouterr()
    assert run(project, "adopt", "--dry-run") == 0
    assert "would write title 'Tiles & Layouts: A Study' and authors Wang, Lei, Ada Lovelace" in capsys.readouterr().out
    assert sources_yaml.read_text(encoding="utf-8") == before
    assert run(project, "adopt") == 0
    after = sources_yaml.read_text(encoding="utf-8")
    removed = [line for line in before.splitlines() if line not in after.splitlines()]
    added = [line for line in after.splitlines() if line not in before.splitlines()]
    assert removed == [f"  title: {placeholder}"]
    assert added == ['  title: "Tiles & Layouts: A Study"', '  authors: ["Wang, Lei", Ada Lovelace]']
    assert after.startswith("# GPU sources — this comment must survive `corpus-build add`.\n")
    adopted = registry.load(project / "corpus").source("p")
    assert adopted.title == "Tiles & Layouts: A Study" and adopted.authors == ("Wang, Lei", "Ada Lovelace")
    assert placeholder_warnings(project) == []
    page = build_pages(registry.load(project / "corpus"))["sources/p.md"]
    assert "占位标题" not in page and "Tiles &amp; Layouts: A Study[EB/OL]" in page
    assert run(project, "adopt") == 0 and "no placeholder title that a mirror can replace" in capsys.readouterr().out


def test_adopt_names_what_it_cannot_do_and_refuses_an_unknown_id(tmp_path, capsys):
    project = write_project(tmp_path)
    assert run(project, "adopt", "cuda-guide") == 0
    assert "cuda-guide: nothing to adopt: never mirrored; run `corpus-build fetch cuda-guide` first" in capsys.readouterr().out
    assert run(project, "adopt", "no-such-id") == 2
    err = capsys.readouterr().err
    assert "no source with id 'no-such-id'" in err and "Traceback" not in err


@pytest.mark.parametrize("url", [
    "https://arxiv.org/abs/2504.17577", "https://arxiv.org/pdf/2504.17577v2", "https://github.com/tile-ai/tilelang/pull/2900",
    "https://github.com/tile-ai/tilelang", "https://github.com/tile-ai/tilelang/tree/main/docs", "https://docs.example.org/guide/",
    "https://example.org/a/b?q=1",
])
def test_the_placeholders_bibfacts_recognises_are_the_ones_add_writes(url):
    assert bibfacts.placeholder_titles(url)[0] == default_title(url)


PLACEHOLDER_ENTRY = """\
- id: tiles-study
  title: example.org/tiles-study
  url: https://example.org/tiles-study
  kind: article
  lang: zh
  added: 2026-11-30
  note: 关于分块与布局的文章。
"""


@pytest.mark.browser
@pytest.mark.slow
def test_the_reader_sees_the_mirrors_title_and_a_quiet_word_about_the_placeholder(tmp_path):
    from corpus_build import site
    from corpus_build.core.provenance import Document, Extractor, Provenance, Status, write_provenance
    from tests.corpus_fixture import SOURCES_GPU
    from tests.site_helpers import CHROMIUM, playwright_or_skip, serve

    sync_api = playwright_or_skip()
    project = write_project(tmp_path, {"corpus.yaml": "title: 语料\nlanguages: [zh, en]\n", "01-gpu/sources.yaml": SOURCES_GPU + PLACEHOLDER_ENTRY})
    corpus = registry.load(project / "corpus")
    source = corpus.source("tiles-study")
    write_provenance(corpus.raw_dir(source), Provenance(
        id=source.id, kind="article", cited_url=source.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
        document=Document(title="Tiles <b>&</b> Layouts: A Study", authors=("Wang, Lei",), facts_from="citation-meta"), extractor=Extractor("corpus-build-html"),
    ))
    built = site.build(project, strict=True)
    with serve(built) as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            page = browser.new_page()
            page.goto(base + "sources/tiles-study/")
            assert page.locator("article h1").first.inner_text().rstrip("¶") == "Tiles <b>&</b> Layouts: A Study"  # text, not markup
            assert "Tiles <b>&</b> Layouts: A Study" in page.title()
            note = page.locator(".cb-cite-dispute")
            assert note.count() == 1 and note.is_visible()
            assert note.inner_text() == "标题取自原页面的引用元数据；登记表中只有占位标题“example.org/tiles-study”。"
            assert "Lei Wang. Tiles <b>&</b> Layouts: A Study[EB/OL]." in page.locator(".cb-cite-ref").inner_text()
            page.goto(base)
            home = page.locator("article").inner_text()
            assert "Tiles <b>&</b> Layouts: A Study" in home and "example.org/tiles-study" not in home
        finally:
            browser.close()


@pytest.mark.parametrize("value", ["Plain Title", "Tiles: A Study", "C# #1", "- dash", "'quoted'", '"double"', "a, b", "[x]", "{y}", "yes", "null", "2025",
                                   "100%", "@at", "`tick`", "x - id: evil", "昇腾：算子", "tab\there", "\x1b[31mred", " lead", "trail "])
def test_adopt_writes_values_that_read_back_as_exactly_themselves(value):
    import yaml

    from corpus_build.registry.adopt import _scalar

    assert yaml.safe_load(f"title: {_scalar(value)}") == {"title": value}
    assert yaml.safe_load(f"authors: [{_scalar(value, flow=True)}, Other]") == {"authors": [value, "Other"]}
