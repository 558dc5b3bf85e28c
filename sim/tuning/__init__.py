"""Tuning by play: the heuristic's weights by self-play (`sim.tuning.search`), played on the
compiled engine with common random numbers across candidates."""
