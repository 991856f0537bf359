"""Each source's effective bibliographic facts: the registry's, else what its mirror recorded.

The registry (sources.yaml: `authors`, `date`, `venue`, `doi`, `arxiv`, `version`) is the
user's word and always wins. What it leaves out is taken from the mirror's
provenance.json: the page's citation_* meta tags (arXiv, publishers), PDF metadata,
HTML metadata, GitHub's author and creation time of an issue or PR, a repository's
pinned commit and its date. Every fact says where it came from; where the registry and
the mirror both state one and they differ, the fact carries the mirror's value too, so
the site can say so (and only then: a reader does not need provenance of every field).

Render reads these through `all_facts`, once per build; nothing here touches the network.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from . import urls
from .model import Corpus, Source
from .provenance import Provenance, read_provenance

T = TypeVar("T", str, tuple[str, ...])

# Where a fact came from; render/labels.py has a reader's word for each (fact_from_<origin>).
REGISTRY = "registry"
ORIGINS = (REGISTRY, "citation-meta", "pdf-metadata", "html-meta", "github", "git", "url", "arxiv-id", "mirror", "title")
# Records written before Document.facts_from existed: the extractor says enough.
_EXTRACTOR_ORIGIN = {"pymupdf": "mirror", "trafilatura": "html-meta", "github-rest": "github", "git": "git", "huggingface": "mirror"}
_DATE = re.compile(r"^\s*(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?(?=$|[T\s])")
_NEW_ARXIV = re.compile(r"^(\d{2})(\d{2})\.(\d{4,5})(?:v\d+)?$")  # YYMM.NNNN (2007-04 to 2014-12), YYMM.NNNNN (since 2015)
_OLD_ARXIV = re.compile(r"^[a-z-]+(?:\.[A-Z]{2})?/(\d{2})(\d{2})\d{3}(?:v\d+)?$")  # archive/YYMMNNN, 1991-08 to 2007-03
_LANG_TAG = re.compile(r"^([A-Za-z]{2,3})((?:-[A-Za-z0-9]{1,8})*)$")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff]")
_HANGUL = re.compile(r"[\uac00-\ud7af]")
_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")
# The commonest English function words: running English text is a fifth or more of them; a
# German, French or Spanish text, a table of numbers or a list of names is not.
_ENGLISH = frozenset(["the", "of", "and", "to", "in", "is", "for", "that", "with", "on", "we", "are", "this", "by", "as", "be", "it", "an", "or", "from", "at", "which"])
_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\.\d{4,9}/\S+)$", re.IGNORECASE)


@dataclass(frozen=True)
class Fact(Generic[T]):
    """One fact and where it came from; `other` is the mirror's differing value, if any."""

    value: T
    origin: str
    other: T | None = None
    other_origin: str = ""

    @property
    def disputed(self) -> bool:
        return self.other is not None


@dataclass(frozen=True)
class BibFacts:
    id: str
    title: str  # the registry's, or the mirror's where the registry holds a placeholder
    authors: Fact[tuple[str, ...]] | None = None
    date: Fact[str] | None = None  # "YYYY", "YYYY-MM" or "YYYY-MM-DD"
    venue: Fact[str] | None = None
    doi: Fact[str] | None = None
    arxiv: Fact[str] | None = None
    version: Fact[str] | None = None
    publisher: str = ""  # the GitHub account that owns a repository, issue or PR
    commit: str = ""  # a repository's pinned commit
    commit_date: str = ""  # YYYY-MM-DD
    swhid: str = ""
    accessed: str = ""  # YYYY-MM-DD: when the mirror was downloaded
    number: int = 0  # an issue's or PR's number
    merged: str = ""  # YYYY-MM-DD: when a PR was merged (GitHub)
    # The work's language (a BCP 47 tag: en, zh, zh-TW…), from the source itself: its page's
    # `lang`, its citation tags, its text, or a title in CJK script. Never the annotation's
    # language (`lang:` in the registry is the note's): an English paper with a Chinese note is English.
    language: Fact[str] | None = None
    # Set when `title` is the mirror's: the registry's placeholder it stands in for, and where
    # the mirror read the title (an origin of ORIGINS), so the page can say so.
    placeholder: str = ""
    title_origin: str = REGISTRY

    def disputes(self) -> list[tuple[str, Fact]]:
        """(field name, fact) for every fact where registry and mirror disagree."""
        named = (("authors", self.authors), ("date", self.date), ("venue", self.venue), ("doi", self.doi), ("arxiv", self.arxiv))
        return [(name, fact) for name, fact in named if fact is not None and fact.disputed]

    @property
    def year(self) -> str:
        return self.date.value[:4] if self.date else ""


