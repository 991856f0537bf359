"""`mkdocs serve` with broken input, hostile state files the tool itself keeps (a mirror's
provenance.json, links results, watch state) and `publish` end to end: never a traceback, the last
good state kept and shown."""

from __future__ import annotations

import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest

from tests.hostile_outside.conftest import GOOD_WORDS, SHARED_PAGE
from tests.hostile_outside.harness import MKDOCS, TRACEBACK, assert_no_traceback, cb, env, kill_group

# --- mkdocs serve ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port: int, timeout: float = 5.0):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=timeout) as r:
            return r.status, r.read()
    except Exception as e:  # noqa: BLE001 - any failure to answer is the observation
        return None, repr(e).encode()


class Serve:
    def __init__(self, root):
        self.port = _free_port()
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the server; closed in stop()
        self.proc = subprocess.Popen([*MKDOCS, "serve", "-a", f"127.0.0.1:{self.port}"], cwd=root, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL, env=env(), start_new_session=True)

    def wait_up(self, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.proc.poll() is None:
            if _get(self.port, 3)[0] == 200:
                return True
            time.sleep(0.3)
        return False

    def stop(self) -> str:
        kill_group(self.proc)
        self.log.seek(0)
        text = self.log.read(1 << 20).decode("utf-8", "replace")
        self.log.close()
        return text


@pytest.fixture
def served(proj):
    s = Serve(proj.root)
    try:
        assert s.wait_up(120), "mkdocs serve never answered"
        yield proj, s
    finally:
        if s.proc.poll() is None:
            s.stop()


def test_serve_broken_mkdocs_yml_keeps_answering(served):
    """mkdocs serve after mkdocs.yml breaks: no traceback, it still answers, and recovers once fixed."""
    proj, s = served
    cfg = proj.root / "mkdocs.yml"
    good = cfg.read_text()
    cfg.write_text(good + "\nnav: [unclosed\n")
    time.sleep(4)
    status_during, _ = _get(s.port, 5)
    cfg.write_text(good)
    recovered = s.wait_up(30)
    log = s.stop()
    assert TRACEBACK not in log, f"mkdocs serve printed a traceback: {log[log.find(TRACEBACK) : log.find(TRACEBACK) + 1500]}"
    assert status_during == 200, f"mkdocs serve stopped answering while mkdocs.yml was broken (got {status_during})"
    assert recovered, "mkdocs serve did not recover after mkdocs.yml was fixed"


def test_serve_registry_error_shows_banner(served):
    """mkdocs serve with a registry error keeps serving the last good site with the error, no traceback."""
    proj, s = served
    good = proj.sources.read_text()
    proj.sources.write_text(good + "  note: duplicated\n")
    time.sleep(4)
    status, body = _get(s.port, 5)
    proj.sources.write_text(good)
    log = s.stop()
    assert TRACEBACK not in log, "mkdocs serve printed a traceback"
    assert status == 200 and b"sources.yaml" in body, f"no page with the error while the registry was broken (status {status})"


# --- state files the tool keeps ----------------------------------------------------------------

HOSTILE_JSON = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "wrong-types": '{"title": [1, 2], "files": "x", "fetched_at": 5, "status": {"a": 1}, "url": null, "document": [], "results": 7, "repos": "x"}',
    "not-utf8": "\udcff",  # written as a lone 0xFF byte below
    "truncated": '{"title": "cut short',
}


def _write_hostile(path, kind):
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "not-utf8":
        path.write_bytes(b'{"title": "\xff\xfe"}')
    else:
        path.write_text(HOSTILE_JSON[kind])


def _each_without_traceback(proj, commands, extra_env=None):
    failures = []
    for args in commands:
        r = cb(*args, cwd=proj.root, timeout=180, extra_env=extra_env)
        try:
            assert_no_traceback(r)
        except AssertionError:
            failures.append(r.describe())
    assert not failures, "tracebacks or hangs: " + " | ".join(failures)


@pytest.mark.parametrize("kind", ["deep", "wrong-types"])
def test_hostile_provenance_json(good_proj, kind):
    """A damaged provenance.json: status, adopt, fetch and build say so in one line or carry on, never a traceback."""
    _write_hostile(good_proj.raw("page") / "provenance.json", kind)
    _each_without_traceback(good_proj, (["status"], ["adopt", "page"], ["fetch", "page"], ["build"]))


@pytest.mark.parametrize("kind", ["deep", "wrong-types"])
def test_hostile_links_results(proj, kind):
    """A damaged corpus/.links/results.json: status, links --fix-moved and build never print a traceback."""
    _write_hostile(proj.root / "corpus" / ".links" / "results.json", kind)
    _each_without_traceback(proj, (["status"], ["links", "--fix-moved", "tiles", "--dry-run"], ["build"]))


@pytest.mark.parametrize("kind", ["deep", "wrong-types"])
def test_hostile_watch_state(proj, kind):
    """A damaged corpus/.watch/state.json: build and watch never print a traceback."""
    _write_hostile(proj.root / "corpus" / ".watch" / "state.json", kind)
    watch = ["watch", "--repo", "octo/repo", "--since", "2026-01-01T00:00+00:00", "--until", "2026-01-02T00:00+00:00"]
    _each_without_traceback(proj, (["build"], watch), extra_env={"GITHUB_API_URL": "http://127.0.0.1:9/api"})


def test_damaged_build_cache_rebuilt(proj):
    """A build cache that is not a database (a half-restored CI cache) is replaced by the next build, which succeeds."""
    cache = proj.root / ".corpus-build" / "cache"
    for f in cache.rglob("*"):
        if f.is_file():
            f.write_bytes(b"\0garbage" * 100)
    r = cb("build", cwd=proj.root, timeout=180)
    assert_no_traceback(r)
    assert r.rc == 0, r.describe()


# --- publish end to end ------------------------------------------------------------------------


def test_publish_after_page_became_shell_still_shows_good_text(good_proj, server):
    """publish after the page became a script shell: the published site still carries the good mirror's text."""
    server.set(SHARED_PAGE, '<html><head><title>App</title></head><body><div id="app"></div><noscript>Enable JavaScript</noscript></body></html>')
    assert_no_traceback(cb("fetch", "page", "--force", cwd=good_proj.root, timeout=120))
    r = cb("publish", "--skip", "watch", "--skip", "links", "--skip", "fetch", "--allow-problems", cwd=good_proj.root, timeout=240)
    assert_no_traceback(r)
    pages = list((good_proj.site / "sources" / "page").rglob("*.html"))
    assert pages, f"the source has no published pages; {r.describe()}"
    assert any(GOOD_WORDS in p.read_text(errors="replace") for p in pages), "no published page of the source still shows the good capture's text"
