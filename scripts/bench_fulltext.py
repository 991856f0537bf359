"""Benchmark: full-text search over mirrors (issue 24), beside today's search and beside Pagefind.

    python scripts/bench_fulltext.py [--sizes 1000,5000] [--pagefind /path/to/python-with-pagefind]
                                     [--heldout-only] [--keep DIR]

Corpora, each built with `corpus-build build` in a subprocess:

    heldout   scripts/fulltext_heldout/: 24 hand-written documents (HTML sections, PDF pages,
              thread comments; English, Simplified and Traditional Chinese) and 90 queries
              written by a helper who had not seen the search code. Never tuned on.
    N         synthetic corpora of N mirrored sources (a third each HTML, PDF, thread; a third
              of them Chinese, some Traditional), about 5 KB of text each.

Measured in the same run, for every corpus:

- quality (heldout): for each query, the rank of the first expected passage among the
  passages the search shows, in order; hit@1, hit@5, and the expected page (document)
  anywhere in the first 5 groups. Split by language and by query type. Run in Chromium,
  with the site's own worker script (corpus-fulltext.js) and the built index files.
- bytes: what a reader's browser downloads for search, in three steps: on a page view before the
  reader opens search (nothing, since issue 38: the page holds back Material's request for
  search_index.json and starts the search worker on its first message), on opening the search
  box (the worker scripts, the tiny search_index.json, the index's manifest and folding
  tables), and for the first query (term shards, entry and passage files); raw and
  gzip-compressed (as GitHub Pages serves them). Pagefind: pagefind.js, its wasm, its entry and
  the fragments of its first 10 results.
- latency: Chromium, fresh page. "ready": from the reader's press on Material's search box to
  Material saying search is ready. "query": from the key event of the query typed into the box,
  once ready, to the answer in the results' header. All timed in the page. Pagefind: from
  `pagefind.search()` to 10 results' data. "typed": the query typed a key every 120 ms, from the
  last key to the last change of the results after it (earlier keys have loaded some files).
- build share: CPU seconds of the full-text index (the build log's figure) over the
  whole build's CPU seconds (user + system).
- incremental: one mirror's text edited (a section added), the build repeated: the index's
  files that are new (a name the last build did not have: what a browser downloads again and
  a deploy uploads), of all its files.

Goals (issue 24): first query ≤ 300 KB at every size, ≤ 300 ms, index build ≤ 15% of the
build's CPU, an edit re-indexes what changed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
HELDOUT = ROOT / "scripts" / "fulltext_heldout"

EN = ["tile", "kernel", "layout", "pipeline", "tensor", "memory", "warp", "schedule", "compiler", "backend", "ascend", "cuda", "gemm", "attention", "shared", "global", "buffer", "copy", "barrier", "descriptor", "swizzle", "stage", "register", "fragment", "thread", "block", "grid", "launch", "stream", "event", "async"]
ZH = ["昇腾", "算子", "流水", "布局", "编译器", "后端", "注意力", "张量", "内存", "调度", "线程", "共享", "全局", "缓冲", "同步",
      "矩阵", "向量", "搬运", "寄存器", "指令"]


# --- corpora ---------------------------------------------------------------------------------------


def heldout_documents() -> list[dict]:
    return yaml.safe_load((HELDOUT / "documents.yaml").read_text(encoding="utf-8"))["documents"]


def heldout_queries() -> list[dict]:
    return yaml.safe_load((HELDOUT / "queries.yaml").read_text(encoding="utf-8"))["queries"]


def synthetic_documents(n: int, seed: int = 11) -> list[dict]:
    import opencc

    to_tw = opencc.OpenCC("s2twp").convert
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        kind = ("html", "pdf", "thread")[i % 3]
        zh = i % 3 == 1
        passages = []
        for p in range(6):
            if zh:
                text = "".join(rng.choice(ZH) + rng.choice(["，", "的", "与", "在", ""]) for _ in range(150)) + "。"
                if i % 6 == 1:
                    text = to_tw(text)
            else:
                text = " ".join(rng.choice(EN) for _ in range(130)) + f" item{i}x{p}."
            passage = {"text": text}
            if kind == "html":
                passage["heading"] = f"Part {p + 1} {rng.choice(EN)}"
            passages.append(passage)
        docs.append({"id": f"doc-{i:05d}", "kind": kind, "lang": "zh-Hans" if zh else "en", "title": f"Synthetic {i}", "passages": passages})
    return docs


def write(project: Path, documents: list[dict]) -> None:
    from tests.fulltext_fixture import write_fulltext_project

    write_fulltext_project(project, documents)


def build(project: Path) -> dict:
    """`corpus-build build` in a subprocess: its CPU seconds and the index's own, from the log."""
    wrapper = (
        "import json, resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(json.dumps({'rc': r.returncode, 'cpu': u.ru_utime + u.ru_stime, 'log': r.stdout + r.stderr}))\n"
    )
    command = [str(Path(sys.executable).with_name("corpus-build")), "--project", str(project), "build", "--verbose"]
    out = subprocess.run([sys.executable, "-c", wrapper, *command], capture_output=True, text=True, env={**os.environ, "CORPUS_BUILD_OFFLINE": "1"})
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["rc"]:
        raise SystemExit(f"build failed:\n{result['log'][-3000:]}")
    found = re.search(r"full text of (\d+) mirror page\(s\): (\d+) passages, (\d+) terms, (\d+) bytes in (\d+) file\(s\), (\d+) new since the last build \(\d+ page\(s\) [^)]*\) in ([\d.]+) s", result["log"])
    if not found:
        raise SystemExit(f"the build log has no full-text line:\n{result['log'][-2000:]}")
    pages, passages, terms, size, files, new, seconds = found.groups()
    return {"cpu": result["cpu"], "index_cpu": float(seconds), "pages": int(pages), "passages": int(passages), "terms": int(terms),
            "bytes": int(size), "files": int(files), "new": int(new)}


