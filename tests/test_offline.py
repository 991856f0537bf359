"""The offline copy: `offline: true` makes `build` write site/offline.zip, which works opened from file://."""

from __future__ import annotations

import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from corpus_build.cli import main
from tests.corpus_fixture import write_project
from tests.site_helpers import CHROMIUM, playwright_or_skip

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("offline")
    project = write_project(root)
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    return project


def test_zip_is_published_and_linked_from_the_home_page(built):
    site = built / "site"
    archive = site / "offline.zip"
    assert archive.is_file()
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="cb-offline"' in home and 'href="offline.zip"' in home
    with zipfile.ZipFile(archive) as zf:
        names = set(zf.namelist())
        assert "site/index.html" in names and "site/search/search_index.js" in names
        assert "site/sources/tilelang.html" in names  # page.html URLs: file:// shows no folder index
        assert not any(n.endswith(".zip") for n in names)
        page = zf.read("site/sources/tilelang.html").decode("utf-8")
        assert "corpus-offline-worker.js" in page and "unpkg.com" not in page  # no CDN polyfill
    assert not (built / ".corpus-build-offline.yml").exists()  # the temporary config is gone


@pytest.mark.browser
def test_copy_home_page_links_only_files_in_the_copy(built, tmp_path):
    """The hosted home page links offline.zip; inside the zip there is no such file, so no such link."""
    sync_api = playwright_or_skip()
    with zipfile.ZipFile(built / "site" / "offline.zip") as zf:
        zf.extractall(tmp_path)
    home = tmp_path / "site" / "index.html"
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            # Read as published: without script (which could hide a link but not remove it from the copy).
            page = browser.new_context(java_script_enabled=False).new_page()
            page.goto(home.as_uri())
            hrefs = page.evaluate("() => [...document.querySelectorAll('.md-content a[href]')].map(a => a.href)")
            local = [h for h in hrefs if urlsplit(h).scheme == "file"]
            assert local, hrefs
            missing = [h for h in local if not Path(urlsplit(h).path).exists()]
            assert missing == [] and not any(h.endswith(".zip") for h in hrefs), missing
        finally:
            browser.close()


def test_copy_links_the_hosted_zip_when_the_site_address_is_known(tmp_path):
    project = write_project(tmp_path)
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\nsite_url: https://user.github.io/repo/\n", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        inside = zf.read("site/index.html").decode("utf-8")
    assert 'href="https://user.github.io/repo/offline.zip"' in inside and 'href="offline.zip"' not in inside
    assert 'href="offline.zip"' in (project / "site" / "index.html").read_text(encoding="utf-8")  # the hosted page: beside it


def test_plain_site_has_no_link_without_the_setting(tmp_path):
    project = write_project(tmp_path)
    assert main(["--project", str(project), "build"]) == 0
    assert not (project / "site" / "offline.zip").exists()
    assert "cb-offline" not in (project / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.browser
def test_unzipped_copy_searches_from_file_url(built, tmp_path):
    sync_api = playwright_or_skip()
    with zipfile.ZipFile(built / "site" / "offline.zip") as zf:
        zf.extractall(tmp_path)
    index = (tmp_path / "site" / "index.html").as_uri()
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            page = browser.new_page()
            errors, foreign = [], []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: m.type == "error" and errors.append(m.text))
            page.on("request", lambda r: urlsplit(r.url).scheme not in ("file", "data", "blob", "about") and foreign.append(r.url))
            page.goto(index)
            assert page.locator(".cb-offline").count() == 0  # no download link inside the copy
            for term, expected in (("TileLang", "sources/tilelang.html"), ("昇腾", "deepgemm-ascend")):
                box = page.locator("input.md-search__input")
                box.click()
                box.fill(term)
                box.press("End")  # Material searches on keyup
                page.wait_for_selector(".md-search-result__item", timeout=15_000)
                hrefs = [a.get_attribute("href") for a in page.locator(".md-search-result__item a").all()]
                assert any(expected in (h or "") for h in hrefs), (term, hrefs)
                page.goto(index)
            # A result leads to a page that opens from the file system.
            box = page.locator("input.md-search__input")
            box.click()
            box.fill("TileLang")
            box.press("End")
            page.wait_for_selector(".md-search-result__item", timeout=15_000)
            page.locator(".md-search-result__item a").first.click()
            page.wait_for_load_state()
            assert urlsplit(page.url).scheme == "file" and urlsplit(page.url).path.endswith("/sources/tilelang.html")
            assert page.locator("h1").first.inner_text().rstrip("¶").strip() == "TileLang"
            assert errors == [] and foreign == []
        finally:
            browser.close()


