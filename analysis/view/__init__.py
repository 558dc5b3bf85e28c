"""One game as a page to step through: per-step states from the engine (`states`), the
actions in words (`words`), where the game comes from (`source`) and the HTML (`page`)."""
