"""`attach`: a hollow copy never replaces a good mirror, non-regular files are refused without
hanging, and nothing outside the project is written."""

from __future__ import annotations

import os

import pytest

from tests.hostile_outside.conftest import GOOD_WORDS, mirror_text
from tests.hostile_outside.harness import assert_no_traceback, assert_refused, cb, snapshot


def _attach(proj, path, source_id="page", timeout=120):
    return cb("attach", source_id, str(path), cwd=proj.root, timeout=timeout, max_memory_mb=3000)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        pytest.param("empty.html", b"", id="empty-page"),
        pytest.param("copy.html", os.urandom(200_000), id="random-binary-html"),
        pytest.param("copy.pdf", b"%PDF-1.4\n" + os.urandom(50_000), id="random-binary-pdf"),
        pytest.param("copy.html", b"<html><head><title>x</title><script>" + b"var a=1;" * 50_000 + b"</script></head><body></body></html>", id="script-only"),
        pytest.param("copy.html", b"<html><head><title>x</title></head><body>" + b"<div></div>" * 30_000 + b"</body></html>", id="330KB-no-text"),
        pytest.param("copy.png", b"\x89PNG\r\n\x1a\n" + b"\0" * 100, id="broken-png"),
    ],
)
def test_attach_hollow_copy_keeps_good_text(good_proj, server, tmp_path, name, content):
    """attach of a hollow copy (empty, binary, script-only, no text) over a good mirror keeps the good text."""
    path = tmp_path / name
    path.write_bytes(content)
    r = _attach(good_proj, path)
    assert_no_traceback(r)
    assert GOOD_WORDS in mirror_text(good_proj), f"a hollow attached copy replaced the good mirror's text; {r.describe()}"


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder-without-html"])
def test_attach_non_regular_refused(good_proj, server, tmp_path, kind):
    """attach of a FIFO, /dev/zero, /dev/null or an empty folder is refused in one line, never hangs; the mirror stays."""
    path = tmp_path / "copy.html"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        os.symlink("/dev/zero", path)
    elif kind == "dev-null":
        os.symlink("/dev/null", path)
    else:
        path = tmp_path / "saved"
        path.mkdir()
    r = _attach(good_proj, path, timeout=30)
    assert GOOD_WORDS in mirror_text(good_proj)
    assert_refused(r)


def test_attach_unknown_id_refused(fetch_proj, tmp_path):
    """attach to an id that is not in the registry is refused in one line."""
    path = tmp_path / "copy.html"
    path.write_text("<html><body><p>text</p></body></html>")
    r = _attach(fetch_proj, path, source_id="no-such-source")
    assert_refused(r)


def test_attach_id_traversal_refused(fetch_proj, tmp_path):
    """attach ../../outside writes nothing outside the project."""
    path = tmp_path / "copy.html"
    path.write_text("<html><body><p>text</p></body></html>")
    before = fetch_proj.outside_state()
    r = _attach(fetch_proj, path, source_id="../../../outside")
    assert fetch_proj.outside_state() == before
    assert_refused(r)


def test_attach_saved_folder_with_escaping_symlink(good_proj, server, tmp_path):
    """A saved-page folder whose _files/ holds a symlink to a secret outside never copies the secret into the mirror."""
    secret = good_proj.outside / "secret.txt"
    secret.write_text("SECRET-TOKEN-1234\n")
    page = tmp_path / "answer.html"
    page.write_text("<html><head><title>Saved</title></head><body><main>" + "<p>Saved words of a real answer about tiles.</p>" * 30 + "<img src='answer_files/pic.png'></main></body></html>")
    files = tmp_path / "answer_files"
    files.mkdir()
    os.symlink(secret, files / "pic.png")
    os.symlink(secret, files / "style.css")
    r = _attach(good_proj, page)
    assert_no_traceback(r)
    leaked = [str(p) for p in good_proj.raw("page").rglob("*") if p.is_file() and b"SECRET-TOKEN" in p.read_bytes()]
    assert not leaked, f"attach copied a file from outside through a symlink: {leaked}"


def test_attach_through_symlinked_raw_refused(fetch_proj, server, tmp_path):
    """attach never writes through a raw/<id> symlink that leads out of corpus/ (refusing, or replacing the link)."""
    url = server.set(f"/{tmp_path.name}/page", "<html><body><p>x</p></body></html>")
    fetch_proj.append_source("page", url)
    fetch_proj.raw("page").parent.mkdir(parents=True, exist_ok=True)
    os.symlink(fetch_proj.outside, fetch_proj.raw("page"))
    before = snapshot(fetch_proj.outside)
    path = tmp_path / "copy.html"
    path.write_text("<html><head><title>t</title></head><body><main>" + "<p>Real text of the saved page.</p>" * 30 + "</main></body></html>")
    r = _attach(fetch_proj, path)
    assert snapshot(fetch_proj.outside) == before, f"attach wrote through a symlink out of corpus/; {r.describe()}"
    assert_no_traceback(r)
