"""What readers see of the link check: a notice on a dead source's page, a list on the status page.

Reads only corpus/.links/results.json (written by `check_links`) and the mirror's
provenance. Alternatives are offered in order of trust: our own mirror first, then
Software Heritage for repositories (by SWHID when the mirror recorded one), then a
Wayback Machine lookup. URLs reach the page percent-encoded (`_safe_url`), titles
escaped: all of it came from outside.
"""

from __future__ import annotations

import datetime as dt
import functools
import posixpath
from pathlib import Path
from urllib.parse import quote

from ..core import mdtext as md
from ..core.errors import CorpusBuildError
from ..core.linkrecords import LinkResult, LinkState, load_results, results_path
from ..core.model import Corpus, Source
from ..core.provenance import parse_time, read_provenance
from .labels import Labels

_MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December")


def _safe_url(url: str) -> str:
    if not url.lower().startswith(("http://", "https://")):
        return ""
    return quote(url, safe=":/?#[]@!$&'()*+,;=%~")


def _zone(corpus: Corpus) -> dt.tzinfo:
    """The corpus's time zone: the latest digest's `tz` (as `watch` uses), else UTC."""
    for digest in corpus.digests:
        text = str(digest.meta.get("tz") or "")
        if len(text) == 6 and text[0] in "+-" and text[3] == ":" and text[1:3].isdigit() and text[4:].isdigit():
            sign = 1 if text[0] == "+" else -1
            return dt.timezone(sign * dt.timedelta(hours=int(text[1:3]), minutes=int(text[4:])))
    return dt.UTC


def reader_date(corpus: Corpus, stamp: str, t: Labels) -> str:
    """A UTC stamp as a date a reader says aloud, in the corpus's zone: 2026 年 12 月 1 日 / 1 December 2026."""
    moment = parse_time(stamp)
    if moment is None:
        return ""
    day = moment.astimezone(_zone(corpus)).date()
    return f"{day.year} 年 {day.month} 月 {day.day} 日" if t.lang == "zh" else f"{day.day} {_MONTHS_EN[day.month - 1]} {day.year}"


@functools.lru_cache(maxsize=4)
def _cached(path: str, _mtime_ns: int) -> dict[str, LinkResult]:
    return load_results(Path(path))


def _results(corpus: Corpus) -> dict[str, LinkResult]:
    """The results file, read once per build (every source page asks)."""
    path = results_path(corpus.root)
    try:
        return _cached(str(corpus.root), path.stat().st_mtime_ns) if path.exists() else {}
    except CorpusBuildError:
        return {}  # a broken results file is reported by `links`; the site still builds


def alternatives(corpus: Corpus, source: Source, t: Labels, page: str) -> list[str]:
    """Markdown links a reader can follow instead of a dead URL, best first."""
    out = []
    record = read_provenance(corpus.raw_dir(source))
    if record is not None and record.text_file:
        text_page = f"sources/{source.id}/text.md"
        label = t("link_alt_mirror", date=reader_date(corpus, record.fetched_at, t))
        out.append(md.link(label, posixpath.relpath(text_page, posixpath.dirname(page) or ".")))
    if source.kind == "repo":
        swhid = record.repo.swhid if record is not None and record.repo else ""
        if swhid:
            target = f"https://archive.softwareheritage.org/{swhid};origin={source.url}"
        else:
            target = "https://archive.softwareheritage.org/browse/origin/?origin_url=" + quote(source.url, safe="")
        out.append(md.url_link(t("link_alt_swh") + (f" ({swhid})" if swhid else ""), _safe_url(target)))
    out.append(md.url_link(t("link_alt_wayback"), _safe_url("https://web.archive.org/web/*/" + source.url)))
    return out


def source_notice(corpus: Corpus, source: Source, t: Labels, page: str, results: dict[str, LinkResult] | None = None) -> str:
    """The admonition a source page shows when its link is dead or moved; "" otherwise."""
    result = (results if results is not None else _results(corpus)).get(source.id)
    if result is None or result.url != source.url:
        return ""
    if result.state.broken:
        body = t("link_dead_body" if result.state is LinkState.DEAD else "link_soft404_body")
        items = "".join(f"    - {alt}\n" for alt in alternatives(corpus, source, t, page))
        return f'!!! failure "{t("link_dead_title", date=reader_date(corpus, result.since, t))}"\n\n    {body}\n\n{items}\n'
    if result.state is LinkState.MOVED and _safe_url(result.target):
        return f'!!! warning "{t("link_moved_title")}"\n\n    {t("link_moved_body")} {md.url_link(result.target, _safe_url(result.target))}\n\n'
    return ""


def status_section(corpus: Corpus, t: Labels) -> str:
    """The status page's list of dead and moved links."""
    results = _results(corpus)
    out = f"## {t('links_heading')}\n\n"
    current = {s.id: results[s.id] for s in corpus.sources if s.id in results and results[s.id].url == s.url}
    if not current:
        return out + t("links_never") + "\n\n"
    latest = max(r.checked_at for r in current.values())
    out += t("links_checked", date=reader_date(corpus, latest, t), n=len(current)) + "\n\n"
    rows = []
    for source in corpus.sources:
        result = current.get(source.id)
        if result is None or not (result.state.broken or result.state is LinkState.MOVED):
            continue
        new = md.url_link(result.target, _safe_url(result.target)) if result.state is LinkState.MOVED and _safe_url(result.target) else ""
        rows.append([md.link(source.title, f"sources/{source.id}.md"), t(f"link_state_{result.state.value}"), reader_date(corpus, result.since, t), new])
    if not rows:
        return out + t("none") + "\n\n"
    return out + md.table([t("title"), t("state"), t("link_since"), t("link_new_address")], rows) + "\n"
