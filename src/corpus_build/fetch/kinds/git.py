"""Repositories: a hardened git clone, its facts (branch, commit, date, latest tag) and README.

git never runs hooks, never recurses into submodules, speaks only http(s) (file://
only when a test sets `allow_file_urls`), never prompts, and checks symlinks out
as plain files. The README is read without following symlinks. git follows no
redirect itself: when a remote cannot be reached directly, its redirects are followed by
the fetch's own HTTP client, each hop checked as a page's are (fetch/http.py
check_redirect: never from a public host into this machine or its network), and git is
given where they end.

A clone is bounded like a download: the staging folder's size is watched while git
runs, and past `fetch.max_bytes` git and its helpers (its process group) are killed.
Every git process also dies with corpus-build (PR_SET_PDEATHSIG where Linux offers it),
so a SIGKILLed fetch leaves no `git clone` writing into a staging folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import re
import shutil
import signal
import stat
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ...core.errors import FetchError, GitError
from ...core.model import Source
from ...core.provenance import Document, Extractor, RepoFacts
from ...core.urls import github_parts
from ..base import Context, Outcome
from ..http import candidates, check_redirect, user_hosts

CLONE = "repo"
TEXT = "README.md"
MAX_README = 2 * 1024 * 1024
_README = re.compile(r"^readme(\.(md|markdown|rst|txt|org|adoc))?$", re.I)
_PASSTHROUGH_ENV = ("PATH", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "no_proxy", "NO_PROXY", "SSL_CERT_FILE", "GIT_SSL_CAINFO")


def clone_url(source: Source) -> str:
    parts = github_parts(source.url)
    if parts:
        return f"https://github.com/{parts[0]}/{parts[1]}"
    return source.url.rstrip("/")


def git_env(allow_file: bool, home: Path) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSTHROUGH_ENV if k in os.environ}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "/bin/false",
            "SSH_ASKPASS": "/bin/false",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,  # the user's aliases, hooks or url.insteadOf must not apply
            "HOME": str(home),
            "LC_ALL": "C",
            "GIT_ALLOW_PROTOCOL": "http:https:file" if allow_file else "http:https",
        }
    )
    return env


def git_config_args(allow_file: bool) -> list[str]:
    config = {
        "core.hooksPath": os.devnull,
        "protocol.ext.allow": "never",
        "protocol.file.allow": "always" if allow_file else "never",
        "submodule.recurse": "false",
        "core.symlinks": "false",
        "core.fsmonitor": "false",
        "http.followRedirects": "false",  # followed and checked beforehand (GitRunner.settle)
        "advice.detachedHead": "false",
    }
    return [arg for key, value in config.items() for arg in ("-c", f"{key}={value}")]


SIZE_POLL = 0.2  # seconds between two looks at a clone's size
# git's output is read as it comes, never held whole: a remote decides how much git prints.
OUTPUT_MAX_BYTES = 1024 * 1024  # rev-parse, log -1, ls-remote HEAD print a line or two
TAGS_MAX_BYTES = 64 * 1024 * 1024  # `ls-remote --tags`: ~60 bytes a tag, about a million tags; only the first line is kept
STDERR_TAIL = 64 * 1024  # the last lines say why git failed; a chatty remote's progress before them is dropped


class _TooMuchOutput(Exception):
    pass


def _find_prctl():  # looked up once, in the parent: the child between fork and exec only calls it
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux: the process group is still killed on errors
        return None


_PRCTL = _find_prctl()
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: a session of its own, and SIGKILL when corpus-build dies (Linux)."""
    os.setsid()
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def tree_size(folder: Path) -> int:
    """Bytes of the regular files under `folder` (symlinks not followed; vanished files skipped)."""
    total = 0
    stack = [str(folder)]
    while stack:
        try:
            with os.scandir(stack.pop()) as entries:
                for entry in entries:
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append(entry.path)
                        elif entry.is_file(follow_symlinks=False):
                            total += entry.stat(follow_symlinks=False).st_size
                    except OSError:
                        continue
        except OSError:
            continue
    return total


