#!/usr/bin/env python3
"""Benchmark `corpus-build fetch` against a local server (not part of the test suite).

Starts the test fixture server with an injected per-request latency, serving
N HTML pages and M PDFs, and prints in one run:
  - the wall time of a first `corpus-build fetch` (download + extraction + provenance),
  - a download-only baseline over the same URLs at the same concurrency (xargs -P N curl),
  - their ratio (goal: <= 1.5),
  - the time of a no-op refresh (goal: <= 10% of the first fetch), twice: within the
    `fetch.recheck_after` window (no requests at all), and with recheck_after=0, where every
    source is really revalidated (conditional requests answered 304); for the latter the
    latency floor ceil(N / jobs) * latency is printed too,
  - the peak memory (max RSS) of `corpus-build fetch` for one generated 1 GB body (goal: < 200 MB).

    .venv/bin/python scripts/bench_fetch.py [--pages 1000] [--pdfs 50] [--latency 0.05] [--jobs 16] [--big-mb 1024]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402
import yaml  # noqa: E402
from tests.fetch.server import FixtureServer, Reply  # noqa: E402

WORDS = "tile kernel memory warp pipeline ascend cube vector shared register layout schedule".split()


def html_page(i: int) -> bytes:
    paras = "".join(f"<p>{' '.join(WORDS[(i + j + k) % len(WORDS)] for k in range(60))}.</p>" for j in range(12))
    return (f"<html lang='en'><head><title>Page {i}</title></head><body><nav>menu</nav><article><h1>Page {i}</h1>{paras}"
            f"<h2>Code</h2><pre><code>for i in range({i}): pass</code></pre></article></body></html>").encode()


def pdf_bytes(i: int) -> bytes:
    doc = pymupdf.open()
    for page in range(5):
        doc.new_page().insert_text((72, 72), f"Paper {i} page {page + 1}: " + " ".join(WORDS))
    return doc.tobytes()


def write_settings(root: Path, jobs: int, **fetch: object) -> None:
    settings = {"title": "Bench", "languages": ["en"], "fetch": {"jobs": jobs, "per_host": jobs, "max_bytes": 4 * 1024**3, "max_decoded_bytes": 4 * 1024**3, **fetch}}
    (root / "corpus" / "corpus.yaml").write_text(yaml.safe_dump(settings))


def write_corpus(root: Path, urls: list[tuple[str, str, str]], jobs: int) -> None:
    corpus = root / "corpus"
    (corpus / "01-bench").mkdir(parents=True)
    write_settings(root, jobs)
    (corpus / "01-bench" / "section.yaml").write_text("title: Bench\n")
    entries = [{"id": sid, "title": sid, "url": url, "kind": kind, "lang": "en", "note": "bench"} for sid, url, kind in urls]
    (corpus / "01-bench" / "sources.yaml").write_text(yaml.safe_dump(entries))


def run_fetch(project: Path, *args: str) -> tuple[float, int, int]:
    """(seconds, exit code, peak RSS in KB of the fetch process)."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "corpus_build", "--project", str(project), "fetch", *args],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(process.pid, 0)
    return time.monotonic() - started, os.waitstatus_to_exitcode(status), usage.ru_maxrss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--pdfs", type=int, default=50)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--jobs", type=int, default=16)
    parser.add_argument("--big-mb", type=int, default=1024)
    parser.add_argument("--nagle", action="store_true", help="leave Nagle's algorithm on in the fixture server (how it ran before)")
    args = parser.parse_args()

    server = FixtureServer(latency=args.latency)
    # The fixture server writes headers and body in two send()s. With Nagle on, the body waits
    # for the client's delayed ACK (~40 ms) on every reused keep-alive connection, while curl's
    # fresh connections (quick-ACK mode) never pay it: that penalised any keep-alive client by
    # ~2 s over 1,050 requests. Production servers set TCP_NODELAY (nginx `tcp_nodelay on`).
    server.httpd.RequestHandlerClass.disable_nagle_algorithm = not args.nagle
    server.start()
    pdfs = [pdf_bytes(i) for i in range(args.pdfs)]
    for i in range(args.pages):
        server.add(f"/p/{i}.html", html_page(i), etag=f'"p{i}"')
    for i, data in enumerate(pdfs):
        server.add(f"/pdf/{i}.pdf", data, content_type="application/pdf", etag=f'"f{i}"')
    chunk = b"0123456789abcdef" * 65536  # 1 MB, generated on the fly, never stored

    def big(request):
        return Reply(200, (chunk for _ in range(args.big_mb)), {"Content-Type": "application/octet-stream"}, length=len(chunk) * args.big_mb)

    server.routes["/big.bin"] = big
    urls = [(f"page-{i}", server.url(f"/p/{i}.html"), "article") for i in range(args.pages)]
    urls += [(f"pdf-{i}", server.url(f"/pdf/{i}.pdf"), "paper") for i in range(args.pdfs)]
    with tempfile.TemporaryDirectory(prefix="bench-fetch-") as tmp:
        project = Path(tmp) / "main"
        write_corpus(project, urls, args.jobs)
        url_file = Path(tmp) / "urls.txt"
        url_file.write_text("\n".join(u for _, u, _ in urls) + "\n")

        started = time.monotonic()
        subprocess.run(f"xargs -P {args.jobs} -n 1 curl -s -o /dev/null < {url_file}", shell=True, check=True)
        baseline = time.monotonic() - started

        first, code, _ = run_fetch(project)
        refresh, code2, _ = run_fetch(project)
        hits = len(server.hits)
        write_settings(project, args.jobs, recheck_after=0)
        revalidate, code4, _ = run_fetch(project)
        revalidated = len(server.hits) - hits
        not_modified = sum(1 for r in server.hits[hits:] if "if-none-match" in r.headers)

        big_project = Path(tmp) / "big"
        write_corpus(big_project, [("big", server.url("/big.bin"), "docs")], 1)
        big_time, code3, big_rss = run_fetch(big_project)
    server.stop()

    n = len(urls)
    floor = -(-n // args.jobs) * args.latency
    rows = [
        ("sources", f"{args.pages} HTML + {args.pdfs} PDF, {args.latency * 1000:.0f} ms latency, {args.jobs} jobs", f"server TCP_NODELAY {'off (--nagle)' if args.nagle else 'on'}, {os.cpu_count()} cores"),
        ("download-only baseline (xargs -P curl)", f"{baseline:.2f} s", ""),
        ("corpus-build fetch, first run", f"{first:.2f} s (exit {code})", f"{n / first:.0f} sources/s"),
        ("ratio fetch / baseline", f"{first / baseline:.2f}x", "goal <= 1.5x " + ("OK" if first / baseline <= 1.5 else "MISSED")),
        ("no-op refresh (recheck_after window)", f"{refresh:.2f} s (exit {code2})", f"{refresh / first:.0%} of first; goal <= 10% " + ("OK" if refresh / first <= 0.10 else "MISSED")),
        ("no-op refresh, revalidating (recheck_after=0)", f"{revalidate:.2f} s (exit {code4})", f"{revalidate / first:.0%} of first; goal <= 10% " + ("OK" if revalidate / first <= 0.10 else "MISSED")),
        ("  requests / conditional", f"{revalidated} / {not_modified}", f"latency floor ceil(N/jobs)*latency = {floor:.2f} s ({floor / first:.0%} of first)"),
        (f"{args.big_mb} MB body: time", f"{big_time:.2f} s (exit {code3})", ""),
        (f"{args.big_mb} MB body: peak RSS", f"{big_rss / 1024:.0f} MB", "goal < 200 MB " + ("OK" if big_rss / 1024 < 200 else "MISSED")),
    ]
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:<32} {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
