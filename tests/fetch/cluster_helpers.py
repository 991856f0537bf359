"""Shared by the cluster tests and scripts/bench_cluster.py, scripts/compare_cluster.py: generated
sources on the fixture server, and a file-for-file comparison of two corpora's mirrors.

Two fetches of the same bytes differ only where time or chance enters: provenance's timestamps
(fetched_at, checked_at, each attempt's `at`), the WARC capture's record ids and dates (and so
its gzip bytes, hash and size) and the server's `Date:` header inside it. compare_mirrors sets
exactly those aside and compares everything else byte for byte.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

WORDS = ["tile", "kernel", "memory", "warp", "pipeline", "ascend", "cube", "vector", "shared", "register", "layout", "schedule", "内存", "算子", "流水线"]
_TIMES = ("fetched_at", "checked_at")
WARC = "capture.warc.gz"


def html_page(i: int, scale: int = 1) -> bytes:
    """A generated article page of about 3 KB (`scale` times the paragraphs for a heavier one)."""
    paras = "".join(f"<p>{' '.join(WORDS[(i * 7 + j + k) % len(WORDS)] for k in range(40 + i % 30))}.</p>" for j in range((6 + i % 7) * scale))
    return (f"<html lang='en'><head><meta charset='utf-8'><title>Page {i}</title><meta name='author' content='Author {i % 13}'></head>"
            f"<body><nav>menu</nav><article><h1>Page {i}</h1>{paras}<h2>Code</h2><pre><code>for i in range({i}): pass</code></pre>"
            f"<ul><li>item {i}</li><li>item {i + 1}</li></ul></article><footer>footer</footer></body></html>").encode()


def pdf_bytes(i: int, pages: int = 3) -> bytes:
    import pymupdf

    doc = pymupdf.open()
    for page in range(pages):
        doc.new_page().insert_text((72, 72), f"Paper {i} page {page + 1}: " + " ".join(WORDS[:12]))
    data = doc.tobytes()
    doc.close()
    return data


def serve_generated(server, pages: int, pdfs: int, pdf_pages: int = 3, scale: int = 1) -> list[dict]:
    """Register `pages` HTML pages and `pdfs` PDFs on the fixture server; their registry entries."""
    entries = []
    for i in range(pages):
        server.add(f"/p/{i}.html", html_page(i, scale), etag=f'"p{i}"')
        entries.append({"id": f"page-{i}", "url": server.url(f"/p/{i}.html"), "kind": "article"})
    for i in range(pdfs):
        server.add(f"/pdf/{i}.pdf", pdf_bytes(i, pdf_pages), content_type="application/pdf", etag=f'"f{i}"')
        entries.append({"id": f"pdf-{i}", "url": server.url(f"/pdf/{i}.pdf"), "kind": "paper"})
    return entries


def _provenance(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8"))
    for key in _TIMES:
        data.pop(key, None)
    data["attempts"] = [{k: v for k, v in a.items() if k != "at"} for a in data.get("attempts", [])]
    data["files"] = [f if f.get("path") != WARC else {"path": WARC} for f in data.get("files", [])]
    return data


def _warc(path: Path) -> list[tuple]:
    from warcio.archiveiterator import ArchiveIterator

    records = []
    with open(path, "rb") as handle:
        for record in ArchiveIterator(handle):
            headers = record.http_headers.headers if record.http_headers else []
            kept = tuple((k, v) for k, v in headers if k.lower() != "date")
            records.append((record.rec_type, record.rec_headers.get_header("WARC-Target-URI"),
                            record.http_headers.statusline if record.http_headers else "", kept, record.content_stream().read()))
    return records


def tree(folder: Path) -> dict[str, Path]:
    """Every file under `folder` by its relative path (folders of killed runs' staging included)."""
    found = {}
    for root, _dirs, names in os.walk(folder):
        for name in names:
            path = Path(root) / name
            found[str(path.relative_to(folder))] = path
    return found


def compare_mirrors(a: Path, b: Path) -> list[str]:
    """Differences between two corpora's raw/ folders (corpus roots), ignoring only time and chance."""
    differences = []
    left, right = tree(a), tree(b)
    for name in sorted(set(left) | set(right)):
        if "/raw/" not in f"/{name}":
            continue
        if name not in left or name not in right:
            differences.append(f"{name}: only in {'the first' if name in left else 'the second'}")
            continue
        if name.endswith("/provenance.json") or "/.failed/" in name:
            if _provenance(left[name]) != _provenance(right[name]):
                differences.append(f"{name}: records differ")
        elif name.endswith("/" + WARC):
            if _warc(left[name]) != _warc(right[name]):
                differences.append(f"{name}: WARC records differ")
        elif left[name].read_bytes() != right[name].read_bytes():
            differences.append(f"{name}: contents differ")
    return differences


def compare_locks(a: Path, b: Path) -> list[str]:
    """Differences between two corpus.lock files, the pins' fetched_at aside."""
    pins = []
    for root in (a, b):
        data = json.loads((root / "corpus.lock").read_text(encoding="utf-8"))["sources"]
        pins.append({sid: {k: v for k, v in pin.items() if k != "fetched_at"} for sid, pin in data.items()})
    return [f"corpus.lock: pin of {sid} differs" for sid in sorted(set(pins[0]) | set(pins[1])) if pins[0].get(sid) != pins[1].get(sid)]