def normal_date(text: str) -> str:
    """"YYYY", "YYYY-MM" or "YYYY-MM-DD" from the shapes provenance holds (2025/04/24,
    2026-11-20T08:00:00Z, 2025-04); "" when the text is not a date."""
    match = _DATE.match(text or "")
    if not match:
        return ""
    year, month, day = match.groups()
    try:
        dt.date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        return ""
    return year + (f"-{int(month):02d}" if month else "") + (f"-{int(day):02d}" if month and day else "")


def placeholder_titles(url: str) -> tuple[str, ...]:
    """The titles that only restate a source's address: the one `corpus-build add` writes when
    it cannot read the page (`add --offline`: "owner/repo#12", "arXiv:2504.17577",
    "example.org/guide": urls.default_title), and the address itself (what `import` writes for
    a bare URL)."""
    if not url:
        return ()
    return (urls.default_title(url), url)


def has_placeholder_title(source: Source) -> bool:
    """True when the registry's title only restates the address (see placeholder_titles).

    A repository's "owner/name" is its real name, as `add` says: only the bare address is a
    placeholder there.
    """
    title = source.title.strip()
    if not source.url or not title or " " in title.replace(" — ", ""):
        return False  # cheap: a title of words is a title (every load asks this of every source)
    found = placeholder_titles(source.url)
    return title == found[1] or (title == found[0] and source.kind != "repo")


def mirror_title(source: Source, record: Provenance | None) -> str:
    """What the mirror found as the title, where the registry holds a placeholder ("" otherwise)."""
    if record is None or not has_placeholder_title(source):
        return ""
    found = " ".join((record.document.title or "").split())
    return "" if not found or found in placeholder_titles(source.url) else found


def language_tag(text: str) -> str:
    """A page's `lang` or citation_language as a BCP 47 tag ("en-US", "zh-Hans"); "" when it is none."""
    match = _LANG_TAG.match((text or "").strip().replace("_", "-"))
    if not match or match.group(1).lower() in ("und", "mul", "zxx"):
        return ""
    return match.group(1).lower() + match.group(2)


def text_language(text: str, *, min_words: int = 30) -> str:
    """The language a text is written in, where its letters say so plainly: "zh", "ja" or "ko"
    when CJK characters outnumber the words in Latin letters (one character carries about what
    a word does, so "Ascend Sparse Attention 算法与优化技术简析" is Chinese and an English
    paper quoting 昇腾 is not), "en" when it is running English; "" otherwise (mixed, short,
    another language). Reads the first 20,000 characters."""
    sample = (text or "")[:20_000]
    han, kana, hangul = (len(p.findall(sample)) for p in (_HAN, _KANA, _HANGUL))
    cjk = han + kana + hangul
    words = [w.lower() for w in _WORD.findall(sample)]
    if cjk and cjk >= len(words):
        return "ja" if kana >= 0.1 * cjk else "ko" if hangul >= 0.5 * cjk else "zh"
    if len(words) >= min_words and sum(w in _ENGLISH for w in words) >= 0.12 * len(words):
        return "en"
    return ""


def _work_language(source: Source, record: Provenance | None, origin: str) -> Fact[str] | None:
    stated = language_tag(record.document.language) if record is not None else ""
    if stated:
        return Fact(stated, origin)
    # A title in Chinese, Japanese or Korean script is a work in that language; a title in
    # Latin letters says too little (a Chinese blog post may be called "TileLang Notes").
    by_title = text_language(source.title)
    return Fact(by_title, "title") if by_title in ("zh", "ja", "ko") else None


