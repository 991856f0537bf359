"""The cite box of a source page: a formatted reference, its BibTeX with a copy button, downloads.

The reference follows the order of GB/T 7714 (the style Chinese readers cite in):
authors, title[type code], venue, date, (accessed date), address. The copy button is
the site's own script (docs/assets/cite.js), hidden until that script runs, so a reader
without JavaScript sees the BibTeX to select by hand and no dead button. Everything
from the registry or a mirror is HTML-escaped here: the box is raw HTML in the page.
"""

from __future__ import annotations

import functools
import html
import posixpath
import re
from collections.abc import Mapping

from ..core import mdtext as md
from ..core.bibfacts import BibFacts, Fact, facts_for
from ..core.model import Corpus, Source
from . import export
from .labels import Labels
from .views import CODE_SPAN

MAX_AUTHORS = 3  # GB/T 7714: the first three, then 等 / et al.
# GB/T 7714 document type codes ([EB/OL]: an online resource; [CP/OL]: a program online…).
_TYPE_CODES = {"paper": "J", "repo": "CP/OL", "model": "CP/OL", "dataset": "DS/OL", "video": "A/OL"}


def _rel(page: str, target: str) -> str:
    return _rel_from(posixpath.dirname(page) or ".", target)


@functools.lru_cache(maxsize=1024)
def _rel_from(folder: str, target: str) -> str:
    # Every source page sits in sources/: the same few links, and relpath is slow (~40 µs a call).
    return posixpath.relpath(target, folder)


def _display_name(name: str) -> str:
    """"Wang, Lei" as "Lei Wang"; anything else as written."""
    parts = export.split_name(name)
    return parts.get("literal") or f"{parts['given']} {parts['family']}"


def _authors(facts: BibFacts, t: Labels) -> str:
    if not facts.authors:
        return ""
    names = [_display_name(n) for n in facts.authors.value]
    shown = ", ".join(names[:MAX_AUTHORS])
    if len(names) > MAX_AUTHORS:
        shown += ", " + t("et_al")
    return shown


def _type_code(source: Source, facts: BibFacts) -> str:
    if source.kind == "paper":
        return "C" if facts.venue else "EB/OL"  # an arXiv preprint is an online resource
    return _TYPE_CODES.get(source.kind, "EB/OL")


def _title_html(title: str) -> str:
    """The title escaped, its `code` spans (issue and PR titles name functions so) shown as code."""
    out, last = [], 0
    for match in CODE_SPAN.finditer(title):
        out += [html.escape(title[last : match.start()]), f"<code>{html.escape(match.group(1))}</code>"]
        last = match.end()
    return "".join(out) + html.escape(title[last:])


def reference_html(source: Source, facts: BibFacts, t: Labels) -> str:
    """The formatted reference as escaped HTML (one line)."""
    e = html.escape
    parts = []
    authors = _authors(facts, t)
    if authors:
        parts.append(e(authors) + ".")
    parts.append(f"{_title_html(facts.title)}[{_type_code(source, facts)}].")
    tail = []
    if facts.venue:
        tail.append(e(facts.venue.value))
    if facts.arxiv and not facts.venue:
        tail.append(e(f"arXiv:{facts.arxiv.value}"))
    version = export._repo_version(source, facts) if source.kind in ("repo", "model") else (facts.version.value if facts.version else "")
    if version:
        tail.append(e(version))
    if facts.number and source.kind in ("issue", "pull", "discussion"):
        tail.append(e(f"#{facts.number}") + (" " + e(t("merged_on", date=facts.merged)) if facts.merged else ""))
    if tail:
        parts.append(", ".join(tail) + ".")
    dates = ""
    if facts.date:
        dates += f"({e(facts.date.value)})"
    if facts.accessed and source.url:
        dates += f"[{e(t('accessed_on'))} {e(facts.accessed)}]"
    if dates:
        parts.append(dates + ".")
    if facts.doi:
        doi_url = "https://doi.org/" + facts.doi.value
        parts.append(f'DOI: <a href="{e(doi_url)}">{e(facts.doi.value)}</a>.')
    if source.url:
        parts.append(f'<a href="{e(source.url)}">{e(source.url)}</a>.')
    return " ".join(parts)


