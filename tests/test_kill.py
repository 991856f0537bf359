"""Issue 36, atomic publish: `build` and `publish` killed with SIGKILL at any moment leave the
site folder as the complete old site or the complete new one, never a mix and never missing;
the next run leaves no staging folder behind.

The registry switches between two versions (one note differs). A site is a function of its
registry version (checked first: A, then B, then A again gives A's bytes), so "complete"
means: every file of the folder, byte for byte, equals a complete build of one version.
Kills land at random moments, half of them in the last part of a build, where the swap
is, plus the exact moments before and after the swap (core/failpoints.py).
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus_build.core import failpoints
from tests.corpus_fixture import write_project

CLI = [sys.executable, "-m", "corpus_build"]
KILLS = 50
TOKEN = "The main repository."


def digest(site: Path) -> dict[str, str] | None:
    if not site.is_dir():
        return None
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(site.rglob("*")) if p.is_file()}


def leftovers(project: Path) -> list[str]:
    """The staging and parked folders beside the site; not the old site's folders kept for the next
    build (.site.folders, core/swapdir.py), which must hold no file at any moment."""
    spare = project / ".site.folders"
    assert not [p for p in spare.rglob("*") if not p.is_dir() or p.is_symlink()], "the kept folders hold a file"
    return sorted(p.name for p in project.iterdir() if p.name.startswith(".site.") and p.name != spare.name)


def describe(got: dict[str, str] | None, want: dict[str, dict[str, str] | None]) -> str:
    if got is None:
        return "the site folder is missing"
    lines = []
    for name, ref in want.items():
        if ref is None:
            continue
        differ = sorted(k for k in set(got) | set(ref) if got.get(k) != ref.get(k))
        lines.append(f"vs {name}: {len(differ)} files differ, e.g. {differ[:5]}")
    return "; ".join(lines)


@pytest.mark.slow
def test_build_and_publish_killed_at_random_moments_leave_the_old_or_the_new_site(tmp_path):
    project = write_project(tmp_path)
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    text = sources.read_text(encoding="utf-8")
    assert TOKEN in text
    versions = {"A": text, "B": text.replace(TOKEN, "The main repository, edited.")}
    site = project / "site"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop(failpoints.VARIABLE, None)

    def command(kind: str) -> list[str]:
        if kind == "publish":
            return [*CLI, "--project", str(project), "--quiet", "publish", "--skip", "fetch", "--skip", "watch", "--skip", "links"]
        return [*CLI, "--project", str(project), "--quiet", "build"]

    def complete(version: str, kind: str = "build") -> float:
        sources.write_text(versions[version], encoding="utf-8")
        started = time.monotonic()
        result = subprocess.run(command(kind), env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        return time.monotonic() - started

    times = [complete("A")]
    reference = {"A": digest(site)}
    times.append(complete("B"))
    reference["B"] = digest(site)
    times.append(complete("A", "publish"))
    assert digest(site) == reference["A"], "a site is not a function of its registry: " + describe(digest(site), reference)
    assert reference["A"] != reference["B"]
    duration = min(times)

    seed = int(os.environ.get("KILL_TEST_SEED", random.randrange(1 << 30)))
    print(f"kill test: seed {seed}, a complete build takes {duration:.1f} s")
    rng = random.Random(seed)
    current = "A"
    killed = finished = swapped = 0
    moments = []
    for attempt in range(KILLS * 2):
        if killed == KILLS:
            break
        new = rng.choice("AB")
        sources.write_text(versions[new], encoding="utf-8")
        # Half anywhere in a build, half in its last 40% (the swap and the old site's removal).
        delay = rng.uniform(0.02, 0.98) * duration if attempt % 2 else rng.uniform(0.6, 0.98) * duration
        kind = "publish" if attempt % 3 == 2 else "build"
        started = time.monotonic()
        process = subprocess.Popen(command(kind), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        try:
            process.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.returncode == -signal.SIGKILL:
            killed += 1
            moments.append(round(delay / duration, 2))
        else:
            assert process.returncode == 0, process.stderr.read().decode() if process.stderr else ""
            finished += 1
            duration = time.monotonic() - started  # a rebuild is quicker than the first build: aim inside it
        if process.stderr:
            process.stderr.close()
        got = digest(site)
        allowed = {f"old ({current})": reference[current], f"new ({new})": reference[new]}
        assert got in allowed.values(), f"attempt {attempt} ({kind}, killed after {delay:.2f} s): " + describe(got, allowed)
        swapped += process.returncode == -signal.SIGKILL and got == reference[new] and new != current
        current = next(v for v in "AB" if reference[v] == got)
        assert set(leftovers(project)) <= {".site.partial"} | {n for n in leftovers(project) if n.startswith(".site.old-")}
    print(f"kill test: {killed} killed at {sorted(moments)} of a build's time ({swapped} after the new site was in place), {finished} finished first")
    assert killed == KILLS, f"only {killed} runs were killed: the test did not test"

    # The exact moments around the swap.
    for point in ("swap:before", "swap:after"):
        new = "B" if current == "A" else "A"
        sources.write_text(versions[new], encoding="utf-8")
        result = subprocess.run(command("build"), env={**env, failpoints.VARIABLE: point}, capture_output=True, timeout=600)
        assert result.returncode == -signal.SIGKILL, f"{point} was never reached"
        expected = reference[current] if point == "swap:before" else reference[new]
        assert digest(site) == expected, f"killed at {point}: " + describe(digest(site), {"expected": expected})
        current = current if point == "swap:before" else new
        assert leftovers(project), f"killed at {point}: the staging folder should still be there for the next run to remove"

    complete(current)
    assert digest(site) == reference[current]
    assert leftovers(project) == [], "a staging folder survived the next run"


def test_the_fallback_swap_killed_between_its_renames_is_put_back_by_the_next_run(tmp_path):
    """Where the kernel cannot exchange two folders, the old one is parked; a kill leaves no
    site folder for a moment, and the next run's recover() renames the old one back."""
    target, staging = tmp_path / "site", tmp_path / ".site.partial"
    target.mkdir()
    (target / "index.html").write_text("old", encoding="utf-8")
    staging.mkdir()
    (staging / "index.html").write_text("new", encoding="utf-8")
    script = (
        "import sys; from pathlib import Path; from corpus_build.core import swapdir; swapdir._renameat2 = None; "
        "swapdir.replace(Path(sys.argv[1]), Path(sys.argv[2]))"
    )
    result = subprocess.run([sys.executable, "-c", script, str(staging), str(target)], env={**os.environ, failpoints.VARIABLE: "swap:between"}, timeout=60)
    assert result.returncode == -signal.SIGKILL
    assert not target.exists() and len(list(tmp_path.glob(".site.old-*"))) == 1
    from corpus_build.core import swapdir

    swapdir.recover(target)
    assert (target / "index.html").read_text(encoding="utf-8") == "old"
    assert not list(tmp_path.glob(".site.old-*"))


