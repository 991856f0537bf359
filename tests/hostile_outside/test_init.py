"""`init`: writes only regular files inside the folder it was given, validates what it writes into
YAML, and never leaves a project that fails `check`."""

from __future__ import annotations

import os

import pytest

from tests.hostile_outside.harness import assert_no_traceback, assert_ok, assert_refused, cb, read_yaml, snapshot


@pytest.fixture
def place(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine\n")
    return tmp_path, outside


def _check_accepted_or_refused(r, project):
    """Either a clean refusal that wrote nothing, or a project that passes `check`."""
    assert_no_traceback(r)
    if r.rc == 0:
        c = cb("check", cwd=project, timeout=60)
        assert c.rc == 0, f"init accepted the value but the new project fails check: {c.describe()}"
    else:
        assert_refused(r, (1, 2))
        assert not any(p.is_file() for p in project.rglob("*")) if project.exists() else True, f"a refused init wrote files: {r.describe()}"


def test_init_dangling_mkdocs_symlink_writes_nothing_outside(place):
    """init never follows a dangling mkdocs.yml symlink out of the project."""
    base, outside = place
    (base / "p").mkdir()
    os.symlink(outside / "planted.yml", base / "p" / "mkdocs.yml")
    before = snapshot(outside)
    r = cb("init", "p", cwd=base, timeout=60)
    assert snapshot(outside) == before, f"init wrote outside the project through a symlink: {sorted(set(snapshot(outside)) - set(before))}; {r.describe()}"
    assert_refused(r)


def test_init_symlinked_corpus_writes_nothing_outside(place):
    """init never writes the registry through a corpus/ symlink that leads out of the project."""
    base, outside = place
    (base / "p").mkdir()
    os.symlink(outside, base / "p" / "corpus")
    before = snapshot(outside)
    r = cb("init", "p", cwd=base, timeout=60)
    assert snapshot(outside) == before, f"init wrote through corpus/ -> outside: {sorted(set(snapshot(outside)) - set(before))}; {r.describe()}"
    assert_refused(r)


def test_init_symlinked_github_writes_nothing_outside(place):
    """init never writes workflows through a .github symlink that leads out of the project."""
    base, outside = place
    (base / "p").mkdir()
    os.symlink(outside, base / "p" / ".github")
    before = snapshot(outside)
    r = cb("init", "p", cwd=base, timeout=60)
    assert snapshot(outside) == before, f"init wrote through .github -> outside: {sorted(set(snapshot(outside)) - set(before))}; {r.describe()}"
    assert_refused(r)


@pytest.mark.parametrize("zone", ["Mars/Olympus", "+99:00", "+08:00\nsite_dir: .."])
def test_init_bad_timezone_refused(place, zone):
    """init --timezone that is no zone is refused (exit 2, one line) and writes nothing."""
    base, _ = place
    r = cb("init", "p", "--timezone", zone, cwd=base, timeout=60)
    written = [str(p.relative_to(base)) for p in (base / "p").rglob("*") if p.is_file()] if (base / "p").exists() else []
    assert not written, f"a refused --timezone {zone!r} still wrote {written[:4]}; {r.describe()}"
    assert_refused(r, (2,))


def test_init_good_timezone_name_accepted(place):
    """init --timezone Asia/Shanghai (a tz database name) makes a project that passes check."""
    base, _ = place
    r = cb("init", "p", "--timezone", "Asia/Shanghai", cwd=base, timeout=60)
    assert_ok(r)
    assert_ok(cb("check", cwd=base / "p", timeout=60))


def test_init_title_yaml_injection_stays_text(place):
    """A --title carrying YAML (a quote, a newline, site_dir: ..) stays text: check passes, site_dir unchanged."""
    base, _ = place
    title = 'x"\nsite_dir: ..\ntheme: {name: evil}\n# '
    r = cb("init", "p", "--title", title, "--description", "d'\n: [", cwd=base, timeout=60)
    _check_accepted_or_refused(r, base / "p")
    if r.rc == 0:
        cfg = read_yaml(base / "p" / "mkdocs.yml")
        assert cfg["site_dir"] == "site" and cfg["theme"]["name"] == "material", "the title injected keys into mkdocs.yml"
        assert cfg["site_name"] == title, f"the title was not kept as text: {cfg['site_name']!r}"
        assert read_yaml(base / "p" / "corpus" / "corpus.yaml")["title"] == title


@pytest.mark.parametrize("title", ["\u202egnp.exe\u202c bell\x07 esc\x1b[31m tab\t", "😀" * 3000])
def test_init_control_text_title(place, title):
    """init --title with control, bidi or very long text: refused cleanly, or a project that passes check."""
    base, _ = place
    r = cb("init", "p", "--title", title, cwd=base, timeout=60)
    _check_accepted_or_refused(r, base / "p")


def test_init_into_a_file_refused(place):
    """init FILE (a regular file, not a folder) is refused in one line; the file is unchanged."""
    base, _ = place
    (base / "p").write_text("notes\n")
    r = cb("init", "p", cwd=base, timeout=60)
    assert (base / "p").read_text() == "notes\n"
    assert_refused(r)


def test_init_twice_writes_nothing(place):
    """init over an existing project writes nothing and says so (non-zero exit)."""
    base, _ = place
    assert_ok(cb("init", "p", cwd=base, timeout=60))
    (base / "p" / "corpus" / "corpus.yaml").write_text('title: "mine"\n')
    before = snapshot(base / "p")
    r = cb("init", "p", "--title", "other", cwd=base, timeout=60)
    assert snapshot(base / "p") == before, f"a second init changed the project; {r.describe()}"
    assert_refused(r)


def test_init_partial_project_writes_nothing(place):
    """init where only corpus/corpus.yaml exists writes none of the other files."""
    base, _ = place
    (base / "p" / "corpus").mkdir(parents=True)
    (base / "p" / "corpus" / "corpus.yaml").write_text('title: "mine"\n')
    r = cb("init", "p", cwd=base, timeout=60)
    assert not (base / "p" / "mkdocs.yml").exists(), f"init wrote mkdocs.yml beside an existing corpus.yaml; {r.describe()}"
    assert_refused(r)
