"""What in a page is chrome (navigation, banners, notices) and what is its text: the rules the
main-text walk (fetch/extract.py) asks before it writes an element.

Three signals, each weighed by what it can tell:

- Class words name a purpose (`navbar`, `breadcrumbs`, `cookie-banner`): chrome, except the
  words that only name a *place* (`sidebar`): a DocBook TIP box or a Sphinx `.. sidebar::`
  sits inside the text and holds prose; a site's navigation sidebar sits beside the text and
  holds links. So a box is chrome unless it stands among the text's own blocks and is not
  mostly links.
- Ids name things, often a heading's slug (`id="cookies"` on a section about cookies): an id
  alone never takes away a heading, nor an element holding headings with prose.
- Where the page marks no main region, the blocks at the start and the end of <body> that are
  mostly links to other pages (prev/next bars, breadcrumbs, language bars) and a folded
  `<details>` of links (a contents widget) are navigation; a visible list of the page's own
  sections, or of links under a heading, is text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

# Class or id parts (split at -, _ and spaces) that pages use for chrome.
SKIP_TOKENS = {
    "nav", "navbar", "navigation", "navheader", "navfooter", "sidebar", "sphinxsidebar", "sphinxsidebarwrapper",
    "related", "breadcrumb", "breadcrumbs", "cookie", "cookies", "consent", "gdpr", "footer", "skiplink", "share",
    "sharing", "social", "advert", "advertisement", "ads", "banner", "menu", "headerlink", "anchorjs", "permalink",
    "hashlink", "copybutton", "announcement", "feedback", "pagination", "pager", "toolbar", "clearer",
}
# Words that say where a box sits, not what it is for.
_PLACE_TOKENS = {"sidebar"}
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
# Blocks of the text itself: a box among them is part of the text's flow.
_TEXT_BLOCKS = _HEADINGS | {"p", "pre", "ul", "ol", "dl", "blockquote", "table", "figure"}
# Whole units for the edge scan: it does not look inside them.
_LEAVES = _TEXT_BLOCKS | {"details", "form", "address", "hr", "menu"}
_CONTAINERS = {"div", "section", "article", "header", "main", "center", "body", "aside", "hgroup", "td", "th", "tr", "tbody", "thead", "tfoot"}
_BLOCKISH = _LEAVES | _CONTAINERS
# Navigation is a small part of a page: an edge block beyond this share of its text is text, and
# when all the blocks found come to more than NAV_SHARE, the page is a page of links (an index).
EDGE_SHARE, NAV_SHARE = 0.3, 0.5
LABEL = 24  # letters and digits of a bar's label ("Available languages")


@functools.lru_cache(maxsize=4096)
def _class_tokens(value: str) -> frozenset[str]:
    """The chrome words a class attribute holds: its words, or their parts split at - and _."""
    found: set[str] = set()
    for word in value.lower().split():
        if word in SKIP_TOKENS:
            found.add(word)
        else:
            found.update(part for part in re.split(r"[-_]", word) if part in SKIP_TOKENS)
    return frozenset(found)


def dense_len(text: str) -> int:
    return len(text) - sum(text.count(c) for c in " \n\t\r")


def text_len(el) -> int:
    """Characters of visible-looking text (scripts and styles left out), without whitespace."""
    total = dense_len("".join(el.itertext()))
    for hidden in el.iter("script", "style", "noscript", "template"):
        total -= dense_len("".join(hidden.itertext()))
    return max(total, 0)


def link_len(el) -> int:
    return sum(dense_len(a.text_content() or "") for a in el.iter("a") if a.get("href") is not None)


def _words(text: str) -> int:
    return sum(1 for c in text if c.isalnum())


def mostly_links(el) -> bool:
    """Whether the element's words are mostly link text: half its characters, or links (three or
    more) with no more than a label beside them ("Languages: de | en | fr"); a table: short
    cells, most of them links, as in a "Prev | Up | Next" bar with the neighbours' titles under it."""
    total = text_len(el)
    if not total:
        return False
    if link_len(el) * 2 >= total:
        return True
    anchors = [a for a in el.iter("a") if a.get("href") is not None]
    if len(anchors) >= 3 and _words(el.text_content()) - sum(_words(a.text_content()) for a in anchors) <= LABEL:
        return True
    if el.tag == "table":
        cells = [(c, text_len(c)) for c in el.iter("td", "th")]
        cells = [(c, n) for c, n in cells if n]
        return bool(cells) and max(n for _, n in cells) <= 40 and 2 * sum(1 for c, _ in cells if c.find(".//a[@href]") is not None) >= len(cells)
    return False


def _in_flow(el) -> bool:
    """Whether the element stands among the text's own blocks (paragraphs, headings, lists),
    through up to three wrappers that hold nothing else, rather than beside a content column."""
    node = el
    for _ in range(4):
        parent = node.getparent()
        if parent is None:
            return False
        if (parent.text or "").strip():
            return True
        siblings = [c for c in parent if c is not node and isinstance(c.tag, str)]
        if any(c.tag.lower() in _TEXT_BLOCKS or (c.tail or "").strip() for c in siblings) or (node.tail or "").strip():
            return True
        if siblings:
            return False
        node = parent
    return False


def box_is_text(el) -> bool:
    """A box (`sidebar`, `<aside>`) that is part of the text: among its blocks and not mostly links."""
    if el.find(".//nav") is not None or el.find(".//form") is not None:
        return False
    return text_len(el) > 0 and not mostly_links(el) and _in_flow(el)


