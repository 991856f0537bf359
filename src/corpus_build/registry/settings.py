"""corpus.yaml's settings for later stages, validated like every other key of the registry.

`fetch:`, `rewrites:`, `fallbacks:` and `watch:` are read by their stages (fetch/options.py,
watch/run.py, publish.py), which take the checked values from here; `corpus-build check`
and every load of the registry run the same checks (checks.py), so a mistake shows up in
review instead of at 3 a.m. in the nightly fetch. Nothing here reaches the network:

    fetch:                       # FetchOptions' fields that corpus.yaml may set (FETCH_SETTINGS)
      jobs: 8
      browser: auto              # auto, always or never
    rewrites: {https://huggingface.co/: https://hf-mirror.com/}   # always applied
    fallbacks: {https://github.com/: https://ghproxy.example/}    # tried when the host fails
    watch:
      repos:
        - tile-ai/TileOPs
        - {repo: tile-ai/tilelang-hygon, branches: [main, feat-hcu-smls-b-vgpr]}
      orgs: [tile-ai]
      exclude: [tile-ai/old-fork]      # optional: never watch these
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.errors import UsageError
from ..core.model import parse_timezone

# --- fetch:, rewrites:, fallbacks: ------------------------------------------------------------

FETCH_SETTINGS = {
    "jobs": int, "per_host": int, "connect_timeout": float, "read_timeout": float, "total_timeout": float,
    "retries": int, "backoff": float, "max_redirects": int, "max_bytes": int, "max_decoded_bytes": int,
    "extract_workers": int, "warc": bool, "recheck_after": float, "git_timeout": float, "user_agent": str,
    "browser": str, "max_images": int, "max_styles": int,
    "cluster": str, "cluster_store": str, "cluster_result_limit": int, "cluster_direct": bool,
}
BROWSER_MODES = ("auto", "always", "never")


def _pairs(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if isinstance(value, Mapping):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for item in value:
            if isinstance(item, Mapping) and len(item) == 1:
                items.extend(item.items())
            elif isinstance(item, Mapping) and {"from", "to"} <= set(item):
                items.append((item["from"], item["to"]))
            else:
                raise UsageError(f"corpus.yaml `{where}`: each item must be `FROM: TO`; got {item!r}")
    else:
        raise UsageError(f"corpus.yaml `{where}` must be a mapping FROM: TO")
    for src, dst in items:
        if not isinstance(src, str) or not isinstance(dst, str) or not src.startswith(("http://", "https://")) or not dst.startswith(("http://", "https://")):
            raise UsageError(f"corpus.yaml `{where}`: '{src}: {dst}' must map an http(s) URL prefix to another")
    return tuple((str(a), str(b)) for a, b in items)


def fetch_settings(extra: Mapping[str, Any]) -> dict[str, Any]:
    """FetchOptions' values from corpus.yaml (`fetch:`, `rewrites:`, `fallbacks:`), by field name."""
    values: dict[str, Any] = {}
    settings = extra.get("fetch") or {}
    for key, value in dict(settings).items():
        if key not in FETCH_SETTINGS:
            raise UsageError(f"corpus.yaml `fetch.{key}` is not a fetch setting; allowed: {', '.join(sorted(FETCH_SETTINGS))}")
        kind = FETCH_SETTINGS[key]
        if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise UsageError(f"corpus.yaml `fetch.{key}` must be a number, got {value!r}")
        if kind is str and not isinstance(value, str):
            raise UsageError(f"corpus.yaml `fetch.{key}` must be text, got {value!r}")
        if key == "browser" and value not in BROWSER_MODES:
            raise UsageError(f"corpus.yaml `fetch.browser` must be one of {', '.join(BROWSER_MODES)}; got {value!r}")
        if key == "cluster":
            value = check_cluster(value, "corpus.yaml `fetch.cluster`")
        if key == "cluster_store" and value and not value.startswith("/"):
            raise UsageError(f"corpus.yaml `fetch.cluster_store` must be an absolute path that every worker and this machine share (e.g. /mnt/shared/corpus-stage); got {value!r}")
        values[key] = kind(value)
    values["rewrites"] = _pairs(extra.get("rewrites"), "rewrites")
    values["fallbacks"] = _pairs(extra.get("fallbacks"), "fallbacks")
    return values


# What a fetch setting may be, from corpus.yaml or the command line: beyond these, a value is a
# typo (99999999999999999999 jobs overflow the event loop; a negative size cap fails every source).
_FETCH_RANGES: dict[str, tuple[float, float]] = {
    "jobs": (1, 1000), "per_host": (1, 256), "retries": (0, 100), "max_redirects": (0, 100),
    "max_bytes": (1, 10**13), "max_decoded_bytes": (1, 10**13), "max_images": (0, 100_000), "max_styles": (0, 100_000),
    "connect_timeout": (0.001, 10**6), "read_timeout": (0.001, 10**6), "total_timeout": (0.001, 10**7), "git_timeout": (0.001, 10**7),
    "backoff": (0, 3600), "max_backoff": (0, 86_400), "recheck_after": (0, 10**9), "cluster_result_limit": (1024, 10**12),
}


_CLUSTER = re.compile(r"^(tcp|tls|ws|wss)://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?/?$")


def check_cluster(address: str, where: str) -> str:
    """A Dask scheduler's address as given (tcp://HOST:PORT, tls://, ws://, wss://); "" and `local` (fetch here) pass."""
    if address and address != "local" and not _CLUSTER.match(address):
        raise UsageError(f"{where} must be a Dask scheduler address such as tcp://10.0.0.5:8786 (or tls://, ws://, wss://), or `local`; got {address!r}")
    return address


