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
  sections, or of links under a heading, is text. A bar repeated at both ends (the same pages
  linked: DocBook's docnav, texinfo's "Next: … Up: …", a language bar) is navigation even inside
  the text's container, and a masthead's title lines and logo links go with the bars around them
  (edge_navigation says the rest).
- Wherever it sits, a block of nothing but links whose markup names this page's place among
  others (rel=next/prev/up/contents/index, a translation by hreflang, the page itself), with at
  most a label beside them, is navigation: texinfo's one-page manuals put a "Next: … Up: …" line
  at every node, an httpd-like manual a two-language bar (relation_bars).
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
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
_PARTS = {"td", "th", "tr", "tbody", "thead", "tfoot"}  # of a table, never a block on their own
# Navigation is a small part of a page: an edge block beyond this share of its text is text, and
# when all the blocks found come to more than NAV_SHARE, the page is a page of links (an index).
EDGE_SHARE, NAV_SHARE = 0.3, 0.5
LABEL = 24  # letters and digits of a bar's label ("Available languages")
# Link types that say where the linked page stands to this one in a sequence or a book, not what
# it is about: HTML 4.01's start/next/prev/contents/index, HTML's next/prev, and the "up" and
# "previous" texinfo writes. (Not "bookmark": a blog puts that on a post's own title.)
SEQUENCE_RELS = {"next", "prev", "previous", "up", "first", "last", "start", "contents", "toc", "index"}


@functools.lru_cache(maxsize=4096)
def _class_tokens(value: str) -> frozenset[str]:
    """The chrome words a class attribute holds: its words, or their parts split at - and _; not
    a part after a word that makes the class a property of the box rather than its purpose
    (`no-share`, `hide-social-icons`, `has-sidebar`, `with-related`: a post without a share bar,
    a layout with a sidebar beside it), or names a topic the post is filed under (`category-social-issues`)."""
    found: set[str] = set()
    for word in value.lower().split():
        if word in SKIP_TOKENS:
            found.add(word)
            continue
        parts = re.split(r"[-_]", word)
        for i, part in enumerate(parts):
            if part in SKIP_TOKENS and not _PROPERTY_WORDS.intersection(parts[:i]):
                found.add(part)
    return frozenset(found)


# Words before a chrome word in a class that say what the box has or hides, not what it is, and
# the words blog engines put before the topics a post is filed under (`category-social-issues`).
_PROPERTY_WORDS = {"no", "not", "without", "hide", "hidden", "has", "have", "with", "show", "disable", "disabled", "enable", "enabled",
                   "category", "tag", "topic"}


def dense_len(text: str) -> int:
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t") - text.count("\r") if text else 0


_HIDDEN = {"script", "style", "noscript", "template"}
_measured = threading.local()


@contextlib.contextmanager
def measured(root) -> Iterator[None]:
    """Within it, text_len and link_len of the elements under `root` come from one pass over the
    tree made here, not from a walk of each element's subtree at every question (the rules ask
    about the same containers many times). The tree must not change meanwhile."""
    if getattr(_measured, "root", None) is root:
        yield  # (already measured, by a caller asking more questions of the same tree)
        return
    sizes: dict = {}
    links: dict = {}
    stack: list = [(root, False)]
    while stack:  # post-order, without recursion
        el, done = stack.pop()
        if not isinstance(el.tag, str):
            continue  # a comment or processing instruction: its tail is its parent's
        if not done:
            stack.append((el, True))
            stack.extend([(c, False) for c in el])
            continue
        hidden = el.tag.lower() in _HIDDEN
        text = 0 if hidden else dense_len(el.text or "")
        link = 0
        for child in el:
            text += dense_len(child.tail or "")
            if not hidden and isinstance(child.tag, str):
                text += sizes[child]
                link += links[child]
        sizes[el] = text
        links[el] = text if el.tag == "a" and el.get("href") is not None else link
    previous = getattr(_measured, "sizes", None), getattr(_measured, "links", None), getattr(_measured, "root", None)
    _measured.sizes, _measured.links, _measured.root = sizes, links, root
    try:
        yield
    finally:
        _measured.sizes, _measured.links, _measured.root = previous


