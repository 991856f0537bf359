"""`corpus-build attach ID FILE [--note TEXT]`: a copy the user saved becomes the source's mirror.

For sources that refuse automated clients (a PDF behind a browser check, a login wall):
the user opens the page in a browser, saves it, and hands the file over. Accepted:

    a PDF                      kept as paper.pdf, extracted page by page (and by heading)
    an HTML file               kept as page.html, extracted like a fetched page; a
                               SingleFile-style page with its images inlined is just that
    a "save page" folder       (or its .html, when the `<name>_files/` folder is beside it):
                               every file is kept under supplied/, the page extracted
    MHTML (.mht, .mhtml)       kept as page.mhtml; its HTML part becomes page.html, its
                               other parts go to page_files/
    an image                   kept as image.<ext>

The mirror is written the way fetch writes one: into a staging folder beside it,
renamed into place only when complete (a failed attach leaves the previous mirror as
it was), under the same run lock, with the same names a killed run's leftovers are
cleaned by. Provenance says `supplied: {by: user, file_name, sha256, time, note}`;
`fetch` keeps such a mirror until `fetch --force`.
"""

from __future__ import annotations

import difflib
import email
import email.policy
import hashlib
import os
import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

from ..core import swapdir
from ..core.errors import ContentError, UsageError
from ..core.model import Corpus
from ..core.provenance import Document, Extractor, Provenance, Status, Supplied, clear_failure, read_provenance, utc_stamp, write_provenance
from . import keep, lockfile
from .engine import check_paths, clean_leftovers, settle_lock
from .options import from_corpus
from .records import carry_user_entries, output_files

# Document.partial_reason of a supplied copy with no text (render tells the reader it lacks the text).
HOLLOW = "the supplied copy holds no text (an empty or script-only page?); attach a copy saved after the page had loaded"
MAX_FILES = 5000  # files copied from a saved-page folder
_IMAGES = ((b"\x89PNG\r\n\x1a\n", "png", "image/png"), (b"\xff\xd8\xff", "jpg", "image/jpeg"), (b"GIF87a", "gif", "image/gif"),
           (b"GIF89a", "gif", "image/gif"))
_HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
_HTML_SNIFF = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body|meta|title)\b", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Supply:
    """What the user handed over, as detected."""

    form: str  # pdf, html, folder, mhtml, image
    path: Path  # the file, or the folder
    page: Path | None = None  # a folder's main HTML page
    content_type: str = ""
    suffix: str = ""


def detect(path: Path) -> Supply:
    """Which of the accepted forms `path` is; a UsageError naming what was expected otherwise."""
    if path.is_symlink():
        path = path.resolve()
    if path.is_dir():
        return Supply("folder", path, page=_main_page(path), content_type="text/html")
    if not path.is_file():
        raise UsageError(f"{path}: no such file or folder; pass the file (or the saved-page folder) your browser wrote")
    with open(path, "rb") as handle:
        head = handle.read(4096)
    if head.startswith(b"%PDF-"):
        return Supply("pdf", path, content_type="application/pdf")
    for magic, suffix, content_type in _IMAGES:
        if head.startswith(magic):
            return Supply("image", path, content_type=content_type, suffix=suffix)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return Supply("image", path, content_type="image/webp", suffix="webp")
    lowered = head.lower()
    if path.suffix.lower() in (".mht", ".mhtml") or (b"mime-version:" in lowered[:1024] and b"multipart/related" in lowered):
        return Supply("mhtml", path, content_type="multipart/related")
    if path.suffix.lower() in _HTML_SUFFIXES or _HTML_SNIFF.match(head):
        if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):  # NUL bytes: binary data, not a page (UTF-16 has a BOM)
            raise UsageError(f"{path}: holds binary data, not an HTML page; attach the file your browser saved (or a PDF, MHTML or image)")
        resources = path.with_name(path.stem + "_files")
        if resources.is_dir():  # "Save page, complete": the page and its folder belong together
            return Supply("folder", path.parent, page=path, content_type="text/html")
        return Supply("html", path, content_type="text/html")
    raise UsageError(f"{path}: cannot tell what this file is; attach a PDF, an HTML page, an MHTML file, an image or a saved-page folder")


