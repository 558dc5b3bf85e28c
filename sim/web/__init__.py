"""`portobello serve`: play against the bots in the browser. `setup` checks a new game,
`session` plays one (clicks, bots, undo, hints, the saved record), `app` serves the games
by id, `page` renders the play page."""
