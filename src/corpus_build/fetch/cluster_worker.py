"""What runs on a Dask worker when `fetch` runs on a cluster (fetch/cluster.py is the other side).

One task per batch of sources: `fetch_batch(batch)` runs each source's kind (download,
extraction, browser rendering) exactly as a local fetch does, in a staging folder on the
worker's own disk, finishes the stage (WARC, hashes: records.finish_stage) and hands back each
kind's Outcome with the staged files. The worker writes nothing else: the machine that started
the run commits every mirror.

Why batches: a Dask task costs about 3 ms of CPU between the scheduler, the worker and the
client whatever it does (measured: 500 no-op tasks, 1.6 s), as much as the download and commit of
a small page; a batch (twice as many sources as the worker has threads) costs that once. The sources of a batch run side by side,
`--nthreads` at a time on the worker (one semaphore per worker process, all batches and runs
together), and a batch answers when all of them are done, or earlier, once one of them has been
done HOLD seconds, with what is done; the rest go on running here and the main process asks for
them with a second task on this worker (the same function with the sources still owed): so a
slow source (a browser render, a server that trickles) never keeps its batch-mates' mirrors from
being committed. Each source runs once per worker and run: a batch that names a source already
running or done here (that second task, or a batch sent again after a scheduler reconnect)
waits for it instead of starting it again. A worker that dies takes its batches with it; Dask
runs them again on another worker from scratch (their sources were not committed: a source is
committed only once the reply holding it reached the main process).

The task is a coroutine, so Dask runs it on the worker's event loop, where one HttpClient per
run keeps its connections alive from source to source. Extraction goes to a process pool of the
worker's own, as in a local fetch: in a thread of the worker process it held the GIL, and the
event loop, waiting for the GIL after every system call, spent three times the CPU time in wall
time (400 pages: 31.7 s for 10.8 s of CPU). The pool has `fetch.extract_workers` processes, by
default as many as the worker has threads, at most one per core of its share of the machine (the
cores over the workers on that host); it lives as long as the worker.

A host's requests are limited across all workers by a Dask Semaphore per host, held for each
request as the local per-host limit is (http.HttpClient._host_limit): with `per_host: 4`, four
requests to one host at a time on the whole cluster. A worker that dies holding one gives it
back after the scheduler's lease timeout (`distributed.scheduler.locks.lease-timeout`).

Nothing here is imported by a local fetch; `distributed` is imported only inside functions.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import select
import shutil
import stat
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core import errors
from ..core.errors import FetchError
from ..core.model import Source
from ..core.provenance import Attempt, Provenance
from . import records
from .base import Context, Outcome, package_version
from .http import AttemptLog, HttpClient
from .kinds import kind_for
from .options import FetchOptions

STAGES = "corpus-build-stages"  # under the worker's local directory
_RUNS_KEPT = 4  # runs whose clients a worker keeps open (a killed main never says it is done)


@dataclass(frozen=True)
class Job:
    """One source to fetch on a worker: what the kind reads of it besides the network."""

    source: Source
    previous: Provenance | None
    pin: dict | None


@dataclass(frozen=True)
class Batch:
    """Sources to fetch on a worker, with what they share."""

    run_id: str
    version: str  # corpus-build on the machine that started the run; a worker must match it
    options: FetchOptions
    jobs: tuple[Job, ...]
    store: str = ""  # a folder shared by every worker and the main machine ("" = none)
    result_limit: int = 0  # staged bytes above this go to the store instead of the reply (and end a reply)


@dataclass(frozen=True)
class Failure:
    """A FetchError raised on the worker, as plain data (its subclasses take other arguments)."""

    kind: str  # class name in core.errors, or "" for an unexpected exception
    message: str  # str() of the exception, URL included
    url: str = ""
    status: int = 0
    reset_at: str = ""
    retry_after: float | None = None
    bug: str = ""  # the class name of an unexpected exception (a bug, reported as such)


@dataclass(frozen=True)
class Staged:
    """The staged folder: entries in walk order (folders before their files)."""

    folders: tuple[str, ...] = ()
    files: tuple[tuple[str, int, int, bytes], ...] = ()  # (relative path, mode, mtime_ns, content)
    bytes: int = 0


@dataclass(frozen=True)
class Reply:
    """One source's answer."""

    worker: str
    attempts: tuple[Attempt, ...] = ()
    outcome: Outcome | None = None
    staged: Staged | None = None
    stored: str = ""  # the staged folder's path in the shared store, when it was too large for a reply
    failure: Failure | None = None


