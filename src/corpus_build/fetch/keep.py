"""A mirror is never replaced by a worse capture (issue 36).

Pages get redesigned, paywalled, taken down or turned into JavaScript shells every day;
the corpus exists to keep what was there. So before a new capture replaces a mirror,
`judge` compares the two, and the new one is declined when it

    holds no text (under MIN_TEXT bytes) where the mirror has text         "no-text"
    is another kind of body: an image or an unknown binary where a page,   "other-type"
    a PDF or a text was
    is a page titled as an error ("Page not found", "404", "页面不存在")     "error-page"
    where the mirror's title was not: a soft 404, answered with status 200
    was redirected to a site's front page where the mirror was not of one  "front-page"
    (a removed page sent "home": the front page has text, just not the work's)
    is partial (a shell no browser rendered) where the mirror is complete, "partial"
    and holds less text
    holds less than LESS_TEXT of the mirror's text                         "less-text"

Text is counted in bytes of extracted text without U+FFFD, what undecodable bytes became.

A declined capture does not touch the mirror. Its files are kept in
raw/.declined/<id>/ for the curator to look at, and a record with status `kept` and the
reason goes where failures go (raw/.failed/<id>.json): `status`, the source page and
the status page say "the last fetch returned …, showing the capture of DATE". `--force`
does not override this (it only skips conditional requests); `fetch ID --accept-worse`
and `attach ID FILE --accept-worse` do. Repositories are never judged this way: a
commit is what it is.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import urlsplit

from ..core import swapdir
from ..core.provenance import Declined, Provenance, Status, write_provenance

DECLINED_DIR = ".declined"
MIN_TEXT = 200  # bytes of extracted text: less is no text (a title line, a cookie notice)
LESS_TEXT = 0.5  # a capture with under half the mirror's text is worse
MIN_WORD_CHARS = 10  # letters and digits: fewer is no text at all (an empty or script-only page)
# Titles of error pages. Only a title that *became* one counts (see judge): an article about
# HTTP errors titled so from the start is refreshed as any other page.
_ERROR_TITLE = re.compile(
    r"\b(?:404|410)\b|\b(?:error|http)[ :]*(?:403|500|502|503)\b|not found|page (?:does not|doesn't|no longer) exist|no longer (?:exists|available)|"
    r"access denied|(?:page|content) (?:has been |was )?(?:removed|deleted)|"
    r"(?:页面|网页|文章|内容|资源)(?:不存在|已删除|已被删除|找不到)|找不到(?:页面|网页)|页面未找到|访问出错",
    re.IGNORECASE,
)
_PAGE_TYPES = ("text/html", "application/xhtml+xml")  # (an issue retitled "Module not found" is no error page)
_FRONT_PAGE = re.compile(r"/?(?:index\.[a-z]{3,5})?", re.IGNORECASE)
_TEXT_TYPES = ("text/html", "application/xhtml+xml", "application/pdf", "text/plain", "text/markdown", "application/json", "text/x-")


# What an undecodable byte becomes (U+FFFD in UTF-8). It is not text: a Chinese page whose GBK
# bytes a server declares UTF-8 extracts to as many bytes as before, all of them this.
_REPLACEMENT = "\ufffd".encode()


def text_bytes(folder: Path, record: Provenance) -> int:
    """Bytes of extracted text a mirror (or a staged capture) holds, replacement characters not
    counted; 0 when it has none."""
    if not record.text_file:
        return 0
    try:
        data = (Path(folder) / record.text_file).read_bytes()
    except OSError:
        return 0
    return len(data) - len(_REPLACEMENT) * data.count(_REPLACEMENT)


def holds_words(folder: Path, record: Provenance) -> bool:
    """Whether a capture's extracted text holds any words at all (an empty or script-only page does not)."""
    if text_bytes(folder, record) >= MIN_TEXT:
        return True
    try:
        text = (Path(folder) / record.text_file).read_text(encoding="utf-8", errors="replace") if record.text_file else ""
    except OSError:
        return False
    return sum(1 for char in text if char.isalnum()) >= MIN_WORD_CHARS


def body_class(content_type: str) -> str:
    """"text" for what carries text (pages, PDFs, plain text), else "image" or "other"."""
    kind = content_type.split(";")[0].strip().lower()
    if not kind:
        return "unknown"
    if kind.startswith(_TEXT_TYPES) or kind.endswith(("+xml", "+json")):
        return "text"
    if kind.startswith("image/"):
        return "image"
    return "other"


