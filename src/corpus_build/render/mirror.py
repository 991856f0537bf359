"""What the site says about each source's mirror (the fetch stage's output under corpus/<section>/raw/<id>/).

Everything here derives from content a server sent (titles, errors, extracted
text), so it goes into view records the templates escape, or, for extracted
Markdown, is rendered to HTML and cleaned with nh3 before it reaches a page: no
script, event handler, javascript: URL or third-party image survives. Archived
copies (PDF, HTML, screenshot, WARC) are published beside the source page; the
HTML copy gets a Content-Security-Policy that lets nothing but our own styles,
images and fonts load, and is only ever shown in a sandboxed frame (see `snapshot_html`;
its stylesheets, sanitised: render/snapshotstyles.py). Extracted-text pages stay out of
Material's search index (`search: exclude`): their passages have an index of their
own (site/fulltext.py); the source page carries a short excerpt.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..core import mdtext as md
from ..core.model import Corpus, Source
from ..core.provenance import Declined, Provenance, SavedImage, read_provenance
from . import mirrortext, offlinelink
from .labels import Labels
from .mirrortext import DISPLAY_LIMIT, LOCAL_IMAGE, mirror_file, sanitize_markdown, text_page_path
from .reuse import Reuse
from .reuse import file_digest as reuse_digest
from .reuse import plain_text as reuse_words
from .snapshotstyles import PublishedStyles, archive_budget, inline_fonts, published_styles, restyle
from .views import (
    Badge,
    Code,
    CountRow,
    Fact,
    Link,
    MirrorPanel,
    Notice,
    Piece,
    Snapshot,
    StatusPage,
    Table,
    TextPage,
    local_time,
    render,
    safe_url,
)

EXCERPT = 600  # characters of extracted text on the source page
RENDERED_HTML = "rendered.html"  # the DOM after Chromium ran the page (fetch/browser.RENDERED)
# How fetch/kinds/html.py's partial reasons start (its NEEDS_JS; a test keeps the two equal):
# not imported, because the fetch package costs every render a fifth of a second to import.
NEEDS_JS = "needs JavaScript"


def _rel(from_page: str, to_page: str) -> str:
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


PUBLISH_LIMIT = 50 * 1024 * 1024  # archived files larger than this stay in the mirror only
# The policy of every published HTML snapshot: nothing but our own origin's styles, images and
# fonts. Fonts may be data: URLs, which only our sanitised sheets can name (no inline style
# runs): how a sandboxed frame gets them without CORS (render/snapshotstyles.py).
SNAPSHOT_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
SWH_RESOLVER = "https://archive.softwareheritage.org/"


@dataclass(frozen=True)
class MirrorInfo:
    """A source's mirror as render sees it: fresh, stale, failed, skipped or never (not archived yet)."""

    state: str
    record: Provenance | None
    failure: Provenance | None


def info(corpus: Corpus, source: Source) -> MirrorInfo:
    """As provenance.mirror_state, with a good, recent mirror ("ok", "unchanged") called fresh.

    A source without a URL and without a copy is "nourl": there is nothing to fetch, so
    it is not mirrored by design (not "never fetched", which promises a copy to come).
    """
    state, record, failure = mirrortext.mirror_state(corpus.raw_dir(source), corpus.settings.stale_after_days)
    if state == "never fetched":
        return nothing_fetched(source)
    return MirrorInfo("fresh" if state in ("ok", "unchanged") else state, record, failure)


def nothing_fetched(source: Source) -> MirrorInfo:
    """The state of a source with no mirror and no failure: "never", or "nourl" without a URL."""
    return MirrorInfo("never" if source.url else "nourl", None, None)


def _state(corpus: Corpus, source: Source) -> tuple[str, Provenance | None, Provenance | None]:
    found = info(corpus, source)
    return found.state, found.record, found.failure


MIRROR_STATES = ("fresh", "stale", "partial", "kept", "failed", "skipped", "never", "nourl")
_STATE_LABELS = {"fresh": "fresh", "stale": "stale", "partial": "partial", "kept": "kept", "failed": "failed", "skipped": "skipped", "never": "never_fetched",
                 "nourl": "no_url_state"}
