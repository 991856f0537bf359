"""Papers, repositories, GitHub threads and Hugging Face cards against the local server."""

from __future__ import annotations

import gzip
import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pymupdf
import pytest

from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus

from .conftest import git
from .server import Reply


def make_pdf(pages=3, title="Tiles All The Way Down") -> bytes:
    doc = pymupdf.open()
    for number in range(pages):
        doc.new_page().insert_text((72, 72), f"Page {number + 1} of the paper about tile programming")
    doc.set_metadata({"title": title, "author": "Ada Lovelace; Alan Turing"})
    return doc.tobytes()


def test_pdf_is_kept_and_extracted_page_by_page(server, make_corpus, options):
    pdf = make_pdf()
    server.add("/paper.pdf", pdf, content_type="application/pdf")
    server.add("/broken.pdf", pdf[: len(pdf) // 2], content_type="application/pdf")
    corpus = make_corpus([{"id": "paper", "url": server.url("/paper.pdf"), "kind": "paper"}, {"id": "broken", "url": server.url("/broken.pdf"), "kind": "paper"}])
    paper, broken = fetch_corpus(corpus, options)
    assert paper.status is Status.OK, paper.error
    raw = corpus.raw_dir(corpus.source("paper"))
    record = read_provenance(raw)
    assert (raw / "paper.pdf").read_bytes() == pdf
    text = (raw / "text.md").read_text()
    assert "## Page 1" in text and "## Page 3" in text and "Page 2 of the paper" in text
    assert record.document.page_count == 3 and record.document.title == "Tiles All The Way Down"
    assert record.document.authors == ("Ada Lovelace", "Alan Turing")
    assert record.extractor.name == "pymupdf"
    assert broken.status is Status.FAILED and "truncated" in broken.error
    assert not corpus.raw_dir(corpus.source("broken")).exists()


def test_arxiv_abs_resolves_to_pdf_with_abstract_metadata(server, make_corpus, options):
    server.add("/arxiv/abs/2401.00001", '<html><head><meta name="citation_title" content="TileLang: A Paper">'
               '<meta name="citation_author" content="Wang, Lei"><meta name="citation_author" content="Xu, Yu">'
               '<meta name="citation_date" content="2024/01/01"><meta name="citation_pdf_url" content="https://arxiv.org/pdf/2401.00001v2">'
               "</head><body>abstract</body></html>")
    server.add("/arxiv/pdf/2401.00001v2", make_pdf(2), content_type="application/pdf")
    corpus = make_corpus([{"id": "tl-paper", "url": "https://arxiv.org/abs/2401.00001", "kind": "paper"}])
    opts = replace(options, rewrites=(("https://arxiv.org/", server.url("/arxiv/")),))
    [result] = fetch_corpus(corpus, opts)
    assert result.status is Status.OK, result.error
    record = read_provenance(corpus.raw_dir(corpus.source("tl-paper")))
    assert record.document.title == "TileLang: A Paper" and record.document.authors == ("Wang, Lei", "Xu, Yu")
    assert record.document.page_count == 2
    assert record.fetched_url == server.url("/arxiv/pdf/2401.00001v2")
    assert record.cited_url == "https://arxiv.org/abs/2401.00001"


def test_doi_redirect_to_pdf(server, make_corpus, options):
    server.routes["/doi/10.1/x"] = lambda r: Reply(302, b"", {"Location": "/publisher/x.pdf"})
    server.add("/publisher/x.pdf", make_pdf(1), content_type="application/pdf")
    corpus = make_corpus([{"id": "doi-paper", "url": server.url("/doi/10.1/x"), "kind": "paper"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    assert read_provenance(corpus.raw_dir(corpus.source("doi-paper"))).redirects == (server.url("/doi/10.1/x"),)


def test_repo_is_cloned_shallow_and_refetch_uses_ls_remote(server, make_corpus, options, git_remote):
    url, work = git_remote
    corpus = make_corpus([{"id": "demo", "url": url, "kind": "repo"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("demo"))
    record = read_provenance(raw)
    head = git("rev-parse", "HEAD", cwd=work).strip()
    assert record.repo.commit == head and record.repo.branch == "main" and record.repo.latest_tag == "v0.1.0"
    assert record.repo.swhid == f"swh:1:rev:{head}" and record.repo.commit_date
    assert (raw / "README.md").read_text().startswith("# Demo")
    assert git("rev-parse", "--is-shallow-repository", cwd=raw / "repo").strip() == "true"
    assert (raw / "repo" / "evil-link").is_file() and not (raw / "repo" / "evil-link").is_symlink()
    hooks_before = len(server.hits)
    [again] = fetch_corpus(corpus, options)
    assert again.status is Status.UNCHANGED
    assert all("git-upload-pack" in h.path or "info/refs" in h.path for h in server.hits[hooks_before:])
    assert not any(h.method == "POST" and h.path.endswith("git-upload-pack") and b"want" in h.body for h in server.hits[hooks_before:])
    (work / "NEW.md").write_text("new\n")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", "second", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    [moved] = fetch_corpus(corpus, options)
    assert moved.status is Status.OK
    assert read_provenance(raw).repo.commit == git("rev-parse", "HEAD", cwd=work).strip()


def test_repo_full_depth_and_file_urls_refused(server, make_corpus, options, git_remote, tmp_path):
    url, work = git_remote
    corpus = make_corpus([{"id": "demo", "url": url, "kind": "repo", "mirror": {"depth": "full"}}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    assert git("rev-parse", "--is-shallow-repository", cwd=corpus.raw_dir(corpus.source("demo")) / "repo").strip() == "false"
    # A rewrite pointing at a local path is refused unless a test enables file:// explicitly.
    local = replace(options, force=True, rewrites=((url, f"file://{server.git_root}/demo.git"),))
    [refused] = fetch_corpus(corpus, local)
    assert refused.status is Status.FAILED and "refusing a file git remote" in refused.error
    [allowed] = fetch_corpus(corpus, replace(local, allow_file_urls=True))
    assert allowed.status is Status.OK, allowed.error


def _issue(number, title="Crash on Ascend", pull=False):
    data = {"number": number, "title": title, "state": "closed", "body": "It <script>alert(1)</script> crashes.",
            "user": {"login": "alice"}, "labels": [{"name": "bug"}, {"name": "ascend"}],
            "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-03T00:00:00Z", "closed_at": "2026-01-03T00:00:00Z"}
    if pull:
        data["pull_request"] = {"url": "x"}
    return data


def test_github_pull_request_with_paginated_comments(server, make_corpus, options):
    api = "/api/repos/tile-ai/tilelang"
    server.add(f"{api}/issues/7", json.dumps(_issue(7, "Add Ascend backend", pull=True)), content_type="application/json", etag='"i7"')
    server.add(f"{api}/pulls/7", json.dumps({"state": "closed", "draft": False, "merged": True, "merged_at": "2026-02-01T10:00:00Z",
                                            "merge_commit_sha": "abc123", "base": {"label": "tile-ai:main"}, "head": {"label": "bob:ascend"}}),
               content_type="application/json")
    page2 = server.url(f"{api}/issues/7/comments") + "?page=2"

    def comments(request):
        if "page=2" in request.query:
            return Reply(200, json.dumps([{"user": {"login": "carol"}, "body": "second page", "created_at": "t3"}]).encode(), {"Content-Type": "application/json"})
        return Reply(200, json.dumps([{"user": {"login": "bob"}, "body": "first", "created_at": "t1"}, {"user": {"login": "dave"}, "body": "more", "created_at": "t2"}]).encode(),
                     {"Content-Type": "application/json", "Link": f'<{page2}>; rel="next", <{page2}>; rel="last"'})

    server.routes[f"{api}/issues/7/comments"] = comments
    corpus = make_corpus([{"id": "tl-pr-7", "url": "https://github.com/tile-ai/tilelang/pull/7", "kind": "pull"}])
    [result] = fetch_corpus(corpus, options)
    assert result.status is Status.OK, result.error
    raw = corpus.raw_dir(corpus.source("tl-pr-7"))
    record = read_provenance(raw)
    thread = record.thread
    assert thread.merged and thread.merged_at == "2026-02-01T10:00:00Z" and thread.merge_commit == "abc123"
    assert thread.base == "tile-ai:main" and thread.head == "bob:ascend" and thread.labels == ("bug", "ascend")
    assert thread.comments == 3 and thread.display_state == "merged"
    text = (raw / "text.md").read_text()
    assert "second page" in text and "@carol" in text
    data = json.loads((raw / "thread.json").read_text())
    assert [c["body"] for c in data["comments"]] == ["first", "more", "second page"]
    assert [r.headers.get("authorization") for r in server.hits] == [None] * len(server.hits)
    [again] = fetch_corpus(corpus, options)
    assert again.status is Status.UNCHANGED
    assert any(h.headers.get("if-none-match") == '"i7"' for h in server.hits)


def test_github_rate_limit_says_when_and_how(server, make_corpus, options, monkeypatch):
    server.routes["/api/repos/o/r/issues/1"] = lambda r: Reply(403, b'{"message": "API rate limit exceeded"}', {
        "Content-Type": "application/json", "X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "60", "X-RateLimit-Reset": "1900000000"})
    corpus = make_corpus([{"id": "o-issue-1", "url": "https://github.com/o/r/issues/1", "kind": "issue"},
                          {"id": "o-issue-2", "url": "https://github.com/o/r/issues/2", "kind": "issue"}])
    results = fetch_corpus(corpus, replace(options, jobs=1))
    assert [r.status for r in results] == [Status.SKIPPED, Status.SKIPPED]
    assert "2030-03-17 17:46 UTC" in results[0].error and "set GITHUB_TOKEN" in results[0].error
    assert server.count("/api/repos/o/r/issues/2") == 0  # left for the next run
    assert read_failure(corpus.raw_dir(corpus.source("o-issue-1"))).status is Status.SKIPPED


def test_github_token_is_sent_when_set(server, make_corpus, options):
    server.add("/api/repos/o/r/issues/3", json.dumps(_issue(3)), content_type="application/json")
    server.add("/api/repos/o/r/issues/3/comments", "[]", content_type="application/json")
    corpus = make_corpus([{"id": "o-issue-3", "url": "https://github.com/o/r/issues/3", "kind": "issue"}])
    [result] = fetch_corpus(corpus, replace(options, github_token="secret-token"))
    assert result.status is Status.OK, result.error
    assert server.hits[0].headers["authorization"] == "Bearer secret-token"
    assert read_provenance(corpus.raw_dir(corpus.source("o-issue-3"))).thread.display_state == "closed"


def test_huggingface_model_card_and_config(server, make_corpus, options):
    server.add("/hf/Qwen/Qwen2.5-7B/raw/main/README.md", "---\nlicense: apache-2.0\nlanguage: [en, zh]\n---\n# Qwen2.5-7B\n\nA model.\n", content_type="text/plain; charset=utf-8")
    server.add("/hf/Qwen/Qwen2.5-7B/raw/main/config.json", '{"hidden_size": 3584}', content_type="application/json")
    server.add("/hf/datasets/HuggingFaceFW/fineweb-edu/raw/main/README.md", "# FineWeb-Edu\n", content_type="text/plain")
    corpus = make_corpus([{"id": "qwen", "url": "https://huggingface.co/Qwen/Qwen2.5-7B", "kind": "model"},
                          {"id": "fineweb", "url": "https://huggingface.co/datasets/HuggingFaceFW/fineweb-edu", "kind": "dataset"}])
    qwen, fineweb = fetch_corpus(corpus, options)
    assert qwen.status is Status.OK and fineweb.status is Status.OK, (qwen.error, fineweb.error)
    raw = corpus.raw_dir(corpus.source("qwen"))
    assert json.loads((raw / "config.json").read_text()) == {"hidden_size": 3584}
    record = read_provenance(raw)
    assert record.document.language == "en, zh" and record.text_file == "README.md"
    assert not (corpus.raw_dir(corpus.source("fineweb")) / "config.json").exists()


def test_missing_pdf_is_downloaded_again_despite_etag(server, make_corpus, options):
    # provenance.json is committed, paper.pdf is git-ignored: a fresh clone has the record only.
    pdf = make_pdf(2)
    server.add("/etag.pdf", pdf, content_type="application/pdf", etag='"p1"')
    corpus = make_corpus([{"id": "paper", "url": server.url("/etag.pdf"), "kind": "paper"}])
    assert fetch_corpus(corpus, options)[0].status is Status.OK
    raw = corpus.raw_dir(corpus.source("paper"))
    assert fetch_corpus(corpus, options)[0].status is Status.UNCHANGED  # the ETag still works
    (raw / "paper.pdf").unlink()
    [again] = fetch_corpus(corpus, options)
    assert again.status is Status.OK, again.error
    assert (raw / "paper.pdf").read_bytes() == pdf
    assert server.hits[-1].headers.get("if-none-match") is None  # unconditional
    # Within the recheck window too: a record whose files are gone is not "recently checked".
    (raw / "capture.warc.gz").unlink()
    [recent] = fetch_corpus(corpus, replace(options, recheck_after=600))
    assert recent.status is Status.OK and (raw / "capture.warc.gz").is_file()


def test_missing_clone_is_cloned_again_though_the_remote_did_not_move(server, make_corpus, options, git_remote):
    url, _work = git_remote
    corpus = make_corpus([{"id": "demo", "url": url, "kind": "repo"}])
    assert fetch_corpus(corpus, options)[0].status is Status.OK
    raw = corpus.raw_dir(corpus.source("demo"))
    shutil.rmtree(raw / "repo")  # git-ignored: absent on a fresh clone of the corpus
    [again] = fetch_corpus(corpus, options)
    assert again.status is Status.OK, again.error
    assert (raw / "repo" / "README.md").is_file()


def test_git_timeout_is_a_clear_failure_and_kills_the_helpers(server, make_corpus, options):
    # A forge that accepts the connection and then stalls: git-remote-http waits on it.
    server.routes["/stall.git/info/refs"] = lambda r: Reply(200, iter([b"0"] * 100), {"Content-Type": "application/x-git-upload-pack-advertisement"}, pause=0.2)
    url = server.url("/stall.git")
    corpus = make_corpus([{"id": "stall", "url": url, "kind": "repo"}])
    started = time.monotonic()
    [result] = fetch_corpus(corpus, replace(options, git_timeout=1.0))
    assert time.monotonic() - started < 10
    assert result.status is Status.FAILED
    assert "took longer than fetch.git_timeout (1 s)" in result.error and "bug in corpus-build" not in result.error
    assert read_failure(corpus.raw_dir(corpus.source("stall"))).error == result.error

    def helpers() -> list[str]:
        found = []
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                text = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if url in text:
                found.append(text)
        return found

    deadline = time.monotonic() + 2
    while helpers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert helpers() == []  # git-remote-http died with git


def _warc_responses(raw) -> dict[str, bytes]:
    from warcio.archiveiterator import ArchiveIterator

    with open(raw / "capture.warc.gz", "rb") as handle:
        return {r.rec_headers.get_header("WARC-Target-URI"): r.content_stream().read() for r in ArchiveIterator(handle) if r.rec_type == "response"}


@pytest.mark.parametrize("encoding", ["identity", "gzip"])
def test_warc_keeps_the_landing_page_and_the_pdf_apart(server, make_corpus, options, encoding):
    pdf = make_pdf(1)
    landing = b'<html><head><meta name="citation_title" content="A Landing"><meta name="citation_pdf_url" content="/publisher/y.pdf"></head><body>abstract</body></html>'
    plain = b"<html><head><title>No PDF here</title></head><body><p>Only a page about the paper.</p></body></html>"

    def serve(body: bytes, content_type: str):
        encoded = gzip.compress(body) if encoding == "gzip" else body
        return lambda r: Reply(200, encoded, {"Content-Type": content_type, "Content-Encoding": encoding})

    server.routes["/doi/10.2/y"] = lambda r: Reply(302, b"", {"Location": "/publisher/landing"})
    server.routes["/publisher/landing"] = serve(landing, "text/html; charset=utf-8")
    server.routes["/publisher/y.pdf"] = serve(pdf, "application/pdf")
    server.routes["/doi/10.2/z"] = serve(plain, "text/html; charset=utf-8")
    corpus = make_corpus([{"id": "doi-y", "url": server.url("/doi/10.2/y"), "kind": "paper"}, {"id": "doi-z", "url": server.url("/doi/10.2/z"), "kind": "paper"}])
    y, z = fetch_corpus(corpus, options)
    assert y.status is Status.OK and z.status is Status.OK, (y.error, z.error)
    raw = corpus.raw_dir(corpus.source("doi-y"))
    assert (raw / "paper.pdf").read_bytes() == pdf and read_provenance(raw).document.title == "A Landing"
    records = _warc_responses(raw)
    assert records[server.url("/publisher/landing")] == landing
    assert records[server.url("/publisher/y.pdf")] == pdf
    # Without citation_pdf_url the page is kept as HTML, and its WARC record holds it too.
    raw = corpus.raw_dir(corpus.source("doi-z"))
    assert (raw / "page.html").read_bytes() == plain
    assert _warc_responses(raw)[server.url("/doi/10.2/z")] == plain
    assert not [p for p in raw.iterdir() if p.name.endswith(".raw") or p.name in ("paper.pdf", "landing.html")]


def test_arxiv_relative_citation_pdf_url_is_joined_to_the_abs_page(server, make_corpus, options):
    server.add("/arxiv/abs/2401.00002", '<html><head><meta name="citation_title" content="Relative">'
               '<meta name="citation_pdf_url" content="../pdf/2401.00002v1"></head><body>abstract</body></html>')
    server.add("/arxiv/pdf/2401.00002v1", make_pdf(1), content_type="application/pdf")
    corpus = make_corpus([{"id": "rel-paper", "url": "https://arxiv.org/abs/2401.00002", "kind": "paper"}])
    [result] = fetch_corpus(corpus, replace(options, rewrites=(("https://arxiv.org/", server.url("/arxiv/")),)))
    assert result.status is Status.OK, result.error
    assert read_provenance(corpus.raw_dir(corpus.source("rel-paper"))).fetched_url == server.url("/arxiv/pdf/2401.00002v1")
