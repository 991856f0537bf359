"""Benchmark (issue 38): a mirrored corpus built, rebuilt and served, beside bare MkDocs + Material.

    python scripts/bench_mirrored.py [--sizes 1000,5000] [--default] [--rows ROWS] [--repeat N]
                                     [--work DIR] [--keep]

Corpora, generated (nothing is fetched):

    N          N sources in sections of 50, about 83% of them mirrored (5 of every 6): a third
               HTML pages (extracted text.md with headings, the archived page.html), a third
               PDFs (structure.json page by page, text.md, a stub paper.pdf), a third GitHub
               issues (thread.json, one comment per part); mirror text 2-200 KB each
               (log-uniform), a third Chinese, bilingual notes. Every mirror has provenance
               with its files' sha256, as fetch writes it.
    default    (--default) the repository's own corpus/, every source mirrored the same way
               (papers as PDFs, issues and PRs as threads, repositories as their README, the
               rest as HTML pages).

Measured in the same run, for each corpus (CPU = user + system seconds of the build process,
from wait4; peak = its maximum RSS):

    full       `corpus-build build` from nothing (no cache, no site, no generated page), then
               bare `mkdocs build` of the same generated docs/ with mkdocs.yml minus the
               `corpus` plugin (its nav written in): interleaved pairs (--repeat), the median
               pair's ratio stands for the row
    nochange   `corpus-build build` again, nothing changed
    note       one source's note edited in sources.yaml
    mirror     one mirror's text changed (a paragraph appended to text.md, its provenance updated)
    added      one mirrored source added to a section
               (each: CPU as a share of the full build, and the site files written anew: files
               whose inode the previous site did not have, of all the site's files)
    serve      `mkdocs serve` with the plugin, then bare `mkdocs serve`: the idle server's CPU
               (cores, over IDLE_SECONDS, after the first build), then two edits of one note
               (bare: of that source's page in docs/), each: seconds from the save until the
               page shows it, and the server's CPU from the save to the end of the rebuild (the
               log's "Reloading browsers"), less its idle rate over that time

Ratios only: this machine is shared and its speed drifts. Goals (issue 38): full build
<= 1.2x bare CPU and <= 1.5x its peak memory; nothing changed <= 3% of a full build; one note,
one mirror, one added source each <= 10% of a full build in CPU and in files written; an edit
shows in <= 1 s while serving, the rest of the rebuild <= 10% of a full build; an idle server
<= 0.02 core.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_build as bb

ROOT = Path(__file__).resolve().parents[1]
SECTION_SIZE = 50
IDLE_SECONDS = 20.0
EN = ["tile", "kernel", "layout", "pipeline", "tensor", "memory", "warp", "schedule", "compiler", "backend", "ascend", "cuda", "gemm", "attention", "shared", "global", "buffer", "copy", "barrier", "descriptor", "swizzle", "stage", "register", "fragment", "thread", "block", "grid", "launch", "stream", "event", "async", "the", "of", "and", "a", "to", "in", "is", "for"]
ZH = ["昇腾", "算子", "流水", "布局", "编译器", "后端", "注意力", "张量", "内存", "调度", "线程", "共享", "全局", "缓冲", "同步", "矩阵", "向量",
      "搬运", "寄存器", "指令", "的", "在", "与", "和", "是"]
KIND_OF_SHAPE = {"html": "docs", "pdf": "paper", "thread": "issue"}


# --- generating --------------------------------------------------------------------------


class Text:
    """Paragraphs of synthetic English or Chinese, drawn from a pool (fast at 20,000 sources)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.en = [" ".join(rng.choice(EN) for _ in range(rng.randint(40, 120))).capitalize() + "." for _ in range(400)]
        self.zh = ["".join(rng.choice(ZH) for _ in range(rng.randint(60, 180))) + "。" for _ in range(400)]

    def paragraphs(self, size: int, zh: bool, tag: str) -> list[str]:
        """About `size` bytes of UTF-8 in paragraphs; `tag` makes this text its own (its words are searchable)."""
        pool = self.zh if zh else self.en
        out, total, i = [], 0, 0
        while total < size:
            para = self.rng.choice(pool) + f" {tag}p{i}"
            out.append(para)
            total += len(para.encode("utf-8")) + 2
            i += 1
        return out