# --- the browser ------------------------------------------------------------------------------------

# Runs corpus-fulltext.js in the page itself, against the built index (it fetches the index files over http;
# importScripts, for the worker script itself, is a synchronous XHR here).
HARNESS = """
async ([script, worker]) => {
  self.importScripts = function () {
    for (const url of arguments) {
      const x = new XMLHttpRequest(); x.open("GET", url, false); x.send();
      if (x.status !== 200) throw new Error("cannot load " + url);
      (0, eval)(x.responseText);
    }
  };
  self.importScripts(script);
  self.cbFulltext.init(worker);
}
"""


def quality(site: Path, queries: list[dict], docs: list[dict], engine: str = "ours") -> list[dict]:
    """Each query's rank of its first expected passage (and whether its page is in the first 5), with our
    worker script or with Pagefind's API, in Chromium."""
    from playwright import sync_api
    from tests.site_helpers import chromium, serve

    by_doc = {d["id"]: d for d in docs}
    out = []
    with serve(site) as url, chromium(sync_api) as browser:
        page = browser.new_page()
        page.goto(url)
        if engine == "ours":
            worker = url + "assets/javascripts/workers/corpus-search.js"
            page.evaluate(HARNESS, [url + "assets/javascripts/workers/corpus-fulltext.js", worker])
        for q in queries:
            if engine == "ours":
                items = page.evaluate("async q => (await self.cbFulltext.answer(q, {items: []})).items", q["q"])
                # The mirrors' passages, in order (the site's own entries, a source's annotation or a page's
                # headings, are results of their own, before and after them: not passages).
                groups = [group for group in items if _place(group[0]["location"] + "#")[0]]
                shown = [item["location"] for group in groups for item in group[1:]]
                pages = [group[0]["location"] for group in groups[:5]]
            else:
                result = page.evaluate(PAGEFIND_QUERY, q["q"])
                shown = [sub.lstrip("/") for _page, subs in result["urls"] for sub in subs]
                pages = [p.lstrip("/") for p, _subs in result["urls"][:5]]
            expected = {(e["doc"], _anchor(by_doc[e["doc"]], e["passage"])) for e in q["expect"]}
            rank = next((i + 1 for i, loc in enumerate(shown) if _place(loc) in expected), None)
            found = [_place(p + "#")[0] for p in pages]
            out.append({**q, "rank": rank, "page_hit": any(e["doc"] in found for e in q["expect"])})
    return out


def _anchor(doc: dict, passage: int) -> str:
    if doc["kind"] == "pdf":
        return f"page-{passage}"
    if doc["kind"] == "thread":
        return f"event-{passage}"
    from corpus_build.core.mdtext import text_sections

    text = "".join(f"## {p['heading']}\n\n{p['text']}\n\n" for p in doc["passages"])
    return [a for a, _h in text_sections(text)][passage - 1]


def _place(location: str) -> tuple[str, str]:
    match = re.match(r"sources/([^/]+)/text/#?(.*)$", location)
    return (match.group(1), match.group(2)) if match else ("", "")


