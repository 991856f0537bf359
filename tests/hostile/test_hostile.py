"""The hostile-input suite: every case in cases/ must end in a clear, positioned error (or success),
never a traceback, a hang, a MemoryError or a change outside the project.

Set HOSTILE_REPORT=path to collect every outcome as JSON lines (scripts/reliability_report.py does).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .runner import load_cases, run_case

CASES = load_cases()


@pytest.fixture(autouse=True)
def hermetic(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_API_URL", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 80
    assert len({c["name"] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_hostile_case(case: dict, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path)
    report = os.environ.get("HOSTILE_REPORT")
    if report:
        with open(report, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(outcome.to_dict()) + "\n")
    assert outcome.problems == [], f"{case['file']}: {outcome.problems}\n--- output ---\n{outcome.output[-3000:]}"