def text_size(rng: random.Random) -> int:
    return int(2000 * math.exp(rng.random() * math.log(100)))  # 2-200 KB, log-uniform


def _write(raw: Path, files: dict[str, str | bytes]) -> tuple:
    from corpus_build.core.provenance import OutputFile

    raw.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in files.items():
        blob = data.encode("utf-8") if isinstance(data, str) else data
        (raw / name).write_bytes(blob)
        out.append(OutputFile(name, len(blob), hashlib.sha256(blob).hexdigest()))
    return tuple(out)


def write_mirror(raw: Path, source_id: str, kind: str, url: str, shape: str, paragraphs: list[str], number: int, title: str) -> None:
    """A mirror as fetch leaves it: the files and provenance.json (files with their sha256)."""
    from corpus_build.core.provenance import Document, Provenance, RepoFacts, Status, ThreadFacts, write_provenance

    when = "2026-12-01T08:05:28Z"
    facts: dict = {}
    if shape == "html" or shape == "repo":
        parts = [f"## Part {i // 8 + 1}\n\n{p}" if i % 8 == 0 else p for i, p in enumerate(paragraphs)]
        text = "\n\n".join(parts) + "\n"
        if shape == "repo":
            files = _write(raw, {"README.md": f"# {title}\n\n" + text})
            facts = {"text_file": "README.md", "repo": RepoFacts(remote_url=url, branch="main", commit="0" * 39 + "1", commit_date=when)}
        else:
            page = "<!doctype html><html><head><title>t</title></head><body><main>" + "".join(
                f"<h2>Part {i // 8 + 1}</h2><p>{p}</p>" if i % 8 == 0 else f"<p>{p}</p>" for i, p in enumerate(paragraphs)) + "</main></body></html>"
            files = _write(raw, {"text.md": text, "page.html": page})
            facts = {"text_file": "text.md", "body_file": "page.html", "content_type": "text/html"}
    elif shape == "pdf":
        blocks, page = [], 1
        for i, p in enumerate(paragraphs):
            if i and i % 6 == 0:
                page += 1
            blocks.append({"page": page, "kind": "text", "text": p})
        structure = {"version": 1, "pages": page, "method": "font", "body_size": 10, "headings": [], "blocks": blocks}
        files = _write(raw, {"paper.pdf": b"%PDF-1.4\n% stub of a benchmark mirror\n" + b"0" * 2000 + b"\n%%EOF\n",
                             "structure.json": json.dumps(structure, ensure_ascii=False), "text.md": "\n\n".join(paragraphs)})
        facts = {"text_file": "text.md", "body_file": "paper.pdf", "content_type": "application/pdf", "document": Document(page_count=page)}
    else:  # thread
        chunks = [paragraphs[i:i + 3] for i in range(0, len(paragraphs), 3)]

        def stamp(i: int) -> str:
            return f"2026-10-{1 + (i // 24) % 28:02d}T{i % 24:02d}:00:00Z"

        thread = {
            "schema": 2,
            "issue": {"number": number, "title": title, "state": "open", "user": {"login": "octo"}, "body": "\n\n".join(chunks[0]), "created_at": stamp(0),
                      **({"pull_request": {}} if kind == "pull" else {})},
            "comments": [{"user": {"login": f"user{j % 7}"}, "body": "\n\n".join(c), "created_at": stamp(j + 1),
                          "html_url": f"{url}#issuecomment-{j + 1}"} for j, c in enumerate(chunks[1:])],
            "pull": None, "timeline": [], "unavailable": ["timeline"],
        }
        files = _write(raw, {"thread.json": json.dumps(thread, ensure_ascii=False), "text.md": "\n\n".join(paragraphs)})
        facts = {"text_file": "text.md", "body_file": "thread.json", "content_type": "application/json",
                 "thread": ThreadFacts(number=number, state="open", author="octo", created_at=stamp(0))}
    sha = next((f.sha256 for f in files if f.path == facts.get("body_file", facts["text_file"])), "")
    record = Provenance(id=source_id, kind=kind, cited_url=url, fetched_url=url, status=Status.OK, fetched_at=when, checked_at=when,
                        http_status=200, files=files, sha256=sha, bytes=sum(f.bytes for f in files), **facts)
    write_provenance(raw, record)


