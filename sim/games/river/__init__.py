"""River Market, the toolkit's second game: its cards as data (`sim.games.river.cards`), the effect
language they are written in (`sim.games.river.effects`) and their description in words
(`sim.games.river.words`). See docs/river-market.md."""

from sim.games.river.kind import GAME

__all__ = ["GAME"]
