"""An outside review of rebuild skipping (render/sourcekeys.py, site/pageskip.py, site/populateskip.py,
site/buildcache.py): edits whose effect a rebuild missed, each shown against a render or build from nothing.

The rule: a rebuild gives exactly what a clean build of the same inputs gives; a page kept as it was
when something it shows changed is a worse site.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpus_build import registry, site
from corpus_build.core import provenance
from corpus_build.registry import reader as registry_reader
from tests.corpus_fixture import write_project
from tests.test_incremental import _assert_same_site
from tests.test_mirror_pages import write_mirrors
from tests.test_sourcekeys import _assert_as_fresh, _edit, _render

# --- source pages found by their inputs (render/sourcekeys.py) --------------------------------


def test_a_title_named_in_a_chapter_step_about_a_source_follows_that_title(project):
    """A chapter step's `why` is shown on the page of the source the step is about ("cited by"), its
    [[id]] links with the named sources' titles: renaming such a source changes that page too."""
    _edit(project / "corpus" / "chapters.yaml", "why: Then the language.", "why: Then the language, after [[cuda-guide]].")
    _render(project)
    _render(project)
    _edit(project / "corpus" / "01-gpu" / "sources.yaml", "title: CUDA C++ Programming Guide", "title: CUDA Guide, renamed")
    corpus = _render(project)
    assert "CUDA Guide, renamed" in (project / "docs" / "sources" / "tilelang.md").read_text(encoding="utf-8")
    _assert_as_fresh(project, corpus, "a source named in a chapter step's why renamed")


def test_a_mirror_that_turns_stale_overnight_says_so_on_its_source_page(project, monkeypatch):
    """Whether a mirror is stale depends on the day (provenance.days_old: UTC midnights since its last
    check), not on any file: the next day's render must not keep the page that called it fresh."""
    mirrored = write_mirrors(project, "http://127.0.0.1:9")
    source = registry.load(mirrored / "corpus").source("cuda-guide")
    record = provenance.read_provenance(mirrored / "corpus" / source.section / "raw" / source.id)
    assert record is not None
    checked = provenance.parse_time(record.checked_at or record.fetched_at)
    assert checked is not None
    days = provenance.days_old(checked)  # stale after `days` days: fresh today, stale from tomorrow
    _edit(mirrored / "corpus" / "corpus.yaml", "stale_after_days: 36500", f"stale_after_days: {days}")
    _render(mirrored)
    _render(mirrored)
    page = mirrored / "docs" / "sources" / "cuda-guide.md"
    assert "stale" not in page.read_text(encoding="utf-8")
    today = provenance.now_utc
    monkeypatch.setattr(provenance, "now_utc", lambda: today() + dt.timedelta(days=1))  # the clock, a day on
    corpus = _render(mirrored)
    assert "stale" in page.read_text(encoding="utf-8")
    _assert_as_fresh(mirrored, corpus, "a day later, a mirror stale")



def test_an_inputs_entry_edited_to_name_another_page_is_not_taken(project):
    """docs/.corpus-build-inputs.json edited by hand (or by a merge) so that one source's inputs name
    another source's view: the page must still be that source's own, not the other's copied."""
    _render(project)
    _render(project)
    views = json.loads((project / "docs" / ".corpus-build-views.json").read_text(encoding="utf-8"))
    path_of = {entry[0]: path for path, entry in views.items()}
    state = project / "docs" / ".corpus-build-inputs.json"
    inputs = json.loads(state.read_text(encoding="utf-8"))
    by_page = {path_of.get(entry[0]): key for key, entry in inputs.items()}
    cuda, tile = by_page["sources/cuda-guide.md"], by_page["sources/tilelang.md"]
    inputs[cuda], inputs[tile] = inputs[tile], inputs[cuda]
    state.write_text(json.dumps(inputs), encoding="utf-8")
    _edit(project / "corpus" / "02-ascend" / "sources.yaml", "DeepGEMM 的昇腾实现", "DeepGEMM 的昇腾实现（新）")  # any other edit: a render
    corpus = _render(project)
    assert "title: CUDA C++ Programming Guide" in (project / "docs" / "sources" / "cuda-guide.md").read_text(encoding="utf-8")
    _assert_as_fresh(project, corpus, "an inputs entry naming another page")

# --- pages whose template is reused or skipped (site/buildcache.py, site/pageskip.py) ----------

GUIDE = "---\ntitle: Guide\n{extra}---\n\n# Guide\n\nA page of the project's own.\n"