_STATE_CSS = {"fresh": "fresh", "stale": "stale", "partial": "stale", "kept": "stale", "skipped": "stale", "never": "stale", "failed": "failed", "nourl": "nourl"}


def state_label(state: str, t: Labels) -> str:
    return t(_STATE_LABELS.get(state, "failed"))


def state_badge(state: str, t: Labels) -> Badge:
    return Badge(state_label(state, t), _STATE_CSS.get(state, "failed"))


def _freshness_badge(state: str, t: Labels) -> str:
    badge = state_badge(state, t)
    return md.badge(badge.label, badge.css)


def failure_reason(failure: Provenance, t: Labels) -> str:
    """Why the last attempt failed, in the reader's words (never the raw exception text)."""
    if failure.declined is not None:
        return declined_reason(failure.declined, t)
    attempt = failure.attempts[-1] if failure.attempts else None
    outcome = attempt.outcome if attempt else ""
    code = attempt.status if attempt else 0
    error = (failure.error + " " + (attempt.error if attempt else "")).lower()
    if outcome.startswith("http-") or code >= 400:
        if not code and outcome[5:].isdigit():
            code = int(outcome[5:])
        if code in (404, 410):
            return t("reason_http_404", code=code)
        if code in (401, 403, 451):
            return t("reason_http_403", code=code)
        if code == 429:
            return t("reason_http_429")
        if code >= 500:
            return t("reason_http_5xx", code=code)
        return t("reason_http", code=code)
    if "ratelimit" in outcome or failure.status.value == "skipped":
        return t("reason_http_429")
    if "timed out" in error or "timeout" in error:
        return t("reason_timeout")
    if outcome == "transport" or "errno" in error or "connect" in error or "name or service" in error:
        return t("reason_transport")
    if outcome == "content":
        return t("reason_content")
    if outcome == "git" or failure.kind == "repo":
        return t("reason_git")
    return t("reason_other")


def declined_reason(declined: Declined, t: Labels) -> str:
    """What a declined capture held (fetch/keep.py), in the reader's words."""
    if declined.reason == "other-type":
        return t("kept_other_type", type=declined.content_type.split(";")[0].strip() or "?")
    if declined.reason == "partial":
        return t("kept_partial")
    if declined.reason == "error-page":  # a soft 404: an error page answered with 200
        return t("kept_error_page")
    if declined.reason == "front-page":  # a removed page redirected to the site's root
        return t("kept_front_page")
    if declined.reason == "less-text":
        return t("kept_less_text", new=_size(declined.text_bytes), old=_size(declined.kept_text_bytes))
    return t("kept_no_text")


def partial_reason(record: Provenance, t: Labels) -> str:
    """What a partial mirror lacks, in the reader's words ("" for a complete one).

    The fetch stage records its reason for the operator (in English, with the setting
    to change); the reader is told only what the copy is missing.
    """
    reason = record.document.partial_reason
    if not reason:
        return ""
    if reason.startswith(NEEDS_JS):
        return t("partial_needs_js")
    return t("partial_other")


def publishable_url(url: str) -> str:
    """`url` made safe to link (views.safe_url), or "" for an address on this machine or its network.

    A mirror fetched through a local proxy or test server records a loopback or private
    address as where the copy came from: meaningless to a reader, and never a link.
    """
    from urllib.parse import urlsplit

    safe = safe_url(url)
    try:
        host = urlsplit(safe).hostname or ""
    except ValueError:
        return ""
    return "" if not host or _local_host(host) else safe


def _local_host(host: str) -> bool:
    """localhost names, local-network suffixes, and IP literals of this machine or its network."""
    import ipaddress

    host = host.lower().rstrip(".").strip("[]")
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal", ".lan", ".home.arpa")):
        return True
    try:
        address = ipaddress.ip_address(int(host) if host.isdigit() else host)  # http://2130706433/ is 127.0.0.1
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    address = mapped or address
    return address.is_loopback or address.is_private or address.is_link_local or address.is_unspecified or address.is_reserved or address.is_multicast


