"""A fetch SIGKILLed at the failpoints of core/failpoints.py leaves the archive's state whole:
corpus.lock agrees with the mirrors on disk, no stale failure record, no leftover folder.

Real runs of `corpus-build fetch` (a subprocess) against the loopback server; the kill lands
exactly where a random-time kill would rarely hit (`CORPUS_BUILD_FAILPOINT`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus_build.core import failpoints
from corpus_build.core.provenance import read_provenance

from .server import Reply
from .test_html import page

CLI = [sys.executable, "-m", "corpus_build"]


def run(project: Path, *args: str, point: str = "", prelude: str = "") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower() and k not in ("GITHUB_TOKEN", "HF_ENDPOINT", "GITHUB_API_URL")}
    env.pop(failpoints.VARIABLE, None)
    if point:
        env[failpoints.VARIABLE] = point
    # `prelude`: Python run in the fetch's own process first (to force the fallback swap)
    command = [sys.executable, "-c", f"{prelude}\nimport sys; from corpus_build.cli import main; sys.exit(main(sys.argv[1:]))"] if prelude else CLI
    return subprocess.run([*command, "--project", str(project), *args], capture_output=True, text=True, env=env, timeout=120)


def pins(corpus_root: Path) -> dict:
    return json.loads((corpus_root / "corpus.lock").read_text(encoding="utf-8"))["sources"]


def test_a_fetch_killed_after_a_swap_leaves_corpus_lock_agreeing_with_the_mirror(server, make_corpus, tmp_path):
    server.add("/doc", page(title="First"))
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0})
    assert run(tmp_path, "fetch").returncode == 0
    raw = corpus.raw_dir(corpus.source("doc"))
    server.add("/doc", page(title="Second"))
    killed = run(tmp_path, "fetch", "--force", point="swap:after")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    mirror = read_provenance(raw)
    assert mirror.document.title == "Second"  # the new mirror is in place
    # The next run, --frozen included, sees the lock the killed run would have written.
    frozen = run(tmp_path, "fetch", "--frozen", "--json")
    assert frozen.returncode == 0, frozen.stdout + frozen.stderr
    assert pins(corpus.root)["doc"]["sha256"] == read_provenance(raw).sha256 == mirror.sha256
    assert not (corpus.root / ".corpus.lock.pending").exists()


def test_a_fetch_killed_between_the_swap_and_clearing_the_failure_record_shows_the_new_mirror(server, make_corpus, tmp_path):
    server.add("/doc", page(title="First"))
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0, "retries": 0})
    assert run(tmp_path, "fetch").returncode == 0
    server.routes["/doc"] = lambda request: Reply(503, b"down", {"Content-Type": "text/plain"})
    assert run(tmp_path, "fetch").returncode == 1
    assert states(tmp_path)["doc"] == "failed"
    time.sleep(1.1)  # records are stamped to the second: the new capture is a later one
    server.add("/doc", page(title="Second"))
    killed = run(tmp_path, "fetch", point="swap:after")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert read_provenance(corpus.raw_dir(corpus.source("doc"))).document.title == "Second"
    # The failure record is older than the mirror now in place: it speaks of a capture that is gone.
    assert states(tmp_path)["doc"] == "ok"


def states(project: Path) -> dict[str, str]:
    result = run(project, "status", "--json")
    assert result.returncode == 0, result.stderr
    return {row["id"]: row["state"] for row in map(json.loads, result.stdout.splitlines())}


NO_EXCHANGE = "from corpus_build.core import swapdir; swapdir._renameat2 = None  # as where the kernel cannot exchange two folders"


def test_the_fallback_swap_killed_in_the_declined_folder_is_cleaned_by_the_next_run(server, make_corpus, tmp_path):
    """keep_declined replaces raw/.declined/<id>; killed between the fallback's two renames, it
    left raw/.declined/.<id>.old-<pid>, which no later run removed."""
    server.add("/doc", page(title="Full"))
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0})
    assert run(tmp_path, "fetch").returncode == 0
    raw = corpus.raw_dir(corpus.source("doc"))
    server.add("/doc", "<html><head><title>Empty</title></head><body></body></html>")
    assert run(tmp_path, "fetch", prelude=NO_EXCHANGE).returncode == 1  # declined: kept in raw/.declined/doc
    assert (raw.parent / ".declined" / "doc").is_dir()
    killed = run(tmp_path, "fetch", point="swap:between", prelude=NO_EXCHANGE)  # declined again: replaces the last one
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert [p.name for p in (raw.parent / ".declined").iterdir() if ".old-" in p.name]
    # Beside them, things the tool never made, with names like its own: never touched.
    mine = [raw.parent / ".notes.tmp-draft" / "a.md", raw.parent / ".failed" / ".keep.old-1", raw.parent / ".declined" / ".x.old-y" / "b.md"]
    for path in mine:
        path.parent.mkdir(exist_ok=True)
        path.write_text("the user's", encoding="utf-8")
    # The temporary files provenance.write_atomic names when a kill lands inside it (planted: no failpoint there).
    temps = [raw.parent / ".failed" / ".doc.json.4242.17.tmp", corpus.root / ".corpus.lock.4242.17.tmp"]
    for path in temps:
        path.write_text("{", encoding="utf-8")
    server.add("/doc", page(title="Back"))
    assert run(tmp_path, "fetch", prelude=NO_EXCHANGE).returncode == 0
    assert not [path for path in temps if path.exists()]
    assert read_provenance(raw).document.title == "Back"
    left = [str(p.relative_to(raw.parent)) for p in raw.parent.rglob("*") if p.is_file() and (".old-" in str(p) or ".tmp" in str(p))]
    assert sorted(left) == sorted(str(p.relative_to(raw.parent)) for p in mine)
    assert all(p.read_text(encoding="utf-8") == "the user's" for p in mine)


def test_a_corpus_lock_left_with_merge_conflict_markers_is_refused_not_overwritten(server, make_corpus, tmp_path):
    """A corpus.lock that is no JSON (a git merge left its conflict markers in it) was read as
    empty: a `fetch ID` then wrote a lock holding that one pin, and every other pin was gone."""
    server.add("/a", page(title="A"))
    server.add("/b", page(title="B"))
    corpus = make_corpus([{"id": "a", "url": server.url("/a")}, {"id": "b", "url": server.url("/b")}], fetch={"extract_workers": 0})
    assert run(tmp_path, "fetch").returncode == 0
    lock = corpus.root / "corpus.lock"
    lines = lock.read_text(encoding="utf-8").splitlines(keepends=True)
    conflicted = "".join(lines[:3]) + "<<<<<<< HEAD\n" + "".join(lines[3:]) + "=======\n>>>>>>> other\n"
    lock.write_text(conflicted, encoding="utf-8")
    result = run(tmp_path, "fetch", "a")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "corpus.lock:4" in result.stderr and "merge" in result.stderr, result.stderr
    assert lock.read_text(encoding="utf-8") == conflicted  # left for the user to resolve


def test_a_failure_after_the_capture_stands_even_when_watch_has_since_refreshed_the_record(tmp_path):
    """watch rewrites a PR mirror's record with a new checked_at when the thread's state
    changes; that is no new capture, so the last fetch's failure still stands."""
    from dataclasses import replace

    from corpus_build.core.provenance import Provenance, Status, mirror_state, write_failure, write_provenance

    raw = tmp_path / "corpus" / "01-main" / "raw" / "pr"
    mirror = Provenance(id="pr", kind="pull", cited_url="https://example.org/pr/1", status=Status.OK,
                        fetched_at="2026-12-01T08:00:00Z", checked_at="2026-12-01T08:00:00Z")
    write_provenance(raw, mirror)
    write_failure(raw, Provenance(id="pr", kind="pull", cited_url=mirror.cited_url, status=Status.FAILED, checked_at="2026-12-02T08:00:00Z", error="HTTP 503"))
    write_provenance(raw, replace(mirror, checked_at="2026-12-03T08:00:00Z"))  # watch/run.py _refresh_thread
    assert mirror_state(raw, 30, now=None)[0] == "failed"


