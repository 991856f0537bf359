"""Orchestration: select sources, fetch them concurrently, swap each mirror in atomically.

Each source is fetched into a staging folder beside its mirror
(corpus/<section>/raw/.<id>.tmp-<pid>-<n>) and renamed into place only when
complete, so a failed or killed fetch leaves the previous mirror and its
provenance exactly as they were. Leftovers of a killed run are removed (or, for
a mirror moved aside mid-swap, restored) at the start of the next run, under
the run lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import itertools
import multiprocessing
import os
import re
import select as _select
import shutil
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, Self

import httpx

from ..core import safepath, swapdir
from ..core.errors import ContentError, FetchError, RateLimitError, UsageError
from ..core.github_api import AsyncGitHubClient, GitHubConfig
from ..core.model import KINDS, Corpus, Source
from ..core.provenance import (
    FAILED_DIR,
    FILENAME,
    Declined,
    NamesLike,
    Provenance,
    Status,
    clean_temps,
    clear_failure,
    missing_files,
    read_failure,
    read_provenance,
    utc_stamp,
    write_failure,
    write_provenance,
)
from . import blocked, keep, lockfile, records
from .base import Context, Kind, Outcome
from .http import AttemptLog, HttpClient
from .kinds import kind_for
from .options import FetchOptions

_counter = itertools.count()


@dataclass(frozen=True)
class FetchResult:
    id: str
    kind: str
    status: Status
    url: str
    fetched_url: str = ""
    bytes: int = 0
    seconds: float = 0.0
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status in (Status.OK, Status.UNCHANGED)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "kind": self.kind, "status": self.status.value, "url": self.url,
            "fetched_url": self.fetched_url, "bytes": self.bytes, "seconds": round(self.seconds, 3), "error": self.error,
        }


class Progress(Protocol):
    def start(self, source: Source) -> None: ...
    def advance(self, source: Source, nbytes: int) -> None: ...
    def finish(self, source: Source, result: FetchResult) -> None: ...


class _Quiet:
    def start(self, source: Source) -> None:
        pass

    def advance(self, source: Source, nbytes: int) -> None:
        pass

    def finish(self, source: Source, result: FetchResult) -> None:
        pass


def select(corpus: Corpus, options: FetchOptions) -> list[Source]:
    """The sources a run covers; unknown ids, sections or kinds are usage errors."""
    known = corpus.by_id
    for source_id in options.ids:
        if source_id not in known:
            hint = difflib.get_close_matches(source_id, list(known), n=1)
            raise UsageError(f"no source with id '{source_id}' in the registry" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        if not known[source_id].url:
            raise UsageError(f"source '{source_id}' has no url to fetch; add one to its sources.yaml entry")
    folders = set()
    for wanted in options.sections:
        match = [s.folder for s in corpus.sections if s.folder == wanted or (wanted.isdigit() and s.number == int(wanted))]
        if not match:
            raise UsageError(f"no section '{wanted}'; use a folder name such as {corpus.sections[0].folder if corpus.sections else '01-intro'} or its number")
        folders.update(match)
    for kind in options.kinds:
        if kind not in KINDS:
            raise UsageError(f"unknown kind '{kind}'; use one of {', '.join(KINDS)}")
    chosen = []
    for source in corpus.sources:
        if options.ids and source.id not in options.ids:
            continue
        if folders and source.section not in folders:
            continue
        if options.kinds and source.kind not in options.kinds:
            continue
        if source.url:  # unverified placeholders without an address are not fetchable
            chosen.append(source)
    return chosen


def check_paths(corpus: Corpus, sources: list[Source]) -> None:
    """UnsafePathError before anything is written when a folder fetch writes into leads out of corpus/.

    corpus/<section>, its raw/, raw/.failed/ and raw/.declined/ (whose <id> folders a fetch
    replaces and removes), and the GitHub cache are checked once per run; each source's
    raw/<id> is checked again where it is swapped (see _fetch_one).
    """
    root = corpus.root
    folders = [root / ".cache", root / ".cache" / "github"]
    for section in dict.fromkeys(s.section for s in sources):
        raw = root / section / "raw"
        folders += [root / section, raw, raw / FAILED_DIR, raw / keep.DECLINED_DIR]
    for folder in folders:
        safepath.inside(folder, root, "mirrors live inside corpus/")


# What a killed run of ours leaves, by the exact names it gives them; nothing else is touched.
_STAGING = re.compile(r"\.(?P<id>.+)\.tmp-\d+-(?:\d+|attach)")  # _fetch_one's and attach's staging folders
_TEMP_FILE = re.compile(r"\..+\.\d+\.\d+\.tmp")  # provenance.write_atomic's temporary files


def clean_leftovers(corpus: Corpus) -> None:
    """Remove what killed runs left: staging folders, parked old folders (put back where the
    folder they stood for is missing), temporary record files. Under the run lock, so none of
    them belongs to a run still going: the names removed here without a pid check are made only
    by fetch (_fetch_one, _commit, keep_declined, write_failure, lockfile.write_lock; on a cluster
    by this process, the workers staging elsewhere) and attach, each holding the lock for its
    whole run; its brief holders make none (watch rewrites raw/<id>/provenance.json, cleaned
    below by pid; a restore only renames), and a build only reads."""
    for section in corpus.sections:
        raw = corpus.root / section.folder / "raw"
        _clean_folders(raw)
        _clean_folders(raw / keep.DECLINED_DIR)  # keep_declined swaps raw/.declined/<id> the same way
        _clean_files(raw / FAILED_DIR, _TEMP_FILE)
        # A record rewritten in place (an unchanged source, watch's thread state) killed mid-write:
        # raw/<id>/.provenance.json.<pid>.<thread>.tmp. Real folders of the section's ids only.
        ids = {source.id for source in section.sources}
        for entry in _entries(raw):
            if entry.name in ids and entry.is_dir(follow_symlinks=False):
                clean_temps(Path(entry.path), (FILENAME,))
    # The GitHub answers' cache (core/github_api.py): GitHubClient._cache_path's <sha256>.json.
    clean_temps(corpus.root / ".cache" / "github", NamesLike(r"[0-9a-f]{64}\.json"))
    # corpus.lock's only: other commands (add, import) write corpus/ files without the run lock
    _clean_files(corpus.root, re.compile(re.escape(f".{lockfile.LOCK_FILE}.") + r"\d+\.\d+\.tmp"))


def _clean_folders(parent: Path) -> None:
    for entry in _entries(parent):
        if not entry.is_dir(follow_symlinks=False):  # we only ever make folders by these names
            continue
        path = Path(entry.path)
        if _STAGING.fullmatch(entry.name):
            shutil.rmtree(path, ignore_errors=True)
        elif parked := swapdir.PARKED.fullmatch(entry.name):  # the fallback swap's old folder
            original = parent / parked["name"]
            if os.path.lexists(original):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.rename(path, original)


def _clean_files(parent: Path, names: re.Pattern[str]) -> None:
    for entry in _entries(parent):
        if names.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            with contextlib.suppress(OSError):  # gone already, or not ours to remove: the run goes on
                os.unlink(entry.path)


def _entries(folder: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _executor(options: FetchOptions) -> Executor:
    workers = options.extract_workers
    if workers is None:
        workers = min(4, os.cpu_count() or 1)
    if workers <= 0:
        return ThreadPoolExecutor(max_workers=4)
    # forkserver: workers start clean, not as forks of a process running an event loop and threads.
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("forkserver"), initializer=_worker_init, initargs=(os.getpid(),)
    )


def _worker_init(run_pid: int) -> None:
    """In each extraction worker: exit as soon as the fetch process is gone, however it ended.

    A worker's parent is the forkserver, not the fetch, so PR_SET_PDEATHSIG cannot name
    the fetch; a thread waits on a pidfd of the fetch process instead (polling where
    pidfds are missing). SIGKILLed, the fetch cannot stop its workers itself: without this
    they lived on, holding the caller's stdout open.
    """

    def watch() -> None:
        try:
            fd = os.pidfd_open(run_pid)
        except (AttributeError, OSError):
            fd = None
        if fd is not None:
            _select.select([fd], [], [])
        else:
            while _alive(run_pid):
                time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="watch-fetch-process", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _stopped_by_term(work: Any) -> Any:
    """Await `work`; SIGTERM and SIGHUP cancel it like Ctrl-C does (git killed, staging removed,
    workers stopped) and end in KeyboardInterrupt, which the CLI reports as "interrupted" (130).

    The loop's own signal handlers, not a re-raised SIGINT: a fetch started in the background
    (cron, `cmd &`, nohup) inherits SIGINT ignored, and SIGTERM must still stop it. A signal the
    caller ignores (SIGHUP under nohup) stays ignored.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[int] = []
    installed = []

    def stop(signum: int) -> None:
        received.append(signum)
        if task is not None:
            task.cancel()

    for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)):
        if sig is None or signal.getsignal(sig) is signal.SIG_IGN:
            continue
        try:
            loop.add_signal_handler(sig, stop, sig)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no such support
            pass
    try:
        return await work
    except asyncio.CancelledError:
        if received:
            raise KeyboardInterrupt from None
        raise
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)


