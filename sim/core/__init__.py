"""What every game and the toolkit share: errors (`errors`), reading files (`files`) and
writing them whole (`outputs`), TOML text (`toml_text`), the counter-based generator
(`rng`), the compile cache (`jit`), the game seam (`kind`) and the run tables' shared
columns (`tables`). It imports nothing from the rest of `sim`."""
