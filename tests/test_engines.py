"""`corpus-build build --engine`: MkDocs, ProperDocs without the mkdocs package, and Zensical.

The ProperDocs and Zensical environments are made once and cached (tests/engine_venvs.py);
when pip cannot make them, those tests skip and say why.
"""

from __future__ import annotations

import contextlib
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


def _run(venv: Path, *args: str, cwd: Path | None = None, timeout: int = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "corpus-build"), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


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
    (project / "site" / ".corpus-build-site").write_text("built by corpus-build\n", encoding="utf-8")  # a site it may replace
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
    # The build says what the reader does without (issue 23), instead of succeeding silently:
    # what Zensical's search cannot weigh, not what build now does after it (site/zensical.py).
    assert "zensical runs no MkDocs plugins" in result.stderr and "search ranking" in result.stderr
    assert "Simplified/Traditional" not in result.stderr and "allow-list" not in result.stderr
    # Search tuned after Zensical: Chinese cut by jieba with the glossary, one item per source.
    index = json.loads((built / "search.json").read_text(encoding="utf-8"))
    text = " ".join(item.get("text", "") for item in index["items"])
    assert "\u200b昇腾\u200b" in text
    locations = [item["location"] for item in index["items"]]
    assert locations.count("sources/deepgemm-ascend/") == 1 and not [loc for loc in locations if loc.startswith("sources/deepgemm-ascend/#")]
    # No site_url: the 404 page finds the site's root itself, as after a MkDocs build (site/hosting.py).
    not_found = (built / "404.html").read_text(encoding="utf-8")
    assert "<base href=" in not_found and 'href="/assets/' not in not_found


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


def _zensical_search(page, base: str, term: str, *, wait: float = 15) -> list[str]:
    """Type `term` into Zensical's own search dialog (its selectors differ from Material's); the results' links."""
    import time

    page.goto(base)
    page.keyboard.press("/")  # Zensical opens its search dialog on "/"
    box = page.locator("input[aria-controls$='-results']").first
    box.fill(term)
    box.press("End")
    results = page.locator(f"[id='{box.get_attribute('aria-controls')}'] a")
    deadline = time.monotonic() + wait
    while results.count() == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    return [a.get_attribute("href") or "" for a in results.all()]


def _result_pages(hrefs: list[str], base: str) -> list[str]:
    """Each result as its page and anchor, without the `?h=` highlight Zensical adds."""
    return [re.sub(r"\?h=[^#]*", "", href.removeprefix(base)) for href in hrefs]


@contextlib.contextmanager
def _zensical_page(site_dir: Path):
    """A Chromium page on the served site, with every console error, page error and outside request collected."""
    from tests.site_helpers import chromium, playwright_or_skip, serve

    sync_api = playwright_or_skip()
    with serve(site_dir) as base, chromium(sync_api) as browser:
        page = browser.new_page()
        problems: list[str] = []
        page.on("console", lambda m: m.type == "error" and problems.append(m.text))
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: not r.url.startswith((base, "data:", "blob:", "about:")) and problems.append(r.url))
        yield page, base, problems


def test_zensical_site_works_in_the_browser(zensical_venv, tmp_path):
    """Zensical's own search interface and our pages."""
    project = write_project(tmp_path)
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical")
    assert result.returncode == 0, result.stderr
    with _zensical_page(project / "site") as (page, base, problems):
        assert any("/sources/deepgemm-ascend/" in href for href in _zensical_search(page, base, "DeepGEMM"))
        assert "sources/deepgemm-ascend/" in _result_pages(_zensical_search(page, base, "昇腾"), base)  # a word jieba cut out
        page.goto(base + "chapters/01/")
        links = page.locator(".cb-reading-path ol > li > strong > a").all_inner_texts()
        assert links == ["CUDA C++ Programming Guide", "TileLang", "DeepGEMM-Ascend"]
        assert problems == []


