"""The registry as citation files: BibTeX and CSL-JSON, importable into Zotero, JabRef, Pandoc…

Both are written beside the pages (`corpus.bib`, `corpus.json`) and linked from the
site, so a reader can take the whole bibliography into their own reference manager.
The annotation travels as the entry's note; unverified entries say so.
"""

from __future__ import annotations

import json
import re

from ..model import Corpus, Source

# CSL types: https://docs.citationstyles.org/en/stable/specification.html#appendix-iii-types
_CSL_TYPES = {
    "paper": "article",
    "repo": "software",
    "model": "software",
    "dataset": "dataset",
    "video": "motion_picture",
}
_ARXIV = re.compile(r"arxiv\.org/(?:abs|pdf)/([^/?#]+?)(?:v\d+)?(?:\.pdf)?$")
_BIB_SPECIAL = re.compile(r"([&%$#_{}])")


def _arxiv_id(source: Source) -> str:
    match = _ARXIV.search(source.url)
    return match.group(1) if match else ""


def _note(source: Source) -> str:
    note = source.note.strip()
    if not source.verified:
        note = f"[unverified: {source.verify_note or 'title or URL uncertain'}] " + note
    return note


def _bib_text(text: str) -> str:
    text = _BIB_SPECIAL.sub(r"\\\1", text.replace("\\", "/"))
    return re.sub(r"\s+", " ", text).strip()


def bibtex(corpus: Corpus) -> str:
    """One `@misc`/`@software`/`@online` entry per source, keyed by its id (unique by construction)."""
    entries = []
    for source in corpus.sources:
        kind = {"repo": "software", "paper": "misc"}.get(source.kind, "online")
        fields = [("title", "{" + _bib_text(source.title) + "}")]  # inner braces keep the title's case
        if source.url:
            fields.append(("url", source.url))
        arxiv = _arxiv_id(source)
        if arxiv:
            fields += [("eprint", arxiv), ("archiveprefix", "arXiv")]
        fields.append(("langid", "chinese" if source.lang == "zh" else "english"))
        if source.tags:
            fields.append(("keywords", ", ".join(source.tags)))
        note = _note(source)
        if note:
            fields.append(("annote", _bib_text(note)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{kind}{{{source.id},\n{body}\n}}\n")
    return "\n".join(entries)


def csl_json(corpus: Corpus) -> str:
    """CSL-JSON (the format Zotero, Pandoc and citeproc read), one item per source."""
    items = []
    for source in corpus.sources:
        item = {"id": source.id, "type": _CSL_TYPES.get(source.kind, "webpage"), "title": source.title}
        if source.url:
            item["URL"] = source.url
        arxiv = _arxiv_id(source)
        if arxiv:
            item["number"] = f"arXiv:{arxiv}"
        item["language"] = "zh-CN" if source.lang == "zh" else "en"
        if source.tags:
            item["keyword"] = ", ".join(source.tags)
        note = _note(source)
        if note:
            item["note"] = note
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1) + "\n"

