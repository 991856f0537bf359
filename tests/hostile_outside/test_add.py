"""`add`: appends one entry without touching the rest, never leaves the registry invalid, never
writes outside corpus/, and refuses hostile values in one line within a bounded time."""

from __future__ import annotations

import os

import pytest

from tests.hostile_outside.harness import assert_no_traceback, assert_ok, assert_refused, cb, read_yaml

URL = "https://example.org/articles/new-one"


def _add(proj, *extra, url=URL, timeout=30):
    return cb("add", url, "--section", "01", "--offline", *extra, cwd=proj.root, timeout=timeout)


def _registry_valid_after(proj, r, expect_ids=None):
    """Whatever add did, `check` passes afterwards (and the entries are the expected ones)."""
    c = cb("check", cwd=proj.root, timeout=60)
    assert c.rc == 0, f"the registry is invalid after add: {c.describe()} (add: {r.describe()})"
    if expect_ids is not None:
        ids = [e["id"] for e in read_yaml(proj.sources)]
        assert ids == expect_ids, f"entries after add: {ids}"


def test_add_note_file_dev_zero_bounded(proj, tmp_path):
    """add --note-file pointing (via a symlink) at /dev/zero is refused within seconds, in one line."""
    note = tmp_path / "note.md"
    os.symlink("/dev/zero", note)
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "New", "--note-file", str(note), timeout=20)
    assert proj.sources.read_bytes() == before
    assert_refused(r)


def test_add_note_file_fifo_bounded(proj, tmp_path):
    """add --note-file naming a FIFO no one writes to is refused, never hangs."""
    fifo = tmp_path / "note.md"
    os.mkfifo(fifo)
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "New", "--note-file", str(fifo), timeout=20)
    assert proj.sources.read_bytes() == before
    assert_refused(r)


def test_add_note_file_with_nul_and_controls(proj, tmp_path):
    """add --note-file holding NUL, ESC and bidi characters: refused in one line, or the registry still validates."""
    note = tmp_path / "note.md"
    note.write_bytes("before\x00after \x1b[31mred\x1b[0m \u202eevil\u202c \x85 \ufeff end".encode())
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "New", "--note-file", str(note))
    assert_no_traceback(r)
    if r.rc == 0:
        _registry_valid_after(proj, r)
    else:
        assert proj.sources.read_bytes() == before
        assert_refused(r)


def test_add_huge_url_refused(proj):
    """add of a 100,000-character URL is refused in one line; sources.yaml is unchanged."""
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "Huge", url="https://example.org/" + "a" * 100_000)
    assert proj.sources.read_bytes() == before
    assert_refused(r)


@pytest.mark.parametrize("bad_id", ["../../outside", "x\ny: 1"])
def test_add_bad_id_refused(proj, bad_id):
    """add --id that is no valid id is refused in one line; sources.yaml unchanged."""
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "New", "--id", bad_id)
    assert proj.sources.read_bytes() == before
    assert_refused(r)


def test_add_section_path_traversal_refused(proj):
    """add --section ../../outside is refused and writes nothing outside corpus/."""
    out = proj.outside_state()
    r = _add(proj, "--title", "New", "--section", "../../outside")
    assert proj.outside_state() == out
    assert_refused(r)


def test_add_through_symlinked_sources_yaml(proj):
    """A sources.yaml that is a symlink out of corpus/ is never written through."""
    target = proj.outside / "sources.yaml"
    target.write_bytes(proj.sources.read_bytes())
    proj.sources.unlink()
    os.symlink(target, proj.sources)
    before = target.read_bytes()
    r = _add(proj, "--title", "New")
    assert target.read_bytes() == before, f"add wrote to a file outside the project through a symlink; {r.describe()}"
    assert_refused(r)


def test_add_yaml_injection_in_fields_stays_text(proj):
    """--title, --tags and --note carrying YAML syntax are stored as text: one new entry, check passes."""
    title = 'x"\n- id: injected\n  url: https://evil.example/'
    r = _add(proj, "--title", title, "--note", "a: b\n- c\n---\n...", "--tags", "ok,&anchor,*alias")
    assert_no_traceback(r)
    if r.rc == 0:
        entries = read_yaml(proj.sources)
        assert next(e["id"] for e in entries) == "tiles" and len(entries) == 2, f"add injected entries: {[e['id'] for e in entries]}"
        assert entries[1]["title"] == title
        _registry_valid_after(proj, r)
    else:
        assert_refused(r)


def test_add_huge_chapter_number(proj):
    """add --chapters with a 40-digit number is refused in one line, never a traceback."""
    before = proj.sources.read_bytes()
    r = _add(proj, "--title", "New", "--chapters", "9" * 40)
    assert proj.sources.read_bytes() == before
    assert_refused(r)


@pytest.mark.parametrize(
    "tail",
    [
        pytest.param("  note: |\n    a block note whose last line has no newline", id="block-scalar-no-newline"),
        pytest.param("  note: last words # a comment with no newline", id="comment-no-newline"),
    ],
)
def test_add_after_unterminated_last_line(proj, tail):
    """add after a last line with no newline keeps the earlier entry's text and leaves a valid registry."""
    text = proj.sources.read_text()
    text = text[: text.index("  note: Why tiles matter.")] + tail
    proj.sources.write_text(text)
    assert_ok(cb("check", cwd=proj.root, timeout=60))
    before_note = read_yaml(proj.sources)[0]["note"]
    r = _add(proj, "--title", "New")
    assert_ok(r)
    _registry_valid_after(proj, r)
    # A final newline YAML's clipping adds is fine; merging the new entry into the note is not.
    assert read_yaml(proj.sources)[0]["note"].rstrip("\n") == before_note.rstrip("\n"), "add changed the previous entry's note"


def test_add_to_crlf_bom_file(proj):
    """add to a sources.yaml saved with a BOM and CRLF line ends leaves a valid registry with both entries."""
    proj.sources.write_bytes(b"\xef\xbb\xbf" + proj.sources.read_bytes().replace(b"\n", b"\r\n"))
    c = cb("check", cwd=proj.root, timeout=60)
    r = _add(proj, "--title", "New")
    assert_no_traceback(r)
    if c.rc == 0:
        assert_ok(r)
        _registry_valid_after(proj, r)
        assert len(read_yaml(proj.sources.parent / "sources.yaml")) == 2
    else:
        assert_refused(r)


def test_add_to_flow_style_empty_list(proj):
    """add to a sources.yaml that is `[]` either adds a valid entry or refuses with the file unchanged."""
    proj.sources.write_text("[]\n")
    r = _add(proj, "--title", "New")
    assert_no_traceback(r)
    if r.rc == 0:
        _registry_valid_after(proj, r)
        assert len(read_yaml(proj.sources)) == 1
    else:
        assert proj.sources.read_text() == "[]\n"
        assert_refused(r)


def test_add_dry_run_agrees_with_real_run(proj):
    """add --dry-run of a title at the size limit says what the real run then does (both accept or both refuse)."""
    title = "T" * 5000
    dry = _add(proj, "--title", title, "--dry-run")
    assert_no_traceback(dry)
    before = proj.sources.read_bytes()
    real = _add(proj, "--title", title)
    assert_no_traceback(real)
    assert (dry.rc == 0) == (real.rc == 0), f"dry run and real run disagree: dry {dry.describe()}; real {real.describe()}"
    if real.rc != 0:
        assert proj.sources.read_bytes() == before
