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
from dataclasses import dataclass
from typing import Generic, TypeVar

from . import urls
from .model import Corpus, Source
from .provenance import Provenance, read_provenance

T = TypeVar("T", str, tuple[str, ...])

# Where a fact came from; render/labels.py has a reader's word for each (fact_from_<origin>).
REGISTRY = "registry"
ORIGINS = (REGISTRY, "citation-meta", "pdf-metadata", "html-meta", "github", "git", "url", "arxiv-id", "mirror")
# Records written before Document.facts_from existed: the extractor says enough.
_EXTRACTOR_ORIGIN = {"pymupdf": "mirror", "trafilatura": "html-meta", "github-rest": "github", "git": "git", "huggingface": "mirror"}
_DATE = re.compile(r"^\s*(\d{4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?(?=$|[T\s])")
_NEW_ARXIV = re.compile(r"^(\d{2})(0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?$")  # YYMM.NNNNN, since April 2007
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
    title: str
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


def facts_of(source: Source, record: Provenance | None) -> BibFacts:
    """The effective facts of one source, given its mirror's record (None: never mirrored)."""
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
        m_date = normal_date(doc.published)
        m_venue, m_doi, m_arxiv = doc.venue.strip(), doc.doi.strip(), doc.arxiv_id.strip()
        if record.repo is not None:
            commit, swhid = record.repo.commit, record.repo.swhid
            commit_date = normal_date(record.repo.commit_date)
            # A repository is cited at the commit it is pinned to: its date is the version's date.
            m_date = m_date or commit_date
        if record.thread is not None:
            number = record.thread.number
            merged = normal_date(record.thread.merged_at) if record.thread.merged else ""
            m_date = m_date or normal_date(record.thread.created_at)
            m_authors = m_authors or ((record.thread.author,) if record.thread.author else ())
        accessed = normal_date(record.fetched_at)
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
    new_style = _NEW_ARXIV.match(arxiv.value) if date is None and arxiv is not None else None
    if new_style:
        # A new-style arXiv id is the month of first submission: a date for a paper never mirrored.
        date = Fact(f"20{new_style.group(1)}-{new_style.group(2)}", "arxiv-id")
    if authors is None and publisher and source.kind == "repo":
        # A repository without named authors is cited under the GitHub account that
        # publishes it (as GitHub's own "Cite this repository" does without a CITATION.cff).
        authors = Fact((publisher,), "github")
    return BibFacts(
        id=source.id,
        title=source.title,
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
    )


def all_facts(corpus: Corpus, records: Callable[[Source], Provenance | None] | None = None) -> dict[str, BibFacts]:
    """Every source's facts, by id: one provenance read per source (once per render).

    `records` gives a source's provenance record when the caller has read it already
    (render's mirror states): then nothing is read twice.
    """
    read = records or (lambda source: read_provenance(corpus.raw_dir(source)))
    return {source.id: facts_of(source, read(source)) for source in corpus.sources}


def facts_for(corpus: Corpus, facts: Mapping[str, BibFacts] | None, source: Source) -> BibFacts:
    """`facts[source.id]` when precomputed, else read from the mirror now."""
    if facts is not None and source.id in facts:
        return facts[source.id]
    return facts_of(source, read_provenance(corpus.raw_dir(source)))
