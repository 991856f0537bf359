"""The problems of corpus.yaml's settings for later stages, at the key's line, for `check` and every load.

`fetch:`, `rewrites:`, `fallbacks:` and `watch:` are read by their stages with the
validators of settings.py; the same validators run here on the registry's own reading,
each UsageError turned into a Problem at the key's line, so a mistake shows up in
review instead of at 3 a.m. in the nightly fetch.
"""

from __future__ import annotations

import math
from typing import Any

from ..core.errors import Problem, UsageError, printable  # noqa: F401 - printable re-exported
from ..core.limits import LIMITS
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
