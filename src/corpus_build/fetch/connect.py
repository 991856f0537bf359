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

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


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


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, resolving checked hosts itself (module docstring)."""

    def __init__(self, guarded: Collection[str], is_local: Callable[[IPAddress], bool], on_local: Callable[[str], None]):
        self._inner = httpcore.AnyIOBackend()
        self._guarded = guarded  # a live view: hosts join it as they are checked
        self._is_local = is_local
        self._on_local = on_local

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,  # noqa: ASYNC109 (httpcore's signature)
                          socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.AsyncNetworkStream:
        if host.lower().rstrip(".") not in self._guarded:
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
        error: Exception = httpcore.ConnectError(f"{host} resolves to no address")
        for address, _checked in answers:  # each checked address in turn, as the resolver ordered them
            try:
                return await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                error = exc
        raise error

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
