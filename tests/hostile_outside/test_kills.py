"""Interrupted runs: whatever moment `build` or `publish` is killed, `site/` is the complete old site
or the complete new one, never a mix, and no staging folder survives the next run."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import tempfile
import time

from tests.hostile_outside.harness import CORPUS_BUILD, TRACEBACK, assert_ok, cb, env, file_set, kill_group

PUBLISH_BUILD_ONLY = ("publish", "--skip", "fetch", "--skip", "watch", "--skip", "links")


def _prepare(proj):
    """Old site = the template's; the registry then gains a source, so the new site has more pages."""
    old = file_set(proj.site)
    assert "index.html" in old
    proj.append_source("second-page", "https://example.org/articles/second", "A second page")
    entries = sorted(p.name for p in proj.root.iterdir())
    return old, entries


def _start(args):
    return subprocess.Popen([*CORPUS_BUILD, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env(), start_new_session=True)


def _check_states(proj, states, old, entries, args):
    r = cb(*args, cwd=proj.root, timeout=180)
    assert_ok(r)
    new = file_set(proj.site)
    assert new != old and "index.html" in new
    bad = [(label, len(s), "index.html" in s) for label, s in states if s not in (old, new)]
    assert not bad, f"site/ was neither the complete old ({len(old)} files) nor the complete new site ({len(new)} files) after a kill: (moment, files, has index.html) {bad}"
    # The old site's folders, emptied, kept for the next build (README: `.site.folders`) are no
    # staging entry; they must never hold a file.
    kept = proj.root / ".site.folders"
    assert not [p for p in kept.rglob("*") if not p.is_dir() or p.is_symlink()], "the kept folders beside the site hold a file"
    after = sorted(p.name for p in proj.root.iterdir() if p.name != kept.name)
    assert after == entries, f"the next run left staging entries: {sorted(set(after) - set(entries))}"


def _random_kills(proj, args, count, seed):
    old, entries = _prepare(proj)
    rng = random.Random(seed)
    states = []
    for _ in range(count):
        moment = rng.uniform(0.05, 4.0)
        proc = _start(["--project", str(proj.root), *args])
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=moment)
        kill_group(proc)
        states.append((f"{moment:.2f}s", file_set(proj.site)))
    _check_states(proj, states, old, entries, args)


def _kill_at_swap(proj, args):
    """SIGKILL the instant site/ changes: its index.html gone or the folder replaced."""
    old, entries = _prepare(proj)
    index = proj.site / "index.html"
    inode = os.stat(proj.site).st_ino
    proc = _start(["--project", str(proj.root), *args])
    fired = None
    deadline = time.monotonic() + 120
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                changed = os.stat(proj.site).st_ino != inode or not index.exists()
            except FileNotFoundError:
                changed = True
            if changed:
                os.killpg(proc.pid, signal.SIGKILL)
                fired = time.monotonic()
                break
            time.sleep(0.0005)
    finally:
        kill_group(proc)
    assert fired is not None, "the run ended without ever changing site/"
    states = [("at the swap", file_set(proj.site))]
    _check_states(proj, states, old, entries, args)


def test_build_sigkill_at_random_moments(proj):
    """build SIGKILLed at 5 random moments: site/ is always the complete old or new site; no staging survives."""
    _random_kills(proj, ["build"], 5, seed=3601)


def test_build_sigkill_at_the_swap(proj):
    """build SIGKILLed the moment site/ changes: site/ is the complete old or new site."""
    _kill_at_swap(proj, ["build"])


def test_publish_sigkill_at_random_moments(proj):
    """publish (build only) SIGKILLed at 3 random moments: site/ is always complete; no staging survives."""
    _random_kills(proj, list(PUBLISH_BUILD_ONLY), 3, seed=3602)


def test_publish_sigkill_at_the_swap(proj):
    """publish SIGKILLed the moment site/ changes: site/ is the complete old or new site."""
    _kill_at_swap(proj, list(PUBLISH_BUILD_ONLY))


def _signal_midway(proj, sig):
    old, _ = _prepare(proj)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([*CORPUS_BUILD, "build"], cwd=proj.root, stdout=err, stderr=err, stdin=subprocess.DEVNULL, env=env(), start_new_session=True)
        time.sleep(1.0)
        os.killpg(proc.pid, sig)
        try:
            rc = proc.wait(timeout=60)
        finally:
            kill_group(proc)
        err.seek(0)
        text = err.read(200_000).decode("utf-8", "replace")
    return old, rc, text


def test_build_ctrl_c_exits_130_and_keeps_site(proj):
    """Ctrl-C during build: exit 130, no traceback, site/ still the complete old (or new) site."""
    old, rc, text = _signal_midway(proj, signal.SIGINT)
    site = file_set(proj.site)
    assert TRACEBACK not in text, f"Ctrl-C printed a traceback: {text[-1500:]}"
    assert "index.html" in site and (site == old or len(site) > len(old)), f"site/ damaged by Ctrl-C: {len(site)} files (old {len(old)})"
    assert rc in (0, 130), f"Ctrl-C should exit 130 (or 0 if it had finished), got {rc}: {text[-500:]}"


def test_build_sigterm_keeps_site(proj):
    """SIGTERM during build (a CI job cancelled): no traceback, site/ still a complete site."""
    old, rc, text = _signal_midway(proj, signal.SIGTERM)
    site = file_set(proj.site)
    assert TRACEBACK not in text, f"SIGTERM printed a traceback: {text[-1500:]}"
    assert "index.html" in site and (site == old or len(site) > len(old)), f"site/ damaged by SIGTERM: {len(site)} files (old {len(old)})"
    assert rc != 0 or site != old, f"SIGTERM during build reported success (rc={rc}) without building"
