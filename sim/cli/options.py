"""The one grammar of the `portobello` command line: its parser class, its help format, the
validators of numbers and lists, and the builders of the flags several commands share.

A flag that appears in several commands is added here, once, so it has the same name,
meaning, type and default everywhere it appears:

- `--seed` an integer (default 0) every random choice derives from;
- `--players` one player count (an integer of at least 2; default 2 or what the preset or
  rules file says) or, where a command plays several counts, a list like `2,3,4`;
- `--jobs` worker processes (a positive integer, default one per core or `$PORTOBELLO_JOBS`;
  a list where a command runs once per entry); `--games` a positive integer;
- `--preset`, `--rules FILE`, `--board` the rules and the board; `--agents` agent specs;
- `--quiet` (no progress output: the closing summary of a long command still prints, see
  `sim.cli.summary`), `--json` (one JSON object on stdout), `--out` (where the command
  writes: `DIR` for a folder, `FILE` for a file).

Validators raise `argparse.ArgumentTypeError` with messages of one form, `must be <what>,
got '<text>'`, which the parser prints as `portobello CMD: error: argument --FLAG: must be
..., got '...' (see --help)` with exit status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from typing import NoReturn

from sim.core.errors import PortobelloError
from sim.core.errors import RulesError
from sim.core.errors import quote
from sim.core.files import MAX_DIGITS
from sim.core.outputs import check_output
from sim.games.portobello.agents.registry import AGENTS
from sim.games.portobello.agents.registry import split_specs
from sim.games.portobello.board import resolve_board_path
from sim.games.portobello.rules import PRESETS
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules
from sim.games.portobello.rules import preset
from sim.games.portobello.rules import rules_from_dict
from sim.run.config import MAX_GAMES
from sim.run.engines import ENGINES
from sim.run.scheduler import MAX_SCHEDULER_TIMEOUT
from sim.run.scheduler import SCHEDULER_TIMEOUT
from sim.run.scheduler import timeout_problem

DEFAULT_SEED = 0
DEFAULT_BOARD = "standard"
DEFAULT_AGENTS = "random"
DEFAULT_SHARD_SIZE = 1000


# -- the parser -------------------------------------------------------------------------------
class HelpFormatter(argparse.HelpFormatter):
    """Help text with every option's default: `(default: X)` is appended to the help of an
    option that has a default and does not state it already (lists are shown as `1,2`,
    switches as `off`)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or action.default is argparse.SUPPRESS:
            return text
        if not action.option_strings and action.nargs not in ("?", "*"):
            return text  # a required positional has no default
        default = action.default
        if isinstance(action, argparse._StoreTrueAction):
            shown = "off"
        elif default is None or (isinstance(default, list | tuple) and not default):
            return text
        elif isinstance(default, list | tuple):
            shown = ",".join(map(str, default))
        else:
            shown = str(default)
        return f"{text} (default: {shown.replace('%', '%%')})"


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line that points to --help (exit status 2),
    and whose help shows the defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def add_command(subparsers: Any, name: str, help: str, func: Callable[..., int] | None = None,
                description: str | None = None) -> argparse.ArgumentParser:
    """A sub-command parser whose `--help` describes that command (the description defaults
    to the one-line help shown in the parent's list)."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        name, help=help, description=description or _sentence(help))
    if func is not None:
        p.set_defaults(func=func)
    return p


def add_subcommands(parser: argparse.ArgumentParser, dest: str, required: bool = True,
                    metavar: str | None = None) -> Any:
    """The sub-commands of a command (`board check`, `rules list`, `bench MODE`)."""
    return parser.add_subparsers(dest=dest, required=required, metavar=metavar,
                                 parser_class=Parser)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


# -- flags given or not ------------------------------------------------------------------------
class Default(str):
    """A flag's default text as the parser hands it over when the flag is not given: equal
    to that text, yet told apart from the same text given on the command line (`given`), so
    that a flag a game does not take is refused whatever its value. It pickles (to a
    worker) as plain text."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)


def given(args: argparse.Namespace, flag: str) -> bool:
    """Whether the command line gave `flag` (`--board`): its value is no default (None, a
    `Default`) and no switch left off."""
    value = getattr(args, flag.lstrip("-").replace("-", "_"), None)
    return value is not None and value is not False and not isinstance(value, Default)


