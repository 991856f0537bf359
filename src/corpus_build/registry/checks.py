"""Problems `check` and every load report beyond the registry's own format: corpus.yaml's settings
for later stages, at the key's line, and titles that are still placeholders.

`fetch:`, `rewrites:`, `fallbacks:` and `watch:` are read by their stages with the
validators of settings.py; the same validators run here on the registry's own reading,
each UsageError turned into a Problem at the key's line, so a mistake shows up in
review instead of at 3 a.m. in the nightly fetch.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.bibfacts import has_placeholder_title, mirror_title
from ..core.errors import Problem, UsageError, printable  # noqa: F401 - printable re-exported
from ..core.limits import LIMITS
from ..core.model import Corpus
from ..core.provenance import read_provenance
from .settings import check_fetch_limits, fetch_settings, parse_watch_config

STAGE_KEYS = ("fetch", "rewrites", "fallbacks", "watch")


def _line(data: Any, key: str) -> int:
    line_of = getattr(data, "line_of", None)
    return line_of(key) if line_of else 0


def stage_problems(data: Any, display: str) -> list[Problem]:
    """Problems in corpus.yaml's stage settings (`data` is its mapping)."""
    if not isinstance(data, dict) or not any(key in data for key in STAGE_KEYS):
        return []
    problems: list[Problem] = []
    fetch = data.get("fetch")
    if isinstance(fetch, dict):
        for key, value in fetch.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and (not math.isfinite(value) or value < 0 or value > LIMITS.setting_value):
                problems.append(Problem(display, _line(fetch, key), 0, f"`fetch.{key}` is {_short(value)}; use a number between 0 and {LIMITS.setting_value:.0e}"))
    if any(key in data for key in ("fetch", "rewrites", "fallbacks")) and not problems:
        try:
            check_fetch_limits(fetch_settings(data))  # what fetch/options.py checks when the stage runs
        except UsageError as exc:
            key = next((k for k in ("fetch", "rewrites", "fallbacks") if f"`{k}" in str(exc)), "fetch")
            problems.append(Problem(display, _line(data, key), 0, str(exc).removeprefix("corpus.yaml ")))
    if "watch" in data:
        try:
            parse_watch_config(data["watch"])
        except UsageError as exc:
            problems.append(Problem(display, _line(data, "watch"), 0, str(exc).removeprefix("corpus.yaml ")))
    return problems


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 20 else f"a {len(text)}-digit number"


def placeholder_problems(corpus: Corpus, display: Callable[[Path], str]) -> list[Problem]:
    """A warning for every title that only restates the source's address (what `add --offline`
    writes), at the entry, until the curator writes the real one: the site shows the mirror's
    title meanwhile, but the registry is what others read and cite."""
    problems = []
    for source in corpus.sources:
        if not has_placeholder_title(source):
            continue
        found = mirror_title(source, read_provenance(corpus.raw_dir(source)))
        where = display(corpus.root / source.section / "sources.yaml")
        if found:
            fix = f"the mirror found '{found}', which the site shows; `corpus-build adopt {source.id}` writes it in (or write the title yourself)"
        else:
            fix = f"replace it with the source's real title, or run `corpus-build fetch {source.id}` and then `corpus-build adopt {source.id}`"
        problems.append(Problem(where, source.line, 0, f"the title of '{source.id}' is a placeholder ('{source.title}'); {fix}", "warning", "placeholder-title"))
    return problems
