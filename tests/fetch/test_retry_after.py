"""`Retry-After` as a real 127.0.0.1 server sends it: delay-seconds or an HTTP-date (RFC 9110 10.2.3), capped by max_backoff."""

from __future__ import annotations

import email.utils
import time
from dataclasses import replace

import pytest

from corpus_build.core.provenance import Status, read_provenance
from corpus_build.fetch import fetch_corpus

from .server import Reply

PAGE = b"<!doctype html><html><head><title>Back again</title></head><body><article><p>Served after the wait.</p></article></body></html>"


def busy_then_ok(server, path: str, status: int, retry_after) -> list[float]:
    """`path` answers `status` with Retry-After (a string, or a function of the time now) once, then 200; the hit times."""
    times: list[float] = []

    def route(request):
        times.append(time.monotonic())
        if len(times) == 1:
            value = retry_after(time.time()) if callable(retry_after) else retry_after
            return Reply(status, b"busy", {"Retry-After": value})
        return Reply(200, PAGE, {"Content-Type": "text/html; charset=utf-8"})

    server.routes[path] = route
    return times


@pytest.mark.parametrize("status", [429, 503])
def test_an_http_date_is_honoured(server, make_corpus, options, status):
    # Two seconds after the server's own Date header (which the fixture server sends, in whole seconds).
    times = busy_then_ok(server, "/limited", status, lambda now: email.utils.formatdate(int(now) + 2, usegmt=True))
    corpus = make_corpus([{"id": "limited", "url": server.url("/limited")}])
    [result] = fetch_corpus(corpus, replace(options, max_backoff=5.0, total_timeout=20))
    assert result.status is Status.OK, result.error
    assert len(times) == 2
    assert times[1] - times[0] >= 1.0, f"retried after {times[1] - times[0]:.2f} s; the server asked for 2 s"
    assert [a.outcome for a in read_provenance(corpus.raw_dir(corpus.source("limited"))).attempts] == [f"http-{status}", "ok"]


def test_a_far_date_is_capped_like_seconds(server, make_corpus, options):
    far = email.utils.formatdate(time.time() + 86_400, usegmt=True)  # tomorrow
    times = busy_then_ok(server, "/tomorrow", 503, far)
    seconds = busy_then_ok(server, "/seconds", 503, "86400")
    corpus = make_corpus([{"id": "tomorrow", "url": server.url("/tomorrow")}, {"id": "seconds", "url": server.url("/seconds")}])
    started = time.monotonic()
    results = fetch_corpus(corpus, replace(options, max_backoff=0.6, total_timeout=20))
    assert all(r.status is Status.OK for r in results), [r.error for r in results]
    assert time.monotonic() - started < 10
    for hits in (times, seconds):
        assert 0.5 <= hits[1] - hits[0] < 3, hits  # max_backoff, with neither form ignored nor obeyed for a day


def test_a_past_date_or_nonsense_waits_only_the_backoff(server, make_corpus, options):
    past = busy_then_ok(server, "/past", 429, "Wed, 21 Oct 2015 07:28:00 GMT")
    nonsense = busy_then_ok(server, "/nonsense", 429, "whenever you like")
    corpus = make_corpus([{"id": "past", "url": server.url("/past")}, {"id": "nonsense", "url": server.url("/nonsense")}])
    results = fetch_corpus(corpus, replace(options, max_backoff=5.0))
    assert all(r.status is Status.OK for r in results), [r.error for r in results]
    assert past[1] - past[0] < 1 and nonsense[1] - nonsense[0] < 1
