"""One Markdown converter for a build's pages (mdshared.py) gives exactly MkDocs' own output.

Each page is converted twice: by MkDocs' Page.render (a new converter) and by the shared
converter, which has just converted the other pages, so any state an extension carries
from one page to the next shows as a difference.
"""

from __future__ import annotations

import contextlib
import textwrap

import pytest

with contextlib.suppress(ImportError):  # run under ProperDocs too (test_engines.py): mkdocs.* maps to it
    import properdocs.replacement  # noqa: F401
from mkdocs.config import load_config
from mkdocs.structure.files import get_files
from mkdocs.structure.pages import Page

from corpus_build.site import mdshared

PAGES = {
    "index.md": """\
        ---
        title: Home
        ---
        # 昇腾 算子

        The HTML spec[^1] and the W3C[^note] define it. *[HTML]: Hyper Text Markup Language

        [^1]: A footnote on the first page.
        [^note]: A named one.

        ## Same heading

        ## Same heading

        See [the other page](other.md#same-heading) and [a missing anchor](other.md#nowhere).

        <div markdown="1" id="raw-anchor">
        Inside *HTML*, with `code`.
        </div>

        !!! note "A note"
            Text in an admonition.

        | a | b |
        |---|---|
        | 1 | 2 |
        """,
    "other.md": """\
        # Other page

        A second[^1] footnote numbering that must restart at one.

        [^1]: The other page's footnote.

        *[W3C]: World Wide Web Consortium

        The W3C again, and HTML (no abbreviation here).

        ## Same heading

        ```python
        def f():
            return 1
        ```

        ```python
        def g():
            return 2
        ```

        Term
        :   Definition
        """,
    "tabs.md": """\
        # Tabs and more

        === "One"

            First tab.

        === "Two"

            Second tab.

        ??? note "Closed"
            Hidden text.

        - [x] done
        - [ ] to do

        ==marked== ^^inserted^^ ~~deleted~~ ++ctrl+alt+del++ :smile: `#!python print(1)` (c) --> "quotes"

        ```python linenums="1"
        import os
        ```

        [[Wiki Link]]
        """,
}

CORE = ["abbr", "admonition", "attr_list", "def_list", "fenced_code", "footnotes", "md_in_html", "meta",
        "sane_lists", "smarty", "tables", "toc", "nl2br", "wikilinks", "codehilite"]
PYMDOWNX = ["abbr", "admonition", "attr_list", "footnotes", "md_in_html", "tables", "toc",
            "pymdownx.betterem", "pymdownx.caret", "pymdownx.details", "pymdownx.emoji", "pymdownx.inlinehilite",
            "pymdownx.keys", "pymdownx.mark", "pymdownx.smartsymbols", "pymdownx.superfences", "pymdownx.tabbed",
            "pymdownx.tasklist", "pymdownx.tilde", {"pymdownx.highlight": {"anchor_linenums": True}}]
# A new project's (scaffold/mkdocs.yml, its slugify aside): every inline pattern is the library's, so runs without
# a trigger character skip the inline step (core/mdinline.py).
PROJECT = ["admonition", "attr_list", "md_in_html", "tables", {"toc": {"permalink": True}}, "pymdownx.details", "pymdownx.superfences",
           {"pymdownx.highlight": {"use_pygments": True}}, "pymdownx.inlinehilite"]


def _project(tmp_path, extensions):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(textwrap.dedent(text), encoding="utf-8")
    import yaml

    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump({"site_name": "t", "theme": {"name": "material"}, "markdown_extensions": extensions}), encoding="utf-8")
    config = load_config(str(tmp_path / "mkdocs.yml"))
    return config, get_files(config)


def _outcome(page):
    return (page.content, [(i.title, i.id, i.level, [c.id for c in i.children]) for i in page.toc], page._title_from_render,
            page.present_anchor_ids, {f.src_uri: v for f, v in (page.links_to_anchors or {}).items()})


def _page(config, files, name):
    page = Page(None, files.get_file_from_path(name), config)
    page.read_source(config)
    return page


@pytest.mark.parametrize("extensions", [CORE, PYMDOWNX, PROJECT], ids=["python-markdown", "pymdown-extensions", "project"])
def test_the_shared_converter_gives_each_page_what_its_own_converter_gives(tmp_path, extensions):
    config, files = _project(tmp_path, extensions)
    shared = mdshared.SharedMarkdown(config)
    assert shared.shared, shared.reason
    order = ["index.md", "other.md", "tabs.md", "index.md", "tabs.md", "other.md"]
    converters, outputs = set(), {}
    for name in order:
        own = _page(config, files, name)
        own.render(config, files)
        mine = _page(config, files, name)
        assert shared.render(mine, config, files)
        converters.add(id(shared.md))
        assert _outcome(mine) == _outcome(own), name
        outputs[name] = mine.content
    assert len(converters) == 1  # one converter for all six
    assert shared.inline_skipped == (extensions is PROJECT)  # the others have inline patterns of their own
    # The fixture holds state that would carry over: without a reset, other.md (converted after
    # index.md) would also list index.md's footnote fn:note.
    if "footnotes" in extensions:
        assert 'id="fn:1"' in outputs["other.md"] and "fn:note" not in outputs["other.md"]


def test_an_extension_not_known_to_reset_gets_a_converter_per_page(tmp_path):
    config, files = _project(tmp_path, ["toc", "markdown.extensions.legacy_em"])
    shared = mdshared.SharedMarkdown(config)
    assert not shared.shared and "markdown.extensions.legacy_em" in shared.reason
    page = _page(config, files, "index.md")
    assert shared.render(page, config, files) is False
    assert page.content is None  # nothing done: the caller renders it as MkDocs does


def test_an_engine_whose_page_render_differs_gets_its_own_render(tmp_path, monkeypatch):
    config, _files = _project(tmp_path, ["toc"])
    original = Page.render

    def render(self, config, files):  # another engine's render: the same name, other code
        return original(self, config, files)

    monkeypatch.setattr(Page, "render", render)
    shared = mdshared.SharedMarkdown(config)
    assert not shared.shared and "differently" in shared.reason


def test_extension_instances_are_known_by_their_module():
    from markdown.extensions.toc import TocExtension

    assert mdshared._module(TocExtension()) == "markdown.extensions.toc"
    assert mdshared._module("toc") == "markdown.extensions.toc"
    assert mdshared._module("pymdownx.superfences:SuperFencesCodeExtension") == "pymdownx.superfences"
