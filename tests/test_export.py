"""The exports parse back with real tools (bibtexparser, citeproc-py, rispy) and carry the facts."""

from __future__ import annotations

import json
import re

import bibtexparser
import pytest
import rispy
from bibtexparser import middlewares
from citeproc import (
    Citation,
    CitationItem,
    CitationStylesBibliography,
    CitationStylesStyle,
    formatter,
)
from citeproc.source.json import CiteProcJSON

from corpus_build import registry
from corpus_build.core import bibfacts
from corpus_build.core.provenance import Document, Extractor, Provenance, RepoFacts, Status, ThreadFacts, write_provenance
from corpus_build.render import build_pages, export
from tests.corpus_fixture import PROJECT_ROOT, SOURCES_GPU, write_corpus

STYLE = "harvard-cite-them-right"  # bundled with citeproc-py
PAPER = """\
- id: tl-paper
  title: "TileLang: A Composable Tiled Programming Model for AI Systems"
  url: https://arxiv.org/abs/2504.17577
  kind: paper
  lang: en
  chapters: [1]
  authors: [Lei Wang, "Cheng, Yu", 王磊, DeepSeek-AI]
  date: 2025-04-24
  note: The paper, 50% of it about {layouts} & C# \\ back-slashes.
- id: halide
  title: "Halide: A Language and Compiler for Optimizing Parallelism"
  url: https://doi.org/10.1145/2491956.2462176
  kind: paper
  lang: en
  date: 2013
  venue: PLDI 2013
  note: The schedule/algorithm split.
"""


@pytest.fixture
def corpus(tmp_path):
    root = write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU + PAPER})
    corpus = registry.load(root)
    repo = corpus.source("tilelang")
    write_provenance(corpus.raw_dir(repo), Provenance(
        id="tilelang", kind="repo", cited_url=repo.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
        repo=RepoFacts(commit="0123456789abcdef0123456789abcdef01234567", commit_date="2026-11-28T10:00:00+08:00", swhid="swh:1:rev:0123456789abcdef0123456789abcdef01234567"),
        document=Document(title="TileLang", facts_from="git"), extractor=Extractor("git"),
    ))
    pull = corpus.source("tilelang-pr-2900")
    write_provenance(corpus.raw_dir(pull), Provenance(
        id=pull.id, kind="pull", cited_url=pull.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
        thread=ThreadFacts(number=2900, author="bob", created_at="2026-10-01T02:00:00Z", merged=True, merged_at="2026-10-05T09:00:00Z"),
        document=Document(title=pull.title, authors=("bob",), published="2026-10-01T02:00:00Z", facts_from="github"), extractor=Extractor("github-rest"),
    ))
    guide = corpus.source("cuda-guide")
    write_provenance(corpus.raw_dir(guide), Provenance(
        id=guide.id, kind="docs", cited_url=guide.url, status=Status.OK, fetched_at="2026-11-29T02:00:00Z",
        document=Document(title="CUDA C++ Programming Guide", published="2026-06-01", authors=("NVIDIA",), facts_from="html-meta"), extractor=Extractor("trafilatura"),
    ))
    return corpus


def parse_bibtex(text: str):
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()])
    assert library.failed_blocks == [], [b.error for b in library.failed_blocks]
    return library


def render_csl(items: list[dict]) -> dict[str, str]:
    """Each item's reference as citeproc-py renders it (one bibliography per item: no guessing which is which)."""
    style = CitationStylesStyle(STYLE, validate=False)
    source = CiteProcJSON(items)
    rendered = {}
    for item in items:
        bibliography = CitationStylesBibliography(style, source, formatter.plain)
        bibliography.register(Citation([CitationItem(item["id"])]))
        [entry] = bibliography.bibliography()
        rendered[item["id"]] = str(entry)
    return rendered


