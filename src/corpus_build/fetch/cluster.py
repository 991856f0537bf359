"""Fetching on a Dask cluster (`fetch --cluster tcp://HOST:8786`, corpus.yaml `fetch.cluster`).

The machine that runs the command keeps the corpus and is the only one that writes it. Every
source goes through engine._fetch_one as in a local fetch (the recheck window, the lockfile,
--frozen, the 'unchanged' branch, _commit and _install, failure records); only the kind's own
work, `kind.fetch(ctx)`, is replaced by `_Remote.fetch`, which sends the source to a worker
(fetch/cluster_worker.py) and writes the staged files the worker returns into the local
staging folder, from where _commit swaps the mirror in exactly as after a local fetch.

Sources go to the workers in batches (_Batcher): a Dask task costs about 3 ms of CPU between
the scheduler, the worker and this process whatever it does, as much as a small page's download
and commit; one task per source made a cluster fetch on one worker 1.6 times as long as a local
one (scripts/bench_cluster.py). A batch holds twice as many sources as a worker has threads
(at most MAX_BATCH: half the Dask work per source of batches as large as the threads, 7 to 8
points less CPU against a local fetch on that benchmark), and the run keeps 2 x the cluster's threads plus one batch per worker in flight,
so each worker has a batch waiting while it works through one. A batch goes out as soon as it
is full, at once when nothing is out (the start of a run), and otherwise after FLUSH_AFTER. The
files of a batch's reply are written into the sources' staging folders in one thread hop.

Replies come straight from the workers (fetch.cluster_direct, default on): relayed by the
scheduler they cost it a request to the worker and a copy of every mirror (400 pages: a fetch
1.4 times as long). Where this machine cannot reach the workers' ports, cluster_direct: false.

GitHub issue and pull-request threads stay here: they are API calls against one token's quota,
with the run's ETag cache in corpus/.cache/github, and no extraction to spread.

Faults. A worker that dies mid-batch: Dask runs the batch again on another worker (its stages
were on the dead worker's disk; nothing here was touched: a source is committed only once the
reply holding it is here, and a reply names only the sources it holds, the others being owed by
that worker and asked for again with a batch that runs anywhere should it die); after
`distributed.scheduler.allowed-failures` deaths the batch's sources are sent again one per task,
so one source that kills workers fails alone, with a message. A worker that joins late gets queued
sources like the others. The scheduler going away: the sources in flight are sent again if the
client reconnects within fetch.connect_timeout, else they and the ones not yet sent are
recorded as failed; every mirror committed before stays, and corpus.lock is written for them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import stat
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..core.errors import TransportError, UsageError
from ..core.github_api import AsyncGitHubClient, GitHubConfig
from ..core.model import Corpus, Source
from ..core.provenance import Provenance
from . import lockfile
from .base import Context, Kind, Outcome, package_version
from .cluster_worker import Batch, BatchReply, Job, Reply, Staged, end_run, facts, fetch_batch, rebuild
from .http import HttpClient
from .kinds import kind_for
from .kinds.github import GitHubThreadKind
from .options import FetchOptions

if TYPE_CHECKING:
    from .engine import FetchResult, Progress

LOST_RETRIES = 2  # times a batch lost with the scheduler connection is sent again after a reconnect
MAX_BATCH = 16  # sources per Dask task at most
FLUSH_AFTER = 0.02  # seconds a batch that is not full waits for more sources while the workers are busy
_QUIET = ("distributed", "tornado")  # their log lines would repeat, as tracebacks, what each source reports


def _distributed() -> Any:
    try:
        import distributed
    except ModuleNotFoundError:
        raise UsageError("fetching on a cluster needs the `cluster` extra (Dask distributed is not installed): pip install 'corpus-build[cluster]'") from None
    return distributed


async def run_on_cluster(corpus: Corpus, sources: list[Source], options: FetchOptions, progress: Progress, transport, *,
                         fetch_one: Callable[..., Any], lazy_github: Callable[..., Any], update_lock: Callable[..., None]) -> list[FetchResult]:
    """engine._run's counterpart: the same _fetch_one per source, the kinds' work on the cluster.

    The engine hands in its own _fetch_one, _LazyGitHub and _update_lock (this module does not
    import the engine, which imports it).
    """
    _distributed()  # imported first: it sets up the loggers quietened below
    pins = lockfile.read_lock(corpus.root)
    # Dask's logging configuration gives some of these their own level (distributed.client:
    # warning): each one is quietened, not only the parents.
    names = [name for name in logging.root.manager.loggerDict if name.split(".")[0] in _QUIET]
    quiet = {name: logging.getLogger(name).level for name in (*_QUIET, *names)}
    for name in quiet:
        logging.getLogger(name).setLevel(logging.CRITICAL)
    try:
        cluster = await _Cluster.connect(options)
    except BaseException:
        _restore(quiet)
        raise
    http = HttpClient(options, transport=transport)
    github_config = GitHubConfig(api_url=options.github_api_url, token=options.github_token, cache_dir=corpus.root / ".cache" / "github", timeout=options.read_timeout)
    github = lazy_github(lambda: AsyncGitHubClient(github_config, transport=transport))
    io_threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="fetch-io")
    loop = asyncio.get_running_loop()
    local_slots = asyncio.Semaphore(options.jobs)
    state: dict = {}

    def run_io(fn: Callable[..., Any], *args: Any):
        return loop.run_in_executor(io_threads, fn, *args)

    remote = _Remote(cluster, run_io)

    def kind_of(source: Source) -> Kind:
        kind = kind_for(source)
        return _Here(kind, local_slots) if isinstance(kind, GitHubThreadKind) else remote

    async def one(source: Source) -> tuple[FetchResult, Provenance | None]:
        async with cluster.window:
            # run_cpu is only used by _commit for the kinds that stay here (a thread's two files).
            return await fetch_one(corpus, source, options, http, github, run_io, run_io, pins.get(source.id), progress, state, kind_of=kind_of)

    for folder in dict.fromkeys(corpus.raw_dir(s).parent for s in sources):
        folder.mkdir(parents=True, exist_ok=True)
    try:
        pairs = await asyncio.gather(*(one(s) for s in sources))
    finally:
        try:
            await remote.batcher.close()
            await http.aclose()
            await github.aclose()
            io_threads.shutdown(wait=True)
            await cluster.close()
        finally:
            _restore(quiet)
    update_lock(corpus, options, pins, pairs)
    return [result for result, _ in pairs]


def _restore(levels: dict[str, int]) -> None:
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


class _Window:
    """Sources in flight: max(jobs, 2 x the cluster's worker threads + a batch per worker), so every
    worker has a batch waiting while it works through one, and the scheduler holds only a window
    of the run, not all of it.

    First come, first served, and each release admits the next waiter only: an Event all waiters
    wait on woke every one of 5,000 waiting sources at each release (a 5,000-source run took 13x
    as long as a local one). The capacity is read again at each release, so a worker that joins
    late widens the window from the next source that finishes on."""

    def __init__(self, shape: Callable[[], tuple[int, int, int]], floor: int):
        self._shape, self._floor = shape, floor
        self._in_use = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    def capacity(self) -> int:
        threads, workers, size = self._shape()
        return max(self._floor, 2 * threads + size * workers)

    async def __aenter__(self) -> None:
        if not self._waiters and self._in_use < self.capacity():
            self._in_use += 1
            return
        admitted = asyncio.get_running_loop().create_future()
        self._waiters.append(admitted)
        try:
            await admitted  # _admit counted it in
        except asyncio.CancelledError:
            if admitted.done() and not admitted.cancelled():  # admitted, then cancelled before it ran
                self._in_use -= 1
                self._admit()
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._in_use -= 1
        self._admit()

    def _admit(self) -> None:
        capacity = self.capacity()
        while self._waiters and self._in_use < capacity:
            waiter = self._waiters.popleft()
            if not waiter.done():  # a cancelled waiter is skipped
                waiter.set_result(None)
                self._in_use += 1


class _Cluster:
    """The run's Dask client, its id and its window."""

    def __init__(self, client: Any, options: FetchOptions):
        self.client = client
        self.options = options
        self.run_id = uuid.uuid4().hex[:16]
        self.version = package_version("corpus-build")
        self.window = _Window(self.shape, options.jobs)
        # What workers need: no token (GitHub threads stay here), no cluster settings of their own.
        self.remote_options = replace(options, github_token="", cluster="", cluster_store="")

    @classmethod
    async def connect(cls, options: FetchOptions) -> _Cluster:
        distributed = _distributed()
        address = options.scheduler
        try:
            client = await distributed.Client(address, asynchronous=True, timeout=options.connect_timeout, set_as_default=False,
                                            direct_to_workers=options.cluster_direct)
        except (OSError, TimeoutError, ValueError) as exc:
            raise UsageError(
                f"cannot reach the Dask scheduler at {address} ({type(exc).__name__}: {exc}); check the address (--cluster or corpus.yaml "
                "`fetch.cluster`), that `dask scheduler` runs there and that this machine can reach its port"
            ) from None
        self = cls(client, options)
        try:
            await self._check_workers()
        except BaseException:
            await self.close()
            raise
        return self

    async def _check_workers(self) -> None:
        """Every worker connected now runs this corpus-build with the `fetch` extra (late ones are checked per source)."""
        try:
            found = await self.client.run(facts)
        except Exception as exc:  # noqa: BLE001 - a worker without corpus-build cannot even unpickle the probe
            raise UsageError(f"a worker of {self.options.scheduler} cannot run corpus-build ({type(exc).__name__}: {exc}); "
                             f"install corpus-build[fetch]=={self.version} on every worker") from None
        wrong = [f"{worker}: " + ("no " + info["missing"] if info.get("missing") else "corpus-build " + info["corpus-build"])
                 for worker, info in sorted(found.items()) if info.get("missing") or info.get("corpus-build") != self.version]
        if wrong:
            raise UsageError(f"workers of {self.options.scheduler} differ from this machine (corpus-build {self.version} with the `fetch` extra): "
                             + "; ".join(wrong) + f"; install corpus-build[fetch]=={self.version} on every worker")

    async def close(self) -> None:
        client = self.client
        if client.status == "running":
            with contextlib.suppress(Exception):  # the workers drop the run's clients themselves after a while
                await asyncio.wait_for(client.run(end_run, self.run_id), 10)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.close(), 10)
        if self.options.cluster_store:
            await asyncio.to_thread(shutil.rmtree, Path(self.options.cluster_store) / f"corpus-build-{self.run_id}", True)

    def shape(self) -> tuple[int, int, int]:
        """(worker threads, workers, sources per batch) of the cluster now, from the client's view
        of the scheduler (refreshed every `distributed.client.scheduler-info-interval`, 2 s)."""
        info = self.client.scheduler_info() or {}
        workers = int(info.get("n_workers") or len(info.get("workers") or ()) or 0)
        threads = int(info.get("total_threads") or sum(w.get("nthreads", 0) for w in (info.get("workers") or {}).values()) or 0)
        return threads, workers, max(1, min(MAX_BATCH, round(2 * threads / workers) if workers else 1))

    def went_away(self) -> str:
        return (f"the Dask scheduler at {self.options.scheduler} went away and did not come back within {self.options.connect_timeout:g} s "
                "(fetch.connect_timeout); not fetched, the previous mirror is kept; run fetch again")

    async def submit(self, batch: Batch, worker: str = "") -> BatchReply:
        """Run `batch` on a worker (on `worker` while it lives, when named); _Lost when the
        scheduler connection went, _Failed (for every source of the batch) when the cluster cannot."""
        from distributed.client import FutureCancelledError

        where = self.options.scheduler
        if self.client.status != "running":
            raise _Lost
        placed = {"workers": [worker], "allow_other_workers": True} if worker else {}
        # Named for the dashboard: a batch's first source, how many it holds, `owed` when it asks a worker for what it still owes.
        key = f"corpus-build-fetch{'-owed' if worker else ''}-{batch.jobs[0].source.id}-{len(batch.jobs)}-{uuid.uuid4().hex[:8]}"
        future = self.client.submit(fetch_batch, batch, pure=False, key=key, **placed)
        try:
            return await future
        except FutureCancelledError as exc:  # an Exception: not this run's own cancellation (Ctrl-C, SIGTERM)
            if exc.reason == "scheduler-connection-lost":
                raise _Lost from None
            raise _Failed(f"the cluster cancelled it ({exc.reason})") from None
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(future.cancel())
            raise
        except (OSError, TimeoutError) as exc:
            raise _Failed(f"the cluster at {where} could not return it ({type(exc).__name__}: {exc})") from None
        finally:
            future.release()

    async def reconnected(self) -> bool:
        while self.client.status == "connecting":  # noqa: ASYNC110 - the client's status has no event to wait on
            await asyncio.sleep(0.1)
        return self.client.status == "running"


