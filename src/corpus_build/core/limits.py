"""Every bound on input size, declared once.

A registry takes contributions and the fetch stage reads the network: each has to be
bounded before it is read, parsed or cloned, and every refusal names the file (or URL)
and the limit, so a user who really needs more knows what was hit. The numbers sit far
above real use (the default corpus: 121 sources, 140 KB of YAML; the 5,000-source
benchmark: 3 MB) and far below what hurts (a YAML alias bomb reaching 6 GB, a 20 MB title
costing a 98 s build).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    # Registry files (corpus.yaml, section.yaml, sources.yaml, chapters.yaml, paths.yaml, digests).
    file_bytes: int = 16 * 1024 * 1024
    # YAML: nodes built per document, nodes reached through aliases, nesting depth.
    yaml_nodes: int = 2_000_000
    yaml_alias_nodes: int = 10_000
    yaml_depth: int = 64
    # Entries in one list file (a section's sources, chapters, paths).
    entries: int = 100_000
    # Text fields: titles and other one-line fields, and long text (notes, intros, summaries).
    line_chars: int = 2_000
    text_chars: int = 200_000
    # Numbers: chapter numbers, days; digits of any integer in YAML.
    chapter_number: int = 99_999
    days: int = 36_500
    number_digits: int = 30
    # Fetch settings given as numbers (bytes, seconds, counts) must stay below this.
    setting_value: float = 1e15


LIMITS = Limits()

# Fields whose text is long by nature; every other text field is one line.
LONG_TEXT_FIELDS = frozenset({"note", "intro", "summary", "description", "verify_note", "why"})


def text_problem(key: str, value: object, limits: Limits = LIMITS) -> str | None:
    """Why a text field is too long for the site, or None."""
    if not isinstance(value, str):
        return None
    cap = limits.text_chars if key in LONG_TEXT_FIELDS else limits.line_chars
    if len(value) > cap:
        return f"field '{key}' is {len(value):,} characters long, over the limit of {cap:,}; shorten it"
    return None


def number_problem(key: str, value: object, low: int, high: int) -> str | None:
    """Why a whole number is out of range, or None (non-numbers are the type check's business)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if value < low or value > high:
        shown = str(value) if len(str(value)) <= 20 else f"a {len(str(value))}-digit number"
        return f"field '{key}' is {shown}; it must be between {low:,} and {high:,}"
    return None
