"""DNS rebinding: a host checked as public must not be connected to at a local address.

A hostile DNS server answers a public address to the address check and 127.0.0.1 to the
connection a moment later. A local server cannot produce that, so the resolver alone is
replaced (socket.getaddrinfo, what the event loop's resolver runs: the transport seam); the
"private" target is a real server on 127.0.0.1, which must see no request at all.

public.example, the cited page's host, stands in for the internet: the hostile resolver sends it
to the loopback server too (a cited host is the user's choice and is not checked).
rebind.example answers a public address once, then 127.0.0.1.
"""

from __future__ import annotations

import socket
from dataclasses import replace

import pytest

from corpus_build import registry
from corpus_build.core.provenance import Status, read_provenance
from corpus_build.fetch import fetch_corpus

from .conftest import write_corpus
from .server import Reply
from .test_hardening_fetch import PNG_1X1

PUBLIC = "93.184.215.14"  # answered to the check only: never connected to


@pytest.fixture
def hostile_dns(monkeypatch):
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in ("public.example", "rebind.example"):
            return real(host, port, *args, **kwargs)
        asked.append(name)
        first = name == "rebind.example" and asked.count(name) == 1
        address = PUBLIC if first else "127.0.0.1"
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


PARA = "Tiles map onto the memory hierarchy; this paragraph explains how. " * 8


def test_a_redirect_to_a_host_that_rebinds_to_this_machine_is_refused_without_a_request(server, hostile_dns, tmp_path, options):
    port = server.base.rsplit(":", 1)[1]
    server.add("/secret", "<html><head><title>Internal admin</title></head><body><p>secret</p></body></html>")
    server.routes["/page"] = lambda request: Reply(302, b"", {"Location": f"http://rebind.example:{port}/secret"})
    corpus = registry.load(write_corpus(tmp_path, [{"id": "doc", "url": f"http://public.example:{port}/page"}]))
    [result] = fetch_corpus(corpus, replace(options, retries=0))
    assert server.count("/page") == 1  # the cited host itself was reached
    assert server.count("/secret") == 0, "connected to 127.0.0.1 after checking a public answer"
    assert result.status is Status.FAILED
    assert "rebind.example answered 127.0.0.1" in result.error and "refused" in result.error, result.error
    assert hostile_dns.count("rebind.example") == 2  # the check, then the connection's own lookup: nothing else resolved it


def test_a_public_pages_image_on_a_host_that_rebinds_to_this_machine_is_not_fetched(server, hostile_dns, tmp_path, options):
    port = server.base.rsplit(":", 1)[1]
    server.add("/internal/snapshot.png", PNG_1X1, content_type="image/png")
    server.add("/internal/admin.css", "body { color: red }", content_type="text/css")
    server.add("/guide", f"<!DOCTYPE html><html lang='en'><head><title>Kernel guide</title>"
                         f"<link rel='stylesheet' href='http://rebind.example:{port}/internal/admin.css'></head>"
                         f"<body><main><h1>Kernel guide</h1><p>{PARA}</p><img src='http://rebind.example:{port}/internal/snapshot.png' alt='a'>"
                         f"<p>{PARA}</p></main></body></html>")
    corpus = registry.load(write_corpus(tmp_path, [{"id": "guide", "url": f"http://public.example:{port}/guide", "kind": "docs"}]))
    [result] = fetch_corpus(corpus, replace(options, browser="never", retries=0))
    assert result.status is Status.OK, result.error
    assert server.count("/internal/snapshot.png") == 0 and server.count("/internal/admin.css") == 0
    record = read_provenance(corpus.raw_dir(corpus.source("guide")))
    [image] = record.document.image_files
    assert not image.path and "refused" in image.error, image
    [sheet] = record.document.style_files
    assert not sheet.path and "refused" in sheet.error, sheet


def test_a_cited_address_on_this_machine_is_still_fetched(server, hostile_dns, tmp_path, options):
    """The switch the tests live by: a source cited on 127.0.0.1 (or a name the user chose) is
    fetched, its redirects and images on this machine too."""
    server.add("/img.png", PNG_1X1, content_type="image/png")
    server.add("/b", f"<!DOCTYPE html><html lang='en'><head><title>B</title></head><body><main><h1>B</h1><p>{PARA}</p>"
                     f"<img src='{server.url('/img.png')}' alt='i'><p>{PARA}</p></main></body></html>")
    server.routes["/a"] = lambda request: Reply(302, b"", {"Location": server.url("/b")})
    corpus = registry.load(write_corpus(tmp_path, [{"id": "doc", "url": server.url("/a"), "kind": "docs"}]))
    [result] = fetch_corpus(corpus, replace(options, browser="never"))
    assert result.status is Status.OK, result.error
    assert server.count("/b") == 1 and server.count("/img.png") == 1
