"""Reuse last render's pages whose view record did not change: an edit re-renders what it touches.

Rendering a page is two steps: the builders make its view record (views.py), then
Jinja lays it out. The layout is most of the cost (at 5,000 sources about half of the
render stage), and it depends on nothing but the record, the template and our code.
So each page written to docs/ is remembered by a key of exactly those, in
`docs/.corpus-build-views.json` (a dot-file: MkDocs never publishes it):

    path -> [key, sha256 of the file's bytes, inode, mtime_ns, ctime_ns, bytes]

A page whose key is unchanged is read back from docs/ instead of laid out again,
and only when the file still holds exactly what was written, so a hand edit, a
half-written file or a swapped file is rendered afresh. A file that still has the
inode, times and size recorded after it was written is that file, untouched (any
write or replacement changes its ctime, which no tool can set back); only a file
without them is hashed again. Such a file, read back and written out unchanged, is
then neither hashed nor read again to compare (render's _write_pages): at 1,000
sources a note edit hashed the 35 MB of mirror text pages twice and read them twice. A record with no
stable text (an object printed with its address) gets no key and is always rendered.
Nothing is stored besides the keys: docs/ itself holds the pages.

One thing every source page's view reads is kept too: the plain words of the start of
each mirror's text (its excerpt, `mdtext.plain_text`), in `docs/.corpus-build-words.json`
by the digest of the Markdown and our code. A view is made for every source at every
render, to find its key; without this, one note edit ran the excerpt's dozen regular
expressions over every mirror again (a fifth of such a render at 1,000 sources).

And the sha256 of the mirror files the text and archive pages' keys name, in
`docs/.corpus-build-digests.json` by path and stamp (`file_digest`): a note edit at 1,000
sources read and hashed the 35 MB of mirror text again to find that none of it changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from ..core import cachekeys, jsondata, mdtext
from ..core.provenance import write_atomic

INDEX = ".corpus-build-views.json"
INPUTS = ".corpus-build-inputs.json"  # a source page's key from its inputs -> its view record's key (sourcekeys.py)
WORDS = ".corpus-build-words.json"
DIGESTS = ".corpus-build-digests.json"
SCHEMA = 1  # bump when a key's meaning changes
Stamp = tuple[int, int, int, int]  # (inode, mtime_ns, ctime_ns, bytes) of a file under docs/
# The render under way (`words`, below): set by render() for as long as it runs.
_ACTIVE: Reuse | None = None


class Reuse:
    """One render's view keys: what can be read back from docs/, and what to remember next."""

    def __init__(self, docs_dir: Path | None):
        self.docs_dir = docs_dir
        # Our code and templates, Jinja's and MarkupSafe's versions (and the other rendering libraries').
        self.code = cachekeys.digest(SCHEMA, cachekeys.versions()) if docs_dir is not None else ""
        self.previous: dict[str, tuple[str, str]] = {}  # key -> (path, sha256)
        self.stamps: dict[str, Stamp] = {}  # path -> its stamp as the last render left it
        # What get/get_files read back, as it was read: a page's text (a file's bytes object) ->
        # (path, sha256, stamp after the read); note() then knows it unchanged on disk.
        self.read_back: dict[str, tuple[str, str, Stamp]] = {}
        self.files_read_back: dict[str, tuple[bytes, str, Stamp]] = {}
        self.groups: dict[str, list[tuple[str, str]]] = {}  # key -> every (path, sha256) made from it (made_files)
        self.outputs: dict[str, str] = {}  # a layout made or reused in this render -> its key (until written)
        self.file_outputs: dict[str, str] = {}  # path of a file made or reused in this render (made_files) -> its key
        self.index: dict[str, list[Any]] = {}  # path -> [key, sha256 of the file, *its stamp], for the next render
        self.reused = 0
        self._words: dict[str, str] = {}  # plain_text's output by the digest of its input, as the last render left them
        self.words_used: dict[str, str] = {}  # those this render asked for: all the next one keeps
        # The sha256 of mirror files the keys name, by path and stamp as the last render found them (file_digest).
        self._digests: dict[str, list[Any]] = {}
        self.digests_used: dict[str, list[Any]] = {}
        self.hashed = 0  # files this render read and hashed
        # A source page's key from its inputs -> its view record's key: the last render's, and this one's.
        # (with the excerpt words and mirror file digests making the page used: a page found by its inputs
        # asks for none, and they are kept for the render that must make it again)
        self._inputs: dict[str, list[Any]] = {}
        self.inputs_used: dict[str, list[Any]] = {}
        self._trace: tuple[set[str], set[str]] | None = None  # (words keys, digest paths) while a page is made
        if docs_dir is None:
            return
        try:
            inputs = jsondata.loads(_read_state(docs_dir / INPUTS))
            self._inputs = {str(k): v for k, v in inputs.items() if _input_entry(v)} if isinstance(inputs, dict) else {}
        except (OSError, ValueError):
            self._inputs = {}
        try:
            words = jsondata.loads(_read_state(docs_dir / WORDS))
            self._words = {str(k): v for k, v in words.items() if isinstance(v, str)} if isinstance(words, dict) else {}
        except (OSError, ValueError):
            self._words = {}
        try:
            digests = jsondata.loads(_read_state(docs_dir / DIGESTS))
            self._digests = {str(k): v for k, v in digests.items() if isinstance(v, list) and len(v) == 5} if isinstance(digests, dict) else {}
        except (OSError, ValueError):
            self._digests = {}
        try:
            index = jsondata.loads(_read_state(docs_dir / INDEX))
            for path, (key, sha, *stamp) in index.items():
                self.previous[str(key)] = (str(path), str(sha))
                if len(stamp) == 4 and all(isinstance(n, int) for n in stamp):
                    self.stamps[str(path)] = (stamp[0], stamp[1], stamp[2], stamp[3])
                self.groups.setdefault(str(key), []).append((str(path), str(sha)))
        except (OSError, ValueError, TypeError, AttributeError):
            self.previous, self.groups, self.stamps = {}, {}, {}

    def key(self, template: str, lang: str, view: object) -> str | None:
        if self.docs_dir is None:
            return None
        text = repr(view)
        if " at 0x" in text:  # an object without a stable repr: no key describes it
            return None
        return hashlib.sha256(f"{self.code}\0{template}\0{lang}\0{text}".encode()).hexdigest()

    def get(self, key: str | None, mark: str) -> str | None:
        """The page laid out from this key last time, if docs/ still holds exactly that."""
        if key is None or key not in self.previous or self.docs_dir is None:
            return None
        path, sha = self.previous[key]
        data = self._as_left(path, sha)
        if data is None:
            return None
        text = data.decode("utf-8")
        if not text.endswith(mark):
            return None
        self.reused += 1
        stamp = self._stamp(path)
        if stamp is not None:
            self.read_back[text[: -len(mark)]] = (path, sha, stamp)
        return text[: -len(mark)]

    def get_by_inputs(self, inputs: str | None, mark: str, path: str) -> str | None:
        """The page at docs/`path` the last render laid out from a view made of these very inputs, if docs/ still holds it.

        The inputs file is read from docs/ (a hand edit, a merge): an entry whose view was laid
        out at another path is another page's, and is not taken.
        """
        entry = self._inputs.get(inputs) if inputs is not None else None
        if entry is not None and self.previous.get(entry[0], ("",))[0] != path:
            entry = None
        found = self.get(entry[0], mark) if entry is not None else None
        if found is not None and entry is not None and inputs is not None:
            key, words, paths = entry
            self.inputs_used[inputs] = entry
            for word in words:  # what making the page used, kept as if it had been asked for
                if word in self._words:
                    self.words_used.setdefault(word, self._words[word])
            for path in paths:
                if path in self._digests:
                    self.digests_used.setdefault(path, self._digests[path])
            self.made(key, found)
        return found

    def begin_trace(self) -> None:
        """A page is being made: note the words and digests it uses (made_from keeps them with its inputs)."""
        self._trace = (set(), set())

    def made_from(self, inputs: str | None, key: str | None) -> None:
        traced, self._trace = self._trace, None
        if inputs is not None and key is not None:
            words, paths = traced if traced is not None else (set(), set())
            self.inputs_used[inputs] = [key, sorted(words), sorted(paths)]

    def made(self, key: str | None, output: str) -> str:
        if key is not None:
            self.outputs[output] = key
        return output

    def get_files(self, key: str | None) -> dict[str, bytes] | None:
        """The files made from this key last time (path under docs/ -> bytes), if docs/ still holds exactly them all."""
        if key is None or self.docs_dir is None or key not in self.groups:
            return None
        found = {}
        for path, sha in self.groups[key]:
            data = self._as_left(path, sha)
            if data is None:
                return None
            found[path] = data
            stamp = self._stamp(path)
            if stamp is not None:
                self.files_read_back[path] = (data, sha, stamp)
        self.reused += 1
        self.made_files(key, found)
        return found

    def _as_left(self, path: str, sha: str) -> bytes | None:
        """docs/<path>'s bytes if they are still what was written there (their sha256), else None."""
        assert self.docs_dir is not None
        try:
            data = (self.docs_dir / path).read_bytes()
        except OSError:
            return None
        recorded = self.stamps.get(path)
        if recorded is not None and self._stamp(path) == recorded:  # (taken after the read: a write meanwhile shows)
            return data
        return data if hashlib.sha256(data).hexdigest() == sha else None

    def _stamp(self, path: str) -> Stamp | None:
        assert self.docs_dir is not None
        try:
            info = os.lstat(self.docs_dir / path)
        except OSError:
            return None
        return (info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size)

    def made_files(self, key: str | None, files: dict[str, Any]) -> None:
        """Files made together from one key (an archived page and its style files): remembered as they are written."""
        if key is not None:
            for path in files:
                self.file_outputs[path] = key

    def note(self, path: str, content: Any, mark: str, data: bytes | None = None) -> bool:
        """A page or file about to be written (after build_pages marked it): remember its key, if a layout or
        made_files made it. True when docs/<path> is known to hold exactly `content` already: it was read
        back from there in this render, and is as it was read (its stamp), so it need not be read to compare."""
        if self.docs_dir is None:
            return False
        if path in self.file_outputs and data is not None:
            key = self.file_outputs.pop(path)
            read = self.files_read_back.pop(path, None)
            if read is not None and read[0] is content and self._stamp(path) == read[2]:
                self.index[path] = [key, read[1]]
                return True
            self.index[path] = [key, hashlib.sha256(data).hexdigest()]
            return False
        if not isinstance(content, str) or not content.endswith(mark):
            return False
        text = content[: -len(mark)]
        page_key = self.outputs.pop(text, None)  # popped: the page's text is not kept
        page_read = self.read_back.pop(text, None)
        if page_key is None:
            return False
        if page_read is not None and page_read[0] == path and self._stamp(path) == page_read[2]:
            self.index[path] = [page_key, page_read[1]]
            return True
        self.index[path] = [page_key, hashlib.sha256(content.encode("utf-8")).hexdigest()]
        return False

    def plain_text(self, markdown: str) -> str:
        """`mdtext.plain_text(markdown)`, as the last render made it when that had the same input and code."""
        key = hashlib.sha256(f"{self.code}\0plain_text\0{markdown}".encode("utf-8", "surrogatepass")).hexdigest()
        if self._trace is not None:
            self._trace[0].add(key)
        found = self.words_used.get(key)
        if found is None:
            found = self._words.get(key)
            if found is None:
                found = mdtext.plain_text(markdown)
            self.words_used[key] = found
        return found

    def file_digest(self, path: Path) -> str:
        """The sha256 of a file the keys name (a mirror's text, its archived page); OSError when unreadable.

        Known without reading when the file has the inode, times and size it had when the last render
        hashed it: a write or a replacement changes its ctime, which no tool sets back (as for docs/
        above). At 1,000 mirrored sources this was 35 MB read and hashed at every render."""
        name = os.fspath(path)
        if self._trace is not None:
            self._trace[1].add(name)
        info = os.stat(name)
        stamp = [info.st_ino, info.st_mtime_ns, info.st_ctime_ns, info.st_size]
        known = self.digests_used.get(name) or self._digests.get(name)
        if known is not None and known[:4] == stamp and isinstance(known[4], str):
            self.digests_used[name] = known
            return known[4]
        found = _sha256_of(name)
        self.hashed += 1
        after = os.stat(name)  # (taken after the read: a write meanwhile is not remembered as this content)
        if [after.st_ino, after.st_mtime_ns, after.st_ctime_ns, after.st_size] == stamp:
            self.digests_used[name] = [*stamp, found]
        return found

    def save(self) -> None:
        """Write the keys of this render's pages, and the words it used, for the next one."""
        if self.docs_dir is None:
            return
        for path, entry in self.index.items():  # the files as written: the next render knows them untouched by these
            stamp = self._stamp(path)
            if stamp is not None:
                entry[2:] = stamp
        for name, data in ((INDEX, self.index), (WORDS, self.words_used), (DIGESTS, self.digests_used), (INPUTS, self.inputs_used)):
            text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            target = self.docs_dir / name
            try:
                try:
                    same = _read_state(target) == text
                except (OSError, ValueError):
                    same = False
                if not same:
                    write_atomic(target, text)
            except (OSError, ValueError):  # the keys only save time; a build never fails for them (nor for a file not UTF-8)
                pass


