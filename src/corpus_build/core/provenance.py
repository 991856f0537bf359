"""The provenance record the fetch stage writes beside every mirror, and render reads.

On disk: corpus/<section>/raw/<id>/provenance.json, sorted JSON, `schema_version`
first-class. A run that fails for a source never touches that folder (the previous
mirror stays exactly as it was); the failure is recorded beside it instead, in
corpus/<section>/raw/.failed/<id>.json (ids cannot start with a dot, so no clash).

`from_dict` ignores keys it does not know, so an older corpus-build can read a
newer record; `schema_version` says which fields to expect.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import enum
import json
import os
import re
import threading
from collections.abc import Container
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from . import jsondata

SCHEMA_VERSION = 1
FILENAME = "provenance.json"
FAILED_DIR = ".failed"


class Status(enum.StrEnum):
    OK = "ok"
    UNCHANGED = "unchanged"
    FAILED = "failed"
    SKIPPED = "skipped"
    # A mirror that holds less than the source: a JavaScript shell page no browser rendered.
    # Document.partial_reason says why. Never counted as ok.
    PARTIAL = "partial"
    # The last fetch returned a capture worse than the mirror (no text, an image where a page
    # was, far less text): the mirror stays as it was, and the failure record's `declined`
    # says what came back (fetch/keep.py). Never counted as ok.
    KEPT = "kept"


@dataclass(frozen=True)
class Attempt:
    """One try at one URL: what was asked and what happened."""

    url: str
    at: str  # ISO UTC
    outcome: str  # "ok", "not-modified", "http-503", "transport", "content", "rate-limit", "git"…
    status: int = 0
    error: str = ""


@dataclass(frozen=True)
class OutputFile:
    path: str  # relative to the mirror folder
    bytes: int
    sha256: str
    swhid: str = ""  # swh:1:cnt:<sha1_git>


@dataclass(frozen=True)
class Extractor:
    name: str  # "trafilatura", "pymupdf", "git", "github-rest", "huggingface"
    versions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SavedImage:
    """An image of the main text, downloaded into the mirror (or why it is not there)."""

    url: str  # as cited (in the cited URL space, as text.md names it on the original site)
    fetched_url: str = ""  # what was requested (after rewrites and fallbacks)
    path: str = ""  # relative to the mirror folder; "" when it failed
    sha256: str = ""
    content_type: str = ""
    bytes: int = 0
    error: str = ""


@dataclass(frozen=True)
class SavedStyle:
    """A stylesheet of an HTML page, or an image or font a stylesheet uses, downloaded into the
    mirror's styles/ for its archived copy (or why it is not there). Kept as sent: render
    rewrites each sheet's addresses to the published copies when it publishes them."""

    url: str  # as requested: resolved against the page, or against the stylesheet that names it
    role: str  # "stylesheet" (a <link>), "import" (an @import), "image" or "font" (a url() of a sheet)
    fetched_url: str = ""  # what finally answered (a sheet's own addresses resolve against it)
    path: str = ""  # relative to the mirror folder; "" when it failed
    sha256: str = ""
    content_type: str = ""  # as the server said, charset included (a sheet is decoded by it)
    bytes: int = 0
    error: str = ""


@dataclass(frozen=True)
class Document:
    """What extraction learnt about the content (any kind)."""

    title: str = ""
    language: str = ""
    published: str = ""
    authors: tuple[str, ...] = ()
    page_count: int = 0
    images: tuple[str, ...] = ()
    # From the page's citation_* meta tags (arXiv, publishers), when it has them.
    doi: str = ""
    arxiv_id: str = ""
    venue: str = ""
    # Where title/authors/published were read: "citation-meta", "pdf-metadata", "html-meta",
    # "github", "git"; "" in records written before this field existed.
    facts_from: str = ""
    image_files: tuple[SavedImage, ...] = ()  # the images kept in the mirror (failures included)
    region: str = ""  # where the main text was found: "role=main", "main", "sphinx-body", "article", "body"…
    renderer: str = ""  # what produced the DOM the text came from, e.g. "chromium 131.0.6778.85 (playwright 1.49.0)"
    screenshot: str = ""  # full-page WebP of the rendered page (PNG before issue 21), relative to the mirror folder
    shell: tuple[str, ...] = ()  # why the page looked like a JavaScript shell
    partial_reason: str = ""  # set when status is partial: what the mirror lacks and how to get it
    # The page's stylesheets and what they use (failures included); () in records made before issue 21.
    style_files: tuple[SavedStyle, ...] = ()


