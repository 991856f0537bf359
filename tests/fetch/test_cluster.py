"""`fetch --cluster`: a real Dask LocalCluster (scheduler and worker processes on 127.0.0.1) against
the fixture server. The mirrors match a local fetch's; per-host limits, conditional refresh and
--frozen hold across workers; a killed worker, a late one, a vanished scheduler and a too-large
result lose nothing already mirrored and are reported per source."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from corpus_build import registry
from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import FetchOptions, fetch_corpus

from .cluster_helpers import compare_locks, compare_mirrors, html_page, serve_generated
from .conftest import write_corpus
from .server import Reply

distributed = pytest.importorskip("distributed", reason="the `cluster` extra (Dask distributed) is not installed: pip install -e '.[test]'")
dask = pytest.importorskip("dask")

# A worker killed while holding a host's lease gives it back after this long (default 30 s).
_CONFIG = {"distributed.scheduler.locks.lease-timeout": "3s", "distributed.scheduler.locks.lease-validation-interval": "0.5s"}


def _local_cluster(workers: int, threads: int):
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=threads, processes=True, host="127.0.0.1",
                                    dashboard_address=":0", silence_logs=logging.CRITICAL)


@pytest.fixture(scope="module")
def cluster():
    with dask.config.set(_CONFIG), _local_cluster(2, 2) as running:
        yield running


def _options(cluster=None, **values) -> FetchOptions:
    base = FetchOptions(jobs=4, per_host=4, backoff=0.01, max_backoff=0.1, retries=1, total_timeout=30, read_timeout=10,
                        connect_timeout=5, extract_workers=0, recheck_after=0)
    return replace(base, cluster=cluster.scheduler_address if cluster is not None else "", **values)


def _slow_page(i: int, seconds: float):
    """A page sent in five pieces over `seconds`: the source is in flight that long."""
    body = html_page(i)
    step = -(-len(body) // 5)

    def route(request):
        return Reply(200, [body[k : k + step] for k in range(0, len(body), step)], {"Content-Type": "text/html; charset=utf-8"}, pause=seconds / 5, length=len(body))

    return route


def _leftovers(root: Path) -> list[str]:
    return [str(p) for p in root.rglob("*") if ".tmp-" in p.name or ".old-" in p.name]


def _png() -> bytes:
    import pymupdf

    return pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 4, 4), False).tobytes("png")


def test_cluster_mirrors_match_local_fetch_and_refresh_conditionally(tmp_path, server, cluster):
    entries = serve_generated(server, pages=5, pdfs=2)
    server.add("/img.png", _png(), content_type="image/png")
    server.add("/style.css", "body { color: #333; background: url(/img.png) }", content_type="text/css")
    server.add("/rich.html", "<html><head><title>Rich</title><link rel='stylesheet' href='/style.css'></head><body><article><h1>Rich</h1>"
               + "<p>A paragraph of the article with enough words to be its main text, and more words.</p>" * 5 + "<img src='/img.png' alt='figure'></article></body></html>", etag='"r"')
    entries.append({"id": "rich", "url": server.url("/rich.html"), "kind": "article"})
    local = registry.load(write_corpus(tmp_path / "local", entries))
    remote = registry.load(write_corpus(tmp_path / "remote", entries))

    assert all(r.ok for r in fetch_corpus(local, _options()))
    results = fetch_corpus(remote, _options(cluster))
    assert [r.error for r in results if r.status is not Status.OK] == []
    assert (remote.root / "01-main" / "raw" / "rich" / "styles").is_dir()  # the stylesheet and its image came back too
    assert compare_mirrors(local.root, remote.root) == []
    assert compare_locks(local.root, remote.root) == []

    # Incremental refresh across workers: conditional requests from the previous provenance, 304s, nothing rewritten.
    mark = len(server.hits)
    page = remote.root / "01-main" / "raw" / "page-0" / "page.html"
    inode = page.stat().st_ino
    assert {r.status for r in fetch_corpus(remote, _options(cluster))} == {Status.UNCHANGED}
    asked = [h for h in server.hits[mark:] if h.path.startswith(("/p/", "/pdf/", "/rich"))]
    assert len(asked) == 8 and all("if-none-match" in h.headers for h in asked)
    assert page.stat().st_ino == inode

    # --frozen: a changed page fails against corpus.lock and keeps its mirror; the others pass.
    server.add("/p/0.html", html_page(1000), etag='"p0-changed"')
    lock = (remote.root / "corpus.lock").read_text()
    results = {r.id: r for r in fetch_corpus(remote, _options(cluster, frozen=True))}
    assert results["page-0"].status is Status.FAILED and "no longer matches corpus.lock" in results["page-0"].error
    assert {r.status for i, r in results.items() if i != "page-0"} == {Status.UNCHANGED}
    assert b"Page 0<" in page.read_bytes() and (remote.root / "corpus.lock").read_text() == lock
    assert _leftovers(remote.root) == []
    with distributed.Client(cluster, set_as_default=False) as client:  # and nothing is left in the workers' staging folders
        left = client.run(lambda dask_worker: os.listdir(os.path.join(dask_worker.local_directory, "corpus-build-stages")))
    assert left and all(names == [] for names in left.values()), left


def test_repository_cloned_on_a_worker_is_a_working_clone_here(server, make_corpus, git_remote, cluster):
    from .conftest import git

    url, work = git_remote
    corpus = make_corpus([{"id": "demo", "url": url, "kind": "repo"}])
    [result] = fetch_corpus(corpus, _options(cluster))
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("demo"))
    head = git("rev-parse", "HEAD", cwd=work).strip()
    assert read_provenance(raw).repo.commit == head and (raw / "README.md").read_text().startswith("# Demo")
    # The clone came back file by file, .git and all: git reads it, and its working tree is clean.
    assert git("rev-parse", "HEAD", cwd=raw / "repo").strip() == head
    assert git("-c", "core.symlinks=false", "status", "--porcelain", cwd=raw / "repo").strip() == ""  # as cloned (symlinks as files)
    assert (raw / "repo" / "evil-link").is_file() and not (raw / "repo" / "evil-link").is_symlink()
    [again] = fetch_corpus(corpus, _options(cluster))
    assert again.status is Status.UNCHANGED  # ls-remote on the worker, against the commit in this machine's provenance


def test_a_failure_on_a_worker_is_recorded_here_as_after_a_local_fetch(tmp_path, server, cluster):
    server.add("/fine.html", html_page(3))
    entries = [{"id": "fine", "url": server.url("/fine.html"), "kind": "article"}, {"id": "gone", "url": server.url("/gone.html"), "kind": "article"}]
    remote = registry.load(write_corpus(tmp_path / "remote", entries))
    local = registry.load(write_corpus(tmp_path / "local", entries))
    results = {r.id: r for r in fetch_corpus(remote, _options(cluster))}
    expected = {r.id: r for r in fetch_corpus(local, _options())}
    assert results["fine"].status is Status.OK
    assert results["gone"].status is Status.FAILED and results["gone"].error == expected["gone"].error and "HTTP 404" in results["gone"].error
    failure = read_failure(remote.root / "01-main" / "raw" / "gone")
    assert failure is not None and [a.outcome for a in failure.attempts] == ["http-404"]  # the worker's attempt log came back
    assert compare_mirrors(local.root, remote.root) == []


def test_a_worse_capture_from_a_worker_does_not_replace_the_mirror(tmp_path, server, cluster):
    """The main process judges what a worker returns as it judges a local capture (fetch/keep.py)."""
    server.add("/w.html", html_page(5), etag='"a"')
    corpus = registry.load(write_corpus(tmp_path, [{"id": "w", "url": server.url("/w.html"), "kind": "article"}]))
    assert fetch_corpus(corpus, _options(cluster))[0].status is Status.OK
    server.add("/w.html", "<html><body><p></p></body></html>", etag='"b"')
    [result] = fetch_corpus(corpus, _options(cluster))
    raw = corpus.root / "01-main" / "raw" / "w"
    assert result.status is Status.KEPT, result.error
    assert (raw / "page.html").read_bytes() == html_page(5)
    assert (raw.parent / ".declined" / "w").is_dir()


def test_per_host_limit_holds_across_workers(tmp_path, server, cluster):
    """Two workers with two threads each would send four requests at once; per_host: 2 allows two."""
    lock, counts = threading.Lock(), {"now": 0, "peak": 0}

    def slow(request):
        with lock:
            counts["now"] += 1
            counts["peak"] = max(counts["peak"], counts["now"])
        time.sleep(0.25)
        with lock:
            counts["now"] -= 1
        return Reply(200, html_page(int(request.path.split("/")[-1])), {"Content-Type": "text/html; charset=utf-8"})

    for i in range(12):
        server.routes[f"/slow/{i}"] = slow
    corpus = registry.load(write_corpus(tmp_path, [{"id": f"s{i}", "url": server.url(f"/slow/{i}"), "kind": "article"} for i in range(12)]))
    results = fetch_corpus(corpus, _options(cluster, per_host=2, jobs=8))
    assert all(r.ok for r in results)
    assert counts["peak"] == 2  # reached (so the workers did run in parallel), never passed


def test_worker_killed_mid_fetch_loses_nothing(tmp_path, server, cluster):
    for i in range(8):
        server.routes[f"/k/{i}.html"] = _slow_page(i, 1.0)
    corpus = registry.load(write_corpus(tmp_path, [{"id": f"k{i}", "url": server.url(f"/k/{i}.html"), "kind": "article"} for i in range(8)]))
    with distributed.Client(cluster, set_as_default=False) as client:
        victim = next(iter(client.run(os.getpid).values()))
    killed = threading.Event()

    def kill_when_busy():
        deadline = time.monotonic() + 30
        while len([h for h in server.hits if h.path.startswith("/k/")]) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # mid-body: the worker holds staged bytes and a host lease
        os.kill(victim, signal.SIGKILL)
        killed.set()

    threading.Thread(target=kill_when_busy, daemon=True).start()
    results = fetch_corpus(corpus, _options(cluster))
    assert killed.is_set()
    assert [r.error for r in results if not r.ok] == []
    assert max(server.count(f"/k/{i}.html") for i in range(8)) >= 2  # a source the dead worker held ran again elsewhere
    for i in range(8):
        raw = corpus.root / "01-main" / "raw" / f"k{i}"
        record = read_provenance(raw)
        assert record is not None and record.status is Status.OK
        assert (raw / "page.html").read_bytes() == html_page(i) and f"Page {i}" in (raw / "text.md").read_text()
    assert _leftovers(corpus.root) == []
    assert set(json.loads((corpus.root / "corpus.lock").read_text())["sources"]) == {f"k{i}" for i in range(8)}


def test_worker_joining_late_takes_sources(tmp_path, server):
    for i in range(10):
        server.routes[f"/l/{i}.html"] = _slow_page(i, 0.6)
    corpus = registry.load(write_corpus(tmp_path, [{"id": f"l{i}", "url": server.url(f"/l/{i}.html"), "kind": "article"} for i in range(10)]))
    with dask.config.set(_CONFIG), _local_cluster(1, 1) as small, distributed.Client(small, set_as_default=False) as client:
        first = set(client.scheduler_info()["workers"])

        def join():
            while len(server.hits) < 1:
                time.sleep(0.05)
            small.scale(2)

        threading.Thread(target=join, daemon=True).start()
        with distributed.get_task_stream(client) as stream:
            results = fetch_corpus(corpus, _options(small))
        ran_on = {task["worker"] for task in stream.data if "corpus-build-fetch" in str(task["key"])}
    assert all(r.ok for r in results)
    assert ran_on - first, f"the late worker ran nothing: {ran_on}"


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k not in ("GITHUB_TOKEN", "HF_ENDPOINT", "GITHUB_API_URL", "CORPUS_BUILD_CLUSTER")}


def _cli(project: Path, *args: str) -> subprocess.Popen:
    # SIGINT as a terminal gives it: a suite started in the background (`pytest &` in a script) runs
    # with SIGINT ignored, which its children inherit, and the fetch then rightly ignores Ctrl-C.
    return subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(project), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_clean_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_clean_env())


def test_scheduler_going_away_keeps_what_was_mirrored(tmp_path, server):
    """A `dask scheduler` and a `dask worker` as a real cluster runs them; the scheduler is SIGKILLed mid-run."""
    entries = []
    for i in range(8):
        server.routes[f"/g/{i}.html"] = _slow_page(i, 0.05 if i < 2 else 120)  # the slow ones outlast any start-up
        entries.append({"id": f"g{i}", "url": server.url(f"/g/{i}.html"), "kind": "article"})
    corpus_dir = write_corpus(tmp_path, entries, fetch={"recheck_after": 0, "connect_timeout": 2, "jobs": 8})
    raw = corpus_dir / "01-main" / "raw"
    where = tmp_path / "scheduler.json"
    scheduler = _start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(where))
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not where.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        address = json.loads(where.read_text())["address"]
        worker = _start("distributed.cli.dask_worker", address, "--nthreads", "4", "--no-nanny", "--no-dashboard", "--death-timeout", "5", "--host", "127.0.0.1")
        process = _cli(tmp_path, "fetch", "--cluster", address, "--json")
        while not all((raw / f"g{i}" / "provenance.json").exists() for i in range(2)) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(scheduler.pid, signal.SIGKILL)
        out, err = process.communicate(timeout=90)
    finally:
        for child in (scheduler, worker):
            if child is not None:
                child.kill()
                child.wait()
    assert process.returncode == 1, err
    assert "Traceback" not in err and "Traceback" not in out
    results = {r["id"]: r for r in map(json.loads, out.splitlines())}
    assert {results[f"g{i}"]["status"] for i in range(2)} == {"ok"}
    for i in range(2, 8):
        assert results[f"g{i}"]["status"] == "failed" and "went away" in results[f"g{i}"]["error"], results[f"g{i}"]
        assert read_failure(raw / f"g{i}") is not None and not (raw / f"g{i}").exists()
    for i in range(2):
        assert (raw / f"g{i}" / "page.html").read_bytes() == html_page(i)
    assert set(json.loads((corpus_dir / "corpus.lock").read_text())["sources"]) == {"g0", "g1"}
    assert _leftovers(corpus_dir) == []


def test_result_over_the_limit_goes_through_the_store(tmp_path, server, cluster):
    server.add("/big.html", html_page(7) * 40, etag='"big"')  # ~100 KB of page, more with its text and WARC
    server.add("/small.html", html_page(8), etag='"small"')
    entries = [{"id": "big", "url": server.url("/big.html"), "kind": "article"}, {"id": "small", "url": server.url("/small.html"), "kind": "article"}]
    corpus = registry.load(write_corpus(tmp_path / "a", entries))
    results = {r.id: r for r in fetch_corpus(corpus, _options(cluster, cluster_result_limit=60_000))}
    assert results["small"].status is Status.OK
    assert results["big"].status is Status.FAILED and "fetch.cluster_store" in results["big"].error
    assert not (corpus.root / "01-main" / "raw" / "big").exists()

    store = tmp_path / "store"
    store.mkdir()
    results = {r.id: r for r in fetch_corpus(corpus, _options(cluster, cluster_result_limit=60_000, cluster_store=str(store)))}
    assert results["big"].status is Status.OK, results["big"].error
    assert (corpus.root / "01-main" / "raw" / "big" / "page.html").read_bytes() == html_page(7) * 40
    assert list(store.iterdir()) == []  # the run's folder in the store is gone
    reference = registry.load(write_corpus(tmp_path / "b", entries))
    fetch_corpus(reference, _options())
    assert [d for d in compare_mirrors(corpus.root, reference.root) if "/big/" in d] == []  # (small was fetched twice there, once here)


def test_a_batch_over_the_result_limit_comes_back_in_several_replies(tmp_path, server, cluster):
    """A reply carries at most cluster_result_limit bytes: the sources of a batch past it are owed
    by the worker and asked for again, and every mirror still comes back whole."""
    entries = []
    for k in range(6):  # pages of 30 to 50 KB staged: each fits a reply alone, no two together
        server.add(f"/m/{k}.html", html_page(7 * k, scale=8), etag=f'"m{k}"')
        entries.append({"id": f"m{k}", "url": server.url(f"/m/{k}.html"), "kind": "article"})
    local = registry.load(write_corpus(tmp_path / "local", entries))
    assert all(r.ok for r in fetch_corpus(local, _options()))
    sizes = [sum(f.stat().st_size for f in (local.root / "01-main" / "raw" / e["id"]).rglob("*") if f.is_file() and f.name != "provenance.json") for e in entries]
    limit = max(sizes) + 2000
    assert 2 * min(sizes) > limit, sizes
    remote = registry.load(write_corpus(tmp_path / "remote", entries))
    with distributed.Client(cluster, set_as_default=False) as client, distributed.get_task_stream(client) as stream:
        results = fetch_corpus(remote, _options(cluster, cluster_result_limit=limit))
    assert [r.error for r in results if r.status is not Status.OK] == []
    assert compare_mirrors(local.root, remote.root) == []
    assert any("corpus-build-fetch-owed" in str(task["key"]) for task in stream.data)  # asked for again


def test_a_source_that_kills_workers_fails_alone(tmp_path, server):
    """A batch whose worker died more often than allowed-failures is sent again one source per
    task: the source that kills workers fails with a message, its batch-mate is mirrored."""
    server.routes["/a.html"] = _slow_page(1, 0.6)
    corpus = registry.load(write_corpus(tmp_path, [{"id": "a", "url": server.url("/a.html"), "kind": "article"},
                                                    {"id": "poison", "url": server.url("/poison.html"), "kind": "article"}]))
    with dask.config.set({**_CONFIG, "distributed.scheduler.allowed-failures": 0}), _local_cluster(1, 1) as small, \
            distributed.Client(small, set_as_default=False) as client:

        def poison(request):  # the worker fetching it dies (as one exhausting its memory would)
            for pid in client.run(os.getpid).values():
                os.kill(pid, signal.SIGKILL)
            return Reply(200, html_page(2), {"Content-Type": "text/html; charset=utf-8"})

        server.routes["/poison.html"] = poison
        results = {r.id: r for r in fetch_corpus(corpus, _options(small, jobs=2))}
    assert server.count("/poison.html") >= 2 and server.count("/a.html") >= 2  # the batch of both died; each ran again alone
    assert results["a"].status is Status.OK, results["a"].error
    assert (corpus.root / "01-main" / "raw" / "a" / "page.html").read_bytes() == html_page(1)
    assert results["poison"].status is Status.FAILED
    assert "the workers running it died" in results["poison"].error and "corpus-build fetch poison --cluster local" in results["poison"].error
    assert not (corpus.root / "01-main" / "raw" / "poison").exists() and _leftovers(corpus.root) == []


def test_cluster_settings_and_unreachable_scheduler(tmp_path):
    corpus_dir = write_corpus(tmp_path, [{"id": "x", "url": "http://127.0.0.1:9/x", "kind": "article"}], fetch={"cluster": "http://nowhere"})
    process = _cli(tmp_path, "check")
    out, err = process.communicate(timeout=60)
    line = next(n for n, text in enumerate((corpus_dir / "corpus.yaml").read_text().splitlines(), 1) if text.startswith("fetch:"))
    assert process.returncode == 1 and f"corpus.yaml:{line}" in out + err and "Dask scheduler address" in out + err

    write_corpus(tmp_path, [{"id": "x", "url": "http://127.0.0.1:9/x", "kind": "article"}], fetch={"connect_timeout": 1})
    process = _cli(tmp_path, "fetch", "--cluster", "tcp://127.0.0.1:9")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and "Traceback" not in err
    assert not (corpus_dir / "01-main" / "raw" / "x").exists()


def test_where_the_cluster_address_comes_from(make_corpus):
    from corpus_build.core.errors import RegistryError, UsageError
    from corpus_build.fetch import from_corpus

    entries = [{"id": "x", "url": "http://127.0.0.1:9/x", "kind": "article"}]
    configured = make_corpus(entries, fetch={"cluster": "tcp://10.0.0.5:8786"})
    assert from_corpus(configured).with_env({"CORPUS_BUILD_CLUSTER": "tcp://10.9.9.9:8786"}).scheduler == "tcp://10.0.0.5:8786"
    assert from_corpus(configured, cluster="tcp://[::1]:8786").with_env({}).scheduler == "tcp://[::1]:8786"
    assert from_corpus(configured, cluster="local").with_env({"CORPUS_BUILD_CLUSTER": "tcp://10.9.9.9:8786"}).scheduler == ""
    plain = make_corpus(entries)
    assert from_corpus(plain).with_env({}).scheduler == ""
    assert from_corpus(plain).with_env({"CORPUS_BUILD_CLUSTER": "tls://sched.example:8786"}).scheduler == "tls://sched.example:8786"
    with pytest.raises(UsageError, match="--cluster must be a Dask scheduler address"):
        from_corpus(plain, cluster="10.0.0.5:8786")
    with pytest.raises(UsageError, match="CORPUS_BUILD_CLUSTER must be"):
        from_corpus(plain).with_env({"CORPUS_BUILD_CLUSTER": "sched:8786"})
    with pytest.raises(RegistryError, match="cluster_store` must be an absolute path"):
        make_corpus(entries, fetch={"cluster_store": "shared/stage"})


def test_interrupted_cluster_fetch_leaves_no_staging(tmp_path, server, cluster):
    for i in range(6):
        server.routes[f"/i/{i}.html"] = _slow_page(i, 4)
    corpus_dir = write_corpus(tmp_path, [{"id": f"i{i}", "url": server.url(f"/i/{i}.html"), "kind": "article"} for i in range(6)])
    process = _cli(tmp_path, "fetch", "--cluster", cluster.scheduler_address)
    deadline = time.monotonic() + 60
    while not any(h.path.startswith("/i/") for h in server.hits) and time.monotonic() < deadline:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert not any((corpus_dir / "01-main" / "raw" / f"i{i}").exists() for i in range(6))
    assert _leftovers(corpus_dir) == []
