"""How faithfully HTML pages come out as Markdown: corpus-build's extractor against trafilatura alone.

    python scripts/bench_extract.py [--repeat N] [--show-misses]

Pages: real manuals installed from Debian packages (python3-doc: Sphinx; git-doc:
AsciiDoc man pages and guides; debian-reference-zh-cn and maint-guide-zh-cn: DocBook,
Simplified Chinese; python-bs4-doc: another Sphinx theme), plus pages written here
for shapes Debian lacks (an article with images and chrome around it, a page with a
<base href> and relative links under a sub-path, an option reference, MkDocs Material and
Docusaurus layouts, a JavaScript shell page).

Snippets are derived from each page's own HTML by rules written here, independent of
the extractor: after dropping what the page marks as chrome (nav, footer, aside,
ARIA landmarks, the generators' sidebar and nav-bar classes, permalink markers; but a box of
prose among the text's paragraphs, a TIP box or a Sphinx `.. sidebar::`, is text), take
prose from the start, middle and end, one line of each kind of code block, table
cells, headings, list items and definition terms. Both outputs are normalised the
same way (Markdown links/escapes/emphasis and all whitespace removed) before a
snippet is looked for.

Leaks: text only found in script/style elements or in navigation, appearing in the
output. Mis-resolved links: a link target in the output that is not what a browser
would resolve one of the page's own hrefs to.

Install the pages with: apt-get install python3-doc git-doc debian-reference-zh-cn maint-guide-zh-cn python-bs4-doc
"""

from __future__ import annotations

import argparse
import html as htmllib
import re
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote, urljoin

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

DEBIAN = {
    "python3-doc": (Path("/usr/share/doc/python3.11/html"), [
        "contents.html", "glossary.html", "tutorial/classes.html", "tutorial/controlflow.html", "tutorial/datastructures.html",
        "tutorial/introduction.html", "library/os.html", "library/re.html", "library/stdtypes.html", "library/functions.html",
        "library/argparse.html", "library/datetime.html", "library/string.html", "library/asyncio-task.html",
        "reference/expressions.html", "reference/datamodel.html", "using/configure.html", "howto/logging.html",
        "faq/programming.html", "whatsnew/3.11.html", "library/index.html", "license.html",
    ]),
    "git-doc": (Path("/usr/share/doc/git-doc"), [
        "git-clone.html", "git-config.html", "git-log.html", "gittutorial.html", "user-manual.html", "MyFirstContribution.html",
        "git-rebase.html", "git-commit.html", "giteveryday.html", "git-status.html",
    ]),
    "debian-reference-zh-cn": (Path("/usr/share/debian-reference"), [
        "ch01.zh-cn.html", "ch02.zh-cn.html", "ch03.zh-cn.html", "ch04.zh-cn.html", "index.zh-cn.html", "apa.zh-cn.html",
    ]),
    "maint-guide-zh-cn": (Path("/usr/share/doc/maint-guide-zh-cn/html"), [
        "start.zh-cn.html", "first.zh-cn.html", "dreq.zh-cn.html", "index.zh-cn.html",
    ]),
    "python-bs4-doc": (Path("/usr/share/doc/python-bs4-doc/html"), ["index.html"]),
}

_CHROME_TAGS = {"nav", "footer", "script", "style", "noscript", "template", "button", "form"}
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "search", "complementary"}
# The generators' own names for their chrome (Sphinx, DocBook, AsciiDoc), and common site words.
_CHROME_CLASSES = {"sphinxsidebar", "related", "footer", "navheader", "navfooter", "headerlink", "mobile-nav",
                   "menu-wrapper", "sidebar", "cookie-banner", "site-nav", "breadcrumbs",
                   "table-of-contents"}  # Docusaurus' on-page TOC column: links repeating the headings
_CJK = re.compile(r"[\u3400-\u9fff]")


def _classes(el) -> set[str]:
    return set((el.get("class") or "").split()) | ({el.get("id")} if el.get("id") else set())