@dataclass(frozen=True)
class RepoFacts:
    remote_url: str = ""
    branch: str = ""
    commit: str = ""
    commit_date: str = ""
    latest_tag: str = ""
    depth: str = "shallow"
    swhid: str = ""  # swh:1:rev:<commit>


@dataclass(frozen=True)
class ThreadFacts:
    """An issue, pull request or discussion."""

    number: int = 0
    state: str = ""  # open / closed
    state_reason: str = ""
    draft: bool = False
    merged: bool = False
    merged_at: str = ""
    merge_commit: str = ""
    base: str = ""
    head: str = ""
    labels: tuple[str, ...] = ()
    comments: int = 0
    author: str = ""
    created_at: str = ""
    updated_at: str = ""
    closed_at: str = ""
    # Pull requests (thread.json schema 2): the discussion's size, for the source page.
    reviews: int = 0
    review_comments: int = 0
    commits: int = 0
    changed_files: int = 0
    additions: int = 0
    deletions: int = 0

    @property
    def display_state(self) -> str:
        """open, draft, merged or closed: what a badge shows."""
        if self.merged:
            return "merged"
        if self.state == "open" and self.draft:
            return "draft"
        return self.state or "open"


@dataclass(frozen=True)
class Supplied:
    """A copy the user saved and handed over (`corpus-build attach`), not one fetch downloaded."""

    by: str = "user"
    file_name: str = ""  # the name of what the user gave (a file or a saved-page folder)
    sha256: str = ""  # of that file (of the folder's main HTML page for a folder)
    time: str = ""  # when it was attached (ISO UTC)
    note: str = ""  # the user's own words: where and how it was saved


@dataclass(frozen=True)
class Declined:
    """A capture that was not allowed to replace the mirror (fetch/keep.py): what came back."""

    reason: str  # "no-text", "other-type", "error-page", "front-page", "partial", "less-text"
    fetched_at: str = ""
    fetched_url: str = ""
    http_status: int = 0
    content_type: str = ""
    bytes: int = 0
    sha256: str = ""
    text_bytes: int = 0  # extracted text of the declined capture
    kept_text_bytes: int = 0  # extracted text of the mirror that was kept
    kept_fetched_at: str = ""  # when the kept mirror was fetched
    partial_reason: str = ""
    folder: str = ""  # where its files are kept, relative to the section's raw/ (".declined/<id>")
    title: str = ""  # the declined capture's title (what an error page calls itself)


@dataclass(frozen=True)
class Provenance:
    id: str
    kind: str
    cited_url: str
    status: Status
    fetched_at: str = ""  # when the stored content was downloaded (ISO UTC)
    checked_at: str = ""  # when the source was last checked (equal on a fresh download)
    requested_url: str = ""  # after rewrites and fallbacks, before redirects
    fetched_url: str = ""  # what finally answered
    redirects: tuple[str, ...] = ()
    http_status: int = 0
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""
    bytes: int = 0
    sha256: str = ""  # of the stored (decoded) body, or of the primary file
    body_file: str = ""
    text_file: str = ""  # extracted Markdown, relative to the mirror folder
    warc_file: str = ""
    files: tuple[OutputFile, ...] = ()
    extractor: Extractor | None = None
    document: Document = field(default_factory=Document)
    repo: RepoFacts | None = None
    thread: ThreadFacts | None = None
    error: str = ""
    attempts: tuple[Attempt, ...] = ()
    schema_version: int = SCHEMA_VERSION
    supplied: Supplied | None = None  # set by `corpus-build attach`; fetch keeps such a mirror unless --force
    declined: Declined | None = None  # on a `kept` failure record: the capture that was declined

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Provenance:
        values = _known(cls, data)
        values["status"] = Status(values.get("status", "ok"))
        values["redirects"] = tuple(values.get("redirects") or ())
        values["files"] = tuple(OutputFile(**_known(OutputFile, f)) for f in values.get("files") or ())
        values["attempts"] = tuple(Attempt(**_known(Attempt, a)) for a in values.get("attempts") or ())
        if values.get("extractor"):
            values["extractor"] = Extractor(**_known(Extractor, values["extractor"]))
        doc = _known(Document, values.get("document") or {})
        doc["authors"] = tuple(doc.get("authors") or ())
        doc["images"] = tuple(doc.get("images") or ())
        doc["image_files"] = tuple(SavedImage(**_known(SavedImage, i)) for i in doc.get("image_files") or ())
        doc["style_files"] = tuple(SavedStyle(**_known(SavedStyle, i)) for i in doc.get("style_files") or () if isinstance(i, dict) and "url" in i and "role" in i)
        doc["shell"] = tuple(doc.get("shell") or ())
        values["document"] = Document(**doc)
        if values.get("repo"):
            values["repo"] = RepoFacts(**_known(RepoFacts, values["repo"]))
        if values.get("supplied"):
            values["supplied"] = Supplied(**_known(Supplied, values["supplied"])) if isinstance(values["supplied"], dict) else None
        if values.get("declined"):
            values["declined"] = Declined(**_known(Declined, values["declined"])) if isinstance(values["declined"], dict) else None
        if values.get("thread"):
            thread = _known(ThreadFacts, values["thread"])
            thread["labels"] = tuple(thread.get("labels") or ())
            values["thread"] = ThreadFacts(**thread)
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @property
    def age(self) -> dt.timedelta | None:
        when = parse_time(self.checked_at or self.fetched_at)
        return now_utc() - when if when else None


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def now_utc() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def days_old(when: dt.datetime, now: dt.datetime | None = None) -> int:
    """A mirror's age on the site: whole UTC calendar days from `when` to `now`.

    Not the exact elapsed time: an age that steps only at UTC midnight leaves a built site true
    for the rest of the day, so a rebuild with nothing changed need not run (site/uptodate.py),
    however many mirrors a corpus has. Exact ages of thousands of mirrors cross a bucket every
    few minutes.
    """
    return ((now or now_utc()).astimezone(dt.UTC).date() - when.astimezone(dt.UTC).date()).days


