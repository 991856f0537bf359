"""A real HTTP server on 127.0.0.1 for the fetch tests (and scripts/bench_fetch.py).

Routes are plain functions `handler(request) -> Reply | None`; a Reply can stream a
body in pieces with pauses (trickle), cut the connection mid-body (reset), or send
pre-compressed bytes (gzip bomb). `/git/...` is served by `git http-backend` (CGI),
so shallow clones work exactly as against a real forge.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit


@dataclass
class Reply:
    status: int = 200
    body: bytes | Iterable[bytes] = b""
    headers: dict[str, str] = field(default_factory=dict)
    pause: float = 0.0  # seconds between body pieces (trickle)
    reset_after: int | None = None  # close the socket abruptly after this many body bytes
    length: int | None = None  # Content-Length to announce (defaults to len(body) when bytes)
    reason: str = ""  # the status line's reason phrase (server-controlled text that reaches the site)


@dataclass
class Request:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


class FixtureServer:
    def __init__(self, latency: float = 0.0):
        self.routes: dict[str, Callable[[Request], Reply | None]] = {}
        self.hits: list[Request] = []
        self.latency = latency
        self.git_root: Path | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # As production servers do (nginx tcp_nodelay): without it every response on a
            # reused connection stalls ~40 ms on Nagle + delayed ACK, which curl never sees.
            disable_nagle_algorithm = True

            def log_message(self, *args):  # quiet
                pass

            def _serve(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Request(self.command, parts.path, parts.query, {k.lower(): v for k, v in self.headers.items()}, body)
                server.hits.append(request)
                if server.latency:
                    time.sleep(server.latency)
                if parts.path.startswith("/git/") and server.git_root is not None:
                    return server._git(self, request)
                route = server.routes.get(parts.path)
                reply = route(request) if route else Reply(404, b"not found")
                if reply is None:
                    reply = Reply(404, b"not found")
                server._send(self, reply)

            do_GET = do_POST = do_HEAD = _serve

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self) -> "FixtureServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def url(self, path: str) -> str:
        return self.base + path

    def add(self, path: str, body: bytes | str = b"", *, status: int = 200, content_type: str = "text/html; charset=utf-8", etag: str = "", headers: dict | None = None, reason: str = "") -> None:
        """A static answer; with `etag`, If-None-Match gets a 304."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        extra = dict(headers or {})

        def route(request: Request) -> Reply:
            if etag and request.headers.get("if-none-match") == etag:
                return Reply(304, b"", {"ETag": etag})
            reply_headers = {"Content-Type": content_type, **extra}
            if etag:
                reply_headers["ETag"] = etag
            return Reply(status, data, reply_headers, reason=reason)

        self.routes[path] = route

    def count(self, path: str) -> int:
        return sum(1 for hit in self.hits if hit.path == path)

    # --- sending ----------------------------------------------------------------------

    def _send(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        body = reply.body
        pieces = [body] if isinstance(body, bytes) else body
        length = reply.length if reply.length is not None else (len(body) if isinstance(body, bytes) else None)
        handler.send_response(reply.status, reply.reason or None)
        for key, value in reply.headers.items():
            handler.send_header(key, value)
        if length is not None:
            handler.send_header("Content-Length", str(length))
        else:
            handler.send_header("Connection", "close")
            handler.close_connection = True
        handler.end_headers()
        if handler.command == "HEAD":
            return
        sent = 0
        try:
            for piece in pieces:
                if reply.reset_after is not None and sent + len(piece) > reply.reset_after:
                    handler.wfile.write(piece[: reply.reset_after - sent])
                    handler.wfile.flush()
                    # SO_LINGER 0: the close sends a TCP RST, as a dropped connection does.
                    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    handler.connection.close()
                    handler.close_connection = True
                    return
                handler.wfile.write(piece)
                sent += len(piece)
                if reply.pause:
                    handler.wfile.flush()
                    time.sleep(reply.pause)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            handler.close_connection = True

    def _git(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        """`git http-backend` as CGI: the smart HTTP protocol, shallow clones included."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.git_root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": request.method,
            "PATH_INFO": request.path[len("/git") :],
            "QUERY_STRING": request.query,
            "CONTENT_TYPE": request.headers.get("content-type", ""),
            "CONTENT_LENGTH": str(len(request.body)),
            "REMOTE_ADDR": "127.0.0.1",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(self.git_root),
        }
        if request.headers.get("git-protocol"):
            env["GIT_PROTOCOL"] = request.headers["git-protocol"]
        if request.headers.get("content-encoding"):
            env["HTTP_CONTENT_ENCODING"] = request.headers["content-encoding"]
        result = subprocess.run(["git", "http-backend"], input=request.body, env=env, capture_output=True, check=False)
        head, _, body = result.stdout.partition(b"\r\n\r\n")
        if not _:
            head, _, body = result.stdout.partition(b"\n\n")
        status, headers = 200, {}
        for line in head.decode("latin-1").splitlines():
            key, _, value = line.partition(":")
            if key.lower() == "status":
                status = int(value.strip().split()[0])
            elif key:
                headers[key.strip()] = value.strip()
        self._send(handler, Reply(status, body, headers))