@contextmanager
def active(reuse: Reuse) -> Iterator[None]:
    """`reuse` is the render under way's, for `plain_text` below (the builders reach it without a parameter)."""
    global _ACTIVE
    outer, _ACTIVE = _ACTIVE, reuse
    try:
        yield
    finally:
        _ACTIVE = outer


def plain_text(markdown: str) -> str:
    """`mdtext.plain_text`, kept between renders while one runs (see the module docstring)."""
    return _ACTIVE.plain_text(markdown) if _ACTIVE is not None and _ACTIVE.docs_dir is not None else mdtext.plain_text(markdown)


def file_digest(path: Path) -> str:
    """A file's sha256: `Reuse.file_digest` while a render runs, else read and hashed."""
    if _ACTIVE is not None and _ACTIVE.docs_dir is not None:
        return _ACTIVE.file_digest(path)
    return _sha256_of(os.fspath(path))


def _input_entry(value: Any) -> bool:
    """[view key, [words keys], [digest paths]]: an entry of the inputs index as saved."""
    return (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
            and all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in value[1:]))


def _sha256_of(name: str) -> str:
    h = hashlib.sha256()
    with open(name, "rb") as handle:
        while chunk := handle.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def forget_inputs(docs_dir: Path) -> None:
    """Drop the last render's (inputs -> view) pairs (INPUTS, sourcekeys.py). A mirror that changed
    while that render read it may have left a page made from the older record under a key of the
    newer files' stamps: the next render would read that page back for good."""
    with suppress(OSError):
        (Path(docs_dir) / INPUTS).unlink()


def _read_state(path: Path) -> str:
    """A state file's text; OSError unless it is a regular file. A link planted under its name to a
    FIFO would block the render for ever, to /dev/zero read until memory ran out."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        return handle.read().decode("utf-8")
