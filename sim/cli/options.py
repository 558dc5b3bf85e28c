"""The one grammar of the `portobello` command line: its parser class, its help format, the
validators of numbers and lists, and the builders of the flags several commands share.

A flag that appears in several commands is added here, once, so it has the same name,
meaning, type and default everywhere it appears:

- `--seed` an integer (default 0) every random choice derives from;
- `--players` one player count (an integer of at least 2; default 2 or what the preset or
  rules file says) or, where a command plays several counts, a list like `2,3,4`;
- `--jobs` worker processes (a positive integer, default one per core or `$PORTOBELLO_JOBS`;
  a list where a command runs once per entry); `--games` a positive integer;
- `--game` the game (the registry's names; the default game when not given), `--preset`,
  `--rules FILE` its rules, `--board`, `--cards`, ... its material (one flag per game's
  material, `add_materials`); `--agents` agent specs;
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

from sim.cli import games as G
from sim.core.errors import PortobelloError
from sim.core.errors import RulesError
from sim.core.errors import quote
from sim.core.files import MAX_DIGITS
from sim.core.files import read_document
from sim.core.kind import GameKind
from sim.core.outputs import check_output
from sim.core.specs import split_specs
from sim.games.registry import default_game
from sim.games.registry import game_names
from sim.games.registry import kinds
from sim.run.config import MAX_GAMES
from sim.run.game_runs import ENGINES
from sim.run.scheduler import MAX_SCHEDULER_TIMEOUT
from sim.run.scheduler import SCHEDULER_TIMEOUT
from sim.run.scheduler import timeout_problem

DEFAULT_SEED = 0
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
def agents_listed() -> str:
    """The agents a spec can name, game by game (the default game's first, unnamed), as its
    commands facet lists them (`sim.cli.games.agent_names`)."""
    parts = []
    for game in kinds().values():
        names = G.agent_names(game)
        if names:
            listed = ", ".join(sorted(names) if G.is_default(game) else names)
            parts.append(listed if G.is_default(game) else f"--game {game.name}: {listed}")
    return "agents: " + "; ".join(parts) if parts else "agents: see `portobello agents list`"


def agents_help() -> str:
    """The agents a spec can name, for --agents help texts."""
    return (f"one agent spec for all seats, or one per seat separated by commas "
            f"({agents_listed()})")


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


def presets_listed() -> str:
    """Every game's presets (the default game's first, unnamed)."""
    return "; ".join(", ".join(g.presets) if G.is_default(g) else
                     f"--game {g.name}: {', '.join(g.presets)}" for g in kinds().values())


def add_rules(p: argparse.ArgumentParser, default: Any = None) -> None:
    """`--preset NAME` and `--rules FILE`, applied in that order (then a command's own rules
    flags). `default=argparse.SUPPRESS` lets a parent and a sub-command both take them."""
    p.add_argument("--preset", default=default, metavar="NAME",
                   help=f"named rules preset of the game: {presets_listed()} (see `portobello "
                   "rules list`; default: none, the rulebook's rules)")
    p.add_argument("--rules", default=default, metavar="FILE",
                   help="rules TOML file of the game's switches (docs/rules.md), applied over "
                   "the preset (default: none)")


def add_material(p: argparse.ArgumentParser, game: GameKind) -> None:
    """The flag naming `game`'s material (`--board`, `--cards`: `GameKind.material`), its
    default the game's own, told apart from the same text given (`Default`)."""
    words = G.material_words(game)
    p.add_argument(G.material_flag(game), dest=game.material,
                   default=Default(game.default_material), metavar=game.material.upper(),
                   help=f"{game.title}'s {words}: a shipped {words} name or a TOML file")


def add_materials(p: argparse.ArgumentParser) -> None:
    """Every game's material flag (`add_material`), each once: a command that plays any
    game takes the material of the game it plays and refuses another's
    (`sim.cli.games.refusals`)."""
    seen: set[str] = set()
    for game in kinds().values():
        if game.material not in seen:
            seen.add(game.material)
            add_material(p, game)


