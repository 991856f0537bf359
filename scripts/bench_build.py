"""Benchmark: render and build time, site size and pages for synthetic corpora of growing size.

    python scripts/bench_build.py [--sizes 100,1000,5000] [--keep]

Each corpus is generated (sections of 50 sources, bilingual notes, chapters with reading
paths, a digest), then measured in a fresh subprocess so memory and caches do not carry
over. Everything is measured in the same run and printed as ratios, because these
machines are noisy: the goals are relative, not absolute.

Goals: render ≤ 10% of the full build; build time and site size grow linearly
(5,000 sources ≤ 5.5× the time and size of 1,000).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECTION_SIZE = 50
WORDS_EN = "tile kernel layout pipeline tensor memory warp schedule compiler backend ascend cuda gemm attention".split()
WORDS_ZH = ["昇腾", "算子", "流水", "布局", "编译器", "后端", "注意力", "张量", "内存", "调度"]


def generate(project: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    corpus = project / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(f"title: Synthetic corpus of {n}\nlanguages: [zh, en]\nglossary: [昇腾, 算子]\n", encoding="utf-8")
    ids = []
    sections = (n + SECTION_SIZE - 1) // SECTION_SIZE
    for s in range(sections):
        folder = corpus / f"{s + 1:03d}-section-{s + 1}"
        folder.mkdir()
        (folder / "section.yaml").write_text(f"title: Section {s + 1}\ntitle_zh: 第 {s + 1} 分区\nintro: Synthetic section.\n", encoding="utf-8")
        lines = []
        for i in range(s * SECTION_SIZE, min(n, (s + 1) * SECTION_SIZE)):
            source_id = f"source-{i:05d}"
            ids.append(source_id)
            zh = i % 3 == 0
            words = WORDS_ZH if zh else WORDS_EN
            note = ("" if zh else " ").join(rng.choice(words) for _ in range(60))
            lines += [
                f"- id: {source_id}",
                f"  title: Synthetic source {i}",
                f"  url: https://example.org/papers/{i}",
                "  kind: article",
                f"  lang: {'zh' if zh else 'en'}",
                f"  tags: [{rng.choice(WORDS_EN)}, {rng.choice(WORDS_EN)}]",
                f"  note: {json.dumps(note, ensure_ascii=False)}",
            ]
        (folder / "sources.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    chapters = []
    for c in range(1, 11):
        steps = rng.sample(ids, min(8, len(ids)))
        chapters.append(f"- number: {c}\n  title: Chapter {c}\n  path:\n" + "".join(f"    - source: {sid}\n      why: step\n" for sid in steps))
    (corpus / "chapters.yaml").write_text("".join(chapters), encoding="utf-8")
    (corpus / "digests").mkdir()
    (corpus / "digests" / "2026-10-22.md").write_text(f"---\ntitle: Digest\n---\n\nSee [[{ids[0]}]].\n", encoding="utf-8")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    shutil.copytree(ROOT / "overrides", project / "overrides")
    shutil.copytree(ROOT / "docs" / "assets", project / "docs" / "assets")


_MEASURE = r"""
import json, resource, sys, time
from pathlib import Path
project = Path(sys.argv[1]); stage = sys.argv[2]
start = time.perf_counter()
if stage == "render":
    from corpus_build import registry, render
    render.render(registry.load(project / "corpus"), project / "docs")
else:
    from corpus_build import site
    site.build(project)
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(project: Path, stage: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(project), stage], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def site_stats(site: Path) -> tuple[int, int]:
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = sum(1 for p in files if p.name == "index.html")
    return pages, sum(p.stat().st_size for p in files)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="100,1000,5000")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    rows = []
    try:
        for n in sizes:
            project = work / f"corpus-{n}"
            generate(project, n)
            render = measure(project, "render")  # cold render: writes every page
            shutil.rmtree(project / "docs" / "sources")  # the build renders again, from scratch
            build = measure(project, "build")
            pages, size = site_stats(project / "site")
            rows.append({"n": n, "render": render["seconds"], "build": build["seconds"], "peak_mb": build["peak_mb"], "pages": pages, "bytes": size})
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'sources':>8} {'render s':>9} {'build s':>8} {'render/build':>13} {'peak MB':>8} {'pages':>6} {'site MB':>8}")
    for r in rows:
        print(f"{r['n']:>8} {r['render']:>9.2f} {r['build']:>8.2f} {r['render'] / r['build']:>12.1%} {r['peak_mb']:>8.0f} {r['pages']:>6} {r['bytes'] / 1e6:>8.1f}")
    by_n = {r["n"]: r for r in rows}
    ok = all(r["render"] / r["build"] <= 0.10 for r in rows)
    print(f"goal render <= 10% of build: {'met' if ok else 'MISSED'}")
    if 1000 in by_n and 5000 in by_n:
        t = by_n[5000]["build"] / by_n[1000]["build"]
        s = by_n[5000]["bytes"] / by_n[1000]["bytes"]
        print(f"5,000 vs 1,000 sources: build time x{t:.2f}, site size x{s:.2f} (goal <= 5.5: {'met' if t <= 5.5 and s <= 5.5 else 'MISSED'})")
        ok = ok and t <= 5.5 and s <= 5.5
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