def test_bibtex_parses_back_with_authors_dates_ids_and_kept_case(corpus):
    files = export.export_files(corpus, bibfacts.all_facts(corpus))
    library = parse_bibtex(files["corpus.bib"])
    entries = {e.key: e for e in library.entries}
    assert set(entries) == {s.id for s in corpus.sources}
    paper = entries["tl-paper"]
    assert paper.entry_type == "misc"
    names = paper["author"]
    assert [(n.last, n.first) for n in names[:2]] == [(["Wang"], ["Lei"]), (["Cheng"], ["Yu"])]
    assert [n.last for n in names[2:]] == [["{王磊}"], ["{DeepSeek-AI}"]]  # kept whole, not split
    assert paper["title"] == "{TileLang: A Composable Tiled Programming Model for AI Systems}"
    assert (paper["year"], paper["month"], paper["date"]) == ("2025", "4", "2025-04-24")
    assert (paper["eprint"], paper["archiveprefix"]) == ("2504.17577", "arXiv")
    assert paper["annote"] == r"The paper, 50\% of it about \{layouts\} \& C\# \textbackslash{} back-slashes."
    halide = entries["halide"]
    assert (halide.entry_type, halide["booktitle"], halide["doi"], halide["year"]) == ("inproceedings", "PLDI 2013", "10.1145/2491956.2462176", "2013")
    repo = entries["tilelang"]
    assert repo.entry_type == "software" and repo["version"] == "commit 0123456789ab"
    assert repo["note"] == "Commit 0123456789abcdef0123456789abcdef01234567 (2026-11-28)" and repo["date"] == "2026-11-28"
    assert repo["urldate"] == "2026-11-30" and repo["swhid"].startswith("swh:1:rev:0123")
    assert entries["tilelang-pr-2900"]["date"] == "2026-10-01" and entries["tilelang-pr-2900"]["note"] == r"Pull request \#2900, merged 2026-10-05"
    assert "urldate" not in entries["zhihu-port"] and "date" not in entries["zhihu-port"]  # no address, never fetched


def test_csl_json_renders_in_a_standard_style_without_no_date_where_a_date_is_known(corpus):
    items = json.loads(export.csl_json(corpus, facts=bibfacts.all_facts(corpus)))
    by_id = {item["id"]: item for item in items}
    assert by_id["tl-paper"]["title"] == '<span class="nocase">TileLang: A Composable Tiled Programming Model for AI Systems</span>'
    assert by_id["tl-paper"]["author"][:2] == [{"family": "Wang", "given": "Lei"}, {"family": "Cheng", "given": "Yu"}]
    assert by_id["tl-paper"]["issued"] == {"date-parts": [[2025, 4, 24]]} and by_id["tl-paper"]["number"] == "arXiv:2504.17577"
    assert by_id["cuda-guide"]["accessed"] == {"date-parts": [[2026, 11, 29]]}
    assert by_id["tilelang"]["version"] == "commit 0123456789ab"
    rendered = render_csl(items)
    for source_id, text in rendered.items():
        dated = "issued" in by_id[source_id]
        assert ("n.d." in text or "no date" in text) is not dated, (source_id, text)
    assert "Wang, L." in rendered["tl-paper"] and "(2025)" in rendered["tl-paper"]
    assert "TileLang: A Composable" in rendered["tl-paper"]  # nocase: the style did not recase it
    assert "tile-ai (2026)" in rendered["tilelang"] and "bob (2026)" in rendered["tilelang-pr-2900"]
    assert "PLDI 2013" in rendered["halide"] and "(2013)" in rendered["halide"]


def test_ris_parses_back_with_rispy(corpus):
    records = {r["id"]: r for r in rispy.loads(export.ris(corpus, facts=bibfacts.all_facts(corpus)))}
    assert set(records) == {s.id for s in corpus.sources}
    paper = records["tl-paper"]
    assert paper["type_of_reference"] == "UNPB"
    assert paper["authors"] == ["Wang, Lei", "Cheng, Yu", "王磊", "DeepSeek-AI"]
    assert (paper["year"], paper["date"]) == ("2025", "2025/04/24/")
    assert records["halide"]["type_of_reference"] == "CPAPER" and records["halide"]["doi"] == "10.1145/2491956.2462176"
    repo = records["tilelang"]
    assert repo["type_of_reference"] == "COMP" and repo["edition"] == "commit 0123456789ab" and repo["access_date"] == "2026/11/30/"
    assert any("Commit 0123456789abcdef" in note for note in repo["notes"])
    assert records["cuda-guide"]["keywords"] == ["cuda"]
    assert "Pull request #2900, merged 2026-10-05" in records["tilelang-pr-2900"]["notes"]


def test_per_section_and_per_chapter_files_are_written_and_parse(corpus):
    pages = build_pages(corpus)
    for ext in ("bib", "json", "ris"):
        assert f"corpus.{ext}" in pages
        assert f"export/sections/01-gpu.{ext}" in pages and f"export/sections/02-ascend.{ext}" in pages
        assert f"export/chapters/01.{ext}" in pages and f"export/chapters/02.{ext}" in pages
    chapter = parse_bibtex(pages["export/chapters/01.bib"])
    # The reading path in its order, then the other sources that name the chapter.
    assert [e.key for e in chapter.entries] == ["cuda-guide", "tilelang", "deepgemm-ascend", "tl-paper"]
    section = json.loads(pages["export/sections/02-ascend.json"])
    assert [i["id"] for i in section] == [s.id for s in corpus.section("02-ascend").sources]
    assert len(rispy.loads(pages["export/sections/01-gpu.ris"])) == len(corpus.section("01-gpu").sources)


