"""What to leave out of a region (or of a <body> that marks none) around its main text: the
boilerplate no class word names (issue 35). The text's core is found by its score (fetch/density.py);
the rules for what stands inside it are in fetch/inside.py, those for what stands beside it here.

What is left out is what stands beside the text and does not read like it:
- beside the core, and beside each container on the way from the region down to it: blocks that
  are mostly links (related stories, headline lists, tag clouds, menus) or named as comments,
  related items, sharing, promotions and the like, or titled so (fetch/inside.py: titled_furniture),
  and feeds (items that each open on a link to
  another page, with a date or an excerpt of their own), and columns of boxes each named as
  furniture (widgets), whatever their names' other words;
- inside the core: fetch/inside.py.
Where the core (or, inside it, the box holding nearly all of the best candidate's prose: a class
word may have scored a wrapper above the text) holds most of the region's prose, readability's
sibling test is stricter: beside it stays only what reads as the text does (a heading, a box under
one before the text, a paragraph, code, a table, a list, a block scoring a fifth of the core's
score; never a box holding a form); teasers, credits, taglines and copyright lines go, and so do
the dateline and byline beside the title in its box. In a picture's caption, the line saying where
the picture is from goes; the caption stays.
Headings, and blocks that are text (a paragraph, code, a table, a quotation), stay wherever
they stand, but for a heading over nothing kept (fetch/headings.py). Where the blocks left out
would come to most of the region's text, the page is a page of links (an index, a contents
page): nothing is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .chrome import in_flow, text_units
from .density import BOXES, HEADINGS, Blocks, class_weight, named_furniture
from .density import HAN as _HAN
from .headings import headings_over_nothing, orphan_headings
from .inside import about_author, holds_form, left_out_inside, thread_with_form, titled_furniture


def boilerplate(region, skip: Callable[[object], bool], blocks: Blocks | None = None) -> set:
    """The blocks of the region to leave out (see the module docstring), and pictures' credits.
    (`blocks`: the region's scores, when the caller has them already.)"""
    blocks = blocks if blocks is not None else Blocks(region, skip)
    return _left_out(region, blocks, skip) | _credits(region, blocks)


def _left_out(region, blocks: Blocks, skip: Callable[[object], bool]) -> set:
    total = blocks.text.get(region, 0)
    core = blocks.core()
    if core is None or not total:
        return set()
    found: set = set()
    # Beside the core and beside each container on the way down to it.
    path = [core, *core.iterancestors()]
    on_path = set()
    for node in path:
        on_path.add(node)
        if node is region:
            break
    if region not in on_path:
        return set()
    prose = blocks.prose(region)
    half = prose // 2
    feeds: set = set()
    # (a box beside the core scoring a fifth of its score reads as text: a manual's other sections)
    text_score = max(10.0, 0.2 * blocks.final(core)) if core in blocks.score else 10.0
    replies: set = set()  # (comment threads with their reply form: readers' text, whatever its size)
    for node in on_path:
        if node is core:
            continue
        for child in node:
            if child in on_path or child not in blocks.text:
                continue
            if any(thread_with_form(box) for box in _wrapped(child, blocks)):
                replies.add(child)
            elif _label(child, blocks) or _column(child, blocks, half) or any(
                    blocks.furniture(box, half) or about_author(box, blocks, half) or titled_furniture(box, blocks, half) for box in _wrapped(child, blocks)):
                found.add(child)
            else:
                feeds |= _feeds(child, blocks, half, child not in blocks.score or blocks.final(child) < text_score)
    # Inside the core: boxes of links or named furniture, each a small part of its text.
    quarter = max(blocks.prose(core) // 4, 1)
    stack = list(core)
    while stack:
        el = stack.pop()
        if el not in blocks.text:
            continue
        if thread_with_form(el):
            replies.add(el)
        elif left_out_inside(el, blocks, quarter):
            found.add(el)
        else:
            stack.extend(el)
    # A page of links (an index, a contents page, a portal's front page): what would be left out is
    # most of the region and outweighs the text's core's prose four times over. Its links are its text.
    dropped = sum(blocks.text[e] for e in found)
    # (Prose left out by its name, a comment thread, does not count: the name is the page's own word.)
    unnamed = sum(blocks.prose(e) for e in found if class_weight(e) >= 0)
    if unnamed > 0.5 * prose or (dropped > 0.5 * total and dropped > 4 * blocks.prose(core)):
        return set()
    # (Feeds beside the core do not count either: a page whose text is its teasers has them in its core;
    # nor do the readers' comments, which are prose, not links.)
    found |= feeds | replies
    headers: set = set()  # (boxes before the text that hold its title)
    found |= _beside(core, on_path, blocks, region, found, headers)
    top = blocks.best()
    if top is not None and (top is core or core in set(top.iterancestors())):
        top = _narrowest(top, blocks)
    if top is not None and top is not core and core in set(top.iterancestors()):
        # (a core that strong neighbours or a parent's score widened: what stands beside the best
        # candidate inside it, where that candidate holds most of the prose)
        inner = set()
        for node in (top, *top.iterancestors()):
            inner.add(node)
            if node is core:
                break
        found |= _beside(top, inner, blocks, region, found, headers)
    # (a heading over a last line left out as a loose end, a man page's "GIT" over "Part of the
    # git(1) suite", still heads a section of the text)
    ends = _loose_ends(core, blocks, skip, found)
    found |= headings_over_nothing(region, skip, found) | ends
    found |= orphan_headings(region, blocks, found)
    # (after the headings over nothing: a title over its dateline is over the text)
    for box in headers:
        found |= _header_labels(box, blocks)
    return found


def _wrapped(el, blocks: Blocks) -> list:
    """The box and the boxes it wraps alone (each the one child holding text of the one above): a
    wrapper of one box is that box, whatever the wrapper's own name (`div.box` round a comment form
    the page names `comment-respond`)."""
    chain = [el]
    while True:
        inner = [c for c in chain[-1] if blocks.text.get(c)]
        if len(inner) != 1 or not isinstance(inner[0].tag, str) or inner[0].tag.lower() not in BOXES or blocks.text[inner[0]] != blocks.text[chain[-1]]:
            return chain
        chain.append(inner[0])


def _column(el, blocks: Blocks, within: int) -> bool:
    """A box beside the text whose items, three or more, are each named as furniture, whatever else
    their names say (a sidebar's `widgetcontainer widget_text` items with the id `text-4`: the
    content word and the widget word net out in the score). The column of widgets is furniture by
    what it holds, whatever its own name (`main-aside`, which the score lifts), as long as it holds
    less than `within` characters of prose. (Two items may be a lede and a picture its page calls
    a teaser.)"""
    if el.tag not in BOXES or blocks.prose(el) >= within:
        return False
    items = [c for c in el if blocks.text.get(c)]
    while len(items) == 1 and items[0].tag in BOXES:
        items = [c for c in items[0] if blocks.text.get(c)]
    return len(items) >= 3 and all(named_furniture(c) for c in items)


def _narrowest(top, blocks: Blocks):
    """The box inside the top candidate that holds nearly all its prose (a class word, `main`,
    `content`, may have scored a wrapper above it: the title, the dateline and the disclaimers
    beside the text are in the wrapper, not in the text)."""
    while True:
        prose = blocks.prose(top)
        inner = max((c for c in top if blocks.text.get(c)), key=blocks.prose, default=None)
        if inner is None or inner.tag not in BOXES or 100 * blocks.prose(inner) < _NARROW * prose:
            return top
        top = inner


_NARROW = 85  # percent of the top candidate's prose a box inside it holds to be the text's narrower core


def _beside(core, on_path: set, blocks: Blocks, region, found: set, headers: set) -> set:
    """Where the core holds most of the region's prose, what stands beside it is the text only if
    it reads as the text does (readability's sibling test, _qualifies); the rest (teasers, comment
    threads, bylines, boxes of links that are no list) is left out. The boxes before the text that
    hold its title go into `headers`."""
    if 2 * blocks.prose(core) < blocks.prose(region):
        return set()
    threshold = max(10.0, 0.2 * blocks.final(core)) if core in blocks.score else 10.0
    out: set = set()
    for node in on_path:
        if node is core:
            continue
        before = True  # (the children before the way down to the core: a title, a header)
        for child in node:
            if child in on_path:
                before = False
                continue
            if child in found or not blocks.text.get(child):
                continue
            if not _qualifies(child, blocks, threshold, before):
                out.add(child)
            elif before and child.tag in BOXES and any(True for _ in child.iter(*HEADINGS)):
                headers.add(child)
    return out


def _qualifies(el, blocks: Blocks, threshold: float, before: bool) -> bool:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in HEADINGS or tag in ("pre", "table", "blockquote", "hr", "img", "picture", "video", "dl", "ol", "ul", "figure"):
        return True
    # (a box holding a form is a way to comment, subscribe, rate or search: no text, whatever its heading)
    if class_weight(el) < 0 or holds_form(el):
        return False
    # Before the text, a box under its own heading is its title (DocBook's `div.titlepage`, a man
    # page's NAME); after it, a box under a heading ("Subscribe", "Support us") is a section only
    # if it reads as one. A teaser's heading is a link.
    if before and _titled(el, blocks):
        return True
    density = blocks.density(el)
    # (by what its paragraphs score, without its class word: `main_div_full` on a footer is no text)
    if el in blocks.score and (blocks.score[el] - class_weight(el)) * (1 - density) >= threshold and density < 0.5:
        return True
    words = " ".join(el.text_content().split())
    if tag == "p":  # a paragraph, unless a line of links: what reads as a sentence, or six words of one
        return density < 0.5 and (blocks.prose(el) >= 80 or _reads(words))
    # Readability's: a paragraph's length of prose, or a short line that ends as a sentence. After
    # the text, a box of prose scoring under the threshold is a section of it under its own
    # heading; without one (an author's box, a publisher's note) it is not read with the text, nor
    # when it holds no paragraph (it scores nothing: a heading over cards of headlines, dates and
    # counts, a form's labels).
    if blocks.prose(el) >= 80:
        return density < 0.25 and (before or (_titled(el, blocks) and el in blocks.score))
    # (a line ending on a colon opens onto what follows it, "Press contact:", "Zum Weiterlesen:":
    # a label, beside the text, not a sentence of it)
    return density == 0 and bool(_SENTENCE_END.search(words)) and not words.endswith((":", "："))


def _titled(el, blocks: Blocks) -> bool:
    """Whether the box holds a heading that is not a link."""
    return any(blocks.text.get(h, 0) > blocks.links.get(h, 0) for h in el.iter(*HEADINGS))


_SENTENCE_END = re.compile(r"[.!?。！？…:：]\W*$")


_SHORT = 60  # characters of a line that says what a page is filed under, who wrote it, when, where a picture is from
_HAN_WORDS = 12  # Chinese characters of a line that reads as a sentence though it ends on none (a dateline, a byline is fewer)


def _reads(words: str) -> bool:
    """Whether a short line reads as a sentence: it ends as one, or runs to six words ("This page
    last modified on …"), where a date, a byline, a credit or a list of tags is a few. Chinese
    writes no spaces: twelve of its characters are six words' worth."""
    return bool(_SENTENCE_END.search(words)) or len(words.split()) >= 6 or len(_HAN.findall(words)) >= _HAN_WORDS


def _label(el, blocks: Blocks) -> bool:
    """A short line beside the text that is no sentence: a date, a byline, a category, a credit."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in HEADINGS or tag in ("pre", "table", "figure", "img", "blockquote", "dl", "hr", "picture", "video") or not 0 < blocks.text.get(el, 0) < _SHORT:
        return False
    if el.find(".//img") is not None or any(True for _ in el.iter(*HEADINGS)):
        return False
    return not _reads(" ".join(el.text_content().split()))


def _header_labels(box, blocks: Blocks) -> set:
    """In a box before the text (its title's header), the short lines beside the title that are no
    sentence: a dateline, a byline, a category."""
    out: set = set()
    stack = [box]
    while stack:
        el = stack.pop()
        for child in el:
            if not blocks.text.get(child) or child.tag in HEADINGS:
                continue
            if any(True for _ in child.iter(*HEADINGS)):
                stack.append(child)
            elif _label(child, blocks):
                out.add(child)
    return out


def _loose_ends(core, blocks: Blocks, skip: Callable[[object], bool], found: set) -> set:
    """After the core's last sentence of text: its short lines that are no sentence (a date, tags,
    "back", a picture's credit, an author's name) are the page's furniture, not its text."""
    units = [u for u in text_units(core, skip) if blocks.text.get(u, 0) and u not in found and not any(p in found for p in u.iterancestors())]
    out: set = set()
    for unit in reversed(units):
        tag = unit.tag.lower()
        words = " ".join(unit.text_content().split())
        if tag in HEADINGS or tag in ("pre", "table", "figure", "img", "blockquote", "dl", "ul", "ol", "menu"):
            continue  # (what a heading, code, a table or a list is, its own rules say)
        if blocks.text[unit] >= _SHORT or _SENTENCE_END.search(words):
            return out  # the last sentence of the text
        if _reads(words):
            continue  # (a line of six words reads as text, "This page last modified on …", "游戏在Steam售价36元…": kept, though no sentence's end)
        if sum(1 for a in unit.iter("a") if a.get("href") is not None) < 2:  # (a line of links is the link rules' to judge)
            out.add(unit)
    return set()  # no sentence at all: nothing to tell the text's ends by


_TEASER = 200  # characters of prose outside its links a teaser holds at most: a headline's line, a date, an excerpt


def _feeds(box, blocks: Blocks, within: int, deep: bool) -> set:
    """The feeds in a box beside the text: three or more items, nearly all of them teasers (see
    _teaser). Related stories with their excerpts, a column of headlines with dates and counts:
    not mostly links by their characters, but each item a way to another page. With `deep` (the
    box does not read as text), also the small boxes of links in it, as they would be judged inside
    the text (Blocks.furniture, under a teaser's prose): a box of "hot" links inside a column of
    cards, which the column as a whole, mostly cards, does not show. (Deep in a box, by its links,
    not its name: an API page's signature line, a type or two linked, and its note its class calls
    a `deprecation-comment`, are no boxes of links.)"""
    out: set = set()
    stack = [box]
    while stack:
        el = stack.pop()
        if _feed(el, blocks) or (deep and el is not box and blocks.prose(el) < _TEASER and _links(el, blocks) and blocks.furniture(el, within, inside=True)):
            out.add(el)
        else:
            stack.extend(c for c in el if blocks.text.get(c))
    return out


def _links(el, blocks: Blocks) -> bool:
    """Whether the box is mostly links, three or more."""
    return blocks.density(el) > 0.5 and sum(1 for a in el.iter("a") if a.get("href") is not None) >= 3


def _feed(el, blocks: Blocks) -> bool:
    if el.tag not in BOXES:  # (items are blocks in a box: links in a paragraph are its words)
        return False
    items = [c for c in el if blocks.text.get(c)]
    if len(items) < 3:
        return False
    teasers = sum(1 for c in items if _teaser(c, blocks))
    # (a list standing among paragraphs, "see section 1.4 (basics)", is the text's own)
    return teasers >= 3 and 4 * teasers >= 3 * len(items) and not (el.tag in ("ul", "ol", "dl") and in_flow(el))


def _teaser(el, blocks: Blocks) -> bool:
    """An item whose first words, or last ("Read more…" under a title and an excerpt), are a link
    to another page, with little prose of its own."""
    if (el.tag not in BOXES and el.tag not in ("li", "dt", "dd", "tr", "td")) or not blocks.links.get(el) or blocks.prose(el) >= _TEASER:  # (a paragraph opening on a link is text)
        return False
    first = last = None
    for node in el.iter():
        if node not in blocks.text:
            continue
        if (node.text or "").strip():
            first = node if first is None else first
            last = node
        if node is not el and (node.tail or "").strip():
            last = node.getparent()
    return any(node is not None and _in_link(node, el) for node in (first, last))


def _in_link(node, within) -> bool:
    """Whether the node is inside a link to another page, below `within`."""
    for up in (node, *node.iterancestors()):
        if up.tag == "a" and up.get("href") is not None and not up.get("href").lstrip().startswith("#"):
            return True
        if up is within:
            return False
    return False


_CAPTION = re.compile(r"caption|legend", re.IGNORECASE)


_CREDIT_CLASS = re.compile(r"credit|copyright|image-?source|photographer", re.IGNORECASE)


# (the words a credit opens on, then a colon: "Foto: …", "(Source: …)", "© …", "图片来源：…")
_CREDIT_LINE = re.compile(r"^[(\[]?\s*(?:©|\(c\)|(?:fotos?|photos?|bild|bilder|quelle|bildquelle|source|credits?|crédits?|fuente|"
                          r"źródło|图片来源|图片|来源|摄影)\s*[:：])", re.IGNORECASE)


def _credits(region, blocks: Blocks) -> set:
    """In a picture's caption (a <figcaption>, a box its class calls a caption or legend), the short
    line that says where the picture is from: by its class (`credits`, `copyright-note`) or by its
    first word ("Foto:", "(Source: …)", "©"). A credit is no text; the caption beside it is."""
    out: set = set()
    captions = [el for el in region.iter() if isinstance(el.tag, str) and el in blocks.text
                and (el.tag == "figcaption" or _CAPTION.search(el.get("class") or ""))]
    for caption in captions:
        stack = [caption]
        while stack:
            el = stack.pop()
            if el in out or not blocks.text.get(el):
                continue
            if _credit(el, blocks):
                out.add(el)
            else:
                stack.extend(c for c in el if isinstance(c.tag, str))
    return out


def _credit(el, blocks: Blocks) -> bool:
    if blocks.text.get(el, 0) >= _SHORT or el.find(".//img") is not None or el.tag in HEADINGS:
        return False
    if _CREDIT_CLASS.search(el.get("class") or ""):
        return True
    return bool(_CREDIT_LINE.search(" ".join(el.text_content().split())))
