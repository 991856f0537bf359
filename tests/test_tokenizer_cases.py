"""One tokenizer for the index and the worker (issue 36, item 10): a table of hard cases, cut by
Python (site/hanfold.py's Fold.text, site/fulltext.py's terms) and by the search worker
(corpus-fulltext.js) in Chromium, must give the same terms; and each case's text, indexed, is found
by a query that types it.

Before this test the worker kept combining marks inside words while Python cut words at them
(İstanbul: Python i + stanbul, the worker i̇stanbul), and Chinese of the astral extensions was
not Chinese on either side."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest

from corpus_build.site import ftindex, fulltext
from corpus_build.site.hanfold import default_fold
from tests.site_helpers import chromium, playwright_or_skip, serve

WORKERS = Path(fulltext.__file__).parent / "overrides" / "assets" / "javascripts" / "workers"

# (what makes it hard, text). Written by hand; each is also the query that must find it.
CASES: list[tuple[str, str]] = [
    ("CJK Extension B, astral, with BMP Chinese around it", "中𠮷文字"),
    ("a run of Extension B characters", "𠀀𠀁𠀂"),
    ("CJK Extension G, astral", "\U00030000\U00030001 kernel"),
    ("compatibility ideograph NFKC folds (U+F900)", "\uf900"),
    ("compatibility ideograph NFKC keeps (U+FA11)", "\ufa11崎"),
    ("compatibility supplement ideograph (U+2F800)", "\U0002f800字"),
    ("combining acute that composes", "e\u0301cole"),
    ("combining dot that does not compose", "q\u0307uark"),
    ("Turkish dotted capital I", "İstanbul"),
    ("Turkish dotless i", "ıstanbul"),
    ("full-width Latin", "ＴｉｌｅＬａｎｇ"),
    ("full-width digits and letters", "ｓｍ９０ kernels"),
    ("ideographic space and full-width comma", "算子\u3000融合，内核"),
    ("emoji glued to words", "🚀kernel❤\ufe0ffusion"),
    ("emoji ZWJ sequence", "👩\u200d💻 coder"),
    ("keycap digit", "1\ufe0f\u20e3 step"),
    ("ideographic variation selector on Han", "葛\U000e0100城"),
    ("ligature", "\ufb01netune"),
    ("Greek final sigma", "ΟΔΟΣ"),
    ("German sharp s", "STRAẞE straße"),
    ("inner underscores", "enable_tma __init__"),
    ("plural after an astral letter", "\U00010330\U00010330s"),
    ("digit before a final s", "h100s"),
    ("Traditional with a Taiwanese term", "記憶體頻寬"),
    ("Latin glued to Chinese", "vLLM昇腾"),
]


def _python_terms(text: str) -> list[str]:
    return fulltext.terms(default_fold().text(text))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> Path:
    """A site with one mirror page per case, indexed by site/fulltext.py, and the worker's scripts."""
    site = tmp_path_factory.mktemp("tokens") / "site"
    pages = []
    for number, (_why, text) in enumerate(CASES):
        path = site / "sources" / f"case{number}" / "text" / "index.html"
        path.parent.mkdir(parents=True)
        path.write_text(f'<article class="md-content__inner md-typeset"><div class="cb-extracted"><p>{html.escape(text)}</p></div></article>',
                        encoding="utf-8")
        pages.append(fulltext.Page(f"sources/case{number}/text/", f"case {number}", path))
    # Few passage files to a directory: the worker finds them through the manifest's directories
    # (fulltext._directories), as it does in a corpus of thousands of pages.
    default, fulltext.DIR_CHUNKS = fulltext.DIR_CHUNKS, 4
    try:
        ftindex.build(site, pages, default_fold())
    finally:
        fulltext.DIR_CHUNKS = default
    assert '"dirs":' in (site / fulltext.FOLDER / "index.js").read_text(encoding="utf-8")
    shutil.copytree(WORKERS, site / "assets" / "javascripts" / "workers")
    (site / "index.html").write_text("<!doctype html><title>t</title>", encoding="utf-8")
    return site


# corpus-fulltext.js run in the page itself (its importScripts a synchronous request), over http.
HARNESS = """
async (worker) => {
  self.importScripts = function () {
    for (const url of arguments) {
      const x = new XMLHttpRequest(); x.open("GET", url, false); x.send();
      if (x.status !== 200) throw new Error("cannot load " + url);
      (0, eval)(x.responseText);
    }
  };
  self.importScripts(worker.replace("corpus-search.js", "corpus-fulltext.js"));
  self.cbFulltext.init(worker);
  await self.cbFulltext.open();
}
"""


@pytest.mark.browser
def test_python_and_the_worker_cut_every_hard_case_alike_and_find_it(indexed):
    sync_api = playwright_or_skip()
    rows, differ, missed = [], [], []
    with serve(indexed) as url, chromium(sync_api) as browser:
        page = browser.new_page()
        page.goto(url)
        page.evaluate(HARNESS, url + "assets/javascripts/workers/corpus-search.js")
        for number, (why, text) in enumerate(CASES):
            python = _python_terms(text)
            worker = page.evaluate("t => self.cbFulltext.indexTerms(t)", text)
            query = page.evaluate("t => self.cbFulltext.queryTerms(t)", text)
            # The query's clauses, each with its alternatives in the query's language (the last is the index's form:
            # Taiwanese terms folded); the other language's (site/crossterms.py) are left out here.
            flat = [term for clause in query for term in clause[-1]]
            items = page.evaluate("async t => (await self.cbFulltext.answer(t, {items: []})).items.map(g => g[0].location)", text)
            found = f"sources/case{number}/text/" in items
            rows.append(f"{why:52} {text!r:28} python {python} worker {worker} query {flat} found {found}")
            if python != worker or python != flat:
                differ.append(rows[-1])
            if not found:
                missed.append(rows[-1])
        page.close()
    print("\nhard cases (what, text, Python's terms, the worker's terms for the index and for a query, found):\n" + "\n".join(rows))
    assert python_terms_are_words(), "a case indexes nothing"
    assert differ == [], "\n".join(differ)
    assert missed == [], "\n".join(missed)


def python_terms_are_words() -> bool:
    return all(_python_terms(text) for _why, text in CASES)


def test_astral_chinese_is_cut_into_pairs_and_marks_never_split_a_word():
    assert _python_terms("中𠮷文字") == ["中𠮷", "𠮷文", "文字"]
    assert _python_terms("İstanbul") == _python_terms("istanbul") == ["istanbul"]
    assert _python_terms("q\u0307uark") == ["quark"]
    assert _python_terms("🚀kernel❤\ufe0ffusion") == ["kernel", "fusion"]
