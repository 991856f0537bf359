#!/usr/bin/env python3
"""Benchmark `corpus-build import` on large generated exports (not part of the test suite).

Writes a project and three exports into WORKDIR: a BibTeX file of N entries (titles with and
without LaTeX), a URL list of M lines with titles, and a URL list of M lines of one page
(`…/item?id=K`, no titles: every entry derives the same id). Runs `import --dry-run` of each,
and a real import of the URL list, with this checkout's package and, when --baseline names
another checkout's src/ folder, with that one, interleaved (baseline, this, baseline, this…),
and prints each one's CPU time (user + system: the machine may be shared, and wall time then
measures the neighbours) with its wall time, and the ratio of CPU times baseline / this.

    .venv/bin/python scripts/bench_import.py /tmp/bench-import [--bib 20000] [--urls 30000] [--baseline /tmp/old/src] [--rounds 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def write_project(root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    (root / "corpus" / "01-main").mkdir(parents=True)
    (root / "corpus" / "corpus.yaml").write_text("title: Bench\nlanguages: [en, zh]\n", encoding="utf-8")
    (root / "corpus" / "01-main" / "section.yaml").write_text("title: Main\n", encoding="utf-8")
    (root / "corpus" / "01-main" / "sources.yaml").write_text("[]\n", encoding="utf-8")


def write_exports(work: Path, bib: int, lines: int) -> dict[str, Path]:
    entries = []
    for i in range(bib):
        title = f"A study of tiled matrix multiply number {i} on {{GPU}}s" if i % 2 else f"Tiled matrix multiply, part {i}"
        entries.append(f"@article{{key{i},\n  title = {{{title}}},\n  author = {{Lovelace, Ada and Babbage, Charles}},\n"
                       f"  journal = {{Journal of Things}},\n  year = {{2020}},\n  doi = {{10.1234/abc.{i}}},\n  url = {{https://example.org/papers/{i}}},\n}}\n")
    files = {"bib": work / "refs.bib", "urls": work / "urls.txt", "same-page": work / "same-page.txt"}
    files["bib"].write_text("\n".join(entries), encoding="utf-8")
    files["urls"].write_text("".join(f"https://example.org/page/{i} Page number {i}\n" for i in range(lines)), encoding="utf-8")
    files["same-page"].write_text("".join(f"https://example.org/item?id={i}\n" for i in range(lines)), encoding="utf-8")
    return files


def run(src: Path, project: Path, export: Path, *, dry: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one import."""
    write_project(project)
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-m", "corpus_build", "--project", str(project), "import", str(export), "--section", "01", "-q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run([*command, *(["--dry-run"] if dry else [])], env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{src}: {' '.join(command)} exited {result.returncode}\n{result.stderr[-2000:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--bib", type=int, default=20000)
    parser.add_argument("--urls", type=int, default=30000)
    parser.add_argument("--baseline", type=Path, help="another checkout's src/ folder to compare with")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    files = write_exports(args.workdir, args.bib, args.urls)
    project = args.workdir / "project"
    cases = [("bib", True), ("urls", True), ("same-page", True), ("urls", False)]
    sources = [("this", ROOT / "src")] + ([("baseline", args.baseline)] if args.baseline else [])
    for name, dry in cases:
        times: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in sources}
        for _ in range(args.rounds):
            for label, src in reversed(sources):  # baseline first, then this checkout
                times[label].append(run(src, project, files[name], dry=dry))
        best = {label: min(t) for label, t in times.items()}
        line = f"{name:10} {'dry run' if dry else 'real':8}" + "".join(f"  {label} {cpu:7.1f} s CPU ({wall:.1f} s wall)" for label, (cpu, wall) in best.items())
        if args.baseline:
            line += f"  baseline/this {best['baseline'][0] / best['this'][0]:5.1f}x"
        print(line, flush=True)


if __name__ == "__main__":
    main()