def box_in_text(el) -> bool:
    """An <aside> or `sidebar` box standing among the text's paragraphs and headings, not mostly
    links: a TIP box, a Sphinx `.. sidebar::` (issue 21: content, not chrome)."""
    if not (el.tag == "aside" or "sidebar" in _classes(el)):
        return False
    parent = el.getparent()
    if parent is None or not any(c is not el and c.tag in ("p", "h1", "h2", "h3", "h4", "h5", "h6") for c in parent):
        return False
    words = len(re.sub(r"\s+", "", el.text_content()))
    linked = sum(len(re.sub(r"\s+", "", a.text_content())) for a in el.iter("a"))
    return words > 0 and 2 * linked < words


def is_chrome(el) -> bool:
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if not tag:
        return True
    if tag in _CHROME_TAGS or (el.get("role") or "") in _CHROME_ROLES:
        return True
    if box_in_text(el):
        return False
    if tag == "aside" and "footnote" not in (el.get("class") or ""):
        return True
    if tag == "header" and el.getparent() is not None and el.getparent().tag == "body":
        return True
    return bool(_classes(el) & _CHROME_CLASSES)


def content_elements(root):
    """Elements of <body> not inside chrome."""
    body = root.find(".//body")
    stack = [body if body is not None else root]
    while stack:
        el = stack.pop()
        if is_chrome(el):
            continue
        yield el
        stack.extend(reversed(list(el)))


def text_of(el) -> str:
    """The element's text, chrome inside it left out."""
    parts: list[str] = []

    def walk(node) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if isinstance(child.tag, str) and not is_chrome(child):
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(el)
    return re.sub(r"\s+", " ", "".join(parts)).strip()


_NESTED = {"ul", "ol", "dl", "pre", "table", "blockquote", "div", "p"}


def own_text(el) -> str:
    """A list item's own words: its text up to the first nested block (a first <p> counts as its own)."""
    parts = [el.text or ""]
    for child in el:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag in _NESTED:
            if tag == "p" and not "".join(parts).strip():
                return text_of(child)
            break
        if tag and not is_chrome(child):
            parts.append(text_of(child))
        parts.append(child.tail or "")
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def _pick(items: list, n: int = 3) -> list:
    if len(items) <= 3 * n:
        return items
    mid = len(items) // 2
    return items[:n] + items[mid - n // 2 : mid - n // 2 + n] + items[-n:]


def snippets(root) -> list[tuple[str, str]]:
    """(kind, text) pairs from the page's own HTML."""
    out: list[tuple[str, str]] = []
    paragraphs, code_kinds, cells, headings, items, terms = [], {}, [], [], [], []
    for el in content_elements(root):
        tag = el.tag.lower()
        if tag == "p":
            text = text_of(el)
            if len(text) >= (15 if _CJK.search(text) else 40):
                paragraphs.append(text[:160])
        elif tag == "pre":
            kind = " ".join(sorted(_classes(el) | _classes(el.getparent()))) or "pre"
            lines = [line.strip() for line in el.text_content().splitlines() if len(line.strip()) >= 4]
            if lines and kind not in code_kinds:
                code_kinds[kind] = lines[len(lines) // 2]
        elif tag in ("td", "th"):
            text = text_of(el)
            table = next(el.iterancestors("table"), None)
            width = max((len(tr.findall("td")) + len(tr.findall("th")) for tr in table.iter("tr")), default=0) if table is not None else 0
            if len(text) >= 3 and width >= 2:
                cells.append(text[:100])
        elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            text = text_of(el).rstrip("¶").strip()
            if text:
                headings.append(text)
        elif tag == "li":
            text = own_text(el)
            if len(text) >= 10:
                items.append(text[:100])
        elif tag == "dt":
            text = text_of(el).rstrip("¶").strip()
            if len(text) >= 3:
                terms.append(text[:100])
    thirds = len(paragraphs) // 3
    for i, kind in ((0, "prose-start"), (thirds, "prose-middle"), (2 * thirds, "prose-end")):
        part = paragraphs[i : i + thirds] if kind != "prose-end" else paragraphs[2 * thirds :]
        if kind == "prose-start" and not thirds:
            part = paragraphs
        out += [(kind, p) for p in _pick(part, 2)]
    out += [("code", line) for line in code_kinds.values()]
    out += [("table", c) for c in _pick(cells)]
    out += [("heading", h) for h in _pick(headings, 4)]
    out += [("list", i) for i in _pick(items)]
    out += [("term", t) for t in _pick(terms)]
    return out


def leaks(root) -> list[str]:
    """Strings found only in script/style and navigation elements."""
    content = norm(" ".join(text_of(el) for el in content_elements(root) if el.tag in ("p", "pre", "td", "li", "dt", "dd", "h1", "h2", "h3", "div")))
    found = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        tag = el.tag.lower()
        if tag in ("script", "style"):
            chunks = [line.strip() for line in (el.text or "").splitlines() if len(line.strip()) >= 20]
        elif (tag in ("nav", "footer") or el.get("role") == "navigation" or _classes(el) & {"sphinxsidebar", "related", "navheader", "navfooter", "cookie-banner", "sidebar"}) \
                and not box_in_text(el):
            chunks = [re.sub(r"\s+", " ", t).strip() for t in el.itertext()]
            chunks = [c for c in chunks if len(c) >= 12]
        else:
            continue
        found += [c for c in chunks if norm(c) and norm(c) not in content]
    return list(dict.fromkeys(found))[:40]


_LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^)\s]*)(?:\s+\"[^\"]*\")?\)")


