"""Hostile registry and configuration text: `check`, `render` and `build` answer with one positioned
error in bounded time, never a traceback, never run code, and a failed build keeps the last good site."""

from __future__ import annotations

import json
import os
import threading

import pytest

from tests.hostile_outside.harness import assert_no_traceback, assert_ok, assert_refused, cb, file_set, snapshot

ENTRY_HEAD = "- id: tiles\n  title: Tiles explained\n  url: https://example.org/articles/tiles\n  kind: article\n  lang: en\n"


def _write(proj, text: str | bytes) -> None:
    if isinstance(text, str):
        text = text.encode("utf-8")
    proj.sources.write_bytes(text)


def _build_refused_site_kept(proj, timeout=120):
    site_before = snapshot(proj.site)
    r = cb("build", cwd=proj.root, timeout=timeout)
    assert snapshot(proj.site) == site_before, f"a refused build changed the published site; {r.describe()}"
    assert_refused(r)
    return r


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(ENTRY_HEAD + "  note: a\n  note: b\n", id="duplicate-key"),
        pytest.param(ENTRY_HEAD + '  note: !!python/object/apply:os.system ["touch PWNED"]\n', id="python-tag"),
        pytest.param(ENTRY_HEAD + "  note: before\x00after\n", id="nul-byte"),
        pytest.param(ENTRY_HEAD.encode() + b"  note: caf\xe9\n", id="latin1-bytes"),
        pytest.param(ENTRY_HEAD + "  chapters: [1e400]\n  date: 99999999999-99-99\n", id="absurd-numbers"),
        pytest.param(ENTRY_HEAD + "  <<: {title: merged}\n  note: x\n", id="merge-key"),
    ],
)
def test_build_bad_registry_refused_site_kept(proj, text):
    """A registry error (syntax, duplicate key, tag, NUL, bad bytes…) refuses the build in one line and keeps the last good site."""
    _write(proj, text)
    r = _build_refused_site_kept(proj)
    assert not (proj.root / "PWNED").exists() and not (proj.root / "corpus" / "PWNED").exists(), "a YAML tag ran a command"
    assert "sources.yaml" in r.err, f"the error does not name the file: {r.err[-400:]}"