def test_a_build_after_a_fallback_swap_killed_between_its_renames_still_shows_the_mirror(server, make_corpus, tmp_path):
    """The fallback swap (no renameat2) parks raw/<id> as .<id>.old-<pid> before renaming the new
    capture in; killed between the two, raw/<id> was missing until the next *fetch*, and a build
    meanwhile published the source's page without its mirror. Loading the registry puts it back."""
    import shutil

    from tests.corpus_fixture import PROJECT_ROOT

    def story(title: str, who: str) -> str:
        text = "<p>" + f"The harbour {who} board every ship that comes in past the breakwater. " * 6 + "</p>"
        return f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{text * 4}</article></body></html>"

    server.add("/doc", story("First", "pilots"))
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc"), "kind": "article"}], fetch={"extract_workers": 0})
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    (tmp_path / "docs").mkdir()
    assert run(tmp_path, "fetch", prelude=NO_EXCHANGE).returncode == 0
    raw = corpus.raw_dir(corpus.source("doc"))
    assert "harbour pilots" in (raw / "text.md").read_text(encoding="utf-8")
    server.add("/doc", story("Second", "tugs"))
    killed = run(tmp_path, "fetch", "--force", point="swap:between", prelude=NO_EXCHANGE)
    assert killed.returncode == -signal.SIGKILL, killed.stdout + killed.stderr
    assert not raw.exists() and [p.name for p in raw.parent.iterdir() if p.name.startswith(".doc.old-")]  # the gap
    built = run(tmp_path, "build")
    assert built.returncode == 0, built.stdout + built.stderr
    shown = (tmp_path / "site" / "sources" / "doc" / "text" / "index.html").read_text(encoding="utf-8")
    assert "harbour pilots" in shown  # the mirrored text, from the old capture put back
    assert read_provenance(raw).document.title == "First"
    assert not [p for p in raw.parent.iterdir() if ".old-" in p.name]
    # The next fetch finds nothing left to put back and completes the swap the killed one began.
    again = run(tmp_path, "fetch", "--force", prelude=NO_EXCHANGE)
    assert again.returncode == 0, again.stdout + again.stderr
    assert read_provenance(raw).document.title == "Second"
    assert sorted(p.name for p in raw.parent.iterdir() if p.name.startswith(".")) == []


