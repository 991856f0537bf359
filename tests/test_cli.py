"""The command line: one exit-code table for every command, global options anywhere, help with
examples, greppable output, no traceback on a closed pipe or Ctrl-C, and README examples that run."""

from __future__ import annotations

import http.server
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from corpus_build import cli, registry
from corpus_build.cli import main, make_parser
from corpus_build.core.commands import EXIT_INTERRUPTED, EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE
from corpus_build.registry.add import resolve_section
from tests.corpus_fixture import PROJECT_ROOT, SOURCES_GPU

BIN = Path(sys.executable).parent
README = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")


def run(project: Path, *args: str) -> int:
    return main(["--project", str(project), *args])


def break_registry(project: Path) -> None:
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(SOURCES_GPU.replace("kind: docs", "kind: doc"), encoding="utf-8")


def commands() -> dict[str, object]:
    subparsers = next(a for a in make_parser()._actions if a.dest == "command")
    return dict(subparsers.choices)


# --- exit codes ------------------------------------------------------------------------------


class Site:
    """A local web server for fetch: one page that exists, one that does not."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/page":
                    body = b"<html><head><title>Page</title></head><body><article><h1>Page</h1><p>" + b"Some text worth keeping. " * 40 + b"</p></article></body></html>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                else:
                    body = b"gone"
                    self.send_response(404)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def fetch_project(root: Path, url: str) -> Path:
    corpus = root / "corpus"
    (corpus / "01-web").mkdir(parents=True)
    (corpus / "corpus.yaml").write_text(
        "title: Fetch test\nlanguages: [en]\nfetch: {extract_workers: 0, retries: 0, recheck_after: 0, read_timeout: 60, total_timeout: 120}\n", encoding="utf-8"
    )
    (corpus / "01-web" / "section.yaml").write_text("title: Web\n", encoding="utf-8")
    (corpus / "01-web" / "sources.yaml").write_text(f"- id: page\n  title: Page\n  url: {url}\n  kind: article\n  lang: en\n  note: A page.\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("command", ["check", "render", "status", "fetch", "watch", "build", "add"])
def test_a_registry_error_exits_1_for_every_command(project, capsys, command):
    break_registry(project)
    extra = {"add": ["https://example.org/new", "--section", "01"], "watch": ["--since", "2026-10-21", "--until", "2026-10-22"]}.get(command, [])
    assert run(project, command, *extra) == EXIT_PROBLEMS
    err = capsys.readouterr().err
    assert "corpus/01-gpu/sources.yaml:5" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "--no-such-option"],
        ["add"],  # no URL
        ["add", "ftp://example.org/x", "--section", "01"],
        ["add", "https://example.org/x", "--section", "01", "--chapters", "one"],
        ["render", "extra-argument"],
        ["build", "--engine", "hugo"],
        ["fetch", "--jobs", "0"],
        ["fetch", "--kind", "nope"],
        ["status", "--no-such-option"],
        ["watch", "--since", "2026-10-21T07:00"],  # no offset
        ["no-such-command"],
        ["--quiet", "check", "--verbose"],  # the two cannot go together
    ],
)
def test_usage_mistakes_exit_2_for_every_command(project, capsys, argv):
    assert run(project, *argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.strip() and "Traceback" not in err


def test_success_exits_0_for_the_offline_commands(project, capsys):
    assert run(project, "check") == EXIT_OK
    assert run(project, "render") == EXIT_OK
    assert run(project, "status") == EXIT_OK
    assert run(project, "add", "https://example.org/new-page", "--section", "01", "--note", "A new page.") == EXIT_OK
    assert run(project, "build") == EXIT_OK
    capsys.readouterr()


def test_fetch_exits_0_when_every_source_is_mirrored_and_1_when_one_fails(tmp_path, capsys):
    site = Site()
    try:
        good = fetch_project(tmp_path / "good", site.url + "/page")
        assert run(good, "fetch") == EXIT_OK, capsys.readouterr()
        bad = fetch_project(tmp_path / "bad", site.url + "/missing")
        assert run(bad, "fetch") == EXIT_PROBLEMS
    finally:
        site.close()
    assert "Traceback" not in capsys.readouterr().err


def test_watch_exits_0_with_nothing_to_watch(tmp_path, capsys, monkeypatch):
    from tests.watch.fakegithub import FakeGitHub

    github = FakeGitHub().start()
    try:
        monkeypatch.setenv("GITHUB_API_URL", github.url)
        project = fetch_project(tmp_path, "https://example.org/page")
        assert run(project, "watch", "--since", "2026-10-21T07:00+08:00", "--until", "2026-10-22T07:00+08:00") == EXIT_OK, capsys.readouterr()
    finally:
        github.stop()


class Silent:
    """Accepts connections and never answers: a request to it waits until interrupted."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                self.held.append(self.sock.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        for conn in self.held:
            conn.close()
        self.sock.close()


