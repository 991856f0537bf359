"""The registry as citation files: BibTeX, CSL-JSON and RIS, importable into Zotero, JabRef, Pandoc…

Written beside the pages: the whole corpus (`corpus.bib`, `corpus.json`, `corpus.ris`) and
one set per section and per chapter under `export/`, so a reader can take a whole
bibliography, or one reading path, into their own reference manager.

Each entry carries the effective facts of core/bibfacts.py (registry first, then the mirror):
authors, issued date, accessed date (when the mirror was fetched), DOI, arXiv id and,
for repositories, the pinned commit. Titles keep their case (`{…}` in BibTeX, a
`nocase` span in CSL), so styles that change case leave "TileLang" alone. The
annotation travels as the entry's note; unverified entries say so.
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.bibfacts import BibFacts, facts_for
from ..core.model import Chapter, Corpus, Section, Source

FORMATS = {"bib": "BibTeX", "json": "CSL-JSON", "ris": "RIS"}
WHOLE = {ext: f"corpus.{ext}" for ext in FORMATS}

# CSL types: https://docs.citationstyles.org/en/stable/specification.html#appendix-iii-types
_CSL_TYPES = {"repo": "software", "model": "software", "dataset": "dataset", "video": "motion_picture"}
_RIS_TYPES = {"repo": "COMP", "model": "COMP", "dataset": "DATA", "video": "VIDEO", "course": "ELEC"}
_BIB_SPECIAL = re.compile(r"([&%$#_{}~^])")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# biblatex `langid` (babel/polyglossia names) of a language's primary subtag.
_BABEL = {"en": "english", "zh": "chinese", "ja": "japanese", "ko": "korean", "de": "ngerman", "fr": "french", "es": "spanish", "ru": "russian"}
_PARTICLES = {"van", "von", "der", "den", "de", "da", "di", "du", "la", "le", "del", "dos", "ter"}


def section_path(section: Section, ext: str) -> str:
    return f"export/sections/{section.folder}.{ext}"


def chapter_path(chapter: Chapter, ext: str) -> str:
    return f"export/chapters/{chapter.number:02d}.{ext}"


def chapter_sources(corpus: Corpus, chapter: Chapter) -> list[Source]:
    """The chapter's reading path in order, then the other sources that name the chapter."""
    ids = [step.source for step in chapter.path if step.source in corpus.by_id]
    ids += [s.id for s in corpus.sources if chapter.number in s.chapters]
    return [corpus.by_id[i] for i in dict.fromkeys(ids)]


def export_files(corpus: Corpus, facts: Mapping[str, BibFacts] | None = None) -> dict[str, str]:
    """Every export file: path relative to docs/ -> content (whole corpus, sections, chapters)."""
    groups: list[tuple[str, list[Source]]] = [("", list(corpus.sources))]
    groups += [(f"s:{s.folder}", list(s.sources)) for s in corpus.sections if s.sources]
    groups += [(f"c:{c.number}", chapter_sources(corpus, c)) for c in corpus.chapters]
    files: dict[str, str] = {}
    by_section = {s.folder: s for s in corpus.sections}
    by_chapter = {f"{c.number}": c for c in corpus.chapters}
    # Each source is in the whole file, its section's and its chapters': written once, joined per file.
    entries: dict[str, dict[str, str]] = {}
    for source in corpus.sources:
        source_facts = facts_for(corpus, facts, source)
        entries[source.id] = {
            "bib": bibtex_entry(source, source_facts),
            "json": _csl_text(csl_item(source, source_facts)),
            "ris": ris_entry(source, source_facts),
        }
    for key, sources in groups:
        if not sources:
            continue
        for ext in FORMATS:
            if not key:
                path = WHOLE[ext]
            elif key.startswith("s:"):
                path = section_path(by_section[key[2:]], ext)
            else:
                path = chapter_path(by_chapter[key[2:]], ext)
            files[path] = _JOIN[ext]([entries[s.id][ext] for s in sources])
    return files


# --- shared pieces ----------------------------------------------------------------------


