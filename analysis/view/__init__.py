"""One game as a page to step through: where the game comes from (`source`), per-step states
from the engine (`states`), the actions in words (`words`), the board in SVG pixels
(`board`) and the HTML (`page`)."""
