"""The fetch kinds record what a citation needs (citation_* tags, PDF metadata, the pinned commit),
and bibfacts turns a real mirror into dated, authored export entries."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace

import bibtexparser

from corpus_build.core import bibfacts
from corpus_build.core.provenance import Status, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.render import export

from .test_kinds import make_pdf

ABS = ('<html><head><meta name="citation_title" content="TileLang: A Paper">'
       '<meta name="citation_author" content="Wang, Lei"><meta name="citation_author" content="Xu, Yu">'
       '<meta name="citation_date" content="2024/01/05"><meta name="citation_doi" content="10.48550/arXiv.2401.00001">'
       '<meta name="citation_arxiv_id" content="2401.00001"><meta name="citation_conference_title" content="ICLR 2026">'
       '<meta name="citation_pdf_url" content="https://arxiv.org/pdf/2401.00001v2"></head><body>abstract</body></html>')
DOCS = ('<!doctype html><html lang="en"><head><title>Kernel guide</title>'
        '<meta name="citation_author" content="Hopper, Grace"><meta name="citation_publication_date" content="2025-09-01">'
        '<meta name="citation_doi" content="10.1000/guide.1"></head><body><article><h1>Kernel guide</h1><p>How to write kernels, at length.</p></article></body></html>')


def test_arxiv_citation_tags_are_recorded(server, make_corpus, options):
    server.add("/arxiv/abs/2401.00001", ABS)
    server.add("/arxiv/pdf/2401.00001v2", make_pdf(1), content_type="application/pdf")
    corpus = make_corpus([{"id": "tl-paper", "url": "https://arxiv.org/abs/2401.00001", "kind": "paper"}])
    [result] = fetch_corpus(corpus, replace(options, rewrites=(("https://arxiv.org/", server.url("/arxiv/")),)))
    assert result.status is Status.OK, result.error
    doc = read_provenance(corpus.raw_dir(corpus.source("tl-paper"))).document
    assert (doc.doi, doc.arxiv_id, doc.venue, doc.facts_from) == ("10.48550/arXiv.2401.00001", "2401.00001", "ICLR 2026", "citation-meta")
    facts = bibfacts.all_facts(corpus)["tl-paper"]
    assert facts.date == bibfacts.Fact("2024-01-05", "citation-meta") and facts.authors.value == ("Wang, Lei", "Xu, Yu")
    assert facts.venue.value == "ICLR 2026" and facts.doi.value == "10.48550/arXiv.2401.00001"


def test_a_pdf_without_a_landing_page_says_its_facts_are_pdf_metadata(server, make_corpus, options):
    server.add("/paper.pdf", make_pdf(1), content_type="application/pdf")
    corpus = make_corpus([{"id": "p", "url": server.url("/paper.pdf"), "kind": "paper"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    doc = read_provenance(corpus.raw_dir(corpus.source("p"))).document
    assert doc.facts_from == "pdf-metadata" and doc.authors == ("Ada Lovelace", "Alan Turing")
    assert bibfacts.all_facts(corpus)["p"].authors == bibfacts.Fact(("Ada Lovelace", "Alan Turing"), "pdf-metadata")


def test_an_html_page_with_citation_tags_records_them(server, make_corpus, options):
    server.add("/guide", DOCS)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    doc = read_provenance(corpus.raw_dir(corpus.source("guide"))).document
    assert (doc.authors, doc.published, doc.doi, doc.facts_from) == (("Hopper, Grace",), "2025-09-01", "10.1000/guide.1", "citation-meta")
    items = json.loads(export.csl_json(corpus, facts=bibfacts.all_facts(corpus)))
    assert items[0]["issued"] == {"date-parts": [[2025, 9, 1]]} and items[0]["DOI"] == "10.1000/guide.1"
    assert items[0]["accessed"]["date-parts"][0][0] >= 2026


def test_a_mirrored_repository_is_cited_at_its_pinned_commit_and_date(server, make_corpus, options, git_remote):
    url, _work = git_remote
    corpus = make_corpus([{"id": "demo", "url": url, "kind": "repo"}])
    [result] = fetch_corpus(corpus, replace(options, allow_file_urls=True))
    assert result.status is Status.OK, result.error
    record = read_provenance(corpus.raw_dir(corpus.source("demo")))
    assert record.document.facts_from == "git"
    library = bibtexparser.parse_string(export.bibtex(corpus, facts=bibfacts.all_facts(corpus)))
    [entry] = library.entries
    # The commit's day in the corpus's zone (+08:00 here), as the mirror panel shows it; not git's own offset.
    day = dt.datetime.fromisoformat(record.repo.commit_date).astimezone(corpus.settings.tzinfo).date().isoformat()
    assert entry["note"] == f"Commit {record.repo.commit} ({day})"
    assert entry["date"] == day and entry["version"] == f"commit {record.repo.commit[:12]}"