def generate(project: Path, n: int, seed: int = 7) -> dict:
    """The synthetic mirrored corpus of `n` sources; returns facts about it."""
    rng = random.Random(seed)
    words = Text(rng)
    corpus = project / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(f"title: Mirrored corpus of {n}\nlanguages: [zh, en]\nglossary: [昇腾, 算子]\nstale_after_days: 36500\n", encoding="utf-8")
    ids, mirrored, text_bytes = [], 0, 0
    for s in range((n + SECTION_SIZE - 1) // SECTION_SIZE):
        folder = corpus / f"{s + 1:03d}-section-{s + 1}"
        folder.mkdir()
        (folder / "section.yaml").write_text(f"title: Section {s + 1}\ntitle_zh: 第 {s + 1} 分区\nintro: Synthetic section.\n", encoding="utf-8")
        lines = []
        for i in range(s * SECTION_SIZE, min(n, (s + 1) * SECTION_SIZE)):
            lines += source_entry(i, rng)
            ids.append(f"source-{i:05d}")
        (folder / "sources.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    from corpus_build import registry

    corpus_obj = registry.load(corpus)
    for i, source in enumerate(corpus_obj.sources):
        if not is_mirrored(i):
            continue
        shape = ("html", "pdf", "thread")[i % 3]
        paragraphs = words.paragraphs(text_size(rng), i % 3 == 1, f"s{i}x")
        write_mirror(corpus_obj.raw_dir(source), source.id, source.kind, source.url, shape, paragraphs, i + 1, source.title)
        mirrored += 1
        text_bytes += sum(len(p.encode("utf-8")) + 2 for p in paragraphs)
    bb.write_chapters_digest_config(project, ids, rng)
    return {"sources": n, "mirrored": mirrored, "text_mb": text_bytes / 1e6}


def is_mirrored(i: int) -> bool:
    return i % 6 != 5


def source_entry(i: int, rng: random.Random) -> list[str]:
    source_id = f"source-{i:05d}"
    zh = i % 3 == 0
    note = ("" if zh else " ").join(rng.choice(ZH[:20] if zh else EN[:30]) for _ in range(60))
    if is_mirrored(i):
        kind = KIND_OF_SHAPE[("html", "pdf", "thread")[i % 3]]
        url = f"https://github.com/example/repo{i % 40}/issues/{i + 1}" if kind == "issue" else f"https://example.org/{kind}/{i}"
    else:
        kind, url = "article", f"https://example.org/papers/{i}"
    return [
        f"- id: {source_id}",
        f"  title: Synthetic source {i}",
        f"  url: {url}",
        f"  kind: {kind}",
        f"  lang: {'zh' if zh else 'en'}",
        f"  tags: [{rng.choice(EN[:28])}, {rng.choice(EN[:28])}]",
        f"  note: {json.dumps(note, ensure_ascii=False)}",
    ]


def generate_default(project: Path, seed: int = 5) -> dict:
    """The repository's corpus/, every source mirrored."""
    from corpus_build import registry

    rng = random.Random(seed)
    words = Text(rng)
    shutil.copytree(ROOT / "corpus", project / "corpus")
    shutil.copy(ROOT / "mkdocs.yml", project / "mkdocs.yml")
    (project / "docs").mkdir(exist_ok=True)
    config = project / "corpus" / "corpus.yaml"
    import re

    text = config.read_text(encoding="utf-8")  # mirrors dated 2026-12-01 stay fresh whenever this runs
    config.write_text(re.sub(r"^stale_after_days:.*$", "stale_after_days: 36500", text, flags=re.M) if "stale_after_days:" in text else text + "\nstale_after_days: 36500\n", encoding="utf-8")
    corpus = registry.load(project / "corpus")
    text_bytes = 0
    for i, source in enumerate(corpus.sources):
        shape = {"paper": "pdf", "issue": "thread", "pull": "thread", "repo": "repo"}.get(source.kind, "html")
        paragraphs = words.paragraphs(text_size(rng), source.lang == "zh", f"d{i}x")
        raw = corpus.raw_dir(source)
        if raw.exists():
            shutil.rmtree(raw)
        write_mirror(raw, source.id, source.kind, source.url or f"https://example.org/{source.id}", shape, paragraphs, i + 1, source.title)
        text_bytes += sum(len(p.encode("utf-8")) + 2 for p in paragraphs)
    return {"sources": len(corpus.sources), "mirrored": len(corpus.sources), "text_mb": text_bytes / 1e6}


def generate_small(project: Path) -> dict:
    """The tests' fixture corpus (tests/corpus_fixture.py): 5 sources, no mirror."""
    sys.path.insert(0, str(ROOT))
    from tests.corpus_fixture import write_project

    write_project(project)
    return {"sources": 5, "mirrored": 0, "text_mb": 0.0}


# --- edits -------------------------------------------------------------------------------


def middle_source(project: Path) -> tuple[str, Path]:
    """The id of a mirrored source in the middle of the registry, and its sources.yaml."""
    from corpus_build import registry

    corpus = registry.load(project / "corpus")
    mirrored = [s for s in corpus.sources if (corpus.raw_dir(s) / "provenance.json").is_file()] or list(corpus.sources)
    source = mirrored[len(mirrored) // 2]
    return source.id, corpus.root / source.section / "sources.yaml"


def edit_note(project: Path, marker: str) -> str:
    """Append `marker` to the middle source's note; returns the source's id."""
    import yaml

    source_id, path = middle_source(project)
    text = path.read_text(encoding="utf-8")
    at = text.index(f"- id: {source_id}\n")
    end = text.find("\n- id: ", at + 1)
    end = len(text) if end == -1 else end
    entry = yaml.safe_load(text[at:end])[0]
    note = str(entry.get("note") or "").rstrip()
    block = text[at:end]
    start = block.find("  note:")
    if start == -1:
        block = block.rstrip("\n") + f"\n  note: {json.dumps(marker)}\n"
    else:
        stop = block.find("\n  ", start + 1)
        while stop != -1 and block[stop + 3:stop + 4] == " ":  # the note's own continuation lines
            stop = block.find("\n  ", stop + 1)
        rest = block[stop:] if stop != -1 else "\n"
        block = block[:start] + f"  note: {json.dumps(note + ' ' + marker, ensure_ascii=False)}" + rest
    path.write_text(text[:at] + block + text[end:], encoding="utf-8")
    return source_id


def edit_mirror(project: Path, marker: str) -> str:
    """Append a paragraph to the middle source's mirror text (provenance updated as fetch would)."""
    import dataclasses

    from corpus_build import registry
    from corpus_build.core.provenance import OutputFile, read_provenance, write_provenance

    source_id, _ = middle_source(project)
    corpus = registry.load(project / "corpus")
    raw = corpus.raw_dir(corpus.by_id[source_id])
    record = read_provenance(raw)
    assert record is not None
    names = [record.text_file] + (["structure.json"] if (raw / "structure.json").is_file() else []) + \
        (["thread.json"] if record.body_file == "thread.json" else [])
    for name in names:
        path = raw / name
        if name == "structure.json":
            data = json.loads(path.read_text(encoding="utf-8"))
            data["blocks"].append({"page": data["pages"], "kind": "text", "text": f"Appended paragraph {marker}."})
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        elif name == "thread.json":
            data = json.loads(path.read_text(encoding="utf-8"))
            data["comments"].append({"user": {"login": "late"}, "body": f"Appended comment {marker}.", "created_at": "2026-11-30T00:00:00Z", "html_url": ""})
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        else:
            path.write_text(path.read_text(encoding="utf-8") + f"\n\nAppended paragraph {marker}.\n", encoding="utf-8")
    files = []
    for f in record.files:
        blob = (raw / f.path).read_bytes()
        files.append(OutputFile(f.path, len(blob), hashlib.sha256(blob).hexdigest()) if f.path in names else f)
    write_provenance(raw, dataclasses.replace(record, files=tuple(files)))
    return source_id


def add_source(project: Path, marker: str) -> str:
    """A new mirrored source (an HTML page) at the end of the middle source's section."""
    from corpus_build import registry

    _source_id, path = middle_source(project)
    new_id = f"added-{marker[-8:]}"
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n" + "\n".join([
        f"- id: {new_id}", f"  title: Added source {marker}", f"  url: https://example.org/added/{marker}", "  kind: docs", "  lang: en",
        "  tags: [kernel, layout]", f"  note: An added source {marker}.",
    ]) + "\n", encoding="utf-8")
    corpus = registry.load(project / "corpus")
    rng = random.Random(marker)
    write_mirror(corpus.raw_dir(corpus.by_id[new_id]), new_id, "docs", f"https://example.org/added/{marker}", "html",
                 Text(rng).paragraphs(30_000, False, marker), 99999, f"Added source {marker}")
    return new_id