# A source whose annotation has a glossary term inside a longer run of Han characters.
PREFILL_SOURCE = """- id: chunked-prefill
  title: 分块预填充的调度
  url: https://example.org/prefill
  kind: article
  lang: zh
  note: 支持分块预填充的推理引擎。
"""
# A Markdown extension standing in for a page builder that forgot to escape: raw markup
# at the top of every page, before anything the builders wrote.
INJECT_EXTENSION = '''
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

HOSTILE = ["<script>window.injected = true</script>", "", '<p id="cb-injected" onclick="window.clicked = true">injected</p>', ""]


class _Inject(Preprocessor):
    def run(self, lines):
        return HOSTILE + lines


class InjectExtension(Extension):
    def extendMarkdown(self, md):
        md.preprocessors.register(_Inject(md), "inject_markup", 0)


def makeExtension(**kwargs):
    return InjectExtension(**kwargs)
'''


def test_zensical_search_finds_chinese_terms_in_both_scripts_once_per_source_and_pages_are_cleaned(zensical_venv, tmp_path):
    """Issue 23: after a Zensical build, 预填充 finds its source, so does 預填充, a source is one result,
    and markup the allow-list removes is gone from the pages (the theme's own scripts still run)."""
    import os

    from tests.corpus_fixture import CORPUS_YAML, SOURCES_ASCEND

    corpus_yaml = CORPUS_YAML.replace("glossary: [昇腾, 算子]", "glossary: [昇腾, 算子, 预填充]")
    project = write_project(tmp_path, {"corpus.yaml": corpus_yaml, "02-ascend/sources.yaml": SOURCES_ASCEND + PREFILL_SOURCE})
    (project / "inject_markup.py").write_text(INJECT_EXTENSION, encoding="utf-8")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("markdown_extensions:\n", "markdown_extensions:\n  - inject_markup\n", 1), encoding="utf-8")
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical", env={**os.environ, "PYTHONPATH": str(project)})
    assert result.returncode == 0, result.stderr + result.stdout
    built = project / "site" / "sources" / "chunked-prefill" / "index.html"
    assert 'id="cb-injected"' in built.read_text(encoding="utf-8")  # the extension ran
    with _zensical_page(project / "site") as (page, base, problems):
        # The glossary term inside 支持分块预填充的推理引擎 (the interface is English: no segmentation by Zensical).
        assert _result_pages(_zensical_search(page, base, "预填充"), base) == ["sources/chunked-prefill/"]
        # Traditional spellings find the Simplified text, and the words that found it are not shown.
        hrefs = _zensical_search(page, base, "預填充")
        assert _result_pages(hrefs, base) == ["sources/chunked-prefill/"]
        shown = page.locator("[id$='-results'] a").first.inner_text()
        assert "预填充" in shown.replace("\u200b", "") and "預填充" not in shown and "example" not in shown
        # One result per source: not its headings, not its copy on the section page.
        assert _result_pages(_zensical_search(page, base, "分块"), base) == ["sources/chunked-prefill/"]
        # The injected script did not run and the handler is gone; the theme's own scripts did run.
        page.goto(base + "sources/chunked-prefill/")
        assert page.locator("#cb-injected").inner_text() == "injected"
        assert page.evaluate("window.injected") is None and page.locator("#cb-injected").get_attribute("onclick") is None
        page.locator("#cb-injected").click()
        assert page.evaluate("window.clicked") is None
        assert page.locator("[data-md-component='header']").count() == 1 and page.evaluate("typeof __md_scope") != "undefined"
        assert problems == []
    for html_file in (project / "site").rglob("*.html"):
        text = html_file.read_text(encoding="utf-8")
        if "cb-injected" in text:
            assert "window.injected" not in text and "onclick" not in text, html_file


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


def test_zensical_gets_the_site_address_for_its_sitemap_and_canonical_links(zensical_venv, tmp_path):
    """The plugin takes the address from CORPUS_BUILD_SITE_URL or corpus.yaml; the generated config must pass it on."""
    import os

    project = write_project(tmp_path)
    env = {**os.environ, "CORPUS_BUILD_SITE_URL": "https://reader.example.org/corpus/"}
    result = _run(zensical_venv, "--project", str(project), "build", "--engine", "zensical", env=env)
    assert result.returncode == 0, result.stderr + result.stdout
    sitemap = (project / "site" / "sitemap.xml").read_text(encoding="utf-8")
    assert "https://reader.example.org/corpus/sources/deepgemm-ascend/" in sitemap
    page = (project / "site" / "sources" / "deepgemm-ascend" / "index.html").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://reader.example.org/corpus/sources/deepgemm-ascend/"' in page
