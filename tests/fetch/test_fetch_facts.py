"""What a real fetch learns of a work reaches its citation: authors from PDF metadata and from
`citation_author` tags, the work's own language (never the annotation's); and PyMuPDF's
chatter about a PDF it read anyway goes to the log, not into the command's output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pymupdf
import pytest
import rispy

from corpus_build import registry
from corpus_build.core import bibfacts
from corpus_build.core.provenance import Status, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.render import citation, export
from corpus_build.render.labels import Labels
from corpus_build.render.places import paths

ENGLISH_TEXT = ("We present a tiled programming model for the kernels of deep learning. The model separates the "
                "schedule from the algorithm, and it is shown to match the performance of hand-written kernels on "
                "the GPUs and accelerators that we evaluate in this paper.")
CHINESE_TEXT = "本文介绍昇腾处理器上的算子开发方法，包括分块、流水线与内存层次的设计，并给出在多个模型上的性能评测结果。"


def make_pdf(author: str, text: str = ENGLISH_TEXT, title: str = "Tiles All The Way Down") -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    font = "china-s" if any("\u4e00" <= c <= "\u9fff" for c in text) else "helv"
    page.insert_textbox(pymupdf.Rect(72, 72, 520, 770), text, fontname=font, fontsize=11)
    doc.set_metadata({"title": title, "author": author})
    return doc.tobytes()


def noisy_pdf() -> bytes:
    """A PDF MuPDF reads, and complains about: a page that draws an XObject its resources lack."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Hello world of tile programming")
    contents = page.get_contents()[0]
    doc.update_stream(contents, doc.xref_stream(contents) + b"\nq /Missing Do Q\n")
    doc.set_metadata({"author": "Ada Lovelace"})
    return doc.tobytes()


ARTICLE = ('<!doctype html><html><head><title>Kernel notes</title>'
           '<meta name="citation_author" content="Hopper, Grace"><meta name="citation_author" content="Lei Wang">'
           '<meta name="citation_publication_date" content="2025-09-01"></head>'
           f'<body><article><h1>Kernel notes</h1><p>{ENGLISH_TEXT}</p><p>{ENGLISH_TEXT}</p></article></body></html>')


def sources(server) -> list[dict]:
    # Annotated in Chinese, as most of the default corpus is: the note's language is not the work's.
    return [
        {"id": "pdf-paper", "url": server.url("/paper.pdf"), "kind": "paper", "lang": "zh", "note": "一篇英文论文的中文注释。"},
        {"id": "zh-paper", "url": server.url("/zh.pdf"), "kind": "paper", "lang": "en", "note": "An English note on a Chinese paper."},
        {"id": "article", "url": server.url("/article"), "kind": "article", "lang": "zh", "note": "英文文章的中文注释。"},
        {"id": "named", "url": server.url("/named.pdf"), "kind": "paper", "lang": "zh", "note": "登记表自己写了作者。", "authors": ["Registry Person"]},
    ]


def test_fetched_authors_and_the_works_language_reach_the_cite_box_and_every_export(server, make_corpus, options):
    server.add("/paper.pdf", make_pdf("Lei Wang, Yu Cheng and Wei Li"), content_type="application/pdf")
    server.add("/zh.pdf", make_pdf("王磊; 程宇", CHINESE_TEXT), content_type="application/pdf")
    server.add("/article", ARTICLE)
    server.add("/named.pdf", make_pdf("Ada Lovelace"), content_type="application/pdf")
    corpus = make_corpus(sources(server))
    results = fetch_corpus(corpus, options)
    assert [r.status for r in results] == [Status.OK] * 4, [r.error for r in results]

    docs = {s.id: read_provenance(corpus.raw_dir(s)).document for s in corpus.sources}
    assert docs["pdf-paper"].authors == ("Lei Wang", "Yu Cheng", "Wei Li") and docs["pdf-paper"].language == "en"
    assert docs["zh-paper"].authors == ("王磊", "程宇") and docs["zh-paper"].language == "zh"
    assert docs["article"].authors == ("Hopper, Grace", "Lei Wang") and docs["article"].language == "en"

    facts = bibfacts.all_facts(corpus)
    assert facts["named"].authors == bibfacts.Fact(("Registry Person",), "registry", ("Ada Lovelace",), "pdf-metadata")  # the registry wins
    box = citation.box(corpus, corpus.source("pdf-paper"), Labels("zh"), paths.source("pdf-paper"), facts)
    assert "Lei Wang, Yu Cheng, Wei Li. pdf-paper[EB/OL]." in box and "author = {Wang, Lei and Cheng, Yu and Li, Wei}" in box
    assert "langid = {english}" in box

    bib = {e.key: e for e in bibtexparser.parse_string(export.bibtex(corpus, facts=facts)).entries}
    assert bib["article"]["author"] == "Hopper, Grace and Wang, Lei" and bib["article"]["langid"] == "english"
    assert bib["zh-paper"]["author"] == "{王磊} and {程宇}" and bib["zh-paper"]["langid"] == "chinese"
    assert bib["named"]["author"] == "Person, Registry"
    csl = {i["id"]: i for i in json.loads(export.csl_json(corpus, facts=facts))}
    assert csl["pdf-paper"]["language"] == "en" and csl["zh-paper"]["language"] == "zh"  # not the notes' zh and en
    assert csl["article"]["author"] == [{"family": "Hopper", "given": "Grace"}, {"family": "Wang", "given": "Lei"}]
    ris = {r["id"]: r for r in rispy.loads(export.ris(corpus, facts=facts))}
    assert ris["pdf-paper"]["language"] == "en" and ris["pdf-paper"]["authors"] == ["Wang, Lei", "Cheng, Yu", "Li, Wei"]


