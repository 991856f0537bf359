"""Markers that separate generated facts from the editor's words, and the merge that honours them.

A draft is made of

    <!-- corpus-build:facts id=repo:tile-ai/tilelang -->
    …generated, replaced on every run…
    <!-- /corpus-build:facts -->

and everything else: headings, commentary blocks, paragraphs the editor added anywhere.
Re-running a window replaces the inside of each facts block whose id the new draft
also has and keeps every other byte of the file. A facts block the new draft has but
the file lacks (a repository that became active) is inserted with its section, before
the section of the next block both share. A block the new draft no longer has is left
as it was: it may sit among the editor's words.

HTML comments are invisible on the site, so the markers cost readers nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import yaml

from ..core.errors import UsageError
from ..registry import split_front_matter

FACTS_OPEN = "<!-- corpus-build:facts id={id} -->\n"
FACTS_CLOSE = "<!-- /corpus-build:facts -->"
COMMENTARY_OPEN = "<!-- corpus-build:commentary id={id} -->\n"
COMMENTARY_CLOSE = "<!-- /corpus-build:commentary -->"
_FACTS = re.compile(r"<!-- corpus-build:facts id=(\S+) -->\n(.*?)<!-- /corpus-build:facts -->", re.DOTALL)
_HEADING = re.compile(r"^## ", re.MULTILINE)

# Front-matter keys the generator owns; the editor's title, tags and description stay.
FACT_KEYS = ("date", "window_start", "window_end", "tz", "repos", "counts")


def block_id(text: str) -> str:
    """A marker id that cannot end its HTML comment or break the marker regex (GitHub names reach it)."""
    return re.sub(r"[^A-Za-z0-9._/:#-]", "_", text)


def facts_block(block_id_: str, content: str) -> str:
    return FACTS_OPEN.format(id=block_id(block_id_)) + content.rstrip("\n") + "\n" + FACTS_CLOSE + "\n"


def commentary_block(block_id_: str, hint: str) -> str:
    return COMMENTARY_OPEN.format(id=block_id(block_id_)) + f"<!-- {hint} -->\n" + COMMENTARY_CLOSE + "\n"


def facts_of(body: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in _FACTS.finditer(body)}


def merge(old_text: str, new_text: str, extra: dict[str, str] | None = None, *, where: str = "the digest") -> str:
    """The new draft's facts poured into the old file, keeping everything the editor wrote.

    `extra` holds facts for blocks the new draft does not show but an old file may
    (a repository that was active on the first run and is quiet now). Front matter that
    is not a YAML mapping raises UsageError naming `where`: replacing it would lose the
    editor's title, tags and description.
    """
    _, old_body, body_line = split_front_matter(old_text)
    check_markers(old_body, where, body_line)
    new_front, new_body, _ = split_front_matter(new_text)
    return _merge_front(front_matter(old_text, where), new_front) + _merge_body(old_body, new_body, extra or {})


_MARKER = re.compile(r"<!-- (/?)corpus-build:facts(?: id=(\S+))? -->")


def check_markers(body: str, where: str, first_line: int = 1) -> None:
    """UsageError unless every facts marker opens, then closes, in turn.

    A missing or stray marker would make the block regex span the editor's words up to
    the next block's end, and replacing the block would delete them: refuse, name the line.
    """
    fix = "restore the marker (or delete the whole block with both markers) and run `corpus-build watch` again; the file was left as it was"
    open_at: tuple[int, str] | None = None
    for match in _MARKER.finditer(body):
        line = first_line + body.count("\n", 0, match.start())
        closing, block = match.group(1) == "/", match.group(2) or "?"
        if not closing and open_at is not None:
            raise UsageError(f"{where}: line {open_at[0]}: facts block '{open_at[1]}' has no closing <!-- /corpus-build:facts --> before the next block at line {line}; {fix}")
        if closing and open_at is None:
            raise UsageError(f"{where}: line {line}: a closing <!-- /corpus-build:facts --> without its opening marker; {fix}")
        open_at = None if closing else (line, block)
    if open_at is not None:
        raise UsageError(f"{where}: line {open_at[0]}: facts block '{open_at[1]}' has no closing <!-- /corpus-build:facts -->; {fix}")


def front_matter(text: str, where: str) -> dict:
    """The editor's front matter of an existing digest ({} when it has none); UsageError when broken."""
    front, _, _ = split_front_matter(text)
    if not front:
        return {}
    fix = "fix it (quote values that contain ': ' or start with a special character) and run `corpus-build watch` again; the file was left as it was"
    try:
        meta = yaml.safe_load(front)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f"line {mark.line + 2}: " if mark is not None else ""  # +2: 0-based, after the opening ---
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise UsageError(f"{where}: the front matter is not valid YAML ({line}{problem}); {fix}") from exc
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise UsageError(f"{where}: the front matter is a {type(meta).__name__}, not `key: value` lines; {fix}")
    return meta


def _merge_front(old_meta: dict, new: str) -> str:
    new_meta = yaml.safe_load(new) or {}
    # The editor's order and keys first; generated keys updated in place, new ones appended.
    meta = dict(old_meta)
    for key, value in new_meta.items():
        if key in FACT_KEYS or key not in meta:
            meta[key] = value
    if isinstance(old_meta.get("repos"), list) and isinstance(new_meta.get("repos"), list):
        # A run limited by --repo must not drop the repositories the file already covers.
        meta["repos"] = list(dict.fromkeys([*old_meta["repos"], *new_meta["repos"]]))
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False, width=1000) + "---\n"


def _merge_body(old: str, new: str, extra: dict[str, str]) -> str:
    order = list(facts_of(new))
    new_blocks = {block_id(k): v.rstrip("\n") + "\n" for k, v in extra.items()} | facts_of(new)

    def replace(match: re.Match) -> str:
        block_id = match.group(1)
        if block_id not in new_blocks:
            return match.group(0)
        return FACTS_OPEN.format(id=block_id) + new_blocks[block_id] + FACTS_CLOSE

    merged = _FACTS.sub(replace, old)
    present = set(facts_of(merged))
    for chunk_ids, chunk in _chunks(new):
        if not chunk_ids or any(i in present for i in chunk_ids):
            continue
        later = [i for i in order[order.index(chunk_ids[-1]) + 1 :] if i in present]
        merged = _insert_before(merged, later[0] if later else None, chunk, _section_start)
        present.update(chunk_ids)
    return merged


def _chunks(body: str) -> list[tuple[list[str], str]]:
    """The body cut at level-2 headings: (facts ids inside, text) per piece."""
    starts = [0, *(m.start() for m in _HEADING.finditer(body))]
    starts = sorted(set(starts))
    pieces = [body[a:b] for a, b in zip(starts, [*starts[1:], len(body)], strict=True)]
    return [(list(facts_of(piece)), piece) for piece in pieces if piece]


def _section_start(text: str, block_id: str) -> int:
    """Where the section holding `block_id` begins: its `## ` heading, else the block itself."""
    block = text.find(FACTS_OPEN.format(id=block_id))
    heading = text.rfind("\n## ", 0, block)
    previous_block = text.rfind(FACTS_CLOSE, 0, block)
    if heading != -1 and heading > previous_block:
        return heading + 1
    return block


def _insert_before(text: str, block_id: str | None, chunk: str, where: Callable[[str, str], int]) -> str:
    if block_id is None:
        return text.rstrip("\n") + "\n\n" + chunk.rstrip("\n") + "\n"
    at = where(text, block_id)
    return text[:at] + chunk.rstrip("\n") + "\n\n" + text[at:]
