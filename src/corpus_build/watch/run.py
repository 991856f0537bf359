"""`draft_digest`: gather a window from GitHub and write (or refresh) `corpus/digests/<date>.md`.

Gathering goes repository by repository; each finished repository is kept in the
watch state, so when the quota runs out the facts so far are saved, the error says
when the quota returns, and the next run for the same window starts where this one
stopped. Baselines (tags, cited states) are stored with the window they were taken
for: re-running a window compares against the same baseline and reports the same
changes, instead of finding "nothing new" because the first run already saw it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..core import jsondata, provenance, safepath
from ..core.errors import FetchError, RateLimitError, UsageError
from ..core.model import Corpus
from ..core.provenance import write_atomic
from ..core.runlock import run_lock
from ..registry import split_front_matter
from ..registry.settings import RepoTarget, parse_watch_config
from .draft import DraftWriter
from .gather import Client, Gatherer, Remembering, expand_orgs
from .merge import check_markers, front_matter, merge
from .records import CitedRef, DigestFacts, RepoFacts, StateChange
from .state import STATE_DIR, STATE_FILE, Pending, WatchState
from .targets import cited_refs, merge_targets, registry_repos
from .window import Window, parse_moment, parse_tz, resolve_window

T = TypeVar("T")


@dataclass(frozen=True)
class WatchOptions:
    repos: tuple[str, ...] = ()  # --repo: watch only these (branches still come from `watch:`)
    orgs: tuple[str, ...] = ()  # --org: ... and every repository of these organisations
    search_cap: int = 1000  # results GitHub returns per search; lower only in tests
    # Wait for a quota that returns this soon (search's per-minute limit) instead of stopping.
    max_wait: float = 90.0


@dataclass(frozen=True)
class WatchResult:
    path: Path
    facts: DigestFacts
    created: bool  # False when an existing draft was refreshed
    resumed: int  # repositories taken from a run the rate limit stopped
    failures: tuple[str, ...] = ()  # "owner/name: why", one per repository that could not be checked


def plan_window(corpus: Corpus, *, since: str | None, until: str | None, tz: str | None, now: dt.datetime) -> Window:
    """The window to draft: explicit bounds; else a stopped run's window; else since the last digest."""
    pending = WatchState.load(corpus.root).pending
    if pending and not since and not until:
        zone = parse_tz(tz or pending.tz)
        return Window(parse_moment(pending.start, zone), parse_moment(pending.end, zone), tz or pending.tz)
    return resolve_window(corpus, since=since, until=until, tz=tz, now=now)


def watch_targets(corpus: Corpus, client: Client, options: WatchOptions) -> tuple[RepoTarget, ...]:
    config = parse_watch_config(corpus.settings.extra.get("watch"))
    known = {t.repo.lower(): t for t in merge_targets(registry_repos(corpus), list(config.repos))}
    if options.repos or options.orgs:
        chosen = [known.get(r.lower(), RepoTarget(repo=r)) for r in options.repos]
        orgs = [known.get(t.repo.lower(), t) for t in expand_orgs(client, options.orgs)]
        return merge_targets(chosen, orgs)
    orgs = expand_orgs(client, config.orgs)
    return merge_targets(registry_repos(corpus), list(config.repos), orgs, exclude=config.exclude)


