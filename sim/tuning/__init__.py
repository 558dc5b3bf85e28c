"""Tuning by play: the heuristic's weights by self-play (`sim.tuning.search`), and rules
toward fair seats (`sim.tuning.fairness`), each game's games played with common random
numbers across candidates. What tuning asks of a game is its tuning facet's
(`sim.tuning.games`)."""
