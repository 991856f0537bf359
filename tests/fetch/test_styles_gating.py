"""Nothing about a page's styles runs when styles are not kept (issue 35: `fetch.max_styles: 0`):
its <style> blocks and style= attributes are not parsed, no sheet is fetched."""

from __future__ import annotations

from dataclasses import replace

from corpus_build.core import css
from corpus_build.core.provenance import Status
from corpus_build.fetch import fetch_corpus

from .test_styles import _serve


def _count_css_reads(monkeypatch) -> list[str]:
    calls: list[str] = []
    real = css.references

    def spy(text, *args, **kwargs):
        calls.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(css, "references", spy)
    return calls


def test_no_css_is_read_when_styles_are_not_kept(server, make_corpus, options, monkeypatch):
    _serve(server)
    calls = _count_css_reads(monkeypatch)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, max_styles=0))
    assert result.status is Status.OK, result.error
    assert calls == []
    assert server.count("/guide/css/site.css") == 0
    text = (corpus.raw_dir(corpus.source("guide")) / "text.md").read_text(encoding="utf-8")
    assert "Words shown in the site's colours." in text


def test_css_is_read_when_styles_are_kept(server, make_corpus, options, monkeypatch):
    _serve(server)
    calls = _count_css_reads(monkeypatch)
    corpus = make_corpus([{"id": "guide", "url": server.url("/guide/index.html"), "kind": "docs"}])
    [result] = fetch_corpus(corpus, replace(options, max_styles=50))
    assert result.status is Status.OK, result.error
    assert calls and server.count("/guide/css/site.css") == 1
