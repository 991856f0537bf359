"""Article mode (issue 35): on a page that declares itself an article, the text runs from its first
dense paragraph to its last, and what lies before and after is not the article.

Why a mode, and why decided by the page: the rules of fetch/boilerplate.py were tuned on manuals,
where a short line after the last paragraph (a man page's "Part of the git(1) suite") or a box
before the first (DocBook's title page) is text, and they must stay so. A news story, a blog post
or a magazine piece has a different shape: one run of sentence prose, and around it datelines,
bylines, share bars, "Read more", newsletter boxes, related stories and comment prompts, which no
class word need name. Such pages say what they are in their metadata, for search engines and
social networks: `og:type=article`, `article:published_time`, JSON-LD `"@type": "NewsArticle"`,
`itemprop=articleBody`, a schema.org Article `itemtype`. Manuals do not (none of 11,790 HTML pages of Debian's
documentation packages does: those the documentation benches sample and /usr/share/doc), so the manuals' rules are untouched.
(Nor do most Chinese portals: the mode leaves them as they were.) A bare `<article>`
element is no declaration: MkDocs Material and Docusaurus put every manual page in one.

The precision pass, readability's idea on the tree the walk reads (no second parse): the article
is where the densest paragraphs are, the text's core (density.Blocks.core). Its first and last
dense paragraph (a block of sentence prose, few links) bound the article; in document order,
every block of the region before the first and after the last is left out, but for what is
clearly part of the text: headings before it (the title, over kept text), the code, tables and
lists inside the core, and the short paragraphs at the text's ends inside it (an original title
over the text, a last line in the last paragraph's box). Pictures stay only between the text's
paragraphs: a lead picture's credit and a gallery after the text are the page's, not the text's.
The run of dense paragraphs goes on over dense paragraphs outside the core a few blocks away (a
lede in a box of its own, a text split over a page builder's columns). Inside the run, a line of a
few words that is no sentence, no phrase and no bold subheading ("Advertisement", "To the shop")
goes too.

A picture's caption in an article is the picture's line, not the text's (`picture_lines`): a short
caption (under a paragraph's worth of prose, a label and a credit: "Puerto de Montevideo. Foto:
Archivo") goes, wherever it stands; a caption of a paragraph's length or more stays (a story told
under its pictures), and so do all captions where they hold a third of the region's prose (a
gallery, whose text is its captions).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .chrome import text_units
from .density import HAN as _HAN
from .density import HEADINGS, PARAGRAPH, Blocks

# JSON-LD types that are an article (schema.org's Article and its kinds, a blog posting, a report).
_LD_TYPE = re.compile(r'"@type"\s*:\s*\[?\s*"(?:https?://schema\.org/)?(?:\w*Article|BlogPosting|LiveBlogPosting|Report)"')
_ITEMTYPE = re.compile(r"schema\.org/(?:\w*Article|BlogPosting|LiveBlogPosting|Report)\b")


def declares_article(root) -> bool:
    """Whether the page says it is an article (see the module docstring): Open Graph's type or its
    article properties, JSON-LD, or schema.org microdata."""
    for meta in root.iter("meta"):
        key = (meta.get("property") or meta.get("name") or "").strip().lower()
        if key == "og:type" and (meta.get("content") or "").strip().lower().startswith("article"):
            return True
        if key.startswith("article:") and (meta.get("content") or "").strip():
            return True
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() == "application/ld+json" and _LD_TYPE.search(script.text or ""):
            return True
    return any(isinstance(el.tag, str) and (el.get("itemprop") == "articleBody" or bool(_ITEMTYPE.search(el.get("itemtype") or ""))) for el in root.iter())


_DENSE = 80  # characters of prose (whitespace aside) of a paragraph of the article; 40 in Chinese
_DENSE_HAN = 40
_SENTENCE = re.compile(r"[.!?。！？…,，;；:：][\"'”’»)）」』]*(?:\s|$)")
_KEPT_PARTS = {"pre", "table", "figure", "img", "picture", "video"}  # (inside the core: the text's own code, tables, pictures)


def dense(el, blocks: Blocks) -> bool:
    """Whether the block is a paragraph of the article: sentence prose, long enough, few links."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag in HEADINGS or tag in _KEPT_PARTS or tag in ("ul", "ol", "dl", "menu", "form", "hr"):
        return False
    prose = blocks.prose(el)
    text = blocks.text.get(el, 0)
    if not text or blocks.links.get(el, 0) > 0.3 * text:
        return False
    words = el.text_content()
    if prose < (_DENSE_HAN if _HAN.search(words[:200]) else _DENSE):
        return False
    return bool(_SENTENCE.search(words))


