"""Link-check settings, declared once (corpus.yaml `links:`, then command-line flags)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import UsageError
from ..core.model import Corpus

DAY = 86400.0


@dataclass(frozen=True)
class LinkOptions:
    ids: tuple[str, ...] = ()  # empty: every source with a URL
    sections: tuple[str, ...] = ()
    force: bool = False  # ask again even when a result is younger than recheck_after
    # A result younger than this is reused without a request: a daily run re-asks each
    # host only every few days, and a second run right after the first costs nothing.
    recheck_after: float = 3 * DAY
    jobs: int = 8  # URLs checked at once
    per_host: int = 2  # requests to one host at once
    delay: float = 1.0  # seconds between two requests to one host (robots.txt Crawl-delay can raise it)
    max_delay: float = 10.0  # a Crawl-delay above this is capped: one host must not stall the run
    dns_dead_after: float = 7 * DAY  # a host name unresolvable this long counts as dead
    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    max_redirects: int = 10
    body_bytes: int = 64 * 1024  # read of a page to recognise a soft 404
    user_agent: str = "corpus-build/0.1 (+link check of cited sources)"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": DAY}


def parse_duration(value: Any, where: str) -> float:
    """Seconds from a number of seconds or text such as `3d`, `12h`, `30m`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    match = _DURATION.match(str(value)) if isinstance(value, str) else None
    if not match:
        raise UsageError(f"{where} must be seconds or a duration such as 3d, 12h or 30m; got {value!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


_NUMBERS = {"jobs": int, "per_host": int, "delay": float, "max_delay": float, "connect_timeout": float,
            "read_timeout": float, "max_redirects": int, "body_bytes": int}
_DURATIONS = ("recheck_after", "dns_dead_after")


def from_corpus(corpus: Corpus, **overrides: Any) -> LinkOptions:
    """Options from corpus.yaml `links:` (and `fetch.user_agent`), then the command line's."""
    values: dict[str, Any] = {}
    settings = corpus.settings.extra.get("links") or {}
    if not isinstance(settings, dict):
        raise UsageError("corpus.yaml `links` must be a mapping such as {recheck_after: 3d}")
    allowed = sorted([*_NUMBERS, *_DURATIONS, "user_agent"])
    for key, value in settings.items():
        if key in _DURATIONS:
            values[key] = parse_duration(value, f"corpus.yaml `links.{key}`")
        elif key in _NUMBERS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UsageError(f"corpus.yaml `links.{key}` must be a number, got {value!r}")
            values[key] = _NUMBERS[key](value)
        elif key == "user_agent" and isinstance(value, str):
            values[key] = value
        else:
            raise UsageError(f"corpus.yaml `links.{key}` is not a link-check setting; allowed: {', '.join(allowed)}")
    values.update({k: v for k, v in overrides.items() if v is not None})
    options = LinkOptions(**values)
    if options.jobs < 1 or options.per_host < 1:
        raise UsageError("links jobs and per_host must be at least 1")
    if options.delay < 0 or options.recheck_after < 0:
        raise UsageError("links delay and recheck_after cannot be negative")
    return options
