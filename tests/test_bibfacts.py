"""Bibliographic facts: the registry's fields are validated at their line, and merged with the mirror's."""

from __future__ import annotations

import pytest

from corpus_build import registry
from corpus_build.core import bibfacts
from corpus_build.core.provenance import Document, Extractor, Provenance, RepoFacts, Status, ThreadFacts, write_provenance
from tests.corpus_fixture import SOURCES_GPU, write_corpus

GPU = "corpus/01-gpu/sources.yaml"
ASCEND = "corpus/02-ascend/sources.yaml"
PAPER = """\
- id: tl-paper
  title: "TileLang: A Composable Tiled Programming Model"
  url: https://arxiv.org/abs/2504.17577
  kind: paper
  lang: en
  note: The paper.
"""


def with_fields(fields: str) -> dict[str, str]:
    """The fixture's GPU section plus the paper entry, `fields` (YAML lines) added to the paper from line FIELDS on."""
    return {"01-gpu/sources.yaml": SOURCES_GPU + PAPER + fields}


FIELDS = SOURCES_GPU.count("\n") + PAPER.count("\n") + 1  # the first added line
CASES = [
    ("date-month-13", "  date: 2025-13\n", FIELDS, "not a real date"),
    ("date-day-31-feb", "  date: '2025-02-31'\n", FIELDS, "not a real date"),
    ("date-words", "  date: April 2025\n", FIELDS, "is not YYYY, YYYY-MM or YYYY-MM-DD"),
    ("date-with-time", "  date: 2025-04-24 10:00:00\n", FIELDS, "has a time of day; write the day only, e.g. 2025-04-24"),
    ("date-list", "  date: [2025]\n", FIELDS, "must be a date: YYYY"),
    ("authors-text", "  authors: Lei Wang\n", FIELDS, "must be a list of names"),
    ("authors-number", "  authors:\n    - Lei Wang\n    - 42\n", FIELDS + 2, "item 2 of 'authors'"),
    ("authors-empty-name", "  authors: [Lei Wang, '  ']\n", FIELDS, "author 2 of source 'tl-paper' is empty"),
    ("doi-as-link", "  doi: https://doi.org/10.1145/2491956.2462176\n", FIELDS, "write the bare DOI: `doi: 10.1145/2491956.2462176`"),
    ("doi-not-a-doi", "  doi: acm/2491956.2462176\n", FIELDS, "is not a DOI"),
    ("arxiv-prefix", "  arxiv: 'arXiv:2504.17577'\n", FIELDS, "write the bare id: `arxiv: 2504.17577`"),
    ("arxiv-not-an-id", "  arxiv: tilelang\n", FIELDS, "is not an arXiv id"),
    ("arxiv-contradicts-url", "  arxiv: '2504.17578'\n", FIELDS, "differs from the id in its URL (2504.17577)"),
    ("venue-not-text", "  venue: {name: OSDI}\n", FIELDS, "'venue' of source 'tl-paper' must be text"),
    ("field-typo", "  author: [Lei Wang]\n", FIELDS, "did you mean 'authors'"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_wrong_bibliographic_field_is_reported_at_its_line(tmp_path, case):
    _, fields, line, words = case
    corpus = write_corpus(tmp_path, with_fields(fields))
    errors = [p for p in registry.check(corpus) if p.severity == "error"]
    assert [p for p in errors if p.path == GPU and p.line == line and words in p.message], "\n".join(map(str, errors))
    assert len(errors) == 1, "one message per mistake:\n" + "\n".join(map(str, errors))


def test_bibliographic_fields_load_in_their_normal_form(tmp_path):
    fields = "  authors: [Lei Wang, 'Cheng, Yu', 昇腾团队]\n  date: 2025-04-24\n  venue: ICLR 2026\n  doi: 10.48550/arXiv.2504.17577\n  arxiv: 2504.17577v2\n  version: 2\n"
    corpus = registry.load(write_corpus(tmp_path, with_fields(fields)))
    paper = corpus.source("tl-paper")
    assert paper.authors == ("Lei Wang", "Cheng, Yu", "昇腾团队")
    assert (paper.date, paper.venue, paper.doi, paper.arxiv, paper.version) == ("2025-04-24", "ICLR 2026", "10.48550/arXiv.2504.17577", "2504.17577v2", "2")
    for written, stored in (("2025", "2025"), ("2025-04", "2025-04"), ("'2025-04-01'", "2025-04-01")):
        corpus = registry.load(write_corpus(tmp_path, with_fields(f"  date: {written}\n")))
        assert corpus.source("tl-paper").date == stored
    assert corpus.source("tilelang").authors == () and corpus.source("tilelang").date == ""


# --- merging with the mirror -----------------------------------------------------------------


def record(source_id: str, kind: str, url: str, **values) -> Provenance:
    return Provenance(id=source_id, kind=kind, cited_url=url, status=Status.OK, fetched_at="2026-11-30T23:30:00Z", **values)


def test_the_mirror_fills_what_the_registry_leaves_out_and_says_from_where(tmp_path):
    corpus = registry.load(write_corpus(tmp_path, with_fields("")))
    paper = corpus.source("tl-paper")
    rec = record(
        "tl-paper", "paper", paper.url,
        document=Document(authors=("Wang, Lei", "Xu, Yu"), published="2025/04/24", doi="10.48550/arXiv.2504.17577", facts_from="citation-meta"),
        extractor=Extractor("pymupdf"),
    )
    facts = bibfacts.facts_of(paper, rec)
    assert facts.authors == bibfacts.Fact(("Wang, Lei", "Xu, Yu"), "citation-meta")
    assert facts.date == bibfacts.Fact("2025-04-24", "citation-meta")
    assert facts.doi.value == "10.48550/arXiv.2504.17577" and facts.doi.origin == "citation-meta"
    assert facts.arxiv == bibfacts.Fact("2504.17577", "url")  # named by the cited URL itself
    assert facts.accessed == "2026-11-30"
    assert facts.disputes() == []


def test_registry_wins_and_a_disagreement_is_kept(tmp_path):
    fields = "  authors: [Lei Wang, Yu Xu]\n  date: 2024\n  venue: OSDI 2024\n"
    corpus = registry.load(write_corpus(tmp_path, with_fields(fields)))
    paper = corpus.source("tl-paper")
    same = record("tl-paper", "paper", paper.url, document=Document(authors=("Xu, Yu", "Wang, Lei"), published="2024-02-21", facts_from="citation-meta"))
    facts = bibfacts.facts_of(paper, same)
    # Same people in another order and form, and a day within the registry's year: no dispute.
    assert facts.authors.origin == "registry" and not facts.authors.disputed
    assert facts.date == bibfacts.Fact("2024", "registry")
    differs = record("tl-paper", "paper", paper.url, document=Document(authors=("Ada Lovelace",), published="2023-12-01", venue="ASPLOS 2024", facts_from="pdf-metadata"))
    facts = bibfacts.facts_of(paper, differs)
    assert facts.authors == bibfacts.Fact(("Lei Wang", "Yu Xu"), "registry", ("Ada Lovelace",), "pdf-metadata")
    assert facts.date.value == "2024" and facts.date.other == "2023-12-01"
    assert [name for name, _ in facts.disputes()] == ["authors", "date", "venue"]


def test_repository_is_cited_at_its_pinned_commit_and_a_pr_by_its_author(tmp_path):
    corpus = registry.load(write_corpus(tmp_path))
    repo = corpus.source("tilelang")
    rec = record("tilelang", "repo", repo.url, repo=RepoFacts(commit="a" * 40, commit_date="2026-11-29T18:00:00+08:00", swhid="swh:1:rev:" + "a" * 40),
                 document=Document(title="TileLang", facts_from="git"))
    write_provenance(corpus.raw_dir(repo), rec)
    pull = corpus.source("tilelang-pr-2900")
    write_provenance(corpus.raw_dir(pull), record("tilelang-pr-2900", "pull", pull.url, thread=ThreadFacts(number=2900, author="alice", created_at="2026-10-01T02:00:00Z")))
    facts = bibfacts.all_facts(corpus)
    assert facts["tilelang"].commit == "a" * 40 and facts["tilelang"].date == bibfacts.Fact("2026-11-29", "git")
    assert facts["tilelang"].authors == bibfacts.Fact(("tile-ai",), "github")  # the owner, for want of named authors
    assert facts["tilelang-pr-2900"].authors == bibfacts.Fact(("alice",), "mirror")
    assert facts["tilelang-pr-2900"].date.value == "2026-10-01" and facts["tilelang-pr-2900"].number == 2900
    # Never mirrored: only what the registry and the URL say; a new-style arXiv id gives the month.
    paper = bibfacts.facts_of(registry.load(write_corpus(tmp_path / "p", with_fields(""))).source("tl-paper"), None)
    assert paper.date == bibfacts.Fact("2025-04", "arxiv-id") and paper.arxiv == bibfacts.Fact("2504.17577", "url")
    assert facts["cuda-guide"].date is None and facts["cuda-guide"].authors is None and facts["cuda-guide"].accessed == ""


@pytest.mark.parametrize("text, expected", [("2025/04/24", "2025-04-24"), ("2026-11-20T08:00:00Z", "2026-11-20"), ("2025-4", "2025-04"),
                                            ("2025", "2025"), ("D:20250424", ""), ("2025-02-30", ""), ("", "")])
def test_dates_from_provenance_are_normalised(text, expected):
    assert bibfacts.normal_date(text) == expected
