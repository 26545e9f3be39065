#!/bin/sh
# The measured suite: every stack at each N, interleaved so all see the same machine load. Appends to results.jsonl.
cd "$(dirname "$0")"
for n in 10 50 100; do
  python3 run.py pion $n 20
  python3 run.py pion-ipc $n 20
  python3 run.py aiortc-srv/pion-cli $n 20
  python3 run.py aiortc $n 20
  [ $n -le 50 ] && python3 run.py gst $n 20
  [ $n -le 50 ] && python3 run.py gst-srv/pion-cli $n 20
done
python3 run.py pion 200 20
python3 run.py pion-ipc 200 20
MUX=8800 python3 run.py pion 100 20
MUX=8800 python3 run.py pion-ipc 200 20
