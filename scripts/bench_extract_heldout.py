#!/usr/bin/env python3
"""Held-out extraction benchmark (issue 21): Debian documentation packages the extractor was never tuned on.

    python scripts/bench_extract_heldout.py [--cache DIR] [--show-misses]

On first run it downloads the packages below with `apt-get download` into the cache
(default /tmp/bench21/cache, ~90 MB of .deb) and unpacks them there with `dpkg-deb -x`
(no root install). Nothing downloaded is kept in the repository.

Pages: a seeded sample (random.Random("bench21:" + style)) of each style's candidate files,
published as https://docs.example.org/<pkg>/<path>, fetched as http://127.0.0.1:8000/<pkg>/<path>.

Ground truth (see STYLES): the main element is the one the generator writes the body into
(`main`, div.body, #apicontent, ...), minus the in-body navigation listed in `drop` (tables of
contents, language bars, back-to-top links), which counts neither way. From it:
  * snippets - headings, paragraphs (start, middle, end; first words, last words), list items,
    table cells, code lines, text inside boxes (admonitions, sidebars, notes). Where the package
    ships the document's own source (Sphinx _sources reST, Node's api/*.md, texinfo's plain-text
    output, the Debian FAQ's .txt), a snippet is kept only if its letters and digits occur in the
    source too (so the truth is the document, not the HTML's decorations).
  * boilerplate - texts of the generator's navigation regions (`nav`): navbar, sidebars,
    prev/next, breadcrumbs, footers, search boxes, language bars; kept only if absent from the main
    text and from <title>. Must not appear in the output.
  * links - <a href> in the main element (not permalinks, not empty), expected at their absolute
    public address, by kind: relative, root-relative, ../, #anchor, inside <code>, inside <pre>.
PDFs: snippets from a text the same source produced (texinfo .text, FAQ .txt, the HTML edition).
Normalisation (both tools alike): Markdown link targets, escapes, emphasis, code ticks, table
pipes and heading marks removed, entities decoded, lower case, whitespace collapsed; Chinese:
all whitespace removed.
"""

from __future__ import annotations

import argparse
import glob
import gzip
import html as htmlmod
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote, urljoin

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

PUBLIC = "https://docs.example.org/"
FETCH = "http://127.0.0.1:8000/"
PAIRS = ((FETCH, PUBLIC),)

PACKAGES = [
    "sphinx-doc", "cmake-doc", "mkdocs-doc", "rust-doc", "nodejs-doc", "doxygen-doc",
    "libcommons-lang3-java-doc", "asciidoctor-doc", "apache2-doc", "debian-handbook",
    "debian-faq", "debian-faq-zh-cn", "sqlite3-doc", "gnu-standards", "debian-edu-doc-zh-cn", "manpages",
]
# rust-doc unpacks to 500 MB: only these members.
RUST_MEMBERS = ["./usr/share/doc/rust-doc/html/book/*", "./usr/share/doc/rust-doc/html/std/vec/*",
                "./usr/share/doc/rust-doc/html/std/collections/*", "./usr/share/doc/rust-doc/html/std/string/*"]


