"""`draft_digest` end to end against the fake GitHub: exact items, re-runs, cited state, quota."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from corpus_build import registry
from corpus_build.core.errors import RateLimitError, UsageError
from corpus_build.core.github_api import GitHubClient, GitHubConfig
from corpus_build.watch import WatchOptions, draft_digest, plan_window
from corpus_build.watch.merge import facts_of, merge

from .conftest import SINCE, UNTIL, write_thread_provenance
from .fakegithub import FakeGitHub

NOW = dt.datetime(2026, 10, 22, 0, 0, tzinfo=dt.timezone.utc)


def window_for(corpus_dir: Path, since: str | None = SINCE, until: str | None = UNTIL):
    return plan_window(registry.load(corpus_dir), since=since, until=until, tz="+08:00", now=NOW)


def run(corpus_dir: Path, client: GitHubClient, since: str | None = SINCE, until: str | None = UNTIL, **options):
    corpus = registry.load(corpus_dir)
    return draft_digest(corpus, window_for(corpus_dir, since, until), client, options=WatchOptions(**options))


def pr_numbers(block: str) -> list[int]:
    return [int(n) for n in re.findall(r"^- \S*?#(\d+)", block, re.MULTILINE)]


def test_draft_for_a_fixed_window_has_exactly_the_expected_items(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    result = run(corpus_dir, client)
    assert result.path == corpus_dir / "digests" / "2026-10-22.md"
    text = result.path.read_text(encoding="utf-8")
    blocks = facts_of(text)

    # Registry repos + watch.repos + org members, archived ones left out, sorted.
    corpus = registry.load(corpus_dir)  # the draft is a valid digest, [[links]] included
    digest = corpus.digests[0]
    assert digest.meta["repos"] == ["deepseek-ai/TileKernels", "tile-ai/TileFoundry", "tile-ai/tilelang", "tile-ai/tilelang-hygon", "tile-ai/tilelang-metax"]
    assert digest.meta["window_start"] == "2026-10-21T07:00:00+08:00"
    assert digest.meta["window_end"] == "2026-10-22T07:00:00+08:00"
    assert digest.meta["tz"] == "+08:00"
    assert digest.meta["counts"] == {
        "repos": 5, "active": 3, "failed": 0, "commits": 6, "merged": 3, "updated_prs": 1,
        "open_prs": 3, "releases": 1, "new_tags": 1, "state_changes": 1,
    }

    # Merged in the window only (#3000 merged before it), oldest first, linked, with +/- and fixes.
    tilelang = blocks["repo:tile-ai/tilelang"]
    merged, _, review = tilelang.partition("**In review")
    assert pr_numbers(merged) == [3577, 3595, 3070]
    assert "[[tilelang-pr-3577|#3577]]" in merged  # a PR in the registry links to its page
    assert "[#3070](<https://github.com/tile-ai/tilelang/pull/3070>) Batch finalize\\_reducer only reduced the first block — @bob, merged 10-22 01:16, 2 files +29/-5, fixes [#2623](<https://github.com/tile-ai/tilelang/issues/2623>)" in merged
    assert pr_numbers(review) == [3597]  # #3100 is open but was not touched in the window
    assert "opened 10-21 13:00" in review
    assert "[[tilelang|tile-ai/tilelang]]: 3 commits on main" in tilelang  # a0 before, a4 at the end: excluded

    assert "[TileFoundry 0.0.3](<https://github.com/tile-ai/TileFoundry/releases/tag/v0.0.3>) (`v0.0.3`) — 10-21 10:26" in blocks["repo:tile-ai/TileFoundry"]
    assert "0 commits on main; 3 commits on feat-hcu-smls-b-vgpr" in blocks["repo:tile-ai/tilelang-hygon"]
    assert blocks["quiet"].splitlines() == [
        "- [[tilekernels|deepseek-ai/TileKernels]] (main): no activity in the window; latest push 10-14 08:00",
        "- [tile-ai/tilelang-metax](<https://github.com/tile-ai/tilelang-metax>) (dev): no activity in the window; latest push 10-16 08:00",
    ]
    assert "repo:tile-ai/tilelang-metax" not in blocks  # quiet repositories get a line, not a section
    assert "old-archived" not in text

    table = blocks["source-check"].splitlines()
    assert table[0] == "| Repository (branches) | Commits | Merged | Open PRs | Updated in window | Latest push | New tags |"
    assert table[2:] == [
        "| [deepseek-ai/TileKernels](<https://github.com/deepseek-ai/TileKernels>) (main) | 0 | 0 | 0 | 0 | 10-14 08:00 | — |",
        "| [tile-ai/TileFoundry](<https://github.com/tile-ai/TileFoundry>) (main) | 0 | 0 | 1 | 0 | 10-21 10:26 | `v0.0.3` |",
        "| [tile-ai/tilelang](<https://github.com/tile-ai/tilelang>) (main) | 3 | 3 | 2 | 1 | 10-22 01:23 | — |",
        "| [tile-ai/tilelang-hygon](<https://github.com/tile-ai/tilelang-hygon>) (main / feat-hcu-smls-b-vgpr) | 0 / 3 | 0 | 0 | 0 | 10-21 15:27 | — |",
        "| [tile-ai/tilelang-metax](<https://github.com/tile-ai/tilelang-metax>) (dev) | 0 | 0 | 0 | 0 | 10-16 08:00 | — |",
    ]
    # Section order and placeholders for the editor.
    headings = re.findall(r"^## (.+?) \{#", text, re.MULTILINE)
    assert headings == ["Index", "Highlights", "Cited PRs and issues that changed state", "tile-ai/TileFoundry", "tile-ai/tilelang", "tile-ai/tilelang-hygon", "Quiet repositories", "Trends", "Source check"]
    assert text.count("<!-- corpus-build:commentary id=") == 5


def test_rerun_refreshes_facts_and_keeps_every_word_the_editor_wrote(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    path = run(corpus_dir, client).path
    text = path.read_text(encoding="utf-8")
    highlight = "Eight merges, all about silent wrong results.\n\nSee [the PR](https://example.org)."
    text = text.replace("title: Watch digest 2026-10-22", "title: tile-ai daily, 2026-10-22")
    text = text.replace("<!-- Editor: write the highlights here (this hint is not shown on the site). -->", highlight)
    text = text.replace("<!-- Editor: write about tile-ai/tilelang here. -->", "The main repository cleaned up silent bugs.")
    text = text.replace("## Trends {#trends}", "An editor's paragraph outside any block.\n\n## Trends {#trends}")
    path.write_text(text, encoding="utf-8")

    # New facts: a quiet repository becomes active, and a new merge lands in tilelang.
    github.repos["deepseek-ai/tilekernels"].pulls.append(
        {"number": 7, "title": "Ascend backend", "user": "hank", "created_at": "2026-10-21T01:00:00Z", "updated_at": "2026-10-21T04:00:00Z", "merged_at": "2026-10-21T04:00:00Z"}
    )
    github.repos["tile-ai/tilelang"].pulls.append(
        {"number": 3600, "title": "Late fix", "user": "ivy", "created_at": "2026-10-21T20:00:00Z", "updated_at": "2026-10-21T21:00:00Z", "merged_at": "2026-10-21T21:00:00Z"}
    )
    result = run(corpus_dir, client)
    assert not result.created
    new = path.read_text(encoding="utf-8")

    for words in (highlight, "The main repository cleaned up silent bugs.", "An editor's paragraph outside any block.", "title: tile-ai daily, 2026-10-22"):
        assert words in new
    # Outside the fact blocks, the old file survives byte for byte (TileKernels' section is inserted).
    def outside(doc: str) -> str:
        return re.sub(r"<!-- corpus-build:facts id=\S+ -->\n.*?<!-- /corpus-build:facts -->", "<facts>", doc.split("\n---\n", 1)[1], flags=re.DOTALL)

    inserted = re.search(r"## deepseek-ai/TileKernels \{#repo-deepseek-ai-tilekernels\}\n\n<facts>\n\n<!-- corpus-build:commentary id=repo:deepseek-ai/TileKernels -->\n.*?<!-- /corpus-build:commentary -->\n\n", outside(new), re.DOTALL)
    assert inserted is not None
    assert outside(new).replace(inserted.group(0), "") == outside(text)
    blocks = facts_of(new)
    assert pr_numbers(blocks["repo:tile-ai/tilelang"].partition("**In review")[0]) == [3577, 3595, 3070, 3600]
    assert pr_numbers(blocks["repo:deepseek-ai/TileKernels"]) == [7]
    assert new.index("## deepseek-ai/TileKernels") < new.index("## tile-ai/TileFoundry")  # in repository order
    assert "deepseek-ai/TileKernels" not in blocks["quiet"]
    meta = registry.load(corpus_dir).digests[0].meta
    assert meta["counts"]["merged"] == 5 and meta["title"] == "tile-ai daily, 2026-10-22"
    # The same window again reports the same cited change: baselines are kept per window.
    assert "tile-ai/tilelang#3577" in blocks["cited"]


def test_state_change_of_a_cited_pr_is_reported_and_the_mirror_record_updates(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    record = write_thread_provenance(corpus_dir, "tilelang-pr-3577")
    pr = next(p for p in github.repos["tile-ai/tilelang"].pulls if p["number"] == 3577)
    pr.update(merged_at=None, state="open", updated_at="2026-10-19T00:00:00Z")
    first = run(corpus_dir, client, since="2026-10-19T07:00+08:00", until="2026-10-20T07:00+08:00")
    assert "No PR or issue cited by the corpus changed state." in facts_of(first.path.read_text(encoding="utf-8"))["cited"]
    assert json.loads(record.read_text())["thread"]["merged"] is False

    pr.update(merged_at="2026-10-21T02:20:00Z", updated_at="2026-10-21T02:20:00Z")
    github.repos["tile-ai/tilelang"].issues[0].update(closed_at="2026-10-21T03:00:00Z", updated_at="2026-10-21T03:00:00Z")
    second = run(corpus_dir, client, since=None, until=UNTIL)  # since the last digest
    assert second.facts.start == dt.datetime.fromisoformat("2026-10-20T07:00+08:00")
    cited = facts_of(second.path.read_text(encoding="utf-8"))["cited"].splitlines()
    assert cited == [
        "- [tile-ai/tilelang#1049](<https://github.com/tile-ai/tilelang/issues/1049>) sm\\_50 fallback: open → closed (10-21 11:00)",
        "- [[tilelang-pr-3577|tile-ai/tilelang#3577]] \\[Ascend\\] DeepGEMM heuristics: open → merged (10-21 10:20)",
    ]
    thread = json.loads(record.read_text())["thread"]
    assert thread["merged"] is True and thread["state"] == "closed" and thread["merged_at"] == "2026-10-21T02:20:00Z"
    state = json.loads((corpus_dir / ".watch" / "state.json").read_text())
    assert state["cited"]["tile-ai/tilelang#3577"]["state"] == "merged"
    assert "pending" not in state


def test_rate_limit_saves_partial_facts_and_the_next_run_resumes(github: FakeGitHub, corpus_dir: Path, tmp_path: Path) -> None:
    config = GitHubConfig(api_url=github.url, cache_dir=None)  # no ETags: every request is billed
    github.quota = 20
    with GitHubClient(config) as client, pytest.raises(RateLimitError) as stopped:
        run(corpus_dir, client)
    message = str(stopped.value)
    reset = dt.datetime.fromtimestamp(github.reset_epoch, dt.timezone.utc)
    assert "rate limit exhausted" in message and f"resets at {reset:%Y-%m-%d %H:%M} UTC" in message and "GITHUB_TOKEN" in message
    assert re.search(r"\d of 5 repositories gathered and saved in .*state\.json", message)
    assert stopped.value.reset_at == reset.isoformat()
    assert not (corpus_dir / "digests").exists()
    pending = json.loads((corpus_dir / ".watch" / "state.json").read_text())["pending"]
    done = sorted(pending["repos"])
    assert done and len(done) < 5

    github.quota = None
    github.reset_log()
    with GitHubClient(config) as client:
        corpus = registry.load(corpus_dir)
        window = plan_window(corpus, since=None, until=None, tz=None, now=NOW + dt.timedelta(days=3))
        assert window.key == pending["window"]  # the stopped window, not "since last digest until now"
        result = draft_digest(corpus, window, client)
    assert result.resumed == len(done)
    asked = {entry.path for entry in github.log}
    for slug in done:  # finished repositories are not asked again
        assert not any(p.lower().startswith(f"/repos/{slug}") for p in asked if "/pulls/" not in p and "/issues/" not in p)
    assert result.facts.counts()["merged"] == 3
    assert "pending" not in json.loads((corpus_dir / ".watch" / "state.json").read_text())


def test_etag_reuse_makes_an_unchanged_rerun_free(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    run(corpus_dir, client)
    first = github.counts()
    github.reset_log()
    run(corpus_dir, client)
    second = github.counts()
    assert first["total"] == second["total"]
    assert second["billed"] == 0 and second["not_modified"] == second["total"]
    print(f"\nrequests: first run {first}, re-run with ETags {second}")


def test_search_past_the_cap_is_split_into_time_slices(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    pulls = github.repos["tile-ai/tilelang"].pulls
    for index in range(12):  # 12 more merges spread over the window: 15 in all, cap 4
        when = (dt.datetime(2026, 10, 20, 23, 30, tzinfo=dt.timezone.utc) + dt.timedelta(hours=index * 1.9)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pulls.append({"number": 4000 + index, "title": f"Merge {index}", "user": "bot", "created_at": when, "updated_at": when, "merged_at": when})
    github.search_cap = 4
    result = run(corpus_dir, client, repos=("tile-ai/tilelang",), search_cap=4)
    numbers = [p.number for p in result.facts.repos[0].merged]
    assert sorted(numbers) == sorted([3070, 3577, 3595, *range(4000, 4012)])
    merged_searches = [e for e in github.log if e.path == "/search/issues" and "is%3Amerged" in e.query]
    assert len(merged_searches) > 4  # the window was cut in slices


def test_a_limit_that_resets_within_a_minute_is_waited_out(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    import time

    github.quota, github.refill = 12, 1000
    github.reset_epoch = int(time.time()) + 2  # like search's per-minute window
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(max(0.0, github.reset_epoch - time.time()) + 0.05)

    corpus = registry.load(corpus_dir)
    result = draft_digest(corpus, window_for(corpus_dir), client, options=WatchOptions(max_wait=30), sleep=sleep)
    assert len(waits) == 1 and waits[0] <= 4
    assert github.counts()["rate_limited"] == 1
    assert result.facts.counts()["merged"] == 3


def test_broken_front_matter_stops_the_run_and_keeps_the_editors_file(github: FakeGitHub, corpus_dir: Path, client: GitHubClient) -> None:
    path = run(corpus_dir, client).path
    corpus, window = registry.load(corpus_dir), window_for(corpus_dir)  # loaded before the editor's slip
    text = path.read_text(encoding="utf-8").replace("title: Watch digest 2026-10-22", "title: tile-ai: daily\ntags: [kernels, ascend]", 1)
    assert "tile-ai: daily" in text
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        draft_digest(corpus, window, client)
    message = str(caught.value)
    assert str(path) in message and "not valid YAML" in message and "line 2" in message and "run `corpus-build watch` again" in message
    assert path.read_text(encoding="utf-8") == text  # the editor's title and tags are still there

    # The same check guards the merge itself (the file may break while the run gathers).
    with pytest.raises(UsageError, match="2026-10-22.md: the front matter is a list"):
        merge("---\n- a\n- b\n---\nbody\n", text, where="digests/2026-10-22.md")
