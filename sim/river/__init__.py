"""River Market, the toolkit's second game: its cards as data (`sim.river.cards`), the effect
language they are written in (`sim.river.effects`) and their description in words
(`sim.river.words`). See docs/river-market.md."""
