"""Search quality and index size: Material's stock index against the tuned one (search.py).

Builds the default corpus twice in a temporary folder — once as before search
tuning (Material's index, the old separator that split camelCase, stemming),
once as configured — then asks each site's own search worker, in headless
Chromium, the query table of tests/test_search.py, and prints the rank of the
expected page for both. It also measures what Simplified/Traditional folding
costs in bytes, both ways it could be done:

- index side (what search.py does): both scripts' spellings in the index;
- query side: only Traditional → Simplified spellings in the index, plus a
  character map shipped to the browser to fold the reader's query.

    .venv/bin/python scripts/bench_search.py            # ~1 minute
    .venv/bin/python scripts/bench_search.py --queries held-out.yml
    .venv/bin/python scripts/bench_search.py --pagefind /tmp/pf/node_modules/.bin/pagefind

"Ours" is the site as published: the tuned index searched by our worker
(src/corpus_build/site/overrides/assets/javascripts/workers/corpus-search.js, which the pages' config
names), "stock" Material's index and worker.

With --queries FILE, the queries are a YAML list of
`{query: str, expect: [source ids or page paths], note: str}` instead of
tests/test_search.py's table: an id names its page (sources/<id>/), a path with
a slash is a page as the site addresses it (digests/2026-10-22/, "" for the
home). A query hits at N when one of its expected pages is among the first N
results; the table prints the rank of the first expected page for each engine,
then top-1 and top-3 counts.

With --pagefind (the `pagefind` npm package's binary: `npm install pagefind@1`
in any folder), the same queries also run against Pagefind's index of the
tuned site's pages (article content only), through Pagefind's own JS API.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.site_helpers import serve
from tests.test_search import CHROMIUM, QUERIES

from corpus_build import registry, site
from corpus_build.site import search

# mkdocs.yml's separator before search tuning: it cut TileLang into tile + lang.
OLD_SEPARATOR = r"""'[\s\u200b\-_,:!=\[\]()"`/]+|\.(?!\d)|&[lg]t;|(?!\b)(?=[A-Z][a-z])'"""

ASK_WORKER = """async ([worker, queries]) => {
  // Open search first: until then the pages hold our worker back (site/overrides/main.html).
  document.querySelector('input.md-search__input').focus();
  const index = await (await fetch('search/search_index.json')).json();
  index.options = {suggest: false};
  // The worker the pages name (ours, with Material's after the #), or Material's own.
  const w = new Worker(worker || JSON.parse(document.getElementById('__config').textContent).search);
  const ask = m => new Promise(resolve => { w.onmessage = e => resolve(e.data); w.postMessage(m); });
  await ask({type: 0, data: index});           // SETUP, as Material's own page sends it
  const out = {};
  for (const q of queries) {
    const result = await ask({type: 2, data: q});   // QUERY
    out[q] = result.data.items.map(group => group[0].location.split('#')[0].split('?')[0]);
  }
  w.terminate();
  return out;
}"""


def project(target: Path, *, baseline: bool) -> Path:
    shutil.copytree(ROOT / "corpus", target / "corpus", ignore=shutil.ignore_patterns("raw", ".watch"))
    (target / "docs").mkdir(parents=True, exist_ok=True)  # the plugin brings its assets and templates
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if baseline:
        config = re.sub(r"(?m)^      separator: .*$", "      separator: " + OLD_SEPARATOR.replace("\\", "\\\\"), config)
        config = re.sub(r"(?m)^      pipeline: \[\]\n", "", config)
        config = config.replace("  - corpus ", "  - corpus:\n      search_tuning: false\n   ", 1)
    (target / "mkdocs.yml").write_text(config, encoding="utf-8")
    return target


def ranks(site_dir: Path, browser, queries: list[str], *, stock: bool) -> dict[str, list[str]]:
    """Each query's result pages, in order, from the site's search worker (Material's own with `stock`)."""
    worker = ""
    if stock:
        worker = "assets/javascripts/workers/" + Path(glob.glob(str(site_dir / "assets/javascripts/workers/search.*.min.js"))[0]).name
    with serve(site_dir) as base:
        page = browser.new_page()
        page.goto(base + "404.html")
        found = page.evaluate(ASK_WORKER, [worker, queries])
        page.close()
    return found


@dataclass(frozen=True)
class Case:
    """One query of a table: the pages any of which answers it, and why it is there."""

    query: str
    expect: tuple[str, ...]
    note: str = ""
    kind: str = ""  # the table's own grouping (english, chinese, typo…), optional


class QueryTableError(Exception):
    """The --queries file cannot be read as a query table (the message says where and what)."""


def builtin_cases() -> list[Case]:
    return [Case(query, (expected,), f"top {within} in tests/test_search.py") for query, expected, within in QUERIES]


def read_cases(path: Path, corpus) -> list[Case]:
    """The query table in `path` (see the module docstring), checked against the corpus's pages."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise QueryTableError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise QueryTableError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from exc
    if not isinstance(data, list):
        raise QueryTableError(f"{path}: expected a list of {{query, expect, note}} entries, got {type(data).__name__}")
    cases = []
    for number, entry in enumerate(data, 1):
        where = f"{path}: entry {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("query"), str) or not entry["query"].strip():
            raise QueryTableError(f"{where}: needs `query:` (text)")
        unknown = set(entry) - {"query", "expect", "note", "kind"}
        if unknown:
            raise QueryTableError(f"{where} ({entry['query']!r}): unknown key(s) {', '.join(sorted(map(str, unknown)))}; the keys are query, expect, kind, note")
        expect = entry.get("expect")
        if isinstance(expect, str):
            expect = [expect]
        if not isinstance(expect, list) or not expect or not all(isinstance(e, str) for e in expect):
            raise QueryTableError(f"{where} ({entry['query']!r}): `expect:` must list source ids or page paths")
        pages = []
        for item in expect:
            if "/" in item or item == "":
                pages.append(item.lstrip("/"))
            elif item in corpus.by_id:
                pages.append(f"sources/{item}/")
            else:
                raise QueryTableError(f"{where} ({entry['query']!r}): no source has the id {item!r}; name a source id or a page path with a slash")
        cases.append(Case(entry["query"], tuple(pages), str(entry.get("note") or ""), str(entry.get("kind") or "")))
    if not cases:
        raise QueryTableError(f"{path}: the table has no queries")
    return cases


def half_of(query: str) -> int:
    """The half of a query table a query falls in, by a fixed hash of its text (--half)."""
    return int(hashlib.sha1(query.encode("utf-8")).hexdigest(), 16) % 2


def first_rank(found: list[str], expect: tuple[str, ...]) -> int | None:
    """The rank (from 1) of the first expected page among the results, None when none is there."""
    return next((rank for rank, page in enumerate(found, 1) if page in expect), None)


def print_table(cases: list[Case], engines: dict[str, dict[str, list[str]]]) -> None:
    width = max(26, *(len(c.query) + 2 for c in cases))
    print(f"{'query':{width}} {'expected page':44} " + " ".join(f"{name:>8}" for name in engines))
    top1 = dict.fromkeys(engines, 0)
    top3 = dict.fromkeys(engines, 0)
    for case in cases:
        row = []
        for name, found in engines.items():
            rank = first_rank(found[case.query], case.expect)
            top1[name] += rank == 1
            top3[name] += bool(rank and rank <= 3)
            row.append(str(rank) if rank else "-")
        expected = " | ".join(case.expect) or "(home)"
        print(f"{case.query:{width}} {expected:44} " + " ".join(f"{r:>8}" for r in row))
    print("top 1: " + ", ".join(f"{name} {n}/{len(cases)}" for name, n in top1.items()))
    print("top 3: " + ", ".join(f"{name} {n}/{len(cases)}" for name, n in top3.items()))
    kinds = sorted({c.kind for c in cases if c.kind})
    for kind in kinds:  # the table's own grouping (english, chinese, typo…), when it has one
        group = [c for c in cases if c.kind == kind]
        cells = []
        for name, found in engines.items():
            ranks = [first_rank(found[c.query], c.expect) for c in group]
            cells.append(f"{name} {sum(r == 1 for r in ranks)}/{sum(bool(r and r <= 3) for r in ranks)}")
        print(f"  {kind} ({len(group)}), top 1/top 3: " + ", ".join(cells))


ASK_PAGEFIND = """async (queries) => {
  const pagefind = await import('./pagefind/pagefind.js');
  await pagefind.init();
  const out = {};
  for (const q of queries) {
    const found = await pagefind.search(q);
    const data = await Promise.all(found.results.slice(0, 10).map(r => r.data()));
    out[q] = data.map(d => d.url.replace(/^\\//, ''));
  }
  return out;
}"""


def pagefind_ranks(site_dir: Path, binary: str, browser, queries: list[str]) -> tuple[dict[str, list[str]], int]:
    subprocess.run([binary, "--site", str(site_dir), "--root-selector", "article.md-content__inner"], check=True, capture_output=True)
    fetched: list[int] = []
    with serve(site_dir) as base:
        page = browser.new_page()
        page.on("response", lambda r: "/pagefind/" in r.url and fetched.append(len(r.body())))
        page.goto(base)
        found = page.evaluate(ASK_PAGEFIND, queries)
        page.close()
    return found, sum(fetched)


def folding_sizes(tuned_site: Path, baseline_index: dict, corpus) -> dict[str, int]:
    """Bytes of the tuned index with no folding, index-side folding, and query-side folding."""
    import opencc

    def size(data: dict) -> int:
        return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())

    plain, _ = search.tune(json.loads(json.dumps(baseline_index)), corpus, folder=search.ScriptFolder({}))
    both, _ = search.tune(json.loads(json.dumps(baseline_index)), corpus)
    # Query side: the index needs only the Simplified spellings of Traditional words; the
    # reader's query is folded to Simplified by a character map in the browser.
    t2s = [opencc.OpenCC(name).convert for name in ("t2s", "tw2sp")]
    vocabulary = search.ScriptFolder.for_docs(plain["docs"]).equivalents.keys()
    one_way: dict[str, set[str]] = {}
    for word in vocabulary:
        for convert in t2s:
            other = convert(word)
            if other != word:
                one_way.setdefault(word, set()).add(other)
    query_side, _ = search.tune(json.loads(json.dumps(baseline_index)), corpus, folder=search.ScriptFolder(one_way))
    chars = set("".join(d.get("text", "") + d.get("title", "") for d in plain["docs"]))
    convert = opencc.OpenCC("t2s").convert
    char_map = {}
    for code in list(range(0x3400, 0x4DC0)) + list(range(0x4E00, 0xA000)):
        ch = chr(code)
        folded = convert(ch)
        if folded != ch and folded in chars:
            char_map[ch] = folded
    map_bytes = len(json.dumps(char_map, ensure_ascii=False, separators=(",", ":")).encode())
    return {
        "no folding": size(plain),
        "index side (both scripts in the index)": size(both),
        "query side: index part": size(query_side),
        "query side: character map for the browser": map_bytes,
        "query side: total": size(query_side) + map_bytes,
    }


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=Path, help="a YAML query table ({query, expect, note} entries) instead of tests/test_search.py's")
    parser.add_argument("--pagefind", help="path of the pagefind binary, to compare with Pagefind")
    parser.add_argument("--half", type=int, choices=(0, 1),
                        help="only the queries whose text's SHA-1 (UTF-8, as a number) mod 2 is this: tune on one half, report the other")
    parser.add_argument("--ours-only", action="store_true", help="skip stock Material's build and search (quicker, for tuning)")
    args = parser.parse_args()

    if args.queries:  # a bad table says so before two builds are spent
        try:
            cases = read_cases(args.queries, registry.load(ROOT / "corpus"))
        except QueryTableError as exc:
            sys.exit(f"bench_search: {exc}")
    else:
        cases = builtin_cases()
    if args.half is not None:
        cases = [c for c in cases if half_of(c.query) == args.half]
    queries = list(dict.fromkeys(c.query for c in cases))

    with tempfile.TemporaryDirectory() as tmp:
        tuned_site = site.build(project(Path(tmp) / "tuned", baseline=False), strict=True)
        if args.ours_only:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                print_table(cases, {"ours": ranks(tuned_site, browser, queries, stock=False)})
                browser.close()
            return
        base_site = site.build(project(Path(tmp) / "baseline", baseline=True), strict=True)
        baseline_raw = (base_site / "search" / "search_index.json").read_bytes()
        tuned_raw = (tuned_site / "search" / "search_index.json").read_bytes()
        baseline_index = json.loads(baseline_raw)
        corpus = registry.load(Path(tmp) / "tuned" / "corpus")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            engines = {"stock": ranks(base_site, browser, queries, stock=True), "ours": ranks(tuned_site, browser, queries, stock=False)}
            if args.pagefind:
                pagefind_site = Path(tmp) / "pagefind-site"
                shutil.copytree(tuned_site, pagefind_site)
                engines["pagefind"], pagefind_bytes = pagefind_ranks(pagefind_site, args.pagefind, browser, queries)
            browser.close()
        print_table(cases, engines)
        if args.pagefind:
            print(f"pagefind: {pagefind_bytes:,} bytes of index fetched for all {len(queries)} queries")
        print(f"\nsearch_index.json: stock {len(baseline_raw):,} bytes ({len(baseline_index['docs'])} entries), "
              f"tuned {len(tuned_raw):,} bytes ({len(json.loads(tuned_raw)['docs'])} entries)")
        stock_utf8 = len(json.dumps(baseline_index, ensure_ascii=False, separators=(",", ":")).encode())
        print(f"(stock re-encoded as UTF-8 instead of \\u escapes: {stock_utf8:,} bytes; gzip: stock {len(gzip.compress(baseline_raw)):,}, tuned {len(gzip.compress(tuned_raw)):,})")
        print("\nSimplified/Traditional folding, bytes of what the browser downloads:")
        sizes = folding_sizes(tuned_site, baseline_index, corpus)
        for name, value in sizes.items():
            ratio = value / sizes["no folding"]
            print(f"  {name:44} {value:>9,}  ({ratio:.3f} × no folding)")


if __name__ == "__main__":
    main()
