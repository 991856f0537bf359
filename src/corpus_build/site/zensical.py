"""After a Zensical build: the `corpus` plugin's steps that need no MkDocs, run on Zensical's output.

Zensical (0.0.73) reads mkdocs.yml but runs no MkDocs plugins, so `_build_zensical`
calls `finish` once Zensical has written the staging folder:

- Search (`search.json`, `{config, items: [{location, level, title, text, path, tags}]}`).
  Zensical's search worker cuts every field at `config.separator` (outside `<…>`),
  matches each query word as a prefix of an indexed word and ranks title (×3) over
  path (×2) over text; with a Chinese, Japanese or Korean entry in `config.lang` it
  also cuts Han runs with the browser's `Intl.Segmenter`, query and index alike. So:
  Han runs of every title, text and path are cut with jieba and the corpus's
  vocabulary (render.search_vocabulary: the glossary, Chinese tags, title terms), words joined by U+200B as Material's search does,
  and the separator made to split there if it does not; the corpus's CJK languages
  join `config.lang`, so a query typed without spaces is cut too. Then search.py's
  `tune` does what it does for Material (one result per source, section pages'
  copies dropped, Simplified/Traditional variants, PR and repository keys), and its
  extra fields go where this worker searches but never shows them: an element with
  `hidden` in the title (the title's variants and keys) and in the text (the text's
  variants before it, a source's metadata after it). The excerpt is drawn from the
  text's own markup (a `<span hidden>` stays hidden), the title likewise.
- The allow-list: every generated page (docs/ manifest) has its article body, from the
  first element after Zensical's own buttons to the generated-page mark, cut to
  render/sanitize's allow-list, as the plugin's on_page_content does; the theme's
  chrome around it is left as Zensical wrote it.
- Without a `site_url`, the 404 page's links are made to work under any sub-path
  (hosting.make_404_portable), as the plugin's on_post_build does.

What stays lost (engines.LOSSES): Zensical's search has no per-field or per-page
weights (its fields and their weights are fixed in its worker; an item's `boost` is
not read), so metadata counts as much as an annotation, listing pages are not ranked
below the sources they list, and a name matched whole does not outrank the longer
names it begins (TileLang, tilelang-ascend).
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import SiteError
from ..core.model import Corpus
from ..core.provenance import write_atomic
from . import hosting, search
from .segment import ZWSP

log = logging.getLogger("corpus_build.site.zensical")

SEARCH_INDEX = "search.json"
# The `corpus` plugin's own default for its `search_dictionary` option (plugin.CorpusConfig).
DICTIONARY = ".corpus-build/jieba_user_dict.txt"
# Zensical's default separator (zensical/config.py), for an index that names none.
DEFAULT_SEPARATOR = '[\\s\\-_,:!=\\[\\]()\\\\"`/]+|\\.(?!\\d)'
# Languages for which Zensical's worker segments Han runs with Intl.Segmenter.
_SEGMENTED_LANGS = ("zh", "ja", "ko")
_TAG_SPLIT = re.compile(r"(<[^>]*>)")
_ARTICLE = re.compile(r"<article\b[^>]*\bmd-content__inner\b[^>]*>")
# What Zensical's base.html and partials/actions.html put before page.content in the article.
_CHROME = re.compile(
    r"""\s*(?:<a\s+id="__skip"[^>]*>\s*</a>|<(button|a)\b[^>]*\bclass="[^"]*\bmd-content__button\b[^"]*"[^>]*>.*?</\1>)""",
    re.S,
)


@dataclass(frozen=True)
class FinishStats:
    """What `finish` did, for the build log and the tests."""

    items_before: int
    items_after: int
    alt_words: int
    pages_cleaned: int


def finish(project: Path, site_dir: Path, corpus: Corpus, config: dict[str, Any]) -> FinishStats:
    """The plugin's search tuning and allow-list pass over a site Zensical built into `site_dir`.

    `config` is mkdocs.yml's plain values (engines._read_config): the `corpus` plugin's options
    (`search_tuning`, `search_dictionary`), `use_directory_urls` and `docs_dir` apply here too.
    """
    options = _plugin_options(config)
    directory_urls = config.get("use_directory_urls") is not False
    before = after = alt_words = 0
    index = Path(site_dir) / SEARCH_INDEX
    if options.get("search_tuning", True) is not False and index.is_file():
        load_dictionary(corpus, Path(project) / str(options.get("search_dictionary") or DICTIONARY))
        before, after, alt_words = tune_index_file(index, corpus, directory_urls=directory_urls)
    cleaned = clean_pages(Path(project) / str(config.get("docs_dir") or "docs"), Path(site_dir))
    if not config.get("site_url"):  # as the plugin's on_post_build: Zensical's 404 page links from the domain's root
        hosting.make_404_portable(Path(site_dir))
    log.info(f"corpus: search index {before} -> {after} entries; {cleaned} page(s) changed by the allow-list")
    return FinishStats(before, after, alt_words, cleaned)


def _plugin_options(config: dict[str, Any]) -> dict[str, Any]:
    """The `corpus` plugin's options in mkdocs.yml (`- corpus` or `- corpus: {…}`)."""
    plugins = config.get("plugins") or []
    entries = plugins.items() if isinstance(plugins, dict) else ((next(iter(p.items())) if isinstance(p, dict) and len(p) == 1 else (p, {})) for p in plugins)
    for name, options in entries:
        if name == "corpus":
            return options if isinstance(options, dict) else {}
    return {}


