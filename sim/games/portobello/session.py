"""One game a person plays in the browser against bots: the engine game, who sits where, the
clicks turned into engine actions, the bots' moves, undo and hints.

Every action goes through the engine's validating door (`Game.check`), so an illegal click
is refused with the engine's own reason. The game keeps its action log (a chance draw is
logged with the customer it gave), so undo replays the log minus its tail and the saved
record replays to the very same game.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from analysis.view.board import board_json
from analysis.view.page import seat_colours
from analysis.view.states import snapshot
from analysis.view.words import action_text
from analysis.view.words import event_texts
from sim.core.errors import IllegalActionError
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.board import Board
from sim.games.portobello.codes import CUSTOMER_NAMES
from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.records import record_from_game
from sim.games.portobello.records import write_record
from sim.games.portobello.rules import Rules
from sim.web.limits import served_agent

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


class PlayError(PortobelloError):
    """A request the game cannot take (a bad click, a seat that is not to move)."""


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