def norm(text: str) -> str:
    text = htmllib.unescape(text)
    for _ in range(2):
        text = _LINK.sub(r"\1", text)
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    text = text.replace("*", "").replace("`", "").replace("¶", "")
    return re.sub(r"\s+", "", text)


def expected_links(root, page_url: str) -> set[str]:
    base = page_url
    base_el = root.find(".//base")
    if base_el is not None and base_el.get("href"):
        base = urljoin(page_url, base_el.get("href"))
    wanted = set()
    for el in root.iter("a", "img"):
        value = (el.get("href") if el.tag == "a" else el.get("src")) or ""
        value = value.strip()
        if not value or value.startswith(("javascript:", "data:")):
            continue
        url = urljoin(page_url if value.startswith("#") else base, value)
        wanted.add(unquote(url))
    return wanted


def misresolved(markdown: str, wanted: set[str]) -> list[str]:
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)", markdown):
        if target.startswith("mailto:"):
            continue
        if unquote(target) not in wanted:
            bad.append(target)
    return bad


# --- the two approaches, as the fetch stage runs them (decode, parse, text, metadata) ----------


def ours(data: bytes, url: str) -> str:
    from corpus_build.fetch.kinds.html import page_text

    return page_text(data, url, "text/html")["markdown"]


def trafilatura_alone(data: bytes, url: str) -> str:
    import trafilatura

    from corpus_build.fetch.kinds.html import decode_html

    text, _ = decode_html(data, "text/html")
    tree = trafilatura.load_html(text)
    if tree is None:
        return ""
    markdown = trafilatura.extract(tree, url=url, output_format="markdown", include_tables=True, include_links=True,
                                   include_images=True, include_formatting=True, favor_recall=True) or ""
    trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    return markdown


def markdownify_region(data: bytes, url: str) -> str:
    """The other structure-keeping candidate: markdownify (BeautifulSoup) over the same main region."""
    import lxml.html
    import trafilatura
    from markdownify import markdownify

    from corpus_build.fetch.extract import find_region
    from corpus_build.fetch.kinds.html import decode_html

    text, _ = decode_html(data, "text/html")
    tree = trafilatura.load_html(text)
    if tree is None:
        return ""
    region, _label = find_region(tree)
    markdown = markdownify(lxml.html.tostring(region, encoding="unicode"), heading_style="ATX", strip=["script", "style", "nav", "footer"])
    trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    return markdown


# --- pages written here --------------------------------------------------------------------

