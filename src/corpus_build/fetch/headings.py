"""Headings over nothing (issue 35): once fetch/boilerplate.py has decided what to leave out of a
region, a heading whose section holds nothing kept ("Related stories" over the list that went,
"Comments" over the thread, "Read next" over a feed) goes with it: a title over nothing is no text.
"""

from __future__ import annotations

from collections.abc import Callable

from .density import HEADINGS, Blocks


def orphan_headings(region, blocks: Blocks, found: set) -> set:
    """A heading over nothing but what is left out ("Related stories" over its list, "Comments"
    over the thread) goes with it."""
    out: set = set()
    for heading in region.iter(*HEADINGS):
        if heading not in blocks.text or heading in found:
            continue
        level = int(heading.tag[1]) if heading.tag[1:].isdigit() else 6
        following = []
        for sibling in heading.itersiblings():
            if not isinstance(sibling.tag, str) or sibling not in blocks.text:
                continue
            tag = sibling.tag.lower()
            if tag in HEADINGS and int(tag[1]) <= level:
                break
            if blocks.text[sibling]:
                following.append(sibling)
        if following and all(f in found for f in following):
            out.add(heading)
    return out


def headings_over_nothing(region, skip: Callable[[object], bool], found: set) -> set:
    """A heading over nothing but what is left out goes with it, as in orphan_headings, also
    where what it heads is no sibling of it: a heading over a <nav>, a title in a wrapper of its
    own over a feed beside it. What a heading heads runs in the text's order to the next heading
    of its level or above, wherever the page's boxes put the two; a heading over text that was
    there, none of it kept, heads nothing. Judged only where text follows the heading in its own
    box or the heading is all its box holds: the last of a run of headings a post is written in
    (<h3> and <h4> in a quotation) is no title over the page's furniture after it."""
    out: set = set()
    # The headings open at this point of the walk, innermost last: [heading, level, kept, left out]
    # (whether text under it is kept, whether text under it was left out).
    heads: list[list] = []

    def close(level: int) -> None:
        while heads and heads[-1][1] >= level:
            heading, _, kept, left_out = heads.pop()
            if left_out and not kept:
                if _alone(heading) or _followed(heading):
                    out.add(heading)
            elif kept and heads:
                heads[-1][2] = True  # (a sub-heading's text is its parent's too)

    def text(kept: bool) -> None:
        if heads:
            heads[-1][2 if kept else 3] = True

    # (the boxes holding a heading: a box holding none matters only while the heading before it
    # has no kept text yet, which its first paragraph usually settles)
    headings = list(region.iter(*HEADINGS))
    if not headings:
        return out
    holders: set = set()
    for heading in headings:
        for up in heading.iterancestors():
            if up in holders or up is region:
                break
            holders.add(up)
    # The region in document order, without recursion: (node, left out by an ancestor), where a
    # node is an element or a string of loose text.
    stack: list = [(c, False) for c in reversed(region)]
    while stack:
        node, gone = stack.pop()
        if isinstance(node, str):
            text(not gone)
            continue
        if node.tail and node.tail.strip():
            stack.append((node.tail, gone))
        if not isinstance(node.tag, str):
            continue
        left_out = gone or node in found or skip(node)
        tag = node.tag.lower()
        if tag in HEADINGS and not left_out:
            close(int(tag[1]))
            heads.append([node, int(tag[1]), False, False])
            continue
        if tag in _WORDLESS and not left_out:
            text(True)
            continue
        if node not in holders and (not heads or heads[-1][2]):
            continue
        if node.text and node.text.strip():
            text(not left_out)
        stack.extend((c, left_out) for c in reversed(node))
    close(0)
    return out


_WORDLESS = {"img", "picture", "video", "audio", "iframe", "object", "embed", "canvas", "math"}  # (content kept, without words)


def _alone(heading) -> bool:
    """Whether the heading is all its box holds (a title in a wrapper of its own)."""
    box = heading.getparent()
    return not (box.text or "").strip() and not (heading.tail or "").strip() and sum(1 for c in box if isinstance(c.tag, str)) == 1


def _followed(heading) -> bool:
    """Whether text follows the heading in its own box."""
    return bool((heading.tail or "").strip()) or any(isinstance(s.tag, str) and s.text_content().strip() for s in heading.itersiblings())
