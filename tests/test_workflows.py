"""The GitHub workflows: what a push deploys, and the daily run's proposal step (issue 23).

The proposal step is run as written in `daily.yml` (its `run:` block, with the step's `env:`),
by bash, against real git repositories: a bare repository stands for GitHub's copy. Only `gh`,
the GitHub API client, is replaced (the transport seam): a script that records its arguments
and answers `pr view` (for daily/corpus only) and `pr create` as each test says.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
BOT = "41898282+github-actions[bot]@users.noreply.github.com"

FAKE_GH = """#!/usr/bin/env bash
echo "$*" >> "$GH_LOG"
case "$1 $2" in
  "auth setup-git") exit 0 ;;
  "pr view") [ "$3" = daily/corpus ] && [ "$PR_STATE" != NONE ] && { echo "$PR_STATE"; exit 0; }; exit 1 ;;
  "pr create") exit "${PR_CREATE_STATUS:-0}" ;;
  "pr edit") exit 0 ;;
esac
"""


def _workflow(name: str) -> dict:
    return yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))


def _proposal_step() -> dict:
    steps = _workflow("daily.yml")["jobs"]["publish"]["steps"]
    return next(s for s in steps if s.get("name", "").startswith("Propose"))


def _git(cwd: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def _commit(repo: Path, path: str, text: str, message: str, email: str) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    _git(repo, "add", path)
    _git(repo, "-c", "user.name=someone", "-c", f"user.email={email}", "commit", "-q", "-m", message)


@pytest.fixture
def github(tmp_path):
    """A bare 'GitHub' repository with main, and a checkout of it where the daily run wrote files."""
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    _git(tmp_path, "clone", "-q", str(origin), str(seed))
    _commit(seed, "corpus/corpus.yaml", "title: t\n", "start", "editor@example.org")
    _git(seed, "push", "-q", "origin", "HEAD:main")
    work = tmp_path / "work"
    _git(tmp_path, "clone", "-q", str(origin), str(work))
    return origin, seed, work


def _run_proposal(work: Path, tmp_path: Path, *, pr_state: str = "NONE", pr_create: int = 0):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(FAKE_GH, encoding="utf-8")
    (bin_dir / "gh").chmod(0o755)
    step = _proposal_step()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({k: str(v) for k, v in step["env"].items() if "${{" not in str(v)})
    env.update(
        PATH=f"{bin_dir}:{env['PATH']}",
        BASE_BRANCH="main",
        GH_TOKEN="unused",
        GH_LOG=str(tmp_path / "gh.log"),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        PR_STATE=pr_state,
        PR_CREATE_STATUS=str(pr_create),
        HOME=str(tmp_path),  # no user git config: the step sets its own identity
    )
    # GitHub runs a `run:` block with `bash -e` (set -o errexit), as here.
    result = subprocess.run(["bash", "-e", "-c", step["run"]], cwd=work, env=env, capture_output=True, text=True)
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8") if (tmp_path / "summary.md").exists() else ""
    log = (tmp_path / "gh.log").read_text(encoding="utf-8") if (tmp_path / "gh.log").exists() else ""
    return result, summary, log


def _write_todays_files(work: Path) -> None:
    digest = work / "corpus" / "digests" / "2026-12-01.md"
    digest.parent.mkdir(parents=True, exist_ok=True)
    digest.write_text("# draft\n", encoding="utf-8")


def test_first_proposal_pushes_the_branch_and_opens_a_pull_request(github, tmp_path):
    origin, _, work = github
    _write_todays_files(work)
    result, summary, log = _run_proposal(work, tmp_path)
    assert result.returncode == 0, result.stderr
    files = _git(origin, "ls-tree", "-r", "--name-only", "daily/corpus")
    assert "corpus/digests/2026-12-01.md" in files
    assert "pr create --base main --head daily/corpus" in log
    assert summary == ""


def test_editor_commits_on_the_open_proposal_are_never_overwritten(github, tmp_path):
    origin, seed, work = github
    # Yesterday's proposal by the bot, then the editor's commentary on top, not merged yet.
    _git(seed, "switch", "-q", "-c", "daily/corpus")
    _commit(seed, "corpus/digests/2026-11-30.md", "# draft\n", "Daily corpus update", BOT)
    _commit(seed, "corpus/digests/2026-11-30.md", "# draft\n\nThe editor's commentary.\n", "commentary", "editor@example.org")
    _git(seed, "push", "-q", "origin", "daily/corpus")
    editor_tip = _git(seed, "rev-parse", "HEAD").strip()

    _write_todays_files(work)
    result, summary, log = _run_proposal(work, tmp_path, pr_state="OPEN")
    assert result.returncode == 0, result.stderr
    assert _git(origin, "rev-parse", "daily/corpus").strip() == editor_tip
    day_branches = _git(origin, "branch", "--list", "daily/corpus-*").split()
    assert len(day_branches) == 1, day_branches
    assert "corpus/digests/2026-12-01.md" in _git(origin, "ls-tree", "-r", "--name-only", day_branches[0])
    assert "not made by this workflow" in summary
    assert f"--head {day_branches[0]}" in log


def test_a_proposal_only_the_bot_wrote_is_rebuilt_from_main(github, tmp_path):
    origin, seed, work = github
    _git(seed, "switch", "-q", "-c", "daily/corpus")
    _commit(seed, "corpus/digests/2026-11-30.md", "# draft\n", "Daily corpus update", BOT)
    _git(seed, "push", "-q", "origin", "daily/corpus")

    _write_todays_files(work)
    result, summary, _ = _run_proposal(work, tmp_path, pr_state="OPEN")
    assert result.returncode == 0, result.stderr
    files = _git(origin, "ls-tree", "-r", "--name-only", "daily/corpus")
    assert "corpus/digests/2026-12-01.md" in files and "corpus/digests/2026-11-30.md" not in files
    assert _git(origin, "branch", "--list", "daily/corpus-*").strip() == ""
    assert summary == ""


def test_a_repository_that_forbids_pull_requests_still_deploys(github, tmp_path):
    """`gh pr create` fails (the setting is off on new repositories and forks): the step warns, exits 0."""
    origin, _, work = github
    _write_todays_files(work)
    result, summary, _ = _run_proposal(work, tmp_path, pr_create=1)
    assert result.returncode == 0, result.stderr
    assert "::warning::Could not open a pull request" in result.stdout
    assert "create pull requests" in summary
    daily = _workflow("daily.yml")
    assert daily["jobs"]["deploy"]["needs"] == "publish"


def test_nothing_to_propose_pushes_nothing(github, tmp_path):
    origin, _, work = github
    result, _, log = _run_proposal(work, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "nothing to propose today" in result.stdout
    assert _git(origin, "branch", "--list", "daily/*").strip() == ""
    assert "pr create" not in log


def _cache_paths(job: dict) -> set[str]:
    for step in job["steps"]:
        if str(step.get("uses", "")).startswith("actions/cache") and "mirrors-" in str(step["with"].get("key", "")):
            return set(step["with"]["path"].split())
    return set()


def test_a_push_deploys_with_the_mirrors_the_daily_run_saved():
    """The push deploy restores every folder the daily run caches, so both publish the same site."""
    daily = _cache_paths(_workflow("daily.yml")["jobs"]["publish"])
    push = _cache_paths(_workflow("pages.yml")["jobs"]["build"])
    assert "corpus/*/raw" in daily
    assert push == daily


@pytest.mark.parametrize("name", ["daily.yml", "pages.yml"])
def test_workflows_grant_write_permissions_per_job_and_keep_no_credentials(name):
    workflow = _workflow(name)
    assert workflow["permissions"] == {}
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            uses = str(step.get("uses", ""))
            if uses:
                ref = uses.split("@", 1)[1]
                assert len(ref) == 40, f"{uses}: pin actions to a commit"
            if uses.startswith("actions/checkout"):
                assert step["with"]["persist-credentials"] is False
