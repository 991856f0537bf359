"""Window and zone parsing, `watch:` validation, cited refs, linked issues, marker merging."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from corpus_build import registry
from corpus_build.core.errors import UsageError
from corpus_build.registry.settings import RepoTarget, parse_watch_config
from corpus_build.watch.gather import linked_issues
from corpus_build.watch.merge import commentary_block, facts_block, merge
from corpus_build.watch.targets import cited_refs, merge_targets, registry_repos
from corpus_build.watch.window import parse_moment, parse_tz, resolve_window

BJ = dt.timezone(dt.timedelta(hours=8))
NOW = dt.datetime(2026, 10, 22, 0, 0, tzinfo=dt.timezone.utc)


# --- window ---------------------------------------------------------------------------


def test_times_need_an_offset_and_dates_mean_midnight_in_the_zone() -> None:
    assert parse_moment("2026-10-21T07:00+08:00", BJ) == dt.datetime(2026, 10, 20, 23, 0, tzinfo=dt.timezone.utc)
    assert parse_moment("2026-10-21", BJ) == dt.datetime(2026, 10, 21, tzinfo=BJ)
    with pytest.raises(UsageError, match="has no offset; add one"):
        parse_moment("2026-10-21T07:00", BJ)
    with pytest.raises(UsageError, match="ISO time with an offset"):
        parse_moment("yesterday", BJ)
    assert parse_tz("+08:00") == BJ and parse_tz("-0530").utcoffset(None) == -dt.timedelta(hours=5, minutes=30)
    with pytest.raises(UsageError, match="offset such as"):
        parse_tz("Asia/Shanghai")


def test_default_window_runs_from_the_last_digest_until_now(corpus_dir: Path) -> None:
    empty = registry.load(corpus_dir)
    window = resolve_window(empty, since=None, until=None, tz=None, now=NOW)
    assert (window.start, window.end, window.tz) == (NOW - dt.timedelta(days=1), NOW, "+00:00")
    digests = corpus_dir / "digests"
    digests.mkdir()
    (digests / "2026-10-21.md").write_text('---\ntitle: t\nwindow_end: "2026-10-21T07:00:00+08:00"\ntz: "+08:00"\n---\nbody\n', encoding="utf-8")
    corpus = registry.load(corpus_dir)
    window = resolve_window(corpus, since=None, until=None, tz=None, now=NOW)
    assert window.start == dt.datetime(2026, 10, 21, 7, tzinfo=BJ) and window.tz == "+08:00"
    assert window.date == dt.date(2026, 10, 22)
    with pytest.raises(UsageError, match="is empty"):
        resolve_window(corpus, since="2026-10-22T09:00+08:00", until=None, tz=None, now=NOW)


# --- targets ----------------------------------------------------------------------------


def test_watch_config_is_validated_with_every_problem_listed() -> None:
    config = parse_watch_config({"repos": ["a/b", {"repo": "c/d", "branches": ["main", "feat-x"]}], "orgs": ["tile-ai"]})
    assert config.repos == (RepoTarget("a/b"), RepoTarget("c/d", ("main", "feat-x")))
    with pytest.raises(UsageError) as caught:
        parse_watch_config({"repo": ["a/b"], "repos": ["not a slug", {"repo": "c/d", "branch": "x"}], "orgs": ["bad org"]})
    message = str(caught.value)
    for expected in ("unknown key 'repo'", "'not a slug' is not owner/name", "unknown key(s) branch", "org 'bad org'"):
        assert expected in message


def test_targets_union_branches_and_keep_the_registry_id(corpus_dir: Path) -> None:
    corpus = registry.load(corpus_dir)
    from_registry = registry_repos(corpus)
    assert [(t.repo, t.source_id) for t in from_registry] == [("tile-ai/tilelang", "tilelang"), ("deepseek-ai/TileKernels", "tilekernels")]
    merged = merge_targets(from_registry, [RepoTarget("Tile-AI/TileLang", ("main", "dev"))], exclude=("deepseek-ai/tilekernels",))
    assert merged == (RepoTarget("tile-ai/tilelang", ("main", "dev"), "tilelang"),)


def test_cited_refs_come_from_pull_and_issue_sources_and_from_notes(corpus_dir: Path) -> None:
    refs = cited_refs(registry.load(corpus_dir))
    assert [(r.key, r.kind, r.source_id) for r in refs] == [("tile-ai/tilelang#1049", "issue", ""), ("tile-ai/tilelang#3577", "pull", "tilelang-pr-3577")]


def test_linked_issues_follow_githubs_closing_keywords() -> None:
    body = "Fixes #12, closes tile-ai/tvm#87 and resolved #12 again. Mentions #99 only. FIX: #5"
    assert linked_issues(body) == ("#12", "tile-ai/tvm#87", "#5")


# --- merge ------------------------------------------------------------------------------


def _draft(*blocks: tuple[str, str, str]) -> str:
    """A tiny draft: (heading, facts id, facts text) per section, each with a commentary block."""
    body = "".join(f"## {h}\n\n" + facts_block(i, t) + "\n" + commentary_block(i, "hint") + "\n" for h, i, t in blocks)
    return "---\ntitle: T\ncounts: {a: 1}\n---\n\n" + body


def test_merge_replaces_facts_only_and_inserts_new_sections_in_order() -> None:
    old = _draft(("A", "a", "old a"), ("C", "c", "old c"))
    old = old.replace("<!-- hint -->", "mine", 1).replace("title: T", "title: Mine")
    old += "\nA closing paragraph.\n"
    new = _draft(("A", "a", "new a"), ("B", "b", "new b"), ("C", "c", "new c")).replace("counts: {a: 1}", "counts: {a: 2}")
    merged = merge(old, new)
    assert merged.index("## A") < merged.index("## B") < merged.index("## C")
    assert "new a" in merged and "new b" in merged and "new c" in merged and "old" not in merged
    assert "mine" in merged and merged.endswith("\nA closing paragraph.\n")
    assert "title: Mine" in merged and "a: 2" in merged  # editor's title kept, generated counts refreshed
    assert merge(merged, new) == merged  # idempotent


def test_merge_leaves_blocks_it_no_longer_generates_and_refreshes_extra_ones() -> None:
    old = _draft(("A", "a", "old a"), ("Gone", "gone", "old gone"), ("Quiet now", "q", "was active"))
    merged = merge(old, _draft(("A", "a", "new a")), extra={"q": "no activity"})
    assert "old gone" in merged and "no activity" in merged and "was active" not in merged
