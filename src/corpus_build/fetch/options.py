"""Fetch settings, declared once and passed explicitly (CLI flags over corpus.yaml `fetch:`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..errors import UsageError
from ..model import Corpus

MB = 1024 * 1024


@dataclass(frozen=True)
class FetchOptions:
    ids: tuple[str, ...] = ()  # empty: every source with a URL
    sections: tuple[str, ...] = ()  # folder names or numbers
    kinds: tuple[str, ...] = ()
    force: bool = False  # ignore ETag/Last-Modified/ls-remote and download again
    # A source checked less than this many seconds ago counts as unchanged without asking
    # the server again: a refresh right after a fetch costs no requests. 0 disables.
    recheck_after: float = 600.0
    frozen: bool = False  # re-fetch and fail where content differs from corpus.lock
    jobs: int = 8  # sources in flight at once
    per_host: int = 4  # connections to one host at once
    rewrites: tuple[tuple[str, str], ...] = ()  # URL prefix FROM -> TO, always applied
    fallbacks: tuple[tuple[str, str], ...] = ()  # tried when the primary host fails
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 600.0  # one download, retries included
    retries: int = 3  # extra tries after the first, on connection errors, 429 and 5xx
    backoff: float = 0.5  # first delay in seconds; doubles each try, plus jitter
    max_backoff: float = 30.0
    max_redirects: int = 10
    max_bytes: int = 200 * MB  # bytes on the wire, enforced while streaming
    max_decoded_bytes: int = 400 * MB  # after gzip/deflate: a bomb stops here
    extract_workers: int | None = None  # processes for extraction; 0 = threads in-process
    warc: bool = True
    github_api_url: str = "https://api.github.com"
    github_token: str = ""
    hf_endpoint: str = "https://huggingface.co"
    allow_file_urls: bool = False  # only tests enable it: file:// git remotes
    git_timeout: float = 900.0
    user_agent: str = "corpus-build/0.1 (+mirror of cited sources)"
    # JavaScript shell pages: "auto" renders them in Chromium when one is installed (else the
    # mirror is `partial`), "always" renders every HTML page, "never" records shells `partial`.
    browser: str = "auto"
    chromium: str = ""  # the Chromium binary (default: chromium on PATH); CORPUS_BUILD_CHROMIUM
    max_images: int = 100  # images of an article's or doc's main text kept per source; 0 keeps none

    def with_env(self, env: Mapping[str, str] | None = None) -> FetchOptions:
        """GITHUB_API_URL, GITHUB_TOKEN and HF_ENDPOINT from the environment (read here, once)."""
        env = os.environ if env is None else env
        return replace(
            self,
            github_api_url=(env.get("GITHUB_API_URL") or self.github_api_url).rstrip("/"),
            github_token=env.get("GITHUB_TOKEN", self.github_token).strip(),
            hf_endpoint=(env.get("HF_ENDPOINT") or self.hf_endpoint).rstrip("/"),
            chromium=env.get("CORPUS_BUILD_CHROMIUM", self.chromium).strip(),
        )


_FROM_YAML = {
    "jobs": int, "per_host": int, "connect_timeout": float, "read_timeout": float, "total_timeout": float,
    "retries": int, "backoff": float, "max_redirects": int, "max_bytes": int, "max_decoded_bytes": int,
    "extract_workers": int, "warc": bool, "recheck_after": float, "git_timeout": float, "user_agent": str,
    "browser": str, "max_images": int,
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


def parse_rewrite(text: str) -> tuple[str, str]:
    src, sep, dst = text.partition("=")
    if not sep or not src.startswith(("http://", "https://")) or not dst.startswith(("http://", "https://")):
        raise UsageError(f"--rewrite takes FROM=TO with two http(s) URL prefixes, e.g. https://huggingface.co/=https://hf-mirror.com/; got '{text}'")
    return src, dst


def from_corpus(corpus: Corpus, **overrides: Any) -> FetchOptions:
    """Options from corpus.yaml (`fetch:`, `rewrites:`, `fallbacks:`), then overrides (CLI)."""
    extra = corpus.settings.extra
    values: dict[str, Any] = {}
    settings = extra.get("fetch") or {}
    for key, value in dict(settings).items():
        if key not in _FROM_YAML:
            raise UsageError(f"corpus.yaml `fetch.{key}` is not a fetch setting; allowed: {', '.join(sorted(_FROM_YAML))}")
        kind = _FROM_YAML[key]
        if kind in (int, float) and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise UsageError(f"corpus.yaml `fetch.{key}` must be a number, got {value!r}")
        if kind is str and not isinstance(value, str):
            raise UsageError(f"corpus.yaml `fetch.{key}` must be text, got {value!r}")
        if key == "browser" and value not in BROWSER_MODES:
            raise UsageError(f"corpus.yaml `fetch.browser` must be one of {', '.join(BROWSER_MODES)}; got {value!r}")
        values[key] = kind(value)
    values["rewrites"] = _pairs(extra.get("rewrites"), "rewrites")
    values["fallbacks"] = _pairs(extra.get("fallbacks"), "fallbacks")
    extra_rewrites = tuple(overrides.pop("rewrites", ()) or ())
    values.update({k: v for k, v in overrides.items() if v is not None})
    # Command-line rewrites come first: the more specific wish wins.
    values["rewrites"] = extra_rewrites + values["rewrites"]
    options = FetchOptions(**values)
    if options.jobs < 1 or options.per_host < 1:
        raise UsageError("--jobs and per-host limits must be at least 1")
    if options.max_images < 0:
        raise UsageError(f"corpus.yaml `fetch.max_images` must be 0 or more, got {options.max_images}")
    return options
