"""A small, valid corpus written by the tests (never the user's real one) and helpers to break it."""

from __future__ import annotations

import shutil
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]

CORPUS_YAML = """\
title: Fixture corpus
description: A corpus the tests build.
languages: [en, zh]
glossary: [昇腾, 算子]
"""

SECTION_GPU = """\
title: GPU hardware
title_zh: GPU 硬件
intro: Hardware documents.
"""

SOURCES_GPU = """\
# GPU sources — this comment must survive `corpus-build add`.
- id: cuda-guide
  title: CUDA C++ Programming Guide
  url: https://docs.nvidia.com/cuda/cuda-c-programming-guide/
  kind: docs
  lang: en
  chapters: [1]
  tags: [cuda]
  note: The grid/block/warp model and `cp.async`.

- id: tilelang
  title: TileLang
  url: https://github.com/tile-ai/tilelang
  kind: repo
  lang: en
  tags: [tilelang]
  see_also: [deepgemm-ascend]
  mirror: {depth: full}
  note: |-
    The main repository.
    Second line of the note.
"""

SECTION_ASCEND = """\
title: Ascend stack
title_zh: 昇腾算子栈
"""

SOURCES_ASCEND = """\
- id: deepgemm-ascend
  title: DeepGEMM-Ascend
  url: https://github.com/deepseek-ai/DeepGEMM-Ascend
  kind: repo
  lang: zh
  chapters: [1, 2]
  tags: [ascend, gemm]
  note: DeepGEMM 的昇腾实现，支持 BF16/FP8 GEMM 算子。
- id: zhihu-port
  title: "[Docs] Zhihu article on the Ascend 950 port"
  kind: article
  lang: zh
  verified: false
  verify_note: URL not found
  note: 大智若愚关于昇腾 950 移植的文章。
- id: tilelang-pr-2900
  title: Define backend architecture
  url: https://github.com/tile-ai/tilelang/pull/2900
  kind: pull
  lang: en
  note: An in-flight PR.
"""

CHAPTERS = """\
- number: 1
  title: 硬件基础
  title_en: Hardware basics
  summary: From the GPU model to the Ascend port.
  path:
    - source: cuda-guide
      why: Start with the programming model.
    - source: tilelang
      why: Then the language.
    - source: deepgemm-ascend
      why: Then a real Ascend kernel library.
- number: 2
  title: 昇腾 GEMM
  path:
    - source: deepgemm-ascend
      why: The main subject.
"""

PATHS = """\
- id: newcomer
  title: 新手路径
  title_en: Newcomer path
  path:
    - source: cuda-guide
      why: Foundations.
    - source: deepgemm-ascend
      why: Specifics.
"""

DIGEST = """\
---
title: Daily digest 2026-10-22
date: 2026-10-22
window_start: "2026-10-21T07:00:00+08:00"
window_end: "2026-10-22T07:00:00+08:00"
tz: "+08:00"
repos: [tile-ai/tilelang]
tags: [tilelang]
---

The main repository [[tilelang]] merged 8 PRs; see also [[deepgemm-ascend|the Ascend GEMM]].

## 1. Core {#s1}

Source: [tile-ai/tilelang#3070](https://github.com/tile-ai/tilelang/pull/3070)
"""

FILES = {
    "corpus.yaml": CORPUS_YAML,
    "01-gpu/section.yaml": SECTION_GPU,
    "01-gpu/sources.yaml": SOURCES_GPU,
    "02-ascend/section.yaml": SECTION_ASCEND,
    "02-ascend/sources.yaml": SOURCES_ASCEND,
    "chapters.yaml": CHAPTERS,
    "paths.yaml": PATHS,
    "digests/2026-10-22.md": DIGEST,
}


def write_corpus(root: Path, overrides: dict[str, str | None] | None = None) -> Path:
    """Write the fixture corpus into root/corpus; `overrides` replaces (or, with None, deletes) files."""
    files = dict(FILES)
    files.update(overrides or {})
    corpus = root / "corpus"
    for relative, text in files.items():
        if text is None:
            continue
        path = corpus / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return corpus


def write_project(root: Path, overrides: dict[str, str | None] | None = None) -> Path:
    """A whole project: the repository's own mkdocs.yml and stylesheet around the fixture corpus."""
    write_corpus(root, overrides)
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", root / "mkdocs.yml")
    (root / "docs").mkdir(exist_ok=True)  # a project's docs/ may hold nothing of its own (corpus-build init makes it)
    return root