def text_len(el) -> int:
    """Characters of visible-looking text (scripts and styles left out), without whitespace."""
    sizes = getattr(_measured, "sizes", None)
    if sizes is not None and el in sizes:
        return sizes[el]
    total = dense_len("".join(el.itertext()))
    for hidden in el.iter("script", "style", "noscript", "template"):
        total -= dense_len("".join(hidden.itertext()))
    return max(total, 0)


def link_len(el) -> int:
    links = getattr(_measured, "links", None)
    if links is not None and el in links:
        return links[el]
    return sum(dense_len(a.text_content() or "") for a in el.iter("a") if a.get("href") is not None)


def _words(text: str) -> int:
    return sum(map(str.isalnum, text))  # (map: no Python-level step per character)


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


def _titles(el) -> bool:
    """A wrapper holding nothing but a heading (DocBook's `div.titlepage`): the section's title."""
    headings = [h for h in el.iter(*_HEADINGS) if h is not el]
    return bool(headings) and text_len(el) == sum(text_len(h) for h in headings)


def in_flow(el) -> bool:
    """Whether the element stands among the text's own blocks (paragraphs, headings, lists, a
    section's title), through up to three wrappers that hold nothing else, rather than beside a content column."""
    node = el
    for _ in range(4):
        parent = node.getparent()
        if parent is None:
            return False
        if (parent.text or "").strip():
            return True
        siblings = [c for c in parent if c is not node and isinstance(c.tag, str)]
        if any(c.tag.lower() in _TEXT_BLOCKS or _titles(c) or (c.tail or "").strip() for c in siblings) or (node.tail or "").strip():
            return True
        if siblings:
            return False
        node = parent
    return False


def box_is_text(el) -> bool:
    """A box (`sidebar`, `<aside>`) that is part of the text: among its blocks and not mostly links."""
    if el.find(".//nav") is not None or el.find(".//form") is not None:
        return False
    return text_len(el) > 0 and not mostly_links(el) and in_flow(el)


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


def text_units(el, skip: Callable[[object], bool]) -> Iterator:
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
            yield from text_units(child, skip)
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


def _linked_images(el) -> bool:
    """A block that shows nothing but pictures inside links (a logo bar, a "back to top" arrow)."""
    return any(True for a in el.iter("a") if a.get("href") is not None and a.find(".//img") is not None)


def _sentence(el) -> bool:
    """Whether a block's text reads as a sentence (ends as one), not a label or a title line."""
    return bool(re.search(r"[.!?。！？]\W*$", " ".join(el.text_content().split())))


def _up_to(el, region) -> list:
    """The element and its ancestors below the region."""
    chain = [el]
    for parent in el.iterancestors():
        if parent is region:
            return chain
        chain.append(parent)
    return []


def _loose_text(el, units: set, skip: Callable[[object], bool]) -> int:
    """Characters of an element's text outside the given blocks and outside what `skip` leaves out."""
    total = dense_len(el.text or "")
    for child in el:
        total += dense_len(child.tail or "")
        if child in units or skip(child):
            continue
        total += _loose_text(child, units, skip)
    return total


