"""What changed since the previous `corpus-build build`, and at the last watch run, for the home page.

`corpus-build build` saves a snapshot of the corpus after each successful build
(`.corpus-build/last-build.json` beside corpus/, local and not committed); the next
render compares the corpus with it: sources added and removed, issues and PRs whose
state moved, mirrors that started failing or recovered, new digests. Live previews
(`mkdocs serve`) never move the snapshot, so the list stays put while you edit.

What the last `corpus-build watch` saw is read from its output file
(`corpus/.watch/state.json`, key `cited`), never through the watch package:
stages talk through files, and render stays importable without watch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core import jsondata
from ..core.model import Corpus
from ..core.provenance import RawListing, now_utc, utc_stamp, write_atomic
from . import mirrortext

SNAPSHOT = Path(".corpus-build") / "last-build.json"
WATCH_STATE = Path(".watch") / "state.json"  # written by `corpus-build watch`


@dataclass(frozen=True)
class ThreadChange:
    """A cited PR or issue whose state moved at the last watch run."""

    key: str  # owner/name#N, lower case
    title: str
    before: str
    after: str


def thread_changes(corpus: Corpus) -> list[ThreadChange]:
    """State changes recorded by the last watch run, sorted by key; [] when there is no readable file.

    A broken or foreign file is `watch`'s to report; the site still builds.
    """
    try:
        data = jsondata.loads((corpus.root / WATCH_STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    cited = data.get("cited") if isinstance(data, dict) else None
    if not isinstance(cited, dict):
        return []
    found = []
    for key, record in sorted(cited.items()):
        if not isinstance(record, dict):
            continue
        before, after = record.get("before"), record.get("state")
        if isinstance(before, str) and isinstance(after, str) and before and after and before != after:
            found.append(ThreadChange(str(key).lower(), str(record.get("title") or ""), before, after))
    return found


def snapshot_path(corpus: Corpus) -> Path:
    return corpus.root.parent / SNAPSHOT


def take(corpus: Corpus) -> dict:
    """The facts the next build compares against."""
    sources = {}
    listing = RawListing(corpus.root)
    for source in corpus.sources:
        if listing.never_fetched(source.section, source.id):
            sources[source.id] = {"title": source.title, "mirror": "never fetched"}  # what mirror_state says of it, without two failed opens
            continue
        state, record, _failure = mirrortext.mirror_state(corpus.raw_dir(source), corpus.settings.stale_after_days)
        entry = {"title": source.title, "mirror": state}
        if record is not None and record.thread is not None:
            entry["state"] = record.thread.display_state
        sources[source.id] = entry
    return {"built_at": utc_stamp(now_utc()), "sources": sources, "digests": [d.date.isoformat() for d in corpus.digests]}


def load(corpus: Corpus) -> dict | None:
    """The snapshot the last build saved, or None."""
    try:
        data = jsondata.loads(snapshot_path(corpus).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("sources"), dict) else None


def _facts(snapshot: dict) -> tuple:
    return snapshot.get("sources"), snapshot.get("digests")


def baseline(corpus: Corpus, current: dict) -> dict | None:
    """What the home page compares `current` (take(corpus)) with.

    The last build's snapshot; but when nothing changed since that build, the snapshot *it*
    compared with (kept in the file as `baseline`): building twice gives the same page, so a
    rebuild with nothing changed (or a build killed after publishing, then run again) does
    not empty the list of changes.
    """
    saved = load(corpus)
    if saved is None:
        return None
    if _facts(saved) == _facts(current):
        earlier = saved.get("baseline")
        return earlier if isinstance(earlier, dict) and isinstance(earlier.get("sources"), dict) else None
    return saved


def save(corpus: Corpus) -> None:
    """Remember this build's facts (and what they were compared with); nothing is written when they did not change."""
    path = snapshot_path(corpus)
    current = take(corpus)
    saved = load(corpus)
    if saved is not None and _facts(saved) == _facts(current):
        return
    if saved is not None:
        current["baseline"] = {key: value for key, value in saved.items() if key != "baseline"}
    write_atomic(path, json.dumps(current, ensure_ascii=False, sort_keys=True, indent=1))


def compare(previous: dict, current: dict) -> dict[str, list]:
    """Differences by category: added, removed, state, failing, recovered, digests."""
    before, after = previous.get("sources", {}), current["sources"]
    result: dict[str, list] = {
        "added": sorted(set(after) - set(before)),
        "removed": sorted(before[i].get("title", i) for i in set(before) - set(after)),
        "state": [],
        "failing": [],
        "recovered": [],
        "digests": sorted(set(current["digests"]) - set(previous.get("digests", [])), reverse=True),
    }
    for source_id in sorted(set(after) & set(before)):
        old, new = before[source_id], after[source_id]
        if old.get("state") and new.get("state") and old["state"] != new["state"]:
            result["state"].append((source_id, old["state"], new["state"]))
        if new.get("mirror") == "failed" and old.get("mirror") != "failed":
            result["failing"].append(source_id)
        if old.get("mirror") == "failed" and new.get("mirror") in ("ok", "unchanged", "stale"):
            result["recovered"].append(source_id)
    return result
