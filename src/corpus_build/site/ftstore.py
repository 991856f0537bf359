"""What the full-text index keeps between builds (ftindex.py), on disk, read only where a build needs it.

A folder (`.corpus-build/cache/fulltext-store/`) of plain marshal files (plain data only:
loading one runs no code):

- `a/<key>`: one run's analysis (fulltext.analyse: its passages and their words), by a hash of
  the page's bytes (or of what one address's site entries hold, not the address) and the salt; read
  when that run changed, or when a passage file of it must be written, or by the offline copy's
  index, which reads the site's store and never writes it (ftindex.py);
- `t/<hash>`: one term shard's rows `[term, passage count, code, whole]` (`whole`: the postings
  of a term cut at MAX_POSTINGS, all of them, as array('i') bytes; else None); read when an
  edit touches a term of that shard;
- `state`: the last build's runs (not their passages), shards and passage files, by name.

Every file is written whole under a new name or replaced (os.replace), and the state last: a
kill leaves the last state, whose files are still there (old ones go only after the state
that no longer names them is saved). A file that cannot be read is as if missing: the build
that needs it makes everything again. Without a folder (tests, a build with no cache) the
files are kept in memory for the build.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from pathlib import Path
from typing import Any

from ..core.provenance import write_atomic


class Store:
    def __init__(self, folder: Path | None, salt: str):
        if folder is not None and any(os.path.islink(p) for p in (folder, folder / "a", folder / "t")):
            # Not a store this code made (the cache folder comes from outside): written through, a link
            # would put the files elsewhere, and `save` would delete every other file of where it points.
            folder = None
        self.folder = folder
        self.salt = salt
        self._memory: dict[str, bytes] = {}
        self.state: dict[str, Any] | None = None
        data = self._read("state")
        if isinstance(data, dict) and data.get("salt") == salt and _well_formed(data):
            self.state = data

    def key(self, data: bytes) -> str:
        """The name of a run's analysis: its input's hash under the salt (VERSION, folding table…)."""
        return hashlib.sha1(self.salt.encode() + b"\0" + data).hexdigest()

    def analysis(self, key: str) -> Any:
        return self._read(f"a/{key}")

    def put_analysis(self, key: str, value: Any) -> None:
        self._write(f"a/{key}", marshal.dumps(value))

    def shard(self, name: str) -> Any:
        return self._read(f"t/{name}")

    def put_shard(self, rows: list) -> str:
        data = marshal.dumps(rows)
        name = hashlib.sha1(data).hexdigest()
        self._write(f"t/{name}", data)
        return name

    def save(self, state: dict[str, Any], analyses: set[str], shards: set[str]) -> None:
        """The new state, then every analysis and shard file it does not name removed."""
        self._write("state", marshal.dumps({**state, "salt": self.salt}))
        if self.folder is None:
            self._memory = {k: v for k, v in self._memory.items()
                            if k == "state" or (k[2:] in analyses if k.startswith("a/") else k[2:] in shards)}
            return
        for kind, keep in (("a", analyses), ("t", shards)):
            try:
                names = os.listdir(self.folder / kind)
            except OSError:
                continue
            for name in names:
                if name not in keep:
                    (self.folder / kind / name).unlink(missing_ok=True)

    def _read(self, name: str) -> Any:
        try:
            data = self._memory[name] if self.folder is None else (self.folder / name).read_bytes()
            return marshal.loads(data)
        except (KeyError, OSError, ValueError, EOFError, TypeError):
            return None

    def _write(self, name: str, data: bytes) -> None:
        if self.folder is None:
            self._memory[name] = data
            return
        write_atomic(self.folder / name, data)


def _well_formed(state: dict[str, Any]) -> bool:
    """The shape ftindex.build saves (a state of another shape, made by hand or by a bug, is no state)."""
    runs, shards, chunks = state.get("runs"), state.get("shards"), state.get("chunks")
    return (isinstance(runs, dict) and isinstance(shards, list) and isinstance(chunks, dict)
            and all(isinstance(v, tuple) and len(v) == 8 and isinstance(v[0], int) and isinstance(v[6], tuple) for v in runs.values())
            and all(isinstance(v, tuple) and len(v) == 6 for v in shards)
            and all(isinstance(v, tuple) and len(v) == 3 for v in chunks.values()))