def edge_navigation(region, skip: Callable[[object], bool], leaves_page: Callable[[str], bool],
                    leaves_site: Callable[[str], bool] = lambda href: False) -> set:
    """The navigation blocks at the start and end of a region that marks nothing (see the module
    docstring): small, mostly links to other pages (or folded away in <details>), before the first
    text or, at the end, outside the containers that hold the text (a chapter's closing footnotes
    or "See also" list is its text). Besides:

    - a bar repeated at both ends (links to the same pages: a DocBook docnav, a texinfo node
      header, a language bar) is navigation wherever the end one sits, even when the top one
      also names the book in plain words;
    - short title lines between the bars before the page's title (a product and version line)
      are its masthead, and so are links showing only pictures (logos, arrows);
    - after the closing bar, a section a script fills (a comment widget) is the page's furniture;
    - the text's last line of bare links to other sites ("Edit this page · Report a bug") is not
      the text's;
    - a rule (<hr>) between a bar and the text goes with the bar, and a container of nothing but
      navigation is navigation."""
    units = [u for u in text_units(region, skip) if text_len(u) or u.tag.lower() in _HEADINGS or u.tag.lower() == "hr" or _linked_images(u)]
    size = {u: text_len(u) for u in units}
    total = sum(size.values())
    if not total:
        return set()

    def verdict(unit) -> bool | None:
        """True: links like navigation; False: text; None: a heading (or a rule)."""
        tag = unit.tag.lower()
        if tag in _HEADINGS or tag == "hr":
            return None
        if not size[unit]:
            return True  # pictures in links
        # A definition list pairs terms with what they name (formats to download, a DocBook
        # contents): text, whatever its links.
        if tag == "dl" or size[unit] > EDGE_SHARE * total or not mostly_links(unit):
            return False
        hrefs = [a.get("href") for a in unit.iter("a") if a.get("href") is not None]
        return tag == "details" or 2 * sum(1 for h in hrefs if leaves_page(h)) >= len(hrefs)

    verdicts = [verdict(u) for u in units]
    targets = [frozenset(h for a in u.iter("a") if (h := (a.get("href") or "").strip()) and leaves_page(h)) for u in units]
    # Bars repeated at both ends: the top one before any prose, the two linking to the same pages.
    repeated: set[int] = set()
    closing = None  # index of the closing bar
    for i, unit in enumerate(units):
        if verdicts[i] is False and (size[unit] >= 60 or _sentence(unit)) and i not in repeated:
            break
        if len(targets[i]) < 2 or size[unit] > EDGE_SHARE * total:
            continue
        for j in range(len(units) - 1, i + 1, -1):
            small, big = sorted((targets[i], targets[j]), key=len)
            if len(small) >= 2 and small <= big and size[units[j]] <= EDGE_SHARE * total and (verdicts[i] or verdicts[j]):
                repeated |= {i, j}
                closing = j if closing is None else max(closing, j)
                break
    for i in repeated:
        verdicts[i] = True

    holding = set()  # the containers, below the region, that hold text or headings
    for unit, said in zip(units, verdicts, strict=True):
        if said is False or (said is None and unit.tag.lower() != "hr"):
            for parent in unit.iterancestors():
                if parent is region or parent in holding:
                    break
                holding.add(parent)

    def navigation(index: int, start: bool = False) -> bool:
        unit = units[index]
        if verdicts[index] is not True:
            return False
        # Before the first text, the text has not begun, and a folded widget of links is one wherever it sits.
        if start or unit.tag.lower() == "details" or index in repeated:
            return True
        for parent in unit.iterancestors():
            if parent is region:
                return True
            if parent in holding:
                return False
        return True

    found: list = []
    pending: list = []  # short title lines, navigation if more navigation follows them
    headings = 0
    for index in range(len(units)):
        unit = units[index]
        headings += verdicts[index] is None and unit.tag.lower() != "hr"
        if headings > 1:  # past the title, a heading owns what follows it
            break
        if navigation(index, start=True):
            found += [*pending, unit]
            pending = []
        elif not headings and verdicts[index] is False and size[unit] < 60 and not _sentence(unit):
            pending.append(unit)
        elif verdicts[index] is not None:
            break
    tail: list = []
    stop = len(units)
    certain = [units[i] for i in sorted(repeated)]
    sizes: dict = {}

    def widget(container) -> bool:
        if container not in sizes:
            sizes[container] = text_len(container) <= EDGE_SHARE * total
        return sizes[container]

    if closing is not None:  # after the closing bar: what a script builds, and pictures in links
        before = {id(p) for u in units[: closing + 1] for p in u.iterancestors()}
        for index in range(closing + 1, len(units)):
            unit = units[index]
            # (within containers of their own: a wrapper round the whole page may end in scripts)
            # (never the text itself: a container holding much of the page's text is not a widget, scripts or not)
            scripted = any(p.find(".//script") is not None and widget(p) for p in _up_to(unit, region) if id(p) not in before)
            if scripted or not size[unit] or verdicts[index] is True:
                certain.append(unit)
        stop = closing
    for index in range(stop - 1, -1, -1):
        unit = units[index]
        if unit in found:
            break
        if navigation(index) or unit.tag.lower() == "hr":
            tail.append(unit)
            continue
        if verdicts[index] is True:
            # The text's last line of bare links to other sites: actions on the page, not its text.
            anchors = [a for a in unit.iter("a") if a.get("href") is not None]
            if unit.tag.lower() in ("p", "div") and anchors and all(leaves_site(a.get("href")) for a in anchors) \
                    and _words(unit.text_content()) == sum(_words(a.text_content()) for a in anchors):
                tail.append(unit)
                continue
        # What stopped the scan: a heading, or a short label, owns the block that follows it.
        if tail and (verdicts[index] is None or (verdicts[index] is False and size[unit] < 60 and not _sentence(unit))):
            while tail and tail[-1].tag.lower() == "hr":
                tail.pop()
            if tail and index + 1 not in repeated:
                tail.pop()
        break
    sure = set(certain)
    nav = [u for u in found + tail if u not in sure]
    # Bars repeated at both ends are not in doubt; the others, if they come to most of the rest,
    # are a page of links (an index, a contents page): they are its text.
    if sum(size[u] for u in nav) > NAV_SHARE * (total - sum(size[u] for u in sure)):
        nav = []
    nav += certain
    # A rule before the first text or after the last goes with the bars.
    kept = [i for i, u in enumerate(units) if u not in nav and u.tag.lower() != "hr"]
    if kept:
        nav += [u for i, u in enumerate(units) if u.tag.lower() == "hr" and (i < kept[0] or i > kept[-1])]
    found_set = set(nav)
    # A container of nothing but navigation (a page header with a logo beside its bars) is navigation.
    for unit in list(found_set):
        for parent in unit.iterancestors():
            if parent is region or parent in found_set:
                break
            inside = [u for u in units if any(p is parent for p in u.iterancestors())]
            if any(u not in found_set for u in inside) or _loose_text(parent, set(inside), skip) or text_len(parent) > NAV_SHARE * total:
                break
            found_set.add(parent)
    return found_set


