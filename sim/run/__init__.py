"""Playing games of any registered game: the runner that writes run folders (its shards
played by the game's "runs" facet, `sim.run.game_runs`, which each game implements in its own
package), their configuration and identity, storage, execution on local processes or a
cluster, and tournaments. No module here names a game."""