def _fact_text(fact_value: str | tuple[str, ...]) -> str:
    return ", ".join(_display_name(n) for n in fact_value) if isinstance(fact_value, tuple) else str(fact_value)


def _origin(origin: str, t: Labels) -> str:
    try:
        return t(f"fact_from_{origin}")
    except KeyError:  # an origin recorded by a newer corpus-build
        return origin


def disputes_html(facts: BibFacts, t: Labels) -> str:
    """One sentence per fact where the registry and the mirror disagree ("" when they agree), and
    one where the title shown is the mirror's because the registry holds a placeholder."""
    lines = []
    if facts.placeholder:
        lines.append(html.escape(t("title_from_mirror", origin=_origin(facts.title_origin, t), placeholder=facts.placeholder)))
    for name, fact in facts.disputes():
        assert isinstance(fact, Fact) and fact.other is not None
        lines.append(
            html.escape(
                t(
                    "fact_disputed",
                    field=t(f"field_{name}"),
                    ours=_fact_text(fact.value),
                    origin=_origin(fact.other_origin, t),
                    theirs=_fact_text(fact.other),
                )
            )
        )
    return "".join(f'<p class="cb-cite-dispute">{line}</p>\n' for line in lines)


def export_links(page: str, files: Mapping[str, str], label: str, colon: str = ": ") -> str:
    """"label: BibTeX · RIS · CSL-JSON" as Markdown links (MkDocs rewrites them for any URL style)."""
    return _export_links(posixpath.dirname(page) or ".", tuple((ext, files[ext]) for ext in ("bib", "ris", "json") if ext in files), label, colon)


@functools.lru_cache(maxsize=4096)
def _export_links(folder: str, files: tuple[tuple[str, str], ...], label: str, colon: str) -> str:
    links = [md.link(export.FORMATS[ext], _rel_from(folder, target)) for ext, target in files]
    return f"{md.text(label)}{colon}" + " · ".join(links)


def box(corpus: Corpus, source: Source, t: Labels, page: str, facts: Mapping[str, BibFacts] | None = None) -> str:
    """The "引用" section of a source page: heading, reference, disputes, BibTeX, copy button, downloads."""
    bib_facts = facts_for(corpus, facts, source)
    anchor = f"cb-bibtex-{source.id}"
    bibtex = export.bibtex_entry(source, bib_facts)
    out = f"## {t('cite')} {{ #cite data-search-exclude }}\n\n"
    out += '<div class="cb-cite" data-search-exclude>\n'
    out += f'<p class="cb-cite-ref">{reference_html(source, bib_facts, t)}</p>\n'
    out += disputes_html(bib_facts, t)
    if source.verified_from:
        # The user's own words (often an address and a date in English): marked with their language.
        lang = "zh" if re.search(r"[\u4e00-\u9fff]", source.verified_from) else "en"
        lang_attr = f' lang="{lang}"' if lang != t.lang else ""
        out += f'<p class="cb-cite-checked">{html.escape(t("verified_from"))}{html.escape(t.colon)}<span{lang_attr}>{html.escape(source.verified_from)}</span></p>\n'
    # A <pre> without <code>: Material would add its own copy icon to a code block, a second button.
    out += f'<pre class="cb-cite-bibtex" id="{html.escape(anchor)}">{html.escape(bibtex.rstrip())}</pre>\n'
    out += (
        f'<p><button type="button" class="md-button cb-cite-copy" data-cb-copy="{html.escape(anchor)}" '
        f'data-cb-done="{html.escape(t("copied"))}" data-cb-done-long="{html.escape(t("copied_status"))}" '
        f'data-cb-failed="{html.escape(t("copy_failed"))}" hidden>{html.escape(t("copy_bibtex"))}</button>'
        # Where cite.js says what the button did: a polite live region, read out and shown.
        '<span class="cb-cite-status" role="status" aria-live="polite"></span></p>\n'
    )
    out += "</div>\n\n"
    section = corpus.section(source.section)
    downloads = [
        export_links(page, {ext: export.section_path(section, ext) for ext in export.FORMATS}, t("export_section"), t("list_colon")),
        export_links(page, export.WHOLE, t("export_whole"), t("list_colon")),
    ]
    return out + f"{md.text(t('cite_download'))} — " + t("list_semicolon").join(downloads) + "\n\n"