def test_a_rebuild_deflates_only_what_changed_and_the_zip_equals_a_fresh_one(tmp_path, monkeypatch):
    """The last zip's entries with the same bytes are copied, deflated as they were (site/offlinezip.py)."""
    import shutil

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")  # the sitemap's dates: the same for every build
    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    deflated: list[str] = []
    real = zipfile.ZipFile.writestr

    def counting(self, entry, data, *args, **kwargs):
        deflated.append(entry.filename if isinstance(entry, zipfile.ZipInfo) else entry)
        return real(self, entry, data, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "writestr", counting)
    from corpus_build.site import offlinezip

    compared: list[str] = []  # files read and compared with the last zip's entry (the others are the files it was made from)
    real_deflated = offlinezip._Last.deflated

    def comparing(self, name, data):
        compared.append(name)
        return real_deflated(self, name, data)

    monkeypatch.setattr(offlinezip._Last, "deflated", comparing)
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line, edited: zebraword."), encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        names = zf.namelist()
        assert "zebraword" in zf.read("site/sources/tilelang.html").decode("utf-8")
    assert 0 < len(deflated) < len(names) / 4, (len(deflated), len(names))
    assert len(compared) < len(names) / 4, (len(compared), len(names))
    assert "site/sources/tilelang.html" in deflated

    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    assert main(["--project", str(fresh), "build"]) == 0
    assert (fresh / "site" / "offline.zip").read_bytes() == (project / "site" / "offline.zip").read_bytes()

    # A zip another zlib or Python wrote is not copied from: compressed anew, it is the same zip.
    (project / ".corpus-build" / ".offline.zip.made-by.json").write_text('{"zlib": "0.0"}', encoding="utf-8")
    deflated.clear()
    sources.write_text(sources.read_text(encoding="utf-8").replace("zebraword", "zebraword again"), encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    assert len(deflated) == len(names)


def _archived_mirror(project: Path, source_id: str) -> None:
    """An HTML mirror as fetch leaves it (text.md, page.html, provenance with their sha256): its page links its archive."""
    import hashlib

    from corpus_build import registry
    from corpus_build.core.provenance import OutputFile, Provenance, Status, write_provenance

    corpus = registry.load(project / "corpus")
    raw = corpus.raw_dir(corpus.by_id[source_id])
    raw.mkdir(parents=True, exist_ok=True)
    files = []
    for name, text in (("text.md", "## Part one\n\nWhat the page said.\n"), ("page.html", "<html><body><p>What the page said.</p></body></html>")):
        (raw / name).write_text(text, encoding="utf-8")
        blob = text.encode("utf-8")
        files.append(OutputFile(name, len(blob), hashlib.sha256(blob).hexdigest()))
    when = "2026-12-01T08:05:28Z"
    write_provenance(raw, Provenance(id=source_id, kind="docs", cited_url="https://example.org/a", fetched_url="https://example.org/a", status=Status.OK,
                                     fetched_at=when, checked_at=when, http_status=200, files=tuple(files), sha256=files[1].sha256,
                                     bytes=sum(f.bytes for f in files), text_file="text.md", body_file="page.html", content_type="text/html"))


def test_the_copy_takes_the_site_pages_and_moves_their_links(tmp_path, monkeypatch):
    """With `offline: true` the copy's build lays out no page the site's build laid out (site/relink.py moves
    their raw HTML links), and its zip is byte for byte the zip of a copy that renders its own pages, after an edit too."""
    import shutil

    from corpus_build.render import pages as render_pages
    from corpus_build.site import offline

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    _archived_mirror(project, "tilelang")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        page = zf.read("site/sources/tilelang.html").decode("utf-8")
        assert 'href="tilelang/archive/page.html"' in page and 'src="tilelang/archive/page.html"' in page  # from sources/tilelang.html
        tag = zf.read("site/tags/tilelang.html").decode("utf-8")
        assert 'href="../sources/tilelang.html"' in tag
    assert 'href="archive/page.html"' in (project / "site" / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")

    laid_out: list[str] = []
    real = render_pages.render

    def counting(template, **kwargs):
        laid_out.append(template)
        return real(template, **kwargs)

    monkeypatch.setattr(render_pages, "render", counting)
    from mkdocs.commands import build as mkdocs_build

    built: list[str] = []  # pages whose template was run, in either build (the others are linked: site/pageskip.py)
    real_build_page = mkdocs_build._build_page

    def building(page, *args, **kwargs):
        built.append(page.file.src_uri)
        return real_build_page(page, *args, **kwargs)

    monkeypatch.setattr(mkdocs_build, "_build_page", building)
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line, edited: zebraword."), encoding="utf-8")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    # The edited source's page, once for both builds; no tag page (their rows are raw HTML links).
    assert laid_out.count("source.md.j2") == 1 and "tag.md.j2" not in laid_out, sorted(laid_out)
    # The copy's unchanged pages are linked from the last copy (kept beside the zip), as the site's are.
    assert built.count("sources/tilelang.md") == 2 and len(built) <= 10, sorted(built)
    monkeypatch.setattr(mkdocs_build, "_build_page", real_build_page)
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        assert "zebraword" in zf.read("site/sources/tilelang.html").decode("utf-8")
    monkeypatch.setattr(render_pages, "render", real)

    # The same project, built fresh, its copy rendering its own pages for page.html URLs (as before relink.py).
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    monkeypatch.setattr(offline, "_site_directory_urls", lambda project: None)
    assert main(["--project", str(fresh), "build", "--strict"]) == 0
    with zipfile.ZipFile(fresh / "site" / "offline.zip") as theirs, zipfile.ZipFile(project / "site" / "offline.zip") as ours:
        assert theirs.namelist() == ours.namelist()
        differ = [n for n in ours.namelist() if ours.read(n) != theirs.read(n)]
        assert not differ, differ[:5]


def test_a_build_killed_as_the_copy_is_swapped_in_leaves_the_last_copy_and_the_next_build_whole(tmp_path):
    """The copy kept beside the zip (.corpus-build/offline-site) is swapped in whole: killed just before, the last
    copy stays, and the next build (which links from it what its record still names) gives a fresh build's zip."""
    import os
    import shutil
    import signal
    import subprocess
    import sys

    from corpus_build.core import failpoints

    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1793000000"}
    env.pop(failpoints.VARIABLE, None)
    command = [sys.executable, "-m", "corpus_build", "--project", str(project), "--quiet", "build"]
    assert subprocess.run(command, env=env, capture_output=True, timeout=600).returncode == 0
    kept = project / ".corpus-build" / "offline-site"
    before = {p.relative_to(kept): p.read_bytes() for p in kept.rglob("*") if p.is_file()}
    assert Path("sources/tilelang.html") in before

    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line, edited: zebraword."), encoding="utf-8")
    # The copy's swap comes first (the site's comes after the zip is in it): this kill is the copy's.
    killed = subprocess.run(command, env={**env, failpoints.VARIABLE: "swap:before"}, capture_output=True, timeout=600)
    assert killed.returncode == -signal.SIGKILL
    assert {p.relative_to(kept): p.read_bytes() for p in kept.rglob("*") if p.is_file()} == before
    assert (project / ".corpus-build" / ".offline-site.partial").is_dir()  # for the next build to remove

    assert subprocess.run(command, env=env, capture_output=True, timeout=600).returncode == 0
    assert not (project / ".corpus-build" / ".offline-site.partial").exists()
    assert "zebraword" in (kept / "sources" / "tilelang.html").read_text(encoding="utf-8")
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    assert subprocess.run([*command[:3], "--project", str(fresh), "--quiet", "build"], env=env, capture_output=True, timeout=600).returncode == 0
    assert (fresh / "site" / "offline.zip").read_bytes() == (project / "site" / "offline.zip").read_bytes()


def test_clean_removes_what_the_next_offline_copy_would_reuse(tmp_path, capsys):
    """`corpus-build clean` says the next build is a full one: the offline copy's last site (linked
    from by the next copy) and the zip's record go with the cache; the site and the registry stay."""
    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    assert main(["--project", str(project), "build"]) == 0
    kept = project / ".corpus-build" / "offline-site"
    record = project / ".corpus-build" / ".offline.zip.made-by.json"
    assert kept.is_dir() and record.is_file()
    capsys.readouterr()
    assert main(["--project", str(project), "clean"]) == 0
    assert "removed the build cache" in capsys.readouterr().out
    assert not kept.exists() and not record.exists()
    assert (project / "site" / "offline.zip").is_file() and (project / "corpus" / "corpus.yaml").is_file()
    assert main(["--project", str(project), "build"]) == 0
    assert (kept / "index.html").is_file()


def _visible_text(html: str) -> str:
    """The page's article as a reader sees it: its text, no tags or attributes."""
    from html.parser import HTMLParser

    class Text(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.depth, self.parts = 0, []

        def handle_starttag(self, tag, attrs):
            if tag == "article" or self.depth:
                self.depth += 1

        def handle_endtag(self, tag):
            if self.depth:
                self.depth -= 1

        def handle_data(self, data):
            if self.depth:
                self.parts.append(data)

    parser = Text()
    parser.feed(html)
    assert parser.parts, "no article on the page"
    return "".join(parser.parts)


QUOTED_NOTE = '''  note: |-
    The main repository.
    Second line of the note.
    A link written as `<a href="../cuda-guide/">the guide</a>` in a code span, and one outside: <a href="../cuda-guide/">guide</a>.

    ```html
    <img src="../../tags/cuda/"> <a class="x" href="../../tags/">tags</a>
    ```
'''


def test_a_note_quoting_html_links_reads_the_same_in_the_copy(tmp_path, monkeypatch):
    """A note may quote HTML (a code span, a code block, or plain text, which render escapes): that is
    text the reader sees, and the copy moves only the links of real elements (site/relink.py), never
    the letters of a quotation. (Real elements' links moving: the test above.)"""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    text = sources.read_text(encoding="utf-8")
    old = "  note: |-\n    The main repository.\n    Second line of the note.\n"
    assert old in text
    sources.write_text(text.replace(old, QUOTED_NOTE), encoding="utf-8")
    assert main(["--project", str(project), "build", "--strict"]) == 0
    hosted = (project / "site" / "sources" / "tilelang" / "index.html").read_text(encoding="utf-8")
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        copy = zf.read("site/sources/tilelang.html").decode("utf-8")
    assert 'the guide' in _visible_text(hosted) and "../../tags/cuda/" in _visible_text(hosted)
    assert _visible_text(copy) == _visible_text(hosted)
    # Outside code too a note's HTML is shown as text (render escapes it), never moved.
    assert 'outside: &lt;a href="../cuda-guide/"&gt;guide' in copy


def test_the_copy_converts_only_the_pages_the_site_render_cannot_give(tmp_path, monkeypatch):
    """The copy's pages are the site's with other link targets: a page the site's build converted is not
    converted again, its links moved instead (site/twinrender.py): Markdown links, raw HTML links and a
    mirror text page's blocks. The copy is byte for byte the copy of a build that converts every page
    (no build cache), and pages another plugin changes after ours (Material's tag listings) are converted."""
    import shutil

    import markdown

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "p")
    corpus_yaml = project / "corpus" / "corpus.yaml"
    corpus_yaml.write_text(corpus_yaml.read_text(encoding="utf-8") + "offline: true\n", encoding="utf-8")
    sources = project / "corpus" / "01-gpu" / "sources.yaml"
    sources.write_text(sources.read_text(encoding="utf-8").replace("Second line of the note.", "Second line: zebraword."),
                       encoding="utf-8")
    _archived_mirror(project, "tilelang")
    converted: list[str] = []
    real_convert = markdown.Markdown.convert

    def converting(self, source):
        converted.append(source)
        return real_convert(self, source)

    monkeypatch.setattr(markdown.Markdown, "convert", converting)
    assert main(["--project", str(project), "build", "--strict"]) == 0
    monkeypatch.setattr(markdown.Markdown, "convert", real_convert)
    # The pages showing the note (its source's page and its section's, with Markdown and raw HTML links):
    # each converted once, for the site (before: once more for the copy).
    assert sum("zebraword" in text for text in converted) == 2, [t[:80] for t in converted if "zebraword" in t]
    pages = sum(1 for _ in (project / "docs").rglob("*.md"))
    assert len([t for t in converted if "corpus-build" in t]) < 2 * pages  # the copy converted only a few pages
    with zipfile.ZipFile(project / "site" / "offline.zip") as zf:
        page = zf.read("site/sources/tilelang.html").decode("utf-8")
        assert "zebraword" in page and 'href="tilelang/archive/page.html"' in page
        assert 'deepgemm-ascend.html"' in page and 'deepgemm-ascend/"' not in page  # its see-also link, for page.html URLs

    # The same project built with no build cache: every page of both builds converted.
    fresh = tmp_path / "fresh"
    shutil.copytree(project, fresh, ignore=shutil.ignore_patterns("site", ".corpus-build", "docs"))
    config = fresh / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "\n  - corpus " in text
    config.write_text(text.replace("\n  - corpus ", "\n  - corpus:\n      build_cache: false\n    #", 1), encoding="utf-8")
    assert main(["--project", str(fresh), "build", "--strict"]) == 0
    with zipfile.ZipFile(fresh / "site" / "offline.zip") as theirs, zipfile.ZipFile(project / "site" / "offline.zip") as ours:
        assert theirs.namelist() == ours.namelist()
        differ = [n for n in ours.namelist() if ours.read(n) != theirs.read(n)]
        assert not differ, differ[:5]
