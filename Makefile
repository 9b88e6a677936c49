# The two commands a new user needs: `make run` and `make test`. Everything else is theirs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install lexicons run test bench clean chromium

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq --editable '.[dev]'
	touch $(STAMP)

# Builds the manifest's default lexicons (data/manifest.toml) when missing or out of date.
lexicons: install
	$(BIN)/lexicon build-defaults

# Serves the default lexicons on http://127.0.0.1:8000 until Ctrl-C. On the venue network:
# `.venv/bin/lexicon serve --host 0.0.0.0` (README, "Challenge service").
run: lexicons
	$(BIN)/lexicon serve --host 127.0.0.1 --port 8000

test: install chromium
	$(BIN)/ruff check --quiet .
	$(BIN)/python -m pytest

# The judge's page is tested in Debian's Chromium (tests/page): installed here when missing.
# Without it those tests fail, loudly; they never skip.
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

bench: lexicons
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
