"""The games, one package each (`sim.games.portobello`, `sim.games.river`), found through
one registry (`sim.games.registry`)."""
