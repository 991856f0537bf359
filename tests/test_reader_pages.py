"""Issue 22's reader words without a browser: local addresses, partial reasons, the charts' notes, page languages."""

from __future__ import annotations

import pytest

from corpus_build import registry, render
from corpus_build.render import mirror
from corpus_build.render.labels import Labels, chinese_script
from corpus_build.render.views import plain_title, title_md
from tests.corpus_fixture import PROJECT_ROOT
from tests.reader_fixture import write_reader_project


def test_the_partial_reason_prefix_is_the_fetch_stage_s():
    from corpus_build.fetch.kinds.html import NEEDS_JS

    assert mirror.NEEDS_JS == NEEDS_JS


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8765/x", "http://localhost/x", "http://[::1]/x", "http://10.0.0.7/x", "http://192.168.1.2/x",
    "http://169.254.1.1/x", "http://2130706433/x", "http://printer.local/x", "http://[::ffff:127.0.0.1]/x", "javascript:alert(1)",
])
def test_local_and_unsafe_final_addresses_are_not_published(url):
    assert mirror.publishable_url(url) == ""


def test_public_final_addresses_are_published():
    assert mirror.publishable_url("https://hf-mirror.com/org/model") == "https://hf-mirror.com/org/model"


def test_script_of_the_user_s_digest_and_annotations():
    digest = next((PROJECT_ROOT / "corpus" / "digests").glob("*.md")).read_text(encoding="utf-8")
    assert chinese_script(digest) == "zh-Hant"
    assert chinese_script("这是一个关于昇腾算子开发的中文注释，说明它们的实现与优化。") == "zh-Hans"
    assert chinese_script("An English note.") == ""


def test_code_spans_in_titles():
    assert title_md("Fix `a<b>` and *x*") == "Fix `a<b>` and \\*x\\*"
    assert plain_title("[Bug] `T.copy` fails") == "[Bug] T.copy fails"
    assert title_md("a lone ` backtick") == "a lone \\` backtick"


def test_chart_notes_and_rows(tmp_path):
    corpus = registry.load(write_reader_project(tmp_path) / "corpus")
    pages = render.build_pages(corpus)
    home, status = pages["index.md"], pages["status.md"]
    assert "更早的 1 个事件（2023-01 至 2025-06）不在图中。" in home
    assert "<title>部分存档 1</title>" in status and "<title>无网址，不存档 2</title>" in status
    # The activity chart's bars are scaled to the months shown: the tallest shown month fills the height.
    assert 'height="120.0"' in home


def test_theme_words_exist_in_both_languages():
    for lang in ("zh", "en"):
        words = Labels(lang).theme_words()
        assert all(v for k, v in words.items() if k != "made_with_after") and "{home}" in words["not_found_body"]


def test_render_names_the_rendered_dom_as_fetch_writes_it():
    # render/mirror.py does not import the fetch package (its import cost): the name is kept twice.
    from corpus_build.fetch.browser import RENDERED
    from corpus_build.render import mirror

    assert mirror.RENDERED_HTML == RENDERED
