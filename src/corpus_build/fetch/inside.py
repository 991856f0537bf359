"""Inside the text's core, what is no text (issue 35): the rules fetch/boilerplate.py applies to
the core's own boxes, each a small part of its text.

Lists and boxes of links holding a small part of the text, the boxes named as furniture
(`Blocks.furniture`), lists of other stories under their headlines (each item's heading a link
away), boxes holding a form, a comment thread its class names (under half the prose), an author's
box, a paragraph among paragraphs that is headlines' links to other pages ("Read also: ..."), and a
box whose title names it as furniture ("Subscribe to email updates", "Related articles", "相关阅读";
under half the text's prose: the title is the page's own word for it).
A comment thread holding its reply form (`thread_with_form`) goes wherever it stands, beside the core too.
"""

from __future__ import annotations

import re

from .density import BOXES, HEADINGS, PARAGRAPH, Blocks


def left_out_inside(el, blocks: Blocks, quarter: int) -> bool:
    """Inside the core, what is no text: boxes of links or named furniture, an author's box, a form,
    a comment thread, a line of headlines, a list of other stories (each a small part of the text)."""
    return (
        blocks.furniture(el, quarter, inside=True)
        or about_author(el, blocks, quarter)
        or _form(el, blocks, quarter)
        or _thread(el, blocks, 2 * quarter)
        or _link_line(el, blocks)
        or (blocks.prose(el) < quarter and _headlines(el, blocks))
        # (a title is the page's own word for the box: it goes unless it holds half the text)
        or titled_furniture(el, blocks, 2 * quarter)
    )


_THREAD = re.compile(r"comment|cmt|reply|respond|discuss|guestbook", re.IGNORECASE)


def _thread(el, blocks: Blocks, within: int) -> bool:
    """A box the page names as its comments (a thread, a reply form): readers' text, not the
    page's, however many paragraphs it holds, as long as it holds less than `within` characters of
    prose (a class word demotes, never vetoes, what holds most of the text)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in BOXES or blocks.prose(el) >= within:
        return False
    # (its class: an id may be a section's anchor, made from its title, "Replying to Mail")
    return bool(_THREAD.search(el.get("class") or ""))


def thread_with_form(el) -> bool:
    """A box the page names as its comments that holds the form to add one: the readers' text and
    the way to add to it, not the page's, however much of the page it holds (a short post under a
    long thread). Named by its class, or by an id of one word (`comments`, `respond`, `commentsbox`):
    an id of several words may be a section's anchor made from its title ("Replying to Mail"), and
    a manual's section on comments holds no form."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in BOXES:
        return False
    ident = (el.get("id") or "").strip()
    named = _THREAD.search(el.get("class") or "") or (_THREAD.search(ident) and not _SEVERAL_WORDS.search(ident))
    return bool(named) and holds_form(el)


_SEVERAL_WORDS = re.compile(r"[-_.:\s]")


_AUTHOR = re.compile(r"author|\bbio\b|biography|byline", re.IGNORECASE)