def utc_stamp(when: dt.datetime | None = None) -> str:
    return (when or now_utc()).astimezone(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_time(text: str) -> dt.datetime | None:
    if not text:
        return None
    try:
        value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def write_atomic(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # (the thread too: the GitHub client stores answers from worker threads)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with os.fdopen(create_new(tmp), "wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:  # a full disk or an interrupt: no temp file that no later run removes
        tmp.unlink(missing_ok=True)
        raise


_TEMP = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)\.\d+\.tmp")  # write_atomic's temporary names, exactly


def clean_temps(folder: Path, names: Container[str]) -> list[Path]:
    """Remove the temporary files a killed write_atomic(folder / name) left, for each name in
    `names`; the paths removed. write_atomic removes its own on any error, but a SIGKILL (or a
    power cut) between its create and its rename leaves `.<name>.<pid>.<thread>.tmp` for ever.

    Only that exact name, only a regular file (never a link or folder), and only when process
    <pid> is gone: a live one (a watch beside a fetch, another thread of ours) may be writing
    it this moment. A user's look-alike (`.notes.tmp`, `.provenance.json.draft.tmp`) is never
    touched. Each stage calls this where it starts writing those files."""
    removed = []
    try:
        with os.scandir(folder) as entries:
            found = [entry for entry in entries if entry.name.endswith(".tmp") and entry.name.startswith(".")]
    except OSError:  # no such folder yet
        return []
    for entry in found:
        match = _TEMP.fullmatch(entry.name)
        if match is None or match["name"] not in names or not entry.is_file(follow_symlinks=False) or _alive(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):  # gone already, or not ours to remove: the run goes on
            os.unlink(entry.path)
            removed.append(Path(entry.path))
    return removed


class NamesLike:
    """The file names a pattern matches in full, as clean_temps' `names` (a cache's hashes, digests' dates)."""

    def __init__(self, pattern: str):
        self._pattern = re.compile(pattern)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._pattern.fullmatch(name) is not None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or a number we cannot ask about: left alone
    return True


def create_new(tmp: Path) -> int:
    """A temporary file made anew for writing (its descriptor). Whatever has its name goes first: a
    copy a killed run left, or a link planted there (the corpus and the cache folder come from
    outside), which an ordinary open would write through, onto a file outside the project."""
    tmp.unlink(missing_ok=True)
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)


def write_provenance(raw_dir: Path, record: Provenance) -> None:
    write_atomic(Path(raw_dir) / FILENAME, record.to_json())


