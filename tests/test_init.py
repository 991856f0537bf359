"""`corpus-build init`, and a new project built from the installed wheel alone (issue 23).

The end-to-end test does what a new user does: builds the wheel, installs it (not editable)
with the `fetch` extra into a new venv, runs `corpus-build init`, `add` for a page served on
127.0.0.1 and `build`, then opens the site in Chromium: the stylesheet applies, "All sources"
filters, search answers, the cite box and the exports are there, and nothing is requested
from outside the site. No file of this repository is copied into the project.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from corpus_build.cli import main
from corpus_build.init import SCAFFOLD, Project, files, requirements
from tests.site_helpers import chromium, playwright_or_skip, serve

ROOT = Path(__file__).resolve().parents[1]


def test_the_scaffold_carries_this_repository_s_own_mkdocs_yml_and_workflows():
    """One source of truth: the scaffold must not drift from the configuration this repository is tested with."""
    mine = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    theirs = (SCAFFOLD / "mkdocs.yml").read_text(encoding="utf-8")

    def without_names(text: str) -> str:
        return re.sub(r"^(site_name|site_description): .*\n|^# Every page's <meta name=\"description\">.*\n", "", text, flags=re.M)

    assert without_names(theirs) == without_names(mine)
    assert (SCAFFOLD / "corpus" / "gitignore").read_text(encoding="utf-8") == (ROOT / "corpus" / ".gitignore").read_text(encoding="utf-8")
    for workflow in (ROOT / ".github" / "workflows").glob("*.yml"):
        assert (SCAFFOLD / "workflows" / workflow.name).read_text(encoding="utf-8") == workflow.read_text(encoding="utf-8"), workflow.name


def test_init_writes_a_project_that_checks_and_builds(tmp_path, capsys):
    target = tmp_path / "mysite"
    assert main(["init", str(target), "--title", "我的「语料」: notes", "--lang", "zh"]) == 0
    written = {str(p.relative_to(target)) for p in target.rglob("*") if p.is_file()}
    assert written == set(files(Project(title="x")))
    assert {"corpus/corpus.yaml", "mkdocs.yml", ".gitignore", ".github/workflows/daily.yml", ".github/workflows/pages.yml"} <= written
    assert main(["--project", str(target), "check"]) == 0
    assert "0 warning" in capsys.readouterr().out
    assert main(["--project", str(target), "build"]) == 0
    home = (target / "site" / "index.html").read_text(encoding="utf-8")
    assert "我的「语料」: notes" in home
    for asset in ("assets/corpus.css", "assets/sources.js", "assets/cite.js"):
        assert (target / "site" / asset).is_file() and asset in home


def test_init_never_overwrites(tmp_path, capsys):
    target = tmp_path / "mysite"
    (target / "corpus").mkdir(parents=True)
    (target / "corpus" / "corpus.yaml").write_text("title: mine\n", encoding="utf-8")
    assert main(["init", str(target)]) == 2
    err = capsys.readouterr().err
    assert "corpus/corpus.yaml" in err and "nothing was written" in err and "Traceback" not in err
    assert sorted(p.name for p in target.rglob("*")) == ["corpus", "corpus.yaml"]
    assert (target / "corpus" / "corpus.yaml").read_text(encoding="utf-8") == "title: mine\n"


def test_a_generated_gitignore_keeps_provenance_and_drops_mirrors(tmp_path):
    target = tmp_path / "mysite"
    assert main(["init", str(target), "-q"]) == 0
    raw = target / "corpus" / "01-example" / "raw" / "some-id"
    raw.mkdir(parents=True)
    (raw / "provenance.json").write_text("{}", encoding="utf-8")
    (raw / "paper.pdf").write_bytes(b"%PDF")
    (target / "site").mkdir()
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=target, capture_output=True, text=True, check=True).stdout.split()
    assert "corpus/01-example/raw/some-id/provenance.json" in listed
    assert "corpus/01-example/raw/some-id/paper.pdf" not in listed
    assert "docs/.gitkeep" in listed and not any(p.startswith("site/") for p in listed)


def _run_workflow_installs(project: Path, venv: Path, dist: Path) -> None:
    """Each workflow's install step, run as written in the new project (its pip offline, the wheel
    the test built as the only package source): a project made by init has no pyproject.toml, so
    `pip install .` failed there; requirements.txt names the corpus-build that made it."""
    requirements = (project / "requirements.txt").read_text(encoding="utf-8")
    assert "corpus-build[fetch]==" in requirements and "cannot reach" in requirements  # installed from a file: the user is told
    for name in ("pages.yml", "daily.yml"):
        steps = [step for job in yaml.safe_load((project / ".github" / "workflows" / name).read_text(encoding="utf-8"))["jobs"].values()
                 for step in job["steps"] if "pip install" in str(step.get("run", ""))]
        assert len(steps) == 1, name
        env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(dist),
               "CORPUS_BUILD_CLUSTER": ""}
        result = subprocess.run(["bash", "-e", "-c", steps[0]["run"]], cwd=project, env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, f"{name}: {result.stdout}{result.stderr}"


PAGE = """<!doctype html><html lang="en"><head><title>Tiled GEMM on a small GPU</title>
<meta name="citation_author" content="Ada Lovelace"></head>
<body><main><h1>Tiled GEMM on a small GPU</h1><p>How tiles map to warps.</p></main></body></html>"""


@pytest.mark.slow
@pytest.mark.browser
def test_a_project_made_from_the_installed_wheel_is_a_complete_site(tmp_path, monkeypatch):
    monkeypatch.delenv("CORPUS_BUILD_OFFLINE")  # `add` reads the page, as a user's would
    sync_api = playwright_or_skip(module=True)
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(ROOT)], check=True, timeout=600)
    wheel = next(dist.glob("corpus_build-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"{wheel}[fetch]"], check=True, timeout=1200)
    cli = str(venv / "bin" / "corpus-build")

    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "gemm.html").write_text(PAGE, encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str, cwd: Path) -> str:
        result = subprocess.run([cli, *args], cwd=cwd, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Traceback" not in result.stderr
        return result.stdout

    with serve(pages) as origin:
        run("init", "mysite", "--title", "我的阅读语料", cwd=work)
        project = work / "mysite"
        _run_workflow_installs(project, venv, dist)
        run("add", origin + "gemm.html", "--section", "01", "--note", "分块与 warp 的对应关系。", "--tags", "gemm", cwd=project)
    run("build", cwd=project)
    site = project / "site"
    assert not (project / "overrides").exists()

    with serve(site) as base, chromium(sync_api) as browser:
        page = browser.new_page()
        foreign: list[str] = []
        errors: list[str] = []
        page.on("request", lambda r: urlsplit(r.url).hostname not in (None, "127.0.0.1") and foreign.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(base + "sources/")
        page.wait_for_selector(".cb-filter-text", timeout=15_000)  # sources.js built the filter bar
        # the package's stylesheet is applied (not only linked)
        sheets = page.evaluate("() => [...document.styleSheets].map(s => s.href || '')")
        assert any(h.endswith("assets/corpus.css") for h in sheets), sheets
        page.locator(".cb-filter-text").fill("no such words anywhere")
        page.wait_for_function("() => document.querySelectorAll('table.cb-sources tbody tr:not([hidden])').length === 0", timeout=10_000)
        page.locator(".cb-filter-text").fill("GEMM")
        page.wait_for_function("() => document.querySelectorAll('table.cb-sources tbody tr:not([hidden])').length === 1", timeout=10_000)

        page.goto(base)
        box = page.locator("input.md-search__input")
        box.click()
        box.fill("GEMM")
        box.press("End")
        page.wait_for_selector(".md-search-result__item", timeout=15_000)
        assert "Tiled GEMM" in page.locator(".md-search-result").inner_text()

        page.goto(base + "sources/tiled-gemm-on-a-small-gpu/")
        cite = page.locator(".cb-cite")
        assert cite.count() == 1 and "Lovelace" in cite.inner_text()
        assert errors == [] and foreign == []
    for export in ("corpus.bib", "export/sections/01-example.bib"):
        assert "Lovelace" in (site / export).read_text(encoding="utf-8"), export


# --- issue 36: init writes only regular files inside its folder, and a time zone `check` accepts ---


def _one_line_refusal(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err


@pytest.mark.parametrize("link", ["mkdocs.yml", "corpus", ".github", "docs"])
@pytest.mark.parametrize("dangling", [False, True])
def test_init_never_writes_through_a_symbolic_link(tmp_path, capsys, link, dangling):
    target, outside = tmp_path / "p1", tmp_path / "outside"
    target.mkdir()
    if not dangling:
        outside.mkdir()
    (target / link).symlink_to(outside / "x" if link == "mkdocs.yml" else outside)
    assert main(["init", str(target)]) == 2
    err = _one_line_refusal(capsys)
    assert "symbolic link" in err and link in err and "nothing was written" in err
    assert sorted(p.name for p in target.iterdir()) == [link]  # nothing written beside the link either
    assert not outside.exists() if dangling else list(outside.iterdir()) == []


def test_init_writes_only_regular_files_and_folders(tmp_path):
    target = tmp_path / "mysite"
    assert main(["init", str(target), "-q"]) == 0
    for path in target.rglob("*"):
        assert not path.is_symlink() and (path.is_file() or path.is_dir()), path


@pytest.mark.parametrize(("zone", "expected"), [
    ("Mars/Olympus", "not a zone of the tz database"),
    ("Asia/Shanghia", "did you mean Asia/Shanghai?"),
    ("asia/shanghai", "did you mean Asia/Shanghai?"),
    ("+99:00", "not an offset from -12:00 to +14:00"),
    ("-13:00", "not an offset from -12:00 to +14:00"),
    ("+08:60", "not an offset from -12:00 to +14:00"),
    ("+08:00\n", "without spaces or control characters"),
    ("+08:00\nfetch: {jobs: 0}", "without spaces or control characters"),
    ('Asia/Shanghai"', "not a zone of the tz database"),
    ("", "without spaces"),
])
def test_init_refuses_a_time_zone_check_would_refuse(tmp_path, capsys, zone, expected):
    target = tmp_path / "p1"
    assert main(["init", str(target), f"--timezone={zone}"]) == 2
    err = _one_line_refusal(capsys)
    assert expected in err and "nothing was written" in err, err
    assert not target.exists()


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "-05:30", "+14:00", "-12:00", "UTC", "America/Argentina/Buenos_Aires"])
def test_every_time_zone_init_accepts_passes_check(tmp_path, capsys, zone):
    target = tmp_path / "p1"
    assert main(["init", str(target), "-q", f"--timezone={zone}"]) == 0
    assert main(["--project", str(target), "check"]) == 0, capsys.readouterr()


def test_corpus_yaml_gets_the_same_time_zone_check(tmp_path, capsys):
    target = tmp_path / "p1"
    assert main(["init", str(target), "-q"]) == 0
    config = target / "corpus" / "corpus.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace('timezone: "+08:00"', 'timezone: "Asia/Shanghia"'), encoding="utf-8")
    assert main(["--project", str(target), "check"]) != 0
    out = capsys.readouterr()
    assert "corpus.yaml:" in out.out + out.err and "did you mean Asia/Shanghai?" in out.out + out.err


@pytest.mark.parametrize(("origin", "line"), [
    (None, "corpus-build[fetch]==9.8.7"),  # from a package index
    ({"url": "https://github.com/u/corpus-build.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}},
     "corpus-build[fetch] @ git+https://github.com/u/corpus-build.git@abc123"),
    ({"url": "https://example.org/corpus_build-9.8.7-py3-none-any.whl", "archive_info": {}},
     "corpus-build[fetch] @ https://example.org/corpus_build-9.8.7-py3-none-any.whl"),
    ({"url": "file:///home/u/corpus-build", "dir_info": {"editable": True}}, "corpus-build[fetch]==9.8.7"),
])
def test_requirements_name_the_corpus_build_that_ran_init_as_a_ci_machine_can_fetch_it(tmp_path, monkeypatch, origin, line):
    info = tmp_path / "corpus_build-9.8.7.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: corpus-build\nVersion: 9.8.7\n", encoding="utf-8")
    if origin is not None:
        (info / "direct_url.json").write_text(json.dumps(origin), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    text = requirements()
    assert text.splitlines()[-1] == line
    assert ("cannot reach" in text) == (origin is not None and origin["url"].startswith("file:"))


def test_a_generated_gitignore_drops_the_lock_and_temporary_files_a_run_leaves(tmp_path):
    """What a run keeps only while it runs (its locks, the pending pins) and what a killed one
    leaves (write_atomic's `.<name>.<pid>.<thread>.tmp`, beside sources.yaml, a record or
    corpus.lock) must not be committed by the daily workflow's `git add`; the records stay trackable."""
    target = tmp_path / "mysite"
    assert main(["init", str(target), "-q"]) == 0
    corpus = target / "corpus"
    raw = corpus / "01-example" / "raw"
    (raw / "some-id").mkdir(parents=True)
    (raw / ".failed").mkdir()
    kept = [corpus / "corpus.lock", raw / "some-id" / "provenance.json", raw / ".failed" / "other.json"]
    dropped = [corpus / ".fetch.lock", corpus / ".registry.lock", corpus / ".corpus.lock.pending", corpus / ".corpus.lock.812.1402.tmp",
               corpus / "01-example" / ".sources.yaml.812.1402.tmp", raw / "some-id" / ".provenance.json.812.1402.tmp",
               raw / ".failed" / ".other.json.812.1402.tmp"]
    for path in kept + dropped:
        path.write_text("{}", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    listed = set(subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=target, capture_output=True, text=True, check=True).stdout.split())
    assert {str(p.relative_to(target)) for p in kept} <= listed
    assert not {str(p.relative_to(target)) for p in dropped} & listed, sorted(listed)