@dataclass(frozen=True)
class BatchReply:
    """A batch's answer: the sources done (by id), and the ids of those still running (or done
    but left for the next reply) on `worker`, to be asked for with another batch."""

    worker: str
    replies: tuple[tuple[str, Reply], ...] = ()
    owed: tuple[str, ...] = ()


@dataclass
class _Fetched:
    """A source done here, its staged files not yet taken for a reply."""

    reply: Reply
    stage: Path
    keep: bool  # the stage holds the mirror (else it is removed: a failure, an unchanged source)
    url: str = ""


@dataclass
class _Running:
    task: asyncio.Task[_Fetched]
    batches: int = 0  # batches waiting for it now
    claimed: bool = False  # a batch is taking its files for its reply


@dataclass
class _Run:
    http: _ClusterHttp
    state: dict = field(default_factory=dict)
    jobs: dict[str, _Running] = field(default_factory=dict)  # by source id: running, or done and not yet replied


_runs: OrderedDict[str, _Run] = OrderedDict()
_pools: dict[int, Executor] = {}


_made: dict[Path, bool] = {}  # staging folders created (once per worker process)
_share: list[int] = []  # cores per worker on this machine, looked up by the first task
_slots: list[asyncio.Semaphore] = []  # sources in flight on this worker: --nthreads, all batches and runs together
HOLD = 1.0  # seconds a done source waits for its batch-mates before the batch answers without them


