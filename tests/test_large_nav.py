"""A corpus with more sections than the nav shows: the collapsed pages are declared, so a strict build passes."""

from __future__ import annotations

import pytest

from corpus_build import registry, render, site
from tests.corpus_fixture import write_project

pytestmark = pytest.mark.slow


def test_a_strict_build_passes_when_the_nav_collapses_its_sections(tmp_path):
    sections = render.NAV_MAX_ITEMS + 3
    overrides: dict[str, str | None] = {"01-gpu/section.yaml": None, "01-gpu/sources.yaml": None, "02-ascend/section.yaml": None, "02-ascend/sources.yaml": None}
    for n in range(1, sections + 1):
        overrides[f"{n:02d}-s{n}/section.yaml"] = f"title: Section {n}\n"
        overrides[f"{n:02d}-s{n}/sources.yaml"] = (
            f"- id: s{n}\n  title: Source {n}\n  url: https://example.org/{n}\n  kind: article\n  lang: en\n  note: Note {n}.\n"
        )
    overrides["chapters.yaml"] = "- number: 1\n  title: One\n  path:\n    - source: s1\n      why: First.\n"
    overrides["paths.yaml"] = None
    overrides["digests/2026-10-22.md"] = "---\ntitle: Digest\n---\n\nSee [[s2]].\n"
    project = write_project(tmp_path, overrides)
    # An older mkdocs.yml that declares none of the generated pages: the plugin declares them.
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    start = text.index("not_in_nav: |")
    end = text.index("\n\n", start)
    config.write_text(text[:start] + text[end + 2:], encoding="utf-8")
    corpus = registry.load(project / "corpus")
    assert len(corpus.sections) == sections and render.collapsed_nav(corpus)[-1] == "/sections/"
    site_dir = site.build(project, strict=True, corpus=corpus)  # a warning per omitted page would fail it
    assert (site_dir / "sections" / f"{sections:02d}-s{sections}" / "index.html").is_file()
    # The nav links the sections' index, whose pages list every section.
    listed = "".join(p.read_text(encoding="utf-8") for p in [site_dir / "sections" / "index.html", *(site_dir / "sections" / "page").glob("*/index.html")])
    assert all(f"Section {n}<" in listed for n in range(1, sections + 1))