def refuse_given(args: argparse.Namespace, reasons: dict[str, str]) -> None:
    """One line for the first flag of `reasons` (flag: why the game does not take it) that
    the command line gave, whatever its value."""
    for flag, reason in reasons.items():
        if given(args, flag):
            raise PortobelloError(reason, field=flag)


# -- validators -------------------------------------------------------------------------------
class Integer:
    """`type=` for an integer of at least `minimum` (any integer without one) and at most
    `maximum` (none without one); text longer than any such integer is refused unread."""

    def __init__(self, minimum: int | None = None, what: str | None = None,
                 maximum: int | None = None) -> None:
        self.minimum = minimum
        self.maximum = maximum
        self.what = what or ("an integer" if minimum is None else
                             "a positive integer" if minimum == 1 else
                             f"an integer of at least {minimum}")
        self.__name__ = self.what  # argparse names the type in some messages

    def __call__(self, text: str) -> int:
        shown = quote(text)
        digits = len(text.strip().lstrip("+-"))
        if digits > MAX_DIGITS:
            bound = f"at most {self.maximum:,}" if self.maximum is not None else self.what
            raise argparse.ArgumentTypeError(f"must be {bound}, got a number of "
                                             f"{digits:,} digits")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {self.what}, got {shown}") from None
        if self.minimum is not None and value < self.minimum:
            raise argparse.ArgumentTypeError(f"must be at least {self.minimum}, got {shown}")
        if self.maximum is not None and value > self.maximum:
            raise argparse.ArgumentTypeError(f"must be at most {self.maximum:,}, got {shown}")
        return value

    def __repr__(self) -> str:
        return f"Integer(minimum={self.minimum!r}, maximum={self.maximum!r})"


class IntegerList:
    """`type=` for a comma-separated list of integers of at least `minimum`, like `2,3,4`
    (`empty_ok`: an empty text is the empty list)."""

    def __init__(self, minimum: int | None = None, example: str = "1,2",
                 empty_ok: bool = False) -> None:
        self.minimum = minimum
        self.example = example
        self.empty_ok = empty_ok
        self.__name__ = "a list of integers"

    def __call__(self, text: str) -> list[int]:
        try:
            values = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a comma-separated list of integers "
                                             f"like {self.example}, got {text!r}") from None
        if not values and not self.empty_ok:
            raise argparse.ArgumentTypeError(f"must be a comma-separated list of integers "
                                             f"like {self.example}, got {text!r}")
        if self.minimum is not None and values and min(values) < self.minimum:
            raise argparse.ArgumentTypeError(f"every entry must be at least {self.minimum}, "
                                             f"got {text!r}")
        return values

    def __repr__(self) -> str:
        return f"IntegerList(minimum={self.minimum!r})"


def half_width(text: str) -> float:
    """`type=` for an interval half-width (`report --target`, `simulate
    --target-half-width`): a number between 0 and 0.5."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not 0 < value < 0.5:
        raise argparse.ArgumentTypeError(f"must be between 0 and 0.5 (e.g. 0.015), got "
                                         f"{text!r}")
    return value


def seconds(text: str) -> float:
    """`type=` for a time in seconds (`--scheduler-timeout`): a number above 0, at most
    a day."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if timeout_problem(value) is not None:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, at most "
                                         f"{MAX_SCHEDULER_TIMEOUT:,.0f}, got {quote(text)}")
    return value


integer = Integer()
positive_int = Integer(1)
# A number of games (or of blocks of games): the one cap every command shares.
game_count = Integer(1, maximum=MAX_GAMES)
player_count = Integer(2)
positive_int_list = IntegerList(1)
player_counts = IntegerList(2, example="2,3,4")


# -- shared flags -----------------------------------------------------------------------------
def agents_help() -> str:
    """The agents a spec can name, for --agents help texts."""
    return (f"one agent spec for all seats, or one per seat separated by commas "
            f"(agents: {', '.join(sorted(AGENTS))})")


def add_seed(p: argparse.ArgumentParser, help: str = "seed every random choice derives "
             "from") -> None:
    p.add_argument("--seed", type=integer, default=DEFAULT_SEED, help=help)


def add_players(p: argparse.ArgumentParser, several: bool = False) -> None:
    """`--players N` (one count; by default the rules' count: 2, or the preset's or rules
    file's), or with `several` a list of counts like `2,3,4` (default 2)."""
    if several:
        p.add_argument("--players", type=player_counts, default=[2], metavar="N[,N...]",
                       help="player counts, comma-separated, e.g. 2,3,4")
    else:
        p.add_argument("--players", type=player_count, default=None, metavar="N",
                       help="number of players (default: 2, or the preset's or rules file's)")


