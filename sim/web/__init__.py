"""`portobello serve`: play against the bots in the browser, any game with a session facet.
`games` is what the server asks of a game (its session facet: a game in play, its page),
`setup` the checks every new-game request shares, `limits` the caps on bots and hints,
`app` serves the games by id, `page` renders a game's play page from its template."""
