"""What `build --engine zensical` does after Zensical (site/zensical.py), on hand-made Zensical output.

Zensical itself is not needed here: its search.json and page layout are written by the
tests in the shape Zensical 0.0.73 writes them. tests/test_engines.py builds with the real
Zensical and searches the result in Chromium.
"""

from __future__ import annotations

import json
import re

import pytest

from corpus_build.core.errors import SiteError
from corpus_build.core.model import Corpus, Section, Settings, Source
from corpus_build.render import GENERATED_MARK, MANIFEST
from corpus_build.render.sanitize import clean_page
from corpus_build.site import zensical

ZWSP = "\u200b"
HIDDEN = re.compile(r'<span hidden="hidden">([^<]*)</span>')


def _corpus(tmp_path, *sources: Source, languages=("zh", "en"), glossary=("预填充",)) -> Corpus:
    settings = Settings(title="T", languages=tuple(languages), glossary=tuple(glossary))
    return Corpus(root=tmp_path, settings=settings, sections=(Section(folder="01-a", number=1, title="A", sources=sources),))


def _source(**fields) -> Source:
    base = {"id": "x", "title": "X", "url": "https://example.org/", "kind": "docs", "lang": "zh", "note": "", "section": "01-a"}
    return Source(**{**base, **fields})


def _item(location: str, title: str, text: str = "", *, level: int = 1, path: tuple[str, ...] = ("P",), tags: tuple[str, ...] = ()) -> dict:
    return {"location": location, "level": level, "title": title, "text": text, "path": list(path), "tags": list(tags)}


def _jieba(tmp_path, corpus: Corpus):
    pytest.importorskip("jieba")
    zensical.load_dictionary(corpus, tmp_path / "dict.txt")
    return zensical._jieba_cutter()


def _zensical_index(*items: dict, separator: str | None = None, lang=("en",)) -> dict:
    config: dict = {"lang": list(lang)}
    if separator is not None:
        config["separator"] = separator
    return {"config": config, "items": list(items)}


def test_a_source_is_one_result_with_its_words_cut_and_its_variants_hidden(tmp_path):
    pytest.importorskip("opencc")
    source = _source(id="prefill", title="分块预填充的调度", note="支持分块预填充的推理引擎。", tags=("serving",))
    corpus = _corpus(tmp_path, source)
    index = _zensical_index(
        _item("sources/prefill/", "分块预填充的调度", path=("分块预填充的调度",), tags=("serving",)),
        _item("sources/prefill/#分块预填充的调度", "分块预填充的调度", "<p>文章 中文</p> 编号 <code>prefill</code> URL https://example.org/", tags=("serving",)),
        _item("sources/prefill/#注释", "注释", "<p>支持分块预填充的推理引擎。</p>", level=2, tags=("serving",)),
        _item("sources/prefill/#镜像", "镜像", "<p>尚未镜像</p>", level=2, tags=("serving",)),
        _item("sections/01-a/", "A", "<p>一个分区</p>", path=("分区", "A")),
        _item("sections/01-a/#prefill", "分块预填充的调度", "<p>支持分块预填充的推理引擎。</p>", level=3, path=("分区", "A")),
    )
    tuned, alt_words = zensical.tune(index, corpus, cut=_jieba(tmp_path, corpus))
    by = {item["location"]: item for item in tuned["items"]}
    # One result per source: its headings and its copy on the section page are gone.
    assert list(by) == ["sources/prefill/", "sections/01-a/"]
    item = by["sources/prefill/"]
    assert set(item) == {"location", "level", "title", "text", "path", "tags"}  # Zensical's fields, nothing else
    assert item["level"] == 1 and item["path"][0].replace(ZWSP, "") == "分块预填充的调度" and item["tags"] == ["serving"]
    # The annotation is the text, its words cut by jieba with the glossary (预填充 whole).
    visible = HIDDEN.sub("", item["text"])
    assert f"{ZWSP}预填充{ZWSP}" in visible and visible.replace(ZWSP, "") == "<p>支持分块预填充的推理引擎。</p>"
    # Traditional spellings and the metadata are in hidden elements: searched, never shown.
    hidden_text = " ".join(HIDDEN.findall(item["text"]))
    assert "預填充" in hidden_text.split() and "example" in hidden_text.split()
    assert "預填充" in " ".join(HIDDEN.findall(item["title"])).split()  # the title's variants stay with the title
    assert HIDDEN.sub("", item["title"]).strip().replace(ZWSP, "") == "分块预填充的调度"
    assert alt_words > 0


