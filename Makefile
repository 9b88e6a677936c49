# The two commands a new user needs: `make run` and `make test`. Everything else is theirs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install lexicons run test bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq --editable '.[dev]'
	touch $(STAMP)

# Builds the manifest's default lexicons (data/manifest.toml) when missing or out of date.
lexicons: install
	$(BIN)/lexicon build-defaults

run: lexicons
	$(BIN)/lexicon info es
	$(BIN)/lexicon info ca

test: install
	$(BIN)/python -m pytest

bench: lexicons
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