add_board = add_materials  # (the name of the one material flag there was)


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
INPUT_FLAGS = ("file", "target", "runs", "rules")  # the args that name files read (and materials)


def inputs_of(args: argparse.Namespace) -> list[str]:
    """The files and folders a command reads, as given on its command line (a material by
    where its game reads it from: a shipped name is no file of the user's)."""
    found: list[str] = []
    materials = {g.material: g for g in reversed(kinds().values())}
    for name in (*INPUT_FLAGS, *materials):
        value = getattr(args, name, None)
        values = value if isinstance(value, list | tuple) else [value]
        for v in values:
            if isinstance(v, str | Path) and str(v):
                where = G.member(materials[name], "material_path") if name in materials \
                    else None
                found.append(str(where(str(v)) if where is not None else v))
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


def game_from_args(args: argparse.Namespace, run: bool = False) -> GameKind:
    """The game `--game` names, once the command line gives no flag the game does not take
    (another game's material; with `run`, the run flags `sim.cli.games.refusals` lists),
    each refused in one line naming the flag, whatever its value."""
    game = G.game_of(args)
    refuse_given(args, G.refusals(game, run=run))
    return game


def preset_rules(game: GameKind, name: str) -> Any:
    """The game's rules of preset `name`; an unknown name is refused naming the presets (and
    the game, unless it is the default one)."""
    if name not in game.presets:
        which = "" if G.is_default(game) else f"{game.title} "
        raise RulesError(f"unknown {which}preset {quote(name)} (presets: "
                         f"{', '.join(game.presets)})", field="preset")
    return game.rules_from_dict(dict(game.presets[name]))


def rules_from_args(args: argparse.Namespace, game: GameKind | None = None,
                    **overrides: Any) -> Any:
    """The game's rules (`GameKind.rules_from_dict`) from --preset, then --rules FILE, then
    explicit flags (None: not given); a player count the game refuses (`check_players`) is
    refused first, naming --players."""
    game = game or G.game_of(args)
    name = getattr(args, "preset", None)
    rules = preset_rules(game, name) if name else game.default_rules()
    path = getattr(args, "rules", None)
    if path:
        data = read_document(Path(path), "toml", RulesError, "rules")
        rules = game.rules_from_dict(data, base=rules, source=str(Path(path)))
    check = G.member(game, "check_players")
    if check is not None and overrides.get("players") is not None:
        check(overrides["players"])
    changes = {k: v for k, v in overrides.items() if v is not None}
    return game.rules_from_dict(changes, base=rules, source="command line") if changes \
        else rules


def material_ref(args: argparse.Namespace, game: GameKind | None = None) -> str:
    """The reference of the game's material its flag names (`add_material`; the game's
    default when not given)."""
    game = game or G.game_of(args)
    value = getattr(args, game.material, None)
    return str(value) if value is not None else game.default_material


def material_from_args(args: argparse.Namespace, game: GameKind | None = None
                       ) -> tuple[Any, str]:
    """The game's material its flag names, loaded, and its reference (`material_ref`)."""
    game = game or G.game_of(args)
    ref = material_ref(args, game)
    return game.load_material(ref, None), ref


def add_game(p: argparse.ArgumentParser) -> None:
    """`--game NAME`: the registry's games, the default game when not given; its help says
    what each game brings (`HELP` of its commands facet)."""
    said = "; ".join(f"{g.name}: {G.member(g, 'HELP')}" for g in kinds().values()
                     if G.member(g, "HELP"))
    p.add_argument("--game", choices=game_names(), default=default_game(),
                   help="the game, its rules, material and agents" + (f" ({said})" if said
                                                                       else ""))


def agent_specs(text: str, players: int) -> list[str]:
    """One spec per seat from --agents: one spec for all seats, or exactly one per seat."""
    specs = split_specs(text)
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise PortobelloError(f"{len(specs)} agent specs for {players} players: give one for "
                              "every seat or one for all", field="--agents")
    return specs