def draft_digest(
    corpus: Corpus,
    window: Window,
    client: Client,
    *,
    options: WatchOptions = WatchOptions(),
    progress: Callable[[str], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> WatchResult:
    say = progress or (lambda _message: None)

    def patiently(call: Callable[[], T]) -> T:
        """Run `call`, waiting out short rate limits (search allows 30 requests a minute)."""
        for _ in range(3):
            try:
                return call()
            except RateLimitError as exc:
                wait = _seconds_until(exc.reset_at)
                if wait is None or wait > options.max_wait:
                    raise
                say(f"  rate limited; waiting {wait:.0f} s for the quota to return")
                sleep(wait + 1)
        return call()
    path = corpus.root / "digests" / f"{window.date.isoformat()}.md"
    # Before any request: the digest and the state must land inside corpus/, not through a symlink.
    safepath.inside_all(corpus.root, path.parent, path, corpus.root / STATE_DIR)
    _require_writable(corpus.root)
    # What killed runs' writes left (.state.json.<pid>.<thread>.tmp, a digest's): exact names, dead writers.
    provenance.clean_temps(corpus.root / STATE_DIR, (STATE_FILE, MEMO_FILE))
    provenance.clean_temps(path.parent, provenance.NamesLike(r"\d{4}-\d{2}-\d{2}\.md"))  # digests/YYYY-MM-DD.md
    if path.exists():  # a broken file stops the run before it spends any API quota
        existing = path.read_text(encoding="utf-8")
        front_matter(existing, str(path))
        _, body, body_line = split_front_matter(existing)
        check_markers(body, str(path), body_line)
    state = WatchState.load(corpus.root)
    memo_path = corpus.root / STATE_DIR / MEMO_FILE
    memo = _load_memo(memo_path, window.key) if state.pending and state.pending.window == window.key else {}
    client = Remembering(client, memo)
    targets = watch_targets(corpus, client, options)
    org_keys = set(memo)  # the organisations' repository lists: kept for every resume
    pending = state.pending if state.pending and state.pending.window == window.key else None
    resumed = len(pending.repos) if pending else 0
    if pending is None:
        pending = Pending(window=window.key, start=window.start.isoformat(), end=window.end.isoformat(), tz=window.tz)
    state.pending = pending
    gatherer = Gatherer(client, window, search_cap=options.search_cap)
    failed: dict[str, RepoFacts] = {}

    for index, target in enumerate(targets):
        key = target.repo.lower()
        if key in pending.repos:
            continue
        say(f"[{index + 1}/{len(targets)}] {target.repo}")
        try:
            # patiently() calls the lambda within this iteration, so the loop variables are current.
            repo_facts = patiently(lambda: gatherer.repo(target, _tag_baseline(state, key, window)))  # noqa: B023
        except RateLimitError as exc:
            state.save()
            _save_memo(memo_path, window.key, memo)
            raise _stopped(exc, state, len(pending.repos), len(targets)) from exc
        except FetchError as exc:
            # One renamed or deleted repository must not cost the whole digest: record it,
            # keep it out of the saved facts so the next run tries again.
            failed[key] = RepoFacts(repo=target.repo, url=f"https://github.com/{target.repo}", default_branch="", pushed_at="", source_id=target.source_id, error=str(exc))
            say(f"  failed: {exc}")
            continue
        pending.repos[key] = repo_facts
        state.tags[key] = {"window": window.key, "before": _tag_baseline(state, key, window), "after": list(repo_facts.all_tags)}
        state.save()
        for done in [k for k in memo if k not in org_keys]:  # this repository's answers live in its facts now
            del memo[done]

    if pending.changes is None:
        selected = {t.repo.lower() for t in targets}
        refs = [r for r in cited_refs(corpus) if not (options.repos or options.orgs) or r.repo.lower() in selected]
        say(f"re-checking {len(refs)} cited PRs and issues")
        try:
            pending.changes = _recheck(corpus, gatherer, state, refs, window, patiently)
        except RateLimitError as exc:
            state.save()
            _save_memo(memo_path, window.key, memo)
            raise _stopped(exc, state, len(pending.repos), len(targets)) from exc

    facts = DigestFacts(
        start=window.start,
        end=window.end,
        tz=window.tz,
        repos=tuple(pending.repos.get(t.repo.lower()) or failed[t.repo.lower()] for t in targets),
        changes=tuple(pending.changes),
    )
    writer = DraftWriter(corpus, facts)
    created = not path.exists()
    text = writer.render() if created else merge(path.read_text(encoding="utf-8"), writer.render(), writer.blocks(), where=str(path))
    _write(path, text)
    state.pending = None
    state.save()
    memo_path.unlink(missing_ok=True)
    failures = tuple(f"{r.repo}: {r.error}" for r in facts.repos if r.error)
    return WatchResult(path=path, facts=facts, created=created, resumed=resumed, failures=failures)


def _tag_baseline(state: WatchState, key: str, window: Window) -> list[str] | None:
    record = state.tags.get(key)
    if not isinstance(record, dict):
        return None
    return record.get("before") if record.get("window") == window.key else record.get("after")


def _recheck(corpus: Corpus, gatherer: Gatherer, state: WatchState, refs: list[CitedRef], window: Window, patiently: Callable) -> list[StateChange]:
    changes = []
    for ref in refs:
        old = state.cited.get(ref.key.lower()) or {}
        # Same window again: compare with what was known before it, to report the same change.
        previous = old.get("before") if old.get("window") == window.key else old.get("state")
        if previous is None:
            previous = _provenance_state(corpus, ref)
        # patiently() calls the lambda within this iteration, so the loop variables are current.
        record, change = patiently(lambda: gatherer.recheck(ref, {"state": previous} if previous else None))  # noqa: B023
        state.cited[ref.key.lower()] = {**record, "before": previous, "window": window.key}
        if change:
            changes.append(change)
        _update_provenance(corpus, ref, record)
    return changes


def _provenance_state(corpus: Corpus, ref: CitedRef) -> str | None:
    if not ref.source_id or ref.source_id not in corpus.by_id:
        return None
    record = provenance.read_provenance(corpus.raw_dir(corpus.source(ref.source_id)))
    if record is None or record.thread is None:
        return None
    state = record.thread.display_state
    return "open" if state == "draft" else state


def _update_provenance(corpus: Corpus, ref: CitedRef, record: dict) -> None:
    """Refresh the thread state of the registry's mirror record; fetch owns everything else.

    Under fetch's run lock: a fetch running now may swap this very folder for a new capture
    between the read and the write below, and the old capture's record would then describe
    the new one's files. While a fetch holds the lock the record is left as it is (that fetch
    records the thread's state itself; the next watch run refreshes it otherwise)."""
    if not ref.source_id or ref.source_id not in corpus.by_id:
        return
    raw_dir = corpus.raw_dir(corpus.source(ref.source_id))
    if not safepath.is_inside(raw_dir, corpus.root):
        return  # a raw/<id> symlink out of corpus/: fetch reports it; watch writes nothing there
    try:
        with run_lock(corpus.root, "watch"):
            provenance.clean_temps(raw_dir, (provenance.FILENAME,))  # a killed refresh's, or a killed fetch's
            _refresh_thread(raw_dir, record)
    except UsageError:  # a fetch holds the lock (or it cannot be taken, which stops any fetch too)
        return


def _refresh_thread(raw_dir: Path, record: dict) -> None:
    old = provenance.read_provenance(raw_dir)
    if old is None or old.thread is None:
        return  # never mirrored: `corpus-build fetch` creates the record
    state = record["state"]
    thread = dataclasses.replace(
        old.thread,
        state="closed" if state in ("merged", "closed") else state,
        merged=state == "merged",
        merged_at=record.get("merged_at") or old.thread.merged_at,
        closed_at=record.get("closed_at") or old.thread.closed_at,
        updated_at=record.get("updated_at") or old.thread.updated_at,
    )
    if thread != old.thread:
        provenance.write_provenance(raw_dir, dataclasses.replace(old, thread=thread, checked_at=provenance.utc_stamp()))


def _seconds_until(reset_at: str) -> float | None:
    reset = provenance.parse_time(reset_at)
    return None if reset is None else max(0.0, (reset - provenance.now_utc()).total_seconds())


def _stopped(exc: RateLimitError, state: WatchState, done: int, total: int) -> RateLimitError:
    where = state.path
    error = RateLimitError(
        f"{exc}\n{done} of {total} repositories gathered and saved in {where}; "
        "run `corpus-build watch` again after the reset to resume this window",
        reset_at=exc.reset_at,
    )
    error.url = exc.url  # already part of the message; kept for callers that want it
    return error


def _require_writable(root: Path) -> None:
    """UsageError before any API request when the digest and state cannot be written."""
    if not os.access(root, os.W_OK):
        raise UsageError(f"{root} is not writable (a read-only folder or file system); watch writes the digest and its state there. Make it writable and run again")


MEMO_FILE = "requests.json"  # answers of the stopped window's unfinished work (see gather.Remembering)


def _load_memo(path: Path, window_key: str) -> dict[str, dict]:
    try:
        data = jsondata.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # lost or torn: those requests are simply made again
    if not isinstance(data, dict) or data.get("window") != window_key or not isinstance(data.get("answers"), dict):
        return {}
    return data["answers"]


def _save_memo(path: Path, window_key: str, memo: dict[str, dict]) -> None:
    _write(path, json.dumps({"window": window_key, "answers": memo}, sort_keys=True, ensure_ascii=False))


def _write(path: Path, text: str) -> None:
    write_atomic(path, text)  # (a full disk: the old file stays, and no temp file; never through a planted link)
