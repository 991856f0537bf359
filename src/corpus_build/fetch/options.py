"""Fetch settings, declared once and passed explicitly (CLI flags over corpus.yaml `fetch:`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import UsageError
from ..core.model import Corpus
from ..registry.settings import check_cluster, check_fetch_limits, fetch_settings

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
    # Stylesheets of an HTML page and the images and fonts they use, kept per source for its
    # archived copy (fetch/styles.py); 0 keeps none.
    max_styles: int = 60
    # Sources whose new capture replaces the mirror even when it is worse (fetch/keep.py):
    # `fetch ID --accept-worse`. Never set from corpus.yaml: it is a decision about one capture.
    accept_worse: tuple[str, ...] = ()
    # A Dask scheduler (tcp://HOST:8786): the per-source work runs on its workers, this machine
    # commits the mirrors (fetch/cluster.py). "" (then CORPUS_BUILD_CLUSTER) or "local": here.
    cluster: str = ""
    # A folder every worker and this machine share (NFS, a mounted bucket): a mirror larger than
    # cluster_result_limit comes back through it instead of in the worker's reply.
    cluster_store: str = ""
    cluster_result_limit: int = 256 * MB
    cluster_direct: bool = True  # replies straight from the workers (else relayed by the scheduler)

    @property
    def scheduler(self) -> str:
        """The Dask scheduler to fetch on, or "" to fetch here."""
        return "" if self.cluster == "local" else self.cluster

    def with_env(self, env: Mapping[str, str] | None = None) -> FetchOptions:
        """GITHUB_API_URL, GITHUB_TOKEN and HF_ENDPOINT from the environment (read here, once)."""
        env = os.environ if env is None else env
        return replace(
            self,
            github_api_url=(env.get("GITHUB_API_URL") or self.github_api_url).rstrip("/"),
            github_token=env.get("GITHUB_TOKEN", self.github_token).strip(),
            hf_endpoint=(env.get("HF_ENDPOINT") or self.hf_endpoint).rstrip("/"),
            chromium=env.get("CORPUS_BUILD_CHROMIUM", self.chromium).strip(),
            cluster=self.cluster or check_cluster(env.get("CORPUS_BUILD_CLUSTER", "").strip(), "CORPUS_BUILD_CLUSTER"),
        )


def parse_rewrite(text: str) -> tuple[str, str]:
    src, sep, dst = text.partition("=")
    if not sep or not src.startswith(("http://", "https://")) or not dst.startswith(("http://", "https://")):
        raise UsageError(f"--rewrite takes FROM=TO with two http(s) URL prefixes, e.g. https://huggingface.co/=https://hf-mirror.com/; got '{text}'")
    return src, dst


def from_corpus(corpus: Corpus, **overrides: Any) -> FetchOptions:
    """Options from corpus.yaml (`fetch:`, `rewrites:`, `fallbacks:`, checked by the registry), then overrides (CLI)."""
    values = fetch_settings(corpus.settings.extra)
    extra_rewrites = tuple(overrides.pop("rewrites", ()) or ())
    values.update({k: v for k, v in overrides.items() if v is not None})
    if values.get("cluster"):
        values["cluster"] = check_cluster(values["cluster"], "--cluster")
    # Command-line rewrites come first: the more specific wish wins.
    values["rewrites"] = extra_rewrites + values["rewrites"]
    options = FetchOptions(**values)
    check_fetch_limits(values)
    return options