def fetch_corpus(
    corpus: Corpus,
    options: FetchOptions,
    *,
    progress: Progress | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
) -> list[FetchResult]:
    """Mirror the selected sources; one FetchResult per source, failures included (never raised)."""
    sources = select(corpus, options)
    check_paths(corpus, sources)
    if not os.access(corpus.root, os.W_OK):
        raise UsageError(f"{corpus.root} is not writable (a read-only folder or file system); fetch writes mirrors and corpus.lock there. Make it writable and run again")
    with lockfile.run_lock(corpus.root, "fetch", wait=lockfile.BRIEF_WAIT):
        clean_leftovers(corpus)
        settle_lock(corpus)  # a killed run's swapped-in mirrors get their pins first
        try:
            if options.scheduler:  # the per-source work on a Dask cluster's workers; committed here all the same
                from .cluster import run_on_cluster

                work = run_on_cluster(corpus, sources, options, progress or _Quiet(), transport, fetch_one=_fetch_one, lazy_github=_LazyGitHub, update_lock=_update_lock)
                return asyncio.run(_stopped_by_term(work))
            return asyncio.run(_stopped_by_term(_run(corpus, sources, options, progress or _Quiet(), transport)))
        finally:
            settle_lock(corpus)  # interrupted (Ctrl-C, SIGTERM) after some swaps: pinned all the same


