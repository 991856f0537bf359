"""A mirrored page's headings are places: `#sec-…` anchors in any script on its text page,
`[[id#sec-…]]` links from notes and digests checked by `check` against the mirror and
resolved to that heading."""

from __future__ import annotations

from corpus_build import registry
from corpus_build.core import mdtext
from corpus_build.fetch import fetch_corpus
from corpus_build.render import build_pages

from .conftest import write_corpus

PAGE = """<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>Ascend 算子开发指南</title></head>
<body><main>
<h1>Ascend 算子开发指南</h1>
<p>本文介绍在昇腾上开发算子的完整流程，从环境准备到性能调优，每一步都给出可以运行的示例。</p>
<h2>安装步骤</h2>
<p>先安装 CANN 工具包，再设置环境变量，然后用样例工程验证安装是否成功，这一步大约需要十分钟。</p>
<h2>Tiling and the cube unit</h2>
<p>The tiling function splits the problem so that each block fits the unified buffer of one core.</p>
<h2>__search</h2>
<p>A heading that reads like one of the theme's own element ids must not take that id.</p>
</main></body></html>"""


def _make(tmp_path, server, digest: str):
    server.add("/guide.html", PAGE.encode(), content_type="text/html; charset=utf-8")
    sources = [{"id": "ascend-guide", "url": server.url("/guide.html"), "kind": "docs", "title": "Ascend 算子开发指南", "note": "见 [[ascend-guide#sec-安装步骤|安装一节]]。"}]
    root = write_corpus(tmp_path, sources, languages=["zh", "en"])
    (root / "digests").mkdir(exist_ok=True)
    (root / "digests" / "2026-10-22.md").write_text("---\ntitle: Digest\n---\n\n" + digest + "\n", encoding="utf-8")
    return root


def test_headings_get_readable_anchors_that_never_take_a_theme_id():
    text = "# 安装步骤\n\n```\n# not a heading\n```\n\n## 安装步骤\n\n## __search\n\n## ！！\n"
    assert mdtext.text_sections(text) == [("sec-安装步骤", "安装步骤"), ("sec-安装步骤_1", "安装步骤"), ("sec-__search", "__search"), ("sec-section", "！！")]


def test_check_follows_heading_links_into_a_mirrored_page(tmp_path, server, options):
    digest = "\n".join([
        "Good: [[ascend-guide#sec-tiling-and-the-cube-unit]].",
        "Typo: [[ascend-guide#sec-安装步聚]].",
        "Not a paper: [[ascend-guide#page-2]].",
    ])
    root = _make(tmp_path, server, digest)
    before = [str(p) for p in registry.check(root)]
    assert any("cannot be checked yet" in p for p in before), before  # nothing mirrored yet: warnings
    assert not [p for p in before if ": error:" in p], before
    fetch_corpus(registry.read(root)[0], options)
    errors = [str(p) for p in registry.check(root) if p.severity == "error"]
    assert any("2026-10-22.md:6:" in p and "names no heading of the page" in p and "did you mean #sec-安装步骤?" in p for p in errors), errors
    assert any("2026-10-22.md:7:" in p and "is not a paper" in p for p in errors), errors
    assert len(errors) == 2, errors  # the good link and the note's link pass


def test_heading_links_open_the_text_page_at_that_heading(tmp_path, server, options):
    root = _make(tmp_path, server, "See [[ascend-guide#sec-tiling-and-the-cube-unit]].")
    corpus = registry.load(root)
    fetch_corpus(corpus, options)
    pages = build_pages(corpus)
    assert "[Ascend 算子开发指南 · Tiling and the cube unit](../sources/ascend-guide/text.md#sec-tiling-and-the-cube-unit)" in pages["digests/2026-10-22.md"]
    assert "[安装一节](ascend-guide/text.md#sec-安装步骤)" in pages["sources/ascend-guide.md"]
    text = pages["sources/ascend-guide/text.md"]
    assert 'id="sec-安装步骤"' in text and 'id="sec-tiling-and-the-cube-unit"' in text
    assert 'id="__search"' not in text and 'id="sec-__search"' in text
