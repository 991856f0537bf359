"""The contract between the fetch engine and the kind modules.

A kind gets a `Context` (the source, a staging folder to create, the previous
provenance, shared clients) and returns an `Outcome`: either `unchanged=True`
(the staging folder is discarded, the mirror kept) or the facts about what it
wrote into the staging folder. It raises a `FetchError` for anything that went
wrong; the engine records it. Kinds never write outside `ctx.stage`.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any, Protocol

from ..core.model import Source
from ..core.provenance import Document, Extractor, OutputFile, Provenance, RepoFacts, ThreadFacts
from . import records
from .http import AttemptLog, Download, Exchange, HttpClient
from .options import FetchOptions


@dataclass(frozen=True)
class Outcome:
    unchanged: bool = False
    requested_url: str = ""
    fetched_url: str = ""
    redirects: tuple[str, ...] = ()
    http_status: int = 0
    etag: str = ""
    last_modified: str = ""
    content_type: str = ""
    bytes: int = 0
    sha256: str = ""
    body_file: str = ""
    text_file: str = ""
    extractor: Extractor | None = None
    document: Document = field(default_factory=Document)
    repo: RepoFacts | None = None
    thread: ThreadFacts | None = None
    exchanges: tuple[Exchange, ...] = ()
    # (warc_file, files) when the kind already finished the stage in its extraction call
    # (Context.extract); the engine then skips its own finishing round trip.
    finished: tuple[str, tuple[OutputFile, ...]] | None = None

    @classmethod
    def from_download(cls, download: Download, body_file: str, **values: Any) -> Outcome:
        facts: dict[str, Any] = {
            "requested_url": download.requested_url,
            "fetched_url": download.final_url,
            "redirects": download.redirects,
            "http_status": download.status,
            "etag": download.etag,
            "last_modified": download.last_modified,
            "content_type": download.content_type,
            "bytes": download.bytes,
            "sha256": download.sha256,
            "body_file": body_file,
            "exchanges": download.exchanges,
        }
        facts.update(values)
        return cls(**facts)


@dataclass
class Context:
    source: Source
    # Folder beside the mirror that becomes the mirror on success. It does not exist yet:
    # HttpClient.download creates it with the first body it stores; a kind that writes
    # files itself calls `stage.mkdir(exist_ok=True)` first. (A 304 then costs no
    # mkdir/rmdir pair, which is slow on some filesystems.)
    stage: Path
    previous: Provenance | None  # the current mirror's record (None: never mirrored)
    options: FetchOptions
    http: HttpClient
    log: AttemptLog
    run_cpu: Callable[..., Awaitable[Any]]  # run_cpu(fn, *args): off the event loop
    github: Any = None  # AsyncGitHubClient, shared by the run
    pin: dict | None = None  # this source's corpus.lock entry (frozen runs)
    on_bytes: Callable[[int], None] | None = None
    state: dict = field(default_factory=dict)  # shared by the run (e.g. rate-limit flags)
    # Trades the source's download slot for a place in the extraction backlog (see engine._Slot).
    leave_downloads: Callable[[], Awaitable[None]] | None = None

    @property
    def conditional(self) -> dict[str, str]:
        """ETag/Last-Modified of the current mirror, unless the run must download anyway."""
        if self.options.force or self.options.frozen or self.previous is None:
            return {}
        # Validators belong to the URL they came from: sent for a changed `url`, a 304 from
        # the server would make the new address's mirror the old page.
        if self.previous.cited_url != self.source.url:
            return {}
        return {"etag": self.previous.etag, "last_modified": self.previous.last_modified}

    async def extract(self, fn: Callable[..., Any], *args: Any, exchanges: tuple[Exchange, ...] = ()) -> tuple[Any, tuple[str, tuple[OutputFile, ...]]]:
        """(fn(*args), finished): run the extractor off the event loop, then, in the same worker call,
        write the WARC of `exchanges` and hash every file in the stage (see records.finish_stage).

        One round trip to the worker pool per source instead of two. The extractor must be the
        last thing that writes into the stage; pass `finished` on as `Outcome(finished=...)`.

        It also gives up the source's download slot (one of `jobs`): while this source waits
        for a worker, another one downloads. So a kind downloads nothing after calling it.
        """
        if self.leave_downloads is not None:
            await self.leave_downloads()
        return await self.run_cpu(records.extract_and_finish, fn, args, str(self.stage), exchanges, self.options.warc)

    def same_as_before(self, sha256: str) -> bool:
        return bool(self.previous and not self.options.force and not self.options.frozen and self.previous.sha256 == sha256)


class Kind(Protocol):
    """One way of mirroring a source."""

    name: str

    def matches(self, source: Source) -> bool:
        """Cheap: decided from the source's kind and URL alone, no I/O."""

    async def fetch(self, ctx: Context) -> Outcome:
        """Mirror ctx.source into ctx.stage; raise FetchError on failure."""


@functools.cache
def package_version(name: str) -> str:
    """An installed distribution's version, looked up once per process.

    importlib.metadata scans sys.path on every call (about 2 ms); uncached, the
    lookups for 1,000 pages cost the event loop two seconds.
    """
    return version(name)
