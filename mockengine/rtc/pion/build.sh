#!/bin/sh
# Build mockengine-pion (the --media-plane pion sidecar) offline from Debian's packages:
#   apt-get install golang-go golang-github-pion-webrtc.v3-dev
# Debian installs the module github.com/pion/webrtc/v3 at .../pion/webrtc (no v3 directory), so a
# private GOPATH entry adds the v3 path as a symlink, and the build runs in GOPATH mode (no module
# proxy). Output: mockengine-pion beside this script (not committed), or $1.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/mockengine-pion}
GOCODE=/usr/share/gocode
if ! command -v go >/dev/null || [ ! -d $GOCODE/src/github.com/pion/webrtc ]; then
    echo "build.sh: needs Debian's golang-go and golang-github-pion-webrtc.v3-dev" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src/github.com/pion/webrtc" "$WORK/src/mockengine-pion"
ln -s $GOCODE/src/github.com/pion/webrtc "$WORK/src/github.com/pion/webrtc/v3"
cp "$HERE/sidecar.go" "$WORK/src/mockengine-pion/"
cd "$WORK/src/mockengine-pion"
GO111MODULE=off GOPATH="$GOCODE:$WORK" GOCACHE="${GOCACHE:-$HOME/.cache/go-build}" GOFLAGS= \
    go build -trimpath -o "$OUT.tmp" .
mv "$OUT.tmp" "$OUT"
echo "built $OUT"
