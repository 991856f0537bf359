"""A Chinese-interface fixture project with the mirrors issue 22 is about (written by the tests).

Beside the fixture corpus (tests/corpus_fixture.py, its interface switched to zh): a PDF
paper with extracted text, a script-built page mirrored as partial, an issue whose title
has inline code and whose thread mirror lacks the timeline and was fetched from a loopback
address, a source without a URL, and a digest in Traditional Chinese.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus_build import registry
from corpus_build.core.provenance import Document, Provenance, Status, ThreadFacts, write_provenance
from tests import corpus_fixture
from tests.corpus_fixture import write_project
from tests.site_helpers import recorded_files

ZH_CORPUS_YAML = corpus_fixture.CORPUS_YAML.replace("languages: [en, zh]", "languages: [zh, en]") + "stale_after_days: 36500\n"

EXTRA_GPU_SOURCES = """
- id: js-shell
  title: A page built by script
  url: https://example.org/app/
  kind: article
  lang: en
  note: 一个由脚本生成的页面。

- id: tilelang-issue-7
  title: "[Bug] `T.copy` fails when `<dst>` is shared"
  url: https://github.com/tile-ai/tilelang/issues/7
  kind: issue
  lang: en
  note: 一个标题里带代码的 issue。

- id: offline-note
  title: 一份只有纸本的笔记
  kind: article
  lang: zh
  verified: false
  verify_note: 没有网址
  note: 没有网址的条目。
"""

# A digest in Traditional Chinese (Taiwan vocabulary), as the user's own digests are.
TRADITIONAL_DIGEST = """\
---
title: "tile-ai 組織日報 2026-10-23"
date: 2026-10-23
tags: [tilelang]
---

調研視窗：2026-10-22 07:00 ~ 2026-10-23 07:00（北京時間）。主倉 [[tilelang]] 合入八筆，集中在編譯器與執行緒相關的缺陷；
昇騰運算元的對齊由在審轉為合入，這是本期最重要的進展。
"""

PARTIAL_REASON = ("needs JavaScript: the page is a script-built shell and fetch.browser is 'never' "
                  "(set it to 'auto', with chromium installed, to render it)")
LOOPBACK = "http://127.0.0.1:8765/repos/tile-ai/tilelang/issues/7"


def _pdf() -> bytes:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "A paper made by the test")
    return doc.tobytes()


def _mirror(corpus, source_id: str, written: dict[str, bytes], **facts) -> None:
    source = corpus.source(source_id)
    raw = corpus.raw_dir(source)
    raw.mkdir(parents=True, exist_ok=True)
    for name, data in written.items():
        (raw / name).write_bytes(data)
    fields = {"status": Status.OK, "fetched_url": source.url, "files": recorded_files(raw, list(written)), **facts}
    record = Provenance(id=source.id, kind=source.kind, cited_url=source.url, fetched_at="2026-12-01T08:05:28Z",
                        checked_at="2026-12-01T08:05:28Z", http_status=200, **fields)
    write_provenance(raw, record)


def write_reader_project(root: Path) -> Path:
    sources = corpus_fixture.SOURCES_GPU + EXTRA_GPU_SOURCES
    project = write_project(root, {"corpus.yaml": ZH_CORPUS_YAML, "01-gpu/sources.yaml": sources,
                                   "digests/2026-10-23.md": TRADITIONAL_DIGEST})
    corpus = registry.load(project / "corpus")
    text = ("# A paper made by the test\n\n" + "The paper's words, long enough to make an excerpt of the text. " * 8).encode()
    _mirror(corpus, "deepgemm-ascend", {"paper.pdf": _pdf(), "text.md": text}, body_file="paper.pdf", text_file="text.md",
            content_type="application/pdf", document=Document(page_count=1))
    _mirror(corpus, "js-shell", {"page.html": b"<html><body><div id=app></div></body></html>", "text.md": b"Loading..."},
            # No file list: no SWHID, whose 50 unbreakable characters would widen the table past the screen.
            status=Status.PARTIAL, body_file="page.html", text_file="text.md", content_type="text/html", files=(),
            document=Document(partial_reason=PARTIAL_REASON))
    thread = {"schema": 2, "issue": {"number": 7, "title": "[Bug] `T.copy` fails when `<dst>` is shared", "state": "open",
                                     "user": {"login": "octo"}, "body": "It fails.", "created_at": "2026-10-01T02:00:00Z"},
              "comments": [], "pull": None, "timeline": [], "unavailable": ["timeline"]}
    _mirror(corpus, "tilelang-issue-7", {"thread.json": json.dumps(thread).encode(), "text.md": b"It fails."},
            body_file="thread.json", text_file="text.md", content_type="application/json", fetched_url=LOOPBACK,
            thread=ThreadFacts(number=7, state="open", author="octo", created_at="2026-10-01T02:00:00Z"))
    # A PR opened long before the chart's window and merged inside it (the activity chart's range).
    _mirror(corpus, "tilelang-pr-2900", {}, thread=ThreadFacts(number=2900, state="closed", merged=True, merged_at="2026-11-30T20:15:00Z",
                                                              author="octo", created_at="2023-01-10T02:00:00Z"))
    return project
