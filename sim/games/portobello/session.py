"""Portobello Market's play page (its "session" facet, `sim.web.games.SessionFacet`): one
game a person plays in the browser against bots: the new game checked field by field (board,
rules, players, seat, agents, seed), the engine game, who sits where, the clicks turned into
engine actions, the bots' moves within the server's caps, undo and hints, and the page.

Every action goes through the engine's validating door (`Game.check`), so an illegal click
is refused with the engine's own reason. The game keeps its action log (a chance draw is
logged with the customer it gave), so undo replays the log minus its tail and the saved
record replays to the very same game.

Files: a board is a shipped one or, like a rules file, a TOML file in the folder the server
was started with (`portobello serve --files DIR`, `sim.web.setup.served_file`); an error
about a file never quotes what the file holds.
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
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.registry import WRAPPERS
from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import agent_params
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.board import BOARDS_DIR
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.budgets import CAPS as BUDGETS
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.records import record_from_game
from sim.games.portobello.records import replay
from sim.games.portobello.records import write_record
from sim.games.portobello.rules import PRESETS
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules
from sim.games.portobello.rules import preset
from sim.games.portobello.rules import rules_from_dict
from sim.games.portobello.view.board import board_json
from sim.games.portobello.view.states import snapshot
from sim.games.portobello.view.words import action_text
from sim.games.portobello.view.words import event_texts
from sim.web import limits
from sim.web.games import PlayError
from sim.web.limits import LimitError
from sim.web.page import render_page
from sim.web.setup import MAX_SEED
from sim.web.setup import SetupError
from sim.web.setup import check_fields
from sim.web.setup import field_error
from sim.web.setup import int_field
from sim.web.setup import seat_specs
from sim.web.setup import served_file
from sim.web.setup import str_field
from sim.web.setup import switch_table
from sim.web.setup import unquoted_error

__all__ = ["MOVE", "PAGE", "Click", "GameSetup", "PlayError", "Session", "game_setup",
           "new_session", "play_page", "served_agent", "served_spec"]
PAGE = "/"  # the play page's path (the server's front page too)
MOVE = "click"  # the person's moves: a click on the board, `.../click`
TEMPLATE = "play.html.j2"
FIELDS = ("board", "preset", "rules_file", "switches", "players", "seat", "agents", "seed")

HUMAN = "human"  # the agent name the person's seat carries in the saved record
HINT_OPTIONS = 5  # options a hint lists
# Each kind of legal action as the page's prompt says it, in the order a turn offers them
# (`Session.prompt`); {customer} is the customer to place.
PROMPTS = ((A.PLACE_BOBBY, "place the Bobby first: click a highlighted district"),
           (A.PLACE_CUSTOMER, "place the {customer} on a highlighted square"),
           (A.PLAY_TOKEN, "play a token (its button above the board)"),
           (A.SCORE_DISTRICT, "score a district (pick the token's value, then click a "
                              "highlighted district)"),
           (A.PLACE_STALL, "place a stall on a highlighted spot"),
           (A.DRAW_CUSTOMER, "draw a customer"),
           (A.MOVE_BOBBY, "move the Bobby to a highlighted district"),
           (A.END_TURN, "end the turn"))


# -- the server's caps on bots and hints ---------------------------------------------------
def served_spec(spec: str, field: str = "agents") -> str:
    """The spec as the server plays it: refused over a cap (`sim.web.limits`, read when
    asked), with a time cap added."""
    seconds_cap = limits.MAX_SECONDS
    try:  # every command's caps, tightened by the server's
        name, params = parse_spec(spec, {**BUDGETS, **limits.CAPS, "time": seconds_cap},
                                  "this server's cap")
    except AgentSpecError as exc:
        raise LimitError(exc.reason, field=field) from None
    if name in WRAPPERS:
        return f"{name}({served_spec(params['agent'], field)})"
    defaults = agent_params(name)
    if "time" not in defaults:
        return spec.strip()
    seconds = float(params.get("time", defaults["time"]) or 0)
    if seconds > 0:
        return spec.strip()
    return f"{spec.strip()}{',' if ':' in spec else ':'}time={seconds_cap:g}"


def served_agent(spec: str, seed: int, field: str = "agents") -> BaseAgent:
    """An agent for a bot seat or a hint, within the server's caps."""
    return make_agent(served_spec(spec, field), seed=seed)


# -- a new game, as the browser asks for it ---------------------------------------------------
@dataclass(frozen=True)
class GameSetup:
    """A checked new game: what `Session` is built from."""

    board: Board
    board_ref: str
    rules: Rules
    human: int
    specs: list[str]
    seed: int


