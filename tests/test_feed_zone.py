"""The sources feed dates an `added` day in the corpus's time zone; the feed's author is the site's short name."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from corpus_build import registry
from corpus_build.render import feed
from tests import corpus_fixture
from tests.corpus_fixture import CORPUS_YAML, write_corpus

ATOM = "{http://www.w3.org/2005/Atom}"


def _corpus(tmp_path, extra: str):
    path = next(k for k, v in corpus_fixture.FILES.items() if v == corpus_fixture.SOURCES_GPU)
    sources = corpus_fixture.SOURCES_GPU.replace("- id: tilelang\n", "- id: tilelang\n  added: 2026-10-21\n", 1)
    return registry.load(write_corpus(tmp_path, {"corpus.yaml": CORPUS_YAML + extra, path: sources}))


def _parsed(corpus) -> ET.Element:
    return ET.fromstring(feed.new_sources(corpus, lambda s: f"sources/{s.id}/"))


def test_an_added_day_starts_at_midnight_in_the_corpus_zone(tmp_path):
    beijing = _parsed(_corpus(tmp_path / "a", "timezone: Asia/Shanghai\n"))
    [entry] = beijing.findall(ATOM + "entry")
    assert entry.findtext(ATOM + "updated") == "2026-10-21T00:00:00+08:00"
    assert beijing.findtext(ATOM + "updated") == "2026-10-21T00:00:00+08:00"
    west = _parsed(_corpus(tmp_path / "b", 'timezone: "-05:30"\n'))
    assert west.find(ATOM + "entry").findtext(ATOM + "updated") == "2026-10-21T00:00:00-05:30"
    utc = _parsed(_corpus(tmp_path / "c", "timezone: UTC\n"))
    assert utc.find(ATOM + "entry").findtext(ATOM + "updated") == "2026-10-21T00:00:00Z"


def test_the_feed_author_is_the_short_site_name(tmp_path):
    short = _parsed(_corpus(tmp_path / "a", "short_title: 语料库\n"))
    assert short.findtext(f"{ATOM}author/{ATOM}name") == "语料库"
    full = _parsed(_corpus(tmp_path / "b", ""))
    assert full.findtext(f"{ATOM}author/{ATOM}name") == "Fixture corpus"
