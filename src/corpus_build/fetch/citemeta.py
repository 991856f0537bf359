"""Highwire `citation_*` meta tags: what a landing page says of its paper (DOI, arXiv id, venue).

Read by the paper kind (kinds/pdf.py) on landing pages, the HTML kind (kinds/html.py) on
articles, and add's page lookup (pagefacts.py).
"""

from __future__ import annotations

import re
from typing import TypedDict

_CITATION = re.compile(r"""<meta\s+[^>]*?name\s*=\s*["']citation_([a-z_]+)["'][^>]*?content\s*=\s*["']([^"']*)["']""", re.IGNORECASE)
_CITATION_REV = re.compile(r"""<meta\s+[^>]*?content\s*=\s*["']([^"']*)["'][^>]*?name\s*=\s*["']citation_([a-z_]+)["']""", re.IGNORECASE)


def citation_meta(html: str) -> dict[str, list[str]]:
    """Highwire `citation_*` meta tags (arXiv, OpenReview, ACM, most publishers)."""
    import html as html_lib

    found: dict[str, list[str]] = {}
    for name, content in _CITATION.findall(html):
        found.setdefault(name.lower(), []).append(html_lib.unescape(content).strip())
    for content, name in _CITATION_REV.findall(html):
        found.setdefault(name.lower(), []).append(html_lib.unescape(content).strip())
    return found


class CitationFacts(TypedDict):
    """The citation fields of a Document (typed, so that `**citation_facts(...)` checks against it)."""

    doi: str
    arxiv_id: str
    venue: str


def citation_facts(meta: dict[str, list[str]]) -> CitationFacts:
    """doi, arxiv_id and venue of a Document, from `citation_*` tags (empty strings when absent)."""

    def first(*names: str) -> str:
        return next((meta[name][0] for name in names if meta.get(name) and meta[name][0]), "")

    return CitationFacts(
        doi=first("doi"),
        arxiv_id=first("arxiv_id"),
        venue=first("conference_title", "journal_title", "inbook_title"),
    )
