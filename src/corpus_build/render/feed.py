"""Atom feeds (RFC 4287) written as static files beside the pages: digests, and newly added sources.

What RFC 4287 asks of a feed, and how these meet it:
- `atom:id` is a permanent, absolute IRI. With `site_url` it is the page's
  address; without, a `urn:uuid:` derived from the corpus title and the
  entry (stable across builds, so readers do not see entries twice).
- `atom:updated` is an RFC 3339 date-time with an offset.
- `atom:author` with an `atom:name` on the feed, which every entry inherits.
- an `atom:link rel="alternate"` for the feed (the site) and for every entry
  (its page), absolute when `site_url` is set; a `rel="self"` link.
Relative hrefs are used only without `site_url`: RFC 4287 allows IRI
references, resolved against the feed's own address.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from ..core.model import Corpus, Digest, Source

FEED_ENTRIES = 50
DIGESTS_FEED = "feed.xml"
SOURCES_FEED = "sources.xml"
_NAMESPACE = uuid.UUID("6f1c2a53-0a4e-4d5e-9a8c-6a2f3c1d9b70")  # corpus-build's own uuid5 namespace
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Entry:
    key: str  # stable identity within the feed, for the urn:uuid id
    title: str
    page: str  # the entry's page, relative to the site root
    updated: dt.datetime
    summary: str
    categories: tuple[str, ...] = ()


def atom(corpus: Corpus, digest_url: Callable[[Digest], str]) -> str:
    """The digests feed. `digest_url(digest)` gives each digest's page relative to the site root."""
    entries = [
        Entry(f"digest:{d.date.isoformat()}", d.title, digest_url(d), _digest_time(d), _first_paragraph(d.body), d.tags)
        for d in corpus.digests[:FEED_ENTRIES]
    ]
    return _feed(corpus, DIGESTS_FEED, corpus.settings.title, "digests", entries)


def new_sources(corpus: Corpus, source_url: Callable[[Source], str], subtitle: str = "") -> str:
    """The newly added sources (those with an `added` date), newest first."""
    dated = sorted((s for s in corpus.sources if s.added), key=lambda s: (s.added, s.id), reverse=True)
    entries = [
        # The day it was added began at midnight where the readers are (corpus.yaml `timezone`), not in UTC.
        Entry(f"source:{s.id}", s.title, source_url(s), _midnight(s.added, corpus.settings.tzinfo), s.note.strip(), s.tags)  # type: ignore[arg-type]
        for s in dated[:FEED_ENTRIES]
    ]
    title = f"{corpus.settings.title} · {subtitle}" if subtitle else corpus.settings.title
    return _feed(corpus, SOURCES_FEED, title, "sources", entries)


def _feed(corpus: Corpus, filename: str, title: str, kind: str, entries: list[Entry]) -> str:
    settings = corpus.settings
    base = settings.site_url.rstrip("/") + "/" if settings.site_url else ""
    updated = max((e.updated for e in entries), default=_EPOCH)
    lines = [
        '<?xml version="1.0" encoding="utf-8"?>',
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang={quoteattr(settings.ui_lang)}>',
        f"  <title>{escape(title)}</title>",
        f"  <id>{escape(base + filename if base else _urn(settings.title, 'feed:' + kind))}</id>",
        f"  <updated>{_rfc3339(updated)}</updated>",
        f"  <author><name>{escape(settings.site_name)}</name>{_uri(base)}</author>",  # the header's short name
        f'  <link rel="self" type="application/atom+xml" href={quoteattr(base + filename)}/>',
        f'  <link rel="alternate" type="text/html" href={quoteattr(base or "./")}/>',
        "  <generator>corpus-build</generator>",
    ]
    if settings.description:
        lines.append(f"  <subtitle>{escape(settings.description[:500])}</subtitle>")
    for entry in entries:
        lines += [
            "  <entry>",
            f"    <title>{escape(entry.title)}</title>",
            f"    <id>{escape(base + entry.page if base else _urn(settings.title, entry.key))}</id>",
            f'    <link rel="alternate" type="text/html" href={quoteattr(base + entry.page)}/>',
            f"    <updated>{_rfc3339(entry.updated)}</updated>",
            *(f"    <category term={quoteattr(term)}/>" for term in _unique(entry.categories)),
            f"    <summary>{escape(entry.summary[:500])}</summary>",
            "  </entry>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


def _uri(base: str) -> str:
    return f"<uri>{escape(base)}</uri>" if base else ""


def _urn(corpus_title: str, key: str) -> str:
    return uuid.uuid5(_NAMESPACE, f"{corpus_title}\n{key}").urn


def _rfc3339(moment: dt.datetime) -> str:
    text = moment.isoformat(timespec="seconds")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _midnight(day: dt.date, tz: dt.tzinfo | None = None) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), tz or dt.UTC)


def _digest_time(digest: Digest) -> dt.datetime:
    """When a digest was last true: the end of its window, else its date's midnight in its zone."""
    end = digest.meta.get("window_end")
    if isinstance(end, dt.datetime) and end.tzinfo:
        return end
    if isinstance(end, str):
        try:
            parsed = dt.datetime.fromisoformat(end)
        except ValueError:
            parsed = None
        if parsed and parsed.tzinfo:
            return parsed
    return _midnight(digest.date, _offset(str(digest.meta.get("tz") or "")))


def _offset(text: str) -> dt.tzinfo | None:
    try:
        sign = -1 if text.startswith("-") else 1
        hours, minutes = text.lstrip("+-").split(":")
        return dt.timezone(sign * dt.timedelta(hours=int(hours), minutes=int(minutes)))
    except ValueError:
        return None


def _first_paragraph(body: str) -> str:
    return next((p.strip() for p in body.split("\n\n") if p.strip() and not p.lstrip().startswith("#")), "")


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(i for i in items if i))
