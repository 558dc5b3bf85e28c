"""Playing games: the play loop, the engine seam (compiled batches, or decision by decision
through `Game`), the runner that writes run folders, the tables it writes, and tournaments."""
