"""Benchmark: full, no-change and one-edit builds, preview latency and site size, beside the bare engine.

    python scripts/bench_build.py [--sizes 1000,5000] [--rows full,nochange,edit,serve] [--keep]
                                  [--zensical PATH-TO-zensical]

Each corpus is generated (sections of 50 sources, bilingual notes, chapters with reading
paths, a digest), then measured in a fresh subprocess so memory and caches do not carry
over. Everything is measured in the same run and printed as ratios, because these
machines are noisy: the goals are relative, not absolute.

For every size, in the same run:

    corpus-build  `corpus-build build` (render + MkDocs with the `corpus` plugin and its
                  build cache, .corpus-build/cache/), and `mkdocs serve` with the plugin
    bare engine   plain `mkdocs build` / `mkdocs serve` of the same generated docs/ with
                  mkdocs.yml minus the `corpus` plugin (the nav it supplies written in)

    zensical      with --zensical: Zensical (which runs no MkDocs plugins) building the same
                  docs/ from mkdocs.generated.yml, with its cache cold (--clean) and warm

rows: full build (from nothing: no cache, no site, no generated page in docs/, and the
bare engine without its site; earlier outputs are moved aside and deleted only at the end,
so no build meets inodes freed moments before, see TRASH; with --repeat N, N pairs, the
pair with the median ratio shown, and the user and system time of that pair), no-change rebuild,
one-edit rebuild (one source's note changed in sources.yaml; for the bare engine,
that source's page in docs/), one-edit
preview latency (`mkdocs serve` on 127.0.0.1: save the file, poll the served page
until it shows the edit), the source pages' size and the whole site per source.
Times are wall seconds and CPU seconds (user + system of the build process); peak
memory is the build's RSS. Our package is byte-compiled first, as the engine's are.

Goals (issue 11): full build ≤ 1.1× the bare engine's CPU; one-edit rebuild ≤ 20%
of a full build; one-edit preview ≤ 2 s at 5,000 sources; ≤ 20 KB per source page;
at 20,000 sources under 1 GB peak memory; with several sizes, CPU per source of the
full build grows by at most 1.25× from the smallest size to the largest (linear).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
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
    write_chapters_digest_config(project, ids, rng)


def write_chapters_digest_config(project: Path, ids: list[str], rng: random.Random) -> None:
    """Ten reading paths of up to 8 steps, one digest and the repository's mkdocs.yml (bench_mirrored.py too)."""
    corpus = project / "corpus"
    chapters = []
    for c in range(1, 11):
        steps = rng.sample(ids, min(8, len(ids)))
        chapters.append(f"- number: {c}\n  title: Chapter {c}\n  path:\n" + "".join(f"    - source: {sid}\n      why: step\n" for sid in steps))
    (corpus / "chapters.yaml").write_text("".join(chapters), encoding="utf-8")
    (corpus / "digests").mkdir()
    (corpus / "digests" / "2026-10-22.md").write_text(f"---\ntitle: Digest\n---\n\nSee [[{ids[0]}]].\n", encoding="utf-8")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    (project / "docs").mkdir(exist_ok=True)  # the plugin brings its assets and templates


def run_measured(command: list[str], cwd: Path) -> dict:
    """Run a build command; wall and CPU seconds (user + system) and peak RSS of that process."""
    wrapper = (
        "import json, os, resource, subprocess, sys, time\n"
        "t = time.perf_counter(); r = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "w = time.perf_counter() - t; u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "sys.stderr.write(r.stderr.decode()[-3000:] if r.returncode else '')\n"
        "print(json.dumps({'rc': r.returncode, 'wall': w, 'cpu': u.ru_utime + u.ru_stime, 'user': u.ru_utime, 'peak_mb': u.ru_maxrss / 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", wrapper, *command], cwd=cwd, capture_output=True, text=True, env={**os.environ, "CORPUS_BUILD_OFFLINE": "1"})
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["rc"]:
        raise SystemExit(f"{' '.join(command)} failed ({result['rc']}):\n{out.stderr}")
    return result


