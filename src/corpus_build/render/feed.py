"""An Atom feed of the watch digests, written as a static file beside the pages."""

from __future__ import annotations

import datetime as dt
from xml.sax.saxutils import escape

from ..model import Corpus

FEED_ENTRIES = 50


def atom(corpus: Corpus, digest_url) -> str:
    """Atom 1.0 XML. `digest_url(digest)` gives each entry's link (absolute when site_url is set)."""
    settings = corpus.settings
    base = settings.site_url.rstrip("/") + "/" if settings.site_url else ""
    newest = corpus.digests[0].date if corpus.digests else dt.date(1970, 1, 1)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{settings.ui_lang}">',
        f"  <title>{escape(settings.title)}</title>",
        f"  <id>{escape(base or 'urn:corpus-build:' + settings.title)}feed.xml</id>",
        f"  <updated>{newest.isoformat()}T00:00:00Z</updated>",
        f'  <link rel="self" href="{escape(base)}feed.xml"/>',
    ]
    for digest in corpus.digests[:FEED_ENTRIES]:
        link = digest_url(digest)
        summary = next((p.strip() for p in digest.body.split("\n\n") if p.strip() and not p.lstrip().startswith("#")), "")
        lines += [
            "  <entry>",
            f"    <title>{escape(digest.title)}</title>",
            f"    <id>{escape(base + link if base else 'urn:corpus-build:digest:' + digest.date.isoformat())}</id>",
            f'    <link href="{escape(base + link)}"/>',
            f"    <updated>{digest.date.isoformat()}T00:00:00Z</updated>",
            f"    <summary>{escape(summary[:500])}</summary>",
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"