def settle_lock(corpus: Corpus) -> None:
    """Pin the mirrors a run swapped in without writing corpus.lock (it was killed or interrupted)."""

    def mirror(source_id: str) -> Provenance | None:
        source = corpus.by_id.get(source_id)
        if source is None or not safepath.is_inside(corpus.raw_dir(source), corpus.root):
            return None
        return read_provenance(corpus.raw_dir(source))

    lockfile.settle(corpus.root, mirror)


class _LazyGitHub:
    """The run's AsyncGitHubClient, created on first use: most runs never talk to the API."""

    def __init__(self, make: Callable[[], AsyncGitHubClient]):
        self._make = make
        self._client: AsyncGitHubClient | None = None

    def __getattr__(self, name: str) -> Any:
        if self._client is None:
            self._client = self._make()
        return getattr(self._client, name)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


async def _run(corpus: Corpus, sources: list[Source], options: FetchOptions, progress: Progress, transport) -> list[FetchResult]:
    pins = lockfile.read_lock(corpus.root)
    http = HttpClient(options, transport=transport)
    github_config = GitHubConfig(api_url=options.github_api_url, token=options.github_token, cache_dir=corpus.root / ".cache" / "github", timeout=options.read_timeout)
    github = _LazyGitHub(lambda: AsyncGitHubClient(github_config, transport=transport))
    executor = _executor(options)
    # Small file writes (the provenance of an unchanged source) go to threads: a rename over an
    # existing file makes ext4 start writeback, which must not stall the event loop.
    io_threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="fetch-io")
    loop = asyncio.get_running_loop()
    downloads = asyncio.Semaphore(options.jobs)
    backlog = asyncio.Semaphore(options.jobs)
    state: dict = {}

    def run_cpu(fn: Callable[..., Any], *args: Any):
        return loop.run_in_executor(executor, fn, *args)

    def run_io(fn: Callable[..., Any], *args: Any):
        return loop.run_in_executor(io_threads, fn, *args)

    async def one(source: Source) -> tuple[FetchResult, Provenance | None]:
        async with _Slot(downloads, backlog) as slot:
            return await _fetch_one(corpus, source, options, http, github, run_cpu, run_io, pins.get(source.id), progress, state, slot)

    # Each section's raw/ folder once per run, not once per source on the event loop.
    for folder in dict.fromkeys(corpus.raw_dir(s).parent for s in sources):
        folder.mkdir(parents=True, exist_ok=True)
    try:
        pairs = await asyncio.gather(*(one(s) for s in sources))
    finally:
        await http.aclose()
        await github.aclose()
        executor.shutdown(wait=True, cancel_futures=True)
        io_threads.shutdown(wait=True)
    _update_lock(corpus, options, pins, pairs)
    return [result for result, _ in pairs]