class _Lost(Exception):
    """The scheduler connection went while a batch was out."""


class _Failed(Exception):
    """The cluster could not run a batch: the message, for each of its sources."""


@dataclass(eq=False)
class _Waiting:
    """A source handed to the batcher, until its reply is here and its files are in `stage`."""

    job: Job
    stage: Path
    done: asyncio.Future[Reply]
    writing: asyncio.Future[Any] | None = None  # the thread writing its files into `stage`


class _Batcher:
    """Sends the sources _Remote.fetch hands it to the cluster in batches, and each reply back.

    A batch goes out when it is full (the cluster's sources per batch, _Cluster.shape), at once
    while the sources out are fewer than the workers' threads (a worker would idle), and
    otherwise FLUSH_AFTER after the first source waiting. Sources a reply owes are asked for
    again with a batch placed on the worker that owes them (elsewhere, and run afresh, if it dies).
    """

    def __init__(self, cluster: _Cluster, run_io: Callable[..., Any]):
        self.cluster, self.run_io = cluster, run_io
        self.queue: list[_Waiting] = []
        self.out = 0  # sources sent and not answered
        self.drivers: set[asyncio.Task[None]] = set()
        self.timer: asyncio.TimerHandle | None = None

    def add(self, job: Job, stage: Path) -> _Waiting:
        waiting = _Waiting(job, stage, asyncio.get_running_loop().create_future())
        self.queue.append(waiting)
        self._consider()
        return waiting

    def _consider(self) -> None:
        size = self.cluster.shape()[2]
        while len(self.queue) >= size:
            self._send(self.queue[:size])
            del self.queue[:size]
        if not self.queue:
            return
        # Nothing out (the start of a run): at once. Else wait for a full batch, at most FLUSH_AFTER:
        # a batch of one costs the CPU of a Dask task (about 3 ms) for one source.
        loop = asyncio.get_running_loop()
        due = loop.time() + (FLUSH_AFTER if self.out else 0.0)
        if self.timer is not None and self.timer.when() <= due:
            return
        if self.timer is not None:
            self.timer.cancel()
        self.timer = loop.call_at(due, self._flush)

    def _flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        queue, self.queue = self.queue, []
        if not queue:
            return
        size = self.cluster.shape()[2]
        step = -(-len(queue) // -(-len(queue) // size))  # as few batches as can hold them, of even sizes
        for start in range(0, len(queue), step):
            self._send(queue[start : start + step])

    def _send(self, waiting: list[_Waiting]) -> None:
        self.out += len(waiting)
        self._drive(waiting)

    def _drive(self, waiting: list[_Waiting], worker: str = "") -> None:
        task = asyncio.get_running_loop().create_task(self._run(waiting, worker))
        self.drivers.add(task)
        task.add_done_callback(self.drivers.discard)

    async def _run(self, waiting: list[_Waiting], worker: str) -> None:
        """One batch to its end: sent (again after a scheduler reconnect), its replies delivered,
        what it owes asked for, its failures recorded per source."""
        from distributed.scheduler import KilledWorker

        cluster = self.cluster
        owed = {w.job.source.id: w for w in waiting}
        lost = 0
        while owed:
            batch = Batch(run_id=cluster.run_id, version=cluster.version, options=cluster.remote_options, jobs=tuple(w.job for w in owed.values()),
                          store=cluster.options.cluster_store, result_limit=cluster.options.cluster_result_limit)
            try:
                reply = await cluster.submit(batch, worker)
            except _Lost:
                lost += 1
                if lost > LOST_RETRIES or not await cluster.reconnected():
                    self._fail(list(owed.values()), cluster.went_away())
                    return
                continue
            except KilledWorker as exc:
                if len(owed) > 1:  # one of them may be what kills the workers: each alone, so the others pass
                    for w in owed.values():
                        self._drive([w])
                    return
                self._fail(list(owed.values()), f"the workers running it died ({exc}); the previous mirror is kept", died=True)
                return
            except _Failed as exc:
                self._fail(list(owed.values()), str(exc))
                return
            except Exception as exc:  # noqa: BLE001 - the task itself failed (a bug): reported for each of its sources
                self._fail(list(owed.values()), f"the cluster could not run it ({type(exc).__name__}: {exc}); a bug in corpus-build, please report it")
                return
            replies = [(owed.pop(source_id), one) for source_id, one in reply.replies if source_id in owed]
            asked = {source_id: owed.pop(source_id) for source_id in reply.owed if source_id in owed}
            if owed:  # neither answered nor owed: never in practice
                self._fail(list(owed.values()), f"worker {reply.worker} returned no answer for it")
            owed, worker = asked, reply.worker
            await self._deliver(replies)

    async def _deliver(self, replies: list[tuple[_Waiting, Reply]]) -> None:
        """Write the replies' files into their sources' staging folders (one thread hop), then wake each source."""
        files = [(w, r) for w, r in replies if not w.done.done() and r.failure is None and r.outcome is not None and not r.outcome.unchanged]
        problems: list[Exception | None] = []
        if files:
            store = self.cluster.options.cluster_store
            writing = self.run_io(_write_stages, [(w.stage, r) for w, r in files], store)
            for w, _ in files:
                w.writing = writing
            problems = await asyncio.shield(writing)  # cancelled here, the thread still ends before each source goes
        failed = {id(w): problem for (w, _), problem in zip(files, problems, strict=True) if problem is not None}
        for w, r in replies:
            self.out -= 1
            if not w.done.done():
                if id(w) in failed:
                    w.done.set_exception(failed[id(w)])
                else:
                    w.done.set_result(r)
        self._consider()

    def _fail(self, waiting: list[_Waiting], message: str, *, died: bool = False) -> None:
        """Each source fails with TransportError(message): recorded for it, its previous mirror kept."""
        for w in waiting:
            self.out -= 1
            if not w.done.done():
                text = message
                if died:
                    text += (f". If it happens again, fetch it here with `corpus-build fetch {w.job.source.id} --cluster local` "
                             "to see whether the source itself crashes or exhausts memory")
                w.done.set_exception(TransportError(text, url=w.job.source.url))
        self._consider()

    async def close(self) -> None:
        """Stop the batches still out (a stopped run): their Dask tasks are cancelled."""
        if self.timer is not None:
            self.timer.cancel()
        drivers = list(self.drivers)
        for task in drivers:
            task.cancel()
        await asyncio.gather(*drivers, return_exceptions=True)


def _write_stages(items: list[tuple[Path, Reply]], store: str) -> list[Exception | None]:
    """Each reply's files into its staging folder here; the problem with each, if any."""
    problems: list[Exception | None] = []
    for stage, reply in items:
        try:
            if reply.stored:
                from_store(Path(reply.stored), Path(store), stage)
            else:
                unpack(reply.staged or Staged(), stage)
            problems.append(None)
        except Exception as exc:  # noqa: BLE001 - recorded for that source, as before
            problems.append(exc)
    return problems


class _Here:
    """A kind run on this machine, `jobs` at a time (GitHub threads)."""

    def __init__(self, kind: Kind, slots: asyncio.Semaphore):
        self.kind, self.slots = kind, slots
        self.name = kind.name

    def matches(self, source: Source) -> bool:
        return self.kind.matches(source)

    async def fetch(self, ctx: Context) -> Outcome:
        async with self.slots:
            return await self.kind.fetch(ctx)


class _Remote:
    """The kind of every source sent to the cluster: the worker runs the source's real kind."""

    name = "cluster"

    def __init__(self, cluster: _Cluster, run_io: Callable[..., Any]):
        self.cluster = cluster
        self.batcher = _Batcher(cluster, run_io)

    def matches(self, source: Source) -> bool:
        return True

    async def fetch(self, ctx: Context) -> Outcome:
        waiting = self.batcher.add(Job(source=ctx.source, previous=ctx.previous, pin=ctx.pin), ctx.stage)
        try:
            reply = await waiting.done
        except asyncio.CancelledError:
            if waiting.writing is not None:  # let the thread writing into the stage end before the caller removes it
                await asyncio.wait([waiting.writing])
            raise
        ctx.log.attempts.extend(reply.attempts)
        if reply.failure is not None:
            raise rebuild(reply.failure)
        assert reply.outcome is not None
        return reply.outcome  # its files are in ctx.stage (_Batcher._deliver), unless unchanged


def _relative(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or not path.parts or any(part in ("", ".", "..") for part in path.parts):
        raise TransportError(f"a worker returned a file named {name!r}, which would leave the mirror's folder; refused")
    return path


def unpack(staged: Staged, stage: Path) -> None:
    """Write a worker's staged files into this machine's (new) staging folder."""
    stage.mkdir()
    for folder in staged.folders:
        (stage / _relative(folder)).mkdir(exist_ok=True)
    for name, mode, mtime_ns, data in staged.files:
        path = stage / _relative(name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, (mode & 0o777) | 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.utime(fd if os.utime in os.supports_fd else path, ns=(mtime_ns, mtime_ns))


def from_store(stored: Path, store: Path, stage: Path) -> None:
    """Take a staged folder a worker left in the shared store as this machine's staging folder."""
    if not stored.resolve().is_relative_to(store.resolve()):
        raise TransportError(f"a worker named {stored} as its result, which is outside fetch.cluster_store ({store}); refused")
    try:
        os.rename(stored, stage)  # the store on the corpus's file system: no copy
    except OSError:
        shutil.copytree(stored, stage, symlinks=True)
        shutil.rmtree(stored, ignore_errors=True)
    for root, dirs, names in os.walk(stage):
        for name in dirs + names:
            if stat.S_ISLNK(os.lstat(os.path.join(root, name)).st_mode):
                raise TransportError(f"the mirror a worker left in {stored} holds a symlink ({name}); refused")