def is_front_page(url: str) -> bool:
    """Whether `url` is a site's front page (its root, or the root's index file)."""
    return bool(url) and bool(_FRONT_PAGE.fullmatch(urlsplit(url).path))


def error_title(record: Provenance) -> bool:
    """Whether a page's title says it is an error page."""
    return bool(_ERROR_TITLE.search(record.document.title))


def judge(previous: Provenance | None, mirror: Path, new: Provenance, stage: Path) -> Declined | None:
    """Why the capture `new` (staged in `stage`) must not replace `previous` (in `mirror`); None when it may."""
    if previous is None or previous.repo is not None or new.repo is not None:
        return None
    if previous.status not in (Status.OK, Status.UNCHANGED, Status.PARTIAL):
        return None
    kept = text_bytes(mirror, previous)
    if kept < MIN_TEXT:
        return None  # nothing worth keeping against a newer capture (an image, a scan without text)
    got = text_bytes(stage, new)
    reason = ""
    if body_class(previous.content_type) == "text" and body_class(new.content_type) in ("image", "other"):
        reason = "other-type"
    elif got < MIN_TEXT:
        reason = "no-text"
    elif new.sha256 and new.sha256 == previous.sha256:
        return None  # the same bytes: only the extractor differs, and it found text
    elif new.content_type.split(";")[0].strip().lower() in _PAGE_TYPES and error_title(new) and not error_title(previous):
        reason = "error-page"
    elif is_front_page(new.fetched_url) and not is_front_page(previous.fetched_url):
        reason = "front-page"
    elif new.status is Status.PARTIAL and previous.status is not Status.PARTIAL and got < kept:
        reason = "partial"
    elif got < kept * LESS_TEXT:
        reason = "less-text"
    if not reason:
        return None
    return Declined(
        reason=reason, fetched_at=new.fetched_at, fetched_url=new.fetched_url, http_status=new.http_status,
        content_type=new.content_type, bytes=new.bytes, sha256=new.sha256, text_bytes=got,
        kept_text_bytes=kept, kept_fetched_at=previous.fetched_at, partial_reason=new.document.partial_reason, title=new.document.title,
    )


def explain(declined: Declined, source_id: str, *, command: str = "fetch") -> str:
    """The operator's one line: what came back, what is kept, how to accept the new capture anyway."""
    what = {
        "no-text": f"holds no text ({declined.text_bytes:,} bytes of text)",
        "other-type": f"is {declined.content_type.split(';')[0] or 'an unknown type'}, not a page with text",
        "error-page": f"looks like an error page (“{declined.title}”) though the server answered {declined.http_status or 200}",
        "front-page": f"was redirected to the site's front page ({declined.fetched_url}), not the page cited",
        "partial": f"is partial ({declined.partial_reason or 'incomplete'}) with {declined.text_bytes:,} bytes of text",
        "less-text": f"holds {declined.text_bytes:,} bytes of text, less than half",
    }[declined.reason]
    again = f"corpus-build fetch {source_id} --accept-worse" if command == "fetch" else f"corpus-build attach {source_id} FILE --accept-worse"
    return (
        f"the new capture {what}; the mirror fetched {declined.kept_fetched_at or 'earlier'} with {declined.kept_text_bytes:,} bytes of text is kept. "
        f"If the page really changed, run `{again}`"
    )


def declined_dir(mirror: Path) -> Path:
    return Path(mirror).parent / DECLINED_DIR / Path(mirror).name


def keep_declined(stage: Path, mirror: Path, record: Provenance) -> str:
    """Move a declined capture, with its provenance record, from its staging folder to raw/.declined/<id>
    (replacing the last one); its path relative to raw/."""
    write_provenance(stage, record)
    target = declined_dir(mirror)
    target.parent.mkdir(exist_ok=True)
    swapdir.replace(stage, target)
    return f"{DECLINED_DIR}/{target.name}"


def forget_declined(mirror: Path) -> None:
    """A capture was accepted (or the page is unchanged): the last declined one is history."""
    target = declined_dir(mirror)
    if target.is_dir() and not target.is_symlink():
        # raw/.declined/ itself stays: removing it could race with another source's keep_declined.
        shutil.rmtree(target, ignore_errors=True)