@pytest.mark.parametrize("command", ["fetch", "watch"])
def test_ctrl_c_exits_130_without_a_traceback(tmp_path, command):
    silent = Silent()
    try:
        project = fetch_project(tmp_path, silent.url + "/page")
        (project / "corpus" / "corpus.yaml").write_text(
            (project / "corpus" / "corpus.yaml").read_text(encoding="utf-8") + "watch: {repos: [{repo: tile-ai/tilelang}]}\n", encoding="utf-8"
        )
        env = {**os.environ, "GITHUB_API_URL": silent.url, "PYTHONUNBUFFERED": "1"}
        argv = [str(BIN / "corpus-build"), "--project", str(project), command]
        if command == "watch":
            argv += ["--since", "2026-10-21T07:00+08:00", "--until", "2026-10-22T07:00+08:00"]
        # A suite started in the background (`cmd &`) hands its children SIGINT ignored, and Python then
        # installs no KeyboardInterrupt handler: give the child the default, as a terminal would.
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 30
        while not silent.held and time.monotonic() < deadline:  # interrupt while it waits for the server
            time.sleep(0.1)
        assert silent.held, "the command never reached the server"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        silent.close()
    assert process.returncode == EXIT_INTERRUPTED, err.decode()
    assert "Traceback" not in err.decode() and "interrupted" in err.decode()


# --- global options, output, help ----------------------------------------------------------


def test_global_options_work_before_and_after_the_command(project, tmp_path, capsys):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    for argv in (["--project", str(project), "check"], ["check", "--project", str(project)], ["--quiet", "check", "--project", str(project)], ["check", "-q", "--project", str(project)]):
        assert main(argv) == EXIT_OK, argv
    capsys.readouterr()
    assert main(["status", "--project", str(project), "--json"]) == EXIT_OK
    assert len(capsys.readouterr().out.splitlines()) == 5


def test_build_render_and_add_print_the_registry_warnings_unless_quiet(project, capsys):
    extra = "- id: a\n  title: A\n  url: https://www.hiascend.com/document\n  verified: false\n  verify_note: guess\n  note: x\n"
    extra += "- id: b\n  title: B\n  url: https://www.hiascend.com/document\n  verified: false\n  verify_note: guess\n  note: y\n"
    path = project / "corpus" / "02-ascend" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8") + extra, encoding="utf-8")
    assert run(project, "render") == EXIT_OK
    assert "warning: duplicate URL" in capsys.readouterr().err
    assert run(project, "render", "--quiet") == EXIT_OK
    assert "warning" not in capsys.readouterr().err
    # add: the warnings the new entry brings (a chapter whose reading path lacks it)
    assert run(project, "add", "https://example.org/ch", "--section", "01", "--note", "x", "--chapters", "2") == EXIT_OK
    err = capsys.readouterr().err
    assert "'example-ch' cites chapter 2 but is not in its reading path" in err
    assert "the registry has 1 other warning: `corpus-build check` lists it" in err


def test_check_json_gives_file_line_column_severity_code_message(project, capsys):
    break_registry(project)
    assert run(project, "check", "--json") == EXIT_PROBLEMS
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    [error] = [r for r in records if r["severity"] == "error"]
    assert error == {"file": "corpus/01-gpu/sources.yaml", "line": 5, "column": 0, "severity": "error", "code": "unknown-kind", "message": error["message"]}
    assert "kind 'doc'" in error["message"]


def test_a_rolled_back_add_says_nothing_was_added_and_where(project, capsys):
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    before = path.read_text(encoding="utf-8")
    lines = before.count("\n")
    assert run(project, "add", "https://example.org/page", "--section", "01-gpu", "--chapters", "42") == EXIT_PROBLEMS
    err = capsys.readouterr().err
    assert "nothing was added" in err
    assert f"the new entry (after line {lines} of corpus/01-gpu/sources.yaml): error: 'example-page' cites chapter 42" in err
    assert f"sources.yaml:{lines + 1}" not in err  # no line the file does not have
    assert path.read_text(encoding="utf-8") == before


def test_every_command_has_a_description_and_an_example():
    for name, parser in commands().items():
        text = parser.format_help()
        assert parser.description and len(parser.description) > 40, name
        assert "example:\n  corpus-build " + name in text, name
        assert "--project DIR" in text and "--quiet" in text and "--verbose" in text, name


def test_the_exit_code_table_is_documented():
    block = README[README.index("### Exit codes") :]
    for code in (EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, EXIT_INTERRUPTED):
        assert re.search(rf"^\| {code} \|", block, re.M), code
    assert "EXIT_INTERRUPTED" in (cli.__doc__ or "") and "add_command" in (cli.__doc__ or "")


