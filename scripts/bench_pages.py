"""Benchmark: bytes of site per page, for the default corpus and synthetic corpora of growing size.

    python scripts/bench_pages.py [--sizes 1000,5000,20000] [--build-max 5000] [--no-default] [--keep DIR] [--json]

Each corpus (the synthetic ones as scripts/bench_build.py generates them) is rendered in a
fresh subprocess; those of at most --build-max sources are also built with MkDocs. It
reports, for every whole-corpus page — home, sections index, chapters index, digests
index, tags index, the largest tag page, "All sources" page 1, status — and the mean
source page:

- the KB of its Markdown (docs/), for every corpus: rendering only, so 20,000 sources stay
  quick; the Markdown's size tracks the page's (the theme adds a fixed frame);
- the KB of its built HTML (site/), for the built corpora;
- the data file of "All sources" (sources-index.js), which grows with the corpus by
  design: it is every row, read only when the reader sorts or filters (sources.js);
- for the first built corpus, where the bytes of one source page go (theme chrome, content).

Goals (issue 11):
- at most 20 KB of built HTML per source page (the largest one);
- no whole-corpus page grows with the corpus: each page's size at the largest synthetic
  corpus (20,000 sources) within GROWTH_GOAL = 1.25x its size at the smallest (1,000).
  The pages hold a fixed number of rows (100 sources, 20 sections or digests, 200 tags,
  20 home lines), so what still grows is the width of numbers and ids ("source 19999" vs
  "source 999"): a few percent. 1.25 leaves room for that and for a registry's longer
  titles, and still fails at once for anything that adds a row per source (x20).
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
_RENDER = "import sys; from pathlib import Path; from corpus_build import registry, render; p = Path(sys.argv[1]); render.render(registry.load(p / 'corpus'), p / 'docs')"
# The whole-corpus pages: name -> docs/ path (its HTML is where MkDocs publishes it).
PAGES = {
    "home": "index.md",
    "sections": "sections/index.md",
    "chapters": "chapters/index.md",
    "digests": "digests/index.md",
    "tags": "tags.md",
    "tag (largest)": None,  # the largest of tags/<slug>.md and tags/<slug>/page/N.md
    "All sources p1": "sources/index.md",
    "status": "status.md",
}
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
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir(parents=True)
    shutil.copytree(ROOT / "corpus", project / "corpus", ignore=shutil.ignore_patterns("raw"))
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    (project / "docs").mkdir(exist_ok=True)  # the plugin brings its assets and templates
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


def html_path(md: str) -> str:
    """Where MkDocs (directory URLs) publishes a docs/ page."""
    stem = md[: -len(".md")]
    return "index.html" if stem == "index" else (stem[: -len("index")] if stem.endswith("/index") else stem + "/") + "index.html"


def _largest_tag_page(docs: Path) -> str | None:
    pages = [p for p in (docs / "tags").rglob("*.md") if p.relative_to(docs / "tags").parts[0] != "page"] if (docs / "tags").is_dir() else []
    return str(max(pages, key=lambda p: p.stat().st_size).relative_to(docs)) if pages else None


def measure(project: Path, build: bool) -> dict:
    subprocess.run([sys.executable, "-c", _BUILD if build else _RENDER, str(project)], check=True, capture_output=True, text=True)
    docs, site = project / "docs", project / "site"
    ids = sorted(p.stem for p in (docs / "sources").glob("*.md") if p.name != "index.md")
    paths = {name: path or _largest_tag_page(docs) for name, path in PAGES.items()}
    out: dict = {"sources": len(ids), "built": build, "md": {}, "html": {}}
    for name, path in paths.items():
        out["md"][name] = (docs / path).stat().st_size if path and (docs / path).is_file() else None
        if build:
            out["html"][name] = (site / html_path(path)).stat().st_size if path and (site / html_path(path)).is_file() else None
    out["md"]["source (mean)"] = statistics.mean((docs / "sources" / f"{i}.md").stat().st_size for i in ids)
    out["data"] = (docs / "sources-index.js").stat().st_size
    out["tag pages"] = len(list((docs / "tags").rglob("*.md"))) if (docs / "tags").is_dir() else 0
    if build:
        sizes = [(site / "sources" / i / "index.html").stat().st_size for i in ids]
        out["html"]["source (mean)"] = statistics.mean(sizes)
        out["source_max"] = max(sizes)
        out["breakdown"] = breakdown((site / "sources" / ids[0] / "index.html").read_text(encoding="utf-8"))
        out["site"] = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    return out


def table(rows: list[tuple[str, dict]], kind: str) -> None:
    names = [*PAGES, "source (mean)"]
    print(f"\n{'KB of ' + ('built HTML' if kind == 'html' else 'Markdown (docs/)'):<22}" + "".join(f"{name:>11}" for name, _ in rows))
    for page in names:
        cells = []
        for _, r in rows:
            value = r[kind].get(page)
            cells.append(f"{kb(value):>11.1f}" if value is not None else f"{'-':>11}")
        print(f"  {page:<20}" + "".join(cells))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--build-max", type=int, default=5000, help="build with MkDocs (HTML sizes) only corpora up to this many sources")
    parser.add_argument("--no-default", action="store_true", help="leave out the repository's own corpus (mirrors left out)")
    parser.add_argument("--keep", metavar="DIR", help="make the projects under DIR and keep them")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON too")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-pages-"))
    rows: list[tuple[str, dict]] = []
    try:
        if not args.no_default:
            rows.append(("default", measure(default_project(work), build=True)))
        for n in sizes:
            project = work / f"corpus-{n}"
            shutil.rmtree(project, ignore_errors=True)
            generate(project, n)
            rows.append((f"{n:,}", measure(project, build=n <= args.build_max)))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'corpus':<22}" + "".join(f"{name:>11}" for name, _ in rows))
    print(f"  {'sources':<20}" + "".join(f"{r['sources']:>11,}" for _, r in rows))
    print(f"  {'tag pages':<20}" + "".join(f"{r['tag pages']:>11,}" for _, r in rows))
    print(f"  {'data file KB':<20}" + "".join(f"{kb(r['data']):>11.1f}" for _, r in rows) + "   (read when the reader sorts or filters)")
    table(rows, "md")
    built = [(name, r) for name, r in rows if r["built"]]
    if built:
        table(built, "html")
        name, first = built[0]
        print(f"\nwhere the bytes of one source page go ({name}, {kb(sum(first['breakdown'].values())):.1f} KB):")
        for region, n in first["breakdown"].items():
            print(f"  {region:<26} {kb(n):>6.1f} KB")
    ok = True
    if built:
        largest = max(r["source_max"] for _, r in built)
        met = kb(largest) <= SOURCE_PAGE_GOAL_KB
        print(f"\ngoal: source page <= {SOURCE_PAGE_GOAL_KB:.0f} KB of HTML (largest, built corpora): {kb(largest):.1f} KB, {'met' if met else 'MISSED'}")
        ok = ok and met
    synthetic = [(name, r) for name, r in rows if name != "default"]
    for kind, label in (("md", "Markdown"), ("html", "built HTML")):
        measured = [(name, r) for name, r in synthetic if r[kind]]
        if len(measured) < 2:
            continue
        (small_name, small), (large_name, large) = measured[0], measured[-1]
        print(f"\ngoal: every whole-corpus page at {large_name} sources within {GROWTH_GOAL}x its size at {small_name} ({label}):")
        for page in [*PAGES, "source (mean)"]:
            a, b = small[kind].get(page), large[kind].get(page)
            if not a or b is None:
                print(f"  {page:<20} {'-':>6}   (missing)")
                ok = False
                continue
            ratio = b / a
            print(f"  {page:<20} x{ratio:>5.2f}   {'met' if ratio <= GROWTH_GOAL else 'MISSED'}")
            ok = ok and ratio <= GROWTH_GOAL
    if args.json:
        print(json.dumps(dict(rows), indent=1, default=str))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
