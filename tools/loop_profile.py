"""Shares of the engine's event-loop thread by part, from a py-spy raw profile (docs/cpu.md).

Usage: ``.venv/bin/python tools/loop_profile.py engine.raw [--top 6]`` on the output of
``py-spy record -p PID --native --threads --format raw -o engine.raw`` taken while ``serve`` is under load.
Each sample of the main thread (the event loop; ``--threads`` names it) goes to the first part below
whose frame is on its stack, so a paced reply's ``tick`` inside a timer counts as reply pacing, the
session's audio path inside ``on_client_text`` as the audio path, and so on; ``--top`` lists the Python
functions each part's samples were in. Also printed: the share of samples inside the C library's
allocator (``malloc``, ``free``, ``realloc``, ``calloc``), whichever part called it.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from pathlib import Path

PARTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("reply pacing: the session's tick (audio and transcript deltas, ids)", ("RealtimeSession.tick",)),
    ("reply pacing: apply (JSON of server events, outbox, timer)", ("SessionLoop.apply",)),
    ("writer: faults, metrics, journal, socket writes", ("SessionLoop.writer",)),
    ("session audio path (buffer, VAD, turn detection)", ("RealtimeSession.receive_audio",)),
    ("other client events", ("SessionLoop.receive ",)),
    ("parse of appends (orjson, base64)", ("parse_plain_append", "parse_client_event")),
    ("on_client_text's own work (counts, clock, checks)", ("SessionLoop.on_client_text",)),
    ("aiohttp: frame reading and dispatch", ("RequestHandler.data_received", "feed_data")),
    ("socket reads", ("_read_ready",)),
    ("model lanes on the loop (cache lookups)", ("stt_worker", "tts_worker")),
)
ALLOCATOR = ("malloc", "free", "realloc", "calloc")


def main_thread_stacks(path: Path) -> list[tuple[list[str], int]]:
    """(frames root first, samples) of the main thread's stacks in a ``--threads`` raw profile."""
    stacks = []
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if "MainThread" in frames[0]:
            stacks.append((frames[1:], int(count)))
    return stacks


def part_of(frames: list[str]) -> str:
    joined = ";".join(frames)
    found = (name for name, keys in PARTS if any(key in joined for key in keys))
    return next(found, "event loop and the rest")


def function_name(frames: list[str]) -> str:
    python = [frame for frame in frames if ".py:" in frame]
    return re.sub(r" \(.*\)$", "", python[-1] if python else frames[-1])


def report(stacks: list[tuple[list[str], int]], top: int) -> None:
    total = sum(count for _, count in stacks)
    parts: Counter[str] = Counter()
    functions: defaultdict[str, Counter[str]] = defaultdict(Counter)
    in_allocator = 0
    for frames, count in stacks:
        part = part_of(frames)
        parts[part] += count
        functions[part][function_name(frames)] += count
        if any(frame.split(" (")[0] in ALLOCATOR and "libc" in frame for frame in frames):
            in_allocator += count
    print(f"event-loop thread: {total} samples")
    for part, count in parts.most_common():
        print(f"{100 * count / total:5.1f} %  {part}")
        for name, n in functions[part].most_common(top):
            print(f"           {100 * n / total:4.1f} %  {name}")
    print(f"{100 * in_allocator / total:5.1f} %  of them inside the C library's allocator")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path, help="py-spy record --native --threads --format raw output")
    parser.add_argument("--top", type=int, default=0, help="functions listed per part")
    args = parser.parse_args()
    report(main_thread_stacks(args.profile), args.top)


if __name__ == "__main__":
    main()
