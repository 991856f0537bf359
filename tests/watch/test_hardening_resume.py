"""watch: an unauthenticated resume that needs more than one quota still finishes (issue 10 item 6)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from corpus_build import registry
from corpus_build.core.errors import RateLimitError
from corpus_build.core.github_api import GitHubClient, GitHubConfig
from corpus_build.watch import WatchOptions, draft_digest, plan_window

from .conftest import SINCE, UNTIL


def test_resume_progresses_when_one_repository_needs_more_than_the_quota(github, corpus_dir: Path) -> None:
    pulls = github.repos["tile-ai/tilelang"].pulls
    for index in range(40):  # 40 more merges: each needs its own /pulls/N request
        when = (dt.datetime(2026, 10, 21, 0, 0, tzinfo=dt.timezone.utc) + dt.timedelta(minutes=20 * index)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pulls.append({"number": 5000 + index, "title": f"Merge {index}", "user": "bot", "created_at": when, "updated_at": when, "merged_at": when})
    config = GitHubConfig(api_url=github.url, cache_dir=None)  # no token, no ETags: every request billed
    now = dt.datetime(2026, 10, 22, tzinfo=dt.timezone.utc)
    runs = 0
    while True:
        runs += 1
        assert runs <= 12, "the resume never finished"
        github.quota = 25  # each run gets a fresh, small quota (tilelang alone needs ~50 requests)
        corpus = registry.load(corpus_dir)
        first = runs == 1
        window = plan_window(corpus, since=SINCE if first else None, until=UNTIL if first else None, tz="+08:00" if first else None, now=now)
        try:
            with GitHubClient(config) as client:
                result = draft_digest(corpus, window, client, options=WatchOptions(repos=("tile-ai/tilelang",)))
            break
        except RateLimitError:
            continue
    assert runs > 2  # it really had to resume
    assert len(result.facts.repos[0].merged) == 43
    assert not (corpus_dir / ".watch" / "requests.json").exists()