def outside_article(region, blocks: Blocks, skip: Callable[[object], bool]) -> set:
    """The blocks of the region before the article's first dense paragraph and after its last
    (see the module docstring); nothing when the core holds no dense paragraph, or when the run
    of them may not be the whole article."""
    core = blocks.core()
    if core is None:
        return set()
    units = [u for u in text_units(region, skip) if blocks.text.get(u)]
    found = _run(units, blocks, core)
    if found is None:
        return set()
    first, last = found
    lead = _standfirst(units, first, blocks)
    out: set = set()
    for i, unit in enumerate(units):
        if first <= i <= last:
            # (a picture outside the core, between a lede and the text, is the page's lead picture)
            if _stray(unit, blocks) or (unit.tag in _PICTURES and not _within(unit, core)):
                out.add(unit)
            continue
        if i == lead:
            continue  # (the standfirst under the title)
        tag = unit.tag.lower()
        if i < first and tag in HEADINGS:
            continue  # (the title, a heading over the text)
        if _within(unit, core) and tag not in HEADINGS and tag not in _PICTURES and _part(unit, blocks):
            continue  # (the text's code, tables and lists)
        out.add(unit)
    return out | _loose_inline(region, units, units[first], units[last], blocks)


_CAPTION_CLASS = re.compile(r"(?:^|[\s_-])(?:wp-)?caption(?:-text)?(?:$|[\s_-])", re.IGNORECASE)
_CAPTION_LINE = 150  # characters of prose of a caption that is a picture's line, not a paragraph told under it


def picture_lines(region, blocks: Blocks, skip: Callable[[object], bool]) -> set:
    """The short captions of the article's pictures (see the module docstring): a <figcaption>, or
    a box its class calls a caption beside a picture, under _CAPTION_LINE characters of prose; none
    where the captions hold a third of the region's prose (a gallery)."""
    captions = []
    for el in region.iter():
        if not isinstance(el.tag, str) or el not in blocks.text or skip(el):
            continue
        if _caption(el) and not any(up in captions for up in el.iterancestors()):
            captions.append(el)
    if not captions or 3 * sum(blocks.prose(c) for c in captions) >= blocks.prose(region):
        return set()
    return {c for c in captions if blocks.prose(c) < _CAPTION_LINE}


def _caption(el) -> bool:
    """A picture's caption: a <figcaption>, or a box its class calls a caption, beside a picture and holding none."""
    tag = el.tag.lower()
    if tag == "figcaption":
        return True
    parent = el.getparent()
    return (tag in ("div", "p", "span") and bool(_CAPTION_CLASS.search(el.get("class") or "")) and el.find(".//img") is None
            and parent is not None and parent.find(".//img") is not None)


def _run(units: list, blocks: Blocks, core) -> tuple[int, int] | None:
    """The indexes of the article's first and last block among the units: the core's first and last
    dense paragraph, widened as the module docstring says; None when there is no run to trust."""
    prose = [dense(u, blocks) for u in units]
    inside = [i for i, u in enumerate(units) if prose[i] and _within(u, core)]
    if not inside:
        return None
    # Over dense paragraphs outside the core close to it: a lede in a box of its own, the text
    # split over a page builder's columns.
    first, last = _extend(prose, inside[0], -1), _extend(prose, inside[-1], 1)
    # Over the short paragraphs at the text's ends, inside the core: an original title over it, a
    # last line; after the text with its lists, code and headings between them ("The takeaway"
    # over a list), and only in the box of its last paragraph: a prompt in a box of its own after
    # the text ("Did you like this story?") is no part of it.
    while first > 0 and _short_paragraph(units[first - 1], blocks, core):
        first -= 1
    box = units[last].getparent()
    # (a page builder wraps each paragraph in a box of its own: the text's box is the one above)
    while box is not None and box is not core and _within(box, core) and sum(1 for u in units if _within(u, box)) == 1:
        box = box.getparent()
    i = last + 1
    while i < len(units) and _within(units[i], box) and (_short_paragraph(units[i], blocks, core) or _part(units[i], blocks)):
        if units[i].tag not in HEADINGS and units[i].tag not in _PICTURES:
            last = i
        i += 1
    # A run holding less than three quarters of the region's sentence prose (a gallery's captions
    # count) may not be the whole article (a core misplaced on an author's box, a text going on in
    # a page builder's other column): nothing is cut.
    weighed = [blocks.prose(u) if prose[i] or _captioned(u, blocks) else 0 for i, u in enumerate(units)]
    if 4 * sum(weighed[first : last + 1]) < 3 * sum(weighed):
        return None
    return first, last


