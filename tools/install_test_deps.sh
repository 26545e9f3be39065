#!/usr/bin/env bash
# What the tests need beyond PyPI, installed once (each step is skipped when already there):
# espeak-ng voices the turn-detection corpus (mockengine/turn_corpus/), Debian's chromium runs the browser
# tests (tests/integration/browser/), Node and npm run the official JS SDK (tests/js/), Debian's Go and
# pion/webrtc build the --media-plane pion sidecar (tests/integration/test_webrtc_pion.py; `make pion`,
# run here once they are there; serving on the default aiortc plane needs none of it). `make test` runs
# this first; as root it installs with apt-get, otherwise it says what is missing (those tests then skip
# with that reason, and fail under CI=true).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
command -v go >/dev/null 2>&1 || missing+=(golang-go)
# Debian installs pion/webrtc v3 under its GOPATH tree (mockengine/rtc/pion/build.sh builds from there).
[ -d /usr/share/gocode/src/github.com/pion/webrtc ] || missing+=(golang-github-pion-webrtc.v3-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "Installing ${missing[*]} with apt-get (test dependencies)"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "Missing for some tests: ${missing[*]} (as root: apt-get install ${missing[*]})" >&2
    fi
fi
# The npm packages (the official JS SDK), unless node_modules is already as new as the lock file.
if command -v npm >/dev/null 2>&1 && [ ! tests/js/node_modules/.package-lock.json -nt tests/js/package-lock.json ]; then
    (cd tests/js && npm ci --no-audit --no-fund --loglevel=error)
fi
# The pion sidecar and the bench's Go load driver, unless newer than their sources (make's own check).
if command -v go >/dev/null 2>&1 && [ -d /usr/share/gocode/src/github.com/pion/webrtc ]; then
    "${MAKE:-make}" --no-print-directory -s pion pion-driver
fi
