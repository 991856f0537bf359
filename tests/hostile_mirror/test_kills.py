"""SIGKILL of `corpus-build fetch` at random moments while a slow server trickles new versions of
the pages: after every kill each raw/<id>/ is a complete mirror (every file its provenance lists,
with that sha256; text and page of the same version), `build` works on what the kills left, and
the next `fetch` completes, leaves no stray entry and pins in corpus.lock what is on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import subprocess
import time
from pathlib import Path

from tests.hostile_mirror.conftest import Project, article, mirror_problems
from tests.hostile_mirror.server import Answer, LocalServer, trickled
from tests.hostile_outside.harness import CORPUS_BUILD, assert_ok, env, kill_group

IDS = [f"slow-{i}" for i in range(3)]
KILLS = 16
VERSION = re.compile(r"version (\d+) of (slow-\d)")


class Versions:
    """Each request gets the current version of the page, trickled in 12 pieces `every` seconds apart."""

    def __init__(self) -> None:
        self.version = 0
        self.every = 0.1
        self.worse = False  # serve a page with a sixth of the text (a capture fetch must decline)

    def page(self, source_id: str) -> bytes:
        return article(f"version {self.version} of {source_id}", paragraphs=5 if self.worse else 30).encode()

    def route(self, source_id: str):
        return lambda: Answer(200, trickled(self.page(source_id), 12, self.every))


def _version_of(raw: Path, name: str) -> str:
    path = raw / name
    if not path.is_file():
        return "missing"
    found = set(VERSION.findall(path.read_text(encoding="utf-8", errors="replace")))
    return ",".join(sorted(f"{v}:{s}" for v, s in found)) or "none"


def _check_complete(proj: Project, moment: str) -> list[str]:
    problems = []
    try:
        json.loads((proj.corpus / "corpus.lock").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"after a kill at {moment}: corpus.lock is unreadable ({exc})")
    failed = proj.raw_root / ".failed"
    for record in sorted(failed.glob("*.json")) if failed.is_dir() else []:
        try:
            json.loads(record.read_text(encoding="utf-8"))
        except ValueError:
            problems.append(f"after a kill at {moment}: raw/.failed/{record.name} is not JSON")
    for source_id in IDS:
        raw = proj.raw(source_id)
        problems += [f"after a kill at {moment}: {p}" for p in mirror_problems(raw)]
        text, page = _version_of(raw, "text.md"), _version_of(raw, "page.html")
        if text != page or "," in text:
            problems.append(f"after a kill at {moment}: {source_id}'s text.md is of version {text} but page.html of {page}")
        note = raw / "NOTES.md"
        if note.exists() and note.read_text(encoding="utf-8") != f"my notes on {source_id}\n":
            problems.append(f"after a kill at {moment}: {source_id}'s NOTES.md changed")
        paragraphs = (raw / "text.md").read_text(encoding="utf-8").count("Paragraph ") if (raw / "text.md").is_file() else 0
        if paragraphs != 30:
            problems.append(f"after a kill at {moment}: {source_id}'s text.md holds {paragraphs} of 30 paragraphs")
    return problems


def _after_first_swap(proj: Project, proc: subprocess.Popen, delay: float) -> str:
    """Wait until a raw/<id> folder is replaced (or moved aside), then `delay` seconds more."""
    inodes = {source_id: os.stat(proj.raw(source_id)).st_ino for source_id in IDS}
    start = time.monotonic()
    while proc.poll() is None and time.monotonic() - start < 60:
        for source_id, inode in inodes.items():
            try:
                changed = os.stat(proj.raw(source_id)).st_ino != inode
            except FileNotFoundError:
                changed = True
            if changed:
                time.sleep(delay)
                return f"{delay * 1000:.0f} ms after the first swap ({time.monotonic() - start:.2f}s)"
        time.sleep(0.0005)
    return "the end of a run that swapped nothing"


def _stray(proj: Project) -> list[str]:
    """Entries under corpus/ that are neither the registry, the mirrors, nor what fetch keeps by design."""
    found = []
    for dirpath, dirnames, filenames in os.walk(proj.corpus):
        for name in dirnames + filenames:
            if ".tmp" in name or ".old" in name or name.endswith(".partial") or ".staging" in name:
                found.append(os.path.relpath(os.path.join(dirpath, name), proj.corpus))
    raw_entries = sorted(p.name for p in proj.raw_root.iterdir())
    found += [f"raw/{n}" for n in raw_entries if n not in IDS and n not in (".failed", ".declined")]
    return found


def test_fetch_sigkill_at_random_moments(proj: Project, server: LocalServer):
    """fetch --force SIGKILLed 16 times at random moments while 3 pages trickle in: every mirror is always complete and keeps the user's note; build works; the next fetch completes cleanly."""
    versions = Versions()
    for source_id in IDS:
        proj.add(source_id, server.set_dynamic(f"/kills/{proj.root.parent.name}/{source_id}", versions.route(source_id)), title=f"Slow {source_id}")
    versions.every = 0.0
    assert_ok(proj.cb("fetch", timeout=120))
    assert not _check_complete(proj, "the first fetch")
    versions.every = 0.02
    # One whole forced fetch, timed: the kills are spread over its length (start-up, downloads,
    # extraction, the swaps, the lock), whatever this machine's speed.
    versions.version = 1
    start = time.monotonic()
    assert_ok(proj.cb("fetch", "--force", timeout=120))
    whole = time.monotonic() - start
    for source_id in IDS:  # a note of the user's in each mirror: no kill may lose it
        (proj.raw(source_id) / "NOTES.md").write_text(f"my notes on {source_id}\n", encoding="utf-8")
    rng = random.Random(20261208)
    problems: list[str] = []
    for kill in range(KILLS):
        versions.version = kill + 2
        versions.worse = kill % 4 == 3  # every fourth run, a capture to decline: its records are killed too
        proc = subprocess.Popen(
            [*CORPUS_BUILD, "fetch", "--force", "--project", str(proj.root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env(), start_new_session=True
        )
        if kill % 5 < 4:
            # Four kills in five at a random moment of the whole run.
            moment = f"{rng.uniform(0.2, whole):.2f}s"
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=float(moment[:-1]))
        else:
            # The others in the swaps: 0-40 ms after the first raw/<id> folder changes.
            moment = _after_first_swap(proj, proc, rng.uniform(0.0, 0.04))
        finished = proc.poll() is not None
        kill_group(proc)
        problems += [f"after a kill at {moment}: {i}'s NOTES.md is gone" for i in IDS if not (proj.raw(i) / "NOTES.md").is_file()]
        problems += _check_complete(proj, f"{moment} (kill {kill}{', after it had finished' if finished else ''})")
    assert not problems, "\n".join(problems[:12])
    states = proj.status()  # status reads what the kills left
    assert set(IDS) <= set(states), states
    built = proj.cb("build", timeout=180)
    assert_ok(built)
    for source_id in IDS:
        html = (proj.root / "site" / "sources" / source_id / "text" / "index.html").read_text(encoding="utf-8")
        assert f"of {source_id}" in html, f"the site built after the kills shows no text for {source_id}"
    versions.every = 0.0
    versions.worse = False
    versions.version = 99
    again = proj.cb("fetch", "--force", timeout=120)
    assert_ok(again)
    assert not _check_complete(proj, "the fetch after the kills")
    assert not _stray(proj), f"stray entries the next fetch left: {_stray(proj)}"
    lost = [source_id for source_id in IDS if not (proj.raw(source_id) / "NOTES.md").is_file()]
    assert not lost, f"the user's NOTES.md is gone from {lost} after the kills and the fetch that followed"
    lock = json.loads((proj.corpus / "corpus.lock").read_text(encoding="utf-8"))["sources"]
    for source_id in IDS:
        record = json.loads((proj.raw(source_id) / "provenance.json").read_text(encoding="utf-8"))
        assert lock[source_id]["sha256"] == record["sha256"], f"corpus.lock pins {source_id} at another capture than the one on disk"
        assert _version_of(proj.raw(source_id), "text.md") == f"99:{source_id}"
    states = proj.status()
    assert all(states[source_id]["state"] == "ok" for source_id in IDS), states
