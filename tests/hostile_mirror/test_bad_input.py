"""Bad input to `fetch` gets one clear line, a non-zero exit, no traceback, and no mirror touched."""

from __future__ import annotations

import pytest

from tests.hostile_mirror.conftest import Project, article
from tests.hostile_mirror.server import LocalServer
from tests.hostile_outside.harness import assert_refused, snapshot


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["no-such-id"], id="unknown-id"),
        pytest.param(["--accept-worse", "no-such-id"], id="accept-worse-unknown-id"),
        pytest.param(["--section", "99"], id="unknown-section"),
    ],
)
def test_fetch_bad_input_refused(proj: Project, server: LocalServer, args):
    """fetch with an id, section or combination that cannot work: refused in one line before any download."""
    proj.add("page", server.set(f"/bad/{proj.root.parent.name}", article("page")))
    before = snapshot(proj.corpus)
    hits = len(server.hits)
    r = proj.cb("fetch", *args, timeout=60)
    line = assert_refused(r)
    assert len(server.hits) == hits, f"refused input still downloaded: {line}"
    assert snapshot(proj.corpus) == before or all(k.startswith(".") or "/." in k or k.endswith(".lock") for k in set(snapshot(proj.corpus)) ^ set(before)), line
