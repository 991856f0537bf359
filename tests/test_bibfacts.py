"""Bibliographic facts: the registry's fields are validated at their line, and merged with the mirror's."""

from __future__ import annotations

import datetime as dt
import json

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
    facts = bibfacts.facts_of(paper, rec, tz=dt.UTC)
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
    facts = bibfacts.facts_of(paper, same, tz=dt.UTC)
    # Same people in another order and form, and a day within the registry's year: no dispute.
    assert facts.authors.origin == "registry" and not facts.authors.disputed
    assert facts.date == bibfacts.Fact("2024", "registry")
    differs = record("tl-paper", "paper", paper.url, document=Document(authors=("Ada Lovelace",), published="2023-12-01", venue="ASPLOS 2024", facts_from="pdf-metadata"))
    facts = bibfacts.facts_of(paper, differs, tz=dt.UTC)
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
    paper = bibfacts.facts_of(registry.load(write_corpus(tmp_path / "p", with_fields(""))).source("tl-paper"), None, tz=dt.UTC)
    assert paper.date == bibfacts.Fact("2025-04", "arxiv-id") and paper.arxiv == bibfacts.Fact("2504.17577", "url")
    assert facts["cuda-guide"].date is None and facts["cuda-guide"].authors is None and facts["cuda-guide"].accessed == ""


@pytest.mark.parametrize("text, expected", [("2025/04/24", "2025-04-24"), ("2026-11-20T08:00:00Z", "2026-11-20"), ("2025-4", "2025-04"),
                                            ("2025", "2025"), ("D:20250424", ""), ("2025-02-30", ""), ("", "")])
def test_dates_from_provenance_are_normalised(text, expected):
    assert bibfacts.normal_date(text) == expected


# --- dates: only sound ones, each in the corpus's time zone -----------------------------------

TODAY = dt.date(2026, 12, 2)


@pytest.mark.parametrize("arxiv_id, month", [
    ("2504.17577", "2025-04"), ("2504.17577v2", "2025-04"), ("0704.0001", "2007-04"), ("1412.6980", "2014-12"),
    ("1501.00001", "2015-01"), ("hep-th/9901001", "1999-01"), ("math.GT/0309136", "2003-09"), ("cs/0703001v2", "2007-03"),
    ("9901.00002", ""),  # neither style: new-style ids of 2099 do not exist (yet), and old-style ones have an archive
    ("0703.1234", ""),  # new-style ids began in April 2007
    ("1501.0001", ""), ("1412.00001", ""),  # four digits until 2014, five since 2015
    ("2613.00001", ""), ("2701.00001", ""),  # no month 13; a month that has not come yet
    ("hep-th/0704001", ""), ("hep-th/9107001", ""),  # old-style ids ran from 1991-08 to 2007-03
    ("tilelang", ""),
])
def test_an_arxiv_id_gives_a_month_only_where_arxiv_could_have_issued_it(arxiv_id, month):
    assert bibfacts.arxiv_month(arxiv_id, today=TODAY) == month


FAKE_ARXIV = """\
- id: fake-arxiv
  title: A paper with a made-up identifier
  url: https://arxiv.org/abs/9901.00002
  kind: paper
  lang: en
  note: Test entry.
"""


def test_a_made_up_arxiv_id_dates_nothing_in_the_cite_box_or_any_export(tmp_path):
    from corpus_build.render import citation, export
    from corpus_build.render.labels import Labels
    from corpus_build.render.places import paths

    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU + FAKE_ARXIV}))
    paper = corpus.source("fake-arxiv")
    facts = bibfacts.all_facts(corpus)
    assert facts["fake-arxiv"].date is None and facts["fake-arxiv"].arxiv.value == "9901.00002"
    box = citation.box(corpus, paper, Labels("zh"), paths.source(paper.id), facts)
    files = export.export_files(corpus, facts)
    assert "2099" not in box and "1999" not in box
    for name, text in files.items():
        assert "2099" not in text and "1999" not in text, name
    [item] = [i for i in json.loads(files["corpus.json"]) if i["id"] == "fake-arxiv"]
    assert "issued" not in item


MERGED_LATE = "2017-03-25T18:30:00Z"  # 02:30 on the 26th in Beijing


@pytest.mark.parametrize("zone, day", [(None, "2017-03-26"), ("Asia/Shanghai", "2017-03-26"), ("UTC", "2017-03-25"), ("-08:00", "2017-03-25")])
def test_a_merge_has_one_date_in_the_corpus_zone_on_the_panel_cite_box_and_exports(tmp_path, zone, day):
    from corpus_build.render import export
    from corpus_build.render.pages import PageBuilder

    overrides = {"corpus.yaml": "title: T\nlanguages: [zh, en]\n" + (f"timezone: '{zone}'\n" if zone else "")}
    corpus = registry.load(write_corpus(tmp_path, overrides))
    pull = corpus.source("tilelang-pr-2900")
    write_provenance(corpus.raw_dir(pull), record(
        pull.id, "pull", pull.url, thread=ThreadFacts(number=2900, author="bob", created_at="2017-03-20T17:00:00Z", merged=True, merged_at=MERGED_LATE),
        document=Document(authors=("bob",), published="2017-03-20T17:00:00Z", facts_from="github"),
    ))
    page = PageBuilder(corpus).source_page(pull)
    other = "2017-03-25" if day == "2017-03-26" else "2017-03-26"
    assert f"已合并 {day}" in page  # the mirror panel's state
    assert f"#2900 合并于 {day}" in page and f"merged {day}" in page  # the cite box and its BibTeX
    files = export.export_files(corpus, bibfacts.all_facts(corpus))
    for name in ("corpus.bib", "corpus.json", "corpus.ris"):
        assert f"merged {day}" in files[name] and f"merged {other}" not in files[name], name
    assert other not in page.split("## 引用", 1)[1]
    # The day it was opened and the day it was downloaded follow the same zone.
    facts = bibfacts.all_facts(corpus)[pull.id]
    assert facts.date.value == ("2017-03-21" if day == "2017-03-26" else "2017-03-20")
    assert facts.accessed == ("2026-12-01" if day == "2017-03-26" else "2026-11-30")


# --- the work's language: the source's, never the annotation's ----------------------------------

ENGLISH = "We show that the schedule of a kernel can be separated from its algorithm, and that this is enough for the performance of hand-written code on the GPUs we study in this paper."


@pytest.mark.parametrize("text, language", [
    ("Ascend Sparse Attention Forward 算法与优化技术简析", "zh"),  # more characters than words: a Chinese title
    ("昇腾算子开发指南", "zh"), ("テンソルコンパイラの設計と実装について", "ja"), ("텐서 컴파일러 설계", "ko"),
    (ENGLISH, "en"), (ENGLISH + " 昇腾 and 算子 are the Chinese names.", "en"),
    ("Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", ""),  # a title is too short to call English
    ("Wir zeigen, dass der Ablauf eines Kernels von seinem Algorithmus getrennt werden kann, und dass dies für die Leistung "
     "von handgeschriebenem Code auf den untersuchten Grafikprozessoren ausreicht, wie diese Arbeit an vielen Beispielen belegt.", ""),
    ("", ""),
])
def test_a_text_s_language_is_named_only_when_its_letters_say_so_plainly(text, language):
    assert bibfacts.text_language(text) == language


@pytest.mark.parametrize("tag, normal", [("en-US", "en-US"), ("zh_CN", "zh-CN"), ("ZH", "zh"), ("und", ""), ("english", ""), ("", "")])
def test_a_page_s_lang_attribute_is_read_as_a_language_tag(tag, normal):
    assert bibfacts.language_tag(tag) == normal
