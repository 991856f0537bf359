"""The home page's link to the offline copy, when corpus.yaml says `offline: true`.

The zip itself is built after the site (site/offline.py), under the name this link gives.
The copy inside the zip is rendered as an offline copy (`as_offline_copy`): the zip is not
in itself, so its home page links the hosted site's zip when the site's address is known,
and has no link otherwise.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ..core.model import Corpus, Settings
from ..core.provenance import write_atomic

ZIP_NAME = "offline.zip"
# The MkDocs `extra` key site/offline.py sets on the copy's build; the plugin reads it.
COPY_FLAG = "corpus_offline_copy"
# … and the kind of URL the site has (its `use_directory_urls`): the copy takes the site's pages and moves their links (site/relink.py).
SITE_URLS_FLAG = "corpus_offline_site_directory_urls"
_IN_COPY = "in-copy"  # settings.extra["offline"] while the copy itself is rendered


def enabled(corpus: Corpus) -> bool:
    return corpus.settings.extra.get("offline") is True


def as_offline_copy(corpus: Corpus) -> Corpus:
    """The corpus as the copy inside the zip renders it (no zip of its own to link)."""
    if not enabled(corpus):
        return corpus
    extra = {**corpus.settings.extra, "offline": _IN_COPY}
    return dataclasses.replace(corpus, settings=dataclasses.replace(corpus.settings, extra=extra))


def site_settings(corpus: Corpus) -> Settings:
    """The corpus's settings as the hosted site has them, whichever flavour is rendered.

    Only the home page reads the copy's flag (`home_link`). A key over the settings for any
    other page takes these, so that page's key is the same in both flavours: a corpus with
    `offline: true` renders docs/ twice at every build, and a key that differed would make
    every text page of every mirror again in both renders (a note edit did).
    """
    if corpus.settings.extra.get("offline") != _IN_COPY:
        return corpus.settings
    return dataclasses.replace(corpus.settings, extra={**corpus.settings.extra, "offline": True})


def home_link(corpus: Corpus, label: str) -> str:
    """The home page's link to the zip (raw HTML: MkDocs would call a link to a non-page unrecognised)."""
    from html import escape

    if corpus.settings.extra.get("offline") == _IN_COPY:
        if not corpus.settings.site_url:
            return ""
        # Inside the copy: the published zip, on the hosted site (a newer copy, when there is one).
        href = corpus.settings.site_url.rstrip("/") + "/" + ZIP_NAME
    elif enabled(corpus):
        # Hidden until the zip is there: `corpus-build build` writes it after the site and then
        # shows the link (`reveal`); plain `mkdocs build` or `mkdocs serve` writes no zip, and
        # its home page keeps the link hidden. A link to a zip that is not there is never shown.
        return f'<p class="cb-offline" data-cb-offline hidden><a href="{escape(ZIP_NAME)}" download>{escape(label)}</a></p>\n\n'
    else:
        return ""
    return f'<p class="cb-offline"><a href="{escape(href)}" download>{escape(label)}</a></p>\n\n'


_HIDDEN_LINK = re.compile(r'<p class="cb-offline" data-cb-offline(?:="")? hidden(?:="")?>')


def reveal(site_dir: Path) -> bool:
    """Show the home page's link once the zip is beside it (site/offline.py calls this after writing it).

    The page is replaced, never written in place: the build may have hard-linked it to the
    previous site's copy (site/engines.py). True when a hidden link was found and shown.
    """
    home = Path(site_dir) / "index.html"
    try:
        text = home.read_text(encoding="utf-8")
    except OSError:
        return False
    shown, count = _HIDDEN_LINK.subn('<p class="cb-offline">', text, count=1)
    if not count:
        return False
    write_atomic(home, shown)
    return True