def _names_relation(a) -> bool:
    """A link whose markup says it leads to a neighbour in a sequence or to a translation."""
    return bool(SEQUENCE_RELS & set((a.get("rel") or "").lower().split())) or bool((a.get("hreflang") or "").strip())


def _relation_bar(el, is_self: Callable[[str], bool]) -> bool:
    """Whether a block is nothing but relation links (see relation_bars) and a label: at least one
    link says so in its markup, the others do or lead to this very page (the current language in
    a language bar), and the words outside them are a label, not a sentence."""
    if any(True for _ in el.iter("pre", *_HEADINGS)):
        return False
    anchors, named = [], False
    for a in el.iter("a"):  # (a section around a bar fails at its first other link: no need to read on)
        if a.get("href") is None:
            continue
        if _names_relation(a):
            named = True
        elif not is_self(a.get("href")):
            return False
        anchors.append(a)
    if not named:
        return False
    return _words(el.text_content()) - sum(_words(a.text_content()) for a in anchors) <= LABEL and not _sentence(el)


def relation_bars(region, is_self: Callable[[str], bool]) -> set:
    """The blocks in the region that are navigation by their markup (the module docstring's last
    point): from each link naming a relation, the largest enclosing block below the region that is
    still nothing but such links and a label. Its ancestors are climbed through inline wrappers
    only while each block holds no more than that, so a link of this kind inside a paragraph of
    prose ("go on to the next chapter, which…") leaves the paragraph, and the link, in the text."""
    found: set = set()
    # (XPath picks the few links carrying rel or hreflang out of thousands faster than a loop.)
    for anchor in region.xpath(".//a[@href][@rel or @hreflang]"):
        if not _names_relation(anchor) or any(p in found for p in anchor.iterancestors()):
            continue  # (the other links of a bar found already)
        best = None
        for parent in anchor.iterancestors():
            if parent is region or not isinstance(parent.tag, str):
                break
            # (A list item or a table cell is part of its list or table: a contents list's
            # "Index" entry may say rel=index, and the list is still the page's own contents.)
            if parent.tag.lower() in _BLOCKISH and parent.tag.lower() not in _PARTS:
                if not _relation_bar(parent, is_self):
                    break
                best = parent
        if best is not None:
            found.add(best)
    return found
