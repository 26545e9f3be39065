# Two commands do all set-up on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Extra options for `mockengine serve`, e.g. make serve ARGS="--port 9000 --seed 7"
ARGS ?=

.PHONY: serve test test-fast bench bench-capacity bench-media-plane lint conformance clean fuzz pion pion-driver

# Two installs: what serving needs (`make serve`), and that plus the test, lint and bench tools (`make test`).
SERVE_STAMP := $(VENV)/.installed-serve

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# setup.py and the C source too: `pip install -e .` compiles mockengine/audio/_fastpath.c in place, so a
# checkout that pulls a change to it rebuilds it (else the VAD runs its slower numpy path, silently).
NATIVE_SOURCES := setup.py mockengine/audio/_fastpath.c

$(SERVE_STAMP): pyproject.toml $(NATIVE_SOURCES) | $(VENV)/bin/python
	@echo "Installing mockengine and its models into $(VENV) (about 0.7 GB; a minute from a warm pip cache)"
	$(PY) -m pip install --progress-bar on -e .
	touch $(SERVE_STAMP)

$(STAMP): pyproject.toml $(NATIVE_SOURCES) | $(VENV)/bin/python
	@echo "Installing mockengine with its test, lint and bench tools into $(VENV)"
	$(PY) -m pip install --progress-bar on -e '.[test,dev,bench]'
	# A test client whose pins (mcp<2, pydantic<2.14) the engine's mcp>=2.3 excludes: its dependencies that
	# its realtime path imports are in the test extra (pyproject.toml), it comes without the others.
	$(PY) -m pip install --progress-bar on --no-deps semantic-kernel==1.45.0
	touch $(STAMP) $(SERVE_STAMP)

serve: $(SERVE_STAMP)
	$(PY) -m mockengine serve $(ARGS)

# What the tests need beyond PyPI (espeak-ng, chromium, node/npm and the npm packages) is installed first
# (apt-get as root); the HRP conformance suite then runs at real-time pace against a freshly started engine
# (figures printed), then the whole pytest suite, whose summary is the last line; above it, the 30 slowest
# tests (a test near its timeout on a loaded machine shows there before it fails).
test: $(STAMP)
	bash tools/install_test_deps.sh
	$(PY) tools/conformance_selftest.py
	$(PY) -m pytest -q -rfEs --durations=30 $(PYTEST_ARGS)

# The fast tier: every test that needs no model (the fake engines stand in; no whisper, no piper) and is
# not marked slow (subprocesses, real-time waits, minutes of simulated audio: those run in `make test`), on
# two pytest-xdist workers.
test-fast: $(STAMP)
	$(PY) -m pytest -q -n 2 -m "not models and not slow" $(PYTEST_ARGS)

conformance: $(STAMP)
	$(PY) tools/conformance_selftest.py

# A long fuzz run: FUZZ_EVENTS frames into each of FUZZ_SESSIONS concurrent sessions (the short pass
# with a fixed seed is part of `make test`). Prints the report line: bad inputs, survivors, RSS.
FUZZ_EVENTS ?= 25000
FUZZ_SESSIONS ?= 4
FUZZ_SEED ?= 7
fuzz: $(STAMP)
	MOCKENGINE_FUZZ_EVENTS=$(FUZZ_EVENTS) MOCKENGINE_FUZZ_SESSIONS=$(FUZZ_SESSIONS) MOCKENGINE_FUZZ_SEED=$(FUZZ_SEED) \
		$(PY) -m pytest -q -s tests/integration/test_fuzz.py

# Headline figures (a quarter of an hour): audio path cost, one session, the standard load profile beside
# the bare aiohttp baseline, turn detection, the WebRTC capacity per media plane. Options through
# BENCH_ARGS, e.g. BENCH_ARGS="--sessions 100". With Go on the machine the pion sidecar and the Go load
# driver are built first (the WebRTC capacity's pion plane and cheap driver); without it, or when their
# build fails, the bench says so and climbs the aiortc plane with aiortc clients.
bench: $(STAMP)
	@if command -v go >/dev/null 2>&1; then $(MAKE) --no-print-directory pion pion-driver || \
		echo "make bench: the pion sidecar or the Go driver did not build; the WebRTC capacity does without"; fi
	$(PY) -m mockengine bench $(BENCH_ARGS)

# The capacity climb (about 25 minutes): engine in one process, with --workers 2, with caches off, and the
# bare baseline, level by level in lockstep; plot in docs/
bench-capacity: $(STAMP)
	$(PY) -m mockengine bench --only capacity --plot docs/bench-capacity.png $(BENCH_ARGS)

# Talking WebRTC calls held by one engine on the pion media plane, driven by the Go driver and by the
# aiortc one, level by level without stopping at the goal (docs/webrtc.md, "Tenth pass"; a few minutes;
# `make bench` has the capacity climb itself). Side by side with another checkout's
# engine: BENCH_ARGS="--engine-tree DIR", run from outside this checkout (see tools/media_plane_bench.py).
bench-media-plane: $(STAMP) pion pion-driver
	PYTHONPATH=$(CURDIR) $(PY) tools/media_plane_bench.py --planes pion --drivers pion,aiortc --levels 40,70,100 --seconds 12 $(BENCH_ARGS)

# The pion media plane's sidecar (serve --media-plane pion), offline from Debian's packages:
# apt-get install golang-go golang-github-pion-webrtc.v3-dev
PION := mockengine/rtc/pion
pion: $(PION)/mockengine-pion

$(PION)/mockengine-pion: $(PION)/sidecar.go $(PION)/build.sh
	$(PION)/build.sh

# The WebRTC bench's Go load driver (bench --webrtc-driver pion, the default once built), from the same
# packages.
pion-driver: tools/pion_driver/mockengine-pion-driver

tools/pion_driver/mockengine-pion-driver: tools/pion_driver/driver.go tools/pion_driver/build.sh $(PION)/build.sh
	tools/pion_driver/build.sh

lint: $(STAMP)
	$(PY) -m ruff check mockengine tests tools
	$(PY) -m ruff format --check mockengine tests tools
	$(PY) -m mypy mockengine

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(PION)/mockengine-pion
