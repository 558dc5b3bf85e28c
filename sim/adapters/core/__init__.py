"""What both adapters share, free of either framework: the parameters (`settings`), the
dense numbering of the engine's actions (`actions`), a position with the known line's
drawing and the Bobby-move bound (`position`), and what a player observes (`observation`)."""
