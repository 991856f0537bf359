"""What the fetch stage writes besides the kinds' own files: WARC captures, file hashes and SWHIDs."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from ..core.errors import ContentError
from ..core.provenance import FILENAME, OutputFile, read_provenance, recorded_paths
from .http import Exchange

WARC = "capture.warc.gz"
_SKIP_HEADERS = {"transfer-encoding", "content-length"}
_SECRET_HEADERS = {"authorization", "cookie", "proxy-authorization"}


def swhid_of_file(path: Path) -> tuple[str, str, int]:
    """(sha256, swh:1:cnt:<sha1_git>, size), reading the file once in chunks."""
    size = path.stat().st_size
    sha256 = hashlib.sha256()
    sha1_git = hashlib.sha1(b"blob %d\0" % size)  # the git blob id is what SWH uses for contents
    with open(path, "rb") as handle:
        while chunk := handle.read(1024 * 1024):
            sha256.update(chunk)
            sha1_git.update(chunk)
    return sha256.hexdigest(), f"swh:1:cnt:{sha1_git.hexdigest()}", size


def output_files(stage: Path, skip: tuple[str, ...] = ("repo", ".git-home")) -> tuple[OutputFile, ...]:
    """Every file written into the staging folder (clones excluded), with hashes and SWHIDs."""
    files = []
    for root, dirs, names in os.walk(stage):
        rel_root = Path(root).relative_to(stage)
        dirs[:] = sorted(d for d in dirs if str(rel_root / d) not in skip)
        for name in sorted(names):
            path = Path(root) / name
            if path.is_symlink() or name.startswith("."):
                continue
            sha256, swhid, size = swhid_of_file(path)
            files.append(OutputFile(path=str(rel_root / name) if str(rel_root) != "." else name, bytes=size, sha256=sha256, swhid=swhid))
    return tuple(files)


def write_warc(target: Path, exchanges: tuple[Exchange, ...]) -> None:
    """Request/response pairs as WARC records (replayable with pywb); payloads stream from disk."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(target, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        for exchange in exchanges:
            payload_path = exchange.payload
            size = payload_path.stat().st_size if payload_path and payload_path.exists() else 0
            headers = [(k, v) for k, v in exchange.response_headers if k.lower() not in _SKIP_HEADERS]
            headers.append(("Content-Length", str(size)))
            protocol = "HTTP/1.1" if exchange.http_version in ("", "HTTP/1.1", "HTTP/1.0") else exchange.http_version
            response_headers = StatusAndHeaders(f"{exchange.status} {exchange.reason}".strip(), headers, protocol=protocol)
            parts = urlsplit(exchange.url)
            target_path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            request_headers = [(k, v) for k, v in exchange.request_headers if k.lower() not in _SECRET_HEADERS]
            request = writer.create_warc_record(
                exchange.url, "request", payload=io.BytesIO(b""),
                http_headers=StatusAndHeaders(f"GET {target_path} HTTP/1.1", request_headers, is_http_request=True),
                warc_headers_dict={"WARC-Date": exchange.at},
            )
            with open(payload_path, "rb") if payload_path is not None and size else io.BytesIO(b"") as payload:
                response = writer.create_warc_record(
                    exchange.url, "response", payload=payload, length=size, http_headers=response_headers,
                    warc_headers_dict={"WARC-Date": exchange.at},
                )
                writer.write_request_response_pair(request, response)


def finish_stage(stage: str, exchanges: tuple[Exchange, ...], warc: bool) -> tuple[str, tuple[OutputFile, ...]]:
    """Runs in a worker: write the WARC, drop raw (still compressed) payload copies, hash every file."""
    stage_path = Path(stage)
    warc_file = ""
    if warc and any(e.payload for e in exchanges):
        write_warc(stage_path / WARC, exchanges)
        warc_file = WARC
    for exchange in exchanges:
        if exchange.payload and exchange.payload.name.startswith("."):
            exchange.payload.unlink(missing_ok=True)
    return warc_file, output_files(stage_path)


def extract_and_finish(fn, args: tuple, stage: str, exchanges: tuple[Exchange, ...], warc: bool) -> tuple[object, tuple[str, tuple[OutputFile, ...]]]:
    """Runs in a worker: an extractor, then finish_stage, so a source costs one round trip to the pool."""
    facts = fn(*args)
    return facts, finish_stage(stage, exchanges, warc)


_OURS_ALWAYS = (FILENAME, "repo", ".git-home")  # the record itself and a clone's parts, which `files` leaves out


def user_entries(raw: Path) -> list[str]:
    """Names in the mirror folder `raw` that fetch did not write: what its provenance.json does not
    name (a note, a folder of scans the user put there). Hidden names are ours (temporary files).
    Every name of a folder without a record (the user made it before the first fetch); none of
    one whose record cannot be read (nothing in it can be told apart then)."""
    try:
        names = sorted(entry.name for entry in os.scandir(raw) if not entry.name.startswith("."))
    except (FileNotFoundError, NotADirectoryError):
        return []
    if not os.path.lexists(raw / FILENAME):
        return names
    record = read_provenance(raw)
    if record is None:
        return []
    ours = {Path(path).parts[0] for path in (*recorded_paths(record), *_OURS_ALWAYS)}
    return [name for name in names if name not in ours]


def carry_user_entries(raw: Path, stage: Path) -> None:
    """Copy into the staging folder what the user put in the mirror it replaces (`user_entries`),
    so that swapping the folder whole never deletes a file fetch did not make. Hard links where
    the file system allows (no bytes copied). The originals stay in `raw` until the swap, so a
    kill at any moment loses none. A name the new capture also writes is refused: the user moves
    theirs, the mirror stays as it was."""
    for name in user_entries(raw):
        source, target = raw / name, stage / name
        if os.path.lexists(target):
            raise ContentError(f"{source} is not a file fetch wrote, and the new capture writes one of that name; move yours elsewhere, then fetch again")
        if source.is_dir() and not source.is_symlink():
            shutil.copytree(source, target, symlinks=True, copy_function=_link_or_copy)
        elif source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            _link_or_copy(str(source), str(target))


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # another file system, an immutable file, links not supported
        shutil.copy2(source, target, follow_symlinks=False)
