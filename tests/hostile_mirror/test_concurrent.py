"""Two `corpus-build fetch` at once, and a fetch beside a `build`: both commands end without a
traceback (the second one waits or says in one line why it will not run), every mirror is
complete afterwards, and a site built while mirrors were swapped shows one capture per source."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.hostile_mirror.conftest import Project, article, mirror_problems
from tests.hostile_mirror.server import Answer, LocalServer, trickled
from tests.hostile_outside.harness import CORPUS_BUILD, TRACEBACK, assert_ok, env, kill_group

IDS = ["c-0", "c-1", "c-2"]


class SlowPages:
    """Pages whose capture number grows with each request, trickled over about a second."""

    def __init__(self, server: LocalServer) -> None:
        self.counts = dict.fromkeys(IDS, 0)
        for source_id in IDS:
            server.set_dynamic(f"/conc/{source_id}", self._route(source_id))

    def _route(self, source_id: str):
        def answer() -> Answer:
            self.counts[source_id] += 1
            return Answer(200, trickled(article(f"capture {self.counts[source_id]} of {source_id}", paragraphs=30).encode(), 10, 0.1))

        return answer


@pytest.fixture(scope="module")
def mirrored(template, server, tmp_path_factory) -> Path:
    """The template with the slow pages mirrored once (capture 1 of each); each test copies it."""
    root = tmp_path_factory.mktemp("conc") / "proj"
    shutil.copytree(template, root, symlinks=True)
    proj = Project(root)
    SlowPages(server)
    for source_id in IDS:
        proj.add(source_id, server.url(f"/conc/{source_id}"))
    assert_ok(proj.cb("fetch", timeout=120))
    return root


@pytest.fixture
def conc_proj(mirrored, server, tmp_path) -> Project:
    root = tmp_path / "proj"
    shutil.copytree(mirrored, root, symlinks=True)
    pages = SlowPages(server)
    pages.counts.update(dict.fromkeys(IDS, 1))
    return Project(root)


def _start(proj: Project, *args: str, out) -> subprocess.Popen:
    return subprocess.Popen([*CORPUS_BUILD, *args, "--project", str(proj.root)], stdout=out, stderr=out, stdin=subprocess.DEVNULL, env=env(), start_new_session=True)


def _finish(proc: subprocess.Popen, out, timeout: float = 120) -> tuple[int | None, str]:
    try:
        rc: int | None = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        rc = None
    kill_group(proc)
    out.seek(0)
    return rc, out.read(200_000).decode("utf-8", "replace")


def test_two_fetches_at_once(conc_proj: Project):
    """Two fetch --force started together: no traceback, each exits 0 or refuses in words, every mirror complete, a third fetch completes."""
    proj = conc_proj
    with tempfile.TemporaryFile() as out_a, tempfile.TemporaryFile() as out_b:
        a = _start(proj, "fetch", "--force", out=out_a)
        time.sleep(0.3)
        b = _start(proj, "fetch", "--force", out=out_b)
        (rc_a, text_a), (rc_b, text_b) = _finish(a, out_a), _finish(b, out_b)
    for rc, text in ((rc_a, text_a), (rc_b, text_b)):
        assert rc is not None, f"a fetch beside another never ended: {text[-800:]}"
        assert TRACEBACK not in text, f"a fetch beside another printed a traceback: {text[-2000:]}"
        # Refused work exits 1 (README, "Exit codes"); 2 is for a command line that cannot work.
        assert rc == 0 or (rc == 1 and text.strip()), f"rc={rc}: {text[-800:]}"
    assert 0 in (rc_a, rc_b), f"neither of two fetches succeeded: {text_a[-500:]} / {text_b[-500:]}"
    for source_id in IDS:
        assert not mirror_problems(proj.raw(source_id)), mirror_problems(proj.raw(source_id))
    assert_ok(proj.cb("fetch", "--force", timeout=120))
    assert sorted(p.name for p in proj.raw_root.iterdir()) == sorted(IDS), sorted(p.name for p in proj.raw_root.iterdir())


def test_build_beside_fetch(conc_proj: Project):
    """build while fetch --force swaps mirrors: build exits 0 (or says in words to build again), each source's text page shows one capture, and a build after shows the new mirrors."""
    proj = conc_proj
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as out_b:
        fetch = _start(proj, "fetch", "--force", out=out_f)
        time.sleep(1.0)
        build = _start(proj, "build", out=out_b)
        (rc_f, text_f), (rc_b, text_b) = _finish(fetch, out_f), _finish(build, out_b, timeout=180)
    assert rc_f == 0 and TRACEBACK not in text_f, f"fetch beside a build: rc={rc_f}: {text_f[-1500:]}"
    assert rc_b is not None and TRACEBACK not in text_b, f"build beside a fetch: rc={rc_b}: {text_b[-2000:]}"
    assert rc_b == 0 or (rc_b == 1 and "again" in text_b), f"build beside a fetch failed without saying to build again: rc={rc_b}: {text_b[-1500:]}"
    site = proj.root / "site" / "sources"
    for source_id in IDS:
        html = (site / source_id / "text" / "index.html").read_text(encoding="utf-8")
        captures = set(re.findall(rf"capture (\d+) of {source_id}", html))
        assert len(captures) == 1, f"{source_id}'s text page mixes captures {sorted(captures)}"
    assert_ok(proj.cb("build", timeout=180))
    for source_id in IDS:
        html = (site / source_id / "text" / "index.html").read_text(encoding="utf-8")
        assert "capture 2 of" in html, f"the build after the fetch does not show {source_id}'s new mirror"
        assert not mirror_problems(proj.raw(source_id))
