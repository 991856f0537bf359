"""Fetching on a Dask cluster (`fetch --cluster tcp://HOST:8786`, corpus.yaml `fetch.cluster`).

The machine that runs the command keeps the corpus and is the only one that writes it. Every
source goes through engine._fetch_one as in a local fetch (the recheck window, the lockfile,
--frozen, the 'unchanged' branch, _commit and _install, failure records); only the kind's own
work, `kind.fetch(ctx)`, is replaced by `_Remote.fetch`, which sends the source to a worker
(fetch/cluster_worker.py) and writes the staged files the worker returns into the local
staging folder, from where _commit swaps the mirror in exactly as after a local fetch.

Replies come straight from the workers (fetch.cluster_direct, default on): relayed by the
scheduler they cost it a request to the worker and a copy of every mirror (400 pages: a fetch
1.4 times as long). Where this machine cannot reach the workers' ports, cluster_direct: false.

GitHub issue and pull-request threads stay here: they are API calls against one token's quota,
with the run's ETag cache in corpus/.cache/github, and no extraction to spread.

Faults. A worker that dies mid-source: Dask runs the task again on another worker (its stage
was on the dead worker's disk; nothing here was touched); after `distributed.scheduler.
allowed-failures` deaths the source fails with a message. A worker that joins late gets queued
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
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..core.errors import TransportError, UsageError
from ..core.github_api import AsyncGitHubClient, GitHubConfig
from ..core.model import Corpus, Source
from ..core.provenance import Provenance
from . import lockfile
from .base import Context, Kind, Outcome, package_version
from .cluster_worker import Job, Reply, Staged, end_run, facts, fetch_remote, rebuild
from .http import HttpClient
from .kinds import kind_for
from .kinds.github import GitHubThreadKind
from .options import FetchOptions

if TYPE_CHECKING:
    from .engine import FetchResult, Progress

LOST_RETRIES = 2  # times a source lost with the scheduler connection is sent again after a reconnect
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
    remote = _Remote(cluster, options)
    state: dict = {}

    def run_io(fn: Callable[..., Any], *args: Any):
        return loop.run_in_executor(io_threads, fn, *args)

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
    """Sources in flight: max(jobs, 2 x the cluster's worker threads), so every worker thread has
    a next source waiting while the scheduler holds only a window of the run, not all of it.

    First come, first served, and each release admits the next waiter only: an Event all waiters
    wait on woke every one of 5,000 waiting sources at each release (a 5,000-source run took 13x
    as long as a local one). The capacity is read again at each release, so a worker that joins
    late widens the window from the next source that finishes on."""

    def __init__(self, client: Any, floor: int):
        self._client, self._floor = client, floor
        self._in_use = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    def capacity(self) -> int:
        info = self._client.scheduler_info() or {}
        threads = info.get("total_threads") or sum(w.get("nthreads", 0) for w in (info.get("workers") or {}).values())
        return max(self._floor, 2 * int(threads or 0))

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
        self.window = _Window(client, options.jobs)

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

    async def submit(self, job: Job) -> Reply:
        """Run `job` on a worker; TransportError (recorded for the source) when the cluster cannot."""
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        client = self.client
        where = self.options.scheduler
        for _try in range(1 + LOST_RETRIES):
            if client.status != "running":
                break
            future = client.submit(fetch_remote, job, pure=False, key=f"corpus-build-fetch-{job.source.id}-{uuid.uuid4().hex[:8]}")
            try:
                return await future
            except FutureCancelledError as exc:  # an Exception: not this run's own cancellation (Ctrl-C, SIGTERM)
                if exc.reason != "scheduler-connection-lost":
                    raise TransportError(f"the cluster cancelled it ({exc.reason})", url=job.source.url) from None
                await self._reconnected()  # then send it again, or give up below
            except KilledWorker as exc:
                raise TransportError(
                    f"the workers running it died ({exc}); the previous mirror is kept. If it happens again, fetch it here with "
                    f"`corpus-build fetch {job.source.id} --cluster local` to see whether the source itself crashes or exhausts memory",
                    url=job.source.url,
                ) from None
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await asyncio.shield(future.cancel())
                raise
            except (OSError, TimeoutError) as exc:
                raise TransportError(f"the cluster at {where} could not return it ({type(exc).__name__}: {exc})", url=job.source.url) from None
            finally:
                future.release()
        raise TransportError(
            f"the Dask scheduler at {where} went away and did not come back within {self.options.connect_timeout:g} s (fetch.connect_timeout); "
            "not fetched, the previous mirror is kept; run fetch again",
            url=job.source.url,
        )

    async def _reconnected(self) -> None:
        while self.client.status == "connecting":  # noqa: ASYNC110 - the client's status has no event to wait on
            await asyncio.sleep(0.1)


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

    def __init__(self, cluster: _Cluster, options: FetchOptions):
        self.cluster = cluster
        # What workers need: no token (GitHub threads stay here), no cluster settings of their own.
        self.options = replace(options, github_token="", cluster="", cluster_store="")

    def matches(self, source: Source) -> bool:
        return True

    async def fetch(self, ctx: Context) -> Outcome:
        cluster = self.cluster
        job = Job(run_id=cluster.run_id, version=cluster.version, source=ctx.source, previous=ctx.previous, pin=ctx.pin, options=self.options,
                  store=cluster.options.cluster_store, result_limit=cluster.options.cluster_result_limit)
        reply = await cluster.submit(job)
        ctx.log.attempts.extend(reply.attempts)
        if reply.failure is not None:
            raise rebuild(reply.failure)
        assert reply.outcome is not None
        if reply.outcome.unchanged:
            return reply.outcome
        if reply.stored:
            await asyncio.to_thread(from_store, Path(reply.stored), Path(cluster.options.cluster_store), ctx.stage)
        else:
            await asyncio.to_thread(unpack, reply.staged or Staged(), ctx.stage)
        return reply.outcome


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
        os.utime(path, ns=(mtime_ns, mtime_ns))


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
