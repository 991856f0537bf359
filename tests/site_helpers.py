"""Build sites in temporary folders and serve them on 127.0.0.1 for the tests."""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

from tests.corpus_fixture import PROJECT_ROOT


def copy_default_project(target: Path) -> Path:
    """The repository's own corpus, mkdocs.yml and assets, copied so builds never touch the work tree."""
    shutil.copytree(PROJECT_ROOT / "corpus", target / "corpus", ignore=shutil.ignore_patterns("raw", ".watch"))
    shutil.copy(PROJECT_ROOT / "mkdocs.yml", target / "mkdocs.yml")
    shutil.copytree(PROJECT_ROOT / "overrides", target / "overrides")
    shutil.copytree(PROJECT_ROOT / "docs" / "assets", target / "docs" / "assets")
    return target


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def serve(directory: Path):
    """Serve a built site at http://127.0.0.1:<free port>/ for the duration of the block."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()