def thread_state_badge(record: Provenance | None, t: Labels, tz: dt.tzinfo) -> Badge | None:
    """open / draft / merged (with date) / closed for an issue or PR with a mirror, else None."""
    if record is None or record.thread is None:
        return None
    state = record.thread.display_state
    if state == "merged":
        return Badge(t("thread_merged", date=local_time(record.thread.merged_at, tz, with_time=False)), "state-merged")
    css = {"open": "state-open", "draft": "state-open", "closed": "state-closed"}.get(state, "state-open")
    return Badge(t(f"thread_{state}") if state in ("open", "draft", "closed") else state, css)


def thread_badge(corpus: Corpus, source: Source, t: Labels) -> str:
    """The state badge as HTML ("" when the source has no thread facts)."""
    badge = thread_state_badge(read_provenance(corpus.raw_dir(source)), t, corpus.settings.tzinfo)
    return md.badge(badge.label, badge.css) if badge else ""


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{int(n):,} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def _excerpt(corpus: Corpus, source: Source, record: Provenance) -> str:
    path = mirror_file(corpus, source, record.text_file)
    if path is None:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(EXCERPT * 4)
    except OSError:
        return ""
    text = reuse_words(text)  # the words as the page showed them (tile-ai, __init__.py), no syntax; kept between renders
    return text[:EXCERPT] + ("…" if len(text) > EXCERPT else "")


def archive_dir(source: Source) -> str:
    """Where a source's archived copies are published, under docs/."""
    return f"sources/{source.id}/archive"


def _archived(corpus: Corpus, source: Source, record: Provenance) -> list[tuple[str, str, Path]]:
    """(kind, file name, path in the mirror) of every copy worth publishing, primary first."""
    found: list[tuple[str, str, Path]] = []
    # A page its scripts build was rendered in Chromium: the archived HTML is then its empty shell
    # ("please enable JavaScript"), the rendered DOM is what the reader saw (issue 21).
    rendered = mirror_file(corpus, source, RENDERED_HTML) if record.document.renderer else None
    if rendered is not None:
        found.append(("html", "page.html", rendered))
    names = [record.body_file, *(f.path for f in record.files)]
    for name in dict.fromkeys(n for n in names if n):
        path = mirror_file(corpus, source, name)
        if path is None:
            continue
        lower = name.lower()
        if lower.endswith(".pdf"):
            found.append(("pdf", Path(name).name, path))
        elif lower.endswith((".html", ".htm")) and name == record.body_file:
            found.append(("html", "page.html", path))
    # The record names its screenshot (WebP since issue 21; mirrors made before hold a PNG).
    shot_name = record.document.screenshot or "screenshot.png"
    shot = mirror_file(corpus, source, shot_name)
    if shot is not None:
        found.append(("screenshot", Path(shot_name).name, shot))
    warc = mirror_file(corpus, source, record.warc_file) if record.warc_file else None
    if warc is not None:
        found.append(("warc", Path(record.warc_file).name, warc))
    kinds_seen: set[str] = set()
    unique = []
    for kind, name, path in found:
        if kind in kinds_seen:
            continue
        try:
            if path.stat().st_size > PUBLISH_LIMIT:
                continue
        except OSError:
            continue
        kinds_seen.add(kind)
        unique.append((kind, name, path))
    return unique


def snapshot_html(data: bytes, page_urls: tuple[str, ...] = (), images: Mapping[str, str] | None = None, styles: PublishedStyles | None = None) -> bytes:
    """The archived page of `snapshot_page`, without the style files it makes."""
    return snapshot_page(data, page_urls, images, styles)[0]