def local_day(text: str, tz: dt.tzinfo) -> str:
    """normal_date of `text`, where a stamp with a time and a zone (GitHub's 2017-03-25T18:30:00Z,
    git's +08:00) is first taken into `tz`: one event has one date, the one the site shows
    beside it (render/views.py local_time). A day, or a time without a zone, is kept as written."""
    if text and len(text) > 10 and text[10] in "T ":
        try:
            when = dt.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        except ValueError:
            when = None
        if when is not None and when.tzinfo is not None:
            return when.astimezone(tz).date().isoformat()
    return normal_date(text)


def arxiv_month(arxiv_id: str, today: dt.date | None = None) -> str:
    """"YYYY-MM", the month of first submission an arXiv identifier encodes; "" when it encodes none.

    Only identifiers arXiv could have issued count. New-style ids (YYMM.NNNN) began in
    April 2007 (0704), with five digits after the dot from January 2015 (1501); old-style
    ids (hep-th/9901001) ran from August 1991 to March 2007. A month that has not come
    yet is no submission month either. Anything else (9901.00002, which is neither an
    old-style id nor a new-style one of 2099 that exists) gives no date rather than a wrong one.
    """
    today = today or dt.datetime.now(dt.UTC).date()
    new, old = _NEW_ARXIV.match(arxiv_id or ""), _OLD_ARXIV.match(arxiv_id or "")
    if new:
        year, month = 2000 + int(new.group(1)), int(new.group(2))
        five_digits = len(new.group(3)) == 5
        if (year, month) < (2007, 4) or five_digits != ((year, month) >= (2015, 1)):
            return ""
    elif old:
        yy, month = int(old.group(1)), int(old.group(2))
        year = (1900 if yy >= 91 else 2000) + yy
        if not (1991, 8) <= (year, month) <= (2007, 3):
            return ""
    else:
        return ""
    if not 1 <= month <= 12 or (year, month) > (today.year, today.month):
        return ""
    return f"{year:04d}-{month:02d}"


def _name_key(name: str) -> str:
    """A name in a form where "Wang, Lei", "Lei Wang" and "lei  wang" agree."""
    if "," in name:
        family, given = name.split(",", 1)
        name = f"{given} {family}"
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode() or name
    return " ".join(sorted(re.sub(r"[^\w\s]", " ", folded.lower()).split()))


def _same(field: str, ours: str | tuple[str, ...], theirs: str | tuple[str, ...]) -> bool:
    if field == "authors":
        return {_name_key(n) for n in ours} == {_name_key(n) for n in theirs}
    if field == "date":  # a year agrees with a day in that year
        a, b = str(ours), str(theirs)
        return a.startswith(b) or b.startswith(a)
    if field == "arxiv":
        return re.sub(r"v\d+$", "", str(ours)) == re.sub(r"v\d+$", "", str(theirs))
    return str(ours).strip().lower() == str(theirs).strip().lower()


def _pick(field: str, ours: T, mirrored: T, origin: str) -> Fact[T] | None:
    if ours:
        if mirrored and not _same(field, ours, mirrored):
            return Fact(ours, REGISTRY, mirrored, origin)
        return Fact(ours, REGISTRY)
    if mirrored:
        return Fact(mirrored, origin)
    return None


def _origin(record: Provenance) -> str:
    if record.document.facts_from:
        return record.document.facts_from
    return _EXTRACTOR_ORIGIN.get(record.extractor.name, "mirror") if record.extractor else "mirror"


