"""core/filestamp.clock: the probe file it writes to read the file system's clock."""

from __future__ import annotations

import os

from corpus_build.core import filestamp


def test_the_clock_probe_never_writes_through_a_link_planted_under_its_name(tmp_path):
    """.corpus-build/ is a cache that CI restores from outside the project: a link planted there
    under the probe's name (.clock-probe-<pid>, a pid a CI runner's fresh container gives again)
    made the probe truncate and write the file it led to, outside the project."""
    outside = tmp_path / "home" / ".bashrc"
    outside.parent.mkdir()
    outside.write_text("export PATH=$HOME/bin:$PATH\n", encoding="utf-8")
    cache = tmp_path / "project" / ".corpus-build"
    cache.mkdir(parents=True)
    (cache / f".clock-probe-{os.getpid()}").symlink_to(outside)
    now = filestamp.clock(cache)
    assert outside.read_text(encoding="utf-8") == "export PATH=$HOME/bin:$PATH\n"
    assert sorted(os.listdir(cache)) == []  # neither the link nor a probe left behind
    assert now > 0