def _main_page(folder: Path) -> Path:
    pages = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in _HTML_SUFFIXES)
    if not pages:
        raise UsageError(f"{folder}: no .html page in this folder; pass the page your browser saved (or the folder that holds it)")
    if len(pages) == 1:
        return pages[0]
    paired = [p for p in pages if p.with_name(p.stem + "_files").is_dir()] or [p for p in pages if p.name.lower() in ("index.html", "index.htm")]
    if len(paired) == 1:
        return paired[0]
    raise UsageError(f"{folder}: {len(pages)} HTML pages here ({', '.join(p.name for p in pages[:5])}); pass the one to attach")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()


def _copy_tree(src: Path, dest: Path, max_bytes: int) -> None:
    """Every regular file under src (symlinks are not followed: a saved page is untrusted), within caps."""
    count = total = 0
    for root, dirs, names in os.walk(src, followlinks=False):
        dirs.sort()
        for name in sorted(names):
            path = Path(root) / name
            if path.is_symlink() or not path.is_file():
                continue
            count += 1
            total += path.stat().st_size
            if count > MAX_FILES:
                raise UsageError(f"{src}: more than {MAX_FILES} files; is this really one saved page?")
            if total > max_bytes:
                raise UsageError(f"{src}: more than {max_bytes:,} bytes; raise fetch.max_bytes in corpus.yaml to attach it")
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def _unpack_mhtml(path: Path, stage: Path) -> tuple[Path, str]:
    """page.html (the first HTML part) and page_files/ (every other part) from an MHTML file."""
    with open(path, "rb") as handle:
        message = email.message_from_binary_file(handle, policy=email.policy.default)
    page: Path | None = None
    base = ""
    resources = stage / "page_files"
    for index, part in enumerate(message.walk()):
        if part.is_multipart():
            continue
        decoded = part.get_payload(decode=True)
        payload = decoded if isinstance(decoded, bytes) else b""
        if page is None and part.get_content_type() == "text/html":
            charset = part.get_content_charset() or "utf-8"
            page = stage / "page.html"
            try:
                text = payload.decode(charset, errors="replace")
            except LookupError:
                text = payload.decode("utf-8", errors="replace")
            page.write_text(text, encoding="utf-8")
            base = str(part.get("Content-Location", "") or "")
            continue
        location = str(part.get("Content-Location", "") or "")
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", location.rsplit("/", 1)[-1])[:80] or "part"
        resources.mkdir(exist_ok=True)
        (resources / f"{index:04d}-{name}").write_bytes(payload)
    if page is None:
        raise UsageError(f"{path}: this MHTML file holds no HTML page")
    return page, base


def _extract_html(page: Path, text: Path, url: str) -> dict:
    from .kinds.html import extract_html

    return extract_html(str(page), str(text), url, "text/html; charset=utf-8")


def _html_versions() -> dict[str, str]:
    from .kinds.html import versions

    return versions()


