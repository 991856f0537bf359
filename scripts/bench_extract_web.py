#!/usr/bin/env python3
"""Articles, blogs and Chinese portals (issue 35): corpus-build's extractor against its peers, same bytes.

    python scripts/bench_extract_web.py --trafilatura DIR --gne DIR [--half tune|held|all]
        [--limit N] [--peers all|none|NAME,...] [--cache FILE] [--show-worst N]

Pages (fetched as snapshots of public repositories, never committed; give their clones):

* `--trafilatura`: a clone of adbar/trafilatura. Its evaluation pages (tests/eval/) with
  tests/evaldata.json: for each page, snippets that must be in the main text ("with") and
  snippets that must not ("without"), written by trafilatura's authors. Scorer (theirs):
  a "with" snippet found is a true positive, missing a false negative; a "without" snippet
  found is a false positive. Precision, recall and F1 over the subset's summed counts.
* `--gne`: a clone of GeneralNewsExtractor/GeneralNewsExtractor. Its Chinese news and portal
  pages (tests/**.html, browser-saved). It ships no expected text, so ARTICLE below names, for
  each page, the element that holds the article's body as a reader sees it (picked by looking
  at the page, by class or id, one per page; in-body widgets listed under DROP are left out).
  Scorer: character 4-grams (whitespace removed) of the output against those of the body:
  precision and recall per page, averaged over pages; F1 from the averages.

Every page goes to every extractor from the same bytes, interleaved (the order rotates per page);
CPU is process time per call, reported as a ratio to trafilatura's default in the same run.
Peers: trafilatura (default and favor_recall), readability-lxml, newspaper4k, goose3, jusText.
They are installed next to corpus-build for the benchmark only (pip install readability-lxml
newspaper4k goose3 justext), never as project dependencies. `--peers none` runs corpus-build and
trafilatura only (the baseline for CPU), reading the other peers' scores from `--cache` when a
previous full run wrote them.

Halves: a page whose file name hashes (sha1) to 0-2 modulo 10 is held out: look only at its
totals, never at its pages, while tuning (`--show-worst` lists tuning pages only).
Languages: the page's `<html lang>` (its first part), else "other"; Chinese pages are "zh".
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import re
import sys
import time
import warnings
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

# The article body of each GNE test page (see the docstring): XPath, and widgets inside it to leave out.
ARTICLE: dict[str, str] = {
    **{f"163/{n}.html": "//div[@id='endText']" for n in range(1, 9)},
    "163/9.html": "//div[@id='content']",
    **{f"baijiahao/{n}.html": "//div[contains(@class,'article-content')]" for n in range(1, 5)},
    "cjddsb/1.html": "//div[contains(@class,'single-content')]",
    "cjn/1.html": "//div[contains(@class,'TRS_Editor')]",
    "cmse/1.html": "//div[@id='content']",
    "csdn/1.html": "//div[contains(@class,'news_content')]",
    "ednchina/1.html": "//div[contains(@class,'article_text')]",
    "gamersky/gamersky.html": "//div[contains(@class,'gsAreaContextArt')]",
    "gsc/1.html": "//div[contains(@class,'detailCon')]",
    **{f"guancha/{n}.html": "//div[contains(@class,'all-txt')]" for n in ("2", "3", "guancha")},
    "gzggw/1.html": "//div[@id='zoom']",
    "hexun/1.html": "//div[contains(@class,'art_contextBox')]",
    "huanqiu/1.html": "//div[contains(@class,'a-con')]",
    "ifeng/1.html": "//div[starts-with(@class,'text-3zQ3')]",
    "ifeng/2.html": "//div[starts-with(@class,'text-3zQ3')]",
    "ifeng/3.html": "//div[@id='main_content']",
    "ifeng/ifeng.html": "//div[starts-with(@class,'text-3zQ3')]",
    "mingridapan/1.html": "//div[contains(@class,'page_art_content')]",
    "njxfhn/1.html": "//div[contains(@class,'post-body')]",
    "people/1.html": "//div[@id='rwb_zw']",
    "qq/2.html": "//div[@id='Cnt-Main-Article-QQ']",
    "qq/qq.html": "//div[contains(@class,'content-article')]",
    "readhub/readhub.html": "//div[contains(@class,'summary___')]",
    "shanxi/1.html": "//div[contains(@class,'TRS_Editor')]",
    "sina/1.html": "//div[@id='article']",
    "sina/2.html": "//div[@id='artibody']",
    "sina/3.html": "//div[@id='artibody']",
    "sina/4.html": "//div[@id='artibody']",
    "sina/5.html": "//div[@id='article']",
    "sina/sina.html": "//div[@id='article']",
    "stcn/1.html": "//div[@id='ctrlfscont']",
    "sxmu/1.html": "//div[@id='vsb_content']",
    **{f"thepaper/{n}.html": "//div[contains(@class,'news_txt')]" for n in range(1, 6)},
    **{f"toutiao/{n}.html": "//div[contains(@class,'article-content')]" for n in ("3", "4", "5", "toutiao")},
    "wechat/1.html": "//div[@id='js_content']",
    "wechat/2.html": "//div[@id='js_content']",
    "xds/1.html": "//div[contains(@class,'statuses-text')]",
    "xinhuanet/1.html": "//div[@id='p-detail']",
    "zsnews/1.html": "/html/body/center/table/tbody/tr[1]/td/table[2]/tbody/tr[2]/td[2]/table/tbody/tr/td/table[2]/tbody/tr[3]/td",
    "zyyfy/1.html": "//div[@id='z']",
}
# (Left out: toutiao/2.html is a picture gallery, other/1.html holds no article text.)
DROP = "script|style|noscript|template|textarea"

PEERS = ["trafilatura", "trafilatura-recall", "readability", "newspaper4k", "goose3", "justext"]
_CJK = re.compile(r"[\u3400-\u9fff]")


def held_out(name: str) -> bool:
    return int(hashlib.sha1(name.encode()).hexdigest(), 16) % 10 < 3


# --- pages ---------------------------------------------------------------------------------

def trafilatura_pages(root: Path) -> list[dict]:
    data = json.loads((root / "tests" / "evaldata.json").read_text(encoding="utf-8"))
    pages = []
    for url, item in data.items():
        path = root / "tests" / "eval" / item["file"]
        if not path.is_file():
            continue
        raw = path.read_bytes()
        match = re.search(rb"<html[^>]*?\slang\s*=\s*[\"']?([A-Za-z]{2,3})", raw[:20000], re.IGNORECASE)
        lang = match.group(1).decode().lower() if match else "other"
        if _CJK.search(" ".join(item["with"])):
            lang = "zh" if not re.search(r"[\u3040-\u30ff]", " ".join(item["with"])) else "ja"
        pages.append({"subset": "trafilatura-eval", "name": item["file"], "url": url, "raw": raw, "lang": lang,
                      "with": item["with"], "without": item["without"]})
    return pages


def gne_pages(root: Path) -> list[dict]:
    import lxml.html

    pages = []
    for name, xpath in ARTICLE.items():
        path = root / "tests" / name
        raw = path.read_bytes()
        tree = lxml.html.fromstring(raw.decode("utf-8", "replace"))
        found = [e for e in tree.xpath(xpath) if "".join(e.itertext()).strip()]
        if not found:
            raise SystemExit(f"{path}: no element with text for {xpath}")
        body = found[0]
        for bad in body.xpath(f".//{DROP.replace('|', '|.//')}"):
            bad.getparent().remove(bad)
        truth = "".join(body.itertext())
        pages.append({"subset": "gne-zh", "name": f"gne/{name}", "url": f"https://news.example.cn/{name}", "raw": raw, "lang": "zh", "truth": truth})
    return pages


# --- extractors ----------------------------------------------------------------------------

_MD_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_MD_LINK = re.compile(r"\[((?:[^\[\]]|\\\[|\\\])*)\]\((?:[^()]|\([^)]*\))*\)")


def markdown_text(md: str) -> str:
    """What a reader reads in the Markdown: link texts without targets, no image syntax, no marks."""
    md = _MD_IMAGE.sub("", md)
    for _ in range(2):
        md = _MD_LINK.sub(r"\1", md)
    md = re.sub(r"^```.*$", "", md, flags=re.MULTILINE)
    md = re.sub(r"^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+", "", md, flags=re.MULTILINE)
    md = re.sub(r"^\|?[-| :]+\|?$", "", md, flags=re.MULTILINE)
    md = md.replace("|", " ").replace("**", "").replace("`", "")
    md = re.sub(r"(?<!\\)\*", "", md)
    return re.sub(r"\\(.)", r"\1", md)


def _decoded(raw: bytes) -> str:
    from trafilatura.utils import decode_file

    return decode_file(raw)


def run_corpus_build(page: dict) -> tuple[str, str]:
    from corpus_build.fetch.kinds.html import page_text

    facts = page_text(page["raw"], page["url"], "text/html")
    return markdown_text(facts["markdown"]), facts["title"]


def run_trafilatura(page: dict, recall: bool = False) -> tuple[str, str]:
    import trafilatura

    return trafilatura.extract(page["raw"], url=page["url"], favor_recall=recall) or "", ""


def run_readability(page: dict) -> tuple[str, str]:
    import lxml.html
    from readability import Document

    doc = Document(page["raw"])
    summary = doc.summary(html_partial=True)
    text = "\n".join(t for t in lxml.html.fromstring(summary).itertext()) if summary.strip() else ""
    return text, doc.short_title()


def run_newspaper(page: dict) -> tuple[str, str]:
    import newspaper

    article = newspaper.Article(page["url"], language="zh" if page["lang"] == "zh" else "en", fetch_images=False)
    article.download(input_html=_decoded(page["raw"]))
    article.parse()
    return article.text or "", article.title or ""


def run_goose(page: dict) -> tuple[str, str]:
    from goose3 import Goose

    if page["lang"] == "zh":
        from goose3.text import StopWordsChinese

        goose = Goose({"use_meta_language": False, "target_language": "zh", "stopwords_class": StopWordsChinese, "enable_image_fetching": False})
    else:
        goose = Goose({"enable_image_fetching": False})
    article = goose.extract(raw_html=_decoded(page["raw"]))
    return article.cleaned_text or "", article.title or ""


_STOPLISTS: dict[str, frozenset] = {}


def run_justext(page: dict) -> tuple[str, str]:
    import justext

    names = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian", "pl": "Polish", "ru": "Russian", "nl": "Dutch",
             "pt": "Portuguese", "sv": "Swedish", "cs": "Czech", "fi": "Finnish", "da": "Danish", "no": "Norwegian_Bokmal", "tr": "Turkish"}
    name = names.get(page["lang"])
    if name not in _STOPLISTS:
        _STOPLISTS[name or ""] = justext.get_stoplist(name) if name else frozenset()
    stoplist = _STOPLISTS[name or ""]
    kwargs = {} if stoplist else {"stopwords_low": 0, "stopwords_high": 0, "length_low": 10, "length_high": 40}
    paragraphs = justext.justext(page["raw"], stoplist, **kwargs)
    return "\n".join(p.text for p in paragraphs if not p.is_boilerplate), ""


EXTRACTORS = {
    "corpus-build": run_corpus_build,
    "trafilatura": run_trafilatura,
    "trafilatura-recall": lambda page: run_trafilatura(page, recall=True),
    "readability": run_readability,
    "newspaper4k": run_newspaper,
    "goose3": run_goose,
    "justext": run_justext,
}


# --- scoring -------------------------------------------------------------------------------

def _norm(text: str, cjk: bool) -> str:
    text = text.replace("\u00a0", " ").replace("\u200b", "")
    if cjk:
        return re.sub(r"\s+", "", text)
    return " ".join(text.split()).lower()


def snippet_counts(page: dict, text: str) -> tuple[int, int, int]:
    """(true positives, false negatives, false positives) by trafilatura's must-keep / must-drop snippets."""
    cjk = page["lang"] in ("zh", "ja")
    out = _norm(text, cjk)
    tp = sum(1 for s in page["with"] if _norm(s, cjk) in out)
    fp = sum(1 for s in page["without"] if _norm(s, cjk) in out)
    return tp, len(page["with"]) - tp, fp


