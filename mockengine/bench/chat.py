"""``mockengine bench --only chat``: Chat Completions throughput and latency on this machine (printed).

An engine (default settings) runs as its own process, so the load generator here does not share its
event loop; N clients each send non-streamed tool-call completions back to back for a fixed time: a
HyperStudy text-agent turn (system prompt, context items, a question on screen, ``send_chat`` / ``wait``
/ ``submit_response`` offered, ``tool_choice: "auto"``). Printed per level: requests (completions) per
second and the p50 / p95 latency from request sent to body read.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

from mockengine.bench.context import BenchContext
from mockengine.bench.sections import Section
from mockengine.brain.hrp import chat_tools

CONCURRENCY = (8, 64)
DURATION_S = 5.0
WARMUP_REQUESTS = 20


def turn_request(number: int) -> dict[str, Any]:
    """One text-agent turn that the brain answers with a ``submit_response`` call."""
    question = {
        "event": "question",
        "tool": "submit_response",
        "question": "Question: How warm was your partner?\nThis is a visual analog rating scale from 0 to "
        "100.\nRespond with a number between 0 and 100.",
        "duringVideo": False,
    }
    return {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "You are Sam, a participant in an online study."},
            {"role": "user", "content": '[context] {"event":"participants","others":[{"name":"Alex"}]}'},
            {"role": "user", "content": f'[context] {{"event":"timer","secondsLeft":{number % 60}}}'},
            {"role": "user", "content": "[context] " + json.dumps(question)},
        ],
        "tools": chat_tools(),  # send_chat, wait, submit_response (VAS 0-100), as HRP offers them
        "tool_choice": "auto",
    }


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _engine() -> Iterator[str]:
    port = _free_port()
    command = [sys.executable, "-m", "mockengine", "serve", "--port", str(port), "--log-level", "WARNING"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


async def _ready(http: Any, base: str, timeout_s: float = 120.0) -> None:
    import aiohttp

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(aiohttp.ClientError):
            async with http.get(f"{base}/healthz") as reply:
                if reply.status == 200:
                    return
        await asyncio.sleep(0.2)
    raise RuntimeError(f"engine at {base} did not become healthy in {timeout_s:.0f} s")


async def _level(http: Any, url: str, clients: int, duration_s: float) -> tuple[list[float], float, int]:
    """``clients`` loops sending completions until ``duration_s`` passed: latencies (ms), elapsed s,
    and how many replies were not a 200 with a tool call."""
    headers = {"Authorization": "Bearer sk-bench"}
    latencies: list[float] = []
    failures = 0
    deadline = time.perf_counter() + duration_s

    async def client(number: int) -> None:
        nonlocal failures
        count = 0
        while time.perf_counter() < deadline:
            body = turn_request(number * 1000 + count)
            count += 1
            sent = time.perf_counter()
            async with http.post(url, json=body, headers=headers) as reply:
                data = await reply.json()
            latencies.append((time.perf_counter() - sent) * 1000)
            if reply.status != 200 or not data["choices"][0]["message"].get("tool_calls"):
                failures += 1

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return latencies, time.perf_counter() - started, failures


async def _run(base: str, levels: tuple[int, ...], duration_s: float) -> list[str]:
    import aiohttp

    lines = []
    connector = aiohttp.TCPConnector(limit=max(levels))
    async with aiohttp.ClientSession(connector=connector) as http:
        await _ready(http, base)
        url = f"{base}/v1/chat/completions"
        for _ in range(WARMUP_REQUESTS):
            async with http.post(url, json=turn_request(0), headers={"Authorization": "Bearer x"}) as r:
                await r.read()
        for clients in levels:
            latencies, elapsed, failures = await _level(http, url, clients, duration_s)
            cuts = statistics.quantiles(latencies, n=100, method="inclusive")
            lines.append(
                f"  {clients:>3} clients: {len(latencies) / elapsed:7.0f} requests/s   "
                f"p50 {statistics.median(latencies):6.1f} ms   p95 {cuts[94]:6.1f} ms   "
                f"({len(latencies)} requests, {failures} without a tool call)"
            )
    return lines


def bench_chat(levels: tuple[int, ...] = CONCURRENCY, duration_s: float = DURATION_S) -> None:
    """Print completions/s and p50/p95 latency for non-streamed tool-call completions per level."""
    print(
        f"\nchat: non-streamed tool-call completions (HyperStudy question turn → submit_response), "
        f"{duration_s:.0f} s per level, engine in its own process:"
    )
    with _engine() as base:
        for line in asyncio.run(_run(base, levels, duration_s)):
            print(line)


def bench_chat_section(ctx: BenchContext) -> None:
    bench_chat()


SECTION = Section("chat", bench_chat_section)
