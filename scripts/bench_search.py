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
    .venv/bin/python scripts/bench_search.py --pagefind /tmp/pf/node_modules/.bin/pagefind

With --pagefind (the `pagefind` npm package's binary: `npm install pagefind@1`
in any folder), the same queries also run against Pagefind's index of the
tuned site's pages (article content only), through Pagefind's own JS API.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import json
import re
import shutil
import subprocess
import sys
import tempfile
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
  const index = await (await fetch('search/search_index.json')).json();
  index.options = {suggest: false};
  const w = new Worker('assets/javascripts/workers/' + worker);
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
    shutil.copytree(ROOT / "overrides", target / "overrides")
    shutil.copytree(ROOT / "docs" / "assets", target / "docs" / "assets")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    if baseline:
        config = re.sub(r"(?m)^      separator: .*$", "      separator: " + OLD_SEPARATOR.replace("\\", "\\\\"), config)
        config = re.sub(r"(?m)^      pipeline: \[\]\n", "", config)
        config = config.replace("  - corpus ", "  - corpus:\n      search_tuning: false\n   ", 1)
    (target / "mkdocs.yml").write_text(config, encoding="utf-8")
    return target


def ranks(site_dir: Path, browser) -> dict[str, list[str]]:
    worker = Path(glob.glob(str(site_dir / "assets/javascripts/workers/search.*.min.js"))[0]).name
    with serve(site_dir) as base:
        page = browser.new_page()
        page.goto(base + "404.html")
        found = page.evaluate(ASK_WORKER, [worker, [q for q, _ in QUERIES]])
        page.close()
    return found


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


def pagefind_ranks(site_dir: Path, binary: str, browser) -> tuple[dict[str, list[str]], int]:
    subprocess.run([binary, "--site", str(site_dir), "--root-selector", "article.md-content__inner"], check=True, capture_output=True)
    fetched: list[int] = []
    with serve(site_dir) as base:
        page = browser.new_page()
        page.on("response", lambda r: "/pagefind/" in r.url and fetched.append(len(r.body())))
        page.goto(base)
        found = page.evaluate(ASK_PAGEFIND, [q for q, _ in QUERIES])
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
    parser.add_argument("--pagefind", help="path of the pagefind binary, to compare with Pagefind")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        base_site = site.build(project(Path(tmp) / "baseline", baseline=True), strict=True)
        tuned_site = site.build(project(Path(tmp) / "tuned", baseline=False), strict=True)
        baseline_raw = (base_site / "search" / "search_index.json").read_bytes()
        tuned_raw = (tuned_site / "search" / "search_index.json").read_bytes()
        baseline_index = json.loads(baseline_raw)
        corpus = registry.load(Path(tmp) / "tuned" / "corpus")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            engines = {"stock": ranks(base_site, browser), "tuned": ranks(tuned_site, browser)}
            if args.pagefind:
                pagefind_site = Path(tmp) / "pagefind-site"
                shutil.copytree(tuned_site, pagefind_site)
                engines["pagefind"], pagefind_bytes = pagefind_ranks(pagefind_site, args.pagefind, browser)
            browser.close()
        print(f"{'query':26} {'expected page':44} " + " ".join(f"{name:>8}" for name in engines))
        hits = dict.fromkeys(engines, 0)
        for query, expected in QUERIES:
            row = []
            for name, found in engines.items():
                rank = found[query].index(expected) + 1 if expected in found[query] else None
                hits[name] += bool(rank and rank <= 3)
                row.append(str(rank) if rank else "-")
            print(f"{query:26} {expected:44} " + " ".join(f"{r:>8}" for r in row))
        print("expected page in the top 3: " + ", ".join(f"{name} {n}/{len(QUERIES)}" for name, n in hits.items()))
        if args.pagefind:
            print(f"pagefind: {pagefind_bytes:,} bytes of index fetched for all {len(QUERIES)} queries")
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