def about_author(el, blocks: Blocks, within: int) -> bool:
    """A box the page names as its author's (a bio, a byline box), holding less than `within`
    characters of prose: about who wrote the text, not the text, even where it stands among the
    paragraphs and its class also says `content` (the words cancel out in the score)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in BOXES or blocks.prose(el) >= within:
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
    return tag in BOXES and blocks.prose(el) < within and holds_form(el) and not _worked_on(el, blocks)


def _worked_on(el, blocks: Blocks) -> bool:
    """Whether the box's form works on a list of the box that stands outside the form and is no
    list of links (a recipe's servings calculator over its ingredients): data with its control."""
    forms = set(el.iter("form"))
    return any(blocks.text.get(listing) and blocks.density(listing) < 0.3 and not forms.intersection(listing.iterancestors())
               for listing in el.iter("ul", "ol"))


def holds_form(el) -> bool:
    """Whether the box is or holds a form, and no table of data (a recipe's servings calculator
    over its ingredients, a shop's price list)."""
    return (el.tag == "form" or el.find(".//form") is not None) and el.find(".//table") is None


def _headlines(el, blocks: Blocks) -> bool:
    """A list or box of three or more items nearly all of which hold a heading that is a link to
    another page: other stories, each under its headline (with a picture, a date, an excerpt).
    A manual's list of links has no headings in its items; a contents entry links into the page."""
    if el.tag not in ("ul", "ol", "div", "section"):
        return False
    items = [c for c in el if blocks.text.get(c)]
    if len(items) < 3:
        return False
    headed = sum(1 for item in items if any(_linked_heading(h) for h in item.iter(*HEADINGS)))
    return 4 * headed >= 3 * len(items)


def _linked_heading(heading) -> bool:
    """Whether all the heading's text is a link to another page (the link inside it, or around it)."""
    for up in heading.iterancestors():
        if up.tag == "a":
            return (up.get("href") or "#").lstrip()[:1] not in ("#", "")
    words = " ".join(heading.text_content().split())
    linked = " ".join(" ".join(a.text_content() for a in heading.iter("a") if (a.get("href") or "#").lstrip()[:1] not in ("#", "")).split())
    return bool(words) and linked == words


# The titles pages give their furniture, in the languages of the pages measured (English, German,
# French, Spanish, Italian, Polish, Chinese): calls to subscribe, share or comment, and pointers to
# other pages ("Related articles", "Read also", "Mehr zum Thema", "相关阅读"). A heading is such a
# title only when it opens on that phrase and is short. A word a manual also titles its sections
# with ("Comments", a language's comment syntax; "Recommended settings"; "See also", its own
# cross-references; "Teilen"; "Related reading", git's MyFirstContribution) counts only with a
# count ("12 Comments") or in a phrase no manual uses ("Leave a comment", "Related articles");
# "Related", "Popular" only as the whole title.
_FURNITURE_TITLE = re.compile(
    r"^\W*(?:"
    r"subscribe\s+(?:to|for|now)\b|sign\s+up\s+(?:for|to)\b|newsletter|get\s+(?:our|the)\s+newsletter|stay\s+(?:up\s+to\s+date|informed|in\s+touch)|"
    r"related\s+(?:articles?|posts?|stories|news)\b|read\s+(?:also|more|next)\b|more\s+(?:from|stories|news|articles|on\s+this)\b|"
    r"you\s+(?:may|might)\s+also\s+like|recommended\s+(?:for\s+you|articles|stories|posts)|(?:most\s+)?popular\s+(?:articles|stories|posts|news)|"
    r"trending\s+(?:now|stories|articles)|latest\s+(?:news|stories|articles|posts)\b|recent\s+(?:posts|articles)\b|"
    r"share\s+(?:this|the\s+article|on)\b|follow\s+us\b|leave\s+a\s+(?:comment|reply)\b|post\s+a\s+comment|join\s+the\s+discussion|"
    r"newsletter\s+abonnieren|jetzt\s+abonnieren|ähnliche\s+(?:artikel|beiträge|themen)|weitere\s+(?:artikel|beiträge|nachrichten|meldungen|themen)|"
    r"mehr\s+zum\s+thema|auch\s+interessant|das\s+könnte\s+sie\s+auch|lesen\s+sie\s+auch|kommentar\s+schreiben|schreib(?:en\s+sie|e)\s+einen\s+kommentar|"
    r"diesen\s+artikel\s+teilen|articles?\s+similaires|à\s+lire\s+aussi|laisser\s+un\s+commentaire|partager\s+cet\s+article|abonnez-vous|"
    r"noticias\s+relacionadas|te\s+puede\s+interesar|deja\s+(?:un|tu)\s+comentario|suscr[ií]bete|lo\s+más\s+leído|"
    r"articoli\s+correlati|leggi\s+anche|lascia\s+un\s+commento|dodaj\s+komentarz|czytaj\s+(?:też|także)|"
    r"相关(?:阅读|新闻|文章|推荐|报道|链接)|推荐阅读|延伸阅读|猜你喜欢|热门(?:文章|新闻|推荐|评论)|网友评论|发表评论|评论区|分享到"
    r")"
    r"|^\W*(?:related|popular|trending|网友评论|热门|热点)\W*$"
    r"|^\W*\d+\s+(?:comments?|kommentare?|commentaires?|comentarios?|commenti|komentarz\w*|条评论)\W*$"
    r"|^\W*(?:comments?|kommentare?|commentaires?|comentarios?|commenti|komentarze|评论)\s*[(\[]\d+[)\]]\W*$",
    re.IGNORECASE,
)
# A comment thread's title as blog engines write it, a count of comments on the post's own title
# ("No Comments for “Malaga”", "12 Responses to “…”", "One thought on “…”"): as long as that title.
_THREAD_TITLE = re.compile(
    r"^\W*(?:no|one|\d+|keine|ein|eine|aucun|un|sin|nessun)\s+(?:comments?|responses?|replies|thoughts?|kommentare?|antworten|reaktionen|"
    r"commentaires?|réponses?|comentarios?|respuestas?|commenti)\s+(?:on|to|for|zu|für|auf|sur|à|pour|en|a|para|su|per)\s+[\"'“„«‘‚»]",
    re.IGNORECASE,
)
_TITLE_WORDS = 6  # words of a furniture title at most ("You might also like these stories")


def furniture_title(heading) -> bool:
    """Whether a heading is a title pages give their furniture (see _FURNITURE_TITLE): short, and that phrase."""
    words = " ".join(heading.text_content().split())
    if _THREAD_TITLE.search(words):
        return True
    return 0 < len(words.split()) <= _TITLE_WORDS and len(words) <= 60 and bool(_FURNITURE_TITLE.search(words))


def titled_furniture(el, blocks: Blocks, within: int) -> bool:
    """A box whose first words are a heading naming furniture ("Subscribe to email updates" over a
    sign-up, "Related articles" over teasers, "评论" over a thread), holding less than `within`
    characters of prose: what the page itself calls no part of the text, whatever its class says
    (`widget_text`, where the furniture and the content word cancel out)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if tag not in BOXES or blocks.prose(el) >= within:
        return False
    for node in el.iter():
        if node is el or node not in blocks.text or not blocks.text[node]:
            continue
        if isinstance(node.tag, str) and node.tag.lower() in HEADINGS:
            return furniture_title(node)
        if (node.text or "").strip():
            return False  # (its first words are no heading)
    return False
