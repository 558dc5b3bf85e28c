"""The game through other frameworks' interfaces: an OpenSpiel game (`openspiel`) and a
PettingZoo environment (`pettingzoo`), both playing on the engine through the shared
parts in `core` (parameters, the action numbering, positions, observations).

Each framework is an optional extra (`portobello[openspiel]`, `portobello[pettingzoo]`):
nothing here is imported by the core package, and `core` needs neither framework.
"""