JOBS_VARIABLE = "PORTOBELLO_JOBS"  # the default --jobs, where set (the test suite sets 1)


def default_jobs() -> int:
    """One worker per core this process may use (results never depend on it), or
    `$PORTOBELLO_JOBS` where set."""
    text = os.environ.get(JOBS_VARIABLE)
    if text is None:
        return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    if not text.strip().isdigit() or int(text) < 1:
        raise PortobelloError(f"must be a positive integer, got {quote(text)}",
                              field=JOBS_VARIABLE)
    return int(text)


def add_jobs(p: argparse.ArgumentParser, help: str = "parallel worker processes") -> None:
    p.add_argument("--jobs", type=positive_int, default=default_jobs(), metavar="N",
                   help=f"{help}, one per core unless ${JOBS_VARIABLE} says otherwise; the "
                   "results do not depend on it")


def add_execution(p: argparse.ArgumentParser) -> None:
    """`--jobs`, `--backend` and `--scheduler`: where a command's games are played, the same
    flags with the same meaning on every command that plays many games
    (`sim.run.execution`); no result depends on them."""
    add_jobs(p, help="worker processes (local ones, or a local Dask cluster's with --backend "
             "dask)")
    add_backend(p)


def add_backend(p: argparse.ArgumentParser) -> None:
    """`--backend`, `--scheduler` and `--scheduler-timeout` (`add_execution` without
    `--jobs`)."""
    p.add_argument("--backend", choices=["loky", "dask"], default="loky",
                   help="loky: local processes; dask: a local Dask cluster, or the cluster "
                   "of --scheduler (default: loky)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="play on an existing Dask cluster, e.g. tcp://host:8786 (implies "
                   "--backend dask; its workers play, --jobs is not used; docs/cluster.md; "
                   "default: none)")
    p.add_argument("--scheduler-timeout", type=seconds, default=None, metavar="SECONDS",
                   help="with --scheduler: seconds the scheduler has to answer before the "
                   "command stops with one line (a wrong address, or a service that is not "
                   f"a Dask scheduler; at most {MAX_SCHEDULER_TIMEOUT:,.0f}; default: "
                   f"{SCHEDULER_TIMEOUT:g})")


def execution_from_args(args: argparse.Namespace) -> Any:
    """The `sim.run.execution.Execution` the flags of `add_execution` ask for."""
    from sim.run.execution import Execution

    return Execution(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                     scheduler_timeout=args.scheduler_timeout)


def add_games(p: argparse.ArgumentParser, default: int | None, help: str) -> None:
    p.add_argument("--games", type=game_count, default=default, metavar="N",
                   help=f"{help} (at most {MAX_GAMES:,})")


def add_rules(p: argparse.ArgumentParser, default: Any = None) -> None:
    """`--preset NAME` and `--rules FILE`, applied in that order (then a command's own rules
    flags). `default=argparse.SUPPRESS` lets a parent and a sub-command both take them."""
    p.add_argument("--preset", default=default, metavar="NAME",
                   help=f"named rules preset: {', '.join(PRESETS)} (see `portobello rules "
                   "list`; default: none, the rulebook's rules)")
    p.add_argument("--rules", default=default, metavar="FILE",
                   help="rules TOML file (docs/rules.md), applied over the preset (default: none)")


def add_board(p: argparse.ArgumentParser) -> None:
    p.add_argument("--board", default=Default(DEFAULT_BOARD), metavar="BOARD",
                   help="shipped board name or board TOML file")


def add_agents(p: argparse.ArgumentParser, default: str | None = DEFAULT_AGENTS,
               help: str | None = None, required: bool = False) -> None:
    p.add_argument("--agents", default=None if required else default, required=required,
                   metavar="SPECS", help=help or agents_help())


def add_engine(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engine", choices=ENGINES, default=Default("auto"),
                   help="auto: the compiled engine when every agent has a compiled version "
                   "(random, greedy, heuristic, restricted or not), else python: games played "
                   "decision by decision, which any agent can play; both play the same games")


def add_quiet(p: argparse.ArgumentParser, help: str = "no progress output") -> None:
    p.add_argument("--quiet", action="store_true", help=help)