def facts_of(source: Source, record: Provenance | None, *, tz: dt.tzinfo) -> BibFacts:
    """The effective facts of one source, given its mirror's record (None: never mirrored).

    `tz` is the corpus's time zone (corpus.yaml `timezone`): the day of a timed event
    (a merge, a commit, the download) is its day there, as everywhere else on the site.
    """
    m_authors: tuple[str, ...] = ()
    m_date = m_venue = m_doi = m_arxiv = ""
    origin = url_origin = "url"
    commit = commit_date = swhid = accessed = ""
    number = 0
    merged = ""
    if record is not None:
        origin = _origin(record)
        doc = record.document
        m_authors = tuple(a.strip() for a in doc.authors if a and a.strip())
        m_date = local_day(doc.published, tz)
        m_venue, m_doi, m_arxiv = doc.venue.strip(), doc.doi.strip(), doc.arxiv_id.strip()
        if record.repo is not None:
            commit, swhid = record.repo.commit, record.repo.swhid
            commit_date = local_day(record.repo.commit_date, tz)
            # A repository is cited at the commit it is pinned to: its date is the version's date.
            m_date = m_date or commit_date
        if record.thread is not None:
            number = record.thread.number
            merged = local_day(record.thread.merged_at, tz) if record.thread.merged else ""
            m_date = m_date or local_day(record.thread.created_at, tz)
            m_authors = m_authors or ((record.thread.author,) if record.thread.author else ())
        accessed = local_day(record.fetched_at, tz)
    # The cited URL itself names some facts (arxiv.org/abs/<id>, doi.org/<doi>).
    url_arxiv = urls.arxiv_id(source.url) if source.url else ""
    doi_match = _DOI_URL.match(source.url or "")
    m_arxiv_origin = origin if m_arxiv else url_origin
    m_arxiv = m_arxiv or url_arxiv
    m_doi_origin = origin if m_doi else url_origin
    m_doi = m_doi or (doi_match.group(1) if doi_match else "")
    gh = urls.github_parts(source.url) if source.url else None
    publisher = gh[0] if gh and source.kind in ("repo", "issue", "pull", "discussion") else ""
    authors = _pick("authors", source.authors, m_authors, origin)
    date = _pick("date", source.date, m_date, origin)
    arxiv = _pick("arxiv", source.arxiv, m_arxiv, m_arxiv_origin)
    submitted = arxiv_month(arxiv.value) if date is None and arxiv is not None else ""
    if submitted:
        # An arXiv id names the month of first submission: a date for a paper never mirrored.
        date = Fact(submitted, "arxiv-id")
    if authors is None and publisher and source.kind == "repo":
        # A repository without named authors is cited under the GitHub account that
        # publishes it (as GitHub's own "Cite this repository" does without a CITATION.cff).
        authors = Fact((publisher,), "github")
    found_title = mirror_title(source, record)
    return BibFacts(
        id=source.id,
        title=found_title or source.title,
        placeholder=source.title if found_title else "",
        title_origin=origin if found_title else REGISTRY,
        authors=authors,
        date=date,
        venue=_pick("venue", source.venue, m_venue, origin),
        doi=_pick("doi", source.doi, m_doi, m_doi_origin),
        arxiv=arxiv,
        version=Fact(source.version, REGISTRY) if source.version else None,
        publisher=publisher,
        commit=commit,
        commit_date=commit_date,
        swhid=swhid,
        accessed=accessed,
        number=number,
        merged=merged,
        language=_work_language(source, record, origin),
    )


def all_facts(corpus: Corpus, records: Callable[[Source], Provenance | None] | None = None) -> dict[str, BibFacts]:
    """Every source's facts, by id: one provenance read per source (once per render).

    `records` gives a source's provenance record when the caller has read it already
    (render's mirror states): then nothing is read twice.
    """
    read = records or (lambda source: read_provenance(corpus.raw_dir(source)))
    tz = corpus.settings.tzinfo
    return {source.id: facts_of(source, read(source), tz=tz) for source in corpus.sources}


def with_found_titles(corpus: Corpus, facts: Mapping[str, BibFacts]) -> Corpus:
    """The corpus where each placeholder title the mirror could replace is replaced: what every
    page (source page, home, lists, search, feeds) then shows. The registry's files are not
    touched (`corpus-build adopt` writes the titles in); `corpus` itself when nothing changes."""
    found = {i: f.title for i, f in facts.items() if f.placeholder}
    if not found:
        return corpus
    sections = tuple(
        replace(section, sources=tuple(replace(s, title=found[s.id]) if s.id in found else s for s in section.sources))
        if any(s.id in found for s in section.sources) else section
        for section in corpus.sections
    )
    return replace(corpus, sections=sections)


def facts_for(corpus: Corpus, facts: Mapping[str, BibFacts] | None, source: Source) -> BibFacts:
    """`facts[source.id]` when precomputed, else read from the mirror now."""
    if facts is not None and source.id in facts:
        return facts[source.id]
    return facts_of(source, read_provenance(corpus.raw_dir(source)), tz=corpus.settings.tzinfo)