def test_the_exchange_swaps_two_folders_in_one_step(tmp_path):
    from corpus_build.core import swapdir

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "f").write_text("a", encoding="utf-8")
    (b / "f").write_text("b", encoding="utf-8")
    if not swapdir.exchange(a, b):
        pytest.skip("this kernel or file system cannot exchange two folders (renameat2): the fallback is tested above")
    assert (a / "f").read_text(encoding="utf-8") == "b" and (b / "f").read_text(encoding="utf-8") == "a"


NO_EXCHANGE = "from corpus_build.core import swapdir; swapdir._renameat2 = None  # as where the kernel cannot exchange two folders"


def _run(project: Path, *args: str, point: str = "", prelude: str = "", command: list[str] | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop(failpoints.VARIABLE, None)
    if point:
        env[failpoints.VARIABLE] = point
    line = command or [sys.executable, "-c", f"{prelude}\nimport sys; from corpus_build.cli import main; sys.exit(main(sys.argv[1:]))", "--project", str(project)]
    return subprocess.run([*line, *args], capture_output=True, text=True, env=env, cwd=project, timeout=600)


@pytest.mark.parametrize("reader", ["build", "publish", "mkdocs build"])
def test_a_site_swap_killed_between_the_fallbacks_renames_is_put_back_by_the_next_command_even_one_that_fails(tmp_path, reader):
    """The fallback swap (no renameat2) parks site/ as .site.old-<pid> and renames the new site in;
    SIGKILLed between the two, site/ was missing until a build reached its own recover(): a static
    server showed nothing, and a `build` or `publish` that stopped before that (a registry error)
    left it missing. Each command that replaces the site puts the old one back as it starts."""
    project = write_project(tmp_path)
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    site = project / "site"
    text = sources.read_text(encoding="utf-8")
    first = _run(project, "--quiet", "build", prelude=NO_EXCHANGE)
    assert first.returncode == 0, first.stderr
    old = digest(site)
    sources.write_text(text.replace(TOKEN, "The main repository, edited."), encoding="utf-8")
    killed = _run(project, "--quiet", "build", point="swap:between", prelude=NO_EXCHANGE)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert not site.exists() and [p.name for p in project.iterdir() if p.name.startswith(".site.old-")]  # the gap
    sources.write_text(text + "- id: broken\n  title: [unclosed\n", encoding="utf-8")  # a registry error: nothing is built
    if reader == "build":
        result = _run(project, "build")
    elif reader == "publish":
        result = _run(project, "publish", "--skip", "fetch", "--skip", "watch", "--skip", "links")
    else:
        result = _run(project, "build", command=[sys.executable, "-m", "mkdocs"])
    assert result.returncode != 0 and result.returncode != -signal.SIGKILL, result.stdout + result.stderr
    assert digest(site) == old, "the old site is not back whole: " + describe(digest(site), {"old": old})
    assert not [p.name for p in project.iterdir() if p.name.startswith(".site.old-")]


def test_the_parked_site_is_never_put_back_beside_a_running_build_nor_a_look_alike(tmp_path):
    from corpus_build.site import sitedir

    project = tmp_path
    for name in (".site.old-4242", ".site.old-draft", ".public.old-7"):
        (project / name).mkdir()
        (project / name / "mark").write_text(name, encoding="utf-8")
    with sitedir.build_lock(project):  # a build going on may be between its two renames: hands off
        assert not sitedir.put_back(project, project / "site")
        assert not (project / "site").exists()
    assert sitedir.put_back(project, project / "site")
    assert (project / "site" / "mark").read_text(encoding="utf-8") == ".site.old-4242"
    assert sorted(p.name for p in project.iterdir() if p.name != ".corpus-build") == [".public.old-7", ".site.old-draft", "site"]
    assert not sitedir.put_back(project, project / "site")  # nothing left to do: no lock taken