def snapshot_page(data: bytes, page_urls: tuple[str, ...] = (), images: Mapping[str, str] | None = None,
                  styles: PublishedStyles | None = None) -> tuple[bytes, dict[str, bytes]]:
    """A mirrored page made safe to publish: a CSP first in <head>; refresh, base and plugin tags removed.

    The page stays as archived otherwise (its scripts remain in the file but the policy
    forbids them, and the sandboxed frame that shows it allows no script either). Images the
    mirror kept are pointed at their published copies (`images`: absolute address -> path from
    the archive folder, resolved against `page_urls`); an image or stylesheet the mirror lacks
    loses its address, so the frame shows the alt text instead of asking the site for a file
    that is not there (issue 21). Its stylesheet links point at the published copies (`styles`),
    its `<style>` blocks and `style=` attributes become files of their own: returned with the
    page, by path from the archive folder (render/snapshotstyles.py).
    """
    from urllib.parse import urljoin

    from bs4 import BeautifulSoup, Doctype, Tag

    soup = BeautifulSoup(data, "html.parser")
    base_tag = soup.find("base", href=True)
    base_href = str(base_tag.get("href") or "").strip() if isinstance(base_tag, Tag) else ""
    # Relative addresses resolve against <base href> as in the original, though the tag goes.
    bases = tuple(dict.fromkeys([*(urljoin(u, base_href) for u in page_urls if base_href), *page_urls]))
    for tag in soup.find_all(["base", "object", "embed", "applet", "portal"]):
        tag.decompose()
    kept = images or {}

    def local(address: str) -> str | None:
        for base in bases or ("",):
            found = kept.get(urljoin(base, address.strip()).split("#", 1)[0])
            if found:
                return found
        return None

    for img in soup.find_all(["img", "source"]):
        address = str(img.get("src") or "")
        copy = local(address) if address else None
        for attribute in ("srcset", "sizes", "loading", "decoding"):
            img.attrs.pop(attribute, None)
        if copy:
            img["src"] = copy
        else:
            img.attrs.pop("src", None)
    made = restyle(soup, bases, styles or PublishedStyles())
    for tag in soup.find_all("meta"):
        if str(tag.get("http-equiv", "")).lower() in ("refresh", "set-cookie", "content-security-policy"):
            tag.decompose()
    # First in the document, before anything a page could put ahead of <head> (a parser puts a
    # leading <meta> into the head it opens), so the policy covers every later script.
    csp = soup.new_tag("meta")
    csp["http-equiv"] = "Content-Security-Policy"
    csp["content"] = SNAPSHOT_CSP
    referrer = soup.new_tag("meta")
    referrer["name"] = "referrer"
    referrer["content"] = "no-referrer"
    start = next((i for i, node in enumerate(soup.contents) if not isinstance(node, Doctype)), len(soup.contents))
    soup.insert(start, csp)
    soup.insert(start + 1, referrer)
    return soup.encode(formatter="minimal"), made


Lookup = Callable[[Source], MirrorInfo]


def extra_files(corpus: Corpus, lookup: Lookup | None = None, reuse: Reuse | None = None) -> Iterator[tuple[str, bytes | Path]]:
    """Archived copies published beside the source pages (path under docs/, bytes or a file to copy), one at a time.

    An archived page is made safe to publish (`snapshot_page`: a parse of the whole page);
    with `reuse`, one whose inputs are as the last render had them is read back from docs/.
    """
    for source in corpus.sources:
        record = (lookup or (lambda s: info(corpus, s)))(source).record
        if record is None:
            continue
        # The images the extracted text shows, published beside its page (sources/<id>/images/).
        images = [(image, mirror_file(corpus, source, image.path) if LOCAL_IMAGE.fullmatch(image.path) else None) for image in record.document.image_files]
        for image, copy in images:
            if copy is not None:
                yield f"sources/{source.id}/{image.path}", copy
        for kind, name, path in _archived(corpus, source, record):
            target = f"{archive_dir(source)}/{name}"
            if kind != "html":
                yield target, path
                continue
            key = _archive_key(corpus, source, record, path, images, reuse)
            kept = reuse.get_files(key) if reuse is not None else None
            if kept is not None:
                yield from kept.items()
                continue
            styles = published_styles(corpus, source, record, archive_budget(corpus, source, record, path))
            try:
                page, made = snapshot_page(path.read_bytes(), _page_urls(record), _kept_images(images), styles)
            except OSError:
                continue
            group: dict[str, bytes | Path] = {target: page}
            # A font many rules name is published once (render/snapshotstyles.py: the font bomb).
            for style_name, content in inline_fonts({**styles.files, **made}, styles.fonts).items():
                group[f"{archive_dir(source)}/{style_name}"] = content
            if reuse is not None:
                reuse.made_files(key, group)
            yield from group.items()