def check_fetch_limits(values: Mapping[str, Any]) -> None:
    """Bounds on fetch settings, checked on corpus.yaml's values and again with the command line's (an absent key has its default)."""
    for key, (low, high) in _FETCH_RANGES.items():
        value = values.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and not low <= value <= high:
            option = "--" + key.replace("_", "-")
            raise UsageError(f"the fetch setting {key} ({option}, or fetch.{key} in corpus.yaml) must be from {low:,} to {high:,}; got {value:,}")


# --- timezone: --------------------------------------------------------------------------------

_TIMEZONE_HINT = "write an offset from -12:00 to +14:00 such as +08:00, or a zone name of the tz database such as Asia/Shanghai"


def timezone_problem(value: str) -> str | None:
    """Why `value` is not a readers' time zone (corpus.yaml `timezone:`, `init --timezone`), or None when it is.

    The test is core.model.parse_timezone's (an offset within -12:00..+14:00, UTC, or a zone the
    tz database has), so what init writes is what `check` accepts; a near miss of a zone name is
    named (did you mean Asia/Shanghai?).
    """
    shown = value.encode("unicode_escape").decode("ascii")  # a newline or escape shows as \n, never breaks the line
    if not value or not value.isprintable() or value != value.strip():
        return f"timezone '{shown}' must be one word without spaces or control characters; {_TIMEZONE_HINT}"
    if parse_timezone(value) is not None:
        return None
    if value[:1] in "+-" and any(ch.isdigit() for ch in value):
        return f"timezone '{shown}' is not an offset from -12:00 to +14:00; {_TIMEZONE_HINT}"
    guess = _closest_zone(value)
    hint = f"did you mean {guess}? " if guess else ""
    return f"timezone '{shown}' is not a zone of the tz database; {hint}{_TIMEZONE_HINT}"


def _closest_zone(value: str) -> str:
    import difflib
    import zoneinfo

    try:
        names = zoneinfo.available_timezones()  # ~0.2 s (reads the tz folder): only on the error path
    except OSError:
        return ""
    by_folded = {name.casefold(): name for name in names if "/" in name}
    if value.casefold() in by_folded:
        return by_folded[value.casefold()]
    close = difflib.get_close_matches(value.casefold(), list(by_folded), n=1, cutoff=0.75)
    return by_folded[close[0]] if close else ""


# --- watch: -----------------------------------------------------------------------------------

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+$")
_ORG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]*$")
_WATCH_KEYS = ("repos", "orgs", "exclude")


@dataclass(frozen=True)
class RepoTarget:
    """One repository to watch; `branches` empty means its default branch."""

    repo: str  # owner/name as GitHub spells it
    branches: tuple[str, ...] = ()
    source_id: str = ""  # registry entry citing the repository, for [[id]] links


@dataclass(frozen=True)
class WatchConfig:
    repos: tuple[RepoTarget, ...] = ()
    orgs: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


def parse_watch_config(raw: object) -> WatchConfig:
    """Validate `watch:` from corpus.yaml; every problem is listed in one UsageError."""
    if raw is None:
        return WatchConfig()
    where = "corpus.yaml `watch`"
    line = getattr(raw, "line", 0)
    if not isinstance(raw, dict):
        raise UsageError(f"{where} (line {line}) must be a mapping such as {{repos: [owner/name], orgs: [org]}}")
    problems: list[str] = []

    def at(container: object, key: object) -> str:
        line_of = getattr(container, "line_of", None)
        return f"line {line_of(key)}" if line_of else "?"

    for key in raw:
        if key not in _WATCH_KEYS:
            problems.append(f"{at(raw, key)}: unknown key '{key}' in {where}; allowed: {', '.join(_WATCH_KEYS)}")
    repos: list[RepoTarget] = []
    for index, item in enumerate(_as_list(raw.get("repos"), "repos", problems)):
        where_item = f"{at(raw.get('repos'), index)}: item {index + 1} of watch.repos"
        if isinstance(item, str):
            slug, branches = item, list[str]()
        elif isinstance(item, dict) and isinstance(item.get("repo"), str):
            slug, branches = item["repo"], item.get("branches") or []
            extra = [k for k in item if k not in ("repo", "branches")]
            if extra:
                problems.append(f"{where_item}: unknown key(s) {', '.join(map(str, extra))}; allowed: repo, branches")
            if not isinstance(branches, list) or not all(isinstance(b, str) and b for b in branches):
                problems.append(f"{where_item}: branches must be a list of branch names, e.g. [main, dev]")
                branches = []
        else:
            problems.append(f"{where_item} must be owner/name or {{repo: owner/name, branches: [...]}}")
            continue
        if not _SLUG.match(slug):
            problems.append(f"{where_item}: '{slug}' is not owner/name")
            continue
        repos.append(RepoTarget(repo=slug, branches=tuple(branches)))
    orgs = _as_list(raw.get("orgs"), "orgs", problems)
    for org in orgs:
        if not isinstance(org, str) or not _ORG.match(org):
            problems.append(f"{where}: org '{org}' is not a GitHub organisation name")
    exclude = _as_list(raw.get("exclude"), "exclude", problems)
    if problems:
        raise UsageError("\n".join(problems) + f"\nfix {where} and run again")
    return WatchConfig(repos=tuple(repos), orgs=tuple(str(o) for o in orgs), exclude=tuple(str(e) for e in exclude))


def _as_list(value: object, key: str, problems: list[str]) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(f"corpus.yaml `watch.{key}` must be a list")
        return []
    return value
