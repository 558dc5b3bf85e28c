# Everything installs itself: a fresh machine needs only python3.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: install test lint demo bench clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .

test: $(STAMP) lint
	$(BIN)/python -m pytest

demo: $(STAMP)
	$(BIN)/portobello play --players 3 --agents random --seed 1 --record data/runs/demo-record.json
	$(BIN)/portobello replay data/runs/demo-record.json

bench: $(STAMP)
	$(BIN)/portobello bench --games 2000 --players 2
	$(BIN)/portobello bench --games 2000 --players 4

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
