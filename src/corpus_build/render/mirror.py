"""What the site says about each source's mirror (the fetch stage's output under corpus/<section>/raw/<id>/).

Everything here derives from content a server sent (titles, errors, extracted
text), so it is escaped (`md.text`) or, for extracted Markdown, rendered to HTML
and cleaned with nh3 before it reaches a page: no script, event handler,
javascript: URL or third-party image survives. Extracted-text pages longer than
SEARCH_LIMIT characters are excluded from the search index (`search: exclude`)
so the index stays small; the source page carries a short excerpt instead.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from urllib.parse import quote

from ..model import Corpus, Source
from ..provenance import Provenance, mirror_state, read_provenance
from . import markdown as md
from .labels import Labels

SEARCH_LIMIT = 20_000  # characters of extracted text indexed by the site search
DISPLAY_LIMIT = 400_000  # characters shown on an extracted-text page
EXCERPT = 600  # characters of extracted text on the source page
_TAGS = {"a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em", "h1", "h2", "h3",
                  "h4", "h5", "h6", "hr", "i", "kbd", "li", "ol", "p", "pre", "q", "s", "small", "span", "strong", "sub",
                  "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul"}
_ATTRIBUTES = {"*": {"id"}, "a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}
# The mirror's own image copies only (images/<hash>.<raster type>, see fetch/images.py):
# an image from anywhere else would make the site request another origin.
_NO_SRC_IMG = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")
_LOCAL_IMAGE = re.compile(r"images/[0-9a-f]{20}\.(?:png|jpg|gif|webp|avif|bmp)")


def text_page_path(source: Source) -> str:
    return f"sources/{source.id}/text.md"


def _rel(from_page: str, to_page: str) -> str:
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


def _safe_url(url: str) -> str:
    """Only http(s) URLs are linked, percent-encoded so `<`, `>` and spaces cannot break out."""
    if not url.lower().startswith(("http://", "https://")):
        return ""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~")


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def _escape_markup(text: str) -> str:
    """`<` and `&` outside code become entities: markup written as text in a page stays visible text.

    (Left alone, python-markdown would take `<script>` in prose for raw HTML and nh3
    would then drop it, losing words the page really contained.)
    """
    out, fence = [], ""
    for line in text.split("\n"):
        stripped = line.lstrip()
        if fence:
            out.append(line)
            if stripped.startswith(fence):
                fence = ""
            continue
        if stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
            out.append(line)
            continue
        pieces = _CODE_SPAN.split(line)
        # split() yields [text, ticks, code, text, ticks, code, …]
        rebuilt = []
        for index in range(0, len(pieces), 3):
            rebuilt.append(pieces[index].replace("&", "&amp;").replace("<", "&lt;"))
            if index + 2 < len(pieces):
                rebuilt.append(pieces[index + 1] + pieces[index + 2] + pieces[index + 1])
        out.append("".join(rebuilt))
    return "\n".join(out)


def sanitize_markdown(text: str, image_prefix: str | None = None, images: frozenset[str] = frozenset()) -> str:
    """Extracted Markdown -> clean HTML (python-markdown, then nh3 with an allow-list).

    With `image_prefix`, <img> of the mirror's local copies that are published (`images`)
    are kept, their src prefixed (the path from the page to the published images/ folder);
    every other image is dropped.
    """
    import markdown
    import nh3

    # superfences (pymdown-extensions, a dependency of Material) rather than fenced_code: the
    # extracted text has code blocks inside list items and definitions, which fenced_code
    # only finds at the start of a line. No Pygments: plain <pre><code>, fast on big pages.
    rendered = markdown.markdown(
        _escape_markup(text), extensions=["tables", "pymdownx.highlight", "pymdownx.superfences", "toc", "def_list"],
        extension_configs={"pymdownx.highlight": {"use_pygments": False}}, output_format="html",
    )
    tags, attributes = _TAGS, _ATTRIBUTES
    if image_prefix is not None:
        tags, attributes = _TAGS | {"img"}, {**_ATTRIBUTES, "img": {"src", "alt", "title"}}

    def keep(tag: str, attribute: str, value: str) -> str | None:
        if tag == "img" and attribute == "src":
            return image_prefix + value if image_prefix is not None and value in images and _LOCAL_IMAGE.fullmatch(value) else None
        return value

    cleaned = nh3.clean(rendered, tags=tags, attributes=attributes, url_schemes={"http", "https", "mailto"},
                        link_rel="noopener noreferrer nofollow", attribute_filter=keep)
    # An image the filter took the src from (not a local copy) would show as a broken icon.
    return _NO_SRC_IMG.sub("", cleaned) if image_prefix is not None else cleaned


def _state(corpus: Corpus, source: Source) -> tuple[str, Provenance | None, Provenance | None]:
    """As provenance.mirror_state, with a good, recent mirror ("ok", "unchanged") called fresh."""
    state, record, failure = mirror_state(corpus.raw_dir(source), corpus.settings.stale_after_days)
    if state == "never fetched":
        return "never", None, None
    return ("fresh" if state in ("ok", "unchanged") else state), record, failure


def _freshness_badge(state: str, t: Labels) -> str:
    if state == "fresh":
        return md.badge(t("fresh"), "fresh")
    if state == "stale":
        return md.badge(t("stale"), "stale")
    if state == "skipped":
        return md.badge(t("skipped"), "stale")
    if state == "never":
        return md.badge(t("never_fetched"), "stale")
    return md.badge(t("failed"), "failed")


def thread_badge(corpus: Corpus, source: Source, t: Labels) -> str:
    """open / draft / merged (with date) / closed for an issue or PR with a mirror, else ""."""
    record = read_provenance(corpus.raw_dir(source))
    if record is None or record.thread is None:
        return ""
    state = record.thread.display_state
    if state == "merged":
        return md.badge(t("thread_merged", date=record.thread.merged_at[:10]), "state-merged")
    css = {"open": "state-open", "draft": "state-open", "closed": "state-closed"}.get(state, "state-open")
    return md.badge(t(f"thread_{state}") if state in ("open", "draft", "closed") else state, css)


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:,} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def mirror_file(corpus: Corpus, source: Source, name: str) -> Path | None:
    """A file a provenance record names, only if it is a regular file inside the source's mirror.

    provenance.json is a tracked file anyone can edit in a pull request: a name like
    "../../../../etc/passwd" or a symlink must not put a file of the build machine on the site.
    """
    raw = corpus.raw_dir(source).resolve()
    path = corpus.raw_dir(source) / name
    if not name or Path(name).is_absolute() or path.is_symlink():
        return None
    try:
        inside = path.resolve().is_relative_to(raw)
    except OSError:
        return None
    return path if inside and path.is_file() else None


def _excerpt(corpus: Corpus, source: Source, record: Provenance) -> str:
    path = mirror_file(corpus, source, record.text_file)
    if path is None:
        return ""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(EXCERPT * 4)
    except OSError:
        return ""
    text = re.sub(r"\s+", " ", re.sub(r"[#*`>|\[\]()!_-]+", " ", text)).strip()
    return text[:EXCERPT] + ("…" if len(text) > EXCERPT else "")


def panel(corpus: Corpus, source: Source, t: Labels, page: str) -> str:
    """The mirror section of a source page."""
    state, record, failure = _state(corpus, source)
    out = ""
    if failure is not None:
        out += f'!!! failure "{t("failed")}: {md.text(failure.checked_at)}"\n\n    {t("fetch_failed_body")}\n\n    `{md.text(failure.error).replace("`", "")}`\n\n'
    if record is None:
        if failure is None:
            out += f'!!! info "{t("not_mirrored")}"\n\n    {t("not_mirrored_body", id=source.id)}\n\n'
        return out
    if state == "stale":
        out += f'!!! warning "{t("stale")}"\n\n    {t("stale_body", days=corpus.settings.stale_after_days, id=source.id)}\n\n'
    state_cell = _freshness_badge(state, t) + f" `{record.status.value}`"
    if record.document.partial_reason:  # what a partial mirror lacks, as the fetch stage said it
        state_cell += f" {md.text(record.document.partial_reason)}"
    rows = [[t("mirror_state"), state_cell], [t("fetched_at"), md.text(record.fetched_at)]]
    if record.checked_at and record.checked_at != record.fetched_at:
        rows.append([t("checked_at"), md.text(record.checked_at)])
    fetched = _safe_url(record.fetched_url)
    if fetched:
        rows.append([t("fetched_from"), md.url_link(record.fetched_url, fetched)])
    if record.http_status:
        rows.append([t("http_status"), str(record.http_status)])
    if record.content_type:
        rows.append([t("content_type"), md.text(record.content_type)])
    if record.bytes:
        rows.append([t("size"), _size(record.bytes)])
    if record.sha256:
        rows.append([t("sha256"), f"`{record.sha256}`"])
    if record.repo:
        rows.append([t("commit"), f"`{md.text(record.repo.commit)}` ({md.text(record.repo.commit_date)})"])
        rows.append([t("branch"), f"`{md.text(record.repo.branch)}`"])
        if record.repo.latest_tag:
            rows.append([t("latest_tag"), f"`{md.text(record.repo.latest_tag)}`"])
        rows.append([t("swhid"), f"`{record.repo.swhid}`"])
    if record.document.page_count:
        rows.append([t("pages"), str(record.document.page_count)])
    if record.thread:
        rows.append([t("pr_state"), thread_badge(corpus, source, t)])
    if record.text_file:
        rows.append([t("extracted_text"), md.link(t("extracted_text") + " →", _rel(page, text_page_path(source)))])
    if source.url:
        rows.append([t("original"), md.url_link(f"{t('original')} ↗", _safe_url(source.url) or source.url)])
    out += md.table(["", ""], rows) + "\n"
    if record.text_file:
        excerpt = _excerpt(corpus, source, record)
        if excerpt:
            label = t("readme_excerpt") if record.repo else t("excerpt")
            out += f"**{label}**\n\n> {md.text(excerpt)}\n\n"
    return out


def status_page(corpus: Corpus, t: Labels) -> str:
    """Every source's mirror state, failures and stale mirrors first."""
    states = [(s, *_state(corpus, s)) for s in corpus.sources]
    out = md.front_matter(title=t("status")) + f"# {t('status')}\n\n"
    counts: dict[str, int] = {}
    for _source, state, _record, _failure in states:
        counts[state] = counts.get(state, 0) + 1
    names = {"fresh": t("fresh"), "stale": t("stale"), "failed": t("failed"), "skipped": t("skipped"), "never": t("never_fetched")}
    out += " · ".join(f"{names.get(k, k)}: {v}" for k, v in sorted(counts.items())) + "\n\n"
    failed = [(s, f) for s, state, _r, f in states if f is not None]
    out += f"## {t('failures')}\n\n"
    if failed:
        rows = [[md.link(s.title, f"sources/{s.id}.md"), f"`{s.id}`", _freshness_badge(f.status.value, t), md.text(f.checked_at), md.text(f.error)] for s, f in failed]
        out += md.table([t("title"), t("id"), t("state"), t("last_attempt"), t("error")], rows) + "\n"
    else:
        out += t("none") + "\n\n"
    stale = [(s, r) for s, state, r, _f in states if state == "stale"]
    out += f"## {t('stale_mirrors')}\n\n"
    if stale:
        rows = [[md.link(s.title, f"sources/{s.id}.md"), f"`{s.id}`", md.text(r.checked_at or r.fetched_at)] for s, r in stale]
        out += md.table([t("title"), t("id"), t("checked_at")], rows) + "\n"
    else:
        out += t("none") + "\n\n"
    out += f"## {t('all_sources')}\n\n"
    rows = []
    for source, state, record, _failure in states:
        when = md.text((record.checked_at or record.fetched_at) if record else "")
        rows.append([md.link(source.title, f"sources/{source.id}.md"), f"`{source.id}`", _freshness_badge(state, t), when])
    return out + md.table([t("title"), t("id"), t("state"), t("checked_at")], rows)


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
    title = f"{source.title} · {t('extracted_text')}"
    meta: dict = {"title": title}
    if len(text) > SEARCH_LIMIT:
        meta["search"] = {"exclude": True}
    out = md.front_matter(**meta) + f"# {md.text(title)}\n\n"
    links = [md.link(t("back_to_source"), _rel(page, f"sources/{source.id}.md"))]
    if _safe_url(source.url):
        links.append(md.url_link(f"{t('original')} ↗", _safe_url(source.url)))
    out += " · ".join(links) + f" · {t('fetched_at')}: {md.text(record.fetched_at)}\n\n"
    out += f"*{t('mirrored_copy')}*"
    if len(text) > SEARCH_LIMIT:
        out += f" *{t('text_not_indexed', n=f'{SEARCH_LIMIT:,}')}*"
    if truncated:
        rel_path = Path(source.section) / "raw" / source.id / record.text_file
        out += f" *{t('text_truncated', n=f'{DISPLAY_LIMIT:,}', path=f'corpus/{rel_path}')}*"
    # A raw HTML block: MkDocs passes it through untouched, and nh3 has already cleaned it.
    # Images are published beside the text page (image_files); with directory URLs the page
    # itself is one folder deeper (sources/<id>/text/).
    published = frozenset(i.path for i in record.document.image_files if _LOCAL_IMAGE.fullmatch(i.path) and mirror_file(corpus, source, i.path))
    body = sanitize_markdown(text, image_prefix="../" if directory_urls else "", images=published)
    return out + f'\n\n<div class="cb-extracted">\n{body}\n</div>\n'


def extra_pages(corpus: Corpus, t: Labels, directory_urls: bool = True) -> dict[str, str | bytes]:
    """Extracted-text pages of every mirrored source (path under docs/ -> Markdown), and the
    mirrored images they show (-> bytes, at sources/<id>/images/<name>)."""
    pages: dict[str, str | bytes] = {}
    for source in corpus.sources:
        record = read_provenance(corpus.raw_dir(source))
        if record is None or not record.text_file:
            continue
        page = _text_page(corpus, source, record, t, directory_urls)
        if page is not None:
            pages[text_page_path(source)] = page
            for image in record.document.image_files:
                path = mirror_file(corpus, source, image.path) if _LOCAL_IMAGE.fullmatch(image.path) else None
                if path is not None:
                    pages[f"sources/{source.id}/{image.path}"] = path.read_bytes()
    return pages


__all__ = ["SEARCH_LIMIT", "extra_pages", "panel", "status_page", "text_page_path", "thread_badge"]
