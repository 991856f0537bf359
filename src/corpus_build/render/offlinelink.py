"""The home page's link to the offline copy, when corpus.yaml says `offline: true`.

The zip itself is built after the site (site/offline.py), under the name this link gives.
"""

from __future__ import annotations

from ..core.model import Corpus

ZIP_NAME = "offline.zip"


def enabled(corpus: Corpus) -> bool:
    return corpus.settings.extra.get("offline") is True


def home_link(corpus: Corpus, label: str) -> str:
    """The home page's link to the zip (raw HTML: MkDocs would call a link to a non-page unrecognised)."""
    if not enabled(corpus):
        return ""
    from html import escape

    return f'<p class="cb-offline"><a href="{ZIP_NAME}" download>{escape(label)}</a></p>\n\n'