def _read(path: Path) -> Provenance | None:
    try:
        return Provenance.from_dict(jsondata.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def read_provenance(raw_dir: Path) -> Provenance | None:
    """The record of the current mirror in raw_dir, or None when never mirrored (or unreadable)."""
    return _read(Path(raw_dir) / FILENAME)


def recorded_paths(record: Provenance) -> list[str]:
    """Every file `record` says its mirror holds (relative paths, each once; not the clone, repo/)."""
    named = [record.body_file, record.text_file, record.warc_file, *(f.path for f in record.files), *(i.path for i in record.document.image_files),
             *(s.path for s in record.document.style_files)]
    return list(dict.fromkeys(path for path in named if path))


def missing_files(raw_dir: Path, record: Provenance) -> list[str]:
    """The files `record` says its mirror holds that are not there (relative paths; [] when complete).

    provenance.json is committed while the mirrored bytes often are not (the default
    corpus/.gitignore leaves out *.pdf, repo/ and *.warc.gz), so a fresh clone has
    records whose files are missing; such a record must not make a fetch answer "unchanged".
    """
    raw_dir = Path(raw_dir)
    missing = [name for name in recorded_paths(record) if not (raw_dir / name).is_file()]
    if record.repo is not None and not (raw_dir / "repo").is_dir():
        missing.append("repo/")
    return missing


def failure_path(raw_dir: Path) -> Path:
    raw_dir = Path(raw_dir)
    return raw_dir.parent / FAILED_DIR / f"{raw_dir.name}.json"


def read_failure(raw_dir: Path) -> Provenance | None:
    """The last failed (or skipped) attempt since the last success, or None."""
    return _read(failure_path(raw_dir))


def write_failure(raw_dir: Path, record: Provenance) -> None:
    write_atomic(failure_path(raw_dir), record.to_json())


def clear_failure(raw_dir: Path) -> None:
    path = failure_path(raw_dir)
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        path.parent.rmdir()


class RawListing:
    """Which sources the corpus's raw/ folders know of, one listing per section.

    A source its section's raw/ names neither as a mirror folder nor as a `.failed/`
    record was never fetched; asking `mirror_state` would cost two failed opens per
    source, and renders and snapshots ask for thousands of sources.
    """

    def __init__(self, corpus_root: Path):
        self.root = Path(corpus_root)
        self._names: dict[str, set[str] | None] = {}

    def never_fetched(self, section: str, source_id: str) -> bool:
        if section not in self._names:
            self._names[section] = self._list(self.root / section / "raw")
        names = self._names[section]
        return names is not None and source_id not in names and f"{FAILED_DIR}/{source_id}.json" not in names

    @staticmethod
    def _list(raw: Path) -> set[str] | None:
        """Mirror folders and `.failed/<id>.json` records; None when unreadable (then every source is asked)."""
        try:
            names = set(os.listdir(raw))
        except FileNotFoundError:
            return set()
        except OSError:
            return None
        if FAILED_DIR in names:
            try:
                names.update(f"{FAILED_DIR}/{name}" for name in os.listdir(raw / FAILED_DIR))
            except OSError:
                return None
        return names


def superseded(failure: Provenance, record: Provenance | None) -> bool:
    """Whether a failure (or kept) record is older than the mirror's capture: a fetch killed
    between swapping its capture in and removing the record leaves one, which speaks of an
    attempt the mirror has since replaced. The capture's time (fetched_at), not checked_at:
    watch moves checked_at when it refreshes a PR's state, which captures nothing. Stamps are
    to the second: within the same second the record stands (the newer news, or the same run)."""
    if record is None:
        return False
    failed, mirrored = parse_time(failure.checked_at), parse_time(record.fetched_at)
    return failed is not None and mirrored is not None and failed < mirrored


def mirror_state(raw_dir: Path, stale_after_days: int, now: dt.datetime | None = None) -> tuple[str, Provenance | None, Provenance | None]:
    """(state, mirror record, failure record) of one source's mirror.

    state is "failed", "skipped" or "kept" (the last attempt's outcome, recorded beside a
    mirror that stays as it was), "never fetched", "stale" (last checked more than
    `stale_after_days` UTC calendar days ago: `days_old`), or the record's own status ("ok",
    "unchanged", "partial").
    """
    record, failure = read_provenance(raw_dir), read_failure(raw_dir)
    if failure is not None and superseded(failure, record):
        failure = None
    if failure is not None:
        return failure.status.value, record, failure
    if record is None:
        return "never fetched", None, None
    checked = parse_time(record.checked_at or record.fetched_at)
    # A copy the user supplied does not age: no fetch refreshes it (fetch keeps it unless --force).
    if checked and record.supplied is None and days_old(checked, now) > stale_after_days:
        return "stale", record, None
    return record.status.value, record, None
