"""`corpus-build publish`: the daily pipeline in one command, for CI or cron.

    fetch (incremental)  ->  watch (the last whole day, in the corpus's time zone)
                         ->  links (cached: only old results are asked again)
                         ->  build --strict (plus the offline zip when `offline: true`)

Each stage is the library function its own command calls; stages talk through the
files under corpus/, so the registry is read again after each one. A stage that finds
problems (a failed fetch, a dead link, a repository watch could not read) is reported
and the next stage still runs: one dead link must not stop the day's digest or site.
Only a registry error or a failed build stops the run. Restoring caches, committing
and deploying belong to the caller (see .github/workflows/daily.yml).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from . import registry
from .core.errors import CorpusBuildError, RegistryError, SiteError, UsageError, plural, repositories
from .core.model import Corpus

STEPS = ("fetch", "watch", "links", "build")


@dataclass(frozen=True)
class StepResult:
    step: str
    state: str  # "ok", "problems" (the stage ran and found some), "failed" (it could not run), "skipped"
    summary: str
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class PublishResult:
    steps: tuple[StepResult, ...]
    site_dir: Path | None  # None when the build did not finish
    digest: Path | None = None  # the digest drafted or refreshed today

    @property
    def ok(self) -> bool:
        return all(s.state in ("ok", "skipped") for s in self.steps)


def last_day(corpus: Corpus, now: dt.datetime):
    """The last whole day before `now` in the corpus's zone, with the day boundary its digests use.

    The zone and the boundary come from the newest digest (the seed digests run from
    07:00 to 07:00 Beijing time); a corpus without digests gets UTC midnight to midnight.
    Returns None when the newest digest already covers that day.
    """
    from .watch.window import Window, format_tz, last_window_end, parse_tz

    tz = next((str(d.meta["tz"]).strip() for d in corpus.digests if str(d.meta.get("tz") or "").strip()), "+00:00")
    zone = parse_tz(tz)
    previous = last_window_end(corpus)
    boundary = previous.astimezone(zone).time() if previous else dt.time(0, 0)
    local_now = now.astimezone(zone)
    end = dt.datetime.combine(local_now.date(), boundary, tzinfo=zone)
    if end > local_now:
        end -= dt.timedelta(days=1)
    start = end - dt.timedelta(days=1)
    if previous is not None:
        if previous >= end:
            return None
        start = max(start, previous)  # never draft the same hours twice
    return Window(start=start, end=end, tz=format_tz(zone))


def _fetch(project: Path, env: Mapping[str, str]) -> tuple[str, str]:
    from .core.provenance import Status
    from .fetch.engine import fetch_corpus
    from .fetch.options import from_corpus

    corpus = registry.load(project / "corpus")
    results = fetch_corpus(corpus, from_corpus(corpus).with_env(env))
    counts = {s.value: sum(1 for r in results if r.status is s) for s in Status}
    failed = [r for r in results if not r.ok]
    text = ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "nothing to fetch"
    if failed:
        text += "; " + "; ".join(f"{r.id}: {r.error}" for r in failed[:5]) + (" …" if len(failed) > 5 else "")
    return ("problems" if failed else "ok"), text


def _watch(project: Path, env: Mapping[str, str], now: dt.datetime) -> tuple[str, str, Path | None]:
    from .core.github_api import GitHubClient, GitHubConfig
    from .registry.settings import parse_watch_config
    from .watch.cli import CACHE_DIR
    from .watch.run import draft_digest
    from .watch.targets import registry_repos

    corpus = registry.load(project / "corpus")
    config_targets = parse_watch_config(corpus.settings.extra.get("watch"))
    if not registry_repos(corpus) and not config_targets.repos and not config_targets.orgs:
        return "skipped", "nothing to watch: no GitHub repository in the registry or in corpus.yaml `watch`", None
    window = last_day(corpus, now)
    if window is None:
        return "skipped", "the newest digest already covers the last day", None
    config = GitHubConfig.from_env(dict(env), cache_dir=project / CACHE_DIR)
    with GitHubClient(config) as client:
        result = draft_digest(corpus, window, client)
    counts = result.facts.counts()
    text = (f"{'drafted' if result.created else 'refreshed'} {result.path.relative_to(project)} "
            f"({window.start.isoformat(timespec='minutes')} .. {window.end.isoformat(timespec='minutes')}): "
            f"{repositories(counts['repos'])}, {plural(counts['merged'], 'merged PR')}, {plural(counts['state_changes'], 'cited state change')}")
    if result.failures:
        return "problems", text + "; " + "; ".join(result.failures), result.path
    return "ok", text, result.path


def _links(project: Path) -> tuple[str, str]:
    from .core.linkrecords import LinkState
    from .links.check import check_links
    from .links.options import from_corpus

    corpus = registry.load(project / "corpus")
    run = check_links(corpus, from_corpus(corpus))
    counts = ", ".join(f"{run.count(s)} {s.value}" for s in LinkState if run.count(s)) or "no links"
    broken = [r for r in run.results if r.state.broken]
    text = f"{counts}; {run.checked} checked, {run.cached} from the cache"
    if broken:
        text += "; dead: " + ", ".join(r.id for r in broken)
    return ("problems" if broken else "ok"), text


def publish(
    project: Path,
    *,
    skip: tuple[str, ...] = (),
    site_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    now: dt.datetime | None = None,
    progress: Callable[[StepResult], None] | None = None,
) -> PublishResult:
    """Run the daily pipeline; raises RegistryError or SiteError only when no site could be built."""
    from . import site

    project = Path(project).resolve()
    env = os.environ if env is None else env
    moment = now or dt.datetime.now(dt.UTC)
    unknown = [s for s in skip if s not in STEPS]
    if unknown:
        raise UsageError(f"--skip takes {', '.join(STEPS)}; got {', '.join(unknown)}")
    site.engines.put_back_site(project, site_dir)  # a site a killed build left parked: back before anything stops
    registry.load(project / "corpus")  # a broken registry stops everything before any request
    steps: list[StepResult] = []
    digest: Path | None = None
    built: Path | None = None

    def record(step: str, state: str, summary: str, started: float) -> None:
        result = StepResult(step, state, summary, round(time.monotonic() - started, 2))
        steps.append(result)
        if progress:
            progress(result)

    for step in STEPS:
        started = time.monotonic()
        if step in skip:
            record(step, "skipped", "skipped (--skip)", started)
            continue
        try:
            if step == "fetch":
                record(step, *_fetch(project, env), started)
            elif step == "watch":
                state, summary, digest = _watch(project, env, moment)
                record(step, state, summary, started)
            elif step == "links":
                record(step, *_links(project), started)
            else:
                corpus = registry.load(project / "corpus")
                built = site.build_and_remember(project, corpus, strict=True, site_dir=site_dir)
                record(step, "ok", f"built {len(corpus.sources)} sources into {built}", started)
        except (RegistryError, SiteError):
            raise
        except CorpusBuildError as exc:  # a rate limit, an unreachable API: this stage only
            record(step, "failed", str(exc), started)
    return PublishResult(tuple(steps), built, digest)


# --- command line -------------------------------------------------------------------------


def register(sub: argparse._SubParsersAction) -> None:
    from .core.commands import add_command

    p = add_command(
        sub, "publish", cmd_publish,
        help="the daily pipeline: fetch, watch the last day, check links, build --strict",
        description=(
            "Run fetch (incremental), watch for the last whole day in the corpus's time zone, links and "
            "build --strict, in that order. Stages that find problems are reported and the next still runs. "
            "Exit 0 when every stage was clean, 1 when one found problems or failed, 2 on usage errors; "
            "with --allow-problems, 0 whenever the site was built."
        ),
        example="corpus-build publish\ncorpus-build publish --skip fetch --skip watch --allow-problems --json",
    )
    p.add_argument("--skip", action="append", default=[], choices=STEPS, help="leave out a stage (repeatable)")
    p.add_argument("--site-dir", help="where to write the site (default: site/)")
    p.add_argument("--allow-problems", action="store_true", help="exit 0 when the site was built, even if a stage found problems (CI)")
    p.add_argument("--json", action="store_true", help="one JSON record per stage")


def cmd_publish(args: argparse.Namespace) -> int:
    from .core.commands import project_dir

    def show(step: StepResult) -> None:
        if args.json:
            print(json.dumps(step.to_dict(), ensure_ascii=False, sort_keys=True), flush=True)
        else:
            print(f"{step.step}: {step.state}: {step.summary} ({step.seconds:.1f}s)", flush=True)

    # Registry and usage errors are raised: corpus_build.cli.main prints them and maps the exit code.
    result = publish(project_dir(args), skip=tuple(args.skip), site_dir=Path(args.site_dir) if args.site_dir else None, progress=show)
    if result.ok:
        return 0
    if not args.json:
        print("some stages found problems (above); the site was " + ("built" if result.site_dir else "not built"), file=sys.stderr)
    return 0 if args.allow_problems and result.site_dir else 1