def _rules(data: Mapping[str, Any], players: int, files_dir: Path | None) -> Rules:
    """The preset, then the rules file, then the switches, then the player count."""
    try:
        rules = preset(str_field(data, "preset", "standard") or "standard")
    except PortobelloError as exc:
        raise field_error(exc, "preset") from None
    name = str_field(data, "rules_file", None)
    if name is not None:
        path = served_file(name, files_dir, "rules_file")
        try:
            rules = load_rules(path, base=rules, quote_content=False)
        except PortobelloError as exc:
            raise unquoted_error(exc, "rules_file", name) from None
    switches = switch_table(data)
    try:
        rules = rules_from_dict({**switches, "players": players}, base=rules,
                                source="switches")
    except PortobelloError as exc:
        raise SetupError(exc.message, field="switches") from None
    return rules


def _boards() -> list[str]:
    return sorted(p.stem for p in BOARDS_DIR.glob("*.toml"))


def _board(name: str, files_dir: Path | None) -> tuple[Board, str]:
    """A shipped board by name, or a board file the server offers; with its reference."""
    if "/" not in name and "\\" not in name and (BOARDS_DIR / f"{name}.toml").is_file():
        try:
            return load_board(name, quote_content=False), name
        except PortobelloError as exc:
            raise field_error(exc, "board") from None
    if not name.endswith(".toml"):
        raise SetupError(f"no shipped board named {quote(name)} (shipped boards: "
                         f"{', '.join(_boards())}"
                         f"{'; or a board file of --files' if files_dir else ''})",
                         field="board")
    path = served_file(name, files_dir, "board")
    try:
        return load_board(path, quote_content=False), str(path)
    except PortobelloError as exc:
        raise unquoted_error(exc, "board", name) from None


def game_setup(data: Any, files_dir: Path | None = None) -> GameSetup:
    """Check a new-game request (a JSON object) and build what the game needs; files are
    read only from `files_dir`."""
    data = check_fields(data, FIELDS)
    players = int_field(data, "players", 2, 2, 8)
    human = int_field(data, "seat", 0, 0, players - 1)
    seed = int_field(data, "seed", 0, 0, MAX_SEED)
    board, board_ref = _board(str_field(data, "board", "standard") or "standard", files_dir)
    rules = _rules(data, players, files_dir)
    try:
        rules.check_board(board)
    except PortobelloError as exc:
        raise SetupError(exc.reason, field="board") from None
    specs = _agents(data.get("agents", "random"), players, human)
    return GameSetup(board=board, board_ref=board_ref, rules=rules, human=human,
                     specs=specs, seed=seed)


def _agents(value: Any, players: int, human: int) -> list[str]:
    """One agent spec per seat (the person's entry is ignored): one spec for every bot, or
    a list with one per seat."""
    specs = seat_specs(value, players)
    for seat, spec in enumerate(specs):
        if seat == human:
            continue
        try:
            served_spec(spec)
        except PortobelloError as exc:
            raise SetupError(f"seat {seat}: {exc.reason}", field="agents") from None
    specs[human] = HUMAN
    return specs


def new_session(game_id: str, data: Mapping[str, Any], out_dir: Path,
                files_dir: Path | None) -> Session:
    """A new game from the request's fields (`game_setup`)."""
    setup = game_setup(data, files_dir)
    return Session(game_id=game_id, board=setup.board, board_ref=setup.board_ref,
                   rules=setup.rules, seed=setup.seed, human=setup.human, specs=setup.specs,
                   out_dir=out_dir)


def play_page(bot_delay_ms: int, files: list[str] | None = None) -> str:
    """The page, with the choices its new-game form offers (the shipped boards and presets,
    and the TOML `files` the server offers as boards or rules) and the pause (milliseconds)
    before each bot move, so a person can follow what the bots do."""
    from sim.games.portobello.agents.registry import AGENTS

    return render_page(TEMPLATE, {"presets": list(PRESETS), "agents": sorted(AGENTS),
                                  "boards": _boards(), "files": list(files or []),
                                  "bot_delay": bot_delay_ms})


@dataclass
class Click:
    """What the person clicked: a board target (`spot`, `square`, `district`) by index, a
    `token` (value, neutral), or a button (`draw`, `end`). `value` is the token a district
    click scores with."""

    target: str
    index: int = 0
    value: int = 0
    neutral: bool = False