def _loose_inline(region, units: list, start, end, blocks: Blocks) -> set:
    """The inline elements standing loose among the blocks, in the boxes the blocks are in, before
    the text's first block or after its last (a dateline's spans, a "Print recipe" link beside the
    paragraphs): the walk writes them as paragraphs of their own, and no block holds them."""
    boxes: set = set()
    for unit in units:
        for up in unit.iterancestors():
            if up in boxes:
                break
            boxes.add(up)
            if up is region:
                break
    order = {el: i for i, el in enumerate(region.iter())}
    begin = order[start]
    finish = max(order[el] for el in end.iter())
    kept = set(units)
    out: set = set()
    for box in boxes:
        for child in box:
            if child in kept or child in boxes or not blocks.text.get(child):
                continue
            # (not an unknown element or an inline one wrapping the text's paragraphs, `<paragraph><p>`,
            # `<strong><p>`, nor a run of sentence prose in one)
            if blocks.prose(child) >= _DENSE or any(True for _ in child.iter(*_HOLDERS)):
                continue
            if order.get(child, begin) < begin or order.get(child, finish) > finish:
                out.add(child)
    return out


def _stray(el, blocks: Blocks) -> bool:
    """Among the text's paragraphs, a line of a few words that is no sentence, no phrase of one (a
    comma, a colon opening onto what follows) and no emphasis (a subheading written in bold):
    "Advertisement", "To the shop", a date, a toggle's label."""
    tag = el.tag.lower()
    if tag not in ("p", "div", "span") or blocks.prose(el) >= PARAGRAPH or _HAN.search(el.text_content()):
        return False
    words = " ".join(el.text_content().split())
    if not words or _SENTENCE_END.search(words) or words.endswith((":", "：")) or "," in words:
        return False
    bold = "".join(b.text_content() for b in el.iter("strong", "b", "em", "i"))
    return len(" ".join(bold.split())) < len(words) / 2


def _captioned(el, blocks: Blocks) -> bool:
    """A picture whose caption is sentence prose (a gallery's text is its captions)."""
    return el.tag.lower() in _PICTURES and blocks.prose(el) >= _DENSE and bool(_SENTENCE.search(el.text_content()))


def _short_paragraph(el, blocks: Blocks, core) -> bool:
    """A paragraph of a line or two inside the core, a sentence's length or end, and no link: at the
    text's ends, a line with a link points elsewhere ("Subscribe to our edition", "Read more on")."""
    if el.tag != "p" or blocks.links.get(el, 0) or not _within(el, core):
        return False
    words = el.text_content()
    # (in Chinese a line of half the characters says as much)
    return blocks.prose(el) >= (PARAGRAPH // 2 if _HAN.search(words[:100]) else PARAGRAPH) or bool(_SENTENCE_END.search(words))


def _standfirst(units: list, first: int, blocks: Blocks) -> int | None:
    """The index of the block right under the title (the last `h1` before the text) when it is a
    standfirst: a sentence's worth of words with no link and few numbers, which no dense paragraph
    is only for want of a full stop (a dateline, a byline with a date, is no standfirst)."""
    titles = [i for i in range(first) if units[i].tag == "h1"]
    if not titles or titles[-1] + 1 >= first:
        return None
    i = titles[-1] + 1
    el = units[i]
    if el.tag not in ("p", "div") or blocks.links.get(el, 0):
        return None
    words = el.text_content().split()
    if sum(any(c.isdigit() for c in w) for w in words) > 2:
        return None
    han = _HAN.search(el.text_content()[:100])
    # (three quarters of a dense paragraph: a standfirst is a sentence, often a short one)
    return i if 4 * blocks.prose(el) >= 3 * (_DENSE_HAN if han else _DENSE) and (han or len(words) >= 8) else None


_SENTENCE_END = re.compile(r"[.!?。！？…][\"'”’»)）」』]*\s*$")


def _part(el, blocks: Blocks) -> bool:
    """Code, a table, a picture, a list that is no list of links, a heading: parts of the text (inside the core)."""
    tag = el.tag.lower()
    return tag in _KEPT_PARTS or tag in HEADINGS or (tag in _LISTS and blocks.density(el) < 0.3)


_HOLDERS = ("p", "div", "section", "article", "blockquote", "ul", "ol", "table", "pre")
_PICTURES = {"figure", "img", "picture", "video"}
_GAP = 3  # blocks between two dense paragraphs of one article at most
_LISTS = {"ul", "ol", "dl"}


def _extend(prose: list[bool], end: int, step: int) -> int:
    """The run's end moved (by `step`, -1 or 1) over the dense paragraphs that follow with at most
    _GAP other blocks between them."""
    i, gap = end + step, 0
    while 0 <= i < len(prose) and gap <= _GAP:
        if prose[i]:
            end, gap = i, 0
        else:
            gap += 1
        i += step
    return end


def _within(el, box) -> bool:
    return el is box or any(up is box for up in el.iterancestors())

