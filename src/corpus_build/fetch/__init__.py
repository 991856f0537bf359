"""The fetch stage: mirror every source into corpus/<section>/raw/<id>/ with provenance.

    fetch_corpus(corpus, options) -> list[FetchResult]     (never raises for one source's failure)
    options.from_corpus(corpus, **cli_overrides) -> FetchOptions

Modules: engine (selection, concurrency, atomic swap), http (streaming client), connect
(checked hosts connected to at the address found public),
kinds/ (one module per kind, ordered registry), records (WARC, hashes, SWHIDs),
lockfile (corpus.lock and the run lock), attach (copies the user supplies),
citemeta (citation_* meta tags), pagefacts (what `add` reads of a new page),
cli (`fetch`, `status` and `attach` commands). Settings from corpus.yaml arrive checked
by the registry (registry/settings.py).
"""

from __future__ import annotations

from .engine import FetchResult, fetch_corpus, select
from .options import FetchOptions, from_corpus

__all__ = ["FetchOptions", "FetchResult", "fetch_corpus", "from_corpus", "select"]
