"""The time window a digest covers, and the zone it is displayed in.

Times given on the command line must carry an explicit offset (`2026-10-21T07:00+08:00`):
a digest read in Beijing and checked in UTC must not shift by eight hours silently.
A bare date means midnight in the display zone. Without `--since`, a window starts
where the newest digest's window ended, so consecutive digests neither overlap nor
leave gaps.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..core.errors import UsageError
from ..core.model import Corpus

_OFFSET = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


@dataclass(frozen=True)
class Window:
    start: dt.datetime  # aware
    end: dt.datetime  # aware, > start
    tz: str  # "+08:00"

    @property
    def zone(self) -> dt.timezone:
        return parse_tz(self.tz)

    @property
    def date(self) -> dt.date:
        """The digest's date: the day the window ends, in the display zone."""
        return self.end.astimezone(self.zone).date()

    @property
    def key(self) -> str:
        """A stable name for resuming: the window in UTC."""
        return f"{_utc(self.start)}..{_utc(self.end)}"

    def contains(self, moment: dt.datetime) -> bool:
        return self.start <= moment < self.end


def _utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def utc_iso(moment: dt.datetime) -> str:
    """The form GitHub's `since`/`until` parameters and search qualifiers expect."""
    return _utc(moment)


def parse_tz(text: str) -> dt.timezone:
    if text.upper() in ("Z", "UTC", "+00:00"):
        return dt.UTC
    match = _OFFSET.match(text.strip())
    if not match:
        raise UsageError(f"--tz takes an offset such as +08:00 or -05:00, got '{text}'")
    sign, hours, minutes = match.groups()
    delta = dt.timedelta(hours=int(hours), minutes=int(minutes))
    if delta >= dt.timedelta(hours=24):
        raise UsageError(f"--tz offset '{text}' is out of range; use -23:59 to +23:59")
    return dt.timezone(-delta if sign == "-" else delta)


def format_tz(zone: dt.timezone) -> str:
    offset = zone.utcoffset(None)
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def parse_moment(text: str, zone: dt.timezone, option: str = "--since") -> dt.datetime:
    """An ISO time with an explicit offset, or a bare date meaning midnight in `zone`."""
    text = text.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        try:
            return dt.datetime.combine(dt.date.fromisoformat(text), dt.time(), zone)
        except ValueError as exc:
            raise UsageError(f"{option} '{text}' is not a real date") from exc
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as exc:
        raise UsageError(f"{option} takes an ISO time with an offset, e.g. 2026-10-21T07:00+08:00; got '{text}'") from exc
    if moment.tzinfo is None:
        raise UsageError(f"{option} '{text}' has no offset; add one, e.g. {text}+08:00, so the window is unambiguous")
    return moment


def last_window_end(corpus: Corpus) -> dt.datetime | None:
    """Where the newest digest's window ended (its `window_end`), if any digest says."""
    for digest in corpus.digests:  # newest first
        value = digest.meta.get("window_end")
        if isinstance(value, dt.datetime) and value.tzinfo:
            return value
        if isinstance(value, str):
            try:
                moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            if moment.tzinfo:
                return moment
    return None


def resolve_window(
    corpus: Corpus,
    *,
    since: str | None,
    until: str | None,
    tz: str | None,
    now: dt.datetime,
) -> Window:
    """The window for `corpus-build watch`: explicit bounds, else since the last digest until now."""
    tz_text = tz or _default_tz(corpus)
    zone = parse_tz(tz_text)
    tz_text = format_tz(zone)
    end = parse_moment(until, zone, "--until") if until else now
    if since:
        start = parse_moment(since, zone, "--since")
    else:
        start = last_window_end(corpus) or end - dt.timedelta(days=1)
    if start >= end:
        raise UsageError(
            f"the window {start.isoformat()} .. {end.isoformat()} is empty; "
            "pass --since earlier than --until (the last digest may already cover it)"
        )
    return Window(start=start, end=end, tz=tz_text)


def _default_tz(corpus: Corpus) -> str:
    """The newest digest's zone, so a series of digests keeps one clock."""
    for digest in corpus.digests:
        value = digest.meta.get("tz")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "+00:00"