def _archive_key(corpus: Corpus, source: Source, record: Provenance, page: Path, images: list[tuple[SavedImage, Path | None]], reuse: Reuse | None) -> str | None:
    """What an archived page's published files are made of: its record, its bytes, its kept styles' bytes, which images are kept."""
    if reuse is None:
        return None
    try:
        # The source's cap on published archive bytes decides which styles are kept (archive_budget).
        parts: list[object] = [source.id, repr(record), _file_digest(page), repr(corpus.settings.extra.get("archive_max_bytes"))]
        for saved in record.document.style_files:
            found = mirror_file(corpus, source, saved.path) if saved.path else None
            parts.append((saved.path, _file_digest(found) if found is not None else None))
    except OSError:
        return None
    parts.append(tuple((image.path, copy is not None) for image, copy in images))
    return reuse.key("mirror-archive", "", tuple(parts))


def _page_urls(record: Provenance) -> tuple[str, ...]:
    """The addresses a mirrored page's relative links are resolved against: where it was fetched, and cited."""
    return tuple(dict.fromkeys(u for u in (record.fetched_url, record.cited_url) if u))


def _kept_images(images: list[tuple[SavedImage, Path | None]]) -> dict[str, str]:
    """The published images (those with a copy) by address, cited and fetched, as a path from the archive folder."""
    kept: dict[str, str] = {}
    for image, copy in images:
        if copy is not None:
            for address in (image.url, image.fetched_url):
                if address:
                    kept[address] = "../" + image.path  # archive/page.html -> sources/<id>/images/
    return kept


def _snapshots(corpus: Corpus, source: Source, record: Provenance, t: Labels, page: str, directory_urls: bool) -> list[Snapshot]:
    # Raw HTML links are not rewritten by MkDocs: from sources/<id>/ (or sources/<id>.html).
    prefix = "archive/" if directory_urls else f"{source.id}/archive/"
    labels = {"pdf": t("snapshot_pdf"), "html": t("snapshot_html"), "screenshot": t("snapshot_screenshot"), "warc": t("snapshot_warc")}
    found = []
    for kind, name, path in _archived(corpus, source, record):
        try:
            size = _size(path.stat().st_size)
        except OSError:
            size = ""
        found.append(Snapshot(kind, labels[kind], prefix + name, size if kind in ("pdf", "warc") else ""))
    return found


def _thread_facts(record: Provenance, source: Source, t: Labels, tz: dt.tzinfo) -> tuple[Fact, ...]:
    from ..core import urls

    thread = record.thread
    if thread is None:
        return ()
    facts: list[Fact] = []
    parts = urls.github_parts(source.url) if source.url else None
    if parts:
        repo = f"{parts[0]}/{parts[1]}"
        facts.append(Fact(t("thread_repo"), (Link(repo, f"https://github.com/{repo}", external=True),)))
    if thread.number:
        facts.append(Fact(t("thread_number"), (f"#{thread.number}",)))
    badge = thread_state_badge(record, t, tz)
    state_pieces: list[Piece] = [badge] if badge else []
    when = thread.merged_at if thread.merged else thread.closed_at if thread.state == "closed" else ""
    if when and not thread.merged:
        state_pieces.append(local_time(when, tz))
    facts.append(Fact(t("pr_state"), tuple(state_pieces)))
    if thread.author:
        facts.append(Fact(t("thread_author"), (Link(thread.author, f"https://github.com/{thread.author}", external=True),)))
    if thread.created_at:
        facts.append(Fact(t("thread_created"), (local_time(thread.created_at, tz),)))
    if thread.labels:
        facts.append(Fact(t("thread_labels"), tuple(Code(label) for label in thread.labels), " "))
    review = getattr(thread, "review_comments", 0)
    comments = thread.comments + (review if isinstance(review, int) else 0)
    facts.append(Fact(t("thread_comments"), (t("thread_comments_n", n=comments),)))
    return tuple(facts)


