"""An independent reading of the rules, kept for checking the engine: it replays the
engine's records action by action and its whole state is compared after every action."""
