"""Dice Race, a small game written for the tests: it proves a game is one package and one
registry line. Each turn a player rolls a die again and again, adding the faces, until they
stop (banking the turn's total) or roll the die's first face (losing it). The first to bank
`target` points wins; after `max_turns` turns each, the highest score wins (ties share).

Two agents: `random` (stops after each roll with probability `stop`, default 0.5) and
`steady` (stops once the turn's total reaches `at`, default 6). Its material is a die, a list
of faces (`d6` built in, or a TOML file `faces = [...]`). Registered by naming this package in
`PORTOBELLO_GAMES` (tests/test_third_game.py)."""

from dice_race.kind import GAME as GAME