def test_section_chapter_and_all_sources_pages_link_their_export_files(corpus):
    pages = build_pages(corpus)
    for page, stem in (("sections/02-ascend.md", "../export/sections/02-ascend"), ("chapters/01.md", "../export/chapters/01"),
                       ("sources/index.md", "../corpus")):
        assert f"[BibTeX]({stem}.bib) · [RIS]({stem}.ris) · [CSL-JSON]({stem}.json)" in pages[page], page
    for target in ("export/sections/02-ascend.bib", "export/chapters/01.ris", "corpus.ris"):
        assert target in pages  # every linked file is written


def test_hostile_text_cannot_break_out_of_a_bibtex_field(tmp_path):
    hostile = SOURCES_GPU.replace("title: TileLang", 'title: "Tile}Lang, @misc{evil, title={x} %"').replace(
        "https://github.com/tile-ai/tilelang", "https://github.com/tile-ai/tilelang?q=%7Ba%7D%20b")  # raw { } is a registry error
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": hostile}))
    library = parse_bibtex(export.bibtex(corpus))
    entries = {e.key: e for e in library.entries}
    assert set(entries) == {s.id for s in corpus.sources}  # no entry smuggled in
    assert entries["tilelang"]["title"] == r"{Tile\}Lang, @misc\{evil, title=\{x\} \%}"
    assert entries["tilelang"]["url"] == "https://github.com/tile-ai/tilelang?q=%7Ba%7D%20b"


SPECIAL = re.compile(r"(?<!\\)[#%&_$]")  # a LaTeX special character without its backslash


def test_every_bibtex_field_escapes_the_same_characters(tmp_path):
    """`#` and its kin are escaped in the note, version, venue, keywords and the PR's note as in the title;
    only the addresses (url, doi) stay verbatim, as biblatex reads them."""
    odd = SOURCES_GPU.replace("title: TileLang", 'title: "C# & TileLang_100%"').replace(
        "  tags: [tilelang]", "  tags: [c#, tile_lang]\n  version: v1_#2\n  venue: 'Ascend #1 & $5'").replace(
        "The main repository.", "The main repository: see #42, 100% & $x_1$.")
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": odd}))
    pull = corpus.source("tilelang-pr-2900")
    write_provenance(corpus.raw_dir(pull), Provenance(
        id=pull.id, kind="pull", cited_url=pull.url, status=Status.OK, fetched_at="2026-11-30T02:00:00Z",
        thread=ThreadFacts(number=2900, author="bob", created_at="2026-10-01T02:00:00Z", merged=True, merged_at="2026-10-05T09:00:00Z"),
        document=Document(authors=("bob_the #1",), facts_from="github"), extractor=Extractor("github-rest"),
    ))
    library = parse_bibtex(export.bibtex(corpus, facts=bibfacts.all_facts(corpus)))
    checked = set()
    for entry in library.entries:
        for field in entry.fields:
            if field.key in ("url", "doi"):
                continue
            value = field.value if isinstance(field.value, str) else " and ".join(str(n) for n in field.value)
            assert not SPECIAL.search(value), (entry.key, field.key, value)
            checked.add(field.key)
    assert {"title", "annote", "note", "keywords", "version", "howpublished", "author"} <= checked
    entries = {e.key: e for e in library.entries}
    assert entries["tilelang"]["annote"].startswith(r"The main repository: see \#42, 100\% \& \$x\_1\$.")
    assert entries["tilelang-pr-2900"]["note"] == r"Pull request \#2900, merged 2026-10-05"
    assert entries["tilelang"]["keywords"] == r"c\#, tile\_lang" and entries["tilelang"]["version"].startswith(r"v1\_\#2")


def test_the_default_corpus_exports_parse_and_dated_entries_never_render_no_date(tmp_path):
    corpus = registry.load(PROJECT_ROOT / "corpus")
    facts = bibfacts.all_facts(corpus)
    library = parse_bibtex(export.bibtex(corpus, facts=facts))
    assert len(library.entries) == len(corpus.sources)
    items = json.loads(export.csl_json(corpus, facts=facts))
    rendered = render_csl(items)
    dated = [i["id"] for i in items if "issued" in i]
    for source_id in dated:
        assert not re.search(r"n\.d\.|no date", rendered[source_id]), rendered[source_id]
    assert len(rispy.loads(export.ris(corpus, facts=facts))) == len(corpus.sources)