def panel_view(corpus: Corpus, source: Source, t: Labels, page: str, found: MirrorInfo | None = None, *, directory_urls: bool = True) -> MirrorPanel:
    """The mirror section of a source page, as a view record."""
    found = found or info(corpus, source)
    state, record, failure = found.state, found.record, found.failure
    tz = corpus.settings.tzinfo
    notices = []
    if failure is not None and failure.declined is not None and record is not None:
        # The last fetch came back worse than the mirror: say so, and that the mirror below is the older capture.
        title = f"{state_label(failure.status.value, t)}{t.colon}{local_time(failure.checked_at, tz)}"
        notices.append(Notice("warning", title, t("kept_body", what=declined_reason(failure.declined, t), date=local_time(record.fetched_at, tz))))
    elif failure is not None:
        title = f"{state_label(failure.status.value, t)}{t.colon}{local_time(failure.checked_at, tz)}"
        notices.append(Notice("failure", title, t("fetch_failed_body", reason=failure_reason(failure, t))))
    if record is None:
        if state == "nourl":
            notices.append(Notice("info", t("no_url_state"), t("no_url_body")))
        elif failure is None:
            notices.append(Notice("info", t("not_mirrored"), t("not_mirrored_body")))
        return MirrorPanel(notices=tuple(notices))
    if state == "stale":
        notices.append(Notice("warning", t("stale"), t("stale_body", days=corpus.settings.stale_after_days)))
    facts = [Fact(t("mirror_state"), (state_badge(state, t),)), Fact(t("fetched_at"), (local_time(record.fetched_at, tz),))]
    missing = partial_reason(record, t)
    if missing:
        facts.append(Fact(t("partial_reason"), (missing,)))
    if record.checked_at and record.checked_at != record.fetched_at:
        facts.append(Fact(t("checked_at"), (local_time(record.checked_at, tz),)))
    if record.supplied is not None:  # a copy the user saved (corpus-build attach)
        supplied = t("supplied_copy", name=record.supplied.file_name) + (f" · {record.supplied.note}" if record.supplied.note else "")
        facts.append(Fact(t("supplied"), (supplied,)))
    fetched = publishable_url(record.fetched_url)
    if fetched and fetched != safe_url(source.url):
        facts.append(Fact(t("fetched_from"), (Link(record.fetched_url, fetched, external=True),)))
    if record.content_type:
        facts.append(Fact(t("content_type"), (record.content_type.split(";")[0],)))
    if record.bytes:
        facts.append(Fact(t("size"), (_size(record.bytes),)))
    if record.sha256:
        facts.append(Fact(t("sha256"), (Code(record.sha256),)))
    if record.repo:
        commit: list[Piece] = [Code(record.repo.commit[:12])]
        if record.repo.commit_date:
            commit.append(local_time(record.repo.commit_date, tz))
        facts.append(Fact(t("pinned_commit"), tuple(commit)))
        if record.repo.branch:
            facts.append(Fact(t("branch"), (Code(record.repo.branch),)))
        if record.repo.latest_tag:
            facts.append(Fact(t("latest_tag"), (Code(record.repo.latest_tag),)))
        from .repodocs import panel_facts  # its docs pages and what they leave out (render/repodocs.py)

        facts.extend(panel_facts(corpus, source, record, t, page))
    swhid = (record.repo.swhid if record.repo else "") or next((f.swhid for f in record.files if f.swhid and f.path == record.body_file), "")
    if swhid and re.fullmatch(r"swh:1:(cnt|dir|rev|rel|snp):[0-9a-f]{40}", swhid):
        facts.append(Fact(t("swhid"), (Link(swhid, SWH_RESOLVER + swhid, external=True),)))
    if record.document.page_count:
        facts.append(Fact(t("pages"), (str(record.document.page_count),)))
    if record.text_file and mirror_file(corpus, source, record.text_file) is not None:
        label = t("thread_page") if record.thread is not None else t("extracted_text")
        facts.append(Fact(label, (Link(label + " →", _rel(page, text_page_path(source))),)))
    snapshots = _snapshots(corpus, source, record, t, page, directory_urls)
    frame = next((Snapshot("html", t("snapshot_frame"), s.href) for s in snapshots if s.kind == "html"), None)
    archived_page = next((path for kind, _name, path in _archived(corpus, source, record) if kind == "html"), None)
    budget = archive_budget(corpus, source, record, archived_page) if archived_page is not None else None
    if budget is not None and budget.dropped:  # the archive was cut to the per-source cap (snapshotstyles.py)
        notices.append(Notice("info", t("archive_trimmed"), t("archive_trimmed_body", n=budget.dropped, size=_size(budget.cap))))
    excerpt, label = "", ""
    if record.text_file:
        if record.thread is not None:
            from .thread import thread_excerpt  # the description, not text.md's header line of ISO times

            excerpt = thread_excerpt(corpus, source, record, EXCERPT)
        else:
            excerpt = _excerpt(corpus, source, record)
        label = t("readme_excerpt") if record.repo else t("excerpt")
    return MirrorPanel(
        notices=tuple(notices), facts=tuple(facts), thread=_thread_facts(record, source, t, tz),
        snapshots=tuple(snapshots), frame=frame, excerpt_label=label, excerpt=excerpt,
    )