def test_the_separator_splits_at_zero_width_spaces_and_queries_are_segmented_for_chinese(tmp_path):
    corpus = _corpus(tmp_path, _source(), languages=("en", "zh"))
    # Zensical's own default separator: \s does not match U+200B, in JavaScript as in Python.
    tuned, _ = zensical.tune(_zensical_index(_item("", "Home"), separator=zensical.DEFAULT_SEPARATOR), corpus)
    separator = tuned["config"]["separator"]
    assert re.compile(separator).fullmatch(ZWSP) and separator.endswith(zensical.DEFAULT_SEPARATOR)
    assert tuned["config"]["lang"] == ["en", "zh"]  # Zensical's worker cuts Han queries with Intl.Segmenter for zh
    # A separator that already splits there is kept as it is.
    mine = "[\\s\\u200b\\-]+"
    tuned, _ = zensical.tune(_zensical_index(_item("", "Home"), separator=mine, lang=("zh",)), _corpus(tmp_path, _source(), languages=("zh",)))
    assert tuned["config"] == {"lang": ["zh"], "separator": mine}


def test_hidden_words_are_escaped(tmp_path):
    source = _source(id="s", title="S", note="", url="https://example.org/<img src=x onerror=alert(1)>")
    index = _zensical_index(
        _item("sources/s/", "S"),
        _item("sources/s/#s", "S", "URL https://example.org/&lt;img src=x onerror=alert(1)&gt;"),
    )
    tuned, _ = zensical.tune(index, _corpus(tmp_path, source), cut=None)
    text = tuned["items"][0]["text"]
    assert "<img" not in text and "&lt;img" in text


def _page(body: str, *, chrome: str = "") -> str:
    return (
        '<html><head><script src="assets/javascripts/bundle.js"></script></head><body>'
        '<header data-md-component="header" onclick="theme()"></header>'
        '<article class="md-content__inner md-typeset">\n<a id="__skip" tabindex="-1"></a>\n'
        f"{chrome}{body}{GENERATED_MARK}"
        '<nav class="md-tags"><a href="../tags/x/" class="md-tag" data-md-tag="x">x</a></nav>'
        "</article><script>var target=1</script></body></html>"
    )


def test_the_allow_list_cleans_the_article_body_and_leaves_the_theme_alone(tmp_path):
    buttons = (
        '<button type="button" title="Copy" class="md-content__button md-icon" data-md-copy-url="x.md"><svg viewBox="0 0 24 24"><path d="M0"/></svg></button>\n'
        '<a href="https://example.org/edit" title="Edit" class="md-content__button md-icon" rel="edit" data-md-x="1"><svg><path d="M1"/></svg></a>\n'
    )
    hostile = '<script>window.injected = true</script><p id="ok" onclick="alert(1)">text</p><a href="javascript:alert(2)">x</a>'
    page = _page(hostile + "<h1 id='t'>T</h1>", chrome=buttons)
    cleaned = zensical.clean_article(page, GENERATED_MARK.strip(), clean_page, where=tmp_path / "index.html")
    start, end = cleaned.index(buttons) + len(buttons), cleaned.index(GENERATED_MARK.strip())
    assert cleaned[start:end] == clean_page(hostile + "<h1 id='t'>T</h1>\n")  # what on_page_content would give
    for gone in ("window.injected", "onclick", "javascript:"):
        assert gone not in cleaned[start:end]
    # Everything else is as the theme wrote it: its buttons, tags, scripts and handlers.
    assert cleaned[:start] == page[:start] and cleaned[end:] == page[page.index(GENERATED_MARK.strip()):]


def test_clean_pages_goes_through_the_manifest_and_refuses_an_unknown_layout(tmp_path):
    docs, site_dir = tmp_path / "docs", tmp_path / "site"
    docs.mkdir()
    (docs / MANIFEST).write_text(json.dumps(["index.md", "sources/a.md", "sources/index.md", "assets/corpus.css"]), encoding="utf-8")
    hostile = '<p onclick="alert(1)">x</p>'
    for name in ("index.html", "sources/a/index.html", "sources/index.html", "mine/index.html"):
        (site_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (site_dir / name).write_text(_page(hostile), encoding="utf-8")
    assert zensical.clean_pages(docs, site_dir) == 3
    for name in ("index.html", "sources/a/index.html", "sources/index.html"):
        assert "onclick=\"alert" not in (site_dir / name).read_text(encoding="utf-8"), name
    assert 'onclick="alert(1)"' in (site_dir / "mine" / "index.html").read_text(encoding="utf-8")  # a user's own page is theirs
    assert zensical.clean_pages(docs, site_dir) == 0  # cleaned once: nothing left to change
    (site_dir / "sources" / "a" / "index.html").write_text("<html><body><main>no article</main></body></html>", encoding="utf-8")
    with pytest.raises(SiteError, match=r"sources/a/index\.html: no article body.*--engine mkdocs"):
        zensical.clean_pages(docs, site_dir)
