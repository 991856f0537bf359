"""One Markdown converter for all the pages of a build, reset between pages.

MkDocs makes a new `markdown.Markdown` for every page (`Page.render`): every
extension is loaded and configured again, about half a millisecond a page, an
eighth of converting it (at 1,000 sources, 59 of Page.render's 488 samples).
Python-Markdown supports reuse: `reset()` between documents clears its own state
and calls the reset of each extension that registered one. That is only as good
as the extensions, so the converter is shared only when every configured one is
known to keep no state past its reset (SHAREABLE; tests/test_mdshared.py converts
documents using each of them both ways and compares), and only while the engine's
`Page.render` is one this module repeats (its source is compared). Otherwise
`render` returns False and the page takes MkDocs' own path.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
from typing import Any

# Extensions (by module) whose per-document state lives in what `Markdown.reset` resets.
SHAREABLE = frozenset(
    [f"markdown.extensions.{name}" for name in (
        "abbr", "admonition", "attr_list", "def_list", "fenced_code", "footnotes", "md_in_html",
        "meta", "sane_lists", "smarty", "tables", "toc", "nl2br", "wikilinks", "codehilite",
    )]
    + [f"pymdownx.{name}" for name in (
        "betterem", "caret", "details", "emoji", "highlight", "inlinehilite", "keys", "mark",
        "smartsymbols", "superfences", "tabbed", "tasklist", "tilde",
    )]
)
# sha256 of the `Page.render` sources that `render` below repeats step for step, and whether
# that render keeps `links_to_anchors` at every log level (ProperDocs) or only above DEBUG (MkDocs).
KNOWN_RENDERS = {
    "320529348f7a8af152073d0a3ab02960ccce91f9204716144e51b20931983cc6": ("mkdocs 1.6.1", False),
    "ee04724746238ac17c0004482b10be71d084369ec5be615642eedee83a9f6171": ("properdocs 1.6.7", True),
}


def _module(extension: Any) -> str:
    if isinstance(extension, str):
        name = extension.split(":", 1)[0]
        return name if "." in name else f"markdown.extensions.{name}"
    return type(extension).__module__


def render_source_hash() -> str:
    from mkdocs.structure.pages import Page

    return hashlib.sha256(inspect.getsource(Page.render).encode("utf-8")).hexdigest()


class SharedMarkdown:
    """Converts pages as `Page.render` does, with one `Markdown` for the whole build."""

    def __init__(self, config: Any):
        self.md: Any = None
        self.inline_skipped = False
        self.last_calls: list[tuple[str, str]] | None = None  # the links the last page rendered resolved (render)
        extensions = list(config["markdown_extensions"])
        unknown = sorted({_module(e) for e in extensions} - SHAREABLE)
        engine = KNOWN_RENDERS.get(render_source_hash())
        self._links_always = bool(engine and engine[1])
        self.reason = ""  # why pages take MkDocs' own path, for the log
        if unknown:
            self.reason = f"Markdown extensions not known to reset between pages: {', '.join(unknown)}"
        elif engine is None:
            self.reason = f"this engine renders pages differently from {' and '.join(name for name, _ in KNOWN_RENDERS.values())}"
        self._extensions = extensions
        self._configs = config["mdx_configs"] or {}

    @property
    def shared(self) -> bool:
        return not self.reason

    def render(self, page: Any, config: Any, files: Any) -> bool:
        """`page.render(config, files)` with the shared converter; False (nothing done) when not shared."""
        self.last_calls = None
        if self.reason:
            return False
        import markdown
        from mkdocs.structure import pages
        from mkdocs.structure.toc import get_toc

        if page.markdown is None:
            raise RuntimeError("`markdown` field hasn't been set (via `read_source`)")
        if self.md is None:
            from ..core import mdinline

            self.md = markdown.Markdown(extensions=self._extensions, extension_configs=self._configs)
            # Runs of text no inline pattern can match skip the inline step (core/mdinline.py):
            # with the project's extensions, all known, a third of converting a source page.
            self.inline_skipped = mdinline.install(self.md)
        md = self.md.reset()
        # MkDocs' own processors, made for each page as Page.render makes them: registered
        # under the same names, each replaces the last page's.
        raw_html_ext = pages._RawHTMLPreprocessor()
        raw_html_ext._register(md)
        extract_anchors_ext = pages._ExtractAnchorsTreeprocessor(page.file, files, config)
        extract_anchors_ext._register(md)
        relative_path_ext = pages._RelativePathTreeprocessor(page.file, files, config)
        relative_path_ext._register(md)
        # Each link MkDocs resolved, as (written, resolved): the offline copy moves them to its URLs
        # without converting the page again (site/twinrender.py).
        calls: list[tuple[str, str]] = []
        resolve = relative_path_ext.path_to_url

        def path_to_url(url: str) -> str:
            resolved = resolve(url)
            calls.append((url, resolved))
            return resolved

        relative_path_ext.path_to_url = path_to_url  # type: ignore[method-assign]
        self.last_calls = calls
        extract_title_ext = pages._ExtractTitleTreeprocessor()
        extract_title_ext._register(md)

        page.content = md.convert(page.markdown)
        page.toc = get_toc(getattr(md, "toc_tokens", []))
        page._title_from_render = extract_title_ext.title
        page.present_anchor_ids = extract_anchors_ext.present_anchor_ids | raw_html_ext.present_anchor_ids
        if self.keeps_links_to_anchors():
            page.links_to_anchors = relative_path_ext.links_to_anchors
        return True

    def keeps_links_to_anchors(self) -> bool:
        """Whether the engine's render keeps a page's `links_to_anchors` (MkDocs: only above DEBUG)."""
        from mkdocs.structure import pages

        return self._links_always or pages.log.getEffectiveLevel() > logging.DEBUG
