"""Where the site goes: `build`, `publish` and `mkdocs build` must never delete the project, its
registry, its hand-written pages, a parent folder or a folder corpus-build did not make."""

from __future__ import annotations

import os

import pytest

from tests.hostile_outside.harness import assert_ok, assert_refused, cb, mkdocs, snapshot

PUBLISH_BUILD_ONLY = ("publish", "--skip", "fetch", "--skip", "watch", "--skip", "links")


def _kept(proj, before_registry, before_outside, r) -> None:
    assert (proj.root / "mkdocs.yml").is_file(), f"mkdocs.yml was deleted; {r.describe()}"
    assert proj.registry_state() == before_registry, f"the registry under corpus/ changed; {r.describe()}"
    assert proj.outside_state() == before_outside, f"files outside the project changed; {r.describe()}"


def test_build_site_dir_dot_refused(proj):
    """build --site-dir . is refused in one line and deletes nothing of the project."""
    reg, out = proj.registry_state(), proj.outside_state()
    gh = snapshot(proj.root / ".github")
    r = cb("build", "--site-dir", ".", cwd=proj.root, timeout=120)
    _kept(proj, reg, out, r)
    assert snapshot(proj.root / ".github") == gh, f".github/ was deleted or changed; {r.describe()}"
    assert_refused(r)


def test_build_site_dir_corpus_refused(proj):
    """build --site-dir corpus is refused and the registry is untouched."""
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", "--site-dir", "corpus", cwd=proj.root, timeout=120)
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_build_site_dir_inside_corpus_refused(proj):
    """build --site-dir corpus/01-example/out (inside the registry) is refused and writes nothing there."""
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", "--site-dir", "corpus/01-example/out", cwd=proj.root, timeout=120)
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_build_site_dir_docs_keeps_handwritten_page(proj):
    """build --site-dir docs is refused; a hand-written page in docs/ survives."""
    page = proj.root / "docs" / "my-notes.md"
    page.write_text("# My notes\n\nWritten by hand.\n")
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", "--site-dir", "docs", cwd=proj.root, timeout=120)
    assert page.is_file() and "Written by hand." in page.read_text(), f"a hand-written page in docs/ was deleted; {r.describe()}"
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_build_site_dir_github_refused(proj):
    """build --site-dir .github is refused and the workflows survive."""
    before = snapshot(proj.root / ".github")
    r = cb("build", "--site-dir", ".github", cwd=proj.root, timeout=120)
    assert snapshot(proj.root / ".github") == before, f"the workflows under .github/ were deleted; {r.describe()}"
    assert_refused(r)


def test_build_site_dir_parent_refused(proj):
    """build --site-dir .. is refused; the parent folder's files (and the project) survive."""
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", "--site-dir", "..", cwd=proj.root, timeout=120)
    assert (proj.work / "sibling.txt").is_file(), f"a file beside the project was deleted; {r.describe()}"
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_build_site_dir_foreign_folder_refused(proj):
    """build --site-dir at a non-empty folder corpus-build did not make is refused; its files survive."""
    out = proj.outside_state()
    r = cb("build", "--site-dir", str(proj.outside), cwd=proj.root, timeout=120)
    assert (proj.outside / "keep.txt").is_file(), f"a user's file in the chosen folder was deleted; {r.describe()}"
    assert proj.outside_state() == out
    assert_refused(r)


def test_build_site_symlink_to_foreign_folder(proj):
    """A site/ that is a symlink to a user's non-empty folder is not emptied through the link."""
    import shutil

    shutil.rmtree(proj.site)
    os.symlink(proj.outside, proj.site)
    out = snapshot(proj.outside)
    r = cb("build", cwd=proj.root, timeout=120)
    assert (proj.outside / "keep.txt").is_file(), f"a user's file behind the site/ symlink was deleted; {r.describe()}"
    assert snapshot(proj.outside) == out
    assert_refused(r)