def gram_scores(page: dict, text: str) -> tuple[float, float]:
    """(precision, recall) of the output's character 4-grams against the article body's."""

    def grams(s: str) -> Counter:
        s = _norm(s, True)
        return Counter(s[i : i + 4] for i in range(max(len(s) - 3, 0)))

    out, truth = grams(text), grams(page["truth"])
    if not out:
        return 0.0, 0.0
    common = sum((out & truth).values())
    return common / sum(out.values()), common / max(sum(truth.values()), 1)


def f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


# --- run -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trafilatura", type=Path, help="a clone of adbar/trafilatura")
    parser.add_argument("--gne", type=Path, help="a clone of GeneralNewsExtractor/GeneralNewsExtractor")
    parser.add_argument("--half", choices=("tune", "held", "all"), default="all")
    parser.add_argument("--limit", type=int, default=0, help="at most N pages of each subset (a fixed sample)")
    parser.add_argument("--peers", default="all", help="all, none (trafilatura only, as the CPU baseline), or names")
    parser.add_argument("--cache", type=Path, help="JSON file: peers' per-page scores, written by a run with them, read by --peers none")
    parser.add_argument("--show-worst", type=int, default=0, help="list the N tuning pages where corpus-build scores worst")
    args = parser.parse_args()

    pages: list[dict] = []
    if args.trafilatura:
        pages += trafilatura_pages(args.trafilatura)
    if args.gne:
        pages += gne_pages(args.gne)
    if not pages:
        parser.error("give --trafilatura and/or --gne")
    if args.limit:  # (before the halves: a half of the sample is the same pages in every run)
        by_subset: dict[str, list] = defaultdict(list)
        for page in sorted(pages, key=lambda p: hashlib.sha1(("sample:" + p["name"]).encode()).hexdigest()):
            by_subset[page["subset"]].append(page)
        pages = [p for group in by_subset.values() for p in group[: args.limit]]
    if args.half != "all":
        pages = [p for p in pages if held_out(p["name"]) == (args.half == "held")]

    if args.peers == "all":
        names = ["corpus-build", *PEERS]
    elif args.peers == "none":
        names = ["corpus-build", "trafilatura"]
    else:
        names = ["corpus-build", "trafilatura", *[n for n in args.peers.split(",") if n not in ("corpus-build", "trafilatura")]]
    cached: dict = json.loads(args.cache.read_text()) if args.cache and args.cache.is_file() and args.peers == "none" else {}

    for name in names:  # warm up imports outside the timings
        with contextlib.suppress(Exception):  # (a peer failing on a page counts as empty output)
            EXTRACTORS[name](pages[0])

    results: dict[str, dict[str, dict]] = defaultdict(dict)  # extractor -> page name -> scores
    for index, page in enumerate(pages):
        order = names[index % len(names):] + names[: index % len(names)]
        for name in order:
            start = time.process_time()
            try:
                text, _title = EXTRACTORS[name](page)
            except Exception:  # noqa: BLE001
                text = ""
            cpu = time.process_time() - start
            score: dict = {"cpu": cpu}
            if page["subset"] == "gne-zh":
                score["p"], score["r"] = gram_scores(page, text)
            else:
                score["tp"], score["fn"], score["fp"] = snippet_counts(page, text)
            results[name][page["name"]] = score
        if (index + 1) % 50 == 0:
            print(f"  {index + 1}/{len(pages)} pages", file=sys.stderr)

    if args.cache and args.peers == "all":
        args.cache.write_text(json.dumps({n: results[n] for n in PEERS if n != "trafilatura"}))
    for name, scores in cached.items():
        if name not in results:
            results[name] = {k: {**v, "cpu": float("nan")} for k, v in scores.items()}
            names.append(name)

    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for page in pages:
        half = "held-out" if held_out(page["name"]) else "tuning"
        lang = page["lang"] if page["lang"] in ("en", "de", "zh") else "other"
        for key in ((page["subset"], half, lang), (page["subset"], half, "all"), ("all pages", half, "all")):
            groups[key].append(page)

    print(f"| subset | half | lang | pages | {' | '.join(names)} |")
    print("|---|---|---|---|" + "---|" * len(names))
    for key in sorted(groups, key=lambda k: (k[0] == "all pages", k)):
        subset, half, lang = key
        group = groups[key]
        cells = []
        base_cpu = sum(results["trafilatura"][p["name"]]["cpu"] for p in group)
        for name in names:
            scores = [results[name][p["name"]] for p in group if p["name"] in results[name]]
            if subset == "gne-zh":
                prec = sum(s["p"] for s in scores) / len(scores)
                rec = sum(s["r"] for s in scores) / len(scores)
            elif subset == "trafilatura-eval":
                tp, fn, fp = (sum(s[k] for s in scores) for k in ("tp", "fn", "fp"))
                prec, rec = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
            else:
                cells.append(f"cpu {sum(s['cpu'] for s in scores) / base_cpu:.2f}×" if base_cpu and scores[0]["cpu"] == scores[0]["cpu"] else "—")
                continue
            cpu = sum(s["cpu"] for s in scores)
            ratio = f" {cpu / base_cpu:.2f}×" if base_cpu and cpu == cpu else ""
            cells.append(f"**{f1(prec, rec):.3f}** ({prec:.3f}/{rec:.3f}){ratio}")
        print(f"| {subset} | {half} | {lang} | {len(group)} | {' | '.join(cells)} |")

    if args.show_worst:
        tuning = [p for p in pages if not held_out(p["name"])]

        def badness(page: dict) -> float:
            s = results["corpus-build"][page["name"]]
            if page["subset"] == "gne-zh":
                return f1(s["p"], s["r"])
            total = len(page["with"]) + len(page["without"])
            return 1 - (s["fn"] + s["fp"]) / max(total, 1)

        print("\nworst tuning pages (corpus-build):")
        for page in sorted(tuning, key=badness)[: args.show_worst]:
            s = results["corpus-build"][page["name"]]
            t = results["trafilatura"][page["name"]]
            print(f"  {badness(page):.2f} {page['name']} {page['lang']} cb={ {k: round(v, 2) for k, v in s.items() if k != 'cpu'} } traf={ {k: round(v, 2) for k, v in t.items() if k != 'cpu'} }")


if __name__ == "__main__":
    main()
