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

import contextlib
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


def _tls_files(folder, name: str):
    """A CA and a certificate for `name` signed by it, made here with openssl (no fixture files)."""
    import subprocess

    ca_key, ca, key, csr, cert = (folder / f for f in ("ca.key", "ca.pem", "host.key", "host.csr", "host.pem"))
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(ca_key), "-out", str(ca), "-days", "2", "-subj", "/CN=Test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(csr), "-subj", f"/CN={name}")
    ext = folder / "ext.cnf"
    ext.write_text(f"subjectAltName=DNS:{name}\n", encoding="utf-8")
    run("x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key), "-CAcreateserial", "-out", str(cert), "-days", "2", "-extfile", str(ext))
    return ca, cert, key


def test_a_checked_host_is_reached_at_its_checked_address_with_its_own_name_in_host_sni_and_certificate(tmp_path, monkeypatch):
    """connect.PinnedBackend connects to the address it resolved, as an IP literal; the Host header,
    SNI and the certificate check keep the host name. Here 127.0.0.1 counts as public (is_local
    is the backend's argument) so that a real TLS server on this machine can answer."""
    import asyncio
    import http.server
    import ssl
    import threading

    import httpx

    from corpus_build.fetch import connect

    ca, cert, key = _tls_files(tmp_path, "safe.example")
    seen: list[tuple[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append((self.headers["Host"], sni[-1]))  # the name the client sent in its TLS hello
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    sni: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: sni.append(name or "")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host, port_, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name in ("safe.example", "other.example"):
            asked.append(name)
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", int(port_ or 0)))]
        return real(host, port_, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)

    async def get(url: str) -> int:
        client = httpx.AsyncClient(verify=ssl.create_default_context(cafile=str(ca)), trust_env=False)
        connect.install(client, connect.PinnedBackend({"safe.example", "other.example"}, lambda address: False, lambda host: None))
        async with client:
            return (await client.get(url)).status_code

    try:
        assert asyncio.run(get(f"https://safe.example:{port}/")) == 200
        assert seen == [(f"safe.example:{port}", "safe.example")] and asked == ["safe.example"]
        with pytest.raises(httpx.ConnectError, match=r"CERTIFICATE_VERIFY_FAILED|[Hh]ostname"):  # the certificate names safe.example only
            asyncio.run(get(f"https://other.example:{port}/"))
        assert sni[-1] == "other.example" and len(seen) == 1
    finally:
        server.shutdown()


def test_a_cited_host_on_the_local_network_is_fetched_though_a_public_page_named_it_first(server, monkeypatch, tmp_path, options):
    """A host refused as a public page's image (it resolves into the local network) is still the
    user's own source when cited directly (an intranet wiki): refusing the page's image must not
    make the run refuse every later connection to that host, so the outcome never depends on
    which source happened to be fetched first."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name in ("public.example", "wiki.example"):  # both on this machine; only wiki.example is ever checked
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", int(port or 0)))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    port = server.base.rsplit(":", 1)[1]
    server.add("/logo.png", PNG_1X1, content_type="image/png")
    server.add("/wiki", f"<!DOCTYPE html><html lang='en'><head><title>Wiki</title></head><body><main><h1>Wiki</h1><p>{PARA}</p></main></body></html>")
    server.add("/guide", f"<!DOCTYPE html><html lang='en'><head><title>Kernel guide</title></head>"
                         f"<body><main><h1>Kernel guide</h1><p>{PARA}</p><img src='http://wiki.example:{port}/logo.png' alt='a'>"
                         f"<p>{PARA}</p></main></body></html>")
    corpus = registry.load(write_corpus(tmp_path, [
        {"id": "guide", "url": f"http://public.example:{port}/guide", "kind": "docs"},
        {"id": "wiki", "url": f"http://wiki.example:{port}/wiki", "kind": "docs"},
    ]))
    results = fetch_corpus(corpus, replace(options, browser="never", retries=0, jobs=1))
    by_id = {result.id: result for result in results}
    assert by_id["guide"].status is Status.OK, by_id["guide"].error
    assert server.count("/logo.png") == 0  # the public page's image is refused, as before
    assert by_id["wiki"].status is Status.OK, by_id["wiki"].error  # the user's own citation is not
    assert server.count("/wiki") == 1


def test_a_checked_host_whose_first_address_never_answers_is_reached_at_the_next_without_waiting_the_timeout(monkeypatch):
    """Happy eyeballs (RFC 8305), as anyio does for a host name: a dual-stack host whose first
    answer is unreachable (a network with broken IPv6 drops the packets) is connected to at the
    next address a moment later, not after the whole connect timeout for every new connection.
    The unreachable address is a real listener on 127.0.0.2 whose queue is full (its SYNs are
    dropped); 127.0.0.1 counts as public here (is_local is the backend's argument)."""
    import asyncio
    import time

    from corpus_build.fetch import connect

    good = socket.socket()
    good.bind(("127.0.0.1", 0))
    good.listen(16)
    port = good.getsockname()[1]
    stalled = socket.socket()
    try:
        stalled.bind(("127.0.0.2", port))
    except OSError:
        pytest.skip("127.0.0.2 is not usable here")
    stalled.listen(0)
    fillers = []
    for _ in range(4):  # fill its accept queue: further connections hang, as to a dropped address
        filler = socket.socket()
        filler.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            filler.connect(("127.0.0.2", port))
        fillers.append(filler)
    answers: dict[str, list[str]] = {"one.example": ["127.0.0.1"], "dual.example": ["127.0.0.2", "127.0.0.1"]}

    def getaddrinfo(host, port_, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port_ or 0))) for address in answers[name]]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    backend = connect.PinnedBackend({"one.example", "dual.example"}, lambda address: False, lambda host: None)
    timeout = 8.0

    async def seconds_to_connect(host: str) -> float:
        started = time.perf_counter()
        stream = await backend.connect_tcp(host, port, timeout=timeout)
        elapsed = time.perf_counter() - started
        assert stream.get_extra_info("server_addr")[0] == "127.0.0.1"
        await stream.aclose()
        return elapsed

    try:
        baseline = asyncio.run(seconds_to_connect("one.example"))
        dual = asyncio.run(seconds_to_connect("dual.example"))
    finally:
        for sock in (good, stalled, *fillers):
            sock.close()
    print(f"connect: {dual:.3f} s with the first address unreachable, {baseline:.3f} s with one address")
    assert dual - baseline < timeout / 4, f"{dual:.2f} s against {baseline:.2f} s for one address: waited for the unreachable one"


def _rebinding_idna_host(monkeypatch, spelled) -> list[str]:
    """getaddrinfo replaced: public.example is this machine (the cited page); the names `spelled`
    maps to xn--rb-bja.example answer PUBLIC the first time, then 127.0.0.1. Returns the list of
    names looked up that way, filled as lookups happen."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name == "public.example":
            return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", int(port or 0)))]
        if spelled(name) != "xn--rb-bja.example":
            return real(host, port, *args, **kwargs)
        asked.append(name)
        address = PUBLIC if len(asked) == 1 else "127.0.0.1"  # public to the check, then this machine
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, int(port or 0)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def test_a_redirect_to_an_internationalized_host_that_rebinds_is_refused_too(server, monkeypatch, tmp_path, options):
    """The check saw the host as urlsplit spells it (réb.example); httpx connects to its IDNA form
    (xn--rb-bja.example). Guarded under the first name only, the connection was never pinned:
    the name resolved again, to 127.0.0.1, and the request went inside."""
    _rebinding_idna_host(monkeypatch, lambda name: name.encode("idna").decode())
    port = server.base.rsplit(":", 1)[1]
    server.add("/secret", "<html><head><title>Internal admin</title></head><body><p>secret</p></body></html>")
    server.routes["/page"] = lambda request: Reply(302, b"", {"Location": f"http://réb.example:{port}/secret"})
    corpus = registry.load(write_corpus(tmp_path, [{"id": "doc", "url": f"http://public.example:{port}/page"}]))
    [result] = fetch_corpus(corpus, replace(options, retries=0))
    assert server.count("/secret") == 0, "connected to 127.0.0.1 after checking a public answer"
    assert result.status is Status.FAILED and "refused" in result.error, result.error


def test_an_internationalized_host_found_local_when_connecting_stays_refused_under_every_spelling(server, monkeypatch, tmp_path, options):
    """The connection reports a host that answered a local address by the name it connects to (the
    IDNA form, xn--rb-bja.example); the check looked its verdicts up by the URL's spelling (réb.example,
    RÉB.example., …). So the host refused when connecting was still "checked, public" to the check:
    each later request to it went out and was resolved again, its refusal for the rest of the run
    kept by the connection's own lookup alone. One key for both: refused by the check, never resolved again."""
    asked = _rebinding_idna_host(monkeypatch, lambda name: name.rstrip(".").lower().encode("idna").decode())
    port = server.base.rsplit(":", 1)[1]
    spellings = {"one": "réb.example", "two": "RÉB.example.", "three": "xn--rb-bja.example", "four": "réb.example"}
    for name, host in spellings.items():
        server.add(f"/secret-{name}", "<html><head><title>Internal admin</title></head><body><p>secret</p></body></html>")
        server.routes[f"/{name}"] = lambda request, name=name, host=host: Reply(302, b"", {"Location": f"http://{host}:{port}/secret-{name}"})
    corpus = registry.load(write_corpus(tmp_path, [{"id": name, "url": f"http://public.example:{port}/{name}"} for name in spellings]))
    results = fetch_corpus(corpus, replace(options, retries=0, jobs=1))  # one source after another
    assert [server.count(f"/secret-{name}") for name in spellings] == [0, 0, 0, 0]
    assert all(r.status is Status.FAILED and "refused" in r.error for r in results), [r.error for r in results]
    assert len(asked) == 2, asked  # the check and the first connection's lookup; then refused as known