# --- search ------------------------------------------------------------------------------


def load_dictionary(corpus: Corpus, path: Path) -> None:
    """jieba learns the corpus's words (what the plugin does in on_config), from the same file."""
    from .. import render

    try:
        import jieba
    except ImportError:  # pragma: no cover - jieba is a dependency; without it Chinese stays uncut
        log.warning("corpus: jieba is not installed; Zensical's search indexes Chinese unsegmented")
        return
    jieba.setLogLevel(logging.WARNING)
    render.write_search_dictionary(corpus, path)
    if path.stat().st_size:
        jieba.load_userdict(str(path))


def tune_index_file(path: Path, corpus: Corpus, *, directory_urls: bool = True) -> tuple[int, int, int]:
    """Rewrite Zensical's search.json at `path` in place: (items before, items after, variant words added)."""
    try:
        data = json.loads(path.read_bytes())
        items = data["items"]
    except (ValueError, KeyError, TypeError) as exc:
        raise SiteError(f"{path}: Zensical's search index is not the {{config, items}} this corpus-build knows ({exc}); build with --engine mkdocs") from exc
    tuned, alt_words = tune(data, corpus, directory_urls=directory_urls, cut=_jieba_cutter())
    write_atomic(path, json.dumps(tuned, ensure_ascii=False, separators=(",", ":")))
    return len(items), len(tuned["items"]), alt_words


def tune(data: dict[str, Any], corpus: Corpus, *, directory_urls: bool = True, cut: Callable[[str], list[str]] | None = None) -> tuple[dict[str, Any], int]:
    """The tuned index (a new dict) and the number of other-script words added (search.tune's count).

    Zensical's items are segmented with `cut` (jieba) first, then search.tune's results are put in Zensical's fields.
    """
    cutter = _Cutter(cut) if cut is not None else None
    config = _config(dict(data.get("config") or {}), corpus)
    items = [_segmented(item, cutter) for item in data["items"]] if cutter else [dict(item) for item in data["items"]]
    # search.tune reads Material's shape ({config, docs}); Zensical's items are the same records plus level and path.
    tuned, alt_words = search.tune({"config": config, "docs": items}, corpus, directory_urls=directory_urls)
    originals = {item["location"]: item for item in items}
    return {**data, "config": config, "items": [_as_item(doc, originals.get(doc["location"], {})) for doc in tuned["docs"]]}, alt_words


def _config(config: dict[str, Any], corpus: Corpus) -> dict[str, Any]:
    separator = str(config.get("separator") or DEFAULT_SEPARATOR)
    if not _splits_zero_width_space(separator):
        separator = "\\u200b+|" + separator
    config["separator"] = separator
    langs = [str(lang) for lang in config.get("lang") or []]
    for lang in corpus.settings.languages:
        if lang.lower().split("-")[0].split("_")[0] in _SEGMENTED_LANGS and lang not in langs:
            langs.append(lang)  # queries are cut as the index is (Intl.Segmenter): 分块预填充 finds 分块 … 预填充
    config["lang"] = langs
    return config


def _splits_zero_width_space(separator: str) -> bool:
    try:
        return re.compile(separator).fullmatch(ZWSP) is not None
    except re.error:  # JavaScript-only syntax: make sure
        return False