def test_a_work_whose_language_nothing_states_has_none_in_the_exports(tmp_path):
    """Never mirrored, a Latin-script title and a Chinese note: the work's language is unknown and
    left out; a title in Chinese script is a Chinese work."""
    from tests.corpus_fixture import SOURCES_GPU, write_corpus

    extra = ("- id: zh-title\n  title: 昇腾算子开发指南\n  url: https://example.org/guide\n  kind: docs\n  lang: en\n  note: English note.\n"
             "- id: en-title\n  title: Dissecting the NVIDIA Volta GPU Architecture\n  url: https://example.org/volta\n  kind: paper\n"
             "  lang: zh\n  note: 中文注释。\n")
    corpus = registry.load(write_corpus(tmp_path, {"01-gpu/sources.yaml": SOURCES_GPU + extra}))
    facts = bibfacts.all_facts(corpus)
    bib = {e.key: e for e in bibtexparser.parse_string(export.bibtex(corpus, facts=facts)).entries}
    csl = {i["id"]: i for i in json.loads(export.csl_json(corpus, facts=facts))}
    ris = {r["id"]: r for r in rispy.loads(export.ris(corpus, facts=facts))}
    assert "langid" not in bib["en-title"] and "language" not in csl["en-title"] and "language" not in ris["en-title"]
    assert bib["zh-title"]["langid"] == "chinese" and csl["zh-title"]["language"] == "zh" and ris["zh-title"]["language"] == "zh"


@pytest.mark.parametrize("field, names", [
    ("Lei Wang, Yu Cheng and Wei Li", ["Lei Wang", "Yu Cheng", "Wei Li"]),
    ("Wang, Lei; Cheng, Yu", ["Wang, Lei", "Cheng, Yu"]),
    ("Wang, Lei", ["Wang, Lei"]),  # one name, family first
    ("Wang, Cheng", ["Wang, Cheng"]),  # ambiguous, read as one name the way BibTeX would
    ("Ada Lovelace & Alan Turing", ["Ada Lovelace", "Alan Turing"]),
    ("DeepSeek-AI", ["DeepSeek-AI"]),
    ("  ", []),
])
def test_pdf_author_fields_split_into_names(field, names):
    from corpus_build.fetch.kinds.pdf import pdf_authors

    assert pdf_authors(field) == names


def _cli(project: Path, *args: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k not in ("GITHUB_TOKEN", "HF_ENDPOINT", "GITHUB_API_URL")}
    return subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(project), *args], capture_output=True, text=True, env=clean, timeout=120)


@pytest.mark.parametrize("workers", [0, 1], ids=["in-process", "worker-process"])
def test_mupdf_repairs_go_to_the_log_not_the_terminal(server, make_corpus, tmp_path, workers):
    server.add("/noisy.pdf", noisy_pdf(), content_type="application/pdf")
    server.add("/broken.pdf", b"%PDF-1.7\n garbage that is no PDF at all\n%%EOF\n", content_type="application/pdf")
    make_corpus([{"id": "noisy", "url": server.url("/noisy.pdf"), "kind": "paper"}], fetch={"extract_workers": workers, "retries": 0})
    quiet = _cli(tmp_path, "fetch", "--json")
    assert quiet.returncode == 0, quiet.stderr
    assert "MuPDF" not in quiet.stdout and "MuPDF" not in quiet.stderr
    assert json.loads(quiet.stdout)["status"] == "ok"  # stdout stays one JSON object per line
    loud = _cli(tmp_path, "--verbose", "fetch", "--force", "--json")
    assert loud.returncode == 0, loud.stderr
    assert "PyMuPDF: syntax error: cannot find XObject resource 'Missing'" in loud.stderr
    assert "MuPDF" not in loud.stdout
    # A PDF it cannot read is a failure, said as one.
    make_corpus([{"id": "broken", "url": server.url("/broken.pdf"), "kind": "paper"}], fetch={"extract_workers": workers, "retries": 0})
    failed = _cli(tmp_path, "fetch", "--json")
    assert failed.returncode == 1 and "MuPDF error" not in failed.stdout + failed.stderr
    record = json.loads(failed.stdout)  # the one line on stdout is the record
    assert record["status"] == "failed" and "PyMuPDF cannot open it" in record["error"]
    assert "MuPDF reported: syntax error" in record["error"]  # what MuPDF said goes with the failure it explains