def add_json(p: argparse.ArgumentParser, what: str = "the result") -> None:
    p.add_argument("--json", action="store_true",
                   help=f"print {what} as one JSON object instead of text")


def add_out(p: argparse.ArgumentParser, metavar: str, help: str, default: str | None = None,
            required: bool = False) -> None:
    p.add_argument("--out", metavar=metavar, default=default, required=required, help=help)


# -- shared helpers ---------------------------------------------------------------------------
INPUT_FLAGS = ("file", "target", "runs", "rules", "board")  # the args that name files read


def inputs_of(args: argparse.Namespace) -> list[str]:
    """The files and folders a command reads, as given on its command line."""
    found: list[str] = []
    for name in INPUT_FLAGS:
        value = getattr(args, name, None)
        values = value if isinstance(value, list | tuple) else [value]
        for v in values:
            if isinstance(v, str | Path) and str(v):
                # a shipped board's name is no file of the user's
                found.append(str(resolve_board_path(v)) if name == "board" else str(v))
    return found


def check_out(args: argparse.Namespace, out: str | Path, *, field: str = "--out",
              owned: Sequence[str | Path] = (), report: bool = False) -> Path:
    """`out` once it is known that writing it overwrites none of the command's inputs and
    nothing in a folder another command owns (`sim.core.outputs.check_output`): one
    line otherwise, before any work."""
    return check_output(out, inputs_of(args), field=field, owned=owned, report=report)


def out_and_report(args: argparse.Namespace, default: Path
                   ) -> tuple[Path, Path, Callable[[str], None]]:
    """A study's or tuning's folder (--out, else `default`) and report folder (--report,
    else OUT/report), each checked before anything is written (`check_out`: not owned by
    another command), and its line printer on stderr (silent with --quiet)."""
    out = Path(args.out) if args.out else default
    check_out(args, out, owned=[out])
    report_dir = Path(args.report) if args.report else out / "report"
    if not args.no_report:
        check_out(args, report_dir, field="--report", owned=[out], report=True)

    def log(msg: str) -> None:
        if not args.quiet:
            print(msg, file=sys.stderr)
    return out, report_dir, log


def rules_from_args(args: argparse.Namespace, **overrides: Any) -> Rules:
    """Rules from --preset, then --rules FILE, then explicit flags (None: not given)."""
    base = preset(args.preset) if getattr(args, "preset", None) else Rules()
    if getattr(args, "rules", None):
        base = load_rules(args.rules, base=base)
    changes = {k: v for k, v in overrides.items() if v is not None}
    return rules_from_dict(changes, base=base, source="command line") if changes else base


GAMES = ("portobello-market", "river-market")


def add_game(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--game", choices=GAMES, default=GAMES[0],
                   help=f"the game; river-market: docs/river-market.md, {what} "
                   "(default: portobello-market)")


def add_cards(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cards", default=None, metavar="CARDS",
                   help="with --game river-market: shipped card-set name or card-set TOML "
                   "file (default: river-market; docs/river-market.md)")


RIVER_BOARD = "River Market has no board: its river is its cards"


def river_rules_from_args(args: argparse.Namespace, players: int | None = None) -> Any:
    """River Market's rules from --preset NAME (standard, short), --rules FILE (a TOML table
    of its switches, over the preset) and the player count; --board is refused whatever
    its value (its river is its cards)."""
    from sim.core.files import read_document
    from sim.games.river.rules import PLAYERS
    from sim.games.river.rules import preset as river_preset
    from sim.games.river.rules import river_rules

    refuse_given(args, {"--board": RIVER_BOARD})
    data = read_document(args.rules, "toml", RulesError, "rules") if args.rules else {}
    name = getattr(args, "preset", None)
    base = None if name is None else river_preset(name)
    rules = river_rules(data, base=base, source=args.rules)
    if players is not None:
        if not PLAYERS[0] <= players <= PLAYERS[1]:
            raise PortobelloError(f"River Market is for {PLAYERS[0]} to {PLAYERS[1]} players, "
                                  f"got {players}", field="--players")
        rules = river_rules({"players": players}, base=rules)
    return rules


def agent_specs(text: str, players: int) -> list[str]:
    """One spec per seat from --agents: one spec for all seats, or exactly one per seat."""
    specs = split_specs(text)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise PortobelloError(f"{len(specs)} agent specs for {players} players: give one for "
                              "every seat or one for all", field="--agents")
    return specs

