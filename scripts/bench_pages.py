"""Benchmark: bytes of site per page, for the default corpus and synthetic corpora of growing size.

    python scripts/bench_pages.py [--sizes 100,1000,5000] [--default] [--keep DIR]

Builds each corpus in a fresh subprocess (the synthetic ones as scripts/bench_build.py
generates them) and reports, from the built site:

- per source page (site/sources/<id>/index.html): mean and max KB, and where the
  bytes of the first one go (theme chrome: head, header with search and palette,
  sidebar navigation, table of contents, footer; our content);
- the whole-corpus pages: "All sources" (first page, largest numbered page, the data
  file its script loads) and the mirror status page; for comparison the home and tags
  pages (not yet bounded: a row per section, a link per tagged page).

Goals (issue 11): at most 20 KB of site per source page; the whole-corpus pages do
not grow with the corpus (the largest corpus's pages within 1.25x of the smallest's).
Sizes, not times: the numbers do not depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from bench_build import generate  # noqa: E402  (the same synthetic corpora as the build benchmark)

SOURCE_PAGE_GOAL_KB = 20.0
GROWTH_GOAL = 1.25
_BUILD = "import sys; from pathlib import Path; from corpus_build import site; site.build(Path(sys.argv[1]))"
# Regions of a Material page, outermost first; what is left is whitespace and glue.
_REGIONS = {
    "head": r"<head>.*?</head>",
    "header (search, palette)": r'<header class="md-header.*?</header>',
    "sidebar nav": r'<nav class="md-nav md-nav--primary".*?</nav>\s*</div>\s*</div>\s*</div>',
    "table of contents": r'<nav class="md-nav md-nav--secondary".*?</nav>',
    "content (article)": r"<article.*?</article>",
    "footer": r"<footer.*?</footer>",
}


def default_project(work: Path) -> Path:
    project = work / "default"
    project.mkdir(parents=True)
    shutil.copytree(ROOT / "corpus", project / "corpus", ignore=shutil.ignore_patterns("raw"))
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", project / "overrides")
    shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")
    return project


def kb(n: float) -> float:
    return n / 1024


def breakdown(page: str) -> dict[str, int]:
    parts = {}
    for name, pattern in _REGIONS.items():
        found = re.search(pattern, page, re.S)
        parts[name] = len(found.group(0).encode()) if found else 0
    parts["rest"] = len(page.encode()) - sum(parts.values())
    return parts


def measure(project: Path) -> dict:
    subprocess.run([sys.executable, "-c", _BUILD, str(project)], check=True, capture_output=True, text=True)
    site = project / "site"
    ids = sorted(p.stem for p in (project / "docs" / "sources").glob("*.md") if p.name != "index.md")
    sizes = [(site / "sources" / i / "index.html").stat().st_size for i in ids]
    numbered = [p.stat().st_size for p in (site / "sources" / "page").glob("*/index.html")] if (site / "sources" / "page").is_dir() else []
    data = [p.stat().st_size for p in site.glob("sources-index.js")]
    return {
        "sources": len(ids),
        "mean": statistics.mean(sizes),
        "max": max(sizes),
        "breakdown": breakdown((site / "sources" / ids[0] / "index.html").read_text(encoding="utf-8")),
        "all_sources": (site / "sources" / "index.html").stat().st_size,
        "all_sources_pages": 1 + len(numbered),
        "all_sources_page_max": max(numbered, default=0),
        "data": sum(data),
        "status": (site / "status" / "index.html").stat().st_size,
        "home": (site / "index.html").stat().st_size,
        "tags": (site / "tags" / "index.html").stat().st_size,
        "site": sum(p.stat().st_size for p in site.rglob("*") if p.is_file()),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--default", action="store_true", help="also the repository's own corpus (mirrors left out)")
    parser.add_argument("--keep", metavar="DIR", help="build the projects under DIR and keep them")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON too")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pages-"))
    rows = []
    try:
        if args.default:
            rows.append(("default", measure(default_project(work))))
        for n in sizes:
            project = work / f"corpus-{n}"
            shutil.rmtree(project, ignore_errors=True)
            generate(project, n)
            rows.append((str(n), measure(project)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'corpus':>8} {'pages':>6} {'mean KB':>8} {'max KB':>7} | {'All p1 KB':>9} {'pages':>5} {'pN KB':>6} {'data KB':>8} | {'status KB':>9} | {'home KB':>7} {'tags KB':>7} | {'site MB':>7}")
    for name, r in rows:
        print(f"{name:>8} {r['sources']:>6} {kb(r['mean']):>8.1f} {kb(r['max']):>7.1f} | {kb(r['all_sources']):>9.1f} {r['all_sources_pages']:>5} "
              f"{kb(r['all_sources_page_max']):>6.1f} {kb(r['data']):>8.1f} | {kb(r['status']):>9.1f} | {kb(r['home']):>7.1f} {kb(r['tags']):>7.1f} | {r['site'] / 1e6:>7.1f}")
    name, first = rows[0]
    print(f"\nwhere the bytes of one source page go ({name}, {kb(sum(first['breakdown'].values())):.1f} KB):")
    for region, n in first["breakdown"].items():
        print(f"  {region:<26} {kb(n):>6.1f} KB")
    ok = all(kb(r["max"]) <= SOURCE_PAGE_GOAL_KB for _, r in rows)
    print(f"\ngoal <= {SOURCE_PAGE_GOAL_KB:.0f} KB per source page (max over pages): {'met' if ok else 'MISSED'}")
    synthetic = [r for name, r in rows if name != "default"]
    if len(synthetic) >= 2:
        small, large = synthetic[0], synthetic[-1]
        for key, label in (("all_sources", "All sources, first page"), ("status", "status page"), ("mean", "source page, mean")):
            ratio = large[key] / small[key]
            print(f"{label}: {large['sources']:,} vs {small['sources']:,} sources x{ratio:.2f} (goal <= {GROWTH_GOAL}: {'met' if ratio <= GROWTH_GOAL else 'MISSED'})")
            ok = ok and ratio <= GROWTH_GOAL
    if args.json:
        print(json.dumps(dict(rows), indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