def test_check_billion_laughs_bounded(proj):
    """A YAML alias bomb is refused by check within seconds, in one line."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    _write(proj, "- " + "\n  ".join(lines) + "\n")
    r = cb("check", cwd=proj.root, timeout=30)
    assert_refused(r)


def test_check_deep_nesting_no_traceback(proj):
    """sources.yaml nested 100,000 levels deep gives one error, never a RecursionError traceback."""
    _write(proj, "- note: " + "[" * 100_000 + "]" * 100_000 + "\n")
    r = cb("check", cwd=proj.root, timeout=60)
    assert_refused(r)


def test_check_huge_note_bounded(proj):
    """A 20 MB note is refused (too large) within seconds, never read unbounded."""
    _write(proj, ENTRY_HEAD + "  note: " + "x" * 20_000_000 + "\n")
    r = cb("check", cwd=proj.root, timeout=30)
    assert_refused(r)


def test_check_sources_yaml_fifo_bounded(proj):
    """A sources.yaml that is a FIFO is reported (not-a-file), never waited on."""
    proj.sources.unlink()
    os.mkfifo(proj.sources)
    r = cb("check", cwd=proj.root, timeout=30)
    assert_refused(r)


def test_check_corpus_yaml_dev_zero_bounded(proj):
    """A corpus.yaml that is a symlink to /dev/zero is refused within seconds."""
    proj.corpus_yaml.unlink()
    os.symlink("/dev/zero", proj.corpus_yaml)
    r = cb("check", cwd=proj.root, timeout=30)
    assert_refused(r)


@pytest.mark.parametrize("zone", ["Mars/Olympus", "+99:00"])
def test_build_bad_timezone_in_corpus_yaml(proj, zone):
    """timezone: a value that is no zone is one positioned error; build refused, site kept."""
    text = proj.corpus_yaml.read_text()
    proj.corpus_yaml.write_text(text.replace('timezone: "+08:00"', f'timezone: "{zone}"'))
    r = cb("check", cwd=proj.root, timeout=30)
    assert_refused(r)
    assert "corpus.yaml" in r.err
    _build_refused_site_kept(proj)


def test_build_broken_mkdocs_yml_one_line(proj):
    """A mkdocs.yml that is not YAML refuses the build in one line, no traceback, site kept."""
    cfg = proj.root / "mkdocs.yml"
    cfg.write_text(cfg.read_text() + "\nnav: [unclosed\n\tbad: tab\n")
    _build_refused_site_kept(proj)


def test_build_mkdocs_yml_fifo_bounded(proj):
    """A mkdocs.yml that is a FIFO refuses the build within seconds, never hangs."""
    cfg = proj.root / "mkdocs.yml"
    cfg.unlink()
    os.mkfifo(cfg)
    r = cb("build", cwd=proj.root, timeout=30)
    assert_refused(r)


def test_build_hostile_but_valid_text(proj):
    """Valid but hostile text (bidi overrides, ANSI escapes, zero-width and astral characters, a 300-deep list and 200-deep quote in Markdown) is valid and builds."""
    note = "\u202e" + "evil\u202c \x1b]0;title\x07 \u200b\u2028 𠀀𪚥 " + "> " * 200 + "quote\n\n" + "".join("  " * i + "- item\n" for i in range(300))
    # ensure_ascii=False: YAML has no surrogate-pair escapes, so astral characters are written as themselves.
    _write(proj, ENTRY_HEAD + '  tags: ["\u202etag", "a b"]\n  note: ' + json.dumps(note, ensure_ascii=False) + "\n")
    assert_ok(cb("check", cwd=proj.root, timeout=30))
    r = cb("build", cwd=proj.root, timeout=120)
    assert_ok(r)
    assert "\x1b" not in r.both(), "raw terminal escapes from the registry reached the terminal"


def test_render_docs_symlink_outside_refused(proj):
    """render with docs/ a symlink out of the project is refused and writes nothing there."""
    import shutil

    shutil.rmtree(proj.root / "docs")
    os.symlink(proj.outside, proj.root / "docs")
    before = snapshot(proj.outside)
    r = cb("render", cwd=proj.root, timeout=60)
    assert snapshot(proj.outside) == before, f"render wrote through docs/ -> outside: {sorted(set(snapshot(proj.outside)) - set(before))[:5]}; {r.describe()}"
    assert_refused(r)


def test_render_docs_is_a_file(proj):
    """render with docs a regular file is refused in one line; the file is unchanged."""
    import shutil

    shutil.rmtree(proj.root / "docs")
    (proj.root / "docs").write_text("not a folder\n")
    r = cb("render", cwd=proj.root, timeout=60)
    assert (proj.root / "docs").read_text() == "not a folder\n"
    assert_refused(r)


def test_clean_cache_symlink_outside_keeps_outside(proj):
    """clean with .corpus-build/cache a symlink to a user's folder deletes nothing there."""
    import shutil

    cache = proj.root / ".corpus-build" / "cache"
    if cache.exists():
        shutil.rmtree(cache)
    cache.parent.mkdir(exist_ok=True)
    os.symlink(proj.outside, cache)
    before = snapshot(proj.outside)
    r = cb("clean", cwd=proj.root, timeout=60)
    assert_no_traceback(r)
    assert snapshot(proj.outside) == before, f"clean deleted files outside the project through a symlink; {r.describe()}"


def test_clean_keeps_site_docs_registry(proj):
    """clean removes only the cache: site/, docs/ and corpus/ are untouched."""
    before = {name: snapshot(proj.root / name) for name in ("site", "docs", "corpus")}
    r = cb("clean", cwd=proj.root, timeout=60)
    assert_ok(r)
    assert {name: snapshot(proj.root / name) for name in ("site", "docs", "corpus")} == before


def test_build_while_registry_changes(proj):
    """A registry edited while a build runs: the build ends (either way) without a traceback, and site/ is complete."""
    stop = threading.Event()

    def edit():
        i = 0
        while not stop.is_set():
            _write(proj, ENTRY_HEAD + f"  note: edit {i}\n" + ("  note: dup\n" if i % 2 else ""))
            i += 1
            stop.wait(0.01)

    t = threading.Thread(target=edit)
    t.start()
    try:
        r = cb("build", cwd=proj.root, timeout=120)
    finally:
        stop.set()
        t.join()
    assert_no_traceback(r)
    assert "index.html" in file_set(proj.site)
