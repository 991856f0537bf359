"""Typed, frozen records for the registry: what `registry.load` returns and every stage reads."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

KINDS = (
    "repo",
    "paper",
    "docs",
    "article",
    "issue",
    "pull",
    "model",
    "dataset",
    "course",
    "video",
    "discussion",
)
LANGS = ("zh", "en")


@dataclass(frozen=True)
class Source:
    id: str
    title: str
    url: str  # "" only for unverified entries whose address is unknown
    kind: str
    lang: str
    note: str
    section: str  # folder name, e.g. "14-deepseek-ascend-stack"
    chapters: tuple[int, ...] = ()
    tags: tuple[str, ...] = ()
    see_also: tuple[str, ...] = ()
    verified: bool = True
    verify_note: str = ""
    mirror_depth: str = "shallow"  # "shallow" or "full" (repos only)
    added: dt.date | None = None  # when the source joined the registry (`add` writes it)
    line: int = 0  # where the entry starts in its sources.yaml
    # Bibliographic facts as the registry states them ("" / () when it leaves them out;
    # bibfacts.py then takes them from the mirror's provenance).
    authors: tuple[str, ...] = ()
    date: str = ""  # "YYYY", "YYYY-MM" or "YYYY-MM-DD"
    venue: str = ""
    doi: str = ""  # bare, e.g. 10.1145/2491956.2462176
    arxiv: str = ""  # e.g. 2504.17577 or 2504.17577v2 (no "arXiv:" prefix)
    version: str = ""
    verified_from: str = ""  # where those facts were checked, in the user's words (shown beside the cite box)


@dataclass(frozen=True)
class Section:
    folder: str  # "14-deepseek-ascend-stack"
    number: int  # 14
    title: str
    title_zh: str = ""
    intro: str = ""
    sources: tuple[Source, ...] = ()


@dataclass(frozen=True)
class ReadingStep:
    source: str  # a source id
    why: str
    line: int = 0


@dataclass(frozen=True)
class Chapter:
    number: int
    title: str
    title_en: str = ""
    summary: str = ""
    path: tuple[ReadingStep, ...] = ()


@dataclass(frozen=True)
class LearningPath:
    id: str
    title: str
    title_en: str = ""
    summary: str = ""
    path: tuple[ReadingStep, ...] = ()


@dataclass(frozen=True)
class Digest:
    date: dt.date
    title: str
    body: str  # Markdown after the front matter, `[[id]]` links unresolved
    file: Path
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def repos(self) -> tuple[str, ...]:
        return tuple(self.meta.get("repos") or ())

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(str(t) for t in self.meta.get("tags") or ())


@dataclass(frozen=True)
class Settings:
    title: str
    description: str = ""
    languages: tuple[str, ...] = ("zh", "en")
    site_url: str = ""
    stale_after_days: int = 30
    glossary: tuple[str, ...] = ()  # terms Chinese search must keep whole, e.g. 昇腾
    timezone: str = "+08:00"  # the readers' zone: every time on the site is shown in it
    short_title: str = ""  # the header's and browser tabs' name; the title when empty
    # Sections used by later stages (fetch, watch), kept raw and validated there.
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    @cached_property
    def tzinfo(self) -> dt.tzinfo:
        """`timezone` as a tzinfo: an offset (+08:00, -05:30, UTC) or an IANA name (Asia/Shanghai)."""
        return parse_timezone(self.timezone) or dt.timezone(dt.timedelta(hours=8))

    @property
    def site_name(self) -> str:
        return self.short_title or self.title

    @property
    def ui_lang(self) -> str:
        return self.languages[0] if self.languages else "en"


def parse_timezone(text: str) -> dt.tzinfo | None:
    """+08:00, -0530, UTC/Z or an IANA zone name; None when it is none of these."""
    import re

    value = text.strip()
    if value.upper() in ("UTC", "Z"):
        return dt.UTC
    match = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", value)
    if match:
        hours, minutes = int(match.group(2)), int(match.group(3))
        if hours > 14 or minutes > 59:
            return None
        sign = -1 if match.group(1) == "-" else 1
        return dt.timezone(sign * dt.timedelta(hours=hours, minutes=minutes))
    try:
        from zoneinfo import ZoneInfo

        return ZoneInfo(value) if value and "/" in value else None
    except (ValueError, KeyError, OSError):
        return None


@dataclass(frozen=True)
class Corpus:
    root: Path  # the corpus/ folder
    settings: Settings
    sections: tuple[Section, ...]
    chapters: tuple[Chapter, ...] = ()
    paths: tuple[LearningPath, ...] = ()
    digests: tuple[Digest, ...] = ()  # newest first

    @cached_property
    def sources(self) -> tuple[Source, ...]:
        return tuple(s for section in self.sections for s in section.sources)

    def source(self, source_id: str) -> Source:
        return self.by_id[source_id]

    @cached_property
    def by_id(self) -> dict[str, Source]:
        return {s.id: s for s in self.sources}

    @cached_property
    def _sections_by_folder(self) -> dict[str, Section]:  # render asks tens of thousands of times
        return {section.folder: section for section in self.sections}

    def section(self, folder: str) -> Section:
        return self._sections_by_folder[folder]

    @cached_property
    def _raw_dirs(self) -> dict[tuple[str, str], Path]:
        return {(s.section, s.id): self.root / s.section / "raw" / s.id for s in self.sources}

    def raw_dir(self, source: Source) -> Path:
        """Where the fetch stage mirrors a source: corpus/<section>/raw/<id>/."""
        found = self._raw_dirs.get((source.section, source.id))
        return found if found is not None else self.root / source.section / "raw" / source.id
