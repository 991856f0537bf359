"""The site's text page of a mirrored paper: its text with its headings, an anchor per page and per heading.

Read from structure.json (corpus_build.core.pdf_structure), which fetch writes beside
the page-by-page text.md. The page starts with the paper's contents (headings with
their page), then the text: `#page-12` marks where page 12 begins, `#sec-4-3` is
heading 4.3. Annotations and digests link there with `[[paper-id#page-12]]`.

PDF text is untrusted and is not Markdown: every block is HTML-escaped as it is,
never interpreted (a `*` in a formula stays a `*`).
"""

from __future__ import annotations

import html
import posixpath

from ..core import mdtext as md
from ..core import pdf_structure
from ..core.model import Corpus, Source
from ..core.provenance import Provenance, read_provenance
from .labels import Labels
from .mirrortext import DISPLAY_LIMIT, mirror_file, opaque, text_page_path
from .views import safe_url as _safe_url


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _rel(from_page: str, to_page: str) -> str:
    return posixpath.relpath(to_page, posixpath.dirname(from_page) or ".")


def anchor_link(corpus: Corpus, source: Source, fragment: str, label: str | None, t: Labels, page: str) -> str:
    """`[[paper-id#page-12]]` / `[[paper-id#sec-4-3|label]]` -> a Markdown link to that place of the text page;
    `[[repo-id#path:120-160]]` -> the file's page at that line (render/repodocs.file_link).

    Where the place cannot exist (no mirror yet, a page or heading the mirror lacks; `check`
    reports those) the link goes to the text page or the source page instead: a strict site
    build must not fail on an anchor that is not there.
    """
    from ..core import repofiles

    if repofiles.file_fragment(source.kind, fragment):  # [[repo-id#path:120-160]]: a file of its checkout
        from .repodocs import file_link

        return file_link(corpus, source, fragment, label, t, page)
    raw = corpus.raw_dir(source)
    record = read_provenance(raw)
    match = pdf_structure.PAGE_ANCHOR.match(fragment)
    heading = "" if match else pdf_structure.heading_text(raw, fragment)
    if not match and not heading and record is not None and record.text_file and not record.document.page_count:
        # A mirrored page's text: its headings' #sec-… anchors (core/mdtext.section_id).
        heading = dict(pdf_structure.text_sections_of(raw, record.text_file)).get(fragment, "")
    if not label:
        label = t("paper_page_of", title=source.title, n=match.group(1)) if match else (f"{source.title} · {heading}" if heading else source.title)
    if record is None or not record.text_file or mirror_file(corpus, source, record.text_file) is None:
        return md.link(label, _rel(page, f"sources/{source.id}.md"))
    present = heading != "" or (match is not None and int(match.group(1)) <= record.document.page_count)
    return md.link(label, f"{_rel(page, text_page_path(source))}" + (f"#{fragment}" if present else ""))


def paper_page(corpus: Corpus, source: Source, record: Provenance, t: Labels, back: str) -> str | None:
    """The structured text page, or None when the mirror has no (readable) structure.json."""
    data = pdf_structure.read(mirror_file(corpus, source, pdf_structure.STRUCTURE))
    if data is None:
        return None
    blocks = [b for b in data["blocks"] if isinstance(b, dict) and isinstance(b.get("text"), str) and isinstance(b.get("page"), int)]
    title = f"{source.title} · {t('extracted_text')}"
    # Out of Material's index: mirror text is searched by passage (site/fulltext.py).
    meta: dict = {"title": title, "search": {"exclude": True}}
    out = md.front_matter(**meta) + f"# {md.text(title)}\n\n"
    links = [md.link(t("back_to_source"), back)]
    if _safe_url(source.url):
        links.append(md.url_link(f"{t('original')} ↗", _safe_url(source.url)))
    out += " · ".join(links) + "\n\n"
    out += f"*{t('mirrored_copy')}*\n\n"
    pages = min(_int(data.get("pages"), 0), 100_000)
    headings = [h for h in data["headings"] if isinstance(h, dict) and isinstance(h.get("anchor"), str) and isinstance(h.get("text"), str)]
    body = ['<div class="cb-paper">']
    if headings:
        body.append(f'<nav class="cb-paper-toc"><p><strong>{html.escape(t("paper_contents"))}</strong></p><ul>')
        for h in headings:
            level = min(max(_int(h.get("level"), 2), 1), 4)
            where = t("paper_page_n", n=_int(h.get("page"), 1))
            body.append(f'<li class="cb-toc-{level}"><a href="#{html.escape(h["anchor"])}">{html.escape(h["text"])}</a> <small>{html.escape(where)}</small></li>')
        body.append("</ul></nav>")
    jump = " ".join(f'<a href="#page-{n}">{n}</a>' for n in range(1, pages + 1))
    body.append(f'<p class="cb-paper-pages">{html.escape(t("paper_pages"))}: {jump}</p>')
    shown, current, cut = 0, 0, False
    for block in blocks:
        while block["page"] > current and current < pages:
            current += 1
            body.append(f'<p class="cb-page-mark" id="page-{current}"><a href="#page-{current}">{html.escape(t("paper_page_n", n=current))}</a></p>')
        if shown > DISPLAY_LIMIT:
            cut = True
            continue
        shown += len(block["text"])
        text = html.escape(block["text"])
        if block.get("kind") == "heading" and isinstance(block.get("anchor"), str):
            level = min(max(_int(block.get("level"), 2), 1), 4) + 1  # h1 is the page's own title
            body.append(f'<h{level} id="{html.escape(block["anchor"])}">{text}</h{level}>')
        else:
            body.append(f"<p>{text}</p>")
    while current < pages:  # pages with no text (figures, scans) still have their anchor
        current += 1
        body.append(f'<p class="cb-page-mark" id="page-{current}"><a href="#page-{current}">{html.escape(t("paper_page_n", n=current))}</a></p>')
    body.append("</div>")
    if cut:
        out += f"*{t('text_truncated', n=f'{DISPLAY_LIMIT:,}', path=f'corpus/{source.section}/raw/{source.id}/{pdf_structure.STRUCTURE_MD}')}*\n\n"
    return out + opaque("\n".join(body)) + "\n"
