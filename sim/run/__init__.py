"""Playing games: the play loop, the engine seam (reference or compiled), the runner that
writes run folders, the tables it writes, and tournaments."""
