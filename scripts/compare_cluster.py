#!/usr/bin/env python3
"""Check that a corpus fetched on a 2-worker Dask LocalCluster matches a local fetch file for file.

Generates a corpus (default 4,000 HTML pages and 1,000 PDFs: 5,000 sources) on the fixture
server, fetches it twice into separate folders, once with the local engine and once with
`--cluster` on a LocalCluster of two worker processes, and compares every file under raw/ and
corpus.lock (tests/fetch/cluster_helpers.compare_mirrors: provenance timestamps and the WARC's
record ids, dates and the server's Date header aside; everything else byte for byte).

    .venv/bin/python scripts/compare_cluster.py [--pages 4000] [--pdfs 1000] [--jobs 8] [--work DIR]

Exit 0 when they match; 1 with the differences (the first 20) otherwise.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fetch.cluster_helpers import compare_locks, compare_mirrors, serve_generated, tree  # noqa: E402
from tests.fetch.conftest import write_corpus  # noqa: E402
from tests.fetch.server import FixtureServer  # noqa: E402

from corpus_build import registry  # noqa: E402
from corpus_build.fetch import FetchOptions, fetch_corpus  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=4000)
    parser.add_argument("--pdfs", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--work", type=Path, help="folder for the two corpora (default: a temporary one)")
    args = parser.parse_args()

    import distributed

    server = FixtureServer().start()
    entries = serve_generated(server, args.pages, args.pdfs)
    options = FetchOptions(jobs=args.jobs, per_host=args.jobs, recheck_after=0)
    with tempfile.TemporaryDirectory(prefix="compare-cluster-", dir=args.work) as tmp:
        local = registry.load(write_corpus(Path(tmp) / "local", entries))
        remote = registry.load(write_corpus(Path(tmp) / "cluster", entries))
        t = time.monotonic()
        results = fetch_corpus(local, options)
        local_time = time.monotonic() - t
        with distributed.LocalCluster(n_workers=2, threads_per_worker=args.jobs // 2, processes=True, host="127.0.0.1",
                                      dashboard_address=":0", silence_logs=logging.CRITICAL) as cluster:
            t = time.monotonic()
            cluster_results = fetch_corpus(remote, FetchOptions(jobs=args.jobs, per_host=args.jobs, recheck_after=0, cluster=cluster.scheduler_address))
            cluster_time = time.monotonic() - t
        server.stop()
        failed = [r for r in results + cluster_results if not r.ok]
        differences = compare_mirrors(local.root, remote.root) + compare_locks(local.root, remote.root)
        files = sum(1 for name in tree(local.root) if "/raw/" in f"/{name}")
        print(f"{len(entries)} sources ({args.pages} HTML, {args.pdfs} PDF): local fetch {local_time:.0f} s, 2-worker LocalCluster {cluster_time:.0f} s; "
              f"{len(failed)} failed; {files} files under raw/ compared, {len(differences)} differ")
        for line in differences[:20] + [f"{r.id}: {r.error}" for r in failed[:20]]:
            print("  " + line)
    return 0 if not differences and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
