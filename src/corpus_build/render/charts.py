"""Small SVG charts drawn at build time: no script, no external request, readable in both palettes.

Each chart is one `<div class="cb-chart">` holding an inline `<svg>` (a raw HTML
block for Markdown, kept out of the search index). Every label comes from the
registry or the interface words and is HTML-escaped here.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

from ..core.model import Corpus, Section
from ..core.provenance import days_old, parse_time
from .labels import Labels

# One colour per kind (Okabe-Ito-like, distinguishable for colour-blind readers).
_KIND_COLOURS = {
    "repo": "#0072b2", "paper": "#e69f00", "docs": "#009e73", "article": "#cc79a7", "issue": "#d55e00",
    "pull": "#56b4e9", "model": "#f0e442", "dataset": "#999999", "course": "#7f5fbf", "video": "#8c564b", "discussion": "#bcbd22",
}
_STATE_COLOURS = {"week": "#1a7f37", "month": "#54a868", "older": "#9fd3a9", "stale": "#d4a72c", "partial": "#e3b341", "kept": "#d18616", "failed": "#cf222e",
                  "skipped": "#bf8700", "never": "#8c959f", "nourl": "#c6cbd1"}
_WIDTH, _LABEL, _ROW, _BAR = 680, 230, 20, 14


def _wrap(svg: str, title: str, height: int, *, caption: bool = False, note: str = "", narrow: tuple[str, int] | None = None) -> Markup:
    """The chart's block; `caption` shows its title above it, `note` (e.g. the range shown) below it;
    `narrow` (SVG body, height) is the phone layout, shown instead of the wide one on a narrow screen."""
    head = f'<p class="cb-chart-title">{escape(title)}</p>' if caption else ""
    foot = f'<p class="cb-chart-note">{escape(note)}</p>' if note else ""
    wide = ' class="cb-chart-wide"' if narrow else ""
    small = ""
    if narrow:
        small = (f'<svg xmlns="http://www.w3.org/2000/svg" class="cb-chart-narrow" role="img" viewBox="0 0 {_NARROW} {narrow[1]}" '
                 f'width="100%" style="max-width:{_NARROW}px" aria-label="{escape(title)}"><title>{escape(title)}</title>{narrow[0]}</svg>')
    return Markup(
        f'<div class="cb-chart" data-search-exclude>{head}<svg xmlns="http://www.w3.org/2000/svg"{wide} role="img" viewBox="0 0 {_WIDTH} {height}" '
        f'width="100%" style="max-width:{_WIDTH}px" aria-label="{escape(title)}"><title>{escape(title)}</title>{svg}</svg>{small}{foot}</div>'
    )


_NARROW, _NARROW_ROW = 360, 36  # the phone layout: drawn at about its own size, so 12 px stays 12 px


def _narrow_bars(rows: Sequence[tuple[str, Sequence[tuple[float, str]], int]], legend: Sequence[tuple[str, str]], t: Labels) -> tuple[str, int]:
    """The phone layout of a bar chart: each row's label on its own line above its bar; the legend wraps.

    `rows`: (label, [(count, colour)…], total); `legend`: (colour, name). Returns the SVG body and its height.
    """
    parts, x, y = [], 0.0, 4
    for colour, name in legend:
        step = 22 + 7 * max(len(name), 2) * (1.6 if t.lang == "zh" else 1)
        if x and x + step > _NARROW:
            x, y = 0.0, y + 18
        parts.append(f'<rect x="{x:.0f}" y="{y}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{x + 14:.0f}" y="{y + 9}" font-size="11" fill="currentColor">{escape(name)}</text>')
        x += step
    top = y + (26 if legend else 4)
    most = max((total for _label, _segments, total in rows), default=1) or 1
    scale = (_NARROW - 34) / most
    for row, (label, segments, total) in enumerate(rows):
        y = top + row * _NARROW_ROW
        parts.append(f'<text x="0" y="{y + 12}" font-size="12" fill="currentColor">{escape(_clip(label, 30))}</text>')
        x = 0.0
        for count, colour in segments:
            parts.append(f'<rect x="{x:.1f}" y="{y + 17}" width="{max(count * scale, 1):.1f}" height="12" fill="{colour}"/>')
            x += max(count * scale, 1)
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 27}" font-size="11" fill="currentColor">{total}</text>')
    return "".join(parts), top + len(rows) * _NARROW_ROW + 2


def _clip(text: str, limit: int = 26) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def sections_by_kind(corpus: Corpus, t: Labels, section_title: Callable[[Section], str]) -> Markup:
    """A stacked horizontal bar per section, one segment per kind, with a legend."""
    sections = [s for s in corpus.sections if s.sources]
    if not sections:
        return Markup("")
    kinds = [k for k, _n in Counter(s.kind for s in corpus.sources).most_common()]
    most = max(len(s.sources) for s in sections)
    scale = (_WIDTH - _LABEL - 40) / most
    parts = []
    for row, section in enumerate(sections):
        y = 30 + row * _ROW
        name = section_title(section)
        parts.append(f'<text x="{_LABEL - 6}" y="{y + _BAR - 3}" text-anchor="end" font-size="12" fill="currentColor">{escape(_clip(name))}</text>')
        x = float(_LABEL)
        counts = Counter(s.kind for s in section.sources)
        for kind in kinds:
            n = counts.get(kind, 0)
            if not n:
                continue
            w = n * scale
            label = f"{name}{t.colon}{t.kind(kind)} {n}"
            parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{_BAR}" fill="{_KIND_COLOURS.get(kind, "#777")}"><title>{escape(label)}</title></rect>')
            x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + _BAR - 3}" font-size="11" fill="currentColor">{len(section.sources)}</text>')
    legend_x = 0.0
    for kind in kinds:
        parts.append(f'<rect x="{legend_x:.0f}" y="4" width="10" height="10" fill="{_KIND_COLOURS.get(kind, "#777")}"/>')
        label = t.kind(kind)
        parts.append(f'<text x="{legend_x + 14:.0f}" y="13" font-size="11" fill="currentColor">{escape(label)}</text>')
        legend_x += 22 + 7 * max(len(label), 2) * (1.6 if t.lang == "zh" else 1)
    narrow = _narrow_bars(
        [(section_title(sec), [(n, _KIND_COLOURS.get(k, "#777")) for k in kinds if (n := Counter(s.kind for s in sec.sources).get(k, 0))], len(sec.sources))
         for sec in sections],
        [(_KIND_COLOURS.get(k, "#777"), t.kind(k)) for k in kinds], t,
    )
    return _wrap("".join(parts), t("chart_sections"), 30 + len(sections) * _ROW + 6, narrow=narrow)


def freshness(corpus: Corpus, t: Labels, infos: Sequence, now: dt.datetime | None = None) -> Markup:
    """How old the archived copies are: fresh this week, this month, older; stale, partial, failed, not archived.

    Every source is in one bar: the bars add up to the corpus.
    """
    now = now or dt.datetime.now(dt.UTC)
    buckets: Counter[str] = Counter()
    for found in infos:
        if found.state == "fresh" and found.record is not None:
            when = parse_time(found.record.checked_at or found.record.fetched_at)
            age = days_old(when, now) if when else 999
            buckets["week" if age <= 7 else "month" if age <= 31 else "older"] += 1
        else:
            buckets[found.state] += 1
    names = {
        "week": t("age_week"), "month": t("age_month"), "older": t("age_older"), "stale": t("stale"), "partial": t("partial"),
        "kept": t("kept"), "failed": t("failed"), "skipped": t("skipped"), "never": t("never_fetched"), "nourl": t("no_url_state"),
    }
    rows = [k for k in names if buckets.get(k)]
    if not rows:
        return Markup("")
    most = max(buckets[k] for k in rows)
    scale = (_WIDTH - _LABEL - 40) / most
    parts = []
    for row, key in enumerate(rows):
        y = 8 + row * _ROW
        n = buckets[key]
        parts.append(f'<text x="{_LABEL - 6}" y="{y + _BAR - 3}" text-anchor="end" font-size="12" fill="currentColor">{escape(names[key])}</text>')
        parts.append(f'<rect x="{_LABEL}" y="{y}" width="{max(n * scale, 1):.1f}" height="{_BAR}" fill="{_STATE_COLOURS[key]}"><title>{escape(names[key])} {n}</title></rect>')
        parts.append(f'<text x="{_LABEL + n * scale + 4:.1f}" y="{y + _BAR - 3}" font-size="11" fill="currentColor">{n}</text>')
    narrow = _narrow_bars([(names[k], [(buckets[k], _STATE_COLOURS[k])], buckets[k]) for k in rows], [], t)
    return _wrap("".join(parts), t("chart_freshness"), 8 + len(rows) * _ROW + 6, narrow=narrow)


_EVENT_COLOURS = {"opened": "#1a7f37", "merged": "#8250df", "closed": "#cf222e"}
MONTHS_SHOWN = 18


def threads_over_time(corpus: Corpus, t: Labels, infos: Sequence) -> Markup:
    """Cited PRs and issues opened, merged and closed per month (from their mirrors' thread facts).

    The last MONTHS_SHOWN months with events, under a visible title, with a count scale and
    month labels; a note says which months are shown and how many earlier events are not.
    """
    tz = corpus.settings.tzinfo
    events: Counter[tuple[str, str]] = Counter()
    for found in infos:
        thread = found.record.thread if found.record is not None else None
        if thread is None:
            continue
        for kind, stamp in (("opened", thread.created_at), ("merged", thread.merged_at), ("closed", "" if thread.merged else thread.closed_at)):
            when = parse_time(stamp)
            if when:
                events[(when.astimezone(tz).strftime("%Y-%m"), kind)] += 1
    if not events:
        return Markup("")
    months = sorted({month for month, _kind in events})
    every = _month_span(months[0], months[-1])
    span, earlier = every[-MONTHS_SHOWN:], every[:-MONTHS_SHOWN]
    shown = {key: n for key, n in events.items() if key[0] >= span[0]}
    most = max(shown.values())
    height, top, bottom, left = 120, 24, 36, 44
    column = (_WIDTH - left - 10) / len(span)
    bar = max(min(column / 4, 14), 2)
    names = {"opened": t("thread_opened_word"), "merged": t("thread_merged_word"), "closed": t("thread_closed")}
    parts = []
    # The count scale: gridlines at 0, half and the largest month's count.
    for value in sorted({0, most // 2, most}):
        y = top + height - value / most * height
        parts.append(f'<line x1="{left - 4}" x2="{_WIDTH - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="currentColor" stroke-opacity="0.15"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end" font-size="10" fill="currentColor">{value}</text>')
    parts.append(f'<text x="{left - 8}" y="{top - 8}" text-anchor="end" font-size="10" fill="currentColor">{escape(t("chart_axis_count"))}</text>')
    for index, month in enumerate(span):
        x = left + index * column
        for offset, kind in enumerate(("opened", "merged", "closed")):
            n = events.get((month, kind), 0)
            if n:
                h = n / most * height
                label = f"{month} {names[kind]} {n}"
                parts.append(f'<rect x="{x + offset * bar:.1f}" y="{top + height - h:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" '
                             f'fill="{_EVENT_COLOURS[kind]}"><title>{escape(label)}</title></rect>')
        if len(span) <= 12 or index % 3 == 0:
            parts.append(f'<text x="{x:.1f}" y="{top + height + 15}" font-size="10" fill="currentColor">{escape(month)}</text>')
    parts.append(f'<text x="{_WIDTH - 10}" y="{top + height + 30}" text-anchor="end" font-size="10" fill="currentColor">{escape(t("chart_axis_month"))}</text>')
    legend_x = left
    for kind in ("opened", "merged", "closed"):
        parts.append(f'<rect x="{legend_x}" y="4" width="10" height="10" fill="{_EVENT_COLOURS[kind]}"/>')
        parts.append(f'<text x="{legend_x + 14}" y="13" font-size="11" fill="currentColor">{escape(names[kind])}</text>')
        legend_x += 90
    outside = sum(n for (month, _kind), n in events.items() if month < span[0])
    note = (t("chart_range_cut", first=span[0], last=span[-1], n=len(span), events=outside, before_first=earlier[0], before_last=earlier[-1])
            if outside else t("chart_range", first=span[0], last=span[-1], n=len(span)))
    return _wrap("".join(parts), t("chart_threads"), top + height + bottom, caption=True, note=note)


def _month_span(first: str, last: str) -> list[str]:
    """Every month from `first` to `last` (YYYY-MM), both included."""
    day, end, span = dt.date.fromisoformat(first + "-01"), dt.date.fromisoformat(last + "-01"), []
    while day <= end:
        span.append(day.strftime("%Y-%m"))
        day = (day.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
    return span