def panel(corpus: Corpus, source: Source, t: Labels, page: str) -> str:
    """The mirror section of a source page, as Markdown."""
    return render("_mirror_panel.md.j2", view=panel_view(corpus, source, t, page), t=t)


def status_page(corpus: Corpus, t: Labels, lookup: Lookup | None = None) -> str:
    """Every source's mirror state, failures and stale mirrors first."""
    from . import charts

    tz = corpus.settings.tzinfo
    states = [(s, (lookup or (lambda s: info(corpus, s)))(s)) for s in corpus.sources]
    counts: dict[str, int] = {}
    for _source, found in states:
        counts[found.state] = counts.get(found.state, 0) + 1
    summary = tuple(f"{state_label(k, t)}{t.colon}{v}" for k, v in sorted(counts.items()))

    def title(s: Source) -> tuple[Piece, ...]:
        return (Link(s.title, f"sources/{s.id}.md"),)

    failures = tuple(
        (title(s), (Code(s.id),), (state_badge(f.failure.status.value, t),), (local_time(f.failure.checked_at, tz),), (failure_reason(f.failure, t),))
        for s, f in states if f.failure is not None
    )
    stale = tuple(
        (title(s), (Code(s.id),), (local_time(f.record.checked_at or f.record.fetched_at, tz),))
        for s, f in states if f.state == "stale" and f.record is not None
    )
    # The rest by state, each count linked to "All sources" filtered by it (render/listing.py):
    # listing every source here made the page grow with the corpus.

    by_state = tuple(
        CountRow(state_badge(state, t), counts[state], f"sources/index.md?mirror={state}") for state in MIRROR_STATES if counts.get(state)
    )
    view = StatusPage(
        title=t("status"),
        summary=summary,
        charts=(charts.freshness(corpus, t, [f for _s, f in states]),),
        failures=Table((t("title"), t("id"), t("state"), t("last_attempt"), t("reason")), failures),
        stale=Table((t("title"), t("id"), t("checked_at")), stale),
        by_state=by_state,
        # No source has an archived copy: said once here and on the home page (pages.py), not on every source page.
        notice=t("no_mirrors_build") if counts and set(counts) <= {"never", "nourl"} else "",
    )
    return render("status.md.j2", view=view, t=t)


def _text_page(corpus: Corpus, source: Source, record: Provenance, t: Labels, directory_urls: bool = True) -> str | None:
    path = mirror_file(corpus, source, record.text_file)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(DISPLAY_LIMIT + 1)
    except OSError:
        return None
    page = text_page_path(source)
    truncated = len(text) > DISPLAY_LIMIT
    text = text[:DISPLAY_LIMIT]
    links: list[Piece] = [Link(t("back_to_source"), _rel(page, f"sources/{source.id}.md"))]
    if safe_url(source.url):
        links.append(Link(f"{t('original')} ↗", source.url, external=True))
    links.append(f"{t('fetched_at')}{t.colon}{local_time(record.fetched_at, corpus.settings.tzinfo)}")
    notes = [t("mirrored_copy")]
    if truncated:
        notes.append(t("text_truncated", n=f"{DISPLAY_LIMIT:,}"))
    from markupsafe import Markup

    # A raw HTML block: MkDocs passes it through untouched, and nh3 has already cleaned it.
    # Images are published beside the text page (extra_files); with directory URLs the page
    # itself is one folder deeper (sources/<id>/text/).
    published = frozenset(i.path for i in record.document.image_files if LOCAL_IMAGE.fullmatch(i.path) and mirror_file(corpus, source, i.path))
    body = sanitize_markdown(text, image_prefix="../" if directory_urls else "", images=published)
    view = TextPage(f"{source.title} · {t('extracted_text')}", True, tuple(links), tuple(notes), Markup(body))
    return render("text.md.j2", view=view, t=t)


