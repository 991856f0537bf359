"""Where a page's main text is, by how its blocks read: the boilerplate inside a region (or in a
<body> that marks none) that no class word names (issue 35).

A readability-style score over the same tree the main-text walk reads (fetch/extract.py), without
changing it: every paragraph-like block (a <p>, <pre>, table cell, list item, a <div> of loose
text) of 25 characters or more scores 1, plus one per comma, plus one per 100 characters (at most
3); its parent gets that score, its grandparent half, the levels above a third, a sixth, a ninth.
A container's score is then weighed by its tag, by its class and id words (a word may demote or
promote, never decide), and by the share of its text that is not link text. The best container
is the text's core; from it up, readability's own steps: several of the best candidates under one
ancestor make that ancestor the core, and a parent scoring nearly as well is taken instead.

What is left out, then, is what stands beside the text and does not read like it:
- beside the core, and beside each container on the way from the region down to it: blocks that
  are mostly links (related stories, headline lists, tag clouds, menus) or named as comments,
  related items, sharing, promotions and the like, and feeds (items that each open on a link to
  another page, with a date or an excerpt of their own);
- inside the core: lists and boxes of links holding a small part of its text, the same named
  boxes, lists of other stories under their headlines (each item's heading a link away), boxes holding a form, a comment thread its class names (under half the prose), and a
  paragraph among paragraphs that is headlines' links to other pages ("Read also: ...").
Where the core (or, inside it, the box holding nearly all of the best candidate's prose: a class
word may have scored a wrapper above the text) holds most of the region's prose, readability's
sibling test is stricter: beside it stays only what reads as the text does (a heading, a box under
one before the text, a paragraph, code, a table, a list, a block scoring a fifth of the core's
score; never a box holding a form); teasers, credits, taglines and copyright lines go, and so do
the dateline and byline beside the title in its box. A block inside a link (a teaser) scores no
paragraph.
Headings, and blocks that are text (a paragraph, code, a table, a quotation), stay wherever
they stand. Where the blocks left out would come to most of the region's text, the page is
a page of links (an index, a contents page): nothing is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .chrome import in_flow, text_units

_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PARAGRAPHS = {"p", "pre", "td", "blockquote"}
_BOXES = {"div", "section", "aside", "ul", "ol", "table", "form", "dl", "article", "header", "figure", "details", "center", "menu"}
_TEXT = {"p", "pre", "blockquote", "table", "figure", "dl", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "img", "picture", "video"}
_TAG_BONUS = {"div": 5, "article": 5, "pre": 3, "td": 3, "blockquote": 3, "address": -3, "ol": -3, "ul": -3, "dl": -3, "dd": -3, "dt": -3,
              "li": -3, "form": -3, "h1": -5, "h2": -5, "h3": -5, "h4": -5, "h5": -5, "h6": -5, "th": -5}
# (Not readability's "page" nor "body": DocBook's `titlepage` holds a heading, and `list-body` is a list.)
_POSITIVE = re.compile(r"article|content|entry|hentry|h-entry|main|post|text|blog|story", re.IGNORECASE)
_NEGATIVE = re.compile(r"-ad-|\bad\b|hidden|banner|combx|comment|com-|contact|footer|gdpr|masthead|outbrain|promo|related|recommend|"
                       r"scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget|teaser|newsletter|popular|hot|rank|"
                       r"taboola|subscribe|signup|social|author-?box|more-?news|cmt|reply|respond|discuss|guestbook", re.IGNORECASE)
_COMMAS = re.compile(r"[,，、；;]")
PARAGRAPH = 25  # characters of a block that counts as a paragraph


def _dense(text: str | None) -> int:
    return len(text) - text.count(" ") - text.count("\n") - text.count("\t") - text.count("\r") - text.count("\xa0") if text else 0


def class_weight(el) -> int:
    """+25 / -25 for each of the class and the id that names content or furniture (readability's weights)."""
    weight = 0
    for value in (el.get("class"), el.get("id")):
        if value:
            if _NEGATIVE.search(value):
                weight -= 25
            if _POSITIVE.search(value):
                weight += 25
    return weight


class Blocks:
    """Text and link characters of every element under a region (what `skip` leaves out counts
    nothing), and the readability scores of its containers."""

    def __init__(self, region, skip: Callable[[object], bool]):
        self.region = region
        self.text: dict = {}
        self.links: dict = {}
        self.score: dict = {}
        paragraphs: list = []
        # Post-order without recursion (pages nest deeper than Python's stack allows).
        stack: list = [(region, False, False)]
        while stack:
            el, done, linked = stack.pop()
            if not done:
                stack.append((el, True, linked))
                # (a block inside a link is a teaser's text: it scores no paragraph)
                linked = linked or (el.tag == "a" and el.get("href") is not None)
                stack.extend((c, False, linked) for c in reversed(el) if isinstance(c.tag, str) and not skip(c))
                continue
            text = _dense(el.text)
            links = 0
            for child in el:
                text += _dense(child.tail)
                if child in self.text:
                    text += self.text[child]
                    links += self.links[child]
            tag = el.tag.lower()
            # (a link to a place in this page, a contents entry, is the page's own structure, not a way out)
            if tag == "a" and el.get("href") is not None and not el.get("href").lstrip().startswith("#"):
                links = text
            self.text[el] = text
            self.links[el] = links
            if text >= PARAGRAPH and not linked and (tag in _PARAGRAPHS or (tag in ("div", "section", "article", "span", "font") and self._loose(el) >= PARAGRAPH)):
                paragraphs.append(el)
        for para in paragraphs:
            if para.tag.lower() == "li" and 2 * self.links[para] > self.text[para]:
                continue  # a link in a list: a headline, not a paragraph
            words = "".join(para.itertext())
            points = 1 + len(_COMMAS.findall(words)) + min(self.text[para] // 100, 3)
            for level, ancestor in enumerate(para.iterancestors()):
                if level > 4:
                    break
                if ancestor not in self.score:
                    self.score[ancestor] = _TAG_BONUS.get(ancestor.tag.lower() if isinstance(ancestor.tag, str) else "", 0) + class_weight(ancestor)
                self.score[ancestor] += points / (1 if level == 0 else 2 if level == 1 else level * 3)
                if ancestor is region:
                    break

    def _loose(self, el) -> int:
        """Characters of the element's own text, outside its block children."""
        total = _dense(el.text)
        for child in el:
            total += _dense(child.tail)
            if isinstance(child.tag, str) and child.tag.lower() not in _BOXES and child.tag.lower() not in _PARAGRAPHS and child in self.text:
                total += self.text[child]
        return total

    def density(self, el) -> float:
        """The share of the element's text that is link text."""
        text = self.text.get(el, 0)
        return self.links.get(el, 0) / text if text else 0.0

    def final(self, el) -> float:
        return self.score[el] * (1 - self.density(el))

    def best(self):
        """Readability's top candidate, the best-scoring container, or None."""
        if not self.score:
            return None
        top = max(self.score, key=self.final)
        return top if self.final(top) > 0 else None

    def top(self):
        """The best container, or the ancestor several strong ones share, or None."""
        if not self.score:
            return None
        ranked = sorted(self.score, key=self.final, reverse=True)
        top = ranked[0]
        best = self.final(top)
        if best <= 0:
            return None
        # Several strong candidates under one ancestor (sections of one article): that ancestor.
        strong = [c for c in ranked[1:5] if self.final(c) >= 0.75 * best]
        if len(strong) >= 3:
            lines = [set(c.iterancestors()) for c in strong]
            for ancestor in top.iterancestors():
                if sum(ancestor in line for line in lines) >= 3:
                    top = ancestor
                    break
                if ancestor is self.region:
                    break
        return top

    def core(self):
        """The container the main text is in (the top candidate, or a parent scoring nearly as well), or None."""
        top = self.top()
        if top is None:
            return None
        # A parent scoring nearly as well holds more of the text.
        last = self.final(top) if top in self.score else max(self.final(c) for c in self.score)
        threshold = last / 3
        parent = top.getparent()
        while parent is not None and top is not self.region:
            if parent in self.score:
                score = self.final(parent)
                if score < threshold:
                    break
                if score > last:
                    top = parent
                    break
                last = score
            if parent is self.region:
                break
            parent = parent.getparent()
        while top is not self.region and top.getparent() is not None and len([c for c in top.getparent() if self.text.get(c)]) == 1:
            top = top.getparent()
        return top

    def prose(self, el) -> int:
        """Characters of the element's text outside links."""
        return self.text.get(el, 0) - self.links.get(el, 0)

    def furniture(self, el, within: int, inside: bool = False) -> bool:
        """Whether a block beside or inside the text is boilerplate: mostly links (three or more) or
        named as furniture, and not holding `within` characters of prose or more. Headings and text
        blocks never are; inside the text, neither is a box standing among its paragraphs (a "see
        also" list, a TIP box: chrome.box_is_text)."""
        tag = el.tag.lower() if isinstance(el.tag, str) else ""
        text = self.text.get(el, 0)
        if tag in _TEXT or tag not in _BOXES or not text or self.prose(el) >= within:
            return False
        named = class_weight(el) < 0 and self.score.get(el, 0) < 25 + PARAGRAPH
        # (inside the text, boxes of links; beside it a third of link text is already a list of
        # teasers: a headline link, a line, a "more" link)
        flowing = inside or tag in ("ul", "ol", "menu", "dl")  # (a list's items may be sentences around a link)
        links = self.density(el) > (0.5 if flowing else 0.33) and sum(1 for a in el.iter("a") if a.get("href") is not None) >= (3 if flowing else 2)
        if links and not named and _paragraphs(el):
            return False
        if not (named or links):
            return False
        if links and not (inside and tag in ("ul", "ol") and in_flow(el)):
            return True
        return not in_flow(el) or (not inside and self.score.get(el, 0) <= 0)


def boilerplate(region, skip: Callable[[object], bool]) -> set:
    """The blocks of the region to leave out (see the module docstring), and pictures' credits."""
    blocks = Blocks(region, skip)
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
    replies: set = set()  # (comment threads with their reply form: readers' text, whatever its size)
    for node in on_path:
        if node is core:
            continue
        for child in node:
            if child in on_path or child not in blocks.text:
                continue
            if _replies(child):
                replies.add(child)
            elif blocks.furniture(child, half) or _label(child, blocks) or _about_author(child, blocks, half):
                found.add(child)
            else:
                feeds |= _feeds(child, blocks)
    # Inside the core: boxes of links or named furniture, each a small part of its text.
    quarter = max(blocks.prose(core) // 4, 1)
    stack = list(core)
    while stack:
        el = stack.pop()
        if el not in blocks.text:
            continue
        if _replies(el):
            replies.add(el)
        elif _left_out_inside(el, blocks, quarter):
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
    found |= _loose_ends(core, blocks, skip, found)
    found |= _orphan_headings(region, blocks, found)
    # (after the headings over nothing: a title over its dateline is over the text)
    for box in headers:
        found |= _header_labels(box, blocks)
    return found


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
    if blocks.text.get(el, 0) >= _SHORT or el.find(".//img") is not None or el.tag in _HEADINGS:
        return False
    if _CREDIT_CLASS.search(el.get("class") or ""):
        return True
    return bool(_CREDIT_LINE.search(" ".join(el.text_content().split())))


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
            elif before and child.tag in _BOXES and any(True for _ in child.iter(*_HEADINGS)):
                headers.add(child)
    return out


def _header_labels(box, blocks: Blocks) -> set:
    """In a box before the text (its title's header), the short lines beside the title that are no
    sentence: a dateline, a byline, a category."""
    out: set = set()
    stack = [box]
    while stack:
        el = stack.pop()
        for child in el:
            if not blocks.text.get(child) or child.tag in _HEADINGS:
                continue
            if any(True for _ in child.iter(*_HEADINGS)):
                stack.append(child)
            elif _label(child, blocks):
                out.add(child)
    return out


_THREAD = re.compile(r"comment|cmt|reply|respond|discuss|guestbook", re.IGNORECASE)


def _thread(el, blocks: Blocks, within: int) -> bool:
    """A box the page names as its comments (a thread, a reply form): readers' text, not the
    page's, however many paragraphs it holds, as long as it holds less than `within` characters of
    prose (a class word demotes, never vetoes, what holds most of the text)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in _BOXES or blocks.prose(el) >= within:
        return False
    # (its class: an id may be a section's anchor, made from its title, "Replying to Mail")
    return bool(_THREAD.search(el.get("class") or ""))


def _left_out_inside(el, blocks: Blocks, quarter: int) -> bool:
    """Inside the core, what is no text: boxes of links or named furniture, an author's box, a form,
    a comment thread, a line of headlines, a list of other stories (each a small part of the text)."""
    return (
        blocks.furniture(el, quarter, inside=True)
        or _about_author(el, blocks, quarter)
        or _form(el, blocks, quarter)
        or _thread(el, blocks, 2 * quarter)
        or _link_line(el, blocks)
        or (blocks.prose(el) < quarter and _headlines(el, blocks))
    )


def _replies(el) -> bool:
    """A box the page names as its comments that holds the form to add one: the readers' text and
    the way to add to it, not the page's, however much of the page it holds (a short post under a
    long thread). Named by its class, or by an id of one word (`comments`, `respond`, `commentsbox`):
    an id of several words may be a section's anchor made from its title ("Replying to Mail"), and
    a manual's section on comments holds no form."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in _BOXES:
        return False
    ident = (el.get("id") or "").strip()
    named = _THREAD.search(el.get("class") or "") or (_THREAD.search(ident) and not _SEVERAL_WORDS.search(ident))
    return bool(named) and _holds_form(el)


_SEVERAL_WORDS = re.compile(r"[-_.:\s]")
_AUTHOR = re.compile(r"author|\bbio\b|biography|byline", re.IGNORECASE)


def _about_author(el, blocks: Blocks, within: int) -> bool:
    """A box the page names as its author's (a bio, a byline box), holding less than `within`
    characters of prose: about who wrote the text, not the text, even where it stands among the
    paragraphs and its class also says `content` (the words cancel out in the score)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in _BOXES or blocks.prose(el) >= within:
        return False
    return bool(_AUTHOR.search(el.get("class") or "") or _AUTHOR.search(el.get("id") or ""))


def _link_line(el, blocks: Blocks) -> bool:
    """A paragraph among the text's paragraphs that is links to other pages, all but a label
    ("Read also:"), each reading as a headline (four words or more): other stories' titles set
    between the text's paragraphs. So is a box written the same way (a div around the link, a list
    of a headline or two in its own wrapper). A link among a sentence's words, or to a place in
    this page, leaves it text; so does a link of a name or two ("See also: port, ferries"), a
    paragraph in a list or a table (an entry of a manual's index, a name in a cell), and a list of
    more than two (a table of contents)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in _LINE_BOXES or not blocks.text.get(el) or 4 * blocks.links.get(el, 0) <= 3 * blocks.text[el]:
        return False
    links = [a for a in el.iter("a") if (a.get("href") or "#").lstrip()[:1] not in ("#", "")]
    if not links or any(len(a.text_content().split()) < 4 for a in links) or (tag != "p" and len(links) > 2):
        return False
    if any(isinstance(up.tag, str) and up.tag.lower() in ("li", "td", "th", "dd", "dt", "table") for up in el.iterancestors()):
        return False
    # (a box in a wrapper of its own: the wrapper is what stands among the paragraphs)
    host = el
    while tag != "p" and host.getparent() is not None and len([c for c in host.getparent() if blocks.text.get(c)]) == 1:
        host = host.getparent()
    parent = host.getparent()
    return parent is not None and sum(1 for c in parent if c.tag == "p" and blocks.prose(c) >= PARAGRAPH) >= 2


_LINE_BOXES = {"p", "div", "section", "aside", "ul", "ol"}


def _form(el, blocks: Blocks, within: int) -> bool:
    """A box holding a form and less than `within` characters of prose: a sign-up, a comment form,
    a rating (chrome.box_is_text: a box with a form is never the text)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    return tag in _BOXES and blocks.prose(el) < within and _holds_form(el)


def _holds_form(el) -> bool:
    """Whether the box is or holds a form, and no table of data (a recipe's servings calculator
    over its ingredients, a shop's price list)."""
    return (el.tag == "form" or el.find(".//form") is not None) and el.find(".//table") is None


def _narrowest(top, blocks: Blocks):
    """The box inside the top candidate that holds nearly all its prose (a class word, `main`,
    `content`, may have scored a wrapper above it: the title, the dateline and the disclaimers
    beside the text are in the wrapper, not in the text)."""
    while True:
        prose = blocks.prose(top)
        inner = max((c for c in top if blocks.text.get(c)), key=blocks.prose, default=None)
        if inner is None or inner.tag not in _BOXES or 100 * blocks.prose(inner) < _NARROW * prose:
            return top
        top = inner


_NARROW = 85  # percent of the top candidate's prose a box inside it holds to be the text's narrower core


def _qualifies(el, blocks: Blocks, threshold: float, before: bool) -> bool:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in _HEADINGS or tag in ("pre", "table", "blockquote", "hr", "img", "picture", "video", "dl", "ol", "ul", "figure"):
        return True
    # (a box holding a form is a way to comment, subscribe, rate or search: no text, whatever its heading)
    if class_weight(el) < 0 or _holds_form(el):
        return False
    # Before the text, a box under its own heading is its title (DocBook's `div.titlepage`, a man
    # page's NAME); after it, a box under a heading ("Subscribe", "Support us") is a section only
    # if it reads as one. A teaser's heading is a link.
    if before and _titled(el, blocks):
        return True
    density = blocks.density(el)
    if el in blocks.score and blocks.final(el) >= threshold and density < 0.5:
        return True
    words = " ".join(el.text_content().split())
    if tag == "p":  # a paragraph, unless a line of links: what reads as a sentence, or six words of one
        return density < 0.5 and (blocks.prose(el) >= 80 or _reads(words))
    # Readability's: a paragraph's length of prose, or a short line that ends as a sentence. After
    # the text, a box of prose scoring under the threshold is a section of it under its own
    # heading; without one (an author's box, a publisher's note) it is not read with the text.
    if blocks.prose(el) >= 80:
        return density < 0.25 and (before or _titled(el, blocks))
    return density == 0 and bool(_SENTENCE_END.search(words))


def _titled(el, blocks: Blocks) -> bool:
    """Whether the box holds a heading that is not a link."""
    return any(blocks.text.get(h, 0) > blocks.links.get(h, 0) for h in el.iter(*_HEADINGS))


_SENTENCE_END = re.compile(r"[.!?。！？…:：]\W*$")
_SHORT = 60  # characters of a line that says what a page is filed under, who wrote it, when, where a picture is from


_TEASER = 200  # characters of prose outside its links a teaser holds at most: a headline's line, a date, an excerpt


def _feeds(box, blocks: Blocks) -> set:
    """The feeds in a box beside the text: three or more items, nearly all of them teasers (see
    _teaser). Related stories with their excerpts, a column of headlines with dates and counts:
    not mostly links by their characters, but each item a way to another page."""
    out: set = set()
    stack = [box]
    while stack:
        el = stack.pop()
        if _feed(el, blocks):
            out.add(el)
        else:
            stack.extend(c for c in el if blocks.text.get(c))
    return out


def _feed(el, blocks: Blocks) -> bool:
    if el.tag not in _BOXES:  # (items are blocks in a box: links in a paragraph are its words)
        return False
    items = [c for c in el if blocks.text.get(c)]
    if len(items) < 3:
        return False
    teasers = sum(1 for c in items if _teaser(c, blocks))
    # (a list standing among paragraphs, "see section 1.4 (basics)", is the text's own)
    return teasers >= 3 and 4 * teasers >= 3 * len(items) and not (el.tag in ("ul", "ol", "dl") and in_flow(el))


def _headlines(el, blocks: Blocks) -> bool:
    """A list or box of three or more items nearly all of which hold a heading that is a link to
    another page: other stories, each under its headline (with a picture, a date, an excerpt).
    A manual's list of links has no headings in its items; a contents entry links into the page."""
    if el.tag not in ("ul", "ol", "div", "section"):
        return False
    items = [c for c in el if blocks.text.get(c)]
    if len(items) < 3:
        return False
    headed = sum(1 for item in items if any(_linked_heading(h) for h in item.iter(*_HEADINGS)))
    return 4 * headed >= 3 * len(items)


def _linked_heading(heading) -> bool:
    """Whether all the heading's text is a link to another page (the link inside it, or around it)."""
    for up in heading.iterancestors():
        if up.tag == "a":
            return (up.get("href") or "#").lstrip()[:1] not in ("#", "")
    words = " ".join(heading.text_content().split())
    linked = " ".join(" ".join(a.text_content() for a in heading.iter("a") if (a.get("href") or "#").lstrip()[:1] not in ("#", "")).split())
    return bool(words) and linked == words


def _teaser(el, blocks: Blocks) -> bool:
    """An item whose first words, or last ("Read more…" under a title and an excerpt), are a link
    to another page, with little prose of its own."""
    if (el.tag not in _BOXES and el.tag not in ("li", "dt", "dd", "tr", "td")) or not blocks.links.get(el) or blocks.prose(el) >= _TEASER:  # (a paragraph opening on a link is text)
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


def _loose_ends(core, blocks: Blocks, skip: Callable[[object], bool], found: set) -> set:
    """After the core's last sentence of text: its short lines that are no sentence (a date, tags,
    "back", a picture's credit, an author's name) are the page's furniture, not its text."""
    units = [u for u in text_units(core, skip) if blocks.text.get(u, 0) and u not in found and not any(p in found for p in u.iterancestors())]
    out: set = set()
    for unit in reversed(units):
        tag = unit.tag.lower()
        words = " ".join(unit.text_content().split())
        if tag in _HEADINGS or tag in ("pre", "table", "figure", "img", "blockquote", "dl", "ul", "ol", "menu"):
            continue  # (what a heading, code, a table or a list is, its own rules say)
        if blocks.text[unit] >= _SHORT or _SENTENCE_END.search(words):
            return out  # the last sentence of the text
        if len(words.split()) >= 6:
            continue  # (a line of six words reads as text, "This page last modified on …": kept, though no sentence's end)
        if sum(1 for a in unit.iter("a") if a.get("href") is not None) < 2:  # (a line of links is the link rules' to judge)
            out.add(unit)
    return set()  # no sentence at all: nothing to tell the text's ends by


def _paragraphs(el) -> bool:
    """A box of paragraphs (and headings, and wrappers of the same) and nothing else, not all of
    them a bare link: text written in wrappers (AsciiDoc's `div.sect1` > `div.paragraph`, a "See
    also" line of links and commas under its heading)."""
    found = [False]

    def only_text(box) -> bool:
        if (box.text or "").strip():
            return False
        for child in box:
            if not isinstance(child.tag, str):
                continue
            tag = child.tag.lower()
            if (child.tail or "").strip():
                return False
            if tag == "p":
                found[0] = found[0] or len(child) != 1 or child[0].tag != "a" or bool((child.text or "").strip() or (child[0].tail or "").strip())
            elif tag in ("div", "section") and only_text(child):
                continue
            elif tag not in _HEADINGS:
                return False
        return True

    return only_text(el) and found[0]


def _reads(words: str) -> bool:
    """Whether a short line reads as a sentence: it ends as one, or runs to six words ("This page
    last modified on …"), where a date, a byline, a credit or a list of tags is a few."""
    return bool(_SENTENCE_END.search(words)) or len(words.split()) >= 6


def _label(el, blocks: Blocks) -> bool:
    """A short line beside the text that is no sentence: a date, a byline, a category, a credit."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in _HEADINGS or tag in ("pre", "table", "figure", "img", "blockquote", "dl", "hr", "picture", "video") or not 0 < blocks.text.get(el, 0) < _SHORT:
        return False
    if el.find(".//img") is not None or any(True for _ in el.iter(*_HEADINGS)):
        return False
    return not _reads(" ".join(el.text_content().split()))


def _orphan_headings(region, blocks: Blocks, found: set) -> set:
    """A heading over nothing but what is left out ("Related stories" over its list, "Comments"
    over the thread) goes with it."""
    out: set = set()
    for heading in region.iter(*_HEADINGS):
        if heading not in blocks.text or heading in found:
            continue
        level = int(heading.tag[1]) if heading.tag[1:].isdigit() else 6
        following = []
        for sibling in heading.itersiblings():
            if not isinstance(sibling.tag, str) or sibling not in blocks.text:
                continue
            tag = sibling.tag.lower()
            if tag in _HEADINGS and int(tag[1]) <= level:
                break
            if blocks.text[sibling]:
                following.append(sibling)
        if following and all(f in found for f in following):
            out.add(heading)
    return out
