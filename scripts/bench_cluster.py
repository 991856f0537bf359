#!/usr/bin/env python3
"""Benchmark `fetch` on a Dask cluster against the local pool, on the same work (not part of the test suite).

Serves a generated corpus from the fixture server (default 400 HTML pages and 100 five-page PDFs,
with an injected per-request latency) and fetches it, each run into a fresh corpus, in rounds
that interleave four ways:

    local-1    the local engine, one extraction process          (extract_workers: 1)
    cluster-1  a LocalCluster of one worker, `jobs` threads, one extraction process
    local-2    the local engine, two extraction processes        (extract_workers: 2)
    cluster-2  a LocalCluster of two workers, jobs/2 threads and one extraction process each

Each cluster way is compared with the local way that has as many extraction processes and as
many sources in flight (`jobs`): the overhead of the cluster path on the same work is
median(cluster-N) / median(local-N) - 1 (goal for one worker: <= 10%), and, as the machine's
load changes from round to round, the ratio of each round's pair (cluster-N against local-N of
the same round): their median and their spread (lowest and highest). The clusters are started
once and warmed with a few sources before the rounds (a cluster outlives a run; the local pool
starts with each run): their start-up time is printed apart.

    .venv/bin/python scripts/bench_cluster.py [--pages 400] [--pdfs 100] [--latency 0.02] [--jobs 8] [--rounds 3]
                                              [--workers 1 2] [--work DIR]
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fetch.cluster_helpers import serve_generated  # noqa: E402
from tests.fetch.conftest import write_corpus  # noqa: E402
from tests.fetch.server import FixtureServer  # noqa: E402

from corpus_build import registry  # noqa: E402
from corpus_build.fetch import FetchOptions, fetch_corpus  # noqa: E402


def tree_cpu() -> float:
    """CPU seconds of this process and all its descendants (the scheduler runs in this one,
    the workers and every extraction pool below it), reaped children included."""
    import psutil  # a dependency of distributed

    me = psutil.Process()
    total = 0.0
    for process in [me, *me.children(recursive=True)]:
        try:
            t = process.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=400)
    parser.add_argument("--pdfs", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.02, help="seconds the server waits before each answer")
    parser.add_argument("--jobs", type=int, default=8, help="sources in flight (local `jobs`; the cluster's worker threads in all)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--page-scale", type=int, default=1, help="paragraphs per page times this (1: pages of about 3 KB; 10: about 30 KB)")
    parser.add_argument("--pdf-pages", type=int, default=5)
    parser.add_argument("--workers", type=int, nargs="+", choices=(1, 2), default=[1, 2], help="the cluster sizes to compare (default: 1 and 2)")
    parser.add_argument("--work", type=Path, help="folder for the corpora (default: a temporary one)")
    args = parser.parse_args()

    import distributed

    server = FixtureServer(latency=args.latency).start()
    entries = serve_generated(server, args.pages, args.pdfs, pdf_pages=args.pdf_pages, scale=args.page_scale)
    base = FetchOptions(jobs=args.jobs, per_host=args.jobs, recheck_after=0)
    started = time.monotonic()
    clusters = {}
    startup = {}
    for workers in args.workers:  # Dask's defaults as shipped: nothing tuned for the benchmark
        t = time.monotonic()
        clusters[workers] = distributed.LocalCluster(n_workers=workers, threads_per_worker=args.jobs // workers, processes=True, host="127.0.0.1",
                                                     dashboard_address=":0", silence_logs=logging.CRITICAL)
        startup[workers] = time.monotonic() - t
    ways = {}
    for workers in args.workers:  # the cluster way beside the local way with as many extraction processes (one per worker)
        ways[f"local-{workers}"] = replace(base, extract_workers=workers)
        ways[f"cluster-{workers}"] = replace(base, extract_workers=1, cluster=clusters[workers].scheduler_address)
    times: dict[str, list[float]] = {name: [] for name in ways}
    cpus: dict[str, list[float]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory(prefix="bench-cluster-", dir=args.work) as tmp:
        for workers, cluster in clusters.items():  # warm: every worker imports the extractors once
            warm = registry.load(write_corpus(Path(tmp) / f"warm-{workers}", entries[: 4 * args.jobs] + entries[-2 * args.jobs :]))
            fetch_corpus(warm, replace(base, extract_workers=1, cluster=cluster.scheduler_address))
        for round_ in range(args.rounds):
            order = list(ways) if round_ % 2 == 0 else list(reversed(ways))  # interleaved, and each way first as often
            for name in order:
                corpus = registry.load(write_corpus(Path(tmp) / f"{name}-{round_}", entries))
                cpu, t = tree_cpu(), time.monotonic()
                results = fetch_corpus(corpus, ways[name])
                elapsed, cpu = time.monotonic() - t, tree_cpu() - cpu
                bad = [r for r in results if not r.ok]
                if bad:
                    print(f"{name}: {len(bad)} sources failed, e.g. {bad[0].id}: {bad[0].error}", file=sys.stderr)
                    return 1
                times[name].append(elapsed)
                cpus[name].append(cpu)
                print(f"round {round_ + 1} {name:<10} {elapsed:7.2f} s, CPU {cpu:6.1f} s", file=sys.stderr)
    for cluster in clusters.values():
        cluster.close()
    server.stop()

    n = len(entries)
    print(f"{args.pages} HTML (page scale {args.page_scale}) + {args.pdfs} PDF ({args.pdf_pages} pages) sources, {args.latency * 1000:.0f} ms latency, {args.jobs} in flight, {args.rounds} rounds interleaved; "
          "cluster start-up (not in the times): " + ", ".join(f"{w} worker{'s' if w > 1 else ''} {t:.1f} s" for w, t in startup.items()) + "; "
          f"whole benchmark {time.monotonic() - started:.0f} s")
    print("| way | wall, each round (s) | median wall (s) | sources/s | wall vs local | wall vs local, each round: median (lowest, highest) "
          "| CPU, each round (s) | CPU, median (s) | CPU vs local | CPU vs local, each round: median (lowest, highest) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, runs in times.items():
        median, cpu = statistics.median(runs), statistics.median(cpus[name])
        versus = cpu_versus = paired = cpu_paired = ""
        if name.startswith("cluster"):
            local = "local-" + name.split("-")[1]
            versus = f"{median / statistics.median(times[local]) - 1:+.1%}"
            cpu_versus = f"{cpu / statistics.median(cpus[local]) - 1:+.1%}"
            paired = _spread([c / loc - 1 for c, loc in zip(runs, times[local], strict=True)])
            cpu_paired = _spread([c / loc - 1 for c, loc in zip(cpus[name], cpus[local], strict=True)])
        print(f"| {name} | {' '.join(f'{r:.2f}' for r in runs)} | {median:.2f} | {n / median:.1f} | {versus} | {paired} "
              f"| {' '.join(f'{c:.1f}' for c in cpus[name])} | {cpu:.1f} | {cpu_versus} | {cpu_paired} |")
    print("vs local: the cluster way against the local way with as many extraction processes, as the ratio of the medians and "
          "round by round (goal for cluster-1: <= +10%)")
    return 0


def _spread(ratios: list[float]) -> str:
    return f"{statistics.median(ratios):+.1%} ({min(ratios):+.1%}, {max(ratios):+.1%})"


if __name__ == "__main__":
    sys.exit(main())