@dataclass
class Session:
    """A game in play: the engine game, the human seat and one agent per other seat."""

    game_id: str
    board: Board
    board_ref: str
    rules: Rules
    seed: int
    human: int
    specs: list[str]
    out_dir: Path
    game: Game = field(init=False)
    agents: dict[int, BaseAgent] = field(init=False)
    saved: Path | None = field(init=False, default=None)
    save_error: str | None = field(init=False, default=None)
    last_text: str = field(init=False, default="")
    last_notes: list[str] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.game = Game(self.board, self.rules, seed=self.seed)
        self.agents = self._make_agents()

    def _make_agents(self) -> dict[int, BaseAgent]:
        return {seat: served_agent(spec, seed=self.seed * 101 + seat)
                for seat, spec in enumerate(self.specs) if seat != self.human}

    # -- whose move --------------------------------------------------------------------------
    @property
    def human_to_move(self) -> bool:
        return not self.game.finished and self._mover() == self.human

    def _mover(self) -> int:
        return _decider(self.game)

    # -- acting ------------------------------------------------------------------------------
    def _apply(self, action: Action) -> str:
        """Check and apply one engine action (a draw is revealed at once from the game's
        seeded generator); returns the action in words."""
        g = self.game
        reason = g.check(action)
        if reason is not None:
            raise IllegalActionError(reason)
        before = g.copy()
        n_log = len(g.log or [])
        g.events = []
        g.apply(action)
        if g.is_chance:
            g.apply(g.sample_chance())
        events, g.events = g.events, None
        self.last_text = action_text(before, g, (g.log or [])[n_log:], events)
        self.last_notes = event_texts(before, g, events)
        if g.finished:
            self._save()
        return self.last_text

    def click_action(self, click: Click) -> Action:
        """The engine action a click stands for (legal or not: the engine judges it)."""
        g, b = self.game, self.board
        phase = PHASE_NAMES[g.phase]
        if click.target == "draw":
            return A.DRAW
        if click.target == "end":
            return A.END
        if click.target == "token":
            return A.play_token(click.value, int(click.neutral))
        limits = {"spot": b.total_spots, "square": b.n_squares, "district": b.n_districts}
        if click.target not in limits:
            raise PlayError(f"unknown target {click.target!r} (targets: spot, square, "
                            "district, token, draw, end)", field="target")
        if not 0 <= click.index < limits[click.target]:
            raise PlayError(f"no {click.target} with index {click.index}", field="index")
        if click.target == "square":
            return A.place_customer(click.index)
        if click.target == "district":
            if phase == "setup":
                return A.place_bobby(click.index)
            if phase == "turn_start":
                return A.score_district(click.value, click.index)
            return A.move_bobby(click.index)
        return self._spot_action(click.index)

    def _spot_action(self, spot: int) -> Action:
        """A stall on the lane of `spot`, from the end whose next spot it is; a spot that is
        not next at either end is refused with where the lane's next stall goes."""
        b, g = self.board, self.game
        lane = _lane_of(b, spot)
        pos = spot - b.lane_offset[lane]
        ends = (g.lane_dir[lane],) if g.lane_count[lane] else (0, 1)
        for end in ends:
            if g.next_spot(lane, end) == pos and not g.lane_full(lane):
                return A.place_stall(lane, end)
        if g.lane_full(lane) or g.spot_seat[spot] >= 0:
            raise IllegalActionError(f"spot {pos + 1} of {b.lane_ids[lane]} is taken")
        nxt = ", ".join(str(g.next_spot(lane, e) + 1) for e in ends)
        raise IllegalActionError(f"a stall on {b.lane_ids[lane]} goes next to the stalls "
                                 f"already there or at an end: spot {nxt}, not {pos + 1}")

    def play(self, click: Click) -> str:
        """The person's click, as the engine's action for their seat."""
        if self.game.finished:
            raise IllegalActionError("the game is over")
        if not self.human_to_move:
            raise IllegalActionError(f"it is seat {self._mover()}'s move, not yours")
        return self._apply(self.click_action(click))

    def move(self, data: Any) -> str:
        """The person's click, as the request's body gives it (`click_of`)."""
        return self.play(click_of(data))

    def bot_step(self) -> str | None:
        """One move of the bot to move, or None when the person (or nobody) is to move."""
        if self.game.finished or self.human_to_move:
            return None
        agent = self.agents[self._mover()]
        return self._apply(agent.choose(self.game))

    def undo(self) -> int:
        """Back to the person's previous decision: the game replayed from its log without
        the actions from that decision on (the bots' replies go with it), the bots started
        afresh. Returns how many logged actions were taken back (0: nothing to undo)."""
        log = list(self.game.log or [])
        probe = Game(self.board, self.rules, seed=self.seed)
        cut = -1  # the log position of the person's latest decision
        for i, action in enumerate(log):
            if _decider(probe) == self.human:
                cut = i
            probe.apply(action)
        if cut < 0:
            return 0
        self.game = replay_log(self.board, self.rules, self.seed, log[:cut])
        self.agents = self._make_agents()
        self.saved = self.save_error = None
        self.last_text = "move taken back: your move again"
        self.last_notes = []
        return len(log) - cut

    # -- hints -------------------------------------------------------------------------------
    def hint(self, spec: str) -> dict[str, Any]:
        """What agent `spec` would do in the person's place and why: its choice and, when it
        prices its options (greedy, heuristic), its choice first (`chosen`; without a value
        where the agent did not price it) and then the best other options with their
        values."""
        if not self.human_to_move:
            raise PlayError("a hint is for your own move", field="agent")
        agent = served_agent(spec, seed=self.seed, field="agent")
        g = self.game
        choice = agent.choose(g.copy(keep_log=True))
        ranked = getattr(agent, "ranked_options", None)
        options: list[dict[str, Any]] = []
        if callable(ranked):
            every = list(ranked(g))
            first = [i for i, opt in enumerate(every) if opt.steps and opt.steps[0] == choice]
            others = [i for i in range(len(every)) if i not in first[:1]]
            shown = (first[:1] + others)[:HINT_OPTIONS]  # its choice, then the best others
            for i in shown:
                opt = every[i]
                options.append({"text": self.steps_text(opt.steps),
                                "value": round(float(opt.value), 2),
                                "chosen": bool(first) and i == first[0]})
            if not first:
                options.append({"text": self.steps_text((choice,)), "value": None,
                                "chosen": True})
        return {"agent": spec.strip(), "choice": self.steps_text((choice,)), "options": options,
                "priced": callable(ranked)}

    def steps_text(self, steps: tuple[Action, ...]) -> str:
        """Actions not yet played, in words (played on a copy)."""
        sim = self.game.copy(keep_log=True)
        words = []
        for action in steps:
            if A.kind(action) == A.DRAW_CUSTOMER:
                words.append(f"seat {sim.seat} draws a customer")
                break
            before = sim.copy()
            n_log = len(sim.log or [])
            sim.events = []
            sim.apply(action)
            words.append(action_text(before, sim, (sim.log or [])[n_log:], sim.events))
        return "; then ".join(words)

    # -- the record --------------------------------------------------------------------------
    def agent_names(self) -> list[str]:
        return [HUMAN if s == self.human else spec for s, spec in enumerate(self.specs)]

    def record(self) -> dict[str, Any]:
        return record_from_game(self.game, board_ref=self.board_ref, agents=self.agent_names())

    def viewer(self) -> Callable[[], str]:
        """The game so far as the viewer's page: the record taken now (under the game's
        lock), replayed and drawn when called."""
        record = self.record()
        label = self.saved.name if self.saved else f"game {self.game_id}"
        board, rules, seed = self.board, self.rules, self.seed

        def draw() -> str:
            from sim.games.portobello.view.page import render
            from sim.games.portobello.view.source import GameSource

            replay(record)  # the record as saved must replay before it is drawn
            game = Game(board, rules, seed=seed, record_events=True)
            return render(GameSource(record=record, label=label, game=game))
        return draw

    def _save(self) -> None:
        """Save the finished game's record; a folder that cannot take it (read-only, full)
        leaves the game finished and says why the record is missing."""
        path = self.out_dir / f"{self.game_id}.json"
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            write_record(path, self.record())
        except OSError as exc:
            self.save_error = f"the record could not be saved: {from_os_error(exc).message}"
            return
        self.saved, self.save_error = path, None

    # -- what the page draws -----------------------------------------------------------------
    def targets(self) -> dict[str, list[Any]]:
        """The person's legal moves as clickable targets (none while a bot is to move)."""
        out: dict[str, list[Any]] = {"spots": [], "squares": [], "districts": [],
                                     "tokens": [], "buttons": []}
        if not self.human_to_move:
            return out
        b, g = self.board, self.game
        for action in g.legal_actions():
            k, a = A.kind(action), A.arg(action)
            if k == A.PLACE_STALL:
                lane = A.stall_lane(action)
                out["spots"].append(b.lane_offset[lane] + g.next_spot(lane, A.stall_end(action)))
            elif k == A.PLACE_CUSTOMER:
                out["squares"].append(a)
            elif k in (A.PLACE_BOBBY, A.MOVE_BOBBY):
                out["districts"].append(a)
            elif k == A.SCORE_DISTRICT:
                out["districts"].append({"district": A.district_of(action),
                                         "value": A.district_value(action)})
            elif k == A.PLAY_TOKEN:
                out["tokens"].append([A.token_value(action), A.token_neutral(action)])
            elif k == A.DRAW_CUSTOMER:
                out["buttons"].append("draw")
            elif k == A.END_TURN:
                out["buttons"].append("end")
        return out

    def prompt(self) -> str:
        """What the person is to do now, in words, from the kinds of their legal actions
        ("Your move: place the Bobby first: click a highlighted district"); empty while a
        bot is to move or the game is over. The page shows it, so that the highlighted
        targets come with what they are for."""
        if not self.human_to_move:
            return ""
        kinds = {A.kind(a) for a in self.game.legal_actions()}
        pending = CUSTOMER_NAMES.get(self.game.pending, "customer")
        said = [text.format(customer=pending) for kind, text in PROMPTS if kind in kinds]
        return "Your move: " + (", ".join(said[:-1]) + " or " + said[-1] if len(said) > 1
                                else said[0] if said else "no move is open") + "."

    def view(self) -> dict[str, Any]:
        """The state the page shows now: the viewer's snapshot plus whose move it is, the
        person's targets, the last action in words and where the record was saved."""
        g = self.game
        state = snapshot(g, _district_values(g))
        state.update({
            "game_id": self.game_id,
            "human": self.human,
            "mover": self._mover(),
            "human_to_move": self.human_to_move,
            "targets": self.targets(),
            "last": self.last_text,
            "prompt": self.prompt(),  # what the person is to do, when it is their move
            "notes": self.last_notes,  # what the last action caused: scorings, the end
            "pending": CUSTOMER_NAMES.get(g.pending, "") if g.pending else "",
            "actions": len(g.log or []),
            "winners": g.winners() if g.finished else [],
            "record": str(self.saved) if self.saved else None,
            "save_error": self.save_error,
        })
        return state

    def setup(self) -> dict[str, Any]:
        """What the page needs once: the board drawing, seat colours and agents."""
        return {"board": board_json(self.board), "players": self.rules.players,
                "colours": seat_colours(self.rules.players), "agents": self.agent_names(),
                "seed": self.seed, "customer_names": {str(k): v
                                                      for k, v in CUSTOMER_NAMES.items()},
                "known_order": self.game.line is not None}


