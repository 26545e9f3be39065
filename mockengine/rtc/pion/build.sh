#!/bin/sh
# Build mockengine-pion (the --media-plane pion sidecar) offline from Debian's packages:
#   apt-get install golang-go golang-github-pion-webrtc.v3-dev
# Debian installs the module github.com/pion/webrtc/v3 at .../pion/webrtc (no v3 directory), so a
# private GOPATH entry adds the v3 path as a symlink, and the build runs in GOPATH mode (no module
# proxy). Output: mockengine-pion beside this script (not committed), or $1. $2 builds another Go
# main file on the same patched pion instead of sidecar.go (tools/pion_driver/build.sh, the load driver).
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-$HERE/mockengine-pion}
SOURCE=${2:-$HERE/sidecar.go}
GOCODE=/usr/share/gocode
if ! command -v go >/dev/null || [ ! -d $GOCODE/src/github.com/pion/webrtc ]; then
    echo "build.sh: needs Debian's golang-go and golang-github-pion-webrtc.v3-dev" >&2
    exit 1
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/src/github.com/pion/webrtc" "$WORK/src/mockengine-pion"
# pion/webrtc 3.1 reads at most 65,535 bytes a data channel message (dataChannelBufferSize, "for
# Chromium"; a larger one ends the channel), where aiortc reads 262,144 and names it in its answer: the
# v3 path is a copy with that constant raised to 262144 (math stays imported), the a=max-message-size
# the sidecar's answer names.
cp -r $GOCODE/src/github.com/pion/webrtc "$WORK/src/github.com/pion/webrtc/v3"
sed -i 's/^const dataChannelBufferSize = math.MaxUint16 .*$/const dataChannelBufferSize = 4 * (math.MaxUint16 + 1)/' \
    "$WORK/src/github.com/pion/webrtc/v3/datachannel.go"
grep -q '^const dataChannelBufferSize = 4 \* (math.MaxUint16 + 1)$' "$WORK/src/github.com/pion/webrtc/v3/datachannel.go" || {
    echo "build.sh: pion/webrtc's dataChannelBufferSize not found to raise" >&2
    exit 1
}
# pion/sctp 1.8 sends no message over 64 KiB (its defaultMaxMessageSize; pion/webrtc 3.1 sets no other)
# whatever the offer's a=max-message-size allows, where aiortc sends up to 256 KiB: a copy of the
# package with that one constant raised shadows Debian's (first on GOPATH), so the engine can send
# what the aiortc plane sends (its ChannelSender still keeps each event within the offer's limit).
mkdir -p "$WORK/src/github.com/pion"
cp -r $GOCODE/src/github.com/pion/sctp "$WORK/src/github.com/pion/sctp"
sed -i 's/defaultMaxMessageSize uint32 = 65536$/defaultMaxMessageSize uint32 = 262144/' \
    "$WORK/src/github.com/pion/sctp/association.go"
grep -q 'defaultMaxMessageSize uint32 = 262144$' "$WORK/src/github.com/pion/sctp/association.go" || {
    echo "build.sh: pion/sctp's defaultMaxMessageSize not found to raise" >&2
    exit 1
}
cp "$SOURCE" "$WORK/src/mockengine-pion/"
cd "$WORK/src/mockengine-pion"
GO111MODULE=off GOPATH="$WORK:$GOCODE" GOCACHE="${GOCACHE:-$HOME/.cache/go-build}" GOFLAGS= \
    go build -trimpath -o "$OUT.tmp" .
mv "$OUT.tmp" "$OUT"
echo "built $OUT"
