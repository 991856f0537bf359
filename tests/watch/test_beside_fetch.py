"""`watch` beside a running `fetch`: the mirror folders are fetch's while it runs.

watch refreshes the thread state in the provenance record of each cited PR it re-checks. A
fetch running at the same time may swap that mirror folder for a new capture between watch's
read of the record and its write: the old capture's record (its files, its sha256) would then
describe the new capture's files. So watch writes there only under the fetch's run lock
(corpus/.fetch.lock); while a fetch holds it, watch leaves the records alone, drafts the
digest as always, and the next run (or that fetch) brings the records up to date.
"""

from __future__ import annotations

import json
from pathlib import Path

from corpus_build import registry
from corpus_build.core.github_api import GitHubClient
from corpus_build.fetch.lockfile import run_lock
from corpus_build.watch import WatchOptions, draft_digest

from .conftest import UNTIL, write_thread_provenance
from .fakegithub import FakeGitHub
from .test_digest import window_for


def test_watch_leaves_the_mirror_records_alone_while_a_fetch_runs(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    record = write_thread_provenance(corpus_dir, "tilelang-pr-3577")  # open when mirrored; merged on GitHub now
    before = record.read_bytes()
    corpus = registry.load(corpus_dir)
    with run_lock(corpus.root):  # a fetch is running
        result = draft_digest(corpus, window_for(corpus_dir, until=UNTIL), client, options=WatchOptions())
        assert record.read_bytes() == before
    assert "tile-ai/tilelang#3577" in result.path.read_text(encoding="utf-8")  # the digest still reports the change
    draft_digest(registry.load(corpus_dir), window_for(corpus_dir, until=UNTIL), client, options=WatchOptions())
    assert json.loads(record.read_text(encoding="utf-8"))["thread"]["merged"] is True