def edit_bare_page(project: Path, source_id: str, marker: str) -> None:
    path = project / "docs" / "sources" / f"{source_id}.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\n{marker}\n", encoding="utf-8")


# --- measuring ---------------------------------------------------------------------------


def inodes(site: Path) -> dict[str, int]:
    found = {}
    for root, _dirs, files in os.walk(site):
        for name in files:
            path = os.path.join(root, name)
            found[os.path.relpath(path, site)] = os.lstat(path).st_ino
    return found


def rebuild(project: Path, command: list[str]) -> dict:
    """A measured build, and how many of the site's files it wrote anew (not linked from the last site)."""
    before = set(inodes(project / "site").values())
    result = bb.run_measured(command, project)
    after = inodes(project / "site")
    result["files"] = len(after)
    result["written"] = sum(1 for ino in after.values() if ino not in before)
    return result


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of a running process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _reloads(log: Path) -> int:
    """How many times the live server said it reloads the browsers: once at the end of every rebuild."""
    return log.read_text(errors="replace").count("Reloading browsers")


def serve_rows(project: Path, config: str, page_url_of, edit, timeout: float, edits: int = 2) -> dict:
    """`mkdocs serve -f config`: time to the first page, idle CPU, then `edits` edits: the seconds until the
    page shows each, and the server's CPU from the save to the end of its rebuild (its "Reloading browsers"),
    less what it burns idle over that time (a polling server scans while it builds too)."""
    port = bb.free_port()
    base = f"http://127.0.0.1:{port}/"
    log = project / "serve-logs" / f"serve-{config}.log"  # outside the project's watched files
    log.parent.mkdir(exist_ok=True)
    with open(log, "wb") as out:
        started = time.perf_counter()
        proc = subprocess.Popen([bb.bin_path("mkdocs"), "serve", "-f", config, "-a", f"127.0.0.1:{port}"], cwd=project, stdout=out, stderr=subprocess.STDOUT,
                                env={**os.environ, "CORPUS_BUILD_OFFLINE": "1"})
    found: dict = {}
    try:
        url = base + page_url_of()
        while bb._fetch(url) is None:
            if time.perf_counter() - started > timeout or proc.poll() is not None:
                raise SystemExit(f"mkdocs serve -f {config} did not serve {url}:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        found["ready"] = time.perf_counter() - started
        found["startup_cpu"] = _cpu(proc.pid)
        time.sleep(5)
        before, t0 = _cpu(proc.pid), time.perf_counter()
        time.sleep(IDLE_SECONDS)
        found["idle"] = (_cpu(proc.pid) - before) / (time.perf_counter() - t0)
        for k in range(edits):
            marker = f"servedit{time.time_ns()}"
            reloads = _reloads(log)
            cpu0 = _cpu(proc.pid)
            saved = time.perf_counter()
            edit(marker)
            shown = None
            while True:
                if shown is None:
                    page = bb._fetch(url)
                    if page is not None and marker in page:
                        shown = found[f"edit{k}"] = time.perf_counter() - saved
                if shown is not None and _reloads(log) > reloads:
                    elapsed = time.perf_counter() - saved
                    found[f"edit{k}_cpu"] = max(0.0, _cpu(proc.pid) - cpu0 - found["idle"] * elapsed)
                    found[f"edit{k}_wall"] = elapsed
                    break
                if time.perf_counter() - saved > timeout:
                    raise SystemExit(f"the edit was not built within {timeout:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.05)
            time.sleep(2)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    text = log.read_text(errors="replace")
    found["tracebacks"] = text.count("Traceback")
    found["builds"] = text.count("Building documentation") + text.count("page(s) rebuilt in")
    return found


def bench(project: Path, facts: dict, rows: set[str], repeat: int, timeout: float) -> dict:
    r: dict = {**facts}
    cb = [bb.bin_path("corpus-build"), "--project", str(project), "build"]
    bare = [bb.bin_path("mkdocs"), "build", "-q", "-f", str(project / "mkdocs.bare.yml")]
    pairs = []
    for _ in range(repeat):
        bb.from_nothing(project)
        ours = bb.run_measured(cb, project)
        bb.write_bare_config(project)
        bb.set_aside(project / "site-bare")
        pairs.append((ours, bb.run_measured(bare, project)))
    r["full"], r["bare_full"], r["pair_ratios"] = bb.median_pair(pairs)
    site = project / "site"
    r["site_files"] = sum(1 for p in site.rglob("*") if p.is_file())
    r["site_mb"] = sum(p.stat().st_size for p in site.rglob("*") if p.is_file()) / 1e6
    r["bare_site_files"] = sum(1 for p in (project / "site-bare").rglob("*") if p.is_file())
    r["bare_site_mb"] = sum(p.stat().st_size for p in (project / "site-bare").rglob("*") if p.is_file()) / 1e6
    if "nochange" in rows:
        r["nochange"] = rebuild(project, cb)
    if "note" in rows:
        edit_note(project, f"benchnote{time.time_ns()}")
        r["note"] = rebuild(project, cb)
    if "mirror" in rows and facts["mirrored"]:
        edit_mirror(project, f"benchmirror{time.time_ns()}")
        r["mirror"] = rebuild(project, cb)
    if "added" in rows:
        add_source(project, f"benchadd{time.time_ns()}")
        r["added"] = rebuild(project, cb)
    if "serve" in rows:
        source_id, _ = middle_source(project)
        r["serve"] = serve_rows(project, "mkdocs.yml", lambda: f"sources/{source_id}/", lambda marker: edit_note(project, marker), timeout)
        bb.write_bare_config(project)
        r["bare_serve"] = serve_rows(project, "mkdocs.bare.yml", lambda: f"sources/{source_id}/",
                                     lambda marker: edit_bare_page(project, source_id, marker), timeout, edits=1)
    return r


def report(r: dict) -> bool:
    name = r["name"]
    full, bare = r["full"], r["bare_full"]
    ok = True

    def row(case: str, ours: str, theirs: str, ratio: str, goal: bool | None = None) -> None:
        nonlocal ok
        mark = "" if goal is None else ("  met" if goal else "  MISSED")
        if goal is False:
            ok = False
        print(f"| {name} | {case} | {ours} | {theirs} | {ratio}{mark} |")

    cpu_ratio = full["cpu"] / bare["cpu"]
    row("full build, CPU", f"{full['cpu']:.1f} s ({full['wall']:.1f} s wall)", f"{bare['cpu']:.1f} s ({bare['wall']:.1f} s wall)", f"{cpu_ratio:.2f}x", cpu_ratio <= 1.2)
    if len(r["pair_ratios"]) > 1:
        row("full build pairs, CPU ratios", " ".join(f"{x:.2f}x" for x in r["pair_ratios"]), "", "")
    mem = full["peak_mb"] / bare["peak_mb"]
    row("full build, peak memory", f"{full['peak_mb']:.0f} MB", f"{bare['peak_mb']:.0f} MB", f"{mem:.2f}x", mem <= 1.5)
    for key, label in (("nochange", "rebuild, nothing changed"), ("note", "rebuild, one note edited"), ("mirror", "rebuild, one mirror text changed"),
                       ("added", "rebuild, one source added")):
        if key in r:
            x = r[key]
            share = x["cpu"] / full["cpu"]
            written = x["written"] / max(1, x["files"])
            limit = 0.03 if key == "nochange" else 0.10
            row(label, f"{x['cpu']:.1f} s CPU ({x['wall']:.1f} s wall), {x['written']} of {x['files']} files written", "—",
                f"{share:.3f} of full CPU, {written:.3f} of files", share <= limit and (key == "nochange" or written <= 0.10))
            if key == "nochange":  # issue 37: beside a bare `mkdocs build` of the same pages (which has no such shortcut)
                ratio = x["cpu"] / bare["cpu"]
                row("rebuild, nothing changed, beside a bare build", f"{x['cpu']:.2f} s CPU, {x['wall']:.2f} s wall", f"{bare['cpu']:.1f} s CPU, {bare['wall']:.1f} s wall",
                    f"{ratio:.3f}x CPU", ratio <= 1.3 and (r["sources"] > 5 or x["wall"] <= 3.0))
    if "serve" in r:
        s, b = r["serve"], r["bare_serve"]
        row("`mkdocs serve`: first page served", f"{s['ready']:.1f} s ({s['startup_cpu']:.1f} s CPU)", f"{b['ready']:.1f} s ({b['startup_cpu']:.1f} s CPU)", "")
        row("`mkdocs serve`: builds in all (first, each edit)", str(s["builds"]), str(b["builds"]), "", s["builds"] == 3)
        row("`mkdocs serve` idle", f"{s['idle']:.3f} core", f"{b['idle']:.3f} core", "", s["idle"] <= 0.02)
        for k in range(2):
            if f"edit{k}" in s:
                row(f"`mkdocs serve`, edit {k + 1}: page shows it", f"{s[f'edit{k}']:.2f} s", f"{b['edit0']:.2f} s" if k == 0 else "", "", s[f"edit{k}"] <= 1.0)
                share = s[f"edit{k}_cpu"] / full["cpu"]
                row(f"`mkdocs serve`, edit {k + 1}: CPU of its rebuild", f"{s[f'edit{k}_cpu']:.1f} s ({s[f'edit{k}_wall']:.1f} s wall)",
                    f"{b['edit0_cpu']:.1f} s ({b['edit0_wall']:.1f} s wall)" if k == 0 else "", f"{share:.3f} of full", share <= 0.10)
        if s["tracebacks"]:
            row("`mkdocs serve` log", f"{s['tracebacks']} traceback(s)", "", "", False)
    row("site", f"{r['site_mb']:.0f} MB, {r['site_files']} files", f"{r['bare_site_mb']:.0f} MB, {r['bare_site_files']} files", "")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000", help="numbers of sources, e.g. 1000,5000 (0 or empty: none)")
    parser.add_argument("--default", action="store_true", help="also the repository's corpus/, fully mirrored")
    parser.add_argument("--small", action="store_true", help="also the tests' 5-source corpus (issue 37: nothing changed within 3 s wall)")
    parser.add_argument("--rows", default="full,nochange,note,mirror,added,serve", help="rows beyond the full build")
    parser.add_argument("--repeat", type=int, default=1, help="pairs of full builds (ours, then bare); the median pair's ratio is the row's")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds to wait for a served page")
    parser.add_argument("--work", metavar="DIR", help="where the corpora are generated (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the generated projects")
    args = parser.parse_args()
    import compileall

    import corpus_build

    compileall.compile_dir(str(Path(corpus_build.__file__).parent), quiet=1)  # as the engine's packages are (bench_build.py)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="bench-mirrored-"))
    work.mkdir(parents=True, exist_ok=True)
    bb.TRASH = work / "trash"
    rows = set(args.rows.split(","))
    corpora: list[tuple[str, object]] = [(f"{int(n):,}", int(n)) for n in args.sizes.split(",") if n.strip() and int(n)]
    if args.default:
        corpora.append(("default", "default"))
    if args.small:
        corpora.append(("5 sources", "small"))
    results = []
    print(f"corpus-build {corpus_build.__file__}", file=sys.stderr)
    try:
        for name, what in corpora:
            project = work / f"corpus-{what}"
            if project.exists():
                shutil.rmtree(project)
            facts = generate_default(project) if what == "default" else generate_small(project) if what == "small" else generate(project, int(what))  # type: ignore[arg-type]
            print(f"generated {name}: {facts}", file=sys.stderr)
            r = bench(project, facts, rows, max(1, args.repeat), args.timeout)
            r["name"] = name
            results.append(r)
            print(f"measured {name}: {json.dumps(r)}", file=sys.stderr)
    finally:
        shutil.rmtree(work / "trash", ignore_errors=True)
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    ok = True
    print("| corpus | case | corpus-build | bare MkDocs + Material | ratio |")
    print("|---|---|---|---|---|")
    for r in results:
        ok = report(r) and ok
    for r in results:
        print(f"{r['name']}: {r['sources']} sources, {r['mirrored']} mirrored, {r['text_mb']:.1f} MB of mirror text")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
