"""The learned agent's training: the search as teacher (`teacher`), fitting the network
(`fit`), and the rounds of expert iteration (`train`). It trains Portobello Market's learned
agent (`expert:model=...`) on that game's own modules: a game-specific part of the toolkit,
outside the toolkit folders that name no game (`tests/test_game_names.py`)."""
