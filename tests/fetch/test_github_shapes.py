"""A GitHub API answer of the wrong shape (a proxy, an old Enterprise, a broken mirror of the API)
is outside data: the fetch says so for that thread, in one line naming the URL, and the thread's
good mirror stays exactly as it was. It is never reported as "a bug in corpus-build"."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from corpus_build.core.provenance import Status, read_failure, read_provenance
from corpus_build.fetch import fetch_corpus

API = "/api/repos/o/r"
GOOD = {"number": 1, "title": "Crash on Ascend", "state": "open", "body": "The kernel crashes when the tile is larger than shared memory. " * 8,
        "user": {"login": "alice"}, "labels": [{"name": "bug"}], "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-03T00:00:00Z"}


def _serve(server, issue, pull=None) -> None:
    server.add(f"{API}/issues/1", json.dumps(issue), content_type="application/json")
    server.add(f"{API}/pulls/1", json.dumps(pull if pull is not None else {"state": "open", "base": {"label": "o:main"}, "head": {"label": "bob:fix"}}),
               content_type="application/json")
    for part in ("reviews", "comments", "commits", "files"):
        server.add(f"{API}/pulls/1/{part}", "[]", content_type="application/json")
    server.add(f"{API}/issues/1/comments", "[]", content_type="application/json")
    server.add(f"{API}/issues/1/timeline", "[]", content_type="application/json")


def _mirrored(server, make_corpus, options, kind: str):
    _serve(server, GOOD)
    corpus = make_corpus([{"id": "o-1", "url": f"https://github.com/o/r/{'pull' if kind == 'pull' else 'issues'}/1", "kind": kind}])
    [first] = fetch_corpus(corpus, options)
    assert first.status is Status.OK, first.error
    return corpus, corpus.raw_dir(corpus.source("o-1"))


@pytest.mark.parametrize(
    ("kind", "issue", "pull", "what"),
    [
        pytest.param("issue", [], None, "issues/1", id="issue-a-list"),
        pytest.param("issue", "rate limited, try later", None, "issues/1", id="issue-a-string"),
        pytest.param("pull", GOOD, ["not", "a", "pull"], "pulls/1", id="pull-a-list"),
    ],
)
def test_an_answer_that_is_no_thread_is_one_clear_failure_and_the_mirror_stays(server, make_corpus, options, kind, issue, pull, what):
    corpus, raw = _mirrored(server, make_corpus, options, kind)
    good = read_provenance(raw)
    files = {name: (raw / name).read_bytes() for name in ("thread.json", "text.md", "provenance.json")}

    _serve(server, issue, pull)
    [again] = fetch_corpus(corpus, replace(options, force=True))
    assert again.status is Status.FAILED
    assert again.error.startswith(server.url(f"{API}/{what}") + ": ") and "JSON object" in again.error, again.error
    assert "bug in corpus-build" not in again.error, again.error
    assert read_provenance(raw) == good
    assert {name: (raw / name).read_bytes() for name in files} == files
    assert read_failure(raw).status is Status.FAILED


@pytest.mark.parametrize(
    "issue",
    [pytest.param({**GOOD, "user": "alice"}, id="user-a-string"), pytest.param({**GOOD, "number": "one"}, id="number-a-word"),
     pytest.param({**GOOD, "title": {"text": "Crash"}, "created_at": 20260102}, id="title-an-object")],
)
def test_fields_of_the_wrong_type_are_read_as_missing_not_a_crash(server, make_corpus, options, issue):
    """As the thread page reads them (core/threads.py): a field of the wrong type is no value."""
    corpus, raw = _mirrored(server, make_corpus, options, "issue")
    _serve(server, issue)
    [again] = fetch_corpus(corpus, replace(options, force=True))
    assert again.status is Status.OK, again.error
    record = read_provenance(raw)
    assert isinstance(record.document.title, str) and isinstance(record.document.published, str)
    assert record.thread.number in (0, 1) and record.thread.author in ("", "alice")
