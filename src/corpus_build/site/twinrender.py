"""The offline copy's pages from the site's: a page's Markdown converted once, its links moved for the copy.

The offline copy (offline.py) is a second MkDocs build of the same pages with `page.html` URLs.
Converting each page's Markdown again was a fifth of the copy's build (the default corpus: 1.1 s
of its 5.8 s), though the copy's HTML differs from the site's only in link targets:

- the links MkDocs resolved (Markdown links): the site's render records each, as written and as
  resolved (mdshared.py), and the copy resolves the written one with its own URLs, as its own
  conversion would (the same resolver, in the same order, so its warnings and anchors are the same);
- raw HTML links, which relink.py moves in the copy's Markdown and Markdown passes through as written;
- the placeholders of mirror text blocks (mirrorblocks.py), named by their content, which a moved
  link inside a block renames.

So the site's build keeps, for each page, a digest of its Markdown and the key of its render
record (a file in the cache folder, SiteRenders), and the copy's build, for a page whose Markdown
is the site's, takes the site's rendered HTML and replaces those values. It does so only where
that is what converting would give, and converts the page as before otherwise:

- the Markdown the copy would convert is the site's with exactly those raw links moved and those
  placeholders renamed (relink applied to the site's held Markdown gives it, byte for byte);
- no raw HTML is parsed into the page's tree (md_in_html's `markdown="1"`): MkDocs would resolve
  its links from the moved values;
- no plugin after ours changed the page's Markdown, in either build (Material's tags plugin writes
  listing placeholders named by their place in the Markdown, which moved links shift);
- the site's render logged nothing;
- every value replaced stands in the HTML as an `href`/`src` attribute exactly as many times as
  the page wrote it (a value also found in text, or written by another link, leaves the page to be
  converted), and each block placeholder stands there as often as the page holds the block;
- one value resolved by the site maps to one value in the copy.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.provenance import write_atomic
from . import mirrorblocks, relink

MEMO = "site-renders.json"
_ATTRIBUTE = re.compile(r'(\s(?:href|src)=")([^"<>]*)(")')
_PLACEHOLDER = re.compile(r"<!--cb-block:([0-9a-f]{40})-->")
_PARSED_HTML = re.compile(r"""\smarkdown\s*=\s*["']?(?:1|block|span)\b""")


def _sha(markdown: str) -> str:
    return hashlib.sha256(markdown.encode("utf-8", "surrogatepass")).hexdigest()


class SiteRenders:
    """The site build's pages for its offline copy: src_uri -> [sha256 of its Markdown, its render record's key]."""

    def __init__(self) -> None:
        self.pages: dict[str, list[str]] = {}

    def add(self, src_uri: str, markdown: str, key: str) -> None:
        self.pages[src_uri] = [_sha(markdown), key]

    def drop(self, src_uri: str) -> None:
        """A page another plugin changed after ours: its render is not the one of what ours returned."""
        self.pages.pop(src_uri, None)

    def save(self, cache_dir: Path, twin_key: str) -> None:
        with contextlib.suppress(OSError):  # it only saves time
            write_atomic(Path(cache_dir) / MEMO, json.dumps({"twin": twin_key, "pages": self.pages}, ensure_ascii=False))


def load(cache_dir: Path, twin_key: str) -> dict[str, list[str]] | None:
    """The pages the site's build rendered with this Markdown configuration (its `twin_key`), or None."""
    try:
        data = json.loads((Path(cache_dir) / MEMO).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("twin") != twin_key or not isinstance(data.get("pages"), dict):
        return None
    return data["pages"]


def forget(cache_dir: Path) -> None:
    (Path(cache_dir) / MEMO).unlink(missing_ok=True)


@dataclass(frozen=True)
class Plan:
    """How the copy's page is the site's: the site's render record, the raw links moved, the placeholders renamed."""

    record_key: str
    moves: tuple[tuple[str, str], ...]
    blocks: tuple[tuple[str, str], ...]  # (site key, copy key) of each block, in order
    converted: str  # the Markdown the plan is for: a plugin after ours that changes it (Material's tags) voids it


def plan(site: dict[str, list[str]], src_uri: str, entered: str, converted: str, relinked: bool,
         exists: Callable[[str], bool], copy_keys: list[str]) -> Plan | None:
    """The copy's page `src_uri` from the site's, or None: `entered` is its Markdown as it came to the
    plugin, `converted` what the copy would convert (relinked, blocks held: copy_keys)."""
    entry = site.get(src_uri)
    if not isinstance(entry, list) or len(entry) != 2 or entry[0] != _sha(entered):
        return None
    if _PARSED_HTML.search(converted):
        return None
    held, found = mirrorblocks.held(entered) if copy_keys else (entered, [])
    site_keys = [key for key, _block, _sha256 in found]
    if len(site_keys) != len(copy_keys):
        return None
    moves: list[tuple[str, str]] = []
    expected = relink.to_file_urls(held, src_uri, exists, moves) if relinked else held
    renames = dict(zip(site_keys, copy_keys, strict=True))
    if any(renames[s] != c for s, c in zip(site_keys, copy_keys, strict=True)):
        return None
    if any(s != c for s, c in renames.items()):
        expected = _PLACEHOLDER.sub(lambda m: mirrorblocks.placeholder(renames.get(m.group(1), m.group(1))), expected)
    if expected != converted:
        return None
    return Plan(entry[1], tuple(moves), tuple(zip(site_keys, copy_keys, strict=True)), converted)


def derive(plan: Plan, record: dict[str, Any], page: Any, config: Any, files: Any, keeps_links: bool) -> list[tuple[str, str]] | None:
    """Give `page` what converting its Markdown would (content, toc, title, anchors, links to anchors),
    from the site's render `record`; its links resolved as (written, resolved), or None (nothing done)."""
    from mkdocs.structure.pages import _RelativePathTreeprocessor

    from .buildcache import toc_from_json

    calls = record.get("calls")
    if not isinstance(calls, list) or record.get("logs") or page.markdown != plan.converted:
        return None
    content = record["content"]
    resolver = _RelativePathTreeprocessor(page.file, files, config)
    values: dict[str, str] = {}
    written: Counter[str] = Counter()
    mine: list[tuple[str, str]] = []
    for link, resolved in calls:
        moved = resolver.path_to_url(link)
        mine.append((link, moved))
        if values.setdefault(resolved, moved) != moved:
            return None
        written[resolved] += 1
    for before, after in plan.moves:
        if values.setdefault(before, after) != after:
            return None
        written[before] += 1
    changed = {value: moved for value, moved in values.items() if moved != value}
    if changed:
        found = Counter(m.group(2) for m in _ATTRIBUTE.finditer(content) if m.group(2) in changed)
        if any(found[value] != written[value] for value in changed):
            return None
        content = _ATTRIBUTE.sub(lambda m: m.group(1) + changed[m.group(2)] + m.group(3) if m.group(2) in changed else m.group(0), content)
    held = Counter(site for site, _copy in plan.blocks)
    if Counter(_PLACEHOLDER.findall(content)) != held:
        return None
    renames = dict(plan.blocks)
    if any(site != copy for site, copy in renames.items()):
        content = _PLACEHOLDER.sub(lambda m: mirrorblocks.placeholder(renames[m.group(1)]), content)
    page.content = content
    page.toc = toc_from_json(record["toc"])
    page._title_from_render = record["title"]
    page.present_anchor_ids = set(record["anchors"])
    if keeps_links:
        page.links_to_anchors = resolver.links_to_anchors
    return mine
