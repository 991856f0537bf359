"""Issue 36: a mirror is never replaced by a worse capture (fetch/keep.py).

A page is mirrored with its text; then the server changes it into something worse — a
JavaScript shell, a 1×1 PNG, an empty page, a stub with a tenth of the text — and it is
fetched again with --force. Each time the mirror keeps its text and bytes, the declined
capture is kept aside with its reason, `status` and the site say so, and only
`--accept-worse` lets the worse capture in. `attach` applies the same test.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from corpus_build.cli import main
from corpus_build.core.provenance import Status, mirror_state, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus
from corpus_build.fetch.keep import DECLINED_DIR
from corpus_build.fetch.lockfile import read_lock
from corpus_build.render import build_pages

from .server import Reply

PARAGRAPH = "Tile-level programming lets a kernel author describe the data movement between global and shared memory explicitly. "


def article(paragraphs: int = 120) -> str:
    body = "".join(f"<p>{PARAGRAPH} Paragraph {n}.</p>" for n in range(paragraphs))
    return f"<!DOCTYPE html><html lang='en'><head><title>Tile programming</title></head><body><main><h1>Tile programming</h1>{body}</main></body></html>"


SHELL = "<!DOCTYPE html><html><head><title>App</title></head><body><div id='root'></div><script src='/app.js'></script></body></html>"
PNG_1X1 = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000" "1f15c4890000000d49444154789c6360000000000500010d0a2db40000000049454e44ae426082")


@pytest.fixture
def mirrored(server, make_corpus, options):
    """A corpus whose one article is mirrored with ~15 KB of text; returns (corpus, raw folder, first record)."""
    server.add("/post", article())
    corpus = make_corpus([{"id": "post", "url": server.url("/post"), "kind": "article"}], fetch={"browser": "never", "recheck_after": 0})
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("post"))
    record = read_provenance(raw)
    assert (raw / record.text_file).stat().st_size > 10_000
    return corpus, raw, record


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (SHELL, "text/html; charset=utf-8", "no-text"),
        (PNG_1X1, "image/png", "other-type"),
        ("<html><body></body></html>", "text/html", "no-text"),
        (article(8), "text/html; charset=utf-8", "less-text"),
    ],
    ids=["javascript-shell", "png-where-the-page-was", "empty-page", "a-tenth-of-the-text"],
)
def test_a_worse_capture_never_replaces_the_mirror_even_with_force(mirrored, server, options, body, content_type, reason):
    corpus, raw, good = mirrored
    text_before = (raw / good.text_file).read_bytes()
    body_before = (raw / good.body_file).read_bytes()
    server.add("/post", body, content_type=content_type)
    [result] = fetch_corpus(corpus, replace(options, force=True))
    assert result.status is Status.KEPT and not result.ok
    assert "is kept" in result.error and "--accept-worse" in result.error
    # The mirror is exactly as it was.
    assert read_provenance(raw) == good
    assert (raw / good.text_file).read_bytes() == text_before and (raw / good.body_file).read_bytes() == body_before
    assert read_lock(corpus.root)["post"]["sha256"] == good.sha256
    # The attempt is recorded with its reason, and its files are kept for a look.
    failure = read_failure(raw)
    assert failure.status is Status.KEPT and failure.declined.reason == reason
    assert failure.declined.kept_fetched_at == good.fetched_at and failure.declined.kept_text_bytes == len(text_before)
    assert (raw.parent / failure.declined.folder / "provenance.json").is_file()
    assert failure.declined.folder == f"{DECLINED_DIR}/post"
    assert mirror_state(raw, 30)[0] == "kept"


def test_status_and_the_site_say_what_came_back_and_which_capture_is_shown(mirrored, server, options, capsys):
    corpus, raw, good = mirrored
    server.add("/post", PNG_1X1, content_type="image/png")
    fetch_corpus(corpus, replace(options, force=True))
    project = corpus.root.parent
    assert main(["--project", str(project), "status", "--json"]) == 0
    [row] = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert row["state"] == "kept" and "image/png" in row["error"]
    page = build_pages(corpus)["sources/post.md"]
    assert "older copy kept" in page and "returned a image/png file, not a page with text" in page
    assert "The copy of" in page and "Tile-level programming" in page  # the kept mirror is still what readers see


def test_accept_worse_lets_the_new_capture_in_and_forgets_the_declined_one(mirrored, server, options, capsys):
    corpus, raw, good = mirrored
    server.add("/post", SHELL)
    [kept] = fetch_corpus(corpus, replace(options, force=True))
    assert kept.status is Status.KEPT
    project = corpus.root.parent
    # The CLI: `fetch ID --accept-worse` fetches that source alone and accepts what comes back.
    assert main(["--project", str(project), "--quiet", "fetch", "--accept-worse", "post"]) == 1  # partial: a shell
    record = read_provenance(raw)
    assert record.status is Status.PARTIAL and record.sha256 != good.sha256
    assert read_failure(raw) is None and not (raw.parent / DECLINED_DIR / "post").exists()


def test_a_better_or_equal_capture_replaces_the_mirror_as_before(mirrored, server, options):
    corpus, raw, good = mirrored
    server.add("/post", article(200))
    [result] = fetch_corpus(corpus, replace(options, force=True))
    assert result.status is Status.OK
    assert read_provenance(raw).sha256 != good.sha256 and read_failure(raw) is None
    # Shorter, but more than half: an edit, not a loss.
    server.add("/post", article(110))
    [result] = fetch_corpus(corpus, replace(options, force=True))
    assert result.status is Status.OK


def test_after_a_declined_capture_the_page_coming_back_clears_the_record(mirrored, server, options):
    corpus, raw, good = mirrored
    server.add("/post", SHELL)
    fetch_corpus(corpus, replace(options, force=True))
    assert read_failure(raw).status is Status.KEPT
    server.add("/post", article(121))
    [result] = fetch_corpus(corpus, replace(options, force=True))
    assert result.status is Status.OK and read_failure(raw) is None
    assert not (raw.parent / DECLINED_DIR / "post").exists()


HOLLOW_PAGES = {
    "empty.html": "",
    "script-only.html": "<html><head><script>document.write('hi')</script></head><body><script src='x.js'></script></body></html>",
    "no-text.html": "<html><body>" + "<div></div>" * 10_000 + "</body></html>",
}


@pytest.mark.parametrize("name", sorted(HOLLOW_PAGES))
def test_attach_refuses_a_hollow_copy_over_a_good_mirror(mirrored, tmp_path, capsys, name):
    corpus, raw, good = mirrored
    copy = tmp_path / name
    copy.write_text(HOLLOW_PAGES[name], encoding="utf-8")
    project = corpus.root.parent
    assert main(["--project", str(project), "attach", "post", str(copy)]) == 1
    err = capsys.readouterr().err
    assert "holds no text" in err and "attach post FILE --accept-worse" in err and "Traceback" not in err
    assert read_provenance(raw) == good
    # Asked for explicitly, it is attached — as a partial copy, never a complete one.
    assert main(["--project", str(project), "attach", "post", str(copy), "--accept-worse"]) == 0
    record = read_provenance(raw)
    assert record.status is Status.PARTIAL and record.supplied is not None and "holds no text" in record.document.partial_reason


def test_attach_of_a_hollow_copy_where_nothing_was_mirrored_is_partial(make_corpus, tmp_path):
    corpus = make_corpus([{"id": "a", "url": "https://example.org/a", "kind": "article"}])
    copy = tmp_path / "empty.html"
    copy.write_text("<html><body><script>app()</script></body></html>", encoding="utf-8")
    assert main(["--project", str(corpus.root.parent), "attach", "a", str(copy)]) == 0
    record = read_provenance(corpus.raw_dir(corpus.source("a")))
    assert record.status is Status.PARTIAL and record.status is not Status.OK


def error_page(title: str, paragraphs: int = 90) -> str:
    """A site's "not found" page answered with status 200 (a soft 404): as much text as an article, none of it the work's."""
    body = "".join(f"<p>Sorry, we could not find what you were looking for. Try the search box, or browse the {n} most popular posts of this blog.</p>"
                   for n in range(paragraphs))
    return f"<!DOCTYPE html><html lang='en'><head><title>{title}</title></head><body><main><h1>{title}</h1>{body}</main></body></html>"


def front_page() -> str:
    """A blog's front page: the latest posts' teasers, more text than any one post."""
    teasers = "".join(f"<article><h2>Post {n}</h2><p>{PARAGRAPH} Read more about post {n}.</p></article>" for n in range(200))
    return f"<!DOCTYPE html><html lang='en'><head><title>The tile blog</title></head><body><main><h1>The tile blog</h1>{teasers}</main></body></html>"


@pytest.mark.parametrize(
    ("answer", "reason", "said"),
    [
        ("soft-404", "error-page", "looks like an error page (“Page not found”)"),
        ("soft-404-in-chinese", "error-page", "looks like an error page (“页面不存在”)"),
        ("redirect-to-another-hosts-404", "error-page", "looks like an error page (“404 Not Found”)"),
        ("redirect-to-the-front-page", "front-page", "was redirected to the site's front page"),
    ],
    ids=["soft-404", "soft-404-in-chinese", "redirect-to-another-hosts-404", "redirect-to-the-front-page"],
)
def test_an_error_page_or_the_front_page_answered_with_200_never_replaces_the_mirror(mirrored, server, options, answer, reason, said):
    corpus, raw, good = mirrored
    files = {name: (raw / name).read_bytes() for name in (good.text_file, good.body_file, good.warc_file, "provenance.json")}
    if answer == "soft-404":
        server.add("/post", error_page("Page not found"))
    elif answer == "soft-404-in-chinese":
        server.add("/post", error_page("页面不存在"))
    elif answer == "redirect-to-another-hosts-404":
        server.add("/errors/404.html", error_page("404 Not Found"))
        server.routes["/post"] = lambda request: Reply(302, b"", {"Location": server.url("/errors/404.html").replace("127.0.0.1", "localhost")})
    else:
        server.add("/", front_page())
        server.routes["/post"] = lambda request: Reply(301, b"", {"Location": "/"})
    [result] = fetch_corpus(corpus, replace(options, force=True))
    assert result.status is Status.KEPT, result.error
    assert said in result.error and "--accept-worse" in result.error
    assert read_failure(raw).declined.reason == reason
    assert {name: (raw / name).read_bytes() for name in files} == files
    assert read_lock(corpus.root)["post"]["sha256"] == good.sha256
    # The source's page tells the reader what came back, in their words, not the reason's code.
    page = build_pages(corpus)["sources/post.md"]
    assert "older copy kept" in page and reason not in page
    assert ("the site's error page" if reason == "error-page" else "was sent to the site's front page") in page


def _issue(title: str) -> str:
    return json.dumps({"number": 1, "title": title, "state": "open", "user": {"login": "alice"}, "created_at": "2026-01-02T03:04:05Z",
                       "body": "Importing the package fails on a fresh install of the Ascend toolkit. " * 10})


def test_a_page_whose_title_always_named_the_error_a_cited_front_page_and_a_retitled_issue_are_refreshed_as_before(server, make_corpus, options):
    server.add("/fix-404", article().replace("Tile programming", "Fixing 404 Not Found errors in nginx"))
    server.add("/", front_page())
    for path, answer in (("", _issue("Import fails on Ascend")), ("/comments", "[]"), ("/timeline", "[]")):
        server.add(f"/api/repos/o/r/issues/1{path}", answer, content_type="application/json")
    corpus = make_corpus([{"id": "fix", "url": server.url("/fix-404"), "kind": "article"}, {"id": "blog", "url": server.url("/"), "kind": "docs"},
                          {"id": "o-issue-1", "url": "https://github.com/o/r/issues/1", "kind": "issue"}],
                         fetch={"browser": "never", "recheck_after": 0})
    assert [r.status for r in fetch_corpus(corpus, options)] == [Status.OK] * 3
    server.add("/fix-404", article(130).replace("Tile programming", "Fixing 404 Not Found errors in nginx"))
    server.add("/", front_page().replace("Post 0", "A new post"))
    server.add("/api/repos/o/r/issues/1", _issue("Import fails on Ascend: module not found"), content_type="application/json")
    assert [r.status for r in fetch_corpus(corpus, replace(options, force=True))] == [Status.OK] * 3


@pytest.mark.parametrize("answer", ["javascript-shell", "empty-page", "soft-404"])
def test_a_fresh_clone_whose_mirror_lacks_its_uncommitted_files_still_keeps_its_text(mirrored, server, options, answer):
    """corpus/.gitignore leaves WARC captures, PDFs and images out of git: in a fresh clone every mirror
    lacks some file its record lists, and is fetched in full. Its committed text is still what a
    worse capture is judged against."""
    corpus, raw, good = mirrored
    (raw / good.warc_file).unlink()
    text = (raw / good.text_file).read_bytes()
    server.add("/post", {"javascript-shell": SHELL, "empty-page": "<html><body></body></html>", "soft-404": error_page("Page not found")}[answer])
    [result] = fetch_corpus(corpus, replace(options, browser="never"))
    assert result.status is Status.KEPT, result.error
    assert (raw / good.text_file).read_bytes() == text and read_provenance(raw) == good
    # The page itself coming back completes the mirror again.
    server.add("/post", article())
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK and (raw / good.warc_file).is_file()
