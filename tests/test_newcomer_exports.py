"""An organisation is one author in every export (issue 37): `{{Python Software Foundation}}` in
BibTeX, a CSL literal, one RIS name; the cite box's GB/T line already wrote it as it is."""

from __future__ import annotations

import json

import bibtexparser
import rispy
from bibtexparser import middlewares

from corpus_build import registry
from corpus_build.core import bibfacts
from corpus_build.core.provenance import Document, Extractor, Provenance, Status, write_provenance
from corpus_build.render import citation, export
from corpus_build.render.labels import Labels
from tests.corpus_fixture import SOURCES_GPU, write_corpus

DOCS = """\
- id: python-json
  title: json — JSON encoder and decoder
  url: https://docs.python.org/3/library/json.html
  kind: docs
  lang: en
  authors: [Python Software Foundation]
  note: The standard library's JSON module.
- id: meta-page
  title: A page by a lab
  url: https://example.org/lab
  kind: article
  lang: en
  authors: ["{Meta AI}", Lei Wang]
  note: Braces keep a name whole that no word marks as an organisation's.
- id: cuda-docs
  title: CUDA docs
  url: https://docs.nvidia.com/cuda/
  kind: docs
  lang: en
  note: Its mirror names the company.
"""


def _corpus(tmp_path):
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU + DOCS}))
    source = corpus.source("cuda-docs")
    write_provenance(corpus.raw_dir(source), Provenance(
        id=source.id, kind="docs", cited_url=source.url, status=Status.OK, fetched_at="2026-11-29T02:00:00Z",
        document=Document(title="CUDA docs", authors=("NVIDIA Corporation",), facts_from="html-meta"), extractor=Extractor("trafilatura"),
    ))
    return corpus


def test_an_organisation_is_one_author_in_bibtex_csl_and_ris(tmp_path):
    corpus = _corpus(tmp_path)
    facts = bibfacts.all_facts(corpus)
    text = export.bibtex(corpus, facts=facts)
    assert "author = {{Python Software Foundation}}" in text, text
    assert "author = {{NVIDIA Corporation}}" in text  # from the mirror, which the user cannot brace
    assert "author = {{Meta AI} and Wang, Lei}" in text
    library = bibtexparser.parse_string(text, append_middleware=[middlewares.SeparateCoAuthors(), middlewares.SplitNameParts()])
    entries = {e.key: e for e in library.entries}
    [name] = entries["python-json"]["author"]
    assert (name.last, name.first) == (["{Python Software Foundation}"], [])  # not Foundation, Python Software
    items = {i["id"]: i for i in json.loads(export.csl_json(corpus, facts=facts))}
    assert items["python-json"]["author"] == [{"literal": "Python Software Foundation"}]
    assert items["meta-page"]["author"] == [{"literal": "Meta AI"}, {"family": "Wang", "given": "Lei"}]
    records = {r["id"]: r for r in rispy.loads(export.ris(corpus, facts=facts))}
    assert records["python-json"]["authors"] == ["Python Software Foundation"]


def test_the_cite_box_names_the_organisation_as_written(tmp_path):
    corpus = _corpus(tmp_path)
    t = Labels("zh")
    box = citation.box(corpus, corpus.source("python-json"), t, "sources/python-json.md")
    assert "Python Software Foundation. json" in box and "Foundation, Python" not in box
    assert "author = {{Python Software Foundation}}" in box
    box = citation.box(corpus, corpus.source("meta-page"), t, "sources/meta-page.md")
    assert "Meta AI, Lei Wang." in box and "{Meta AI}" in box.split("<pre")[1]  # the braces only in the BibTeX
