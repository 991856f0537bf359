"""An outside review of rebuild skipping (render/sourcekeys.py, site/pageskip.py, site/populateskip.py,
site/buildcache.py): edits whose effect a rebuild missed, each shown against a render or build from nothing.

The rule: a rebuild gives exactly what a clean build of the same inputs gives; a page kept as it was
when something it shows changed is a worse site.
"""

from __future__ import annotations

from tests.test_sourcekeys import _assert_as_fresh, _edit, _render

# --- source pages found by their inputs (render/sourcekeys.py) --------------------------------


def test_a_title_named_in_a_chapter_step_about_a_source_follows_that_title(project):
    """A chapter step's `why` is shown on the page of the source the step is about ("cited by"), its
    [[id]] links with the named sources' titles: renaming such a source changes that page too."""
    _edit(project / "corpus" / "chapters.yaml", "why: Then the language.", "why: Then the language, after [[cuda-guide]].")
    _render(project)
    _render(project)
    _edit(project / "corpus" / "01-gpu" / "sources.yaml", "title: CUDA C++ Programming Guide", "title: CUDA Guide, renamed")
    corpus = _render(project)
    assert "CUDA Guide, renamed" in (project / "docs" / "sources" / "tilelang.md").read_text(encoding="utf-8")
    _assert_as_fresh(project, corpus, "a source named in a chapter step's why renamed")