async def _cores_here(worker: Any) -> int:
    """This worker's share of the machine's cores: the cores it may use over the workers on its host."""
    if not _share:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        try:
            info = await worker.scheduler.identity(n_workers=-1)
            host = urlsplit(worker.address).hostname
            here = sum(1 for address in (info.get("workers") or {}) if urlsplit(address).hostname == host)
        except Exception:  # noqa: BLE001 - the share is a default; the whole machine then
            here = 1
        _share.append(max(1, cores // max(1, here)))
    return _share[0]


def _extractors(options: FetchOptions, nthreads: int, cores: int) -> Executor:
    """This worker's extraction pool of the size `options` asks for (kept for later runs): by
    default one process per thread, at most one per core of this worker's share of the machine
    (two workers of a LocalCluster on two cores: one each)."""
    size = options.extract_workers
    if size is None:
        size = max(1, min(nthreads, cores))
    pool = _pools.get(size)
    if pool is None:
        if size <= 0:
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="corpus-build-extract")
        else:
            # A Nanny starts its worker as a daemonic process, and multiprocessing refuses those
            # children (lest they outlive it). These exit when the worker does, however it ends
            # (_watch_worker), so the worker may have them.
            multiprocessing.current_process().daemon = False
            pool = ProcessPoolExecutor(max_workers=size, mp_context=multiprocessing.get_context("forkserver"), initializer=_watch_worker, initargs=(os.getpid(),))
        _pools[size] = pool
    return pool


def _watch_worker(worker_pid: int) -> None:
    """In each extraction process: exit as soon as the worker process is gone (a pidfd, else polling)."""

    def watch() -> None:
        try:
            fd = os.pidfd_open(worker_pid)
        except (AttributeError, OSError):
            fd = None
        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                try:
                    os.kill(worker_pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass
                time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="watch-dask-worker", daemon=True).start()


def facts() -> dict[str, str]:
    """What a worker has installed (checked by the main process when it connects)."""
    found = {"corpus-build": package_version("corpus-build")}
    try:
        import trafilatura  # noqa: F401
        import warcio  # noqa: F401

        from .kinds.pdf import pymupdf_version

        found["pymupdf"] = pymupdf_version()
    except ImportError as exc:
        found["missing"] = exc.name or str(exc)
    return found


class _HostLeases:
    """This worker's leases of one host's cluster-wide semaphore (`per_host` leases in all).

    A request holds a lease, so requests to the host on all workers together never pass
    `per_host`. Asking the scheduler for a lease and giving it back for every request cost two
    round trips each (400 pages on one host: 84 ms per request, a fetch four times as long), so a
    lease a request is done with stays here for this worker's next request to the host, and goes
    back to the scheduler once it has been idle IDLE seconds, or at its first release after HOLD
    seconds, which gives the other workers waiting for the host their turn.
    """

    IDLE = 1.0
    HOLD = 2.0

    def __init__(self, semaphore: Any):
        self.semaphore = semaphore
        self.idle: list[list[float]] = []  # [acquired, last used] of the leases held and not in use

    async def acquire(self) -> list[float]:
        if self.idle:
            return self.idle.pop()
        await self.semaphore.acquire()
        now = time.monotonic()
        return [now, now]

    def release(self, lease: list[float]) -> None:
        now = time.monotonic()
        if now - lease[0] > self.HOLD:
            self._give_back()
            return
        lease[1] = now
        self.idle.append(lease)
        asyncio.get_running_loop().call_later(self.IDLE * 1.05, self._expire)

    def _expire(self) -> None:
        now = time.monotonic()
        for lease in [lease for lease in self.idle if now - lease[1] >= self.IDLE]:
            self.idle.remove(lease)
            self._give_back()

    def _give_back(self) -> None:
        asyncio.get_running_loop().create_task(self.semaphore.release())  # the leases are alike: any one goes

    async def close(self) -> None:
        while self.idle:
            self.idle.pop()
            await self.semaphore.release()
        callback = getattr(self.semaphore, "refresh_callback", None)  # it refreshes the leases every few seconds until stopped
        if callback is not None:
            callback.stop()


class _ClusterHttp(HttpClient):
    """HttpClient whose per-host limit also holds one of the cluster-wide leases for that host."""

    def __init__(self, options: FetchOptions):
        super().__init__(options)
        self._leases: dict[str, _HostLeases] = {}

    @asynccontextmanager
    async def _cluster_limit(self, url: str) -> AsyncIterator[None]:
        from distributed import Semaphore

        host = (urlsplit(url).hostname or "").lower()
        async with super()._host_limit(url):  # this worker's own share first: no scheduler round trip to wait in line
            leases = self._leases.get(host)
            if leases is None:
                # The limit is part of the name: a scheduler keeps one max per name, and two
                # runs with different `per_host` must not clash; runs with the same share it.
                leases = self._leases[host] = _HostLeases(Semaphore(max_leases=self.options.per_host, name=f"corpus-build:host:{self.options.per_host}:{host}"))
            lease = await leases.acquire()
            try:
                yield
            finally:
                leases.release(lease)

    def _host_limit(self, url: str):  # the cluster-wide limit where HttpClient takes its per-host one
        return self._cluster_limit(url)


def _run_for(batch: Batch) -> _Run:
    run = _runs.get(batch.run_id)
    if run is None:
        while len(_runs) >= _RUNS_KEPT:
            _, old = _runs.popitem(last=False)
            asyncio.get_running_loop().create_task(_close(old))
        run = _runs[batch.run_id] = _Run(http=_ClusterHttp(batch.options))
    _runs.move_to_end(batch.run_id)
    return run


async def _close(run: _Run) -> None:
    """Stop a run's sources still running here, remove the stages of those done and never asked
    for, give back its host leases and close its connections."""
    running, run.jobs = list(run.jobs.values()), {}
    for job in running:
        job.task.cancel()
    ended = await asyncio.gather(*(job.task for job in running), return_exceptions=True)
    stages = [fetched.stage for fetched in ended if isinstance(fetched, _Fetched)]  # a cancelled source removed its own
    if stages:
        await asyncio.to_thread(_remove, stages)
    for leases in run.http._leases.values():
        await leases.close()
    await run.http.aclose()


async def end_run(run_id: str) -> bool:
    """Called on every worker when a run ends: stop what it left running, close its connections."""
    run = _runs.pop(run_id, None)
    if run is not None:
        await _close(run)
    return run is not None


def _worker() -> Any:
    from distributed import get_worker

    return get_worker()


async def fetch_batch(batch: Batch) -> BatchReply:
    """The Dask task: fetch the batch's sources into staging folders here, hand back those done.

    Answers when every source is done, or once one has been done HOLD seconds (or the reply has
    reached batch.result_limit bytes), naming the others as owed; they go on running here.
    """
    worker = _worker()
    address = worker.address
    if batch.version != package_version("corpus-build"):
        message = (f"worker {address} runs corpus-build {package_version('corpus-build')}, the fetch was started with {batch.version}; "
                   "install the same version on every worker")
        return BatchReply(address, tuple((job.source.id, Reply(worker=address, failure=Failure("ContentError", message, job.source.url))) for job in batch.jobs))
    run = _run_for(batch)
    stages = Path(worker.local_directory) / STAGES
    if not _made.get(stages):
        stages.mkdir(parents=True, exist_ok=True)
        _made[stages] = True
    if not _slots:
        _slots.append(asyncio.Semaphore(max(1, worker.state.nthreads)))
    options = batch.options
    if os.environ.get("CORPUS_BUILD_CHROMIUM"):  # this machine's Chromium, not the main machine's path
        options = replace(options, chromium=os.environ["CORPUS_BUILD_CHROMIUM"].strip())
    extractors = _extractors(options, worker.state.nthreads, await _cores_here(worker))

    mine: list[tuple[str, _Running]] = []
    for job in batch.jobs:
        running = run.jobs.get(job.source.id)
        if running is None:  # else already running or done here: waited for, not run twice
            running = run.jobs[job.source.id] = _Running(asyncio.create_task(_fetch(job, run, options, extractors, stages, address)))
        running.batches += 1
        mine.append((job.source.id, running))
    claimed: list[tuple[str, _Running]] = []
    answered = False
    try:
        await _ready([running.task for _, running in mine])
        for source_id, running in mine:
            if running.task.done() and not running.claimed:
                running.claimed = True  # taken by this reply: no other batch packs (and removes) its stage
                claimed.append((source_id, running))
                if run.jobs.get(source_id) is running:
                    del run.jobs[source_id]
        replies, left = await asyncio.to_thread(_take_all, [(source_id, _result(running.task, address)) for source_id, running in claimed], batch)
        for source_id, running in claimed:  # over the reply's size: asked for again
            if source_id in left:
                running.claimed = False
                run.jobs.setdefault(source_id, running)
        answered = True
        # Owed: every source not in this reply (still running, done since, left over the size limit,
        # or taken by another batch whose reply may never arrive; asked for, it runs again).
        sent = {source_id for source_id, _ in replies}
        return BatchReply(address, tuple(replies), tuple(source_id for source_id, _ in mine if source_id not in sent))
    finally:
        for source_id, running in mine:
            running.batches -= 1
            if not answered and running.batches == 0 and not running.claimed:
                # Cancelled (the run was stopped, or the task released): nobody will ask for it.
                if run.jobs.get(source_id) is running:
                    del run.jobs[source_id]
                if running.task.done():
                    fetched = _result(running.task, address)
                    shutil.rmtree(fetched.stage, ignore_errors=True)
                else:
                    running.task.cancel()  # it removes its stage


async def _ready(tasks: list[asyncio.Task[_Fetched]]) -> None:
    """Until every task is done, or one has been done HOLD seconds (two waits, whatever the batch's size)."""
    pending = [task for task in tasks if not task.done()]
    if not pending:
        return
    if len(pending) == len(tasks):
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
    await asyncio.wait(pending, timeout=HOLD)


def _result(task: asyncio.Task[_Fetched], address: str) -> _Fetched:
    if task.cancelled():  # stopped by the end of its run while a batch still waited (never in practice)
        return _Fetched(Reply(worker=address, failure=Failure("TransportError", f"stopped on worker {address} before it was done")), Path(), keep=False)
    return task.result()  # _fetch returns every exception of the source's own as a failure


async def _fetch(job: Job, run: _Run, options: FetchOptions, extractors: Executor, stages: Path, address: str) -> _Fetched:
    """One source, once one of this worker's slots is free: the kind's work as in a local fetch."""
    loop = asyncio.get_running_loop()

    def run_cpu(fn, *args):
        return loop.run_in_executor(extractors, fn, *args)

    async with _slots[0]:
        log = AttemptLog()
        stage = stages / f"{job.source.id}.tmp-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        ctx = Context(source=job.source, stage=stage, previous=job.previous, options=options, http=run.http, log=log, run_cpu=run_cpu, pin=job.pin, state=run.state)
        try:
            outcome = await kind_for(job.source).fetch(ctx)
            if outcome.unchanged:  # the stage holds at most the body of a 200 whose content had not changed
                return _Fetched(Reply(worker=address, attempts=tuple(log.attempts), outcome=replace(outcome, exchanges=())), stage, False, job.source.url)
            if outcome.finished is None:  # the kinds that leave it to the engine (repositories, threads): the same call, here
                await asyncio.to_thread(stage.mkdir, exist_ok=True)
                outcome = replace(outcome, finished=await run_cpu(records.finish_stage, str(stage), outcome.exchanges, options.warc))
            # The exchanges name files of this worker's stage: the main process has no use for them.
            return _Fetched(Reply(worker=address, attempts=tuple(log.attempts), outcome=replace(outcome, exchanges=())), stage, True, job.source.url)
        except FetchError as exc:
            return _Fetched(Reply(worker=address, attempts=tuple(log.attempts), failure=_failure(exc)), stage, False, job.source.url)
        except Exception as exc:  # noqa: BLE001 - reported for this source, as a local fetch reports it
            failure = Failure("", f"{exc} (on worker {address})", bug=type(exc).__name__)
            return _Fetched(Reply(worker=address, attempts=tuple(log.attempts), failure=failure), stage, False, job.source.url)
        except BaseException:  # cancelled: the stage goes all the same
            shutil.rmtree(stage, ignore_errors=True)
            raise


def _take_all(done: list[tuple[str, _Fetched]], batch: Batch) -> tuple[list[tuple[str, Reply]], list[str]]:
    """The replies of the sources done, each with its staged files (or its place in the shared
    store), in one thread hop for the lot; their stages are gone afterwards. Sources whose files
    would take the reply past batch.result_limit are left (stage kept) for the next reply."""
    replies: list[tuple[str, Reply]] = []
    left: list[str] = []
    total = 0
    for source_id, fetched in done:
        reply, stage, limit = fetched.reply, fetched.stage, batch.result_limit
        if not fetched.keep:
            if stage.parts:
                shutil.rmtree(stage, ignore_errors=True)
            replies.append((source_id, reply))
            continue
        try:
            folders, files, size = _survey(stage)
            if limit and size > limit:  # too large for any reply: through the shared store, or not at all
                if not batch.store:
                    raise errors.ContentError(
                        f"the mirror is {size:,} bytes, more than a cluster reply carries (fetch.cluster_result_limit, {limit:,}); "
                        "name a folder every worker and this machine share as fetch.cluster_store in corpus.yaml, or raise the limit",
                        url=fetched.url,
                    )
                replies.append((source_id, replace(reply, stored=_to_store(stage, Path(batch.store), batch.run_id, source_id))))
                continue
            if limit and total + size > limit:
                left.append(source_id)  # its stage stays for the next reply
                continue
            staged = _read(folders, files, size)
            total += size
            replies.append((source_id, replace(reply, staged=staged)))
        except FetchError as exc:
            replies.append((source_id, Reply(worker=reply.worker, attempts=reply.attempts, failure=_failure(exc))))
        except Exception as exc:  # noqa: BLE001 - reported for this source, as a local fetch reports it
            failure = Failure("", f"{exc} (on worker {reply.worker})", bug=type(exc).__name__)
            replies.append((source_id, Reply(worker=reply.worker, attempts=reply.attempts, failure=failure)))
        finally:
            if source_id not in left:
                shutil.rmtree(stage, ignore_errors=True)
    return replies, left


def _remove(stages: list[Path]) -> None:
    for stage in stages:
        shutil.rmtree(stage, ignore_errors=True)


def _failure(exc: FetchError) -> Failure:
    return Failure(type(exc).__name__, str(exc), exc.url, getattr(exc, "status", 0), getattr(exc, "reset_at", ""), getattr(exc, "retry_after", None))


def rebuild(failure: Failure) -> Exception:
    """The worker's FetchError again, on the main process (same class, same message)."""
    cls = getattr(errors, failure.kind, None) if failure.kind else None
    if not (isinstance(cls, type) and issubclass(cls, FetchError)):
        # Under its own name, which _fetch_one reports as "unexpected <name>: …, a bug in corpus-build".
        return type(failure.bug or "RuntimeError", (Exception,), {})(failure.message)
    exc = cls.__new__(cls)
    Exception.__init__(exc, failure.message)
    exc.url = failure.url
    if issubclass(cls, errors.HTTPStatusError):
        exc.status = failure.status  # type: ignore[attr-defined]
        exc.retry_after = failure.retry_after  # type: ignore[attr-defined]
    if issubclass(cls, errors.RateLimitError):
        exc.reset_at = failure.reset_at  # type: ignore[attr-defined]
    return exc


def _survey(stage: Path) -> tuple[list[str], list[tuple[str, str, os.stat_result]], int]:
    """One walk of `stage`: its folders (relative, each before what it holds), its regular files
    (relative path, path, lstat) and the bytes of every file in it. A kind writes no symlinks;
    any found count towards the size and are left out."""
    folders: list[str] = []
    files: list[tuple[str, str, os.stat_result]] = []
    total = 0

    def walk(path: str, rel: str) -> None:
        nonlocal total
        with os.scandir(path) as found:
            entries = sorted(found, key=lambda entry: entry.name)
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                folders.append(rel + entry.name)
                walk(entry.path, rel + entry.name + "/")
                continue
            info = entry.stat(follow_symlinks=False)
            total += info.st_size
            if stat.S_ISREG(info.st_mode):
                files.append((rel + entry.name, entry.path, info))

    if stage.is_dir():
        walk(str(stage), "")
    return folders, files, total


def _read(folders: list[str], files: list[tuple[str, str, os.stat_result]], size: int) -> Staged:
    contents = []
    for name, path, info in files:
        with open(path, "rb") as handle:
            contents.append((name, stat.S_IMODE(info.st_mode), info.st_mtime_ns, handle.read()))
    return Staged(tuple(folders), tuple(contents), size)


def pack(stage: Path) -> Staged:
    """Every folder and regular file under `stage` (a kind writes no symlinks; any found are left out)."""
    folders, files, size = _survey(stage)
    return _read(folders, files, size)


def _to_store(stage: Path, store: Path, run_id: str, source_id: str) -> str:
    """Move the staged folder into the shared store; its path there (unique to this attempt)."""
    target = store / f"corpus-build-{run_id}" / f"{source_id}-{uuid.uuid4().hex[:12]}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(stage), str(target))
    return str(target)
