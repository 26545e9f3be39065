#!/bin/sh
# Offline build against Debian's golang-github-pion-webrtc.v3-dev (GOPATH mode).
# Debian ships pion/webrtc v3 at .../pion/webrtc (no v3 dir), so overlay a v3 symlink in a private GOPATH.
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
G=$HOME/go
mkdir -p $G/src/github.com/pion/webrtc $G/src/pionbench
ln -sfn /usr/share/gocode/src/github.com/pion/webrtc $G/src/github.com/pion/webrtc/v3
cp "$HERE/main.go" $G/src/pionbench/
cd $G/src/pionbench && GO111MODULE=off GOPATH=/usr/share/gocode:$G go build -o "$HERE/pionbench" .
