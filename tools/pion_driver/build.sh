#!/bin/sh
# Build mockengine-pion-driver (tools/media_plane_bench.py --driver pion) offline from Debian's packages,
# as mockengine/rtc/pion/build.sh builds the sidecar: apt-get install golang-go golang-github-pion-webrtc.v3-dev
# Output: mockengine-pion-driver beside this script (not committed), or $1.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/mockengine-pion-driver}
GOCODE=/usr/share/gocode
if ! command -v go >/dev/null || [ ! -d $GOCODE/src/github.com/pion/webrtc ]; then
    echo "build.sh: needs Debian's golang-go and golang-github-pion-webrtc.v3-dev" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src/github.com/pion/webrtc" "$WORK/src/mockengine-pion-driver"
ln -s $GOCODE/src/github.com/pion/webrtc "$WORK/src/github.com/pion/webrtc/v3"
cp "$HERE/driver.go" "$WORK/src/mockengine-pion-driver/"
cd "$WORK/src/mockengine-pion-driver"
GO111MODULE=off GOPATH="$GOCODE:$WORK" GOCACHE="${GOCACHE:-$HOME/.cache/go-build}" GOFLAGS= \
    go build -trimpath -o "$OUT.tmp" .
mv "$OUT.tmp" "$OUT"
echo "built $OUT"