def test_loading_the_registry_puts_back_only_a_parked_mirror_of_its_own_and_never_beside_a_running_fetch(make_corpus, tmp_path):
    from corpus_build import registry
    from corpus_build.core.runlock import run_lock

    corpus = make_corpus([{"id": "doc", "url": "https://example.org/doc"}, {"id": "kept", "url": "https://example.org/kept"}])
    raw = corpus.root / "01-main" / "raw"
    for name in (".doc.old-4242", ".kept.old-4242", "kept", ".notes.old-7", ".doc.old-draft"):
        (raw / name).mkdir(parents=True)
        (raw / name / "mark").write_text(name, encoding="utf-8")
    with run_lock(corpus.root, "fetch"):  # a fetch going on may be between its two renames: hands off
        registry.load(corpus.root)
        assert not (raw / "doc").exists()
    registry.load(corpus.root)
    assert (raw / "doc" / "mark").read_text(encoding="utf-8") == ".doc.old-4242"
    # Where the target exists, and a user's look-alikes (no source by that id, not our number): untouched.
    assert sorted(p.name for p in raw.iterdir()) == [".doc.old-draft", ".kept.old-4242", ".notes.old-7", "doc", "kept"]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_temp_records_a_killed_write_left_are_removed_by_the_next_run_that_writes_them(server, make_corpus, tmp_path):
    """provenance.write_atomic writes .<name>.<pid>.<thread>.tmp and renames it; SIGKILLed between
    the two (no failpoint there: planted by its exact name), the temp stayed for ever: in
    raw/<id>/ (a record rewritten in place), beside sources.yaml (add, import, adopt). The next
    fetch or registry writer removes exactly those, and only when their writer is gone."""
    server.add("/doc", page(title="Doc"))
    corpus = make_corpus([{"id": "doc", "url": server.url("/doc")}], fetch={"extract_workers": 0})
    assert run(tmp_path, "fetch").returncode == 0
    raw = corpus.raw_dir(corpus.source("doc"))
    section = raw.parent.parent
    dead = _dead_pid()
    cache = corpus.root / ".cache" / "github"
    left = [section / f".sources.yaml.{dead}.7.tmp", raw / f".provenance.json.{dead}.140213.tmp", cache / f".{'ab' * 32}.json.{dead}.3.tmp"]
    mine = [raw / ".provenance.json.draft.tmp", raw / f".notes.md.{dead}.1.tmp", section / ".sources.yaml.tmp", cache / f".notes.json.{dead}.1.tmp",
            raw / f".provenance.json.{os.getpid()}.1.tmp"]  # the last: a live process's, maybe writing it now
    cache.mkdir(parents=True, exist_ok=True)
    for path in left + mine:
        path.write_text("{", encoding="utf-8")
    again = run(tmp_path, "fetch")  # unchanged: the record is rewritten in place
    assert again.returncode == 0, again.stdout + again.stderr
    assert [path.exists() for path in left] == [True, False, False]  # fetch writes no sources.yaml
    added = run(tmp_path, "add", server.url("/other"), "--section", "01-main", "--note", "why", "--offline")
    assert added.returncode == 0, added.stdout + added.stderr
    assert not left[0].exists()
    assert all(path.read_text(encoding="utf-8") == "{" for path in mine)