def _clean_project(project: Path, root: Path) -> Path:
    """A project made afresh at `root` with the edited one's registry and mkdocs.yml (no cache, no site)."""
    clean = write_project(root)
    shutil.rmtree(clean / "corpus")
    shutil.copytree(project / "corpus", clean / "corpus")
    shutil.copy(project / "mkdocs.yml", clean / "mkdocs.yml")
    return clean


def _own_nav(project: Path) -> None:
    """mkdocs.yml's own navigation (the plugin then leaves it), with a page of the project's own in it."""
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("omitted_files: warn", "omitted_files: info")  # the generated pages it leaves out
    config.write_text(text.replace("use_directory_urls: true\n", "use_directory_urls: true\nnav:\n  - index.md\n  - guide.md\n  - status.md\n  - tags.md\n", 1),
                      encoding="utf-8")
    (project / "docs" / "guide.md").write_text(GUIDE.format(extra=""), encoding="utf-8")


def _clean_site(root: Path, project: Path) -> Path:
    """The same project's inputs (corpus/, mkdocs.yml, its own pages) built with no state at all."""
    clean = _clean_project(project, root)
    shutil.copy(project / "docs" / "guide.md", clean / "docs" / "guide.md")
    return site.build(clean, strict=True)


@pytest.mark.slow
def test_a_nav_pages_subtitle_reaches_every_pages_navigation(tmp_path, monkeypatch):
    """Material's navigation shows each listed page's `subtitle`, `icon` and `status` from its front
    matter: an edit of them changes every page's sidebar, though no other page's inputs changed."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")  # the sitemap's dates: the same for both builds
    project = write_project(tmp_path / "edited")
    _own_nav(project)
    site.build(project, strict=True)
    (project / "docs" / "guide.md").write_text(GUIDE.format(extra="subtitle: Read me first\n"), encoding="utf-8")
    site.build(project, strict=True)
    assert "Read me first" in (project / "site" / "index.html").read_text(encoding="utf-8")
    _assert_same_site(project / "site", _clean_site(tmp_path / "clean", project), "a nav page's subtitle")


@pytest.mark.slow
def test_a_template_that_shows_the_build_date_shows_this_builds(tmp_path, monkeypatch):
    """A theme override may print MkDocs' `build_date_utc` (a copyright year, a "built on" line): every
    page then changes with the date of the build, and no page may keep the last build's."""
    project = write_project(tmp_path / "edited")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  name: material\n", "  name: material\n  custom_dir: overrides\n", 1), encoding="utf-8")
    (project / "overrides" / "partials").mkdir(parents=True)
    (project / "overrides" / "partials" / "copyright.html").write_text("<div>Built {{ build_date_utc.strftime('%Y-%m-%d') }}</div>\n", encoding="utf-8")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")  # 2026-10-26
    site.build(project, strict=True)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793100000")  # a day later
    _edit(project / "corpus" / "01-gpu" / "sources.yaml", "Second line of the note.", "Second line of the note, edited.")
    site.build(project, strict=True)
    assert "Built 2026-10-27" in (project / "site" / "index.html").read_text(encoding="utf-8")
    clean = _clean_project(project, tmp_path / "clean")
    shutil.copytree(project / "overrides", clean / "overrides")
    _assert_same_site(project / "site", site.build(clean, strict=True), "a day later, the build date shown")



def _linked_partials(root: Path, footer: str) -> tuple[Path, Path]:
    """A project whose custom_dir links its partials from a shared folder (overrides/partials ->
    ../shared/partials), the footer saying `footer`: the project and the shared folder."""
    project = write_project(root)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  name: material\n", "  name: material\n  custom_dir: overrides\n", 1), encoding="utf-8")
    shared = project / "shared" / "partials"
    shared.mkdir(parents=True)
    (shared / "copyright.html").write_text(f"<div>{footer}</div>\n", encoding="utf-8")
    (project / "overrides").mkdir()
    (project / "overrides" / "partials").symlink_to(Path("..") / "shared" / "partials")
    return project, shared


@pytest.mark.slow
def test_a_folder_linked_into_the_theme_override_is_part_of_the_theme(tmp_path, monkeypatch):
    """custom_dir may hold a link to a folder shared by several projects (overrides/partials ->
    ../shared/partials): Jinja reads the templates through it, so an edit there changes every page."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project, shared = _linked_partials(tmp_path / "edited", "Shared footer, first words")
    site.build(project, strict=True)
    (shared / "copyright.html").write_text("<div>Shared footer, second words</div>\n", encoding="utf-8")
    site.build(project, strict=True)
    assert "second words" in (project / "site" / "index.html").read_text(encoding="utf-8")
    clean = _clean_project(project, tmp_path / "clean")
    shutil.copytree(project / "shared", clean / "overrides")
    _assert_same_site(project / "site", site.build(clean, strict=True), "a template in a linked folder edited")


EMOJI = """  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
      emoji_generator: !!python/name:material.extensions.emoji.to_svg
      options:
        custom_icons:
          - overrides/.icons
