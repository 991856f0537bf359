"""`corpus-build build --engine`: MkDocs, ProperDocs without the mkdocs package, and Zensical.

The ProperDocs and Zensical environments are made once and cached (tests/engine_venvs.py);
when pip cannot make them, those tests skip and say why.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from corpus_build import site
from corpus_build.cli import main
from tests.corpus_fixture import PROJECT_ROOT, write_project
from tests.engine_venvs import engine_venv

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def properdocs_venv() -> Path:
    venv, why = engine_venv("properdocs")
    if venv is None:
        pytest.skip(why)
    return venv


@pytest.fixture(scope="session")
def zensical_venv() -> Path:
    venv, why = engine_venv("zensical")
    if venv is None:
        pytest.skip(why)
    return venv


def _run(venv: Path, *args: str, cwd: Path | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "corpus-build"), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _pages(site_dir: Path) -> dict[str, str]:
    """Every HTML page, without the generator tag (it names the engine)."""
    generator = re.compile(r'<meta name="generator"[^>]*>')
    return {str(p.relative_to(site_dir)): generator.sub("", p.read_text(encoding="utf-8")) for p in sorted(site_dir.rglob("*.html"))}


def test_the_command_line_imports_no_engine():
    code = "import sys, corpus_build.cli as c; c.make_parser(); sys.exit(any(m.split('.')[0] in ('mkdocs', 'properdocs', 'zensical', 'material') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT).returncode == 0


def test_the_default_engine_is_the_first_installed():
    installed = site.installed_engines()
    assert installed and installed[0] == "mkdocs"  # this environment has MkDocs
    assert site.pick_engine(None) == installed[0]


def test_an_engine_that_is_not_installed_is_a_clear_error(project, capsys):
    if "zensical" in site.installed_engines():
        pytest.skip("zensical is installed in this environment; the message is about a missing one")
    assert main(["--project", str(project), "build", "--engine", "zensical"]) == 1
    err = capsys.readouterr().err
    assert "the site engine 'zensical' is not installed" in err and "Traceback" not in err
    assert main(["--project", str(project), "build", "--engine", "hugo"]) == 2


def test_build_refuses_to_publish_a_site_without_the_generated_pages(project, capsys):
    # An engine that ignored the registry: mkdocs.yml without the corpus plugin and no rendered pages.
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("  - corpus ", "  # - corpus "), encoding="utf-8")
    (project / "docs" / "index.md").write_text("# Hand-written\n", encoding="utf-8")
    (project / "site").mkdir()
    (project / "site" / "previous.html").write_text("the last published site", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 1
    err = capsys.readouterr().err
    assert "lacks" in err and "generated pages" in err and "nothing was published" in err
    assert (project / "site" / "previous.html").read_text(encoding="utf-8") == "the last published site"
    assert not list(project.glob(".site.partial*"))


def test_properdocs_builds_the_same_site_without_the_mkdocs_package(properdocs_venv, tmp_path):
    reference = write_project(tmp_path / "mkdocs")
    assert main(["--project", str(reference), "build", "--strict", "--quiet"]) == 0
    project = write_project(tmp_path / "properdocs")
    result = _run(properdocs_venv, "--project", str(project), "build", "--strict", "--engine", "properdocs")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    built, expected = _pages(project / "site"), _pages(reference / "site")
    assert len(built) >= 15 and built.keys() == expected.keys()
    different = [page for page in built if built[page] != expected[page]]
    assert different == []
    index = json.loads((project / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert index == json.loads((reference / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))


def test_properdocs_passes_the_site_serve_and_browser_tests(properdocs_venv):
    """The site, live-preview (its fast path too), browser and shared-converter tests, run in the ProperDocs environment (no mkdocs there)."""
    # test_site's plain-`mkdocs` tests call the `mkdocs` executable by name; ProperDocs has
    # none (its `properdocs` executable is exercised by test_serve.py instead).
    deselect = ["tests/test_site.py::test_plain_mkdocs_build_regenerates_from_the_registry", "tests/test_site.py::test_mkdocs_serve_rebuilds_when_a_source_is_added"]
    print("deselected under ProperDocs (they run the `mkdocs` executable by name):", *deselect, sep="\n  ")
    command = [str(properdocs_venv / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_site.py", "tests/test_serve.py", "tests/test_preview.py", "tests/test_browser.py", "tests/test_mdshared.py"]
    command += [f"--deselect={test}" for test in deselect]
    result = subprocess.run(command, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=1500)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr[-2000:]
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert re.search(r"\d+ passed", summary) and "skipped" not in summary, summary


def test_zensical_builds_the_registry_with_what_the_plugin_supplies(zensical_venv, tmp_path):
    project = write_project(tmp_path)  # a fresh clone: nothing rendered yet
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical")
    assert result.returncode == 0, result.stderr + result.stdout
    built = project / "site"
    for page in ("index.html", "sources/deepgemm-ascend/index.html", "chapters/01/index.html", "digests/2026-10-22/index.html", "tags/index.html"):
        assert (built / page).is_file(), page
    home = (built / "index.html").read_text(encoding="utf-8")
    assert "<title>Fixture corpus</title>" in home or "Fixture corpus</title>" in home  # site name from corpus.yaml
    assert '<html lang="en"' in home  # the interface language from corpus.yaml
    nav = re.sub(r"\s+", " ", home)
    assert 'href="./sections/" class="md-nav__link' in nav and "Watch digests" in nav  # our navigation
    # navigation.prune: a section's pages are listed where the reader is, under that section
    sections = re.sub(r"\s+", " ", (built / "sections" / "index.html").read_text(encoding="utf-8"))
    assert re.search(r'href="(\./)?01-gpu/" class="md-nav__link"> <span class="md-ellipsis"> GPU hardware', sections), sections[:3000]
    chapters = re.sub(r"\s+", " ", (built / "chapters" / "index.html").read_text(encoding="utf-8"))
    assert "Chapter 1 · 硬件基础" in chapters
    generated = (project / "mkdocs.generated.yml").read_text(encoding="utf-8")
    assert "INHERIT: mkdocs.yml" in generated and "site_dir" not in generated  # no staging path left behind
    # The package's own stylesheet, scripts and feed links, with no docs/assets/ or overrides/ in the project.
    assert not (project / "overrides").exists()
    for asset in ("assets/corpus.css", "assets/sources.js", "assets/cite.js"):
        assert (built / asset).is_file() and asset in home, asset
    assert 'type="application/atom+xml"' in home
    # The build says what the reader does without (issue 23), instead of succeeding silently.
    assert "zensical runs no MkDocs plugins" in result.stderr and "Simplified/Traditional folding" in result.stderr
    # The loss the README lists: no jieba segmentation, so the glossary's terms are not indexed whole.
    index = json.loads((built / "search.json").read_text(encoding="utf-8"))
    text = " ".join(item.get("text", "") for item in index["items"])
    assert "昇腾" in text and "\u200b" not in text


def test_plain_zensical_reads_the_generated_config_after_render(zensical_venv, tmp_path):
    project = write_project(tmp_path)
    assert main(["--project", str(project), "render", "--quiet"]) == 0
    result = subprocess.run([str(zensical_venv / "bin" / "zensical"), "build", "-f", "mkdocs.generated.yml"], cwd=project, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert (project / "site" / "sources" / "tilelang" / "index.html").is_file()


def test_readme_lists_what_each_engine_keeps_and_loses():
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index("## Site engines") :]
    for engine in site.ENGINES:
        assert f"`{engine}`" in block[:4000], engine
    assert "jieba" in block[:4000] and "glossary" in block[:4000]


def test_zensical_site_works_in_the_browser(zensical_venv, tmp_path):
    """Zensical's own search interface (its selectors differ from Material's) and our pages."""
    import os
    import shutil
    import time

    from tests.site_helpers import serve

    chromium = os.environ.get("CORPUS_BUILD_CHROMIUM", "/usr/bin/chromium")
    if not shutil.which(chromium):
        pytest.skip(f"no Chromium at {chromium} (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    project = write_project(tmp_path)
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical")
    assert result.returncode == 0, result.stderr
    with serve(project / "site") as base, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"])
        try:
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("request", lambda r: not r.url.startswith((base, "data:", "blob:", "about:")) and problems.append(r.url))

            def search(term: str) -> list[str]:
                page.goto(base)
                page.keyboard.press("/")  # Zensical opens its search dialog on "/"
                box = page.locator("input[aria-controls$='-results']").first
                box.fill(term)
                box.press("End")
                results = page.locator(f"[id='{box.get_attribute('aria-controls')}'] a")
                deadline = time.monotonic() + 15
                while results.count() == 0 and time.monotonic() < deadline:
                    time.sleep(0.2)
                return [a.get_attribute("href") or "" for a in results.all()]

            assert any("/sources/deepgemm-ascend/" in href for href in search("DeepGEMM"))
            assert search("昇腾")  # found, though character by character (the README lists this loss)
            page.goto(base + "chapters/01/")
            links = page.locator(".cb-reading-path ol > li > strong > a").all_inner_texts()
            assert links == ["CUDA C++ Programming Guide", "TileLang", "DeepGEMM-Ascend"]
            assert problems == []
        finally:
            browser.close()


def test_build_publishes_where_mkdocs_yml_says(project, capsys):
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("site_dir: site", "site_dir: public"), encoding="utf-8")
    assert main(["--project", str(project), "build", "--quiet"]) == 0
    assert (project / "public" / "sources" / "tilelang" / "index.html").is_file()
    assert not (project / "site").exists() and not (project / ".public.partial").exists()
    assert f"into {project / 'public'}" in capsys.readouterr().out


def test_zensical_alone_builds_the_site_and_says_the_offline_copy_needs_mkdocs(zensical_venv, tmp_path):
    """`offline: true` with only Zensical installed: the site is built, the zip is skipped with a warning, no traceback."""
    from tests.corpus_fixture import CORPUS_YAML

    project = write_project(tmp_path, {"corpus.yaml": CORPUS_YAML + "offline: true\n"})
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical")
    assert result.returncode == 0, result.stderr + result.stdout
    assert "Traceback" not in result.stderr and "offline copy" in result.stderr and "mkdocs-material" in result.stderr
    assert (project / "site" / "index.html").is_file() and not (project / "site" / "offline.zip").exists()
