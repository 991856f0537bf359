"""`corpus-build watch`: parse options, build the client, call `draft_digest`."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import sys
from pathlib import Path

from ..core.commands import add_command, project_dir
from ..core.errors import UsageError, plural, printable, repositories
from ..registry.cli import load_corpus

CACHE_DIR = Path(".corpus-build") / "github"  # shared ETag cache, beside the jieba dictionary


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(
        sub, "watch", cmd_watch,
        help="draft corpus/digests/<date>.md from GitHub activity in a time window",
        description=(
            "Draft a dated digest of what changed in the watched GitHub repositories: every repository "
            "in the registry plus `watch:` in corpus.yaml. Re-running a window refreshes the facts and "
            "keeps the editor's text. Uses GITHUB_API_URL and GITHUB_TOKEN."
        ),
        example="corpus-build watch --since 2026-10-21T07:00+08:00 --until 2026-10-22T07:00+08:00 --tz +08:00",
    )
    p.add_argument("--since", help="window start, ISO time with offset (2026-10-21T07:00+08:00) or a date; default: end of the last digest's window")
    p.add_argument("--until", help="window end, same forms; default: now")
    p.add_argument("--tz", help="zone to display times in, e.g. +08:00 (default: the last digest's, else +00:00)")
    p.add_argument("--repo", action="append", default=[], metavar="OWNER/NAME", help="watch only this repository (repeatable)")
    p.add_argument("--org", action="append", default=[], metavar="ORG", help="watch every repository of this organisation (repeatable)")


# GitHub's own rules: an owner of 1-39 letters, digits and inner hyphens; a name of 1-100
# letters, digits, `.`, `_` and `-`, never `.` or `..` (which would walk the API's path).
_OWNER = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?")
_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")


def check_repo(text: str) -> str:
    """`text` when it names a repository as OWNER/NAME; else a UsageError saying what a name looks like."""
    owner, _, name = text.partition("/")
    if not (_OWNER.fullmatch(owner) and _NAME.fullmatch(name) and name not in (".", "..")):
        shown = printable(text if len(text) <= 80 else text[:77] + "...")
        raise UsageError(f"--repo {shown}: not a GitHub repository name; write OWNER/NAME, e.g. tile-ai/tilelang")
    return text


def cmd_watch(args: argparse.Namespace) -> int:
    project = project_dir(args)
    for repo in args.repo:
        check_repo(repo)
    for org in args.org:
        if not _OWNER.fullmatch(org):
            raise UsageError(f"--org {printable(org[:80])}: not a GitHub organisation name; write its login, e.g. tile-ai")
    # Imported here: `corpus-build` starts faster for every other command.
    from ..core.github_api import GitHubClient, GitHubConfig
    from .run import WatchOptions, draft_digest, plan_window

    corpus = load_corpus(args)
    now = dt.datetime.now(dt.UTC)
    window = plan_window(corpus, since=args.since, until=args.until, tz=args.tz, now=now)
    from ..core import safepath

    config = GitHubConfig.from_env(os.environ, cache_dir=safepath.inside(project / CACHE_DIR, project, "the GitHub cache"))
    progress = None if args.quiet else (lambda message: print(printable(message), file=sys.stderr))
    with GitHubClient(config) as client:
        result = draft_digest(
            corpus,
            window,
            client,
            options=WatchOptions(repos=tuple(args.repo), orgs=tuple(args.org)),
            progress=progress,
        )
    counts = result.facts.counts()
    verb = "drafted" if result.created else "refreshed"
    print(
        f"{verb} {result.path.relative_to(project)}: {repositories(counts['repos'])} ({counts['active']} active), "
        f"{plural(counts['merged'], 'merged PR')}, {plural(counts['releases'], 'release')}, {plural(counts['state_changes'], 'cited state change')}"
        + (f"; resumed {repositories(result.resumed)} from the stopped run" if result.resumed else "")
    )
    for failure in result.failures:
        print(printable(f"error: {failure}"), file=sys.stderr)
    print("next: write the commentary between the corpus-build:commentary markers, then `corpus-build check`")
    return 1 if result.failures else 0
