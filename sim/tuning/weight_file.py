"""The weight-set file a tuning writes: the chosen weights (`[weights]`, what agents read)
and where they came from (`[tuned]`: rules, player count, seeds, search settings;
`[evaluation]`: how every finalist did against the starting weights). The file of a game
other than the default says its game (`game = NAME`, and in its header) and names its
material under the game's own key (`GameKind.material`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from typing import Protocol

from sim.core.toml_text import toml_table
from sim.core.toml_text import toml_value
from sim.games.registry import default_game
from sim.games.registry import kind


class Tuned(Protocol):
    """What the file is written from: a finished tuning (`sim.tuning.search.Tuning`), its
    configuration, generations and final evaluation (named here, not imported, so the
    search and its file do not import each other)."""

    config: Any
    generations: Sequence[Any]
    final: dict[str, Any] | None


def weight_set_text(tuning: Tuned) -> str:
    """The TOML text of a finished tuning's weight set."""
    c = tuning.config
    final = tuning.final
    assert final is not None
    chosen = final["finalists"][final["chosen"]]
    name = c.name or f"tuned-{c.players}p"
    lo, hi = chosen["interval"]
    game = kind(c.game)
    other = c.game != default_game()  # the default game's file names no game
    lines = [
        f"# {game.title + ' heuristic' if other else 'Heuristic'} weights tuned by self-play: "
        f"`portobello agents tune{' --game ' + c.game if other else ''}`, {c.players} "
        "players.",
        f"# Play them with heuristic:weights=FILE{f' ({game.title})' if other else ''}. "
        f"Against the starting weights{' and the opponents' if c.opponents else ''} over "
        f"{chosen['games']} games: win share {chosen['win_share']:.3f} [{lo:.3f}, {hi:.3f}] "
        f"(parity {final['parity']:.3f}).",
        f"name = {toml_value(name)}",
        f"description = {toml_value(f'Self-play tuned for {c.players} players')}",
        *([f"game = {toml_value(c.game)}"] if other else []),
    ]
    material = {game.material: c.board_ref, f"{game.material}_hash": c.board.content_hash}
    lines += toml_table("weights", {k: float(v) for k, v in chosen["weights"].items()})
    lines += toml_table("tuned", {
        "players": c.players, **material,
        "seed": c.seed, "generations": len(tuning.generations), "population": c.population,
        "blocks": c.blocks, "hall": c.hall, "sigma": c.sigma, "optimiser": _optimiser_name(),
        "start": c.start, "start_weights": c.start_weights,
        **({"opponents": list(c.opponents)} if c.opponents else {}),
        "tune_id": c.tune_id})
    # (TOML has no null: a switch left to the rulebook, None, is left out)
    lines += toml_table("tuned.rules", {k: v for k, v in c.rules.to_dict().items()
                                        if v is not None})
    lines += toml_table("evaluation", {
        "against": final["against"], "parity": final["parity"],
        "blocks": c.final_blocks, "chosen": final["chosen"]})
    for row in final["finalists"]:
        lines += ["", "[[evaluation.finalists]]",
                  *(f"{k} = {toml_value(v)}" for k, v in row.items())]
    return "\n".join(lines) + "\n"


def _optimiser_name() -> str:
    from importlib import metadata

    return f"CMA-ES (cma {metadata.version('cma')})"
