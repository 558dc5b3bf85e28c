"""The command line's one grammar: every command and sub-command has its own `--help` with
every default shown, a flag shared by several commands has one type and default
everywhere, and the older spellings still parse."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.cli import options as O
from sim.cli.command import COMMANDS
from sim.cli.command import build_parser
from sim.cli.command import main
from sim.core.errors import PortobelloError


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
              ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """(path, parser, its one-line help in the parent's list) for every sub-command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), sub, helps[name]
                yield from _commands(sub, (*path, name))


ALL = list(_commands(build_parser()))
IDS = [" ".join(path) for path, _, _ in ALL]
SHARED = ("--seed", "--players", "--jobs", "--games", "--preset", "--rules", "--board",
          "--agents", "--quiet", "--json", "--out")


def _options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    for action in parser._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            yield action


def test_every_command_is_listed() -> None:
    assert {path[0] for path, _, _ in ALL} == set(COMMANDS)
    assert {"board check", "board show", "rules list", "rules show", "bench agents",
            "bench simulate", "bench load", "bench disk", "bench mcts"} <= set(IDS)


@pytest.mark.parametrize("index", range(len(ALL)), ids=IDS)
def test_help_describes_that_command(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    path, parser, _ = ALL[index]
    assert parser.prog == "portobello " + " ".join(path)
    with pytest.raises(SystemExit) as info:
        main([*path, "--help"])
    assert info.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: portobello {' '.join(path)} ")
    # Its own description, shown: not the parent's, not a sibling's.
    assert parser.description and " ".join(parser.description.split()) in " ".join(text.split())
    family = [p.description for q, p, _ in ALL if q != path and len(q) >= len(path) - 1
              and q[:len(path) - 1] == path[:-1]]
    assert parser.description not in family


@pytest.mark.parametrize("index", range(len(ALL)), ids=IDS)
def test_every_flag_shows_its_default(index: int) -> None:
    _, parser, _ = ALL[index]
    formatter = O.HelpFormatter("portobello")
    for action in _options(parser):
        shown = formatter._get_help_string(action)
        assert "default" in shown or action.required, (parser.prog, action.option_strings)
        if "(default: " in shown and action.default not in (None, argparse.SUPPRESS):
            value = action.default
            text = "off" if value is False else (
                ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value))
            assert f"(default: {text})" in shown, (parser.prog, action.option_strings)


def test_shared_flags_mean_the_same_everywhere() -> None:
    """The same type and default in every command that takes the flag (a list of counts
    where a command runs several, a single one where it runs one)."""
    seen: dict[str, set[tuple[object, object, object]]] = {flag: set() for flag in SHARED}
    for _, parser, _ in ALL:
        for action in _options(parser):
            for flag in set(action.option_strings) & set(SHARED):
                default = tuple(action.default) if isinstance(action.default, list) else \
                    action.default
                seen[flag].add((action.type, type(action).__name__, default))
    assert {t for t, _, _ in seen["--seed"]} == {O.integer}
    assert {d for _, _, d in seen["--seed"]} == {0}
    assert {t for t, _, _ in seen["--players"]} == {O.player_count, O.player_counts}
    # a list of counts defaults to 2, or (study) to the spec's own counts
    assert {d for t, _, d in seen["--players"] if t is O.player_counts} == {(2,), None}
    assert {d for t, _, d in seen["--players"] if t is O.player_count} == {None}
    assert {t for t, _, _ in seen["--jobs"]} == {O.positive_int, O.positive_int_list}
    assert {d for t, _, d in seen["--jobs"] if t is O.positive_int} == {O.default_jobs()}
    assert {t for t, _, _ in seen["--games"]} == {O.game_count}
    assert {d for _, _, d in seen["--board"]} == {"standard"}
    for flag in ("--preset", "--rules", "--agents"):
        assert {t for t, _, _ in seen[flag]} == {None}
    for flag in ("--quiet", "--json"):
        assert {k for _, k, _ in seen[flag]} == {"_StoreTrueAction"}


def test_older_spellings_still_parse() -> None:
    parser = build_parser()
    args = parser.parse_args(["bench", "simulate", "--jobs-list", "1,2,2"])
    assert args.jobs == [1, 2, 2]
    args = parser.parse_args(["rules", "--preset", "spanish", "show"])
    assert args.preset == "spanish" and args.action == "show"
    args = parser.parse_args(["rules", "show", "--preset", "spanish"])
    assert args.preset == "spanish"
    args = parser.parse_args(["tournament", "--agents", "a,b", "--players", "2,3"])
    assert args.players == [2, 3]
    args = parser.parse_args(["bench", "--games", "7"])
    assert args.games == 7 and args.func.__name__ == "cmd_agents"


def test_rules_presets_apply_before_or_after_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--preset", "spanish", "show"]) == 0
    before = capsys.readouterr().out
    assert main(["rules", "show", "--preset", "spanish"]) == 0
    assert capsys.readouterr().out == before
    assert main(["rules", "show"]) == 0
    assert capsys.readouterr().out != before


def test_rules_show_prints_the_new_switches(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    """start_scores and bobby_placer = "next" from a rules file are printed by `rules show`,
    and the printed file loads back to the same rules; without them no start_scores line."""
    from sim.games.portobello.rules import load_rules

    path = tmp_path / "r.toml"
    path.write_text('start_scores = [10, 13]\nbobby_placer = "next"\n')
    assert main(["rules", "--rules", str(path), "show"]) == 0
    out = capsys.readouterr().out
    assert "start_scores = [10, 13]" in out and 'bobby_placer = "next"' in out
    shown = tmp_path / "shown.toml"
    shown.write_text(out)
    assert load_rules(shown) == load_rules(path)
    assert main(["rules", "show"]) == 0
    assert "start_scores" not in capsys.readouterr().out


@pytest.mark.parametrize("argv, words", [
    (["rules", "list"], "List the named rules presets"),
    (["rules", "show"], "Print the full rules configuration"),
    (["board", "check"], "Validate a board file"),
    (["bench", "disk"], "Bytes per game on disk"),
    (["bench"], "Speed and size benchmarks"),
])
def test_sub_command_help_names_what_it_does(argv: list[str], words: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    assert words in " ".join(capsys.readouterr().out.split())


def test_jobs_default_to_one_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.delenv("PORTOBELLO_JOBS", raising=False)
    cores = len(os.sched_getaffinity(0))
    assert O.default_jobs() == cores
    assert build_parser().parse_args(["study", "x.toml"]).jobs == cores
    assert build_parser().parse_args(["tune", "x.toml"]).jobs == cores
    monkeypatch.setenv("PORTOBELLO_JOBS", "3")
    assert build_parser().parse_args(["simulate"]).jobs == 3
    monkeypatch.setenv("PORTOBELLO_JOBS", "many")
    with pytest.raises(PortobelloError, match="PORTOBELLO_JOBS: must be a positive integer"):
        O.default_jobs()


def test_help_says_where_the_compiled_code_is_cached(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`portobello --help` names the cache folder the compiled engine really uses, and how
    to clear it."""
    import os
    import subprocess
    import sys

    with pytest.raises(SystemExit):
        main(["--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert "~/.cache/portobello/" in said and "rm -rf ~/.cache/portobello" in said
    env = {k: v for k, v in os.environ.items()
           if k not in ("XDG_CACHE_HOME", "NUMBA_CACHE_DIR")}
    env["HOME"] = str(tmp_path)
    where = subprocess.run([sys.executable, "-c", "import numba, sim.games.portobello.compiled; "
                            "print(numba.config.CACHE_DIR)"], env=env, capture_output=True,
                           text=True, check=True).stdout.strip()
    assert where.startswith(str(tmp_path / ".cache" / "portobello") + os.sep), where