def click_of(data: Any) -> Click:
    """A click as the request's body gives it: `target`, `index` and `value` (integers from
    0), `neutral`."""
    if not isinstance(data, dict):
        raise PlayError("the request must be a JSON object", field="body")
    target = data.get("target")
    if not isinstance(target, str):
        raise PlayError("must name what was clicked: spot, square, district, token, draw or "
                        "end", field="target")
    out: dict[str, Any] = {"target": target}
    for key in ("index", "value"):
        value = data.get(key, 0)
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**31:
            raise PlayError(f"must be an integer from 0 to {2**31 - 1}, got {quote(value)}",
                            field=key)
        out[key] = value
    out["neutral"] = bool(data.get("neutral", False))
    return Click(**out)


def _lane_of(board: Board, spot: int) -> int:
    """The lane holding board spot `spot` (spots are numbered lane by lane)."""
    lane = 0
    for i, offset in enumerate(board.lane_offset):
        if offset <= spot:
            lane = i
    return lane


def _district_values(g: Game) -> list[int]:
    """The token value lying in each district (0 where none), from the game's log."""
    out = [0] * g.board.n_districts
    for action in g.log or []:
        if A.kind(action) == A.SCORE_DISTRICT:
            out[A.district_of(action)] = A.district_value(action)
    return out


def _decider(g: Game) -> int:
    """The seat that decides now (the Bobby placer before the first turn)."""
    return g.rules.bobby_placer_seat if PHASE_NAMES[g.phase] == "setup" else g.seat


def replay_log(board: Board, rules: Rules, seed: int, log: list[Action]) -> Game:
    """The game of an action log, its customer generator left where it was after the same
    draws: a draw taken back and drawn again gives the same customer (undo is no way to fish
    for a better one)."""
    g = Game(board, rules, seed=seed)
    for action in log:
        if A.kind(action) == A.DRAW_CUSTOMER:
            g.advance_chance()  # the draw `sample_chance` made
        g.apply(action)
    return g