def bytes_and_latency(site: Path, queries: list[str], *, today: bool = False) -> dict:
    """Fresh page per query: the search bytes a page view downloads before the reader opens search,
    then on opening it (until search says it is ready), then for the first query; the time from
    opening to ready, and from the query's key to its answer.

    today: the same site with the full-text files refused (the worker then answers without
    them): the baseline of the time, as before the full-text index."""
    from playwright import sync_api
    from tests.site_helpers import chromium, serve

    rows = []
    with serve(site) as url, chromium(sync_api) as browser:
        for query in queries:
            context, page, got = _recording_page(browser)
            if today:
                context.route("**/search/fulltext/**", lambda route: route.abort())
            page.goto(url)
            page.wait_for_timeout(1500)  # whatever the page view loads by itself
            viewed = len(got)
            box = page.locator("input.md-search__input")
            page.evaluate(OPEN_CLOCK)
            box.click()
            # Material says it is initialising until its worker answers the index (READY).
            page.wait_for_function("() => window.__ready !== undefined", timeout=120_000)
            ready = page.evaluate("() => window.__ready - window.__opened")
            page.wait_for_timeout(300)
            opened = len(got)
            page.evaluate(CLOCK)
            box.fill(query)
            box.press("End")  # a key event, as typing gives: Material searches on keyup
            try:
                page.wait_for_function("() => window.__answered !== undefined", timeout=20_000)
            except sync_api.TimeoutError:
                print(f"  (no answer to {query!r} in 20 s: not timed)")
                context.close()
                continue
            elapsed = page.evaluate("() => (window.__answered - window.__typed) / 1000")
            time.sleep(0.3)
            view = [g for g in got[:viewed] if _search_file(g[0])]
            opening = [g for g in got[viewed:opened] if _search_file(g[0])]
            first = [g for g in got[opened:] if _search_file(g[0])]
            if not first and not today:
                print(f"  (the query {query!r} loaded no search file: not counted)")
                context.close()
                continue
            rows.append({"ms": elapsed * 1000, "ready_ms": ready, "view_raw": sum(g[1] for g in view), "view_gz": sum(g[2] for g in view),
                         "open_raw": sum(g[1] for g in opening), "open_gz": sum(g[2] for g in opening),
                         "query_raw": sum(g[1] for g in first), "query_gz": sum(g[2] for g in first), "files": len(first)})
            context.close()
    return _median(rows)


# Both ends timed in the page: from the reader's press on the search box (not from when the driver
# starts its click, whose checks for a stable, visible target take 50-60 ms here) to the first
# change that makes Material's header say search is ready (not when the driver's polling sees it).
OPEN_CLOCK = """() => {
  document.addEventListener('pointerdown', () => { if (window.__opened === undefined) window.__opened = performance.now(); }, true);
  new MutationObserver(() => {
    if (window.__ready === undefined && window.__opened !== undefined && (%s)()) window.__ready = performance.now();
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


# Material's search is ready when its header stops saying it is initialising (zh or en page).
READY = """() => { const m = document.querySelector('.md-search-result__meta');
  return !!m && m.textContent.trim() !== '' && !/初始化|Initializing/i.test(m.textContent); }"""
OPEN_CLOCK %= READY


# Timed in the page, not by the driver: from the first input or key event to the answer in the results' header
# (Material rewrites it once per answer, results or "nothing found").
CLOCK = """() => {
  const meta = document.querySelector('.md-search-result__meta');
  const waiting = meta.textContent;
  window.__typed = undefined; window.__answered = undefined;
  const typed = () => { if (window.__typed === undefined) window.__typed = performance.now(); };
  document.addEventListener('input', typed, true);
  document.addEventListener('keyup', typed, true);
  new MutationObserver((_, observer) => {
    if (window.__typed !== undefined && meta.textContent !== waiting) { window.__answered = performance.now(); observer.disconnect(); }
  }).observe(meta, {childList: true, characterData: true, subtree: true});
}"""


def _recording_page(browser):
    """A page in a fresh context (no cache) and the list of (url, bytes, gzip bytes) it receives."""
    context = browser.new_context()
    page = context.new_page()
    got: list[tuple[str, int, int]] = []
    page.on("response", lambda r: got.append(_sized(r)))
    return context, page, got


def _search_file(url: str) -> bool:
    return any(part in url for part in ("search_index.json", "/workers/", "/lunr/", "/search/lunr_index.", "/search/fulltext/"))


def _sized(response) -> tuple[str, int, int]:
    try:
        body = response.body()
    except Exception:  # a redirect or an aborted request has no body
        body = b""
    return response.url, len(body), len(gzip.compress(body, 6))


# As a reader types: every answer's arrival in the results list, and every key's time.
TYPING_CLOCK = """() => {
  window.__keys = []; window.__answers = [];
  document.addEventListener('keyup', () => window.__keys.push(performance.now()), true);
  new MutationObserver(() => window.__answers.push(performance.now()))
    .observe(document.querySelector('.md-search-result'), {childList: true, subtree: true, characterData: true});
}"""


def typed_latency(site: Path, queries: list[str], delay_ms: int = 120) -> dict:
    """The query typed key by key (Material searches on every key), fresh page each: from the last
    key to the last change of the results that follows it, once nothing has changed for 1.5 s.
    Earlier keys' answers have loaded some of the files by then, as they do for a reader."""
    from playwright import sync_api
    from tests.site_helpers import chromium, serve

    times = []
    with serve(site) as url, chromium(sync_api) as browser:
        for query in queries:
            context, page, _got = _recording_page(browser)
            page.goto(url)
            box = page.locator("input.md-search__input")
            box.click()
            page.wait_for_function(READY, timeout=120_000)
            page.evaluate(TYPING_CLOCK)
            for char in query:
                if char.isascii():
                    box.press(char if char != " " else "Space")
                else:  # as an input method commits a character: the text, then a key
                    page.keyboard.insert_text(char)
                    box.press("End")
                page.wait_for_timeout(delay_ms)
            page.wait_for_function("""() => { const a = window.__answers, k = window.__keys;
              return a.length && a[a.length - 1] > k[k.length - 1] && performance.now() - a[a.length - 1] > 1500; }""", timeout=30_000)
            last_key, last_answer = page.evaluate("() => [window.__keys[window.__keys.length - 1], window.__answers[window.__answers.length - 1]]")
            times.append(last_answer - last_key)
            context.close()
    return {"typed_ms": statistics.median(times)} if times else {}


