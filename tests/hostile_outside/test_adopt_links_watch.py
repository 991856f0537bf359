"""`adopt`, `links --fix-moved` and `watch` (against a fake GitHub API on 127.0.0.1): what they write
into the registry stays valid text, dry runs agree with real runs, hostile answers give one line."""

from __future__ import annotations

import json

import pytest

from tests.hostile_outside.conftest import good_article
from tests.hostile_outside.harness import assert_no_traceback, assert_refused, cb, read_yaml
from tests.hostile_outside.server import Answer, endless

# --- adopt -------------------------------------------------------------------------------------


def _placeholder_source(proj, server, prefix, html_title):
    """A source added offline (placeholder title) whose page's <title> is `html_title` (already HTML-escaped), fetched."""
    url = server.set(f"/{prefix}/titled", good_article().replace("<title>Tiles explained</title>", f"<title>{html_title}</title>"))
    r = cb("add", url, "--section", "01", "--offline", "--id", "titled", "--note", "n", cwd=proj.root, timeout=60)
    assert r.rc == 0, r.describe()
    r = cb("fetch", "titled", cwd=proj.root, timeout=120)
    assert r.rc == 0, r.describe()


@pytest.mark.parametrize(
    "html_title",
    [
        pytest.param("x&quot;&#10;- id: injected&#10;  url: https://evil.example/", id="yaml-injection"),
        pytest.param("nul &#0; lone &#xD800; esc &#x1b;[31m bidi &#x202e;", id="controls"),
        pytest.param("T" * 5000, id="5000-chars"),
    ],
)
def test_adopt_hostile_page_title(fetch_proj, server, tmp_path, html_title):
    """adopt of a hostile page title: the dry run says what the real run does; the registry stays valid with the same entries."""
    _placeholder_source(fetch_proj, server, tmp_path.name, html_title)
    ids = [e["id"] for e in read_yaml(fetch_proj.sources)]
    dry = cb("adopt", "titled", "--dry-run", cwd=fetch_proj.root, timeout=60)
    assert_no_traceback(dry)
    before = fetch_proj.sources.read_bytes()
    real = cb("adopt", "titled", cwd=fetch_proj.root, timeout=60)
    assert_no_traceback(real)
    assert (dry.rc == 0) == (real.rc == 0), f"dry run and real run disagree: dry {dry.describe()}; real {real.describe()}"
    if real.rc != 0:
        assert fetch_proj.sources.read_bytes() == before
    check = cb("check", cwd=fetch_proj.root, timeout=60)
    assert check.rc == 0, f"the registry is invalid after adopt: {check.describe()}"
    assert [e["id"] for e in read_yaml(fetch_proj.sources)] == ids, "adopt added or removed entries"


# --- links --fix-moved -------------------------------------------------------------------------


def _moved_source(proj, server, prefix, target):
    old = f"/{prefix}/old"
    server.set(old, b"", status=301, Location=target)
    server.set(f"/{prefix}/new", good_article())
    proj.append_source("moved", server.url(old), "Moved page")
    r = cb("links", "moved", cwd=proj.root, timeout=120)
    assert_no_traceback(r)
    return r


@pytest.mark.parametrize(
    "target",
    [
        pytest.param("/{prefix}/new?q=a b: c #d", id="space-colon-hash"),
        pytest.param("/{prefix}/new\u202e?x=\u0000", id="bidi-nul"),
    ],
)
def test_fix_moved_dry_run_agrees_with_real_run(fetch_proj, server, tmp_path, target):
    """links --fix-moved --dry-run promises only what the real run writes; a refused fix leaves sources.yaml as it was."""
    target = server.url(target.format(prefix=tmp_path.name))
    _moved_source(fetch_proj, server, tmp_path.name, target)
    dry = cb("links", "--fix-moved", "moved", "--dry-run", cwd=fetch_proj.root, timeout=60)
    assert_no_traceback(dry)
    before = fetch_proj.sources.read_bytes()
    real = cb("links", "--fix-moved", "moved", cwd=fetch_proj.root, timeout=60)
    assert_no_traceback(real)
    assert (dry.rc == 0) == (real.rc == 0), f"dry run and real run disagree: dry {dry.describe()}; real {real.describe()}"
    if real.rc != 0:
        assert fetch_proj.sources.read_bytes() == before
    assert cb("check", cwd=fetch_proj.root, timeout=60).rc == 0


