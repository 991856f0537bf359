"""Search segmentation through the build cache's segmenter (segment.py).

It stands in for Material's `SearchIndex._segment_chinese`, so it must cut exactly
as that method does; and because it remembers every run it cut, a rebuild whose
edit brings no new Chinese text never loads jieba's dictionary, yet publishes the
very index a build without the cache publishes.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_build import site
from corpus_build.site.segment import Segmenter, installable
from tests.corpus_fixture import write_project

ROOT = Path(__file__).resolve().parents[1]

SAMPLES = [
    "",
    "plain English, no Han at all",
    "昇腾算子开发指南",
    "TileLang 在昇腾上的后端：tile 级编程与流水线",
    "運算元與算子：繁體和简体 mixed，標點！",
    "前后都是汉字abc汉字",
    "\u200b已经有零宽空格\u200b的文本",
    "数字2900与v0.2.0之间的切分",
    "かなカナと漢字の混在",  # kana are not Han: only 漢字 is a run
    "𠀀𠀁 Extension B 的字",
    "  边缘的空白  ",
]


def test_the_segmenter_cuts_exactly_as_materials_own_method():
    from material.plugins.search.plugin import SearchIndex

    index = SearchIndex()
    assert installable(index)
    loaded = []
    fresh = Segmenter({}, lambda: loaded.append(True))
    for text in SAMPLES:
        assert fresh.segment(text) == SearchIndex._segment_chinese(index, text), text
    assert loaded == [True]  # jieba was asked for once, before its first cut
    # Cuts handed over from an earlier build give the same text, without jieba.
    remembered = Segmenter(dict(fresh.used), lambda: pytest.fail("a remembered run needs no jieba"))
    for text in SAMPLES:
        assert remembered.segment(text) == SearchIndex._segment_chinese(index, text), text
    assert remembered.new == 0 and fresh.new == len(fresh.used)
    # A stored "cut" that is not a cut of its run (a crafted cache) is cut again, not published.
    forged = Segmenter({"昇腾算子开发指南": "<img src=x onerror=alert(1)>"}, lambda: None)
    assert forged.segment("昇腾算子开发指南") == SearchIndex._segment_chinese(index, "昇腾算子开发指南")
    assert forged.new == 1


_BUILD = r"""
import json, sys
import jieba
from pathlib import Path
from corpus_build import site
site.build(Path(sys.argv[1]), strict=True)
print(json.dumps({"loaded": jieba.dt.initialized}))
"""


def _build(project: Path) -> bool:
    """Build in a fresh process; whether jieba loaded its dictionary."""
    result = subprocess.run([sys.executable, "-c", _BUILD, str(project)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])["loaded"]


def _index_without_cache(root: Path, corpus: Path) -> str:
    project = write_project(root)
    shutil.rmtree(project / "corpus")
    shutil.copytree(corpus, project / "corpus")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"^  - corpus\b.*$", "  - corpus:\n      build_cache: false", text, count=1, flags=re.M), encoding="utf-8")
    site.build(project, strict=True)
    return (project / "site" / "search" / "search_index.json").read_text(encoding="utf-8")


def test_an_edit_without_new_chinese_is_segmented_without_jieba(tmp_path):
    project = write_project(tmp_path / "project")
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    assert _build(project)  # an empty cache: every page is segmented, by jieba

    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line of the note, edited."), encoding="utf-8")
    assert not _build(project)  # the edited page's runs were all cut by the last build
    index = (project / "site" / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "edited" in index
    assert index == _index_without_cache(tmp_path / "clean-1", project / "corpus")

    sources.write_text(sources.read_text(encoding="utf-8").replace("edited.", "edited: 新的张量布局说明。"), encoding="utf-8")
    assert _build(project)  # a run no build cut before: jieba, with the corpus's words
    index = (project / "site" / "search" / "search_index.json").read_text(encoding="utf-8")
    assert "edited:" in index
    assert index == _index_without_cache(tmp_path / "clean-2", project / "corpus")
