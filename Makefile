# Everything installs itself: a fresh machine needs only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install test test-slow lint demo bench golden adapters answers clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

# ruff, and the layer contracts of pyproject.toml (imports follow the data flow).
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports

# Test files are spread over TEST_WORKERS processes (pytest-xdist; a file's tests stay
# together, so its module fixtures are built once); TEST_WORKERS=0 runs them in one.
TEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadfile)
test: $(STAMP) lint
	$(BIN)/python -m pytest $(XDIST) -m "not slow"

# The long checks (marked slow): every other command's same bytes on a Dask cluster with a
# worker killed mid-run (study, tune, tournament, probe, agents tune and train; about 5 min).
test-slow: $(STAMP)
	$(BIN)/python -m pytest $(XDIST) -m slow

# Every golden action-log cell played decision by decision too (make test checks a subset).
golden: $(STAMP)
	PORTOBELLO_GOLDEN=full $(BIN)/python -m pytest tests/test_golden.py

# OpenSpiel's random simulation checks over 100 games in each rules setting (make test
# plays 4), and the PettingZoo tests (a few minutes).
adapters: $(STAMP)
	PORTOBELLO_OPENSPIEL_SIMS=100 $(BIN)/python -m pytest -n $(TEST_WORKERS) \
		tests/test_openspiel_adapter.py tests/test_pettingzoo_adapter.py

# A reduced customer-order study (300 games per cell instead of ~4,000; resumable): a line
# per cell printed above one progress bar for the whole study (and, the first time, a note
# that the fast engine compiles), then the first player's win share per cell and the path
# of its HTML report. The full study: see README, "What a designer does with it".
DEMO_GAMES ?= 300
DEMO_JOBS ?= 2
demo: $(STAMP)
	$(BIN)/portobello study data/studies/customer-order.toml --games $(DEMO_GAMES) \
		--jobs $(DEMO_JOBS) --out data/runs/studies/customer-order-demo

# README's answers and reports/README.md, written from the committed reports' summary.json
# (a test checks they are up to date): run after rebuilding a committed report.
answers: $(STAMP)
	$(BIN)/python -m analysis.report.answers .

# The speed and size figures of README "Performance" (a few minutes; see benchmarks/).
bench: $(STAMP)
	$(BIN)/portobello bench --games 30000 --players 2
	$(BIN)/portobello bench --games 30000 --players 4
	$(BIN)/portobello bench --games 4000 --players 3 --agents heuristic
	$(BIN)/portobello bench --games 3000 --players 3 --agents expert
	$(BIN)/portobello bench yardstick --players 3 --games 100000
	$(BIN)/portobello bench mcts --agent fastmcts:iterations=3000
	$(BIN)/portobello bench simulate --agents heuristic --players 3 --games 40000 --jobs 1,2
	$(BIN)/portobello bench load --games 1000000
	$(BIN)/portobello bench cluster
	$(BIN)/portobello bench river

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