"""
ICON = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="{}"/></svg>'


def _cli_build(project: Path, timeout: float = 600) -> None:
    """`corpus-build build` in a process of its own, run from the project (Material keeps the icons it
    read for as long as its process lives, and finds custom_icons from the current folder)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1793000000"}
    done = subprocess.run([sys.executable, "-m", "corpus_build", "--project", str(project), "build", "--strict"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow
def test_a_custom_icon_edited_reaches_the_pages_that_show_it(tmp_path):
    """Material's recommended custom icons (pymdownx.emoji, options.custom_icons: overrides/.icons):
    the conversion of `:mine-logo:` reads the icon's file, so editing the icon edits every page showing it."""
    project = write_project(tmp_path / "edited")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("not_in_nav: |\n", "not_in_nav: |\n  /guide.md\n", 1)
    text = text.replace("  name: material\n", "  name: material\n  custom_dir: overrides\n", 1)  # as Material's guide sets it up
    config.write_text(text.replace("  - pymdownx.inlinehilite\n", "  - pymdownx.inlinehilite\n" + EMOJI, 1), encoding="utf-8")
    icons = project / "overrides" / ".icons" / "mine"
    icons.mkdir(parents=True)
    (icons / "logo.svg").write_text(ICON.format("M1 1h10v10H1z"), encoding="utf-8")
    (project / "docs" / "guide.md").write_text("# Guide\n\nOur mark :mine-logo: here.\n", encoding="utf-8")
    _cli_build(project)
    (icons / "logo.svg").write_text(ICON.format("M2 2h20v20H2z"), encoding="utf-8")
    _cli_build(project)
    assert "M2 2h20v20H2z" in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    clean = tmp_path / "clean"
    shutil.copytree(project, clean, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    (clean / "docs").mkdir()
    shutil.copy(project / "docs" / "guide.md", clean / "docs" / "guide.md")
    _cli_build(clean)
    _assert_same_site(project / "site", clean / "site", "a custom icon edited")

# --- pages put back without reading them (site/populateskip.py) --------------------------------


def _linked_changelog(root: Path) -> tuple[Path, Path]:
    """A project with docs/changelog.md -> ../CHANGELOG.md ("Version one."): the project and the file."""
    project = write_project(root)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("not_in_nav: |\n", "not_in_nav: |\n  /changelog.md\n", 1), encoding="utf-8")
    changelog = project / "CHANGELOG.md"
    changelog.write_text("# Changes\n\nVersion one.\n", encoding="utf-8")
    (project / "docs" / "changelog.md").symlink_to(Path("..") / "CHANGELOG.md")
    return project, changelog


@pytest.mark.slow
def test_a_page_that_is_a_link_to_a_file_elsewhere_follows_that_file(tmp_path, monkeypatch):
    """A project may link a file of its own into docs/ (docs/changelog.md -> ../CHANGELOG.md): MkDocs
    reads the file the link leads to, so an edit of that file is an edit of the page."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project, changelog = _linked_changelog(tmp_path / "edited")
    site.build(project, strict=True)
    changelog.write_text("# Changes\n\nVersion two.\n", encoding="utf-8")
    site.build(project, strict=True)
    assert "Version two." in (project / "site" / "changelog" / "index.html").read_text(encoding="utf-8")
    clean = _clean_project(project, tmp_path / "clean")
    shutil.copy(changelog, clean / "docs" / "changelog.md")
    _assert_same_site(project / "site", site.build(clean, strict=True), "the file a page links to edited")


# --- the whole build skipped when nothing changed (site/uptodate.py) ----------------------------


@pytest.mark.slow
def test_nothing_changed_sees_an_edit_of_the_file_a_page_links_to(tmp_path, monkeypatch):
    """The same linked page as above, through `corpus-build build`: its "nothing changed since the last
    build" check must see the edit of the file the link leads to, or the build is not even run."""
    from corpus_build.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project, changelog = _linked_changelog(tmp_path / "edited")
    assert main(["--project", str(project), "build"]) == 0
    changelog.write_text("# Changes\n\nVersion two.\n", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    assert "Version two." in (project / "site" / "changelog" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_nothing_changed_sees_an_edit_of_a_custom_icon_outside_the_theme_folder(tmp_path):
    """Icons kept beside mkdocs.yml (custom_icons: [icons], no custom_dir): an edited icon is a
    changed page, so `corpus-build build` must build, not say nothing changed."""
    project = write_project(tmp_path / "edited")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").replace("not_in_nav: |\n", "not_in_nav: |\n  /guide.md\n", 1)
    config.write_text(text.replace("  - pymdownx.inlinehilite\n", "  - pymdownx.inlinehilite\n" + EMOJI.replace("overrides/.icons", "icons"), 1), encoding="utf-8")
    icons = project / "icons" / "mine"
    icons.mkdir(parents=True)
    (icons / "logo.svg").write_text(ICON.format("M1 1h10v10H1z"), encoding="utf-8")
    (project / "docs" / "guide.md").write_text("# Guide\n\nOur mark :mine-logo: here.\n", encoding="utf-8")
    _cli_build(project)
    assert "M1 1h10v10H1z" in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    (icons / "logo.svg").write_text(ICON.format("M2 2h20v20H2z"), encoding="utf-8")
    _cli_build(project)
    assert "M2 2h20v20H2z" in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_nothing_changed_sees_an_edit_in_a_folder_linked_into_the_theme_folder(tmp_path):
    """overrides/partials -> ../shared/partials: a template edited there is a theme edit, so
    `corpus-build build` must build, and a link back to a parent folder must not loop."""
    project, shared = _linked_partials(tmp_path / "edited", "First words")
    (shared / "loop").symlink_to(Path("..") / "..")  # a link back up: walked once, never in circles
    _cli_build(project)
    assert "First words" in (project / "site" / "index.html").read_text(encoding="utf-8")
    (shared / "copyright.html").write_text("<div>Second words</div>\n", encoding="utf-8")
    _cli_build(project)
    assert "Second words" in (project / "site" / "index.html").read_text(encoding="utf-8")


# --- a file whose stat stays the same across an edit (site/populateskip.py, site/uptodate.py) -----

_TICK_NS = 3600 * 10**9  # a file system whose times tick by the hour: an extreme of FAT's 2 s, ext3's 1 s


def _coarse(info: os.stat_result) -> os.stat_result:
    fields = {name: getattr(info, name) for name in dir(info) if name.startswith("st_")}
    for name in ("st_mtime", "st_ctime"):
        ns = fields[f"{name}_ns"] // _TICK_NS * _TICK_NS
        fields[f"{name}_ns"], fields[name] = ns, ns / 1e9
    return os.stat_result(tuple(info), fields)


class _CoarseEntry:
    def __init__(self, entry: os.DirEntry) -> None:
        self._entry = entry

    def __getattr__(self, name: str):
        return getattr(self._entry, name)

    def __fspath__(self) -> str:
        return self._entry.path

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return _coarse(self._entry.stat(follow_symlinks=follow_symlinks))


class _CoarseScan:
    def __init__(self, scan) -> None:
        self._scan = scan

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._scan.__exit__(*exc)

    def __iter__(self):
        return self

    def __next__(self) -> _CoarseEntry:
        return _CoarseEntry(next(self._scan))

    def close(self) -> None:
        self._scan.close()


@pytest.fixture
def coarse_times(monkeypatch):
    """The file system's seam: times as a coarse file system keeps them (one tick an hour), which a
    test machine's own cannot show: a same-size write within the tick leaves every stat field as it was."""
    real_stat, real_scandir = os.stat, os.scandir
    monkeypatch.setattr(os, "stat", lambda path, *a, **k: _coarse(real_stat(path, *a, **k)))
    monkeypatch.setattr(os, "scandir", lambda path=".": _CoarseScan(real_scandir(path)))


def _guide_project(root: Path, text: str) -> tuple[Path, Path]:
    """A project with a page of its own, docs/guide.md saying `text`: the project and the page."""
    project = write_project(root)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("not_in_nav: |\n", "not_in_nav: |\n  /guide.md\n", 1), encoding="utf-8")
    guide = project / "docs" / "guide.md"
    guide.write_text(f"# Guide\n\n{text}\n", encoding="utf-8")
    return project, guide


def _assert_as_clean_guide(tmp_path: Path, project: Path, step: str) -> None:
    clean = _clean_project(project, tmp_path / "clean")
    shutil.copy(project / "docs" / "guide.md", clean / "docs" / "guide.md")
    _assert_same_site(project / "site", site.build(clean, strict=True), step)


@pytest.mark.slow
def test_a_page_saved_while_it_was_read_is_built_again_from_its_new_bytes(tmp_path, monkeypatch, coarse_times):
    """An editor saves a page (same size) right after MkDocs read it, within the file system's tick:
    the page's record must be of the bytes that were built, so the next build sees the new ones."""
    from mkdocs.structure.pages import Page

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project, guide = _guide_project(tmp_path / "edited", "Version one.")
    real_read = Page.read_source
    saved: list[str] = []

    def read_then_saved(self, config):
        real_read(self, config)
        if self.file.src_uri == "guide.md" and not saved:
            guide.write_text("# Guide\n\nVersion two.\n", encoding="utf-8")  # in place, the same size
            saved.append(self.file.src_uri)

    monkeypatch.setattr(Page, "read_source", read_then_saved)
    site.build(project, strict=True)
    assert saved and "Version one." in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    monkeypatch.setattr(Page, "read_source", real_read)
    site.build(project, strict=True)
    assert "Version two." in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    _assert_as_clean_guide(tmp_path, project, "a page saved while it was read")


@pytest.mark.slow
def test_a_page_edited_within_the_tick_of_its_last_build_is_read_again(tmp_path, monkeypatch, coarse_times):
    """A same-size edit in the file system's tick of the last build (a quick fix saved at once): the
    page's stat is as recorded, yet it changed; such a page is known by its bytes (racily clean)."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project, guide = _guide_project(tmp_path / "edited", "Version one.")
    site.build(project, strict=True)
    guide.write_text("# Guide\n\nVersion two.\n", encoding="utf-8")
    site.build(project, strict=True)
    assert "Version two." in (project / "site" / "guide" / "index.html").read_text(encoding="utf-8")
    _assert_as_clean_guide(tmp_path, project, "a page edited within the tick of the last build")


def _same_size_note_edit(project: Path) -> None:
    """A note edited to the same size and its file given back its times (`touch -r`, `cp -p`, an unpacked archive)."""
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    before = os.stat(sources)
    text = sources.read_text(encoding="utf-8")
    assert "Second line of the note." in text
    sources.write_text(text.replace("Second line of the note.", "Second line of the NOTE."), encoding="utf-8")
    os.utime(sources, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(sources)
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)


@pytest.mark.slow
def test_nothing_changed_sees_a_note_edited_to_the_same_size_and_time(tmp_path, monkeypatch):
    """`corpus-build build` after a note edit that kept the file's size and modification time:
    the change time shows the edit, so the build runs and the page says what the note says."""
    from corpus_build.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "edited")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    _same_size_note_edit(project)
    assert main(["--project", str(project), "build", "--strict"]) == 0
    assert "Second line of the NOTE." in (project / "site" / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")
    clean = _clean_project(project, tmp_path / "clean")
    assert main(["--project", str(clean), "build", "--strict"]) == 0
    _assert_same_site(project / "site", clean / "site", "a note edited to the same size and time")


@pytest.mark.slow
def test_nothing_changed_sees_a_note_edited_within_the_tick_of_the_last_build(tmp_path, monkeypatch, coarse_times):
    """The same on a coarse file system, without touching the times: the edit lands in the tick the
    last build stated the file in, so its stat is the one recorded; its bytes tell."""
    from corpus_build.cli import main

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "edited")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line of the NOTE."), encoding="utf-8")
    # As a new process finds it: no registry read kept in memory (that cache knows files by their stat too).
    monkeypatch.setattr(registry_reader, "_SECTIONS", {})
    assert main(["--project", str(project), "build", "--strict"]) == 0
    assert "Second line of the NOTE." in (project / "site" / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_nothing_changed_check_never_opens_a_named_pipe_beside_the_inputs(tmp_path):
    """A named pipe made in corpus/ after a build (a tool's log pipe, `mkfifo`): its times are newer
    than the last build's clock, so the check took it for racily clean and opened it to hash its
    bytes, and open() waits for a writer: `corpus-build build` hung for ever. Only regular files'
    bytes are read; a pipe is known by its stat, as MkDocs never reads one in corpus/."""
    project = write_project(tmp_path / "piped")
    first = time.perf_counter()
    _cli_build(project)
    took = time.perf_counter() - first
    os.mkfifo(project / "corpus" / "notes.pipe")
    try:
        _cli_build(project, timeout=max(60.0, 10 * took))  # a ratio of the first build, with room for a busy machine
    except subprocess.TimeoutExpired:
        pytest.fail("`corpus-build build` hung on the pipe in corpus/")