def bin_path(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def write_bare_config(project: Path) -> Path:
    """mkdocs.yml without the `corpus` plugin, with the nav and site name it would supply."""
    import yaml

    from corpus_build import registry, render

    corpus = registry.load(project / "corpus")
    text = (project / "mkdocs.yml").read_text(encoding="utf-8")
    text = re.sub(r"^  - corpus\b.*\n", "", text, flags=re.M)
    # What the plugin adds to the theme, so the bare engine renders the same pages' chrome.
    from corpus_build.site.engines import OVERRIDES_DIR

    text = text.replace("theme:\n  name: material\n", f"theme:\n  name: material\n  custom_dir: {OVERRIDES_DIR}\n", 1)
    extra = {"extra_css": list(render.STYLESHEETS), "extra_javascript": list(render.SCRIPTS), "nav": render.nav(corpus)}
    text += "\n" + yaml.safe_dump(extra, allow_unicode=True, sort_keys=False)
    text = text.replace("site_dir: site", "site_dir: site-bare")
    target = project / "mkdocs.bare.yml"
    target.write_text(text, encoding="utf-8")
    return target


def edit_note(project: Path, n: int, marker: str) -> Path:
    """Change the note of the source in the middle of the corpus; returns its sources.yaml."""
    i = n // 2
    folder = project / "corpus" / f"{i // SECTION_SIZE + 1:03d}-section-{i // SECTION_SIZE + 1}"
    path = folder / "sources.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index(f"- id: source-{i:05d}\n")
    for j in range(at, len(lines)):
        if lines[j].startswith("  note: "):
            note = json.loads(lines[j][len("  note: "):])
            lines[j] = f"  note: {json.dumps(note + ' ' + marker, ensure_ascii=False)}\n"
            break
    path.write_text("".join(lines), encoding="utf-8")
    return path


def edit_page(project: Path, n: int, marker: str) -> Path:
    """The bare engine's one edit: the same source's generated page."""
    path = project / "docs" / "sources" / f"source-{n // 2:05d}.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode("utf-8", "replace")
    except OSError:
        return None


def preview_latency(project: Path, config: str, n: int, edit, timeout: float) -> float:
    """Start `mkdocs serve`, wait for the first build, save one edit, poll until the page shows it."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/sources/source-{n // 2:05d}/"
    proc = subprocess.Popen([bin_path("mkdocs"), "serve", "-f", config, "-a", f"127.0.0.1:{port}"],
                            cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "CORPUS_BUILD_OFFLINE": "1"})
    try:
        deadline = time.monotonic() + timeout
        while _fetch(url) is None:
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit(f"mkdocs serve -f {config} did not serve {url}")
            time.sleep(0.2)
        time.sleep(1.0)  # let the watcher settle after the first build
        marker = f"edited{time.time_ns()}"
        saved = time.perf_counter()
        edit(project, n, marker)
        while True:
            page = _fetch(url)
            if page is not None and marker in page:
                return time.perf_counter() - saved
            if time.perf_counter() - saved > timeout:
                raise SystemExit(f"the edit did not show on {url} within {timeout:.0f} s")
            time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def site_kb_per_source(site: Path, n: int) -> tuple[float, float]:
    """(whole site KB / sources, mean KB of a source page)."""
    files = [p for p in site.rglob("*") if p.is_file()]
    total = sum(p.stat().st_size for p in files)
    pages = [p for p in (site / "sources").glob("source-*/index.html")]
    return total / 1024 / n, sum(p.stat().st_size for p in pages) / 1024 / max(1, len(pages))


def zensical_rows(project: Path, n: int, zensical: str) -> dict:
    """Zensical on the same generated docs/: cold (its cache cleaned), warm, and after one page edit."""
    from corpus_build import registry, site

    config = site.write_generated_config(project, registry.load(project / "corpus"), site_dir="site-zensical")
    command = [zensical, "build", "-f", str(config)]
    found = {"zensical_full": run_measured([*command, "--clean"], project)}
    found["zensical_nochange"] = run_measured(command, project)
    edit_page(project, n, f"zensicaledit{time.time_ns()}")
    found["zensical_edit"] = run_measured(command, project)
    return found


# Where the measured builds' earlier outputs go instead of being deleted (emptied at the end).
# This machine's ext4 has no journal, and without one ext4 skips, when it allocates an inode,
# every inode freed in the last one to five minutes, reading each one's inode-table block to
# tell (fs/ext4/ialloc.c, recently_deleted; in `perf`, with find_get_block_common, 8% of a
# build at 1,000 sources). It charged the bench's deletions to the builds, most to the side that
# creates the most files: at 5,000 sources, built together, the two sides' system time was 10.0
# and 5.2 s while the bench deleted, 2.3 and 1.5 s once it moved. A move frees no inode.
TRASH: Path | None = None  # set by main, inside the work folder


def set_aside(path: Path) -> None:
    """Move `path` into TRASH, out of the way without deleting it."""
    assert TRASH is not None, "main() sets TRASH"
    if not path.exists():
        return
    TRASH.mkdir(parents=True, exist_ok=True)
    path.rename(TRASH / f"{len(list(TRASH.iterdir()))}-{path.name}")


def from_nothing(project: Path) -> None:
    """Our side of the project as generated: no cache, no site, an empty docs/ (render writes the assets too)."""
    for folder in (".corpus-build", "site"):
        set_aside(project / folder)
    for child in (project / "docs").iterdir():
        set_aside(child)


def median_pair(pairs: list[tuple[dict, dict]]) -> tuple[dict, dict, list[float]]:
    """The pair whose CPU ratio is the median, and every pair's ratio (sorted)."""
    ratios = sorted(((a["cpu"] / b["cpu"], i) for i, (a, b) in enumerate(pairs)))
    mine, theirs = pairs[ratios[(len(ratios) - 1) // 2][1]]
    return mine, theirs, [ratio for ratio, _ in ratios]


def together_pairs(project: Path, repeat: int) -> list[tuple[dict, dict]]:
    """Full builds with both sides running at the same time, one per core, on two copies of the project.

    Run one after the other, the two builds of a pair meet different machines: this one's
    speed drifts by a fifth within minutes. Run together, both see the same drift, so their
    CPU ratio keeps only what each does. The bare copy's docs/ is rendered first (not measured).
    """
    import concurrent.futures

    twin = project.with_name(project.name + "-bare")
    set_aside(twin)
    twin.mkdir()
    shutil.copytree(project / "corpus", twin / "corpus")
    shutil.copy(project / "mkdocs.yml", twin / "mkdocs.yml")
    (twin / "docs").mkdir(exist_ok=True)
    from_nothing(twin)
    subprocess.run([bin_path("corpus-build"), "--project", str(twin), "render"], check=True, capture_output=True, env={**os.environ, "CORPUS_BUILD_OFFLINE": "1"})
    write_bare_config(twin)
    cb = [bin_path("corpus-build"), "--project", str(project), "build"]
    bare = [bin_path("mkdocs"), "build", "-q", "-f", str(twin / "mkdocs.bare.yml")]
    pairs = []
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        for _ in range(repeat):
            from_nothing(project)
            set_aside(twin / "site-bare")
            ours, theirs = pool.submit(run_measured, cb, project), pool.submit(run_measured, bare, twin)
            pairs.append((ours.result(), theirs.result()))
    set_aside(twin)
    return pairs


def bench(project: Path, n: int, rows: set[str], timeout: float, zensical: str | None = None, repeat: int = 1, together: bool = False) -> dict:
    r: dict = {"n": n}
    cb = [bin_path("corpus-build"), "--project", str(project), "build"]
    bare = [bin_path("mkdocs"), "build", "-q", "-f", str(project / "mkdocs.bare.yml")]
    # Full builds in pairs, corpus-build then the bare engine, `repeat` times. This machine's
    # speed drifts by a fifth within minutes, so the two sides of one pair are compared, and
    # the pair whose ratio is the median stands for the row (every pair's ratio is printed).
    pairs = []
    for _ in range(repeat):
        # Each side's own earlier output is removed just before its own build: on this file
        # system creating 1,200 files cost 0.05 to 1.4 s of system time, often most right
        # after a deletion, so the bare site is not removed before our build.
        from_nothing(project)
        full = run_measured(cb, project)
        write_bare_config(project)  # after the render: docs/ holds the generated pages
        set_aside(project / "site-bare")
        pairs.append((full, run_measured(bare, project)))
    r["full"], r["bare_full"], r["pair_ratios"] = median_pair(pairs)
    if together:
        r["together"], r["bare_together"], r["together_ratios"] = median_pair(together_pairs(project, repeat))
    r["repeat"] = repeat
    r["kb"], r["page_kb"] = site_kb_per_source(project / "site", n)
    bare_cfg = project / "mkdocs.bare.yml"
    r["bare_kb"], r["bare_page_kb"] = site_kb_per_source(project / "site-bare", n)
    if "nochange" in rows:
        r["nochange"] = run_measured(cb, project)
        r["bare_nochange"] = run_measured(bare, project)
    if "edit" in rows:
        edit_note(project, n, f"benchedit{time.time_ns()}")
        r["edit"] = run_measured(cb, project)
        edit_page(project, n, f"benchedit{time.time_ns()}")
        r["bare_edit"] = run_measured(bare, project)
    if "serve" in rows:
        r["serve"] = preview_latency(project, "mkdocs.yml", n, edit_note, timeout)
        r["bare_serve"] = preview_latency(project, str(bare_cfg.name), n, edit_page, timeout)
    if zensical:
        r.update(zensical_rows(project, n, zensical))
    return r


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000", help="numbers of sources, e.g. 1000,5000 (20000 takes long)")
    parser.add_argument("--rows", default="full,nochange,edit,serve", help="which rows beyond the full build")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for a served page")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects")
    parser.add_argument("--zensical", metavar="PATH", help="a zensical executable: add its rows (it needs no MkDocs)")
    parser.add_argument("--together", action="store_true", help="also run each full-build pair at the same time, one build per core (both meet the same machine)")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of full builds (corpus-build, then the bare engine); the median pair's ratio is the row's")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = set(args.rows.split(","))
    # The engine's packages came with their bytecode (pip compiles what it installs); ours is
    # an editable install, whose bytecode Python writes on first import, unless the machine
    # says PYTHONDONTWRITEBYTECODE (this one does): then every build compiled our 17,000 lines
    # again (0.3 s). Compiled once here, both sides start from bytecode.
    import compileall

    compileall.compile_dir(str(ROOT / "src" / "corpus_build"), quiet=1)
    global TRASH
    work = Path(tempfile.mkdtemp(prefix="bench-build-"))
    TRASH = work / "trash"
    results = []
    try:
        for n in sizes:
            project = work / f"corpus-{n}"
            generate(project, n)
            results.append(bench(project, n, rows, args.timeout, args.zensical, max(1, args.repeat), args.together))
            print(f"measured {n} sources", file=sys.stderr)
    finally:
        if args.keep:
            shutil.rmtree(TRASH, ignore_errors=True)
            print(f"projects kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    ok = True
    print(f"{'sources':>7} {'row':<22} {'corpus-build':>22} {'bare engine':>22} {'ratio':>7}")
    for r in results:
        def line(label: str, mine: str, theirs: str, ratio: float | None) -> None:
            print(f"{r['n']:>7} {label:<22} {mine:>22} {theirs:>22} {'' if ratio is None else f'{ratio:.2f}x':>7}")

        def build_row(label: str, key: str) -> None:
            if key in r:
                a, b = r[key], r[f"bare_{key}"]
                line(label, f"{a['wall']:.1f} s, cpu {a['cpu']:.1f} s", f"{b['wall']:.1f} s, cpu {b['cpu']:.1f} s", a["cpu"] / b["cpu"])

        build_row("full build" if r["repeat"] == 1 else f"full build (median of {r['repeat']})", "full")
        if r["repeat"] > 1:
            print(f"{r['n']:>7} full build pairs, corpus-build / bare CPU: {' '.join(f'{x:.2f}x' for x in r['pair_ratios'])}")
        def user_and_system(label: str, key: str) -> None:  # where the difference lies: user code, or the kernel (files)
            a, b = r[key], r[f"bare_{key}"]
            print(f"{r['n']:>7} {label} (row's pair): user {a['user']:.1f} / {b['user']:.1f} s ({a['user'] / b['user']:.2f}x), "
                  f"system {a['cpu'] - a['user']:.1f} / {b['cpu'] - b['user']:.1f} s")

        user_and_system("full build", "full")
        if "together" in r:
            build_row("full build, together" if r["repeat"] == 1 else f"full, together (median {r['repeat']})", "together")
            print(f"{r['n']:>7} together pairs, corpus-build / bare CPU: {' '.join(f'{x:.2f}x' for x in r['together_ratios'])}")
            user_and_system("together", "together")
        build_row("no-change rebuild", "nochange")
        build_row("one-edit rebuild", "edit")
        if "serve" in r:
            line("one-edit preview", f"{r['serve']:.2f} s", f"{r['bare_serve']:.2f} s", r["serve"] / r["bare_serve"])
        line("source page KB", f"{r['page_kb']:.1f} KB", f"{r['bare_page_kb']:.1f} KB", r["page_kb"] / r["bare_page_kb"])
        line("whole site KB / source", f"{r['kb']:.1f} KB", f"{r['bare_kb']:.1f} KB", r["kb"] / r["bare_kb"])
        line("peak memory (full)", f"{r['full']['peak_mb']:.0f} MB", f"{r['bare_full']['peak_mb']:.0f} MB", r["full"]["peak_mb"] / r["bare_full"]["peak_mb"])
        for key, label in (("zensical_full", "zensical cold"), ("zensical_nochange", "zensical warm"), ("zensical_edit", "zensical one-edit")):
            if key in r:  # beside the bare MkDocs full build of the same pages
                z, b = r[key], r["bare_full"]
                line(label, f"{z['wall']:.1f} s, cpu {z['cpu']:.1f} s", f"{b['wall']:.1f} s, cpu {b['cpu']:.1f} s", z["cpu"] / b["cpu"])
        goals = [("full build <= 1.1x bare CPU", r["full"]["cpu"] / r["bare_full"]["cpu"] <= 1.1)]
        if "together" in r:
            goals.append(("full build <= 1.1x bare CPU, built together", r["together"]["cpu"] / r["bare_together"]["cpu"] <= 1.1))
        if "edit" in r:
            goals.append(("one-edit rebuild <= 20% of full (CPU)", r["edit"]["cpu"] / r["full"]["cpu"] <= 0.20))
            print(f"{r['n']:>7} one-edit / full build: {r['edit']['cpu'] / r['full']['cpu']:.0%} CPU, {r['edit']['wall'] / r['full']['wall']:.0%} wall")
        if "serve" in r and r["n"] >= 5000:
            goals.append(("one-edit preview <= 2 s", r["serve"] <= 2.0))
        goals.append(("<= 20 KB per source page", r["page_kb"] <= 20))
        if r["n"] >= 20000:
            goals.append(("peak memory < 1 GB", r["full"]["peak_mb"] < 1024))
        for name, met in goals:
            print(f"{r['n']:>7} goal {name}: {'met' if met else 'MISSED'}")
            ok = ok and met
    if len(results) > 1:  # growth: CPU per source of the full build, smallest size against largest
        small, large = results[0], results[-1]
        per = [x["full"]["cpu"] / x["n"] for x in (small, large)]
        bare = [x["bare_full"]["cpu"] / x["n"] for x in (small, large)]
        print(f"growth {small['n']} -> {large['n']}: full build {per[0] * 1000:.1f} -> {per[1] * 1000:.1f} ms CPU per source "
              f"({per[1] / per[0]:.2f}x; bare engine {bare[1] / bare[0]:.2f}x), peak memory "
              f"{small['full']['peak_mb']:.0f} -> {large['full']['peak_mb']:.0f} MB")
        met = per[1] / per[0] <= 1.25
        print(f"goal full build grows linearly (<= 1.25x CPU per source): {'met' if met else 'MISSED'}")
        ok = ok and met
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