def extra_pages(corpus: Corpus, t: Labels, directory_urls: bool = True, lookup: Lookup | None = None,
                reuse: Reuse | None = None, mark: str = "", inputs: Callable[[Source], str | None] | None = None) -> Iterator[tuple[str, str]]:
    """Extracted-text pages of every mirrored source (path under docs/, Markdown), one at a time.

    With `reuse` (render/reuse.py), a page whose inputs are all as the last render had them is
    read back from docs/ instead of being made again: its mirror's text is not converted twice.
    `inputs`: the source page's key by what it is made of (sourcekeys.py), which covers all a text
    page reads (the source, its mirror, the settings and digests): when the last render made the page
    from the same, it is looked for without its own key (its mirror files' digests, its record).
    """
    for source in corpus.sources:
        record = (lookup or (lambda s: info(corpus, s)))(source).record
        if record is None or not record.text_file:
            continue
        known = inputs(source) if inputs is not None and reuse is not None else None
        known = f"mirror-text-page:{known}" if known else None
        if known is not None and reuse is not None:
            found = reuse.get_by_inputs(known, mark, text_page_path(source))
            if found is not None:
                yield text_page_path(source), found
                continue
        back = _rel(text_page_path(source), f"sources/{source.id}.md")
        if reuse is not None:
            reuse.begin_trace()
        key = _text_page_key(corpus, source, record, t, directory_urls, back, reuse)
        if reuse is not None:
            reuse.made_from(known, key)
        page = reuse.get(key, mark) if reuse is not None else None
        if page is None:
            page = _make_text_page(corpus, source, record, t, directory_urls, back)
        if page is not None and reuse is not None:
            reuse.made(key, page)  # remembered for the next render, made or read back
        if page is not None:
            yield text_page_path(source), page


def _make_text_page(corpus: Corpus, source: Source, record: Provenance, t: Labels, directory_urls: bool, back: str) -> str | None:
    page = None
    if record.document.page_count:
        from .paper import paper_page  # text with headings and page anchors (render/paper.py)

        page = paper_page(corpus, source, record, t, back)
    if record.thread is not None and record.body_file:
        from .thread import thread_page  # the conversation, not the flat text (render/thread.py)

        page = thread_page(corpus, source, record, t, text_page_path(source), back)
    if page is None:
        page = _text_page(corpus, source, record, t, directory_urls)
    return page


def _text_page_key(corpus: Corpus, source: Source, record: Provenance, t: Labels, directory_urls: bool, back: str, reuse: Reuse | None) -> str | None:
    """What a text page is made of: the source's fields the builders read, its provenance record, the
    settings, and the bytes of every mirror file they read (hashed: a hand edit of text.md counts)."""
    if reuse is None:
        return None
    from ..core.pdf_structure import STRUCTURE
    from .thread import display_zone

    names = [record.text_file, STRUCTURE, record.body_file if record.thread is not None else ""]
    names += [image.path for image in record.document.image_files if LOCAL_IMAGE.fullmatch(image.path)]
    contents = []
    for name in dict.fromkeys(n for n in names if n):
        path = mirror_file(corpus, source, name)
        try:
            contents.append((name, _file_digest(path) if path is not None else None))
        except OSError:
            contents.append((name, None))
    # The site's two flavours (directory URLs, and the offline copy's page.html URLs) make the same
    # text page unless it shows images (their path from the page differs): render alternates between
    # them at every build of a corpus with `offline: true`, and each would make every page again.
    flavour = directory_urls if any(LOCAL_IMAGE.fullmatch(image.path) for image in record.document.image_files) else None
    facts = (source.id, source.title, source.url, source.section, source.kind, source.lang, repr(record), repr(offlinelink.site_settings(corpus)),
             str(display_zone(corpus)), flavour, back, tuple(contents))
    return reuse.key("mirror-text-page", t.lang, facts)


def _file_digest(path: Path) -> str:
    return reuse_digest(path)  # by the file's stamp when the last render hashed it (reuse.py)


__all__ = ["extra_files", "extra_pages", "info", "panel", "panel_view", "status_page", "text_page_path", "thread_badge"]