def _update_lock(corpus: Corpus, options: FetchOptions, pins: dict[str, dict], pairs: list[tuple[FetchResult, Provenance | None]]) -> None:
    """corpus.lock after a run (local or on a cluster): the pins of what it mirrored."""
    if not options.frozen:
        for _result, record in pairs:
            if record is not None:
                pins[record.id] = lockfile.pin_of(record)
        if not (options.ids or options.sections or options.kinds):
            # A full run speaks for the whole registry: pins of removed sources go.
            pins = {source_id: pin for source_id, pin in pins.items() if source_id in corpus.by_id}
        lockfile.write_lock(corpus.root, dict(sorted(pins.items())))
        lockfile.done(corpus.root)


class _Slot:
    """A source's place in the run: first one of `jobs` download slots, then, once its files
    go to the worker pool (Context.extract), one of `jobs` places in the extraction backlog.

    Holding the download slot through extraction kept slots idle while a page queued for a
    worker (~12 ms per page in the benchmark, a tenth of all slot time); handing it on cut
    the first fetch by ~0.6 s there. The backlog bounds the sources in flight to 2 x jobs.
    """

    def __init__(self, downloads: asyncio.Semaphore, backlog: asyncio.Semaphore):
        self._downloads, self._backlog = downloads, backlog
        self._held: asyncio.Semaphore | None = None

    async def __aenter__(self) -> Self:
        await self._downloads.acquire()
        self._held = self._downloads
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._held is not None:
            self._held.release()
            self._held = None

    async def leave_downloads(self) -> None:
        if self._held is self._downloads:
            await self._backlog.acquire()  # cancelled here: still holds the download slot
            self._downloads.release()
            self._held = self._backlog


