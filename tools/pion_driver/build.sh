#!/bin/sh
# Build mockengine-pion-driver (tools/media_plane_bench.py --driver pion) offline from Debian's packages
# (apt-get install golang-go golang-github-pion-webrtc.v3-dev), with the sidecar's build and its pion:
# the driver then sends and reads what the sidecar does (messages up to 256 KiB both ways).
# Output: mockengine-pion-driver beside this script (not committed), or $1.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
exec "$HERE/../../mockengine/rtc/pion/build.sh" "${1:-$HERE/mockengine-pion-driver}" "$HERE/driver.go"
