"""The home page's link to the offline copy, when corpus.yaml says `offline: true`.

The zip itself is built after the site (site/offline.py), under the name this link gives.
The copy inside the zip is rendered as an offline copy (`as_offline_copy`): the zip is not
in itself, so its home page links the hosted site's zip when the site's address is known,
and has no link otherwise.
"""

from __future__ import annotations

import dataclasses

from ..core.model import Corpus

ZIP_NAME = "offline.zip"
# The MkDocs `extra` key site/offline.py sets on the copy's build; the plugin reads it.
COPY_FLAG = "corpus_offline_copy"
_IN_COPY = "in-copy"  # settings.extra["offline"] while the copy itself is rendered


def enabled(corpus: Corpus) -> bool:
    return corpus.settings.extra.get("offline") is True


def as_offline_copy(corpus: Corpus) -> Corpus:
    """The corpus as the copy inside the zip renders it (no zip of its own to link)."""
    if not enabled(corpus):
        return corpus
    extra = {**corpus.settings.extra, "offline": _IN_COPY}
    return dataclasses.replace(corpus, settings=dataclasses.replace(corpus.settings, extra=extra))


def home_link(corpus: Corpus, label: str) -> str:
    """The home page's link to the zip (raw HTML: MkDocs would call a link to a non-page unrecognised)."""
    from html import escape

    if corpus.settings.extra.get("offline") == _IN_COPY:
        if not corpus.settings.site_url:
            return ""
        # Inside the copy: the published zip, on the hosted site (a newer copy, when there is one).
        href = corpus.settings.site_url.rstrip("/") + "/" + ZIP_NAME
    elif enabled(corpus):
        # Hidden until assets/cite.js finds the zip beside the page: `corpus-build build` writes it
        # after the site, plain `mkdocs build` (or `mkdocs serve`) does not, and the home page is
        # the same in both. A link to a zip that is not there is never shown.
        return f'<p class="cb-offline" data-cb-offline hidden><a href="{escape(ZIP_NAME)}" download>{escape(label)}</a></p>\n\n'
    else:
        return ""
    return f'<p class="cb-offline"><a href="{escape(href)}" download>{escape(label)}</a></p>\n\n'
