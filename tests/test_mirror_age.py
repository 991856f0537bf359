"""A mirror's age on the site counts whole UTC days (issue 38: the nothing-changed stamp holds at scale).

With exact ages, each of a corpus's thousands of mirrors crossed "a week old", "a month old" or
stale at its own minute of the day, so a built site turned untrue every few minutes and a rebuild
with nothing changed ran for real (5,000 sources: 0.645 of a full build instead of ~0). Counted
in calendar days, every such step falls at UTC midnight, where the stamp expires anyway.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from types import SimpleNamespace

from corpus_build import registry
from corpus_build.core.provenance import Provenance, Status, days_old, mirror_state, write_provenance
from corpus_build.render.charts import freshness
from corpus_build.render.labels import Labels
from corpus_build.site import uptodate
from tests.corpus_fixture import write_project

UTC = dt.UTC
CHECKED = dt.datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def _at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def _record(raw, checked: dt.datetime) -> None:
    raw.mkdir(parents=True, exist_ok=True)
    stamp = checked.strftime("%Y-%m-%dT%H:%M:%SZ")
    write_provenance(raw, Provenance(id=raw.name, kind="docs", cited_url="https://example.org/", status=Status.OK, fetched_at=stamp, checked_at=stamp))


def test_age_is_the_number_of_utc_midnights_passed():
    assert days_old(CHECKED, _at(20, 23, 59)) == 0
    assert days_old(CHECKED, _at(21, 0, 1)) == 1
    # another offset, the same instants
    taipei = dt.timezone(dt.timedelta(hours=8))
    assert days_old(CHECKED.astimezone(taipei), _at(28, 0, 1).astimezone(taipei)) == 8


def test_stale_steps_at_midnight_not_at_the_minute_of_the_last_check(tmp_path):
    raw = tmp_path / "raw" / "a"
    _record(raw, CHECKED)
    # 7 days after 10:00 the exact age passes 7 days at 10:00; the day's age stays 7 all day
    assert mirror_state(raw, 7, _at(27, 9))[0] == mirror_state(raw, 7, _at(27, 23, 59))[0] == "ok"
    assert mirror_state(raw, 7, _at(28, 0, 1))[0] == "stale"


def test_freshness_buckets_step_at_midnight(tmp_path):
    raw = tmp_path / "raw" / "a"
    _record(raw, CHECKED)
    record = mirror_state(raw, 36500)[1]
    infos = [SimpleNamespace(state="fresh", record=record)]
    corpus = SimpleNamespace()
    t = Labels("en")

    def chart(now):
        return str(freshness(corpus, t, infos, now))

    # the week bucket ends with the 28th (8 midnights), wherever 10:00 falls
    assert chart(_at(28, 0, 1)) == chart(_at(28, 23, 59))
    assert chart(_at(27, 23, 59)) != chart(_at(28, 0, 1))


def test_a_stamp_over_many_mirrors_lasts_until_midnight(tmp_path, monkeypatch):
    """Mirrors checked at every minute of past days: no bucket boundary falls before midnight."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1793000000")
    project = write_project(tmp_path / "p")
    corpus = registry.load(project / "corpus")
    now = dt.datetime.now(UTC)
    rng = random.Random(38)
    for source in corpus.sources:
        _record(corpus.raw_dir(source), now - dt.timedelta(days=rng.choice([8, 32])) + dt.timedelta(seconds=rng.randint(60, 600)))
    from corpus_build.cli import main

    assert main(["--project", str(project), "build"]) == 0
    stamp = json.loads((project / uptodate.STAMP).read_text(encoding="utf-8"))
    midnight = dt.datetime.combine(dt.datetime.now(UTC).date() + dt.timedelta(days=1), dt.time(0), tzinfo=UTC)
    assert stamp["expires"] == midnight.timestamp()
