#!/usr/bin/env python3
"""Benchmark `corpus-build links` against a local server (not part of the test suite).

Serves N HTML pages (a tenth of them 404) with an injected per-request latency and
prints, in one run: the first check's wall time and requests, the latency floor of
that many requests at this concurrency (ceil(requests / jobs) * latency), a second
run within `links.recheck_after` (answered from the cache: goal 0 requests and
< 5% of the first run's time), and a `--force` run.

    .venv/bin/python scripts/bench_links.py [--pages 300] [--latency 0.02] [--jobs 8]
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fetch.server import FixtureServer  # noqa: E402

from corpus_build import registry  # noqa: E402
from corpus_build.core.linkrecords import LinkState  # noqa: E402
from corpus_build.links.check import check_links  # noqa: E402
from corpus_build.links.options import from_corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--jobs", type=int, default=8)
    args = parser.parse_args()
    server = FixtureServer(latency=args.latency).start()
    try:
        sources = []
        for i in range(args.pages):
            path = f"/p{i}"
            if i % 10:
                server.add(path, f"<html><head><title>Page {i}</title></head><body><h1>Page {i}</h1></body></html>")
            sources.append({"id": f"p{i}", "title": f"Page {i}", "url": server.url(path), "kind": "article", "lang": "en", "note": "x"})
        with tempfile.TemporaryDirectory() as tmp:
            corpus_dir = Path(tmp) / "corpus"
            (corpus_dir / "01-main").mkdir(parents=True)
            settings = {"title": "bench", "links": {"delay": 0, "jobs": args.jobs, "per_host": args.jobs}}
            (corpus_dir / "corpus.yaml").write_text(yaml.safe_dump(settings), encoding="utf-8")
            (corpus_dir / "01-main" / "section.yaml").write_text("title: Main\n", encoding="utf-8")
            (corpus_dir / "01-main" / "sources.yaml").write_text(yaml.safe_dump(sources), encoding="utf-8")
            corpus = registry.load(corpus_dir)

            def timed(**overrides):
                start = time.perf_counter()
                run = check_links(corpus, from_corpus(corpus, **overrides))
                return time.perf_counter() - start, run

            first_s, first = timed()
            floor = math.ceil(first.requests / args.jobs) * args.latency
            second_s, second = timed()
            forced_s, forced = timed(force=True)
    finally:
        server.stop()
    print(f"{args.pages} URLs, latency {args.latency * 1000:.0f} ms, jobs {args.jobs}")
    ratio = f" (ratio {first_s / floor:.2f})" if floor else ""
    print(f"first run:  {first_s:6.2f} s, {first.requests} requests, {first.count(LinkState.DEAD)} dead; latency floor {floor:.2f} s{ratio}")
    print(f"cached run: {second_s:6.2f} s, {second.requests} requests, {second.cached} from the cache ({second_s / first_s:.1%} of the first run)")
    print(f"--force:    {forced_s:6.2f} s, {forced.requests} requests")


if __name__ == "__main__":
    main()
