"""Where a page's main text is, by how its blocks read: the score the boilerplate rules stand on
(issue 35; the rules themselves are in fetch/boilerplate.py and fetch/inside.py).

A readability-style score over the same tree the main-text walk reads (fetch/extract.py), without
changing it: every paragraph-like block (a <p>, <pre>, table cell, list item, a <div> of loose
text) of 25 characters or more scores 1, plus one per comma, plus one per 100 characters (at most
3); its parent gets that score, its grandparent half, the levels above a third, a sixth, a ninth.
A container's score is then weighed by its tag, by its class and id words (a word may demote or
promote, never decide), and by the share of its text that is not link text. The best container
is the text's core; from it up, readability's own steps: several of the best candidates under one
ancestor make that ancestor the core, and a parent scoring nearly as well is taken instead.
A block inside a link (a teaser) scores no paragraph.

`Blocks` holds those counts and scores for one region, and the one test both sides of the core
share (`Blocks.furniture`: a box mostly of links, or named as furniture).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .chrome import in_flow

HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_PARAGRAPHS = {"p", "pre", "td", "blockquote"}
BOXES = {"div", "section", "aside", "ul", "ol", "table", "form", "dl", "article", "header", "figure", "details", "center", "menu"}
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
HAN = re.compile(r"[\u3400-\u9fff]")  # a Chinese character (CJK ideographs and extension A): text written without spaces


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


def named_furniture(el) -> bool:
    """Whether the element's class or id holds a word that names furniture, whatever other words
    it holds (`widgetcontainer widget_text`, where class_weight nets `widget` and `text` to 0)."""
    return any(_NEGATIVE.search(v) for v in (el.get("class"), el.get("id")) if v)


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
            if para is region:
                continue  # (its containers are outside the region: the core is found inside it)
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
            if isinstance(child.tag, str) and child.tag.lower() not in BOXES and child.tag.lower() not in _PARAGRAPHS and child in self.text:
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
            # (as readability's climb, never to <body>: it scores by all the page's blocks near the
            # top of the tree, a column of teasers as much as the text)
            if parent is self.region and isinstance(parent.tag, str) and parent.tag.lower() == "body":
                break
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
        if tag in _TEXT or tag not in BOXES or not text or self.prose(el) >= within:
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
            elif tag not in HEADINGS:
                return False
        return True

    return only_text(el) and found[0]
