"""The rules of the game compiled (numba) over flat int64 arrays: the one implementation of
the rules in the product. `sim.games.portobello.game.Game` is their readable front; the runner plays
them in batches through `sim.games.portobello.agents.compiled.play`.

Compiled code is cached on disk so that only the first run pays for compilation. numba
checks a cached function against its own source file only, not against the files of the
functions it calls; a change in `engine.py` would leave a stale `play_batch` in the cache.
So the cache lives in a folder named by a hash of every source of the games and the shared
core (`sim.core.jit`): any change to any of them starts a fresh cache. `NUMBA_CACHE_DIR`
set by the user wins.

What the first compile costs: numba compiles one version of a function per argument type,
and a constant argument (`f(B, S, 0)`) has a type of its own (`Literal[int](0)`), so each
constant passed to a compiled function would compile it again, with everything it calls
re-optimised into it. Calls between compiled functions pass constants as `np.int64(0)` or
`np.bool_(True)`: one version per function (`portobello bench compile` measures the whole).
A counter started at 0 and passed on after a loop (`k = 0; for ...: k += 1; f(..., k)`) is
`Literal[int](0)` on numba's first pass over the loop, so such calls pass `np.int64(k)`.
Only small helpers are inlined by numba (`inline="always"`): numba reads the inlined function
again from its bytecode at every call site, which cost over a second a site for the larger
ones (`stall_delta`, `choose_random`, `legal_actions`); as plain calls they compile once, and
LLVM still inlines them where that pays (games/s and playouts/s unchanged, measured). The
layers called once per decision are inlined into their one caller instead
(`sim.games.portobello.compiled.inlining`), so that the planner is not compiled again for each.
The random agent's choice is inlined by LLVM instead (`forceinline=True`: numba's own
inlining of it cost the planner's compile about 7 s); numba hands that flag on to the
functions compiled for it, which would then be inlined everywhere the planner calls them,
so the larger ones it calls say `forceinline=False`.
"""

from __future__ import annotations

import sim.core.jit  # noqa: F401  (the compile cache's folder, set before any compiling)
