"""River Market's play page (its "session" facet, `sim.web.games.SessionFacet`): one game a
person plays in the browser against bots (`portobello serve`, the page at `/river`): the
setup checked field by field, the person's choice among the legal actions in words, the
bots' moves, undo and hints, the record saved when it ends, and the page.

River Market is played by choosing: every decision (which card, how far, which plank,
which Good) is one of the legal actions the engine lists, so the page shows them as
buttons and the person picks one; the engine's door (`RiverGame.play`) refuses anything
else in words. Bots are the compiled River agents (`sim.games.river.play.seat_agent`), their
search budget capped so that no request holds a game for long.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from analysis.view.page import seat_colours
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.core.errors import quote
from sim.games.portobello.budgets import budget_error
from sim.games.river.effects import RESOURCES
from sim.games.river.game import RiverGame
from sim.games.river.play import parse_agent
from sim.games.river.play import seat_agent
from sim.games.river.records import record_of
from sim.games.river.records import write_record
from sim.games.river.rules import PLAYERS
from sim.games.river.rules import PRESETS
from sim.games.river.rules import RiverRules
from sim.games.river.rules import preset
from sim.games.river.rules import river_rules
from sim.games.river.view import snapshot
from sim.games.river.words import card_line
from sim.web.page import render_page
from sim.web.setup import MAX_SEED
from sim.web.setup import SetupError
from sim.web.setup import check_fields
from sim.web.setup import int_field
from sim.web.setup import seat_specs
from sim.web.setup import switch_table

GAME = "river-market"
PAGE = "/river"  # the play page's path
MOVE = "act"  # the person's moves: one of the legal actions the state lists, `.../act`
MOVE_SHAPE = '{"action": N}'
TEMPLATE = "river_play.html.j2"
FIELDS = ("game", "preset", "switches", "players", "seat", "agents", "seed")
MAX_ITERATIONS = 5_000  # a River search bot or hint thinks at most this much a decision
HUMAN = "human"


class RiverPlayError(PortobelloError):
    """A request a River Market game cannot take (not the person's move, no such action)."""


@dataclass(frozen=True)
class RiverSetup:
    """A checked new River Market game."""

    rules: RiverRules
    human: int
    specs: list[str]
    seed: int


def served_river_spec(spec: str, field: str = "agents") -> str:
    """A River agent spec as the server plays it: checked, its search budget capped."""
    try:
        iterations = parse_agent(spec.strip()).iterations
    except ValueError as exc:
        raise SetupError(str(exc), field=field) from None
    problem = budget_error("iterations", iterations, {"iterations": MAX_ITERATIONS},
                           "this server's cap") if spec.strip().startswith("search") else None
    if problem is not None:
        raise SetupError(f"search: {problem}", field=field)
    return spec.strip()


def river_setup(data: Mapping[str, Any]) -> RiverSetup:
    """Check a new River Market game request: preset, switches, players, the person's seat,
    each other seat's agent, seed."""
    data = check_fields(data, FIELDS)
    players = int_field(data, "players", 3, *PLAYERS)
    human = int_field(data, "seat", 0, 0, players - 1)
    seed = int_field(data, "seed", 0, 0, MAX_SEED)
    name = data.get("preset", "standard") or "standard"
    if not isinstance(name, str) or name not in PRESETS:
        raise SetupError(f"unknown River Market preset {quote(name)} (presets: "
                         f"{', '.join(PRESETS)})", field="preset")
    switches = switch_table(data)
    try:
        rules = river_rules({**switches, "players": players}, base=preset(name))
    except PortobelloError as exc:
        raise SetupError(f"{exc.field}: {exc.reason}" if exc.field else exc.reason,
                         field="switches") from None
    specs = seat_specs(data.get("agents", "heuristic"), players)
    specs = [HUMAN if seat == human else served_river_spec(s) for seat, s in enumerate(specs)]
    return RiverSetup(rules=rules, human=human, specs=specs, seed=seed)


def new_session(game_id: str, data: Mapping[str, Any], out_dir: Path,
                files_dir: Path | None) -> RiverSession:
    """A new game from the request's fields (`river_setup`; it reads no file)."""
    setup = river_setup(data)
    return RiverSession(game_id=game_id, rules=setup.rules, seed=setup.seed,
                        human=setup.human, specs=setup.specs, out_dir=out_dir)


def play_page(bot_delay_ms: int, files: list[str] | None = None) -> str:
    """The page, with its presets and agents and the pause before each bot move."""
    from sim.games.river.play import AGENTS

    return render_page(TEMPLATE, {"presets": list(PRESETS),
                                  "agents": [*AGENTS, "search:iterations=N"],
                                  "bot_delay": bot_delay_ms})


@dataclass
class RiverSession:
    """A River Market game in play: the start, the actions so far, the person's seat and
    one compiled agent per other seat."""

    game_id: str
    rules: RiverRules
    seed: int
    human: int
    specs: list[str]
    out_dir: Path
    start: RiverGame = field(init=False)
    game: RiverGame = field(init=False)
    agents: dict[int, Any] = field(init=False)
    saved: Path | None = field(init=False, default=None)
    save_error: str | None = field(init=False, default=None)
    log: list[dict[str, Any]] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.start = RiverGame.new(self.rules, seed=self.seed)
        self.game = self.start.copy()
        self.agents = self._make_agents()

    def _make_agents(self) -> dict[int, Any]:
        return {seat: seat_agent(spec, self.seed, seat) for seat, spec in enumerate(self.specs)
                if seat != self.human}

    @property
    def human_to_move(self) -> bool:
        return not self.game.over and self.game.decider == self.human

    def _apply(self, action: int) -> str:
        g = self.game
        who = g.decider
        text = g.describe(action)
        g.play(action)
        self.log.append({"who": who, "text": text})
        if g.over:
            self._save()
        return text

    def act(self, data: Any) -> str:
        """The person's choice: `{"action": N}`, one of the legal actions `view` lists."""
        action = data.get("action") if isinstance(data, Mapping) else None
        if not isinstance(action, int) or isinstance(action, bool) or not 0 <= action < 2**31:
            raise RiverPlayError(f"must be one of the legal actions' numbers, got "
                                 f"{quote(action)}", field="action")
        if self.game.over:
            raise IllegalActionError("the game is over")
        if not self.human_to_move:
            raise IllegalActionError(f"it is seat {self.game.decider}'s move, not yours")
        return self._apply(action)

    def move(self, data: Any) -> str:
        """The person's move (`act`)."""
        return self.act(data)

    def bot_step(self) -> str | None:
        """One move of the bot to move, or None when the person (or nobody) is to move."""
        if self.game.over or self.human_to_move:
            return None
        return self._apply(self.agents[self.game.decider].choose(self.game))

    def undo(self) -> int:
        """Back to the person's previous decision (the bots' replies go with it, the bots
        started afresh); how many actions were taken back (0: nothing to undo)."""
        actions = list(self.game.history)
        probe = self.start.copy()
        cut = -1
        for i, a in enumerate(actions):
            if probe.decider == self.human:
                cut = i
            probe.apply(a)
        if cut < 0:
            return 0
        self.game = self.start.copy()
        for a in actions[:cut]:
            self.game.apply(a)
        self.log = self.log[:cut]
        self.agents = self._make_agents()
        self.saved = self.save_error = None
        return len(actions) - cut

    def hint(self, spec: str) -> dict[str, Any]:
        """What River agent `spec` would choose in the person's place."""
        if not self.human_to_move:
            raise RiverPlayError("a hint is for your own move", field="agent")
        served = served_river_spec(spec, field="agent")
        choice = seat_agent(served, self.seed, self.human).choose(self.game.copy())
        return {"agent": served, "action": int(choice), "choice": self.game.describe(choice)}

    def record(self) -> dict[str, Any]:
        return record_of(self.start, list(self.game.history))

    def viewer(self) -> Callable[[], str]:
        """The game so far as the viewer's page: its start and actions taken now (under
        the game's lock), drawn when called."""
        from sim.games.river.view import render

        start, actions = self.start, list(self.game.history)
        title = f"River Market, game {self.game_id}"
        return lambda: render(start, actions, title)

    def _save(self) -> None:
        """Save the finished game's record; a folder that cannot take it leaves the game
        finished and says why the record is missing."""
        path = self.out_dir / f"river-{self.game_id}.json"
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            write_record(path, self.record())
        except OSError as exc:
            self.saved = None
            self.save_error = f"the record could not be saved: {from_os_error(exc).message}"
            return
        self.saved, self.save_error = path, None

    def view(self) -> dict[str, Any]:
        """What the page draws: the position as the viewer draws it, the legal actions in
        words when the person is to move, the last moves, and where the record went."""
        g = self.game
        legal = ([{"action": a, "text": g.describe(a)} for a in g.legal_actions()]
                 if self.human_to_move else [])
        return {"game": GAME, "state": snapshot(g), "legal": legal, "to_move": g.decider,
                "human": self.human, "over": g.over, "log": self.log[-40:],
                "actions": len(g.history),
                "record": str(self.saved) if self.saved else None,
                "save_error": self.save_error}

    def setup(self) -> dict[str, Any]:
        designs = self.start.tables.designs
        return {"game": GAME, "game_id": self.game_id, "players": self.start.players,
                "human": self.human, "agents": self.specs, "seed": self.seed,
                "rules": self.rules.to_dict(changed_only=True),
                "colours": seat_colours(self.start.players), "resources": list(RESOURCES),
                "cards": {d.name: card_line(d) for d in designs}}
