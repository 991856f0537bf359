"""Loopback HTTP servers whose answers a test sets and changes while it runs: a page that becomes a
script shell, an image, a 404, a soft-404, a login wall, a body cut short with the connection
closed, a page trickled slowly, an endless body. Shared by tests/hostile_outside and tests/hostile_mirror.
Never the internet: each binds 127.0.0.1 (or another loopback address) on a free port.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    status: int = 200
    body: bytes | Callable[[], Iterable[bytes]] = b""
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"
    # Announce this many bytes but send `body` only, then close: a transfer cut short.
    announced_length: int | None = None


class LocalServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.host = host
        self.routes: dict[str, Answer | Callable[[], Answer]] = {}
        self.hits: list[tuple[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format, *args):  # quiet
                pass

            def _answer(self, with_body: bool) -> None:
                path = self.path.split("?", 1)[0]
                server.hits.append((self.command, path))
                route = server.routes.get(path)
                answer = route() if callable(route) else route
                if answer is None:
                    answer = Answer(404, b"<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>")
                self.send_response(answer.status)
                self.send_header("Content-Type", answer.content_type)
                headers = dict(answer.headers)
                streaming = callable(answer.body)
                if answer.announced_length is not None:
                    headers["Content-Length"] = str(answer.announced_length)
                    headers["Connection"] = "close"
                elif not streaming:
                    headers.setdefault("Content-Length", str(len(answer.body)))  # type: ignore[arg-type]
                else:
                    headers.setdefault("Connection", "close")
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                if not with_body:
                    return
                try:
                    if streaming:
                        for chunk in answer.body():  # type: ignore[operator]
                            self.wfile.write(chunk)
                            self.wfile.flush()
                        self.close_connection = True
                    else:
                        self.wfile.write(answer.body)  # type: ignore[arg-type]
                        if answer.announced_length is not None:
                            self.wfile.flush()
                            self.close_connection = True
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def do_GET(self):
                self._answer(True)

            def do_HEAD(self):
                self._answer(False)

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://{self.host}:{self.port}{path}"

    def set(
        self, path: str, body: bytes | str | Callable[[], Iterable[bytes]], status: int = 200, content_type: str = "text/html; charset=utf-8", announced_length: int | None = None, **headers: str
    ) -> str:
        if isinstance(body, str):
            body = body.encode("utf-8")
        self.routes[path] = Answer(status, body, dict(headers), content_type, announced_length)
        return self.url(path)

    def set_dynamic(self, path: str, make: Callable[[], Answer]) -> str:
        """Answer each request with `make()` (a page whose version changes between runs)."""
        self.routes[path] = make
        return self.url(path)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def trickled(data: bytes, pieces: int, every: float) -> Callable[[], Iterable[bytes]]:
    """`data` sent in `pieces` chunks, `every` seconds apart: a slow but complete body."""
    size = max(1, -(-len(data) // pieces))

    def gen() -> Iterable[bytes]:
        for start in range(0, len(data), size):
            yield data[start : start + size]
            time.sleep(every)

    return gen


def trickle(chunk: bytes, every: float, total_seconds: float) -> Callable[[], Iterable[bytes]]:
    """A body that keeps coming: `chunk` every `every` seconds for `total_seconds`."""

    def gen() -> Iterable[bytes]:
        end = time.monotonic() + total_seconds
        while time.monotonic() < end:
            yield chunk
            time.sleep(every)

    return gen


def endless(chunk: bytes) -> Callable[[], Iterable[bytes]]:
    """A body that never ends (the client must cap it)."""

    def gen() -> Iterable[bytes]:
        while True:
            yield chunk

    return gen
