# The commands a new user needs: `make run`, `make check` (while working) and `make test` (before
# landing; what CI runs). Everything else is theirs.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: install lexicons run check test bench bench-quick clean cc chromium webkit firefox nginx postgresql nodejs wabt wrk npm axe lighthouse eslint format screenshots
.PRECIOUS: $(VENV)/.installed-%

# What running needs, and no more: the package (editable, so the checkout's data/ and
# build/lexicons are used) and its dependencies. `make test` and `make bench` add their extras.
install: $(VENV)/.installed-run

$(VENV)/.installed-%: pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -qq --upgrade pip
	$(BIN)/pip install -qq --editable '.$(if $(filter run,$*),,[$*])'
	touch $@

# Builds the manifest's default lexicons (data/manifest.toml) when missing or out of date.
lexicons: install
	$(BIN)/lexicon build-defaults

# Serves the default lexicons on http://127.0.0.1:8000 until Ctrl-C; `make run PORT=8001` (or
# LEXICON_PORT in the environment) for another port. On the venue network:
# `.venv/bin/lexicon serve --host 0.0.0.0` (docs/operations.md). `lexicon serve` builds the
# defaults missing or out of date itself, and says so once: `lexicons` first said it twice.
run: install
	$(BIN)/lexicon serve --host 127.0.0.1$(if $(PORT), --port $(PORT))

# Python's bytecode caches (__pycache__, gitignored) are written even where the shell says not to
# (PYTHONDONTWRITEBYTECODE): without them pytest rewrites the asserts of every test module again on
# each run (~10 s of `make check`), and every server and command a test starts compiles the package again.
WRITE_PYC := env -u PYTHONDONTWRITEBYTECODE

# The fast tier, for every change: lint, and the tests that start nothing beside Python (no browser,
# live server, nginx, Node.js or wrk) and take no seconds alone: well under a minute. How a test is
# put in the slow tier (by fixture, folder or marker, enforced): tests/tiers.py. In two processes, a
# test file in one, as `make test`; the tests' folders in memory (/dev/shm, where it is a tmpfs that
# may run a program: the tests build and load a C library there), since writing hundreds of event
# files to a disk and syncing them was a third of the time. Times: docs/testing.md.
CHECK_TMP = $(if $(shell findmnt -no FSTYPE,OPTIONS --target /dev/shm 2>/dev/null | grep '^tmpfs ' | grep -v noexec),TMPDIR=/dev/shm)
check: $(VENV)/.installed-test eslint cc
	$(BIN)/ruff check --quiet .
	$(BIN)/ruff format --check --quiet .
	$(ESLINT)
	$(WRITE_PYC) $(CHECK_TMP) $(BIN)/python -m pytest -q --check -n 2 --dist loadfile

# Everything, as CI runs it (.ci/run). Tests run in a new random order each time (pytest-randomly; the seed is printed to repeat it),
# in two processes (pytest-xdist), a test file in one of them: most of a test's time is waiting (servers, browsers, timeouts).
test: $(VENV)/.installed-test chromium webkit firefox nginx postgresql nodejs wabt wrk axe eslint cc
	$(BIN)/ruff check --quiet .
	$(BIN)/ruff format --check --quiet .
	$(ESLINT)
	$(WRITE_PYC) $(BIN)/python -m pytest -n 2 --dist loadfile

# The judge's page is tested in Debian's Chromium (tests/page): installed here when missing.
# Without it those tests fail, loudly; they never skip.
chromium:
	@command -v chromium >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium)

# ...and in WebKit (Safari's engine: Debian's WebKitGTK, its WebKitWebDriver under Xvfb) and Firefox
# (Debian's Firefox ESR), the same flows (tests/page/test_engines.py); installed here when missing.
webkit:
	@(test -x /usr/bin/WebKitWebDriver && command -v Xvfb >/dev/null 2>&1) || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y webkit2gtk-driver xvfb)
firefox:
	@command -v firefox-esr >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y firefox-esr)

