"""JSON from files and servers corpus-build does not control, read without a traceback.

`json.loads` recurses once per nesting level: a provenance.json, a GitHub API answer or a
watch state of 100,000 nested `[` ends in RecursionError, which no reader expected. Here it
is a ValueError like any other malformed JSON, which every reader already handles (a
record it cannot read is no record; an API answer it cannot read is a failed request).
"""

from __future__ import annotations

import json
from typing import Any


def loads(data: str | bytes) -> Any:
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None