# A name with one of these words is an organisation's, kept whole: "Python Software Foundation"
# is no "Foundation, Python Software". A name the list misses can be written in braces
# (`{Meta AI}`), as in BibTeX.
_ORGANISATION = re.compile(
    r"\b(?:foundation|inc|incorporated|corporation|corp|company|ltd|limited|llc|gmbh|team|group|project|consortium|committee|"
    r"council|association|society|institute|university|laboratory|laboratories|lab|labs|organization|organisation|community|"
    r"contributors|developers|authors|collaboration|alliance|agency|department|ministry|federation|initiative)\b\.?",
    re.IGNORECASE,
)


def split_name(name: str) -> dict[str, str]:
    """A CSL name: {"family", "given"} for "Wang, Lei" or "Lei Wang"; {"literal"} for one word,
    an organisation (a name in braces, or with a word such as Foundation, Inc., Team) or a name
    in CJK script (which has no given/family order to guess)."""
    name = " ".join(name.split())
    if len(name) > 2 and name.startswith("{") and name.endswith("}"):
        return {"literal": name[1:-1].strip()}
    if _ORGANISATION.search(name):
        return {"literal": name}
    if "," in name:
        family, given = (part.strip() for part in name.split(",", 1))
        return {"family": family, "given": given} if family and given else {"literal": name.replace(",", "").strip()}
    words = name.split(" ")
    if len(words) < 2 or _CJK.search(name):
        return {"literal": name}
    start = len(words) - 1
    while start > 1 and words[start - 1].lower() in _PARTICLES:
        start -= 1
    return {"family": " ".join(words[start:]), "given": " ".join(words[:start])}


def _note(source: Source) -> str:
    note = source.note.strip()
    if not source.verified:
        note = f"[unverified: {source.verify_note or 'title or URL uncertain'}] " + note
    return note


def _date_parts(date: str) -> list[int]:
    return [int(part) for part in date.split("-") if part]


def _repo_version(source: Source, facts: BibFacts) -> str:
    """What version a repository is cited at: the registry's version and/or the pinned commit."""
    parts = [facts.version.value] if facts.version else []
    if facts.commit:
        parts.append(f"commit {facts.commit[:12]}")
    return ", ".join(parts)


def _thread_note(source: Source, facts: BibFacts) -> str:
    """"Pull request #2900, merged 2026-10-05" for a mirrored issue or PR ("" otherwise)."""
    if not facts.number or source.kind not in ("issue", "pull", "discussion"):
        return ""
    what = {"pull": "Pull request", "issue": "Issue", "discussion": "Discussion"}[source.kind]
    return f"{what} #{facts.number}" + (f", merged {facts.merged}" if facts.merged else "")


def _is_preprint(source: Source, facts: BibFacts) -> bool:
    return source.kind == "paper" and facts.arxiv is not None and facts.venue is None


# --- BibTeX -----------------------------------------------------------------------------