def _piped(project: Path, *args: str, pipe: str) -> subprocess.CompletedProcess[str]:
    command = f"{shlex.quote(str(BIN / 'corpus-build'))} --project {shlex.quote(str(project))} {' '.join(args)} | {pipe}"
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=120)


def test_a_closed_pipe_ends_quietly(project):
    result = _piped(project, "status", "--json", pipe="head -1")
    assert len(result.stdout.splitlines()) == 1
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr
    # A reader that is gone before anything is written (`true` reads nothing): the write fails.
    for command in ("status --json", "status", "check"):
        result = _piped(project, command, pipe="true")
        assert "Traceback" not in result.stderr and "Exception ignored" not in result.stderr, (command, result.stderr)
        assert result.returncode == EXIT_PROBLEMS, (command, result.returncode)


def test_tables_are_plain_unwrapped_lines_when_piped(project):
    long_id = "a-source-with-a-really-long-identifier-that-a-terminal-table-would-fold-across-two-lines"
    path = project / "corpus" / "01-gpu" / "sources.yaml"
    path.write_text(path.read_text(encoding="utf-8") + f"- id: {long_id}\n  title: Long\n  url: https://example.org/long\n  note: x\n", encoding="utf-8")
    result = _piped(project, "status", pipe="cat")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == ["id", "kind", "state", "age", "last error"]
    [row] = [line for line in lines if long_id in line]
    assert row.split("\t")[:3] == [long_id, "article", "never fetched"]
    assert len(lines) == 1 + 6 + 1  # header, one line per source, the counts


# --- the README's own examples -------------------------------------------------------------


def readme_commands() -> list[str]:
    found = []
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        text = block.replace("\\\n", " ")
        for line in text.splitlines():
            for part in line.split("&&"):
                part = part.split("#", 1)[0].strip()
                if part.startswith(".venv/bin/corpus-build "):
                    found.append(part.removeprefix(".venv/bin/"))
    return found


def test_the_readme_examples_run_on_the_shipped_corpus(tmp_path, capsys):
    from tests.site_helpers import copy_default_project

    examples = readme_commands()
    assert len(examples) >= 6 and any(e.startswith("corpus-build add ") for e in examples)
    project = copy_default_project(tmp_path / "project")
    parser = make_parser()
    for example in examples:
        argv = shlex.split(example)[1:] + ["--project", str(project)]
        parser.parse_args(argv)  # every example is a valid command line
        if argv[0] in ("fetch", "watch", "links", "publish"):
            # These reach GitHub and the cited sites; their runs are tested against local servers.
            print(f"parsed, not run (needs the network): {example}")
            continue
        if argv[0] in ("attach", "import"):
            # These read a file the user saved or exported (tests/fetch/test_attach.py, tests/test_import*.py run them);
            # what the example names in the corpus must exist.
            args = parser.parse_args(argv)
            corpus = registry.load(project / "corpus")
            if argv[0] == "attach":
                assert args.id in {s.id for s in corpus.sources}, example
            else:
                assert resolve_section(corpus, args.section), example
            print(f"parsed, not run (needs your own file): {example}")
            continue
        assert main(argv) == EXIT_OK, (example, capsys.readouterr().err)


def test_every_option_a_message_names_exists():
    """Hints say "pass --project DIR", never an option the command line does not have."""
    options = {o for parser in [make_parser(), *commands().values()] for a in parser._actions for o in a.option_strings}  # type: ignore[attr-defined]
    named = set()
    for name in ("registry/reader.py", "registry/add.py", "site/engines.py", "cli.py", "core/commands.py", "registry/cli.py", "registry/yamlfile.py", "site/plugin.py", "site/serve.py", "watch/cli.py", "fetch/cli.py"):
        named |= set(re.findall(r"(?<![-\w])--[a-z][a-z-]+", (PROJECT_ROOT / "src" / "corpus_build" / name).read_text(encoding="utf-8")))
    assert len(named) >= 10
    assert named - options - {"--clean"} == set()  # `zensical build --clean`, in the command site.py runs


def test_the_readme_commands_table_lists_every_command_once_with_its_options():
    table = README[README.index("## Commands") : README.index("### Exit codes")]
    rows = [line for line in table.splitlines() if line.startswith("| `corpus-build ")]
    globals_ = {"--project", "--quiet", "--verbose", "--help"}
    for name, parser in commands().items():
        [row] = [r for r in rows if f"`corpus-build {name} " in r or f"`corpus-build {name}`" in r]  # once
        if f"corpus-build {name} …" in row:  # described by `corpus-build NAME --help`
            continue
        options = {o for a in parser._actions for o in a.option_strings if o.startswith("--")} - globals_  # type: ignore[attr-defined]
        assert all(o in row for o in options), (name, sorted(o for o in options if o not in row))
