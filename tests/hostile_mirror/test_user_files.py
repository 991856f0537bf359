"""Files a user put inside raw/<id>/ or beside it (a note, a folder of scans, a hidden backup) are
never deleted: not when a new capture replaces the mirror, not when a worse one is declined, not
with `--accept-worse`, not when the source leaves the registry, not by `clean`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostile_mirror.conftest import Project, article, mirror_problems
from tests.hostile_outside.harness import assert_no_traceback, assert_ok

NOTE = "My reading notes: compare with the CUTLASS tile iterator.\n"
BASE = "/user"
IDS = ["grows", "shrinks", "accepted", "removed"]


@pytest.fixture(scope="module")
def mirrored(template, server, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("user") / "proj"
    shutil.copytree(template, root, symlinks=True)
    proj = Project(root)
    for source_id in IDS:
        proj.add(source_id, server.set(f"{BASE}/{source_id}", article(source_id)))
    assert_ok(proj.cb("fetch", timeout=120))
    return root


@pytest.fixture
def user_proj(mirrored, server, tmp_path) -> Project:
    """A copy of the mirrored project; `grows` and `removed` grew, `shrinks` and `accepted` shrank."""
    root = tmp_path / "proj"
    shutil.copytree(mirrored, root, symlinks=True)
    server.set(f"{BASE}/grows", article("grows-v2", paragraphs=60))
    server.set(f"{BASE}/shrinks", article("shrinks", paragraphs=5))
    server.set(f"{BASE}/accepted", article("accepted", paragraphs=5))
    server.set(f"{BASE}/removed", article("removed-v2", paragraphs=60))
    return Project(root)


def _write(planted: dict[str, str], root: Path, rel: str, content: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(content, encoding="utf-8")
    planted[rel] = content


def _missing(proj: Project, planted: dict[str, str]) -> list[str]:
    return [rel for rel, content in planted.items() if not (proj.raw_root / rel).is_file() or (proj.raw_root / rel).read_text(encoding="utf-8") != content]


def _every_kind_of_fetch(proj: Project, planted: dict[str, str]) -> None:
    r = proj.cb("fetch", "--force", "grows", "shrinks", "removed", timeout=120)
    assert_no_traceback(r)
    assert "grows-v2" in proj.text("grows"), f"control: the grown page did not replace the mirror: {r.describe()}"
    assert not _missing(proj, planted), f"fetch --force deleted the user's files: {_missing(proj, planted)}; {r.describe()}"
    r = proj.cb("fetch", "--force", "--accept-worse", "accepted", timeout=120)
    assert_no_traceback(r)
    assert not _missing(proj, planted), f"fetch --accept-worse deleted the user's files: {_missing(proj, planted)}"
    assert "Paragraph 6 " not in proj.text("accepted"), f"--accept-worse did not let the shorter capture in: {r.describe()}"
    assert "Paragraph 30 " in proj.text("shrinks"), f"--accept-worse of another source let this one's worse capture in: {r.describe()}"
    # The source leaves the registry; a fetch of the rest and a clean follow.
    text = proj.sources_yaml.read_text(encoding="utf-8")
    proj.sources_yaml.write_text(text[: text.index("- id: removed")], encoding="utf-8")
    assert_no_traceback(proj.cb("fetch", "--force", timeout=120))
    assert_no_traceback(proj.cb("clean", timeout=60))
    assert not _missing(proj, planted), f"fetch after a source left the registry, or clean, deleted the user's files: {_missing(proj, planted)}"
    for source_id in IDS[:3]:
        assert not mirror_problems(proj.raw(source_id)), mirror_problems(proj.raw(source_id))


def test_user_files_inside_mirrors_survive(user_proj: Project):
    """A note and a folder inside raw/<id>/ survive a replacing capture, a declined one, --accept-worse, the source's removal and `clean`."""
    planted: dict[str, str] = {}
    for source_id in IDS:
        _write(planted, user_proj.raw_root, f"{source_id}/NOTES.md", NOTE + source_id + "\n")
        _write(planted, user_proj.raw_root, f"{source_id}/my-scans/page-1.txt", "scan of page 1\n")
    _every_kind_of_fetch(user_proj, planted)


def test_user_entries_beside_mirrors_survive(user_proj: Project):
    """Files and folders of the user's beside the mirrors in raw/ (hidden ones, one named like a backup of a mirror) survive every kind of fetch and `clean`."""
    planted: dict[str, str] = {}
    _write(planted, user_proj.raw_root, "README.txt", "what these folders are\n")
    _write(planted, user_proj.raw_root, "old-captures/2023.html", "<p>an old capture I saved</p>\n")
    _write(planted, user_proj.raw_root, ".notes", "hidden note\n")
    _write(planted, user_proj.raw_root, ".backup-of-grows/page.html", "<p>mine</p>\n")
    _write(planted, user_proj.raw_root, ".grows.old-copy/notes.txt", "my copy of last year's page\n")
    _every_kind_of_fetch(user_proj, planted)


def test_user_files_survive_attach(user_proj: Project, tmp_path):
    """`attach` of a saved copy replaces the mirror as fetch does; a note and a folder of the user's inside raw/<id>/ come along."""
    planted: dict[str, str] = {}
    _write(planted, user_proj.raw_root, "grows/NOTES.md", NOTE)
    _write(planted, user_proj.raw_root, "grows/my-scans/page-1.txt", "scan of page 1\n")
    saved = tmp_path / "saved.html"
    saved.write_text(article("grows-saved", paragraphs=60), encoding="utf-8")
    r = user_proj.cb("attach", "grows", str(saved), "--note", "saved from my browser", timeout=120)
    assert_ok(r)
    assert "grows-saved" in user_proj.text("grows"), f"control: the saved copy did not become the mirror: {r.describe()}"
    assert not _missing(user_proj, planted), f"attach deleted the user's files: {_missing(user_proj, planted)}"
    assert not mirror_problems(user_proj.raw("grows")), mirror_problems(user_proj.raw("grows"))
