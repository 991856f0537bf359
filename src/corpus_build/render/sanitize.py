"""The last layer between registry or mirror text and a published page.

Two kinds of input reach the HTML without passing through our own templates' escaping:

- what the theme prints itself, unescaped (Material's templates do not autoescape):
  the site name, page titles, nav titles, tag names. `theme_text` escapes those,
  quotes included, because Material also puts them in attributes (`aria-label`).
- the page body: Markdown that python-markdown turns into HTML, where raw HTML
  or an attribute list in any text would become live markup. Every builder escapes
  its fields (markdown.text, views.py), and `clean_page` is the net under them:
  the MkDocs plugin runs every generated page's HTML through it (on_page_content),
  an nh3 allow-list of exactly what our templates and Material's extensions emit.
  No `<script>`, no `on…` attribute, no `javascript:` URL, no `<style>`, no form
  and no frame other than the sandboxed snapshot can survive it, whatever a
  builder forgot.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any

# Everything our page builders, the Markdown extensions (admonition, details, tables,
# toc, highlight, superfences) and charts.py's inline SVG produce.
TAGS = {
    "a", "abbr", "b", "blockquote", "br", "button", "caption", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div",
    "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "iframe", "img", "input", "ins", "kbd",
    "label", "li", "mark", "nav", "ol", "option", "output", "p", "pre", "q", "s", "samp", "section", "select", "small", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u", "ul", "var", "wbr",
    # charts.py
    "svg", "g", "rect", "line", "polyline", "polygon", "path", "circle", "text", "tspan", "title", "desc",
}
_SVG_ATTRIBUTES = {
    "viewbox", "width", "height", "x", "y", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx", "ry", "d", "points", "fill", "stroke",
    "stroke-width", "stroke-dasharray", "font-size", "font-weight", "text-anchor", "dominant-baseline", "transform", "opacity",
    "xmlns", "preserveaspectratio", "role", "focusable", "viewBox", "preserveAspectRatio",
}
# Our own data attributes only: Material's script acts on `data-md-*` ones (a `data-md-component="source"`
# on a link makes every reader's browser ask api.github.com about it).
GENERIC_ATTRIBUTES = {
    "id", "class", "title", "lang", "dir", "hidden", "role", "tabindex", "data-chapter", "data-col", "data-key", "data-kind", "data-lang",
    "data-mirror", "data-search-exclude", "data-section", "data-sort", "data-sort-hint", "data-tag", "data-template", "data-verified",
}
ATTRIBUTE_PREFIXES = {"data-cb-", "aria-"}
ATTRIBUTES = {
    "*": GENERIC_ATTRIBUTES,
    "a": {"href", "rel", "target", "hreflang", "download"},
    "img": {"src", "alt", "width", "height", "loading"},
    "iframe": {"src", "sandbox", "loading", "referrerpolicy", "width", "height"},
    "td": {"align", "colspan", "rowspan"}, "th": {"align", "colspan", "rowspan", "scope"},
    "ol": {"start", "reversed", "type"}, "li": {"value"}, "details": {"open"}, "time": {"datetime"},
    "button": {"type", "disabled"}, "input": {"type", "value", "placeholder", "checked", "disabled", "name", "autocomplete"},
    "select": {"name", "multiple"}, "output": {"for", "name"}, "option": {"value", "selected"}, "label": {"for"}, "col": {"span"},
    "svg": _SVG_ATTRIBUTES | {"style"},
    **dict.fromkeys(("g", "rect", "line", "polyline", "polygon", "path", "circle", "text", "tspan"), _SVG_ATTRIBUTES),
}
# charts.py caps its SVG's width; no property that can load anything (url()) is kept.
STYLE_PROPERTIES = {"max-width"}
# Relative links (the site's own pages and files) pass; absolute ones only with these schemes.
URL_SCHEMES = {"http", "https", "mailto"}
_FRAME_SOURCE = re.compile(r"^(?![a-z][a-z0-9+.-]*:|//)[^\\]*$", re.IGNORECASE)  # a file of the site: no scheme, no //host


def theme_text(value: str) -> str:
    """Text the theme prints unescaped, in text or in an attribute: `<`, `>`, `&` and both quotes become entities."""
    return html.escape(str(value), quote=True)


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "id" and value.startswith("__"):
        # Material's own ids (`__config`, `__drawer`, `__search`, …): a `{#__config}` on a code block
        # would otherwise become the theme's configuration, and its search worker a data: script.
        return None
    if tag in ("iframe", "img") and attribute == "src" and not _FRAME_SOURCE.match(value.strip()):
        return None  # frames and images come from the site itself: no request to another origin
    if tag == "iframe" and attribute == "sandbox":
        return "allow-same-origin" if "allow-same-origin" in value.split() else ""  # never allow-scripts
    if tag == "input" and attribute == "type" and value.lower() not in ("search", "text", "checkbox", "radio", "button"):
        return None
    return value


def clean_page(fragment: str) -> str:
    """A page body's HTML, cut to the allow-list (see the module docstring).

    `_attribute_filter` is a Python call for every attribute nh3 keeps, about a quarter of
    the cleaning's time on a source page, and it only ever changes an `id` starting with `__` and the
    attributes of `<iframe>`, `<img>` and `<input>`. nh3 writes its output in one form
    (lower-case names, every value in double quotes, `_` as itself), so when the
    output of the allow-list alone holds none of those, the filter would have returned
    every value as it was, and that output is the answer.
    """
    cleaned = _cleaner(filtered=False)(fragment)
    if any(mark in cleaned for mark in _FILTER_ACTS):
        cleaned = _cleaner(filtered=True)(fragment)
    return cleaned


# Where `_attribute_filter` can change something, in nh3's output: a text's `<` is written `&lt;`,
# and every attribute follows one space.
_FILTER_ACTS = ("<iframe", "<img", "<input", ' id="__')


@functools.cache
def _cleaner(*, filtered: bool = True) -> Callable[[str], str]:
    """nh3 with the allow-list, made once: `nh3.clean` builds its sanitizer anew at every call (0.1 ms a page)."""
    import nh3

    options: dict[str, Any] = {
        "tags": TAGS, "attributes": ATTRIBUTES, "generic_attribute_prefixes": ATTRIBUTE_PREFIXES, "url_schemes": URL_SCHEMES,
        "filter_style_properties": STYLE_PROPERTIES, "link_rel": None,
        "strip_comments": False,  # comments run nothing; other plugins may mark places with them
    }
    if filtered:
        options["attribute_filter"] = _attribute_filter
    if hasattr(nh3, "Cleaner"):  # nh3 0.3 has it, 0.2.17 not yet
        return nh3.Cleaner(**options).clean
    return functools.partial(nh3.clean, **options)