def _median(rows: list[dict]) -> dict:
    return {key: statistics.median(r[key] for r in rows) for key in rows[0]} if rows else {}


# --- Pagefind -----------------------------------------------------------------------------------------

PAGEFIND_QUERY = """
async (q) => {
  const pf = await import("/pagefind/pagefind.js");
  await pf.options({});
  const t = performance.now();
  const found = await pf.search(q);
  const data = await Promise.all(found.results.slice(0, 10).map(r => r.data()));
  return {ms: performance.now() - t, n: found.results.length, urls: data.map(d => [d.url, (d.sub_results || []).map(s => s.url)])};
}
"""


def pagefind(site: Path, python: str, queries: list[str]) -> dict:
    import resource

    from playwright import sync_api
    from tests.site_helpers import chromium, serve

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([python, "-m", "pagefind", "--site", str(site)], capture_output=True, text=True)
    if run.returncode:
        return {"error": run.stderr[-500:]}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    rows = []
    with serve(site) as url, chromium(sync_api) as browser:
        for query in queries:
            context, page, got = _recording_page(browser)
            page.goto(url)
            result = page.evaluate(PAGEFIND_QUERY, query)
            time.sleep(0.2)
            first = [g for g in got if "/pagefind/" in g[0]]
            rows.append({"ms": result["ms"], "query_raw": sum(g[1] for g in first), "query_gz": sum(g[2] for g in first), "files": len(first)})
            context.close()
    size = sum(f.stat().st_size for f in (site / "pagefind").rglob("*") if f.is_file())
    return {**_median(rows), "index_bytes": size, "cpu": cpu}


# --- report -----------------------------------------------------------------------------------------


def summary(rows: list[dict], key: str) -> dict[str, str]:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    groups["all"] = rows
    out = {}
    for name, part in sorted(groups.items()):
        at1 = sum(1 for r in part if r["rank"] == 1)
        at5 = sum(1 for r in part if r["rank"] and r["rank"] <= 5)
        page = sum(1 for r in part if r["page_hit"])
        out[name] = f"{len(part):3d} queries  passage@1 {at1 / len(part):5.1%}  passage@5 {at5 / len(part):5.1%}  page in top 5 {page / len(part):5.1%}"
    return out


