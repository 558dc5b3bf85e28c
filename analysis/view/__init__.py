"""One game as a page to step through, for any game: where the game comes from (`source`: a
record file, or a run folder's game), what every game's page shares (`page`: seat colours,
the JSON script element, the templates) and the game's own viewer (`viewer`: the game's
"view" facet, `ViewFacet`, which replays the game and draws it)."""