class _Cutter:
    """Han runs cut once each (the same labels and titles come back on every page)."""

    _HAN = search._HAN

    def __init__(self, cut: Callable[[str], list[str]]):
        self._cut = cut
        self._known: dict[str, str] = {}

    def run(self, run: str) -> str:
        found = self._known.get(run)
        if found is None:
            found = self._known[run] = ZWSP.join(w for w in self._cut(run) if w)
        return found

    def text(self, markup: str) -> str:
        """What Material's `_segment_chinese` does, outside tags only (attributes are not words)."""
        parts = _TAG_SPLIT.split(markup)
        for i in range(0, len(parts), 2):
            parts[i] = self._HAN.sub(lambda m: ZWSP + self.run(m.group(0)) + ZWSP, parts[i])
        return "".join(parts).strip(ZWSP)


def _jieba_cutter() -> Callable[[str], list[str]] | None:
    try:
        import jieba
    except ImportError:  # pragma: no cover - see load_dictionary
        return None
    return lambda run: list(jieba.cut(run))


def _segmented(item: dict[str, Any], cutter: _Cutter) -> dict[str, Any]:
    item = dict(item)
    for key in ("title", "text"):
        if isinstance(item.get(key), str):
            item[key] = cutter.text(item[key])
    if isinstance(item.get("path"), list):
        item["path"] = [cutter.text(p) if isinstance(p, str) else p for p in item["path"]]
    return item


def _hidden(words: str) -> str:
    """Words the worker indexes and the result never shows (its markup parser keeps the attribute)."""
    words = " ".join(words.split())
    return f'<span hidden="hidden">{html.escape(words, quote=False)}</span>' if words else ""


def _as_item(doc: dict[str, Any], original: dict[str, Any]) -> dict[str, Any]:
    """search.tune's result in Zensical's fields: keys with the title, alt before the text, meta after it."""
    title = str(doc.get("title", ""))
    text = str(doc.get("text", ""))
    item: dict[str, Any] = {
        "location": doc["location"],
        "level": original.get("level", doc.get("level", 1)),
        "title": title + (" " + _hidden(doc["keys"]) if doc.get("keys") else ""),
        "text": _hidden(doc.get("alt", "")) + text + _hidden(doc.get("meta", "")),
        "path": original.get("path", doc.get("path", [])),
        "tags": list(doc.get("tags") or []),
    }
    return item


# --- the allow-list ---------------------------------------------------------------------


def clean_pages(docs_dir: Path, site_dir: Path) -> int:
    """Every generated page's article body through render/sanitize's allow-list; the number of pages it changed."""
    from ..render import GENERATED_MARK, MANIFEST
    from ..render.sanitize import clean_page

    try:
        generated = json.loads((docs_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SiteError(f"{docs_dir / MANIFEST}: cannot read the list of generated pages ({exc}); run `corpus-build render` and build again") from exc
    mark = GENERATED_MARK.strip()
    changed = 0
    for page in generated:
        if not page.endswith(".md"):
            continue
        built = built_page(site_dir, page)
        if built is None:
            continue  # engines._check_complete names every missing page
        text = built.read_text(encoding="utf-8")
        cleaned = clean_article(text, mark, clean_page, where=built)
        if cleaned != text:
            write_atomic(built, cleaned)  # never through a link
            changed += 1
    return changed


def built_page(site_dir: Path, page: str) -> Path | None:
    """Where Zensical wrote the generated Markdown page `page` (directory URLs or not)."""
    stem = page[: -len(".md")]
    if stem == "index":
        candidates = ["index.html"]
    elif stem.endswith("/index"):
        candidates = [f"{stem[: -len('/index')]}/index.html"]
    else:
        candidates = [f"{stem}/index.html", f"{stem}.html"]
    return next((site_dir / c for c in candidates if (site_dir / c).is_file()), None)


def clean_article(page: str, mark: str, clean: Callable[[str], str], *, where: Path) -> str:
    """The page with its body (after the theme's buttons, up to the generated-page mark) cleaned."""
    article = _ARTICLE.search(page)
    end = page.find(mark, article.end()) if article else -1
    if article is None or end < 0:
        raise SiteError(
            f"{where}: no article body ending in the generated-page mark; this Zensical writes pages "
            "corpus-build does not know, so the allow-list pass cannot run. Build with --engine mkdocs"
        )
    start = article.end()
    while chrome := _CHROME.match(page, start, end):
        start = chrome.end()
    return page[:start] + clean(page[start:end]) + page[end:]
