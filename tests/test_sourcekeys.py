"""A source page known by its inputs (render/sourcekeys.py): after a note edit one view is made, and
any other edit that changes a source page whose own record did not change is laid out afresh."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_build import registry, render
from corpus_build.core.linkrecords import LinkResult, LinkState, save_results
from corpus_build.render.pages import PageBuilder
from tests.test_mirror_pages import write_mirrors


@pytest.fixture
def mirrored(project):
    return write_mirrors(project, "http://127.0.0.1:9")


def _views_made(monkeypatch) -> list[str]:
    made: list[str] = []
    real = PageBuilder.source_view

    def counted(self, source):
        made.append(source.id)
        return real(self, source)

    monkeypatch.setattr(PageBuilder, "source_view", counted)
    return made


def _render(project: Path):
    corpus = registry.load(project / "corpus")
    render.render(corpus, project / "docs")
    return corpus


def _assert_as_fresh(project: Path, corpus, step: str) -> None:
    """docs/ holds every page a render without any state makes, byte for byte."""
    fresh = render.build_pages(corpus)
    differ = [path for path, content in fresh.items()
              if path.endswith(".md") and isinstance(content, str) and (project / "docs" / path).read_text(encoding="utf-8") != content]
    assert not differ, f"after {step}: {differ[:5]}"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_note_edit_makes_the_view_of_that_source_alone(mirrored, monkeypatch):
    _render(mirrored)
    _render(mirrored)
    made = _views_made(monkeypatch)
    _edit(mirrored / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    corpus = _render(mirrored)
    assert made == ["tilelang"]
    assert "Second line of the note, edited." in (mirrored / "docs" / "sources" / "tilelang.md").read_text(encoding="utf-8")
    monkeypatch.undo()
    _assert_as_fresh(mirrored, corpus, "a note edit")


def _results(project: Path) -> None:
    corpus = registry.load(project / "corpus")
    source = corpus.source("cuda-guide")
    save_results(corpus.root, {source.id: LinkResult(source.id, source.url, LinkState.DEAD, "2026-12-01T00:00:00Z", "2026-11-20T00:00:00Z", 404)},
                 "2026-12-01T00:00:00Z")


EDITS = [
    ("a mirror's text (the excerpt on its page)", lambda p: _edit(p / "corpus" / "01-gpu" / "raw" / "cuda-guide" / "text.md", "What the page said.", "What the page says now.")),
    ("a section's title (every page of its sources)", lambda p: _edit(p / "corpus" / "01-gpu" / "section.yaml", "title_zh: GPU 硬件", "title_zh: GPU 硬件与架构")),
    ("the title of a page another one sees also", lambda p: _edit(p / "corpus" / "02-ascend" / "sources.yaml", "title: DeepGEMM-Ascend", "title: DeepGEMM for Ascend")),
    ("another source's note (a link to this page)", lambda p: _edit(p / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "See [[deepgemm-ascend]].")),
    ("the link check's results (a dead link's notice)", _results),
    ("a chapter's reading path", lambda p: _edit(p / "corpus" / "chapters.yaml", "why: Then the language.", "why: Then the language, at last.")),
]


@pytest.mark.parametrize("step, edit", EDITS, ids=[e[0] for e in EDITS])
def test_an_edit_that_changes_other_source_pages_is_laid_out_afresh(mirrored, step, edit):
    _render(mirrored)
    _render(mirrored)
    edit(mirrored)
    corpus = _render(mirrored)
    _assert_as_fresh(mirrored, corpus, step)


ADDED = """
- id: added-notes
  title: Added notes
  url: https://example.org/added
  kind: docs
  lang: en
  tags: [cuda]
  note: A source added to the section.
"""


def test_a_mirror_changed_or_a_source_added_makes_the_views_of_those_sources_alone(mirrored, monkeypatch):
    _render(mirrored)
    _render(mirrored)
    made = _views_made(monkeypatch)
    _edit(mirrored / "corpus" / "01-gpu" / "raw" / "cuda-guide" / "text.md", "What the page said.", "What the page says now.")
    _render(mirrored)
    assert made == ["cuda-guide"]
    made.clear()
    path = mirrored / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8") + ADDED, encoding="utf-8")
    corpus = _render(mirrored)
    assert made == ["added-notes"]
    monkeypatch.undo()
    _assert_as_fresh(mirrored, corpus, "a mirror changed, then a source added")


def test_a_link_to_a_place_in_another_mirror_follows_that_mirror(mirrored):
    """[[cuda-guide#sec-archived-words]] in another source's note names a heading of cuda-guide's mirror text:
    when that heading changes, the other source's page changes though its own record did not."""
    _edit(mirrored / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "See [[cuda-guide#sec-archived-words]].")
    _render(mirrored)
    _render(mirrored)
    _edit(mirrored / "corpus" / "01-gpu" / "raw" / "cuda-guide" / "text.md", "# Archived words", "# ARCHIVED Words")
    corpus = _render(mirrored)
    _assert_as_fresh(mirrored, corpus, "a heading the link names renamed")
    assert "ARCHIVED Words" in (mirrored / "docs" / "sources" / "tilelang.md").read_text(encoding="utf-8")


def test_text_pages_of_untouched_sources_are_found_by_the_source_key(mirrored, monkeypatch):
    """A mirror's text page reads less than its source's page: when the source's key is the last render's,
    the text page is read back without its own key (its mirror files' digests, its record)."""
    from corpus_build.render import mirror

    _render(mirrored)
    _render(mirrored)
    keyed: list[str] = []
    real = mirror._text_page_key

    def counted(corpus, source, *args):
        keyed.append(source.id)
        return real(corpus, source, *args)

    monkeypatch.setattr(mirror, "_text_page_key", counted)
    _edit(mirrored / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    _render(mirrored)
    assert keyed == []  # another source's note: cuda-guide's text page is found by cuda-guide's key
    _edit(mirrored / "corpus" / "01-gpu" / "raw" / "cuda-guide" / "text.md", "What the page said.", "What the page says now.")
    corpus = _render(mirrored)
    assert keyed == ["cuda-guide"]
    monkeypatch.undo()
    _assert_as_fresh(mirrored, corpus, "a mirror's text changed")


def test_pages_found_by_their_inputs_keep_the_words_and_digests_their_making_used(mirrored):
    """A page found by its inputs asks for no excerpt words and no mirror file digests: those its making
    used are kept all the same, so the render that must make it again (a section renamed) neither runs
    the excerpt's expressions nor hashes the mirror's text again."""
    import json

    from corpus_build.render.reuse import DIGESTS, WORDS

    _render(mirrored)
    _render(mirrored)
    docs = mirrored / "docs"
    before = {name: set(json.loads((docs / name).read_text(encoding="utf-8"))) for name in (WORDS, DIGESTS)}
    assert before[WORDS] and before[DIGESTS]
    _edit(mirrored / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    _render(mirrored)
    after = {name: set(json.loads((docs / name).read_text(encoding="utf-8"))) for name in (WORDS, DIGESTS)}
    assert after == before