class GitRunner:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.allow_file = ctx.options.allow_file_urls
        self.home = ctx.stage / ".git-home"

    def check_url(self, url: str) -> None:
        scheme = urlsplit(url).scheme
        if scheme not in ("http", "https") and not (scheme == "file" and self.allow_file):
            raise GitError(f"refusing a {scheme or 'local'} git remote: only http(s) URLs are cloned", url=url)

    async def run(self, *args: str, cwd: Path | None = None, url: str = "", size_of: Path | None = None,
                  max_output: int = OUTPUT_MAX_BYTES, first_line: bool = False, what: str = "output") -> str:
        """git `args`; with `size_of`, git is killed once that folder passes fetch.max_bytes; past
        `max_output` bytes of output (`what`), git is killed. `first_line`: only that is kept."""
        self.home.mkdir(parents=True, exist_ok=True)
        # A session (and process group) of its own: git runs helpers (git-remote-https,
        # index-pack) that must die with it on a timeout or an interrupt.
        process = await asyncio.create_subprocess_exec(
            "git", *git_config_args(self.allow_file), *args,
            cwd=cwd, env=git_env(self.allow_file, self.home), preexec_fn=_die_with_parent,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        timeout = self.ctx.options.git_timeout
        try:
            out, err = await asyncio.wait_for(self._communicate(process, size_of, url, max_output, first_line), timeout)
        except _TooMuchOutput:
            await _kill_group(process)
            raise GitError(
                f"git {args[0]} printed more than {max_output:,} bytes of {what} and was stopped: the remote advertises far more than "
                "any repository cited here should; check the address", url=url,
            ) from None
        except TimeoutError:
            await _kill_group(process)
            raise GitError(
                f"git {args[0]} took longer than fetch.git_timeout ({timeout:g} s); raise it in corpus.yaml `fetch:` or retry", url=url
            ) from None
        except asyncio.CancelledError:
            await _kill_group(process)
            raise
        if process.returncode != 0:
            lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
            detail = lines[-1] if lines else f"exit status {process.returncode}"
            raise GitError(f"git {args[0]} failed: {detail}", url=url)
        return out.decode("utf-8", "replace")

    async def _communicate(self, process: asyncio.subprocess.Process, size_of: Path | None, url: str, max_output: int,
                           first_line: bool) -> tuple[bytes, bytes]:
        talk = asyncio.ensure_future(_bounded_output(process, max_output, first_line))
        if size_of is None:
            return await talk
        cap = self.ctx.options.max_bytes
        try:
            while True:
                done, _ = await asyncio.wait([talk], timeout=SIZE_POLL)
                # Measured once more after git ended: a clone that finished between two looks
                # (a fast server: 12 MB in under SIZE_POLL) may be past the cap all the same.
                size = tree_size(size_of)
                if size > cap:
                    if not done:  # an ended git is reaped: its process group may be another's by now
                        await _kill_group(process)
                    raise GitError(
                        f"the clone passed the size cap of {cap:,} bytes (fetch.max_bytes) at {size:,} bytes and was stopped; "
                        "raise fetch.max_bytes in corpus.yaml if the repository really is that large",
                        url=url,
                    )
                if done:
                    return talk.result()
        finally:
            if not talk.done():
                talk.cancel()

    async def settle(self, url: str) -> str:
        """`url` after the redirects its smart-HTTP discovery request gets (a renamed GitHub
        repository answers 301), each hop checked like a page's; GitError when one leads into
        this machine or its network from a public host, or away from a git address. Asked only
        when git, which follows no redirect, could not reach `url` itself."""
        if urlsplit(url).scheme not in ("http", "https"):
            return url
        suffix = "/info/refs?service=git-upload-pack"
        current, allowed = url, user_hosts(self.ctx.options)
        for _hop in range(self.ctx.options.max_redirects):
            try:
                status, headers, _ = await self.ctx.http.probe("GET", current.rstrip("/") + suffix)
            except FetchError as exc:
                raise GitError(str(exc).removeprefix(f"{exc.url}: "), url=url) from exc
            if status not in (301, 302, 303, 307, 308) or "location" not in headers:
                return current
            target = urljoin(current.rstrip("/") + suffix, headers["location"])
            try:
                await check_redirect(url, target, allowed)
            except FetchError as exc:
                raise GitError(str(exc).removeprefix(f"{exc.url}: "), url=url) from exc
            if not target.endswith(suffix):
                raise GitError(f"the remote redirects to {target}, which is no git repository address", url=url)
            current = target.removesuffix(suffix)
        raise GitError(f"more than {self.ctx.options.max_redirects} redirects", url=url)

    async def ls_remote_head(self, url: str) -> tuple[str, str]:
        """(commit, branch) of the remote's HEAD, without cloning."""
        out = await self.run("ls-remote", "--symref", "--", url, "HEAD", url=url)
        commit = branch = ""
        for line in out.splitlines():
            if line.startswith("ref: ") and line.endswith("\tHEAD"):
                branch = line[5:-5].removeprefix("refs/heads/")
            elif line.endswith("\tHEAD"):
                commit = line.split("\t")[0]
        if not commit:
            raise GitError("the remote has no HEAD (an empty repository?)", url=url)
        return commit, branch


async def _bounded_output(process: asyncio.subprocess.Process, max_output: int, first_line: bool) -> tuple[bytes, bytes]:
    """(stdout, the tail of stderr) of `process`, read as they come; _TooMuchOutput past `max_output` bytes."""
    assert process.stdout is not None and process.stderr is not None
    stdout, stderr = process.stdout, process.stderr

    async def out() -> bytes:
        kept, total = bytearray(), 0
        while chunk := await stdout.read(65536):
            total += len(chunk)
            if total > max_output:
                raise _TooMuchOutput
            if not (first_line and b"\n" in kept):
                kept += chunk
        return bytes(kept[: kept.index(b"\n") + 1]) if first_line and b"\n" in kept else bytes(kept)

    async def err() -> bytes:
        tail = bytearray()
        while chunk := await stderr.read(65536):
            tail += chunk
            del tail[:-STDERR_TAIL]
        return bytes(tail)

    errors = asyncio.ensure_future(err())
    try:
        output = await out()
        tail = await errors
        await process.wait()
        return output, tail
    finally:
        if not errors.done():  # stopped early (too much output, a timeout): the caller kills git, which ends it
            errors.cancel()


async def _kill_group(process: asyncio.subprocess.Process) -> None:
    """SIGKILL git and every helper it started (its process group), then reap git."""
    with contextlib.suppress(ProcessLookupError):  # git and its helpers are gone already
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()


def read_readme(clone: Path) -> tuple[str, str] | None:
    """(name, text) of the top-level README; symlinks and huge files are ignored."""
    try:
        entries = sorted(os.scandir(clone), key=lambda e: (not e.name.lower().endswith(".md"), e.name))
    except OSError:
        return None
    for entry in entries:
        if not _README.match(entry.name) or not entry.is_file(follow_symlinks=False):
            continue
        fd = os.open(entry.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                continue
            data = handle.read(MAX_README + 1)
        text = data[:MAX_README].decode("utf-8", "replace")
        return entry.name, text
    return None


class RepoKind:
    name = "repo"

    def matches(self, source: Source) -> bool:
        return source.kind == "repo"

    async def fetch(self, ctx: Context) -> Outcome:
        git = GitRunner(ctx)
        cited = clone_url(ctx.source)
        last: GitError | None = None
        for url in candidates(cited, ctx.options):
            try:
                git.check_url(url)
                try:
                    commit, branch = await git.ls_remote_head(url)
                except GitError:
                    # git follows no redirect: a moved repository fails here, and is looked up once
                    # with the checks of settle() (most remotes answer directly, at no extra request).
                    moved = await git.settle(url)
                    if moved == url:
                        raise
                    git.check_url(moved)
                    url = moved
                    commit, branch = await git.ls_remote_head(url)
                ctx.log.add(url, "ok")
                break
            except GitError as exc:
                ctx.log.add(url, "git", error=str(exc))
                last = exc
        else:
            assert last is not None
            raise last
        previous = ctx.previous.repo if ctx.previous else None
        pin = (ctx.pin or {}).get("commit")
        if ctx.options.frozen and pin and pin != commit:
            raise GitError(f"the remote HEAD moved to {commit[:12]}, but corpus.lock pins {pin[:12]}; run `corpus-build fetch` without --frozen to accept it", url=url)
        if previous and previous.commit == commit and not ctx.options.force and not ctx.options.frozen and previous.depth == ctx.source.mirror_depth:
            return Outcome(unchanged=True)
        clone = ctx.stage / CLONE
        args = ["clone", "--no-recurse-submodules", "--quiet"]
        if ctx.source.mirror_depth != "full":
            args += ["--depth", "1"]
        await git.run(*args, "--", url, str(clone), url=url, size_of=ctx.stage)
        commit = (await git.run("rev-parse", "HEAD", cwd=clone)).strip()
        branch = (await git.run("symbolic-ref", "--short", "-q", "HEAD", cwd=clone)).strip() or branch
        commit_date = (await git.run("log", "-1", "--format=%cI", cwd=clone)).strip()
        tags = await git.run("ls-remote", "--tags", "--refs", "--sort=-v:refname", "--", url, cwd=clone, url=url,
                             max_output=TAGS_MAX_BYTES, first_line=True, what="tags")
        latest_tag = tags.splitlines()[0].split("\t")[-1].removeprefix("refs/tags/") if tags.strip() else ""
        readme = await ctx.run_cpu(read_readme, clone)
        text_file = ""
        if readme:
            name, text = readme
            if not name.lower().endswith((".md", ".markdown")):
                text = f"```text\n{text}\n```\n"
            (ctx.stage / TEXT).write_text(text, encoding="utf-8")
            text_file = TEXT
        facts = RepoFacts(
            remote_url=url, branch=branch, commit=commit, commit_date=commit_date, latest_tag=latest_tag,
            depth=ctx.source.mirror_depth, swhid=f"swh:1:rev:{commit}",
        )
        version = (await git.run("--version")).strip().removeprefix("git version ")
        shutil.rmtree(git.home, ignore_errors=True)
        return Outcome(
            requested_url=url, fetched_url=url, text_file=text_file, repo=facts,
            document=Document(title=ctx.source.title, facts_from="git"), extractor=Extractor("git", {"git": version}),
        )