async def _fetch_one(corpus, source, options, http, github, run_cpu, run_io, pin, progress: Progress, state, slot: _Slot | None = None,
                     kind_of: Callable[[Source], Kind] = kind_for) -> tuple[FetchResult, Provenance | None]:
    started = time.monotonic()
    raw = corpus.raw_dir(source)  # its parent exists (made in _run)
    if not safepath.is_inside(raw, corpus.root):  # a committed raw/<id> symlink: neither read nor replaced
        message = f"{raw} is a symlink leading outside corpus/; delete it (the mirror is fetched again into a real folder)"
        write_failure(raw, Provenance(id=source.id, kind=source.kind, cited_url=source.url, status=Status.FAILED, checked_at=utc_stamp(), error=message))
        result = FetchResult(source.id, source.kind, Status.FAILED, source.url, error=message)
        progress.finish(source, result)
        return result, None
    mirror = previous = read_provenance(raw)  # read once: for the recheck window and for ETags
    if previous is not None and missing_files(raw, previous):
        # A record whose files are gone (a fresh clone of a corpus that commits provenance.json
        # but not the mirrored bytes) is no mirror: fetch in full, with no conditional request.
        # Its committed text is still what a worse capture is judged against (`mirror`).
        previous = None
    # A record of another URL (the registry's `url` changed) says nothing about this one.
    recent = _recently_checked(raw, previous, options) if previous is None or previous.cited_url == source.url else None
    if recent is None and previous is not None and previous.supplied is not None and not options.force:
        recent = previous  # a copy the user supplied (`corpus-build attach`) stays until --force
    if recent is not None:
        result = FetchResult(source.id, source.kind, Status.UNCHANGED, source.url, recent.fetched_url, 0, time.monotonic() - started)
        progress.finish(source, result)
        return result, recent
    # Not created here: most refreshes end in a 304 and never write (see base.Context.stage).
    stage = raw.with_name(f".{source.id}.tmp-{os.getpid()}-{next(_counter)}")
    log = AttemptLog()
    kind = kind_of(source)  # on a cluster, a kind that runs the source's own on a worker (fetch/cluster.py)
    ctx = Context(
        source=source, stage=stage, previous=previous, options=options, http=http, log=log, run_cpu=run_cpu,
        github=github, pin=pin, on_bytes=lambda n: progress.advance(source, n), state=state,
        leave_downloads=slot.leave_downloads if slot is not None else None,
    )
    progress.start(source)
    try:
        if options.frozen and not pin:
            raise ContentError("not pinned in corpus.lock; run `corpus-build fetch` without --frozen first", url=source.url)
        outcome = await kind.fetch(ctx)
        _check_pin(options, pin, outcome, source)
        if outcome.unchanged or (options.frozen and previous is not None and previous.sha256 == outcome.sha256 and not outcome.repo):
            if previous is None:
                raise ContentError("the server answered 'not modified' but there is no previous mirror", url=source.url)
            # A partial mirror stays partial until a fetch completes it.
            status = Status.PARTIAL if previous.status is Status.PARTIAL else Status.UNCHANGED
            record = replace(previous, status=status, checked_at=utc_stamp(), attempts=tuple(log.attempts), error="")
            _discard(stage)
            await run_io(write_provenance, raw, record)
        else:
            # A capture worse than the mirror does not replace it (fetch/keep.py), unless the user says so.
            judged = mirror if mirror is not None and mirror.cited_url == source.url and source.id not in options.accept_worse else None
            record, declined = await _commit(source, outcome, stage, raw, log, options, run_cpu, run_io, judged, corpus.root)
            if declined is not None:
                return _kept(source, raw, record, declined, previous, log, progress, started)
        # On the event loop, never in a thread: it removes the shared .failed/ folder when empty,
        # which must not race with write_failure for another source.
        clear_failure(raw)
        keep.forget_declined(raw)
        result = FetchResult(source.id, source.kind, record.status, source.url, record.fetched_url, record.bytes if record.status is Status.OK else 0, time.monotonic() - started,
                             error=record.document.partial_reason if record.status is Status.PARTIAL else "")
        progress.finish(source, result)
        return result, record
    except Exception as exc:  # noqa: BLE001 - one source's failure must not stop the run
        _discard(stage)
        if isinstance(exc, FetchError):
            message = str(exc).replace(blocked.ID_SLOT, source.id)  # the hint to `attach` names this source
        else:
            message = f"unexpected {type(exc).__name__}: {exc} (a bug in corpus-build; please report it)"
        status = Status.SKIPPED if isinstance(exc, RateLimitError) else Status.FAILED
        failure = Provenance(
            id=source.id, kind=source.kind, cited_url=source.url, status=status, checked_at=utc_stamp(),
            error=message, attempts=tuple(log.attempts),
        )
        try:
            write_failure(raw, failure)
        except OSError as write_exc:  # a full or read-only disk: the run still reports every source
            message += f" (and the failure record could not be written: {write_exc.strerror or write_exc})"
        result = FetchResult(source.id, source.kind, status, source.url, error=message, seconds=time.monotonic() - started)
        progress.finish(source, result)
        return result, None
    except BaseException:  # cancelled or interrupted: leave no staging folder behind
        _discard(stage)
        raise


def _discard(stage: Path) -> None:
    """Remove a staging folder, if it was ever created (a 304 never creates one)."""
    try:
        os.rmdir(stage)
    except FileNotFoundError:
        pass
    except OSError:
        shutil.rmtree(stage, ignore_errors=True)


def _recently_checked(raw: Path, record: Provenance | None, options: FetchOptions) -> Provenance | None:
    """The current record (`record`) when it was checked within `recheck_after` and nothing failed since."""
    if options.force or options.frozen or options.recheck_after <= 0:
        return None
    if record is None or record.status not in (Status.OK, Status.UNCHANGED) or read_failure(raw) is not None:
        return None
    age = record.age
    return record if age is not None and age.total_seconds() < options.recheck_after else None


