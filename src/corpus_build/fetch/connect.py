"""Connections to a checked host go to the very address that was found public (DNS rebinding).

A public page's redirect target and the images and stylesheets it names are checked before
they are asked for (http.check_redirect): their host must not resolve into this machine or its
network. httpcore then resolved the name *again* when it connected, and a hostile DNS server
can answer a public address to the check and 127.0.0.1 (or 169.254.169.254, a cloud's metadata
service) to the connection a moment later: the check passed, the request went inside.

So for the hosts that were checked (http.HostVerdicts.guarded) the connection resolves the name
itself, once, refuses when any answer is local, and connects to those addresses as IP literals:
nothing resolves the name after the check. Only the TCP connection changes: httpcore still
sends the Host header of the URL and does TLS with the host name (SNI and the certificate's
name are checked against it, not the address). Other hosts (the cited URL's own, which the user
chose, a local test server) connect as before.

Not covered here: requests through a proxy (the proxy resolves the name; http_proxy is the
user's choice), `git` (kinds/git.py: its own resolver) and Chromium (fetch/browser.py).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Collection, Iterable

import httpcore
import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def host_key(host: str) -> str:
    """A host name as the connection sees it: lower case, no final dot, and in its IDNA (ASCII)
    form. The check sees a redirect's host as urlsplit spells it (réb.example), while httpx
    connects to xn--rb-bja.example: guarded under the first spelling only, the second was never
    pinned, and resolved again (DNS rebinding through any non-ASCII name)."""
    host = host.lower().rstrip(".")
    if host.isascii():
        return host
    try:
        return httpx.URL(f"http://{host}/").raw_host.decode("ascii").lower().rstrip(".")
    except (httpx.InvalidURL, UnicodeError, ValueError):  # no IDNA form: httpx cannot connect to it either
        return host


class LocalAddressRefused(Exception):
    """A checked host answered a local address when connecting (translated by http.translate)."""

    def __init__(self, host: str, address: str):
        self.host, self.address = host, address
        super().__init__(f"{host} resolved to {address} when connecting")


async def resolve(host: str, port: int) -> list[tuple[str, str]]:
    """(address to connect to, address to check) for each answer, in the resolver's order.

    The seam the rebinding tests mock (socket.getaddrinfo, run by the event loop's resolver)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found = dict.fromkeys(str(info[4][0]) for info in infos)
    return [(address, address.split("%")[0]) for address in found]  # (an IPv6 scope stays for connecting)


HAPPY_EYEBALLS_DELAY = 0.25  # seconds before the next address is tried beside the last (RFC 8305; anyio's default)


def _interleaved(addresses: list[str]) -> list[str]:
    """The resolver's order, families alternating from its first answer's (RFC 8305 section 4)."""
    first = [a for a in addresses if (":" in a) == (":" in addresses[0])]
    other = [a for a in addresses if (":" in a) != (":" in addresses[0])]
    mixed = [a for pair in zip(first, other, strict=False) for a in pair]
    return mixed + first[len(mixed) // 2:] + other[len(mixed) // 2:]


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, resolving checked hosts itself (module docstring)."""

    def __init__(self, guarded: Collection[str], is_local: Callable[[IPAddress], bool], on_local: Callable[[str], None]):
        self._inner = httpcore.AnyIOBackend()
        self._guarded = guarded  # a live view: hosts join it as they are checked
        self._is_local = is_local
        self._on_local = on_local

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,  # noqa: ASYNC109 (httpcore's signature)
                          socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.AsyncNetworkStream:
        if host_key(host) not in self._guarded:
            return await self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        try:
            async with asyncio.timeout(timeout):
                answers = await resolve(host, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from exc
        except (OSError, UnicodeError) as exc:
            raise httpcore.ConnectError(f"cannot resolve {host} ({exc})") from exc
        for _address, checked in answers:
            if self._is_local(ipaddress.ip_address(checked)):
                self._on_local(host)
                raise LocalAddressRefused(host, checked)
        if not answers:
            raise httpcore.ConnectError(f"{host} resolves to no address")
        return await self._first_to_connect([address for address, _checked in answers], port, timeout, local_address, socket_options)

    async def _first_to_connect(self, addresses: list[str], port: int, timeout: float | None, local_address: str | None,  # noqa: ASYNC109 (each attempt's own, as httpcore takes it)
                                socket_options: Iterable[httpcore.SOCKET_OPTION] | None) -> httpcore.AsyncNetworkStream:
        """Happy eyeballs (RFC 8305), as anyio does when given the name: the addresses in turn, the next
        one started HAPPY_EYEBALLS_DELAY after the last (or as soon as it fails), the first to connect
        kept and the others cancelled. One after another instead, a dual-stack host on a network that
        drops IPv6 cost the whole connect timeout for each new connection before IPv4 was tried."""
        waiting = _interleaved(addresses)
        running: set[asyncio.Task[httpcore.AsyncNetworkStream]] = set()
        error: BaseException = httpcore.ConnectError("no address to connect to")
        try:
            while waiting or running:
                if waiting:
                    running.add(asyncio.ensure_future(self._inner.connect_tcp(waiting.pop(0), port, timeout, local_address, socket_options)))
                done, _ = await asyncio.wait(running, timeout=HAPPY_EYEBALLS_DELAY if waiting else None, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    running.discard(task)
                    failure = task.exception()
                    if failure is None:
                        return task.result()
                    if not isinstance(failure, (httpcore.ConnectError, httpcore.ConnectTimeout)):
                        raise failure
                    error = failure
            raise error
        finally:
            for task in running:
                task.cancel()
            for outcome in await asyncio.gather(*running, return_exceptions=True):  # one that connected meanwhile: closed
                if isinstance(outcome, httpcore.AsyncNetworkStream):
                    await outcome.aclose()

    async def connect_unix_socket(self, path: str, timeout: float | None = None,  # noqa: ASYNC109 (httpcore's signature)
                                  socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.AsyncNetworkStream:
        return await self._inner.connect_unix_socket(path, timeout, socket_options)

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def install(client: object, backend: httpcore.AsyncNetworkBackend) -> None:
    """Make `client` (an httpx.AsyncClient built without a transport of its own) connect through
    `backend`. httpx has no argument for it; its default transport's pool reads the attribute
    each time it opens a connection. Proxied requests (the client's mounts) keep their own."""
    pool = getattr(getattr(client, "_transport", None), "_pool", None)
    if not isinstance(pool, httpcore.AsyncConnectionPool) or not hasattr(pool, "_network_backend"):
        raise RuntimeError("this httpx/httpcore has no connection pool to give a network backend; pin httpx to a version that does")
    pool._network_backend = backend