HANDWRITTEN = {
    "article-with-images": ("https://blog.example.org/posts/2024/tiles.html", """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<title>瓦片与内存层级</title><script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}</script></head><body>
<div class="cookie-banner">We use cookies to improve your experience on this website. Accept all cookies</div>
<header><a href="/">Example Blog home</a><nav><a href="/archive/">Archive of every post</a> <a href="/about/">About the authors here</a></nav></header>
<article><h1>瓦片与内存层级</h1><p>本文解释瓦片如何映射到 GPU 的内存层级，以及为何共享内存的布局决定了带宽。</p>
<figure><img src="../../img/tiles.png" alt="瓦片示意图"><figcaption>图 1：一个 128×128 的瓦片被分成四个 warp 负责的子块。</figcaption></figure>
<p>第二段说明了双缓冲：当一个缓冲区在计算时，另一个缓冲区正在从全局内存加载数据。</p>
<img src="/img/pipeline.webp" alt="流水线">
<p>The last paragraph, in English, says that the <a href="../2023/gemm.html">earlier post on GEMM</a> covers the baseline.</p>
</article><aside class="sidebar"><h3>Related posts you might like</h3><ul><li><a href="/p/1">Another unrelated article title</a></li></ul></aside>
<footer>Copyright 2024 Example Blog, all rights reserved worldwide</footer></body></html>"""),
    "base-href-subpath": ("https://docs.example.org/guide/v2/start/intro.html", """<!doctype html><html><head><base href="https://docs.example.org/guide/v2/">
<title>Intro</title></head><body><main><h1>Getting started with the guide</h1>
<p>Read the <a href="concepts/tiles.html">concepts page about tiles</a> first, then <a href="#install">the install section</a> below, and the <a href="../v1/old.html">old version</a>.</p>
<h2 id="install">Install</h2><pre class="language-bash"><code>pip install example-guide --upgrade</code></pre>
<dl><dt>--upgrade</dt><dd><p>Installs the newest release even when one is present.</p></dd></dl>
<p>Footnotes follow the text.<sup><a href="#fn1" id="r1">1</a></sup></p>
<ol class="footnotes"><li id="fn1">The guide follows semantic versioning for every release.</li></ol>
</main><nav class="site-nav"><a href="/">Documentation home page link</a></nav></body></html>"""),
    "definition-table-page": ("https://docs.example.org/ref/api/options.html", """<!doctype html><html><head><title>Options</title></head><body>
<div role="main"><h1>Option reference</h1><p>This reference lists each option together with its default value and meaning.</p>
<table><thead><tr><th>Option</th><th>Default</th><th>Meaning</th></tr></thead><tbody>
<tr><td><code>block_M</code></td><td>128</td><td>Rows of the output tile computed per block</td></tr>
<tr><td><code>num_stages</code></td><td>3</td><td>Depth of the software pipeline in stages</td></tr></tbody></table>
<ul><li>First level item with words<ul><li>Nested item that must survive</li></ul></li><li>Second top-level entry of the list</li></ul>
<pre class="highlight-python3"><code>def kernel(A, B):
    return T.gemm(A, B)</code></pre></div>
<div class="sphinxsidebar"><p>Quick search in the whole documentation</p></div></body></html>"""),
    "mkdocs-material-shape": ("https://docs.example.org/tilelang/latest/tutorials/gemm/", """<!doctype html><html lang="en"><head><title>GEMM</title></head><body>
<header class="md-header"><nav class="md-header__inner"><a href="../../">TileLang documentation home</a></nav></header>
<div class="md-container"><main class="md-main"><div class="md-main__inner md-grid">
<div class="md-sidebar md-sidebar--primary"><nav class="md-nav md-nav--primary"><ul><li><a href="../">Every tutorial in the series</a></li></ul></nav></div>
<div class="md-sidebar md-sidebar--secondary"><nav class="md-nav md-nav--secondary"><a href="#tiles">Table of contents entry</a></nav></div>
<div class="md-content"><article class="md-content__inner md-typeset"><h1 id="gemm">Writing a GEMM kernel</h1>
<p>This tutorial writes a tiled matrix multiplication and explains every line of the kernel.</p>
<div class="admonition note"><p class="admonition-title">Note</p><p>The kernel assumes square tiles of 128 by 128 elements.</p></div>
<h2 id="tiles">Tiles</h2><div class="highlight"><pre><span></span><code class="language-python">@T.prim_func
def gemm(A: T.Tensor((M, K), dtype)):
    T.copy(A[by * block_M, k * block_K], A_shared)</code></pre></div>
<table><thead><tr><th>Parameter</th><th>Value</th></tr></thead><tbody><tr><td>block_M</td><td>128</td></tr></tbody></table>
<p>See <a href="../flash-attention/">the flash attention tutorial</a> next.</p></article></div></div></main>
<footer class="md-footer"><nav class="md-footer__inner"><a href="../flash-attention/">Next: Flash attention tutorial</a></nav></footer></div></body></html>"""),
    "docusaurus-shape": ("https://developer.example.org/docs/ascend/intro", """<!doctype html><html lang="zh-CN"><head><title>昇腾简介</title></head><body>
<nav class="navbar"><a class="navbar__brand" href="/">Developer portal home page</a></nav><div class="main-wrapper">
<aside class="theme-doc-sidebar-container"><nav class="menu"><a class="menu__link" href="/docs/ascend/cann">CANN 软件栈的侧栏链接</a></nav></aside>
<main class="docMainContainer"><div class="container"><div class="row"><div class="col"><article><div class="theme-doc-markdown markdown">
<h1>昇腾处理器简介</h1><p>昇腾处理器采用达芬奇架构，其中 Cube 单元负责矩阵运算，Vector 单元负责向量运算。</p>
<ul><li>Cube 单元：每个周期完成一次 16×16×16 的矩阵乘</li><li>Vector 单元：处理逐元素运算与归约</li></ul>
<pre class="prism-code language-bash"><code>npu-smi info</code></pre></div></article>
<nav class="pagination-nav"><a href="/docs/ascend/next">下一页：算子开发入门教程</a></nav></div>
<div class="col col--3"><div class="tableOfContents"><ul class="table-of-contents"><li><a href="#cube">目录中的一个条目</a></li></ul></div></div>
</div></div></main></div><footer class="footer">© 2024 Example developer portal footer</footer></body></html>"""),
}
JS_SHELL = ("https://portal.example.org/docs/zh/overview", """<!doctype html><html><head><meta charset="utf-8"><title>文档中心</title></head>
<body><noscript>请启用 JavaScript 以浏览本站 (please enable JavaScript)</noscript><div id="app"></div>
<script>document.getElementById('app').innerHTML = '<main><h1>昇腾算子开发概览</h1><p>算子开发分为三个阶段：分析、实现与调优，本页逐一说明每个阶段的要点。</p></main>';</script></body></html>""",
            [("prose-start", "算子开发分为三个阶段：分析、实现与调优，本页逐一说明每个阶段的要点。"), ("heading", "昇腾算子开发概览")])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="timing runs per page, the fastest counts (3 steadies the times; the run takes ~3x longer)")
    parser.add_argument("--show-misses", action="store_true", help="print every snippet our extractor missed")
    args = parser.parse_args()
    pages: list[tuple[str, str, bytes]] = []
    missing = []
    for package, (root, names) in DEBIAN.items():
        found = [n for n in names if (root / n).is_file()]
        if not found:
            missing.append(package)
        for name in found:
            pages.append((f"{package}/{name}", f"https://docs.example.org/{package}/{name}", (root / name).read_bytes()))
    if len(pages) < 40:
        print(f"bench_extract: needs the Debian documentation packages ({', '.join(missing)} not installed; {len(pages)} pages found, 40 wanted).")
        print("Install them with: apt-get install -y python3-doc git-doc debian-reference-zh-cn maint-guide-zh-cn python-bs4-doc")
        return 0
    for name, (url, text) in HANDWRITTEN.items():
        pages.append((f"handwritten/{name}", url, text.encode("utf-8")))

    import trafilatura

    from corpus_build.fetch.kinds.html import decode_html

    approaches = [("ours", ours), ("trafilatura", trafilatura_alone)]
    try:
        import markdownify  # noqa: F401  - optional: a third column when installed

        approaches.append(("markdownify", markdownify_region))
    except ImportError:
        print("(markdownify not installed: its column is left out; pip install markdownify to add it)")
    names = [name for name, _ in approaches]
    recall: dict[str, dict[str, list[int]]] = {name: defaultdict(lambda: [0, 0]) for name in names}
    leak_count = dict.fromkeys(names, 0)
    bad_links = dict.fromkeys(names, 0)
    times: dict[str, list[float]] = {name: [] for name in names}
    misses: list[str] = []
    leak_candidates = 0
    by_lang: dict[str, dict[str, list[int]]] = {name: defaultdict(lambda: [0, 0]) for name in names}
    for label, url, data in pages:
        root = trafilatura.load_html(decode_html(data, "text/html")[0])  # decoded and parsed as the fetch stage does
        wanted = expected_links(root, url)
        page_snippets = snippets(root)
        page_leaks = leaks(root)
        leak_candidates += len(page_leaks)
        for name, fn in approaches:
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                markdown = fn(data, url)
                best = min(best, time.perf_counter() - start)
            times[name].append(best * 1000)
            flat = norm(markdown)
            for kind, snippet in page_snippets:
                hit = norm(snippet) in flat
                recall[name][kind][0] += hit
                recall[name][kind][1] += 1
                lang = "zh" if _CJK.search(snippet) else "en"
                by_lang[name][lang][0] += hit
                by_lang[name][lang][1] += 1
                if not hit and name == "ours":
                    misses.append(f"{label} [{kind}] {snippet[:90]}")
            leaked = [c for c in page_leaks if norm(c) in flat]
            leak_count[name] += len(leaked)
            if leaked and name == "ours":
                misses.append(f"{label} [LEAK] {leaked[:3]}")
            bad = misresolved(markdown, wanted)
            bad_links[name] += len(bad)
            if bad and name == "ours":
                misses.append(f"{label} [LINK] {bad[:3]}")

    print(f"{len(pages)} pages ({len(pages) - len(HANDWRITTEN)} from Debian packages, {len(HANDWRITTEN)} written here); "
          f"{sum(v[1] for v in recall['ours'].values())} snippets; {leak_candidates} script/navigation strings watched for leaks")
    kinds = sorted(recall["ours"])
    header = f"{'':<16}" + "".join(f"{k:>13}" for k in kinds) + f"{'overall':>10}{'leaks':>7}{'bad links':>10}{'ms/page':>9}"
    print(header)
    for name in names:
        cells = "".join(f"{100 * recall[name][k][0] / recall[name][k][1]:>12.1f}%" for k in kinds)
        hit = sum(v[0] for v in recall[name].values())
        total = sum(v[1] for v in recall[name].values())
        ms = statistics.mean(times[name])
        print(f"{name:<16}{cells}{100 * hit / total:>9.1f}%{leak_count[name]:>7}{bad_links[name]:>10}{ms:>9.1f}")
    for name in names:
        print(f"recall by language, {name}: " + ", ".join(f"{lang} {100 * h / t:.1f}% of {t}" for lang, (h, t) in sorted(by_lang[name].items())))
    ratio = statistics.mean(times["ours"]) / statistics.mean(times["trafilatura"])
    print(f"time per page, ours / trafilatura: {ratio:.2f}x (median page {statistics.median(times['ours']):.1f} ms vs {statistics.median(times['trafilatura']):.1f} ms)")
    shells = [label for label, _url, data in pages if label.startswith(tuple(DEBIAN)) and _is_shell(data)]
    print(f"JS shell false alarms among the Debian pages: {len(shells)}/{len(pages) - len(HANDWRITTEN)}" + (f" ({', '.join(shells)})" if shells else ""))
    _shell_line()
    if args.show_misses or misses:
        print(f"\n{len(misses)} misses of our extractor" + (":" if args.show_misses else " (--show-misses lists them)"))
        if args.show_misses:
            for line in misses:
                print("  " + line)
    return 0