def _check_pin(options: FetchOptions, pin: dict | None, outcome: Outcome, source: Source) -> None:
    if not options.frozen or not pin or outcome.unchanged:
        return
    if outcome.repo:
        return  # the repo kind compares commits itself, before cloning
    if pin.get("sha256") and pin["sha256"] != outcome.sha256:
        raise ContentError(
            f"content no longer matches corpus.lock: sha256 {outcome.sha256[:16]}… but pinned {pin['sha256'][:16]}…; "
            "check the change, then run `corpus-build fetch` without --frozen to accept it",
            url=source.url,
        )


async def _commit(source: Source, outcome: Outcome, stage: Path, raw: Path, log: AttemptLog, options: FetchOptions, run_cpu, run_io,
                  previous: Provenance | None = None, lock_root: Path | None = None) -> tuple[Provenance, Declined | None]:
    """Install the staged capture as the mirror; or, when it is worse than `previous`, keep it aside (fetch/keep.py).

    Returns the new record and None, or the declined capture's record and why it was declined.
    """
    if outcome.finished is not None:  # done in the kind's extraction call (Context.extract)
        warc_file, files = outcome.finished
    else:
        await asyncio.to_thread(stage.mkdir, exist_ok=True)  # a kind that wrote nothing (never in practice) still gets a mirror
        warc_file, files = await run_cpu(records.finish_stage, str(stage), outcome.exchanges, options.warc)
    now = utc_stamp()
    record = Provenance(
        id=source.id, kind=source.kind, cited_url=source.url, status=Status.PARTIAL if outcome.document.partial_reason else Status.OK,
        fetched_at=now, checked_at=now,
        requested_url=outcome.requested_url, fetched_url=outcome.fetched_url, redirects=outcome.redirects,
        http_status=outcome.http_status, etag=outcome.etag, last_modified=outcome.last_modified,
        content_type=outcome.content_type, bytes=outcome.bytes, sha256=outcome.sha256, body_file=outcome.body_file,
        text_file=outcome.text_file, warc_file=warc_file, files=files, extractor=outcome.extractor,
        document=outcome.document, repo=outcome.repo, thread=outcome.thread, attempts=tuple(log.attempts),
    )
    if previous is not None:
        declined = await run_io(keep.judge, previous, raw, record, stage)
        if declined is not None:
            # On the event loop: raw/.declined/ is shared by the section's sources.
            return record, replace(declined, folder=keep.keep_declined(stage, raw, record))
    # In a thread: serialising the record, creating its file and renaming the stage into
    # place cost ~1 ms per source, which on the event loop delayed every other download.
    # Both paths are this source's alone.
    # A frozen run pins nothing (it only checks the pins), so it notes nothing either.
    installing = run_io(_install, stage, raw, record, None if options.frozen else lock_root)
    try:
        await asyncio.shield(installing)
    except asyncio.CancelledError:
        # Let the thread finish before the caller discards the stage: removing it while it
        # is renamed into place could leave a half-deleted mirror.
        await asyncio.wait([installing])
        raise
    return record, None


def _kept(source: Source, raw: Path, new: Provenance, declined: Declined, previous: Provenance | None, log: AttemptLog, progress: Progress,
          started: float) -> tuple[FetchResult, Provenance | None]:
    """The run's answer for a declined capture: a `kept` record beside the mirror, which stays as it was."""
    message = keep.explain(declined, source.id)
    record = Provenance(
        id=source.id, kind=source.kind, cited_url=source.url, status=Status.KEPT, checked_at=utc_stamp(), error=message,
        attempts=tuple(log.attempts), fetched_url=new.fetched_url, http_status=new.http_status, declined=declined,
    )
    try:
        write_failure(raw, record)
    except OSError as exc:
        message += f" (and the record could not be written: {exc.strerror or exc})"
    result = FetchResult(source.id, source.kind, Status.KEPT, source.url, new.fetched_url, 0, time.monotonic() - started, error=message)
    progress.finish(source, result)
    return result, previous  # the lock keeps the mirror's pin


def _install(stage: Path, raw: Path, record: Provenance, lock_root: Path | None = None) -> None:
    records.carry_user_entries(raw, stage)  # the swap replaces raw/<id> whole: a note of the user's in it comes along
    write_provenance(stage, record)
    if lock_root is not None:
        lockfile.note_pending(lock_root, record.id)  # before the swap: a kill after it still gets the pin (lockfile.settle)
    swapdir.replace(stage, raw)  # one step where the kernel can (core/swapdir.py)