def _bib_text(text: str) -> str:
    text = text.replace("\\", "\x00")
    text = _BIB_SPECIAL.sub(lambda m: {"~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}.get(m.group(1), "\\" + m.group(1)), text)
    text = text.replace("\x00", r"\textbackslash{}")
    return re.sub(r"\s+", " ", text).strip()


def _bib_url(url: str) -> str:
    # A URL stays verbatim (biblatex reads it as such); only what would unbalance the braces is encoded.
    return url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def _bib_name(name: str) -> str:
    parts = split_name(name)
    if "literal" in parts:  # braces: BibTeX must not split "DeepSeek-AI" into first and last names
        return "{" + _bib_text(parts["literal"]) + "}"
    return f"{_bib_text(parts['family'])}, {_bib_text(parts['given'])}"


# Fields whose value goes in as an address (biblatex reads them verbatim), and those built
# already escaped; every other field is text, escaped once, where the entry is written.
_BIB_VERBATIM = {"url", "doi"}
_BIB_BUILT = {"author"}


def _bib_field(name: str, value: str) -> str:
    if name in _BIB_VERBATIM:
        return _bib_url(value)
    if name in _BIB_BUILT:
        return value
    if name == "title":
        return "{" + _bib_text(value) + "}"  # inner braces keep the title's case
    return _bib_text(value)


def bibtex_entry(source: Source, facts: BibFacts) -> str:
    """One entry, keyed by the source's id (unique in the corpus by construction)."""
    if source.kind == "paper":
        kind = "inproceedings" if facts.venue else "misc"
    else:
        kind = {"repo": "software", "model": "software", "dataset": "dataset"}.get(source.kind, "online")
    fields: list[tuple[str, str]] = []
    if facts.authors:
        fields.append(("author", " and ".join(_bib_name(n) for n in facts.authors.value)))
    fields.append(("title", facts.title))
    if facts.venue:
        fields.append(("booktitle" if kind == "inproceedings" else "howpublished", facts.venue.value))
    if facts.date:
        parts = _date_parts(facts.date.value)
        fields.append(("year", f"{parts[0]:04d}"))
        if len(parts) > 1:  # biblatex reads the full date; classic BibTeX styles year and month
            fields += [("month", str(parts[1])), ("date", facts.date.value)]
    if source.kind in ("repo", "model"):
        version = _repo_version(source, facts)
        if version:
            fields.append(("version", version))
        if facts.commit:
            fields.append(("note", f"Commit {facts.commit}" + (f" ({facts.commit_date})" if facts.commit_date else "")))
        if facts.swhid:
            fields.append(("swhid", facts.swhid))
    elif facts.version:
        fields.append(("version", facts.version.value))
    if _thread_note(source, facts):
        fields.append(("note", _thread_note(source, facts)))
    if facts.doi:
        fields.append(("doi", facts.doi.value))
    if facts.arxiv:
        fields += [("eprint", facts.arxiv.value), ("archiveprefix", "arXiv")]
    if source.url:
        fields.append(("url", source.url))
    if facts.accessed and source.url:
        fields.append(("urldate", facts.accessed))
    if facts.language and _BABEL.get(facts.language.value.split("-")[0]):
        fields.append(("langid", _BABEL[facts.language.value.split("-")[0]]))
    if source.tags:
        fields.append(("keywords", ", ".join(source.tags)))
    note = _note(source)
    if note:
        fields.append(("annote", note))
    body = ",\n".join(f"  {name} = {{{_bib_field(name, value)}}}" for name, value in fields)
    return f"@{kind}{{{source.id},\n{body}\n}}\n"


def bibtex(corpus: Corpus, sources: Iterable[Source] | None = None, facts: Mapping[str, BibFacts] | None = None) -> str:
    chosen = corpus.sources if sources is None else sources
    return "\n".join(bibtex_entry(s, facts_for(corpus, facts, s)) for s in chosen)


# --- CSL-JSON ---------------------------------------------------------------------------


def _nocase(text: str) -> str:
    # CSL's rich-text markup: a style that changes case (title or sentence case) leaves
    # this span as written. Processors do not decode entities, so the text goes in raw.
    return f'<span class="nocase">{text}</span>'


def csl_item(source: Source, facts: BibFacts) -> dict[str, Any]:
    """One CSL-JSON item (the format Zotero, Pandoc and citeproc read)."""
    kind = _CSL_TYPES.get(source.kind, "webpage")
    if source.kind == "paper":
        kind = "paper-conference" if facts.venue else "article"
    item: dict[str, Any] = {"id": source.id, "type": kind, "title": _nocase(facts.title)}
    if facts.authors:
        item["author"] = [split_name(n) for n in facts.authors.value]
    if facts.date:
        item["issued"] = {"date-parts": [_date_parts(facts.date.value)]}
    if facts.accessed and source.url:
        item["accessed"] = {"date-parts": [_date_parts(facts.accessed)]}
    if facts.venue:
        item["container-title"] = facts.venue.value
    if source.kind in ("repo", "model"):
        version = _repo_version(source, facts)
        if version:
            item["version"] = version
        if source.url and "github.com" in source.url:
            item["publisher"] = "GitHub"
    elif facts.version:
        item["version"] = facts.version.value
    if facts.doi:
        item["DOI"] = facts.doi.value
    if _thread_note(source, facts):
        item["genre"] = _thread_note(source, facts)
    if facts.arxiv:
        item["number"] = f"arXiv:{facts.arxiv.value}"
        if _is_preprint(source, facts):
            item["publisher"] = "arXiv"
    if source.url:
        item["URL"] = source.url
    if facts.language:
        item["language"] = facts.language.value
    if source.tags:
        item["keyword"] = ", ".join(source.tags)
    note = _note(source)
    if note:
        item["note"] = note
    return item


def _csl_text(item: dict[str, Any]) -> str:
    """One item as it stands inside the file's list (indented one step, as json.dumps(items, indent=1) would)."""
    return textwrap.indent(json.dumps(item, ensure_ascii=False, indent=1), " ")


def _csl_join(texts: list[str]) -> str:
    return "[\n" + ",\n".join(texts) + "\n]\n" if texts else "[]\n"


def csl_json(corpus: Corpus, sources: Iterable[Source] | None = None, facts: Mapping[str, BibFacts] | None = None) -> str:
    chosen = corpus.sources if sources is None else sources
    return _csl_join([_csl_text(csl_item(s, facts_for(corpus, facts, s))) for s in chosen])


# --- RIS --------------------------------------------------------------------------------


def _ris_line(tag: str, value: str) -> str:
    return f"{tag}  - {' '.join(value.split())}\n"


def _ris_date(date: str) -> str:
    parts = [*date.split("-"), "", ""]
    return f"{parts[0]}/{parts[1]}/{parts[2]}/"


def ris_entry(source: Source, facts: BibFacts) -> str:
    """One RIS record (TY … ER), the format EndNote and most reference managers import."""
    kind = _RIS_TYPES.get(source.kind, "ELEC")
    if source.kind == "paper":
        kind = "CPAPER" if facts.venue else ("UNPB" if facts.arxiv else "GEN")
    out = _ris_line("TY", kind) + _ris_line("ID", source.id)
    for name in facts.authors.value if facts.authors else ():
        parts = split_name(name)
        out += _ris_line("AU", parts.get("literal") or f"{parts['family']}, {parts['given']}")
    out += _ris_line("TI", facts.title)
    if facts.venue:
        out += _ris_line("T2", facts.venue.value)
    if facts.date:
        out += _ris_line("PY", facts.date.value[:4]) + _ris_line("DA", _ris_date(facts.date.value))
    if source.kind in ("repo", "model"):
        version = _repo_version(source, facts)
        if version:
            out += _ris_line("ET", version)
    elif facts.version:
        out += _ris_line("ET", facts.version.value)
    if facts.doi:
        out += _ris_line("DO", facts.doi.value)
    if facts.arxiv:
        out += _ris_line("AN", f"arXiv:{facts.arxiv.value}")
    if source.url:
        out += _ris_line("UR", source.url)
    if facts.accessed and source.url:
        out += _ris_line("Y2", _ris_date(facts.accessed))
    if facts.language:
        out += _ris_line("LA", facts.language.value)
    for tag in source.tags:
        out += _ris_line("KW", tag)
    if facts.commit:
        out += _ris_line("N1", f"Commit {facts.commit}" + (f" ({facts.commit_date})" if facts.commit_date else ""))
    if _thread_note(source, facts):
        out += _ris_line("N1", _thread_note(source, facts))
    note = _note(source)
    if note:
        out += _ris_line("N1", note)
    return out + "ER  - \n"


def ris(corpus: Corpus, sources: Iterable[Source] | None = None, facts: Mapping[str, BibFacts] | None = None) -> str:
    chosen = corpus.sources if sources is None else sources
    return "\n".join(ris_entry(s, facts_for(corpus, facts, s)) for s in chosen)


_JOIN = {"bib": "\n".join, "json": _csl_join, "ris": "\n".join}