def _is_shell(data: bytes) -> bool:
    import trafilatura

    from corpus_build.fetch.extract import shell_signals
    from corpus_build.fetch.kinds.html import decode_html

    tree = trafilatura.load_html(decode_html(data, "text/html")[0])
    return tree is not None and bool(shell_signals(tree, len(data)))


def _shell_line() -> None:
    """The JavaScript shell page: detected, and (with Chromium) rendered and extracted."""
    import trafilatura

    from corpus_build.fetch.extract import shell_signals

    url, text, wanted = JS_SHELL
    tree = trafilatura.load_html(text)
    signals = shell_signals(tree, len(text.encode()))
    plain = norm(trafilatura_alone(text.encode(), url))
    traf_hits = sum(norm(s) in plain for _k, s in wanted)
    line = f"JS shell page: detected={'yes' if signals else 'NO'}; trafilatura alone finds {traf_hits}/{len(wanted)} snippets"
    try:
        from corpus_build.fetch.browser import render_html_sync

        rendered = render_html_sync(url, text.encode())
    except Exception as exc:  # noqa: BLE001 - no browser here: say so, the numbers above stand
        print(line + f"; not rendered ({exc})")
        return
    flat = norm(ours(rendered.encode(), url))
    print(line + f"; rendered in Chromium, ours finds {sum(norm(s) in flat for _k, s in wanted)}/{len(wanted)}")


if __name__ == "__main__":
    sys.exit(main())