def _names_content(el) -> bool:
    """An element an id may name without making it chrome: a heading, or headings with prose."""
    tag = el.tag.lower()
    if tag in _HEADINGS:
        return True
    return any(True for _ in el.iter(*_HEADINGS)) and not mostly_links(el)


def is_chrome(el) -> bool:
    """By class words (and their parts), or by a whole id, read as the module docstring says."""
    value = el.get("class")
    if value:
        tokens = _class_tokens(value)
        if tokens - _PLACE_TOKENS:
            return True
        if tokens and not box_is_text(el):
            return True
    ident = (el.get("id") or "").lower()
    if ident in SKIP_TOKENS:
        return not box_is_text(el) if ident in _PLACE_TOKENS else not _names_content(el)
    return False


def _units(el, skip: Callable[[object], bool]) -> Iterator:
    """The blocks of a region in document order, descending into containers of blocks (and into
    tables that only lay blocks out); what `skip` leaves out is not there."""
    for child in el:
        if skip(child):
            continue
        tag = child.tag.lower()
        if tag not in _BLOCKISH:
            continue
        if (tag == "table" and not lays_out(child)) or tag in _LEAVES:
            yield child
        elif any(isinstance(c.tag, str) and c.tag.lower() in _BLOCKISH for c in child):
            yield from _units(child, skip)
        else:
            yield child


def table_rows(table) -> list[list]:
    """The table's own rows (not a nested table's), each a list of its td/th cells."""
    rows = []
    for part in table:
        tag = part.tag.lower() if isinstance(part.tag, str) else ""
        trs = [part] if tag == "tr" else [tr for tr in part if isinstance(tr.tag, str) and tr.tag.lower() == "tr"] if tag in ("thead", "tbody", "tfoot") else []
        rows += [[c for c in tr if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")] for tr in trs]
    return rows


def lays_out(table) -> bool:
    """A table used for layout rather than data: it says so (role=presentation), it is one row or
    one column, or its cells hold blocks: a nested table, a heading, code, or (in most cells)
    several paragraphs or a list. A single <p> per cell (Sphinx writes one) is still data."""
    if (table.get("role") or "").lower() in ("presentation", "none"):
        return True
    rows = [r for r in table_rows(table) if r]
    if not rows:
        return False
    if len(rows) == 1 or max(len(r) for r in rows) == 1:
        return True
    cells = [c for r in rows for c in r if text_len(c) or c.find(".//table") is not None]
    blocky = 0
    for cell in cells:
        if any(True for _ in cell.iter("table", "pre", *_HEADINGS)):
            return True
        children = [c for c in cell if isinstance(c.tag, str) and c.tag.lower() in _BLOCKISH]
        if len(children) >= 2 or any(c.tag.lower() in ("ul", "ol", "dl", "blockquote") for c in children):
            blocky += 1
    return bool(cells) and 2 * blocky >= len(cells)


def edge_navigation(region, skip: Callable[[object], bool], leaves_page: Callable[[str], bool]) -> set:
    """The navigation blocks at the start and end of a region that marks nothing (see the module
    docstring): small, mostly links to other pages (or folded away in <details>), before the first
    text or, at the end, outside the containers that hold the text (a chapter's closing footnotes
    or "See also" list is its text)."""
    units = [u for u in _units(region, skip) if text_len(u) or u.tag.lower() in _HEADINGS]
    size = {u: text_len(u) for u in units}
    total = sum(size.values())
    if not total:
        return set()

    def verdict(unit) -> bool | None:
        """True: links like navigation; False: text; None: a heading."""
        if unit.tag.lower() in _HEADINGS:
            return None
        # A definition list pairs terms with what they name (formats to download, a DocBook
        # contents): text, whatever its links.
        if unit.tag.lower() == "dl" or size[unit] > EDGE_SHARE * total or not mostly_links(unit):
            return False
        hrefs = [a.get("href") for a in unit.iter("a") if a.get("href") is not None]
        return unit.tag.lower() == "details" or 2 * sum(1 for h in hrefs if leaves_page(h)) >= len(hrefs)

    verdicts = [verdict(u) for u in units]
    holding = set()  # the containers, below the region, that hold text or headings
    for unit, said in zip(units, verdicts, strict=True):
        if said is not True:
            for parent in unit.iterancestors():
                if parent is region or parent in holding:
                    break
                holding.add(parent)

    def navigation(index: int, start: bool = False) -> bool:
        unit = units[index]
        if verdicts[index] is not True:
            return False
        # Before the first text, the text has not begun, and a folded widget of links is one wherever it sits.
        if start or unit.tag.lower() == "details":
            return True
        for parent in unit.iterancestors():
            if parent is region:
                return True
            if parent in holding:
                return False
        return True

    found: list = []
    headings = 0
    for index in range(len(units)):
        headings += verdicts[index] is None
        if headings > 1:  # past the title, a heading owns what follows it
            break
        if navigation(index, start=True):
            found.append(units[index])
        elif verdicts[index] is not None:
            break
    tail: list = []
    for index in range(len(units) - 1, -1, -1):
        if units[index] in found:
            break
        if navigation(index):
            tail.append(units[index])
            continue
        # What stopped the scan: a heading, or a short label, owns the block that follows it.
        if tail and (verdicts[index] is None or (verdicts[index] is False and size[units[index]] < 60)):
            tail.pop()
        break
    nav = found + tail
    if sum(size[u] for u in nav) > NAV_SHARE * total:
        return set()  # a page of links (an index, a contents page): they are its text
    return set(nav)