def cls(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


BOX = ("//*[" + " or ".join(cls(c) for c in (
    "admonition", "note", "warning", "tip", "important", "caution", "sidebar", "topic", "seealso",
    "notice", "callout", "attention", "hint", "danger", "example", "api_stability", "memdoc")) + "]")

# name, package, lang, doc root inside the package, candidate globs, k, main xpaths (first that
# matches), drop xpaths (in main, neutral), nav xpaths (boilerplate sources), source(path)->text
STYLES = [
    dict(name="Sphinx (sphinx13 theme)", pkg="sphinx-doc", lang="en", root="usr/share/doc/sphinx-doc/html",
         globs=["usage/*.html", "usage/*/*.html", "development/*.html", "extdev/*.html", "*.html"],
         exclude=r"(genindex|search|py-modindex|index)\.html$", k=4,
         main=["//div[@role='main']"], drop=[f"//a[{cls('headerlink')}]"],
         nav=["//div[@role='navigation']", f"//div[{cls('footer')}]", "//div[@role='search']"],
         source="sphinx"),
    dict(name="Sphinx (cmake theme)", pkg="cmake-doc", lang="en", root="usr/share/doc/cmake-data/html",
         globs=["command/*.html", "manual/*.html", "module/*.html"], k=3,
         main=["//div[@role='main']"], drop=[f"//a[{cls('headerlink')}]"],
         nav=["//div[@role='navigation']", f"//div[{cls('footer')}]"], source="sphinx"),
    dict(name="MkDocs (mkdocs theme)", pkg="mkdocs-doc", lang="en", root="usr/share/doc/mkdocs/html",
         globs=["*/*.html", "*.html"], exclude=r"(404|search)\.html$", k=4,
         main=["//div[@role='main']"], drop=[f"//a[{cls('headerlink')}]"],
         nav=[f"//div[{cls('navbar')}]", "//div[@role='complementary']", "//footer", "//div[@id='mkdocs_search_modal']"]),
    dict(name="mdBook (Rust book)", pkg="rust-doc", lang="en", root="usr/share/doc/rust-doc/html",
         globs=["book/ch*.html"], k=4, main=["//main"], drop=[f"//a[{cls('header')}][not(node())]"],
         nav=["//nav[@id='sidebar']", "//div[@id='menu-bar']", "//nav"]),
    dict(name="rustdoc (Rust std API)", pkg="rust-doc", lang="en", root="usr/share/doc/rust-doc/html",
         globs=["std/vec/*.html", "std/collections/*.html", "std/string/*.html"], maxsize=150_000, k=3,
         main=["//section[@id='main-content']"], drop=[f"//a[{cls('anchor')}]", "//button", f"//span[{cls('out-of-band')}]"],
         nav=["//nav"]),
    dict(name="Node.js doctool", pkg="nodejs-doc", lang="en", root="usr/share/doc/nodejs/api",
         globs=["*.html"], exclude=r"(all|index)\.html$", maxsize=300_000, k=3,
         main=["//div[@id='apicontent']"], drop=[f"//span[{cls('mark')}]"],
         nav=["//div[@id='column2']", "//header", "//details[@id='toc']"], source="nodemd"),
    dict(name="Doxygen (doxygen manual)", pkg="doxygen-doc", lang="en", root="usr/share/doc/doxygen/html",
         globs=["*.html"], exclude=r"(index|doxygen_usage)\.html$", maxsize=200_000, k=3,
         main=["//div[@id='doc-content']"], drop=["//div[@id='nav-path']", "//div[@id='MSearchSelectWindow']",
                                                   "//div[@id='MSearchResultsWindow']"],
         nav=["//div[@id='top']", "//div[@id='nav-path']", "//div[@id='side-nav']"]),
    dict(name="javadoc (commons-lang3)", pkg="libcommons-lang3-java-doc", lang="en",
         root="usr/share/doc/libcommons-lang3-java/api", globs=["org/apache/commons/lang3/*.html"],
         exclude=r"package-", maxsize=120_000, k=3, main=["//main"], drop=[],
         nav=["//header", "//footer"]),
    dict(name="RDoc darkfish (asciidoctor API)", pkg="asciidoctor-doc", lang="en", root="usr/share/doc/asciidoctor-doc/html",
         globs=["Asciidoctor/*.html", "Asciidoctor/*/*.html"], maxsize=120_000, k=3,
         main=["//main"], drop=[f"//div[{cls('method-source-code')}]", f"//span[{cls('method-click-advice')}]"],
         nav=["//nav", "//footer"]),
    dict(name="Apache httpd manual", pkg="apache2-doc", lang="en", root="usr/share/doc/apache2-doc/manual",
         globs=["en/*.html", "en/howto/*.html", "en/mod/*.html"], maxsize=150_000, k=3,
         main=["//div[@id='page-content']"],
         drop=[f"//div[{cls('toplang')}]", f"//div[{cls('bottomlang')}]", "//div[@id='quickview']", f"//div[{cls('top')}]",
               f"//a[{cls('permalink')}]"],
         nav=["//div[@id='page-header']", "//div[@id='path']", f"//div[{cls('toplang')}]", "//div[@id='footer']"]),
    dict(name="Apache httpd manual", pkg="apache2-doc", lang="zh", root="usr/share/doc/apache2-doc/manual",
         globs=["zh-cn/*.html", "zh-cn/*/*.html"], need=r'<html[^>]*lang="zh-cn"', k=7,
         main=["//div[@id='page-content']"],
         drop=[f"//div[{cls('toplang')}]", f"//div[{cls('bottomlang')}]", "//div[@id='quickview']", f"//div[{cls('top')}]",
               f"//a[{cls('permalink')}]"],
         nav=["//div[@id='page-header']", "//div[@id='path']", f"//div[{cls('toplang')}]", "//div[@id='footer']"]),
    dict(name="Publican DocBook (Debian handbook)", pkg="debian-handbook", lang="en", root="usr/share/doc/debian-handbook/html",
         globs=["en-US/*.html"], exclude=r"(index|ix01)\.html$", maxsize=200_000, k=3,
         main=["/html/body/div[not(@id='banner')]"], drop=[f"//div[{cls('toc')}]"],
         nav=["//div[@id='banner']", f"//ul[{cls('docnav')}]"]),
    dict(name="Publican DocBook (Debian handbook)", pkg="debian-handbook", lang="zh", root="usr/share/doc/debian-handbook/html",
         globs=["zh-CN/*.html"], exclude=r"(index|ix01)\.html$", maxsize=200_000, k=12,
         main=["/html/body/div[not(@id='banner')]"], drop=[f"//div[{cls('toc')}]"],
         nav=["//div[@id='banner']", f"//ul[{cls('docnav')}]"]),
    dict(name="DocBook XSL chunked (Debian FAQ)", pkg="debian-faq", lang="en", root="usr/share/doc/debian/FAQ",
         globs=["*.en.html"], exclude=r"index\.en\.html$", k=3,
         main=[f"/html/body/div[not({cls('navheader')}) and not({cls('navfooter')})]"], drop=[f"//div[{cls('toc')}]"],
         nav=[f"//div[{cls('navheader')}]", f"//div[{cls('navfooter')}]"], source="faq-en"),
    dict(name="DocBook XSL chunked (Debian FAQ)", pkg="debian-faq-zh-cn", lang="zh", root="usr/share/doc/debian/FAQ",
         globs=["zh-cn/*.zh-cn.html"], exclude=r"index\.zh-cn\.html$", k=6,
         main=[f"/html/body/div[not({cls('navheader')}) and not({cls('navfooter')})]"], drop=[f"//div[{cls('toc')}]"],
         nav=[f"//div[{cls('navheader')}]", f"//div[{cls('navfooter')}]"], source="faq-zh"),
    dict(name="DocBook XSL single page (Debian Edu manual)", pkg="debian-edu-doc-zh-cn", lang="zh",
         root="usr/share/doc/debian-edu-doc-zh-cn", globs=["*.html"], k=2,
         main=[f"/html/body/div[not({cls('navheader')}) and not({cls('navfooter')})]"], drop=[f"//div[{cls('toc')}]"],
         nav=[f"//div[{cls('navheader')}]", f"//div[{cls('navfooter')}]"]),
    dict(name="SQLite docs (Tcl-generated)", pkg="sqlite3-doc", lang="en", root="usr/share/doc/sqlite3",
         globs=["*.html"], maxsize=120_000, k=3,
         main=[f"//div[{cls('fancy')}]", "/html/body"],
         drop=[f"/html/body/div[{cls('nosearch')}]", f"//div[{cls('fancy_toc')}]", f"//div[{cls('nosearch')}]"],
         nav=[f"/html/body/div[{cls('nosearch')}]"]),
    dict(name="GNU texinfo HTML (gnu-standards)", pkg="gnu-standards", lang="en", root="usr/share/doc/gnu-standards",
         globs=["*.html"], k=2, main=["/html/body"],
         drop=[f"//div[{cls('header')}]", f"//div[{cls('nav-panel')}]", f"//div[{cls('Contents_element')}]",
               f"//table[{cls('menu')}]", f"//a[{cls('copiable-link')}]"],
         nav=[f"//div[{cls('header')}]", f"//div[{cls('nav-panel')}]"], source="texinfo"),
]

# pdf path (in package), package, lang, companion: ("text", path) plain text / ("html", [paths]) HTML main text
PDFS = [
    ("usr/share/doc/gnu-standards/maintain.pdf.gz", "gnu-standards", "en", "texinfo (TeX)", ("text", "usr/share/doc/gnu-standards/maintain.text.gz")),
    ("usr/share/doc/gnu-standards/standards.pdf.gz", "gnu-standards", "en", "texinfo (TeX)", ("text", "usr/share/doc/gnu-standards/standards.text.gz")),
    ("usr/share/doc/debian/FAQ/debian-faq.en.pdf.gz", "debian-faq", "en", "DocBook (dblatex)", ("text", "usr/share/doc/debian/FAQ/debian-faq.en.txt.gz")),
    ("usr/share/doc/doxygen/doxygen_manual.pdf", "doxygen-doc", "en", "Doxygen LaTeX", ("html", ["usr/share/doc/doxygen/html/starting.html", "usr/share/doc/doxygen/html/docblocks.html", "usr/share/doc/doxygen/html/markdown.html", "usr/share/doc/doxygen/html/faq.html"])),
    ("usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bookworm-manual.pdf", "debian-edu-doc-zh-cn", "zh", "DocBook (dblatex)", ("html", ["usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bookworm-manual.html"])),
    ("usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bullseye-manual.pdf", "debian-edu-doc-zh-cn", "zh", "DocBook (dblatex)", ("html", ["usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bullseye-manual.html"])),
    ("usr/share/doc/sqlite3/copyright-release.pdf", "sqlite3-doc", "en", "word processor", ("html", ["usr/share/doc/sqlite3/copyright-release.html"])),
    # made here: groff -Tpdf (gropdf) from the man page's roff; truth = groff -Tutf8 of the same roff
    ("usr/share/man/man7/pipe.7.gz", "manpages", "en", "groff -Tpdf (made here)", ("groff", "usr/share/man/man7/pipe.7.gz")),
    ("usr/share/man/man7/inotify.7.gz", "manpages", "en", "groff -Tpdf (made here)", ("groff", "usr/share/man/man7/inotify.7.gz")),
]
# (debian-faq-zh-cn's PDF is a one-page "not available for this language" placeholder: not used.)


# ---------------------------------------------------------------- cache

def ensure_cache(cache: Path) -> None:
    debs, unpacked = cache / "debs", cache / "x"
    missing = [p for p in PACKAGES if not glob.glob(str(debs / f"{p}_*.deb"))]
    if missing:
        print(f"first run: apt-get download {' '.join(missing)} into {debs}", file=sys.stderr)
        debs.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", *missing], cwd=debs, check=True, stdout=subprocess.DEVNULL)
    for p in PACKAGES:
        dest = unpacked / p
        if (dest / ".done").exists():
            continue
        deb = sorted(glob.glob(str(debs / f"{p}_*.deb")))[-1]
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        if p == "rust-doc":
            subprocess.run(f"dpkg-deb --fsys-tarfile {deb} | tar -x -C {dest} --wildcards " + " ".join(f"'{m}'" for m in RUST_MEMBERS),
                           shell=True, check=True)
        else:
            subprocess.run(["dpkg-deb", "-x", deb, str(dest)], check=True)
        (dest / ".done").write_text("")


# ---------------------------------------------------------------- normalisation

def is_zh(lang: str) -> bool:
    return lang == "zh"


def norm(s: str, zh: bool) -> str:
    s = unicodedata.normalize("NFC", s)
    s = re.sub(r"!\[([^\]]*)\]\([^)]*\)", r"\1", s)
    s = re.sub(r"\]\(\s*<?[^)\s>]*>?(?:\s+\"[^\"]*\")?\)", "]", s)
    s = re.sub(r"<((?:https?|mailto):[^>\s]+)>", r"\1", s)
    s = re.sub(r"</?(?:br|sup|sub|kbd|code|em|strong|b|i|span)\s*/?>", " ", s)
    s = htmlmod.unescape(s)
    s = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", s)
    s = re.sub(r"[*_`\[\]|#~\u00b6\u200b\ufeff]", "", s)
    s = re.sub(r"^\s*>+", " ", s, flags=re.M)
    s = s.lower()
    return re.sub(r"\s+", "", s) if zh else " ".join(s.split())


def alnum(s: str) -> str:
    return re.sub(r"[\W_]+", "", s.lower())


def text_of(e) -> str:
    """text_content with <br> as a line break and block children separated."""
    parts = []

    def walk(x):
        if not isinstance(x.tag, str):
            if x.tail:
                parts.append(x.tail)
            return
        if x.tag in ("script", "style"):
            if x.tail:
                parts.append(x.tail)
            return
        block = x.tag in ("p", "div", "li", "br", "tr", "td", "th", "dt", "dd", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "ul", "ol", "dl")
        if block:
            parts.append("\n")
        if x.text:
            parts.append(x.text)
        for c in x:
            walk(c)
        if block:
            parts.append("\n")
        if x.tail and x is not e:
            parts.append(x.tail)

    walk(e)
    return "".join(parts)


# ---------------------------------------------------------------- ground truth

def spread(items: list, n: int) -> list:
    if len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def cut(t: str, zh: bool, where: str = "start") -> str:
    t = norm(t, zh)
    if zh:
        return t[:18] if where == "start" else t[-14:]
    w = t.split()
    if len(w) <= 12:
        return t
    return " ".join(w[:10]) if where == "start" else " ".join(w[-8:])


def load_source(kind: str | None, path: Path, xroot: Path) -> str | None:
    if kind == "sphinx":
        for cand in (Path(str(path).replace("/html/", "/html/_sources/", 1)).with_suffix(".rst.txt"),
                     Path(str(path).replace("/html/", "/html/_sources/", 1)).with_suffix(".txt")):
            if cand.exists():
                return cand.read_text(errors="replace")
        return None
    if kind == "nodemd":
        md = path.with_suffix(".md.gz")
        return gzip.open(md, "rt", errors="replace").read() if md.exists() else None
    if kind == "texinfo":
        t = path.with_suffix(".text.gz")
        return gzip.open(t, "rt", errors="replace").read() if t.exists() else None
    if kind in ("faq-en", "faq-zh"):
        base = xroot / "usr/share/doc/debian/FAQ"
        t = base / ("debian-faq.en.txt.gz" if kind == "faq-en" else "debian-faq.zh-cn.txt.gz")
        return gzip.open(t, "rt", errors="replace").read() if t.exists() else None
    return None


def ground_truth(raw: bytes, style: dict, public_url: str, source: str | None) -> dict:
    zh = is_zh(style["lang"])
    doc = lxml.html.document_fromstring(raw)
    title = norm(" ".join(doc.xpath("//title//text()")), zh)
    mains = []
    for xp in style["main"]:
        mains = doc.xpath(xp)
        if mains:
            break
    if not mains:
        return {}
    # boilerplate first (the nav regions may lie inside a main candidate such as body)
    nav_texts = []
    for xp in style["nav"]:
        for region in doc.xpath(xp):
            for el in region.iter("a", "li", "p", "span", "h2", "h3", "button", "label", "summary", "td", "div"):
                if el.tag == "div" and len(el):
                    continue
                nav_texts.append(" ".join(text_of(el).split()))
    for m in mains:
        for xp in style["drop"]:
            for d in m.xpath("." + xp if xp.startswith("//") else xp):
                if d.getparent() is not None and (d is not m):
                    d.drop_tree()
    for m in mains:
        for d in m.xpath(".//script|.//style|.//noscript"):
            d.drop_tree()
    main_norm = norm(" ".join(text_of(m) for m in mains), zh)
    heads_norm = norm(" ".join(text_of(h) for h in doc.xpath("//h1")), zh)  # a page title the generator puts outside main
    boiler, seen = [], set()
    for t in nav_texts:
        n = norm(t, zh)
        if not (4 <= len(n) <= 80) or n in seen or n in main_norm or n in title or n in heads_norm:
            continue
        if zh and len(n) < 3:
            continue
        if not zh and len(re.sub(r"[^a-z]", "", n)) < 4:
            continue
        seen.add(n)
        boiler.append(n)
    boiler = spread(boiler, 6)

    def els(xp):
        out = []
        for m in mains:
            out.extend(m.xpath(xp))
        return out

    snippets = []  # (kind, normalised, raw)

    def add(kind, raw_text, where="start", minlen=None):
        s = cut(raw_text, zh, where)
        if len(s) < (minlen or (6 if zh else 12)):
            return
        if source is not None and alnum(s) not in alnum(source):
            stats["dropped_by_source"] += 1
            return
        if s not in {x[1] for x in snippets}:
            snippets.append((kind, s, " ".join(raw_text.split())[:120]))

    heads = [h for h in els(".//h1|.//h2|.//h3|.//h4|.//h5|.//h6")]
    for h in spread(heads, 3):
        add("heading", text_of(h), minlen=4 if zh else 6)
    paras = [p for p in els(".//p|.//div[@class='para']") if len(text_of(p).split()) >= 6 or (zh and len(norm(text_of(p), True)) >= 20)]
    paras = [p for p in paras if not p.xpath("ancestor::li|ancestor::td|ancestor::th")]
    for p in spread(paras, 3):
        add("para", text_of(p))
    if paras:
        add("para-end", text_of(paras[-1]), "end")
    lis = [li for li in els(".//li") if not li.xpath(".//li|.//pre")]
    for li in spread(lis, 2):
        add("list", text_of(li))
    cells = [c for c in els(".//td|.//th") if 3 <= len(" ".join(text_of(c).split())) <= 100 and not c.xpath(".//table|.//pre")]
    for c in spread(cells, 2):
        add("table", text_of(c), minlen=4)
    code_lines = []
    for pre in els(".//pre"):
        lines = [ln for ln in text_of(pre).splitlines() if len(ln.strip()) >= 8]
        if lines:
            code_lines.append(lines[len(lines) // 2])
    for ln in spread(code_lines, 2):
        add("code", ln, minlen=6)
    boxes = [b for m in mains for b in m.xpath("." + BOX)]
    box_texts = []
    for b in boxes:
        ps = b.xpath(".//p|.//div[@class='para']") or [b]
        for p in ps:
            if len(norm(text_of(p), zh)) >= (10 if zh else 25):
                box_texts.append(text_of(p))
                break
    for t in spread(box_texts, 2):
        add("box", t)

    links = []
    for m in mains:
        for a in m.xpath(".//a[@href]"):
            href = a.get("href").strip()
            txt = " ".join(a.text_content().split())
            if not href or not txt or txt in ("¶", "#", "§") or re.match(r"(javascript|mailto|data):", href):
                continue
            if href.startswith("#"):
                kind = "#anchor"
            elif re.match(r"[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
                kind = "absolute"
            elif href.startswith("/"):
                kind = "root-relative"
            elif href.startswith("../"):
                kind = "../"
            else:
                kind = "relative"
            target = urljoin(public_url, href)
            kinds = [kind]
            if a.xpath("ancestor::pre"):
                kinds.append("in <pre>")
            elif a.xpath("ancestor::code|ancestor::tt|descendant::code"):
                kinds.append("in <code>")
            links.append((tuple(kinds), unquote(target)))
    # at most 12 links per kind and page, spread over the page
    by_kind = defaultdict(list)
    for ks, t in links:
        by_kind[ks[0]].append((ks, t))
    chosen = []
    for k in sorted(by_kind):
        chosen.extend(spread(by_kind[k], 12))
    for k in ("in <pre>", "in <code>"):
        extra = [x for x in links if k in x[0] and x not in chosen]
        have = sum(1 for x in chosen if k in x[0])
        chosen.extend(spread(extra, max(0, 8 - have)))
    return dict(snippets=snippets, boiler=boiler, links=chosen)


stats = defaultdict(int)


# ---------------------------------------------------------------- outputs

LINK_RE = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")
AUTO_RE = re.compile(r"<((?:https?)://[^>\s]+)>")


def out_links(md: str) -> set[str]:
    found = set(LINK_RE.findall(md)) | set(AUTO_RE.findall(md))
    found |= set(re.findall(r"href=\"([^\"]+)\"", md))
    return {unquote(u) for u in found}


def cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def ours_html(raw: bytes, fetch_url: str) -> str:
    from corpus_build.fetch.kinds.html import page_text

    return page_text(raw, fetch_url, "text/html", PAIRS)["markdown"]


def traf_html(raw: bytes, public_url: str) -> str:
    import trafilatura

    return trafilatura.extract(raw.decode("utf-8", "replace"), output_format="markdown", include_links=True, url=public_url) or ""


def ours_pdf(path: Path, tmp: Path) -> str:
    from corpus_build.fetch.kinds.pdf import extract_pdf

    out = tmp / (path.stem + ".md")
    r = extract_pdf(str(path), str(out))
    if "error" in r:
        return ""
    return out.read_text(errors="replace") if out.exists() else r.get("markdown", "")


def traf_pdf(path: Path, tmp: Path) -> str:
    import pymupdf

    with pymupdf.open(str(path)) as d:
        return "\n".join(p.get_text() for p in d)


# ---------------------------------------------------------------- selection

def select(style: dict, xroot: Path) -> list[Path]:
    root = xroot / style["pkg"] / style["root"]
    cands = set()
    for g in style["globs"]:
        cands.update(root.glob(g))
    out = []
    for p in sorted(cands):
        if style.get("exclude") and re.search(style["exclude"], str(p.relative_to(root))):
            continue
        size = p.stat().st_size
        if size < 3000 or size > style.get("maxsize", 10**7):
            continue
        if style.get("need") and not re.search(style["need"], p.read_text(errors="replace")[:3000]):
            continue
        out.append(p)
    rng = random.Random("bench21:" + style["name"] + ":" + style["lang"])
    return sorted(rng.sample(out, min(style["k"], len(out))))


def pdf_truth(xroot: Path, pkg: str, lang: str, companion) -> list[tuple[str, str, str]]:
    zh = is_zh(lang)
    kind, what = companion
    blocks = []
    if kind == "groff":
        roff = gzip.open(xroot / pkg / what, "rb").read()
        text = subprocess.run(["groff", "-Tutf8", "-man", "-P-cbou"], input=roff, capture_output=True).stdout.decode("utf-8", "replace")
        blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", text)]
    elif kind == "text":
        text = gzip.open(xroot / pkg / what, "rt", errors="replace").read()
        blocks = [" ".join(b.split()) for b in re.split(r"\n\s*\n", text)]
    else:
        for rel in what:
            doc = lxml.html.parse(str(xroot / pkg / rel)).getroot()
            blocks += [" ".join(text_of(p).split()) for p in doc.xpath("//p")]
    snippets = []
    for b in blocks:
        n = norm(b, zh)
        if zh:
            m = re.search(r"[\u4e00-\u9fff]{14}", n)
            if m:
                snippets.append(("pdf", m.group(0), b[:120]))
        else:
            w = n.split()
            for i in range(0, max(0, len(w) - 7)):
                win = w[i:i + 7]
                if all(re.fullmatch(r"[a-z]+[,.;:]?", x) for x in win):
                    snippets.append(("pdf", " ".join(win), b[:120]))
                    break
    uniq = []
    for s in snippets:
        if s[1] not in {u[1] for u in uniq}:
            uniq.append(s)
    return spread(uniq, 15)


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default="/tmp/bench21/cache")
    ap.add_argument("--show-misses", action="store_true")
    args = ap.parse_args()
    cache = Path(args.cache)
    ensure_cache(cache)
    xroot = cache / "x"
    tmp = Path(tempfile.mkdtemp(prefix="bench21-"))
    tools = ("ours", "trafilatura")
    # per (tool): counters
    rec = {t: defaultdict(lambda: [0, 0]) for t in tools}  # key -> [hit, total]
    boil = {t: [0, 0] for t in tools}
    boil_style = {t: defaultdict(lambda: [0, 0]) for t in tools}
    leaks = {t: 0 for t in tools}
    linkk = {t: defaultdict(lambda: [0, 0]) for t in tools}
    cputime = {t: 0.0 for t in tools}
    cpupdf = {t: 0.0 for t in tools}
    npages = 0
    inventory = []
    misses = []
    for style in STYLES:
        pages = select(style, xroot)
        zh = is_zh(style["lang"])
        for path in pages:
            rel = path.relative_to(xroot / style["pkg"] / style["root"]).as_posix()
            public = f"{PUBLIC}{style['pkg']}/{rel}"
            fetch = f"{FETCH}{style['pkg']}/{rel}"
            raw = path.read_bytes()
            source = load_source(style.get("source"), path, xroot / style["pkg"])
            gt = ground_truth(raw, style, public, source)
            if not gt:
                print(f"no main element: {path}", file=sys.stderr)
                continue
            npages += 1
            inventory.append((style["name"], style["pkg"], style["lang"], 1))
            for tool in tools:
                c0 = cpu()
                md = ours_html(raw, fetch) if tool == "ours" else traf_html(raw, public)
                cputime[tool] += cpu() - c0
                n = norm(md, zh)
                for kind, s, rawtxt in gt["snippets"]:
                    hit = s in n
                    for key in (("style", style["name"]), ("lang", style["lang"]), ("kind", kind), ("all", "")):
                        rec[tool][key][1] += 1
                        rec[tool][key][0] += hit
                    if not hit:
                        misses.append((tool, public, kind, rawtxt))
                for b in gt["boiler"]:
                    boil_style[tool][style["name"]][1] += 1
                    boil[tool][1] += 1
                    if (b in n) if zh else re.search(r"(?<!\w)" + re.escape(b) + r"(?!\w)", n):
                        boil[tool][0] += 1
                        boil_style[tool][style["name"]][0] += 1
                        misses.append((tool, public, "LEAKED boilerplate", b))
                got = out_links(md)
                leaks[tool] += sum(1 for u in got if "127.0.0.1" in u or "localhost:8000" in u)
                for kinds, target in gt["links"]:
                    ok = target in got
                    for k in kinds:
                        linkk[tool][k][1] += 1
                        linkk[tool][k][0] += ok
                    linkk[tool]["all links"][1] += 1
                    linkk[tool]["all links"][0] += ok
                    if not ok:
                        misses.append((tool, public, f"link {kinds[0]}", target))
    npdf = 0
    ligs = {t: 0 for t in tools}
    for rel, pkg, lang, maker, companion in PDFS:
        src = xroot / pkg / rel
        if companion[0] == "groff":
            dst = tmp / (Path(rel).name[:-3] + ".pdf")
            made = subprocess.run(["groff", "-Tpdf", "-man"], input=gzip.open(src, "rb").read(), capture_output=True)
            if made.returncode or not made.stdout:
                print(f"skipped {rel}: groff -Tpdf unavailable (apt-get install groff)", file=sys.stderr)
                continue
            dst.write_bytes(made.stdout)
            src = dst
        elif rel.endswith(".gz"):
            dst = tmp / Path(rel).name[:-3]
            with gzip.open(src, "rb") as f, open(dst, "wb") as g:
                shutil.copyfileobj(f, g)
            src = dst
        snippets = pdf_truth(xroot, pkg, lang, companion)
        npdf += 1
        inventory.append((f"PDF: {maker}", pkg, lang, 1))
        zh = is_zh(lang)
        for tool in tools:
            c0 = cpu()
            md = ours_pdf(src, tmp) if tool == "ours" else traf_pdf(src, tmp)
            cpupdf[tool] += cpu() - c0
            ligs[tool] += len(re.findall("[\ufb00-\ufb06]", md))
            n = norm(md, zh)
            for kind, s, rawtxt in snippets:
                hit = s in n
                for key in (("pdf", f"PDF {lang}"), ("pdf", "PDF all")):
                    rec[tool][key][1] += 1
                    rec[tool][key][0] += hit
                if not hit:
                    misses.append((tool, src.name, kind, s))

    def pct(hc):
        h, t = hc
        return f"{h}/{t} ({100 * h / t:.0f}%)" if t else "-"

    print("## Inventory")
    agg = defaultdict(int)
    for name, pkg, lang, n in inventory:
        agg[(name, pkg, lang)] += n
    for (name, pkg, lang), n in agg.items():
        print(f"- {name} [{pkg}, {lang}]: {n}")
    zh_pages = sum(n for (name, pkg, lang), n in agg.items() if lang == "zh" and not name.startswith("PDF"))
    print(f"HTML pages {npages} (Chinese {zh_pages}), PDFs {npdf}; snippets dropped as not in the shipped source: {stats['dropped_by_source']}")
    print()
    print("| measure | ours | trafilatura (pymupdf for PDF) |")
    print("|---|---|---|")
    keys = [k for k in rec["ours"] if k[0] == "style"] + [k for k in rec["ours"] if k[0] == "lang"] + \
        [k for k in rec["ours"] if k[0] == "kind"] + [("all", "")] + [k for k in rec["ours"] if k[0] == "pdf"]
    labels = {"style": "recall, style: ", "lang": "recall, lang: ", "kind": "recall, snippet kind: ", "all": "recall, all HTML snippets", "pdf": "recall, "}
    for k in keys:
        print(f"| {labels[k[0]]}{k[1]} | {pct(rec['ours'][k])} | {pct(rec['trafilatura'][k])} |")
    print(f"| boilerplate strings leaked | {pct(boil['ours'])} | {pct(boil['trafilatura'])} |")
    for name in boil_style["ours"]:
        print(f"| boilerplate leaked, style: {name} | {pct(boil_style['ours'][name])} | {pct(boil_style['trafilatura'][name])} |")
    print(f"| links published at the fetch address (127.0.0.1) | {leaks['ours']} | {leaks['trafilatura']} |")
    for k in sorted(set(linkk["ours"]) | set(linkk["trafilatura"])):
        print(f"| main-text links kept, {k} | {pct(linkk['ours'][k])} | {pct(linkk['trafilatura'][k])} |")
    per = {t: 1000 * cputime[t] / max(npages, 1) for t in tools}
    print(f"| CPU ms per HTML page | {per['ours']:.0f} ({per['ours'] / max(per['trafilatura'], 1e-9):.2f}x) | {per['trafilatura']:.0f} (1x) |")
    perp = {t: 1000 * cpupdf[t] / max(npdf, 1) for t in tools}
    print(f"| CPU ms per PDF | {perp['ours']:.0f} ({perp['ours'] / max(perp['trafilatura'], 1e-9):.2f}x) | {perp['trafilatura']:.0f} (1x) |")
    print(f"| PDF: ligature glyphs (U+FB00-FB06) left in the text | {ligs['ours']} | {ligs['trafilatura']} |")
    if args.show_misses:
        print("\n## Misses")
        for m in misses:
            print(" | ".join(m))
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