@pytest.mark.parametrize("target", ["file:///etc/passwd", "javascript:alert(1)"])
def test_fix_moved_never_writes_non_http_url(fetch_proj, server, tmp_path, target):
    """A permanent redirect to a non-http(s) address is never written into the registry."""
    _moved_source(fetch_proj, server, tmp_path.name, target)
    r = cb("links", "--fix-moved", "moved", cwd=fetch_proj.root, timeout=60)
    assert_no_traceback(r)
    assert target not in fetch_proj.sources.read_text()


def test_links_endless_robots_bounded(fetch_proj, server, tmp_path):
    """A robots.txt that never ends (and a HEAD that answers an endless body) is cut; links ends in bounded time."""
    server.set("/robots.txt", endless(b"Disallow: /x\n" * 1000), content_type="text/plain")
    try:
        fetch_proj.append_source("endless", server.set(f"/{tmp_path.name}/page", endless(b"<p>more</p>" * 1000)), "Endless")
        r = cb("links", "endless", cwd=fetch_proj.root, timeout=90)
        assert_no_traceback(r)
    finally:
        server.routes.pop("/robots.txt", None)


@pytest.mark.parametrize("args", [["--jobs", "0"], ["--fix-moved", "no-such-id"]])
def test_links_bad_options(fetch_proj, args):
    """links with an impossible option is refused in one line before any request."""
    r = cb("links", *args, cwd=fetch_proj.root, timeout=60)
    assert_refused(r)


# --- watch against a fake GitHub API -----------------------------------------------------------


class _Everything(dict):
    """Routes that answer every path with one Answer."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer

    def get(self, key, default=None):
        return self.answer


def _watch(proj, server, answer, *extra, timeout=15):
    saved = server.routes
    server.routes = _Everything(answer)
    try:
        return cb(
            "watch",
            "--repo",
            "octo/repo",
            "--since",
            "2026-01-01T00:00+00:00",
            "--until",
            "2026-01-02T00:00+00:00",
            *extra,
            cwd=proj.root,
            timeout=timeout,
            extra_env={"GITHUB_API_URL": server.url("/api"), "GITHUB_TOKEN": "test-token"},
        )
    finally:
        server.routes = saved


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(Answer(200, b"<html>not json</html>", {}, "text/html"), id="html"),
        pytest.param(Answer(200, b"[" * 100_000 + b"]" * 100_000, {}, "application/json"), id="deep-json"),
        pytest.param(Answer(200, json.dumps({"sha": [1], "commit": "x", "items": 5, "name": None, "default_branch": {"a": 1}}).encode(), {}, "application/json"), id="wrong-types"),
        pytest.param(Answer(200, b'{"a": "\\ud800", "b": 1e999999}', {}, "application/json"), id="lone-surrogate-inf"),
        pytest.param(Answer(500, b"{}", {}, "application/json"), id="http-500"),
        pytest.param(Answer(200, endless(b"[1," * 10000), {}, "application/json"), id="endless"),
    ],
)
def test_watch_hostile_api_one_line(proj, server, answer):
    """watch against a GitHub API answering garbage fails in one line (exit 1), never a traceback, in bounded time."""
    r = _watch(proj, server, answer)
    assert_refused(r, (1,))


@pytest.mark.parametrize(
    "args",
    [
        ["--since", "yesterday-ish"],
        ["--tz", "Mars/Olympus"],
        ["--since", "2026-01-02T00:00+00:00", "--until", "2026-01-01T00:00+00:00"],
    ],
)
def test_watch_bad_window_refused(proj, args):
    """watch with an impossible window or zone is refused in one line (exit 2) before any request."""
    r = cb("watch", "--repo", "octo/repo", *args, cwd=proj.root, timeout=60, extra_env={"GITHUB_API_URL": "http://127.0.0.1:9/api"})
    assert_refused(r, (2,))


@pytest.mark.parametrize("repo", ["../../etc", "a" * 5000 + "/b"])
def test_watch_bad_repo_refused(proj, repo):
    """watch --repo that is no OWNER/NAME is refused in one line (exit 2) before any request."""
    r = cb("watch", "--repo", repo, cwd=proj.root, timeout=60, extra_env={"GITHUB_API_URL": "http://127.0.0.1:9/api"})
    assert_refused(r, (2,))
