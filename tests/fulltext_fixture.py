"""Mirrored corpora for full-text search, written by the tests (and by scripts/bench_fulltext.py).

A document is a dict in the shape of scripts/fulltext_heldout/documents.yaml:
`{id, kind: html|pdf|thread, lang, title, passages: [{heading?, author?, text}]}`
(a thread with `pull: true` is a pull request).
Each becomes a source with a mirror as the fetch stage leaves it: an HTML page's
extracted text.md (a `##` heading per passage), a paper's structure.json (one page per
passage) with its text.md, a GitHub issue's thread.json (one comment per passage after
the opening post).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from corpus_build import registry
from corpus_build.core.provenance import Document, Provenance, Status, ThreadFacts, write_provenance
from tests.corpus_fixture import CORPUS_YAML, write_project
from tests.site_helpers import recorded_files

KINDS = {"html": "docs", "pdf": "paper", "thread": "issue"}


def source_entry(doc: dict, number: int) -> dict:
    kind = "pull" if doc.get("pull") else KINDS[doc["kind"]]
    url = {"issue": f"https://github.com/example/repo/issues/{number}", "pull": f"https://github.com/example/repo/pull/{number}"}.get(
        kind, f"https://example.org/{doc['id']}/")
    lang = "en" if doc["lang"] == "en" else "zh"
    return {"id": doc["id"], "title": doc["title"], "url": url, "kind": kind, "lang": lang, "note": f"Held-out document {number}."}


def write_mirror(corpus, doc: dict, number: int) -> None:
    source = corpus.source(doc["id"])
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True, exist_ok=True)
    passages = doc["passages"]
    facts: dict = {}
    if doc["kind"] == "html":
        text = "".join(f"## {p['heading']}\n\n{p['text'].strip()}\n\n" for p in passages)
        files = {"text.md": text}
        facts = {"text_file": "text.md", "content_type": "text/html"}
    elif doc["kind"] == "pdf":
        blocks = []
        for page, p in enumerate(passages, 1):
            blocks += [{"page": page, "kind": "text", "text": para.strip()} for para in p["text"].split("\n\n") if para.strip()]
        structure = {"version": 1, "pages": len(passages), "method": "font", "body_size": 10, "headings": [], "blocks": blocks}
        files = {"structure.json": json.dumps(structure, ensure_ascii=False), "text.md": "\n\n".join(b["text"] for b in blocks)}
        facts = {"text_file": "text.md", "content_type": "application/pdf", "document": Document(page_count=len(passages))}
    else:
        first, rest = passages[0], passages[1:]
        def stamp(i: int) -> str:
            return f"2026-10-{1 + i // 24:02d}T{i % 24:02d}:00:00Z"
        thread = {
            "schema": 2,
            "issue": {"number": number, "title": doc["title"], "state": "open", "user": {"login": first.get("author", "octo")},
                      "body": first["text"], "created_at": stamp(0), **({"pull_request": {}} if doc.get("pull") else {})},
            "comments": [{"user": {"login": p.get("author", "octo")}, "body": p["text"], "created_at": stamp(i + 1),
                          "html_url": f"https://github.com/example/repo/issues/{number}#issuecomment-{i + 1}"} for i, p in enumerate(rest)],
            "pull": None, "timeline": [], "unavailable": ["timeline"],
        }
        files = {"thread.json": json.dumps(thread, ensure_ascii=False), "text.md": "\n\n".join(p["text"] for p in passages)}
        facts = {"text_file": "text.md", "body_file": "thread.json", "content_type": "application/json",
                 "thread": ThreadFacts(number=number, state="open", author=first.get("author", "octo"), created_at=stamp(0))}
    for name, data in files.items():
        (raw / name).write_text(data, encoding="utf-8")
    record = Provenance(id=source.id, kind=source.kind, cited_url=source.url, fetched_url=source.url, status=Status.OK,
                        fetched_at="2026-12-01T08:05:28Z", checked_at="2026-12-01T08:05:28Z", http_status=200,
                        files=recorded_files(raw, list(files)), **facts)
    write_provenance(raw, record)


def write_fulltext_project(root: Path, documents: list[dict], *, languages: str = "[zh, en]", extra_sources: str = "") -> Path:
    """A project whose section `01-gpu` holds `documents`, each mirrored; built with the repository's mkdocs.yml."""
    entries = [source_entry(doc, n) for n, doc in enumerate(documents, 1)]
    sources = yaml.safe_dump(entries, allow_unicode=True, sort_keys=False) + extra_sources
    corpus_yaml = CORPUS_YAML.replace("languages: [en, zh]", f"languages: {languages}") + "stale_after_days: 36500\n"
    project = write_project(root, {"corpus.yaml": corpus_yaml, "01-gpu/sources.yaml": sources, "02-ascend/sources.yaml": "[]\n",
                                   "chapters.yaml": None, "paths.yaml": None, "digests/2026-10-22.md": None})
    corpus = registry.load(project / "corpus")
    for n, doc in enumerate(documents, 1):
        write_mirror(corpus, doc, n)
    return project
