"""Every rules switch (docs/rules.md) in one frozen, validated configuration, plus named presets.

Rule variants are data: the engine reads these fields and has no other code paths for them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from dataclasses import replace
from pathlib import Path
from typing import Any

from sim.core.errors import RulesError
from sim.core.errors import quote
from sim.core.files import read_document
from sim.games.portobello.codes import CUSTOMER_CODES
from sim.games.portobello.codes import N_CUSTOMER_CODES

DEFAULT_STALLS = {2: 30, 3: 20, 4: 16}
DEFAULT_MULTIPLIERS: dict[str, int] = {
    "citizen-citizen": 1,
    "citizen-aristocrat": 2,
    "aristocrat-aristocrat": 3,
    "citizen-baron": 3,
    "aristocrat-baron": 4,
}
# What the engines, the action encoding and the tables can hold (docs/rules.md, "Limits").
LIMITS: dict[str, tuple[int, int]] = {
    "players": (2, 16),
    "stalls_per_player": (1, 10_000),
    "start_score": (-1_000_000, 1_000_000),
    "token": (1, 255),  # a token's value (an action holds it in 8 bits)
    "player_tokens": (1, 32),  # how many
    "neutral_stack": (0, 1_000),  # how many
    "customers": (0, 10_000),  # of each kind
    "max_rounds": (1, 10_000),
    "multipliers": (0, 1_000),
}
MAX_POINTS = 2_000_000_000  # scores are stored as 32-bit integers




CHOICES = {
    "customer_order": ("drawn", "known"),
    "bobby_placer": ("first", "next", "last"),
    "bobby_tie": ("pay_co_leaders", "pay_bank"),
}


def _pair_key(name: str) -> str | None:
    """Canonical multiplier key for a pair name given in either order."""
    parts = name.split("-")
    if len(parts) != 2 or any(p not in CUSTOMER_CODES for p in parts):
        return None
    a, b = sorted(parts, key=lambda p: CUSTOMER_CODES[p])
    key = f"{a}-{b}"
    return key if key in DEFAULT_MULTIPLIERS else None


@dataclass(frozen=True)
class Rules:
    """One game's rules. Defaults are the English rulebook as docs/rules.md reads it."""

    players: int = 2
    stalls_per_player: int | None = None
    start_score: int = 10
    start_scores: tuple[int, ...] | None = None
    player_tokens: tuple[int, ...] = (2, 3, 4)
    neutral_stack: tuple[int, ...] = (3, 3, 2, 2, 1, 1, 1, 1)
    district_tokens: tuple[int, ...] = (2, 4)
    customers: tuple[tuple[str, int], ...] = (("citizen", 5), ("aristocrat", 5))
    baron: bool = True
    customer_order: str = "drawn"
    customer_sequence: tuple[str, ...] | None = None
    bobby_placer: str = "first"
    bobby_tie: str = "pay_co_leaders"
    negative_scores: bool = False
    max_rounds: int = 200
    multipliers: tuple[tuple[str, int], ...] = field(
        default_factory=lambda: tuple(DEFAULT_MULTIPLIERS.items()))

    def __post_init__(self) -> None:
        if isinstance(self.start_scores, list):  # Rules(start_scores=[10, 13])
            object.__setattr__(self, "start_scores", tuple(self.start_scores))
        self._validate()

    # -- derived facts used by the engine -------------------------------------------------
    @property
    def stalls(self) -> int:
        """Stalls each player starts with."""
        if self.stalls_per_player is not None:
            return self.stalls_per_player
        return DEFAULT_STALLS[self.players]

    @property
    def bag(self) -> dict[str, int]:
        """Customers in the bag (or the known line), baron excluded."""
        if self.customer_sequence is not None:
            line = [c for c in self.customer_sequence if c != "baron"]
            return {"citizen": line.count("citizen"), "aristocrat": line.count("aristocrat")}
        return dict(self.customers)

    @property
    def bag_size(self) -> int:
        return sum(self.bag.values())

    @property
    def bobby_placer_seat(self) -> int:
        return {"first": 0, "next": 1}.get(self.bobby_placer, self.players - 1)

    @property
    def seat_start_scores(self) -> tuple[int, ...]:
        """Each seat's starting score, seat 0 first: `start_scores` when given (it replaces
        `start_score`), else `start_score` for every seat."""
        if self.start_scores is not None:
            return self.start_scores
        return (self.start_score,) * self.players

    def multiplier_table(self) -> tuple[int, ...]:
        """Flat 4x4 table indexed by `a * 4 + b` with customer codes a, b (0 = none;
        `codes.N_CUSTOMER_CODES` a row)."""
        n = N_CUSTOMER_CODES
        table = [0] * (n * n)
        for name, value in self.multipliers:
            a, b = (CUSTOMER_CODES[p] for p in name.split("-"))
            table[a * n + b] = value
            table[b * n + a] = value
        return tuple(table)

    def check_board(self, board: Any, source: str | None = None) -> None:
        """Rules checks that need the board: the bag must fit its squares."""
        n = board.n_squares
        # Name the switch the user set: an explicit line replaces the bag counts.
        where = "customers" if self.customer_sequence is None else "customer_sequence"
        if self.baron and self.bag_size != n - 1:
            raise RulesError(f"with the baron on, the bag must hold exactly squares - 1 = {n - 1} "
                             f"customers for board {board.name}, but it holds {self.bag_size}",
                             source=source, field=where)
        if not self.baron and self.bag_size > n:
            raise RulesError(f"the bag holds {self.bag_size} customers but board {board.name} "
                             f"has only {n} squares", source=source, field=where)
        # The most points a game could move: every spot at the largest multiplier, every
        # district token on every stall, the start score; it must fit the tables' integers.
        spots = sum(sum(s) for s in board.lane_spots)
        best = max(v for _, v in self.multipliers)
        tokens = sum(self.district_tokens) + max(self.neutral_stack, default=0)
        start = max(abs(v) for v in self.seat_start_scores)
        bound = start + spots * best + tokens * self.stalls * self.players
        if bound > MAX_POINTS:
            raise RulesError(f"scores could reach {bound:,} points on board {board.name}, more "
                             f"than the {MAX_POINTS:,} the tables hold; lower the multipliers, "
                             "the spot values or the start score", source=source,
                             field="multipliers")

    # -- validation ----------------------------------------------------------------------
    def _validate(self) -> None:
        def bad(name: str, reason: str) -> RulesError:
            return RulesError(reason, field=name)

        def is_int(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        def within(name: str, value: Any, what: str = "") -> None:
            lo, hi = LIMITS[name]
            if not is_int(value) or not lo <= value <= hi:
                raise bad(what or name,
                          f"must be an integer from {lo:,} to {hi:,}, got {quote(value)}")

        within("players", self.players)
        if self.stalls_per_player is None:
            if self.players not in DEFAULT_STALLS:
                raise bad("players", f"{self.players} players need an explicit "
                                     "stalls_per_player (the rulebook covers 2 to 4)")
        else:
            within("stalls_per_player", self.stalls_per_player)
        within("start_score", self.start_score)
        if self.start_scores is not None:
            if not isinstance(self.start_scores, tuple):
                raise bad("start_scores", "must be a list of one integer per seat, got "
                                          f"{quote(self.start_scores)}")
            lo, hi = LIMITS["start_score"]
            for i, v in enumerate(self.start_scores):
                if not is_int(v) or not lo <= v <= hi:
                    raise bad("start_scores", f"entry {i} must be an integer from {lo:,} to "
                                              f"{hi:,}, got {quote(v)}")
            if len(self.start_scores) != self.players:
                raise bad("start_scores", f"must give one score per seat: {self.players} "
                                          f"players but {len(self.start_scores)} scores "
                                          f"{quote(list(self.start_scores))}")
        for name in ("player_tokens", "neutral_stack", "district_tokens"):
            values = getattr(self, name)
            lo, hi = LIMITS["token"]
            if not all(is_int(v) and lo <= v <= hi for v in values):
                raise bad(name, f"token values must be integers from {lo} to {hi}, got "
                                f"{quote(list(values))}")
        for name in ("player_tokens", "neutral_stack"):
            if len(getattr(self, name)) > LIMITS[name][1]:
                raise bad(name, f"at most {LIMITS[name][1]} tokens, got "
                                f"{len(getattr(self, name))}")
        if not self.player_tokens:
            raise bad("player_tokens", "a player needs at least one token")
        if len(set(self.player_tokens)) != len(self.player_tokens):
            raise bad("player_tokens", f"values must differ, got {list(self.player_tokens)}")
        for v in self.district_tokens:
            if v not in self.player_tokens:
                raise bad("district_tokens", f"{v} is not one of the player tokens "
                                             f"{list(self.player_tokens)}")
        for key, value in CHOICES.items():
            if getattr(self, key) not in value:
                raise bad(key, f"must be one of {', '.join(value)}, got "
                               f"{quote(getattr(self, key))}")
        if not isinstance(self.baron, bool):
            raise bad("baron", f"must be true or false, got {quote(self.baron)}")
        if not isinstance(self.negative_scores, bool):
            raise bad("negative_scores",
                      f"must be true or false, got {quote(self.negative_scores)}")
        within("max_rounds", self.max_rounds)
        names = [n for n, _ in self.customers]
        if sorted(names) != ["aristocrat", "citizen"]:
            raise bad("customers", "must give counts for exactly citizen and aristocrat, got "
                                   f"{names}")
        for name, count in self.customers:
            lo, hi = LIMITS["customers"]
            if not is_int(count) or not lo <= count <= hi:
                raise bad("customers", f"{name} count must be an integer from {lo} to {hi:,}, "
                                       f"got {quote(count)}")
        if self.customer_sequence is not None:
            seq = list(self.customer_sequence)
            for i, c in enumerate(seq):
                if c == "baron" and i == len(seq) - 1:
                    if not self.baron:
                        raise bad("customer_sequence", "ends with the baron but the baron "
                                                       "is off")
                elif c not in ("citizen", "aristocrat"):
                    raise bad("customer_sequence", f"entry {i} is {quote(c)}; entries are citizen "
                                                   "or aristocrat (a baron only last)")
            if self.customer_order != "known":
                raise bad("customer_sequence", "a customer_sequence implies known order")
        keys = [n for n, _ in self.multipliers]
        if sorted(keys) != sorted(DEFAULT_MULTIPLIERS):
            raise bad("multipliers", f"must give every pair {sorted(DEFAULT_MULTIPLIERS)}")
        for name, value in self.multipliers:
            lo, hi = LIMITS["multipliers"]
            if not is_int(value) or not lo <= value <= hi:
                raise bad("multipliers", f"{name} must be an integer from {lo} to {hi:,}, got "
                                         f"{quote(value)}")

    # -- conversion ----------------------------------------------------------------------
    def to_dict(self, changed_only: bool = False) -> dict[str, Any]:
        """Plain data for TOML/JSON (`changed_only`: only switches that differ from default)."""
        out: dict[str, Any] = {}
        default = Rules()
        for f in fields(self):
            value = getattr(self, f.name)
            if changed_only and value == getattr(default, f.name):
                continue
            if value is None:
                continue
            if f.name in ("customers", "multipliers"):
                base = dict(default.customers if f.name == "customers" else default.multipliers)
                mine = dict(value)
                out[f.name] = ({k: v for k, v in mine.items() if base.get(k) != v}
                               if changed_only else mine)
            elif isinstance(value, tuple):
                out[f.name] = list(value)
            else:
                out[f.name] = value
        if changed_only and self.customer_sequence is not None:
            out.pop("customer_order", None)  # implied by the sequence
        return out

    def with_changes(self, **changes: Any) -> Rules:
        return replace(self, **changes)


RULE_KEYS = tuple(f.name for f in fields(Rules))


def rules_from_dict(data: Mapping[str, Any], base: Rules | None = None,
                    source: str | None = None) -> Rules:
    """Build rules from plain data (a rules file, a record's `rules`), on top of `base`."""
    if not isinstance(data, Mapping):
        raise RulesError("rules must be a table", source=source)
    base = base or Rules()
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if key not in RULE_KEYS:
            raise RulesError(f"unknown rules key '{key}' (known: {', '.join(RULE_KEYS)})",
                             source=source, field=key)
        if key in ("player_tokens", "neutral_stack", "district_tokens", "customer_sequence",
                   "start_scores"):
            if not isinstance(value, list | tuple):
                raise RulesError(f"must be a list, got {quote(value)}", source=source, field=key)
            changes[key] = tuple(value)
        elif key == "customers":
            if not isinstance(value, Mapping):
                raise RulesError("must be a table like {citizen = 5, aristocrat = 5}",
                                 source=source, field=key)
            merged = dict(base.customers) | dict(value)
            changes[key] = tuple(sorted(merged.items(), key=lambda kv: kv[0] != "citizen"))
        elif key == "multipliers":
            if not isinstance(value, Mapping):
                raise RulesError("must be a table keyed by pair names like citizen-aristocrat",
                                 source=source, field=key)
            merged = dict(base.multipliers)
            for pair, mult in value.items():
                canon = _pair_key(str(pair))
                if canon is None:
                    raise RulesError(f"unknown customer pair {quote(pair)} (pairs: "
                                     f"{', '.join(DEFAULT_MULTIPLIERS)})", source=source,
                                     field=key)
                merged[canon] = mult
            changes[key] = tuple(merged.items())
        else:
            changes[key] = value
    if "customer_sequence" in changes:
        if changes.get("customer_order") == "drawn":
            raise RulesError("a customer_sequence implies known order; it cannot be combined "
                             "with customer_order = drawn", source=source,
                             field="customer_sequence")
        changes["customer_order"] = "known"
    try:
        return replace(base, **changes)
    except RulesError as exc:
        raise RulesError(exc.reason, source=source, field=exc.field) from None
    except TypeError as exc:  # e.g. a value of a type the comparisons cannot handle
        raise RulesError(f"bad value: {exc}", source=source) from None


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "known-order": {"customer_order": "known"},
    "spanish": {"bobby_placer": "last"},
    "german": {"bobby_tie": "pay_bank"},
    "negative-scores": {"negative_scores": True},
}
PRESET_NOTES: dict[str, str] = {
    "standard": "the English rulebook as docs/rules.md reads it",
    "known-order": "variant customer rule: the whole bag is drawn into a visible line",
    "spanish": "Spanish/Catalan summaries: the player to the start player's right places "
               "the Bobby",
    "german": "German review: a mover tied for the most stalls loses 1 point to nobody",
    "negative-scores": "Bobby moves may take a score below zero",
}


def preset(name: str, **overrides: Any) -> Rules:
    """A named preset, optionally with further switches."""
    if name not in PRESETS:
        raise RulesError(f"unknown preset {quote(name)} (presets: {', '.join(PRESETS)})",
                         field="preset")
    return rules_from_dict({**PRESETS[name], **overrides})


def load_rules(path: str | Path, base: Rules | None = None, *,
               quote_content: bool = True) -> Rules:
    """Load a rules TOML file (any switches at the top level); with `quote_content` off a
    TOML error says nothing of what the file holds."""
    p = Path(path)
    data = read_document(p, "toml", RulesError, "rules", quote_content=quote_content)
    return rules_from_dict(data, base=base, source=str(p))