@pytest.mark.parametrize("name", ["01-main/raw/doc/.provenance.json.12.34.tmp", "01-main/.sources.yaml.12.34.tmp",
                                  ".watch/.state.json.12.34.tmp", ".links/.results.json.12.34.tmp", "digests/.2026-12-07.md.12.34.tmp"])
def test_the_scaffolds_corpus_gitignore_ignores_a_killed_writes_temp_files(tmp_path, name):
    import shutil

    from corpus_build.init import SCAFFOLD

    repo = tmp_path / "repo"
    (repo / "corpus").mkdir(parents=True)
    shutil.copy(SCAFFOLD / "corpus" / "gitignore", repo / "corpus" / ".gitignore")
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    checked = subprocess.run(["git", "check-ignore", "-q", f"corpus/{name}"], cwd=repo)
    assert checked.returncode == 0, name


def test_loading_the_registry_beside_a_parked_mirror_out_of_corpus_takes_no_lock_and_writes_nothing(make_corpus, tmp_path):
    """A raw/ linked out of corpus/ (mirrors on another disk) is never renamed in by put_back; a
    parked folder there made every registry load take the run lock for nothing, rewriting
    corpus/.fetch.lock each time: a file event under `mkdocs serve`'s watch of corpus/ (another
    build, which loads the registry again), and a fetch started meanwhile waiting on it."""
    corpus = make_corpus([{"id": "doc", "url": "https://example.org/doc"}])
    outside = tmp_path / "elsewhere" / "raw"
    (outside / ".doc.old-4242").mkdir(parents=True)
    raw = corpus.root / "01-main" / "raw"
    if raw.exists():
        raw.rmdir()
    raw.symlink_to(outside, target_is_directory=True)
    from corpus_build import registry

    registry.load(corpus.root)
    registry.load(corpus.root)
    assert not (corpus.root / ".fetch.lock").exists()
    assert sorted(p.name for p in outside.iterdir()) == [".doc.old-4242"]  # nothing renamed out there