# deploy/nginx.conf is tested with Debian's nginx in front of two instances (tests/deploy), rendered by
# envsubst, and asked over HTTP/2 by Debian's curl.
nginx:
	@(command -v envsubst >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && \
	  (command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx)) || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nginx gettext-base curl)

# A disk that fails a sync is made real to SQLite by a small C library (tests/tournament/sync_fault.c,
# built by the tests that load it): Debian's gcc, installed here when missing.
cc:
	@command -v cc >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y gcc libc6-dev)

# The PostgreSQL store (a federation's service) is tested against Debian's PostgreSQL, which the tests
# start themselves in a temporary folder (tests/postgres.py). `make run` and `make check` need none.
postgresql:
	@(command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1) || \
	  (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql)

# The browser lexicon's reader (lexicon.js) is tested against Python's in Node (tests/page/test_lexicon_js.py).
nodejs:
	@command -v node >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs)

# lexicon.js carries dawg.wat assembled by wabt's wat2wasm (asset_tools/wasm.py); a test re-assembles it.
wabt:
	@command -v wat2wasm >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wabt)

# `python -m bench service` loads the server with wrk, and its small-scale test does too (tests/bench).
wrk:
	@command -v wrk >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wrk)

# Every section of bench/, each table printed and written into docs/figures.md with the date, the machine
# and its load (`python -m bench SECTION…` for some). `python -m bench chromium` needs Debian's Chromium.
bench: $(VENV)/.installed-bench lexicons chromium lighthouse postgresql
	$(BIN)/python -m bench

# The two guards of a challenge's cost alone, in under a minute, for use before a stop: the plain
# challenge's CPU beside /healthz in process, a recorded challenge beside an unrecorded one under
# wrk (bench/quick.py); each says NO when missed, and the section is written into docs/figures.md.
bench-quick: $(VENV)/.installed-bench lexicons wrk
	$(BIN)/python -m bench quick

# The phone pages' accessibility tests run axe-core in Chromium (tests/page/axe.py), and `make
# bench` measures the pages with Lighthouse (bench/lighthouse.py): from npm, each pinned to its
# major (Lighthouse 12: 13 wants Node 22), into build/node, once; nothing is fetched while tests run.
NODE_TOOLS := build/node/node_modules
npm: nodejs
	@command -v npm >/dev/null 2>&1 || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y npm)
axe: $(NODE_TOOLS)/axe-core/axe.min.js
$(NODE_TOOLS)/axe-core/axe.min.js: | npm
	npm install --no-audit --no-fund --prefix build/node axe-core@4
lighthouse: $(NODE_TOOLS)/.bin/lighthouse
$(NODE_TOOLS)/.bin/lighthouse: | npm
	npm install --no-audit --no-fund --prefix build/node lighthouse@12

# The page scripts' linter and formatter (eslint.config.mjs at the root: ESLint's recommended rules,
# every name a script uses declared, @stylistic's layout): `make check` and `make test` run it,
# `make format` applies its layout. Each package pinned to its exact version, so that a new rule
# never turns `make check` red by itself; installed into build/node once, on the first check.
ESLINT_PACKAGES := eslint@10.15.0 @eslint/js@10.0.1 globals@17.14.0 @stylistic/eslint-plugin@5.10.0
ESLINT := $(NODE_TOOLS)/.bin/eslint --max-warnings 0 .
eslint: $(NODE_TOOLS)/.eslint-10.15.0
$(NODE_TOOLS)/.eslint-10.15.0: | npm
	npm install --no-audit --no-fund --save-exact --prefix build/node $(ESLINT_PACKAGES)
	touch $@
format: eslint
	$(ESLINT) --fix

# Every state of the phone pages at 390 x 844 and 360 x 640 (the verdict in landscape too), the
# judge's page in WebKit and Firefox too, as PNG files in test-output/screenshots/ (git-ignored),
# to be looked at (tests/page/screenshots.py).
screenshots: $(VENV)/.installed-test chromium webkit firefox
	$(BIN)/python -m tests.page.screenshots

clean:
	rm -rf $(VENV) build .pytest_cache .hypothesis