def attach(corpus: Corpus, source_id: str, file: Path, *, note: str = "", accept_worse: bool = False) -> Provenance:
    """Make `file` the mirror of source `source_id`; return the new provenance record.

    A copy worse than the mirror it would replace (no text, an image where a page was, far
    less text: fetch/keep.py) is refused with the reason, unless `accept_worse`.
    """
    source = corpus.by_id.get(source_id)
    if source is None:
        hint = difflib.get_close_matches(source_id, list(corpus.by_id), n=1)
        raise UsageError(f"no source with id '{source_id}' in the registry" + (f"; did you mean '{hint[0]}'?" if hint else ""))
    given = Path(file).expanduser()
    supply = detect(given)
    options = from_corpus(corpus)
    if supply.form != "folder" and supply.path.stat().st_size > options.max_bytes:
        raise UsageError(f"{supply.path}: {supply.path.stat().st_size:,} bytes is more than fetch.max_bytes ({options.max_bytes:,}); raise it in corpus.yaml")
    check_paths(corpus, [source])  # the folders attach writes to and removes from, as for fetch
    raw = corpus.raw_dir(source)
    raw.parent.mkdir(parents=True, exist_ok=True)
    with lockfile.run_lock(corpus.root, "attach", wait=lockfile.BRIEF_WAIT):
        clean_leftovers(corpus)
        settle_lock(corpus)
        # Named like the engine's staging folders, so a killed attach is cleaned up by the next run.
        stage = raw.with_name(f".{source.id}.tmp-{os.getpid()}-attach")
        shutil.rmtree(stage, ignore_errors=True)
        stage.mkdir()
        try:
            facts = _fill(stage, supply, source.url, options.max_bytes)
            now = utc_stamp()
            primary = supply.page if supply.form == "folder" and supply.page else supply.path
            hollow = supply.form != "image" and not keep.holds_words(stage, Provenance(id="", kind="", cited_url="", status=Status.OK, text_file=facts.get("text", "")))
            document = facts.get("document", Document())
            if hollow:  # an empty page, a script-only page: kept as supplied, never called a complete copy
                document = replace(document, partial_reason=HOLLOW)
            record = Provenance(
                id=source.id, kind=source.kind, cited_url=source.url, status=Status.PARTIAL if hollow else Status.OK, fetched_at=now, checked_at=now,
                content_type=supply.content_type, bytes=facts["bytes"], sha256=facts["sha256"], body_file=facts["body"],
                text_file=facts.get("text", ""), files=output_files(stage), extractor=facts.get("extractor"), document=document,
                supplied=Supplied(by="user", file_name=given.name, sha256=_sha256(primary), time=now, note=note.strip()),
            )
            previous = read_provenance(raw)
            declined = None if accept_worse or previous is None or previous.cited_url != source.url else keep.judge(previous, raw, record, stage)
            if declined is not None:
                raise ContentError(keep.explain(declined, source.id, command="attach"), url=str(given))
            carry_user_entries(raw, stage)  # files of the user's in raw/<id> come along (fetch/records.py)
            write_provenance(stage, record)
            lockfile.note_pending(corpus.root, source.id)  # killed after the swap: the next run pins it (lockfile.settle)
            swapdir.replace(stage, raw)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        clear_failure(raw)
        keep.forget_declined(raw)
        pins = lockfile.read_lock(corpus.root)
        pins[source.id] = lockfile.pin_of(record)
        lockfile.write_lock(corpus.root, dict(sorted(pins.items())))
        lockfile.done(corpus.root)
    return record


def _fill(stage: Path, supply: Supply, url: str, max_bytes: int) -> dict:
    """Copy and extract into the stage; the facts the provenance record needs."""
    text = stage / "text.md"
    if supply.form == "pdf":
        from .kinds.pdf import PDF, extract_pdf, pymupdf_version

        shutil.copyfile(supply.path, stage / PDF)
        facts = extract_pdf(str(stage / PDF), str(text))
        if "error" in facts:
            raise ContentError(f"{supply.path.name} is not a usable PDF: {facts['error']}")
        document = Document(title=facts["title"], authors=tuple(facts["authors"]), page_count=facts["pages"])
        return {"body": PDF, "text": "text.md", "bytes": (stage / PDF).stat().st_size, "sha256": _sha256(stage / PDF),
                "document": document, "extractor": Extractor("pymupdf", {"pymupdf": pymupdf_version()})}
    if supply.form == "image":
        name = f"image.{supply.suffix}"
        shutil.copyfile(supply.path, stage / name)
        return {"body": name, "bytes": (stage / name).stat().st_size, "sha256": _sha256(stage / name)}
    if supply.form == "html":
        body = stage / "page.html"
        shutil.copyfile(supply.path, body)
    elif supply.form == "mhtml":
        shutil.copyfile(supply.path, stage / "page.mhtml")
        body, _base = _unpack_mhtml(stage / "page.mhtml", stage)
    else:
        assert supply.page is not None
        _copy_tree(supply.path, stage / "supplied", max_bytes)
        body = stage / "supplied" / supply.page.relative_to(supply.path)
    facts = _extract_html(body, text, url)
    document = Document(
        title=str(facts.get("title") or ""), language=str(facts.get("language") or ""), published=str(facts.get("published") or ""),
        authors=tuple(facts.get("authors") or ()), images=tuple(facts.get("images") or ()),
    )
    rel = str(body.relative_to(stage))
    return {"body": rel, "text": "text.md", "bytes": body.stat().st_size, "sha256": _sha256(body), "document": document,
            "extractor": Extractor("trafilatura", _html_versions())}


__all__ = ["Supply", "attach", "detect"]