def test_build_site_symlink_to_project(proj):
    """A site/ that is a symlink to the project itself is refused; the project survives."""
    import shutil

    shutil.rmtree(proj.site)
    os.symlink(".", proj.site)
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", cwd=proj.root, timeout=120)
    _kept(proj, reg, out, r)
    assert_refused(r)


@pytest.mark.parametrize("where", ["missing-folder", "a-file"])
def test_build_project_option_not_a_project(proj, where):
    """build --project naming a missing folder or a file is refused in one line and writes nothing."""
    target = proj.work / where
    if where == "a-file":
        target.write_text("not a project\n")
    out = proj.outside_state()
    r = cb("build", "--project", str(target), cwd=proj.work, timeout=60)
    assert proj.outside_state() == out, f"files beside the project changed; {r.describe()}"
    assert not (target / "site").exists() and (where == "missing-folder") == (not target.exists()), f"build made something at --project; {r.describe()}"
    assert_refused(r)


def test_build_site_dir_is_a_file(proj):
    """build --site-dir FILE is refused with a line about the path (not free space); the file and project stay clean."""
    target = proj.root / "notes.txt"
    target.write_text("my notes\n")
    r = cb("build", "--site-dir", "notes.txt", cwd=proj.root, timeout=120)
    assert target.read_text() == "my notes\n"
    line = assert_refused(r)
    assert "free space" not in line, f"misleading reason: {line}"
    assert "notes.txt" in line, f"the message does not name the path: {line}"
    leftovers = [p.name for p in proj.root.iterdir() if "partial" in p.name]
    assert not leftovers, f"a staging folder was left behind: {leftovers}"


def test_mkdocs_yml_site_dir_parent_refused(proj):
    """site_dir: .. in mkdocs.yml is refused by build; the parent's files survive."""
    cfg = proj.root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("site_dir: site", "site_dir: .."))
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb("build", cwd=proj.root, timeout=120)
    assert (proj.work / "sibling.txt").is_file(), f"site_dir: .. emptied the parent folder; {r.describe()}"
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_mkdocs_build_site_dir_corpus_refused(proj):
    """Plain `mkdocs build` with site_dir: corpus (the plugin's build) never deletes the registry."""
    cfg = proj.root / "mkdocs.yml"
    cfg.write_text(cfg.read_text().replace("site_dir: site", "site_dir: corpus"))
    reg = proj.registry_state()
    r = mkdocs("build", cwd=proj.root, timeout=120)
    assert proj.sources.is_file(), f"mkdocs build deleted the registry; {r.describe()}"
    assert proj.registry_state() == reg, f"mkdocs build changed the registry; {r.describe()}"
    assert r.rc != 0 and not r.timed_out, f"mkdocs build into corpus/ should fail: rc={r.rc}"
    assert "Traceback (most recent call last)" not in r.both()


def test_publish_site_dir_dot_refused(proj):
    """publish --site-dir . is refused and deletes nothing of the project."""
    reg, out = proj.registry_state(), proj.outside_state()
    r = cb(*PUBLISH_BUILD_ONLY, "--site-dir", ".", cwd=proj.root, timeout=180)
    _kept(proj, reg, out, r)
    assert_refused(r)


def test_build_into_previous_site_is_fine(proj):
    """A second build into its own site/ succeeds and leaves no staging folder beside it."""
    before = sorted(p.name for p in proj.root.iterdir())
    r = cb("build", cwd=proj.root, timeout=120)
    assert_ok(r)
    assert (proj.site / "index.html").is_file()
    # Beside it only the old site's folders, emptied, kept for the next build (core/swapdir.py): no file in them.
    assert sorted(p.name for p in proj.root.iterdir() if p.name != ".site.folders") == sorted(n for n in before if n != ".site.folders")
    kept = proj.root / ".site.folders"
    assert kept.is_dir() and not [p for p in kept.rglob("*") if not p.is_dir() or p.is_symlink()]
