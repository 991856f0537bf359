"""Tab completion for bash and zsh (`corpus-build completion bash|zsh`, registered in cli.py).

The script is written from the parser itself, so a new command or option completes without
editing anything here. Options with choices (`--engine`, `--lang`…) complete their values;
`--section` completes the section folders of the project on the line (or of the current
folder); options that take a file or folder complete paths. zsh runs the bash script through
its `bashcompinit`.

    eval "$(corpus-build completion bash)"     # in ~/.bashrc
    eval "$(corpus-build completion zsh)"      # in ~/.zshrc
"""

from __future__ import annotations

import argparse
import shlex

_PATH_METAVARS = {"DIR", "FILE", "PATH"}

_TEMPLATE = r"""# corpus-build {version}: tab completion (corpus-build completion bash)
_corpus_build() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
  local cmd="" project="." i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${{COMP_WORDS[i]}}" in
      --project) project="${{COMP_WORDS[i+1]}}"; ((i++)) ;;
      -*) ;;
      *) [ -z "$cmd" ] && cmd="${{COMP_WORDS[i]}}" ;;
    esac
  done
  case "$prev" in
    --section)
      COMPREPLY=($(compgen -W "$(cd "$project/corpus" 2>/dev/null && for d in [0-9]*/; do printf '%s ' "${{d%/}}"; done)" -- "$cur"))
      return ;;
{values}
{paths}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  local opts words=""
  case "$cmd" in
    "") words={commands} ;;
{options}
  esac
  # An option when the word starts with a dash; otherwise a command's word (or, with none, a path).
  if [[ "$cur" == -* ]]; then words="$opts {globals}"; fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}}
complete -o default -F _corpus_build corpus-build
"""


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def bash_script(parser: argparse.ArgumentParser, version: str) -> str:
    commands = _subparsers(parser)
    globals_ = sorted({o for a in parser._actions for o in a.option_strings if o.startswith("--")})
    values: dict[str, set[str]] = {}
    paths: set[str] = set()
    options = []
    for name, command in sorted(commands.items()):
        own, positional = [], []
        for action in command._actions:
            longs = [o for o in action.option_strings if o.startswith("--")]
            if not action.option_strings and action.choices:  # a positional with choices: `completion bash`
                positional += [str(c) for c in action.choices]
            if not longs or longs[0] in globals_:
                continue
            own.append(longs[0])
            if action.choices:
                values.setdefault(longs[0], set()).update(str(c) for c in action.choices)
            elif str(action.metavar or "").upper() in _PATH_METAVARS:
                paths.add(longs[0])
        options.append(f"    {shlex.quote(name)}) opts={shlex.quote(' '.join(sorted(own)))} words={shlex.quote(' '.join(positional))} ;;")
    value_lines = [
        f"    {option}) COMPREPLY=($(compgen -W {shlex.quote(' '.join(sorted(choices)))} -- \"$cur\")); return ;;"
        for option, choices in sorted(values.items())
    ]
    return _TEMPLATE.format(
        version=version,
        values="\n".join(value_lines),
        paths="    " + "|".join(sorted(paths | {"--project"})),
        commands=shlex.quote(" ".join(sorted(commands))),
        options="\n".join(options),
        globals=" ".join(globals_),
    )

