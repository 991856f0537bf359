"""Watch digests: what changed in the projects the corpus tracks, drafted from GitHub.

    window.py   the time window and display zone (`--since/--until/--tz`)
    targets.py  what to watch: registry repositories, `watch:` in corpus.yaml, cited PRs/issues
    gather.py   GitHub REST -> frozen records (through corpus_build.core.github_api)
    records.py  the records between gathering and writing
    draft.py    records -> Markdown draft with marked fact blocks
    merge.py    re-running a window: refresh facts, keep the editor's words
    state.py    corpus/.watch/state.json: baselines and a stopped run's partial facts
    run.py      draft_digest(), the one entry point
    cli.py      `corpus-build watch`
"""

from .run import WatchOptions, WatchResult, draft_digest, plan_window
from .window import Window

__all__ = ["WatchOptions", "WatchResult", "Window", "draft_digest", "plan_window"]