def edit_one(project: Path) -> None:
    raws = sorted((project / "corpus").glob("*/raw/*/text.md"))
    target = next(r for r in raws if not (r.parent / "structure.json").exists() and not (r.parent / "thread.json").exists())
    target.write_text(target.read_text(encoding="utf-8") + "\n\n## Added later\n\nAn edit the incremental build must index.\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--pagefind", default="", help="a Python with `pagefind[extended]` installed")
    parser.add_argument("--heldout-only", action="store_true")
    parser.add_argument("--keep", default="")
    args = parser.parse_args()
    work = Path(args.keep or tempfile.mkdtemp(prefix="bench-fulltext-"))
    queries = heldout_queries()
    latency_queries = ["shared memory", "流水 编排", "記憶體", "tma descriptor", "寄存器"]
    table = []

    project = work / "heldout"
    shutil.rmtree(project, ignore_errors=True)
    docs = heldout_documents()
    write(project, docs)
    built = build(project)
    rows = quality(project / "site", queries, docs)
    print(f"held-out: {len(docs)} documents, {built['passages']} passages, {len(queries)} queries")
    for key in ("lang", "type"):
        for name, line in summary(rows, key).items():
            print(f"  ours      {key:4s} {name:17s} {line}")
    missed = [f"{r['q']!r} (rank {r['rank']})" for r in rows if r["rank"] != 1]
    print(f"  not first ({len(missed)}): " + "; ".join(missed))
    table.append(("held-out", built, {**bytes_and_latency(project / "site", latency_queries), **typed_latency(project / "site", latency_queries)}))
    if args.pagefind:
        pf = pagefind(project / "site", args.pagefind, latency_queries)
        if "error" not in pf:
            for key in ("lang",):
                for name, line in summary(quality(project / "site", queries, docs, "pagefind"), key).items():
                    print(f"  pagefind  {key:4s} {name:17s} {line}")
        table[-1] += (pf,)

    if not args.heldout_only:
        for n in [int(s) for s in args.sizes.split(",") if s]:
            project = work / f"synthetic-{n}"
            shutil.rmtree(project, ignore_errors=True)
            write(project, synthetic_documents(n))
            built = build(project)
            measured = {**bytes_and_latency(project / "site", latency_queries), **typed_latency(project / "site", latency_queries)}
            edit_one(project)
            again = build(project)
            built["edit_written"] = again["new"]
            built["edit_files"] = again["files"]
            built["edit_index_cpu"] = again["index_cpu"]
            built["edit_cpu"] = again["cpu"]
            built["edit_share"] = again["index_cpu"] / again["cpu"]
            row = (f"{n} sources", built, measured)
            if args.pagefind:
                row += (pagefind(project / "site", args.pagefind, latency_queries),)
            table.append(row)

    print()
    print("corpus        | passages | index CPU / build CPU | search bytes before opening raw / gz | on opening raw / gz | first query raw / gz (files) | "
          "total gz | ready after opening, ms | query ms, typed | edit: files new, index CPU")
    for row in table:
        name, built, m = row[:3]
        share = built["index_cpu"] / built["cpu"]
        edit = (f"{built['edit_written']} of {built['edit_files']} files, {built['edit_index_cpu']:.2f} s of {built['edit_cpu']:.1f} s"
                if "edit_written" in built else "-")
        total = m["view_gz"] + m["open_gz"] + m["query_gz"]
        print(f"{name:13s} | {built['passages']:8d} | {built['index_cpu']:6.2f} / {built['cpu']:6.1f} s = {share:5.1%} | "
              f"{m['view_raw'] / 1024:7.1f} / {m['view_gz'] / 1024:6.1f} KB | {m['open_raw'] / 1024:7.1f} / {m['open_gz'] / 1024:6.1f} KB | "
              f"{m['query_raw'] / 1024:6.1f} / {m['query_gz'] / 1024:6.1f} KB ({m['files']:.0f}) | {total / 1024:6.1f} KB | "
              f"{m['ready_ms']:5.0f} | {m['ms']:4.0f}, {m.get('typed_ms', 0):4.0f} | {edit}")
        if len(row) > 3 and "error" not in row[3]:
            pf = row[3]
            print(f"{'  pagefind':13s} | {'':8s} | {pf['cpu']:6.2f} s (separate run)  | {'':36s} | {'':19s} | "
                  f"{pf['query_raw'] / 1024:6.1f} / {pf['query_gz'] / 1024:6.1f} KB ({pf['files']:.0f}) | {pf['query_gz'] / 1024:6.1f} KB | "
                  f"{'-':>5s} | {pf['ms']:4.0f} | index {pf['index_bytes'] / 1e6:.1f} MB")
    print(f"\n(work folder: {work})")


if __name__ == "__main__":
    main()
