"""A soak of WebRTC calls: talking calls held for minutes, in waves, the engine's memory sampled.

Each wave opens ``calls`` calls (aiortc clients, as :mod:`mockengine.bench.webrtc_load`'s drivers: the
conformance ``question`` clip spoken in a loop on the microphone track, the reply track received but not
decoded), lets them talk for the wave's minutes, then ends them: half hung up with ``POST
/v1/realtime/calls/{call_id}/hangup``, half by the client closing its peer connection. Between waves
the sampler waits for ``sessions_active`` 0 and the engine's reclaimer, then reads the after-wave RSS.
Before the first wave, a short warm-up call runs the models once and the idle RSS is read.

Run by ``mockengine bench --only soak --soak-transport webrtc --sessions N --soak-waves 35,4`` (N talking
calls a wave; ``--minutes M`` alone is one wave of M minutes). Every ``sample_s`` it records the engine's
RSS (``/proc``, process and children) and ``sessions_active`` (``/healthz``).
:func:`growth_per_call_minute` fits RSS against time from ``skip_minutes`` into a wave to its end: flat
memory gives ~0.
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from mockengine.loadtest.plot import agg_pyplot, save_panels
from mockengine.loadtest.processes import Child

RECLAIM_WAIT_S = 12.0  # after sessions_active 0: the reclaimer's interval (5 s) and its trim
GONE_TIMEOUT_S = 120.0


@dataclass
class RtcSample:
    at_s: float
    wave: int
    calls: int  # calls this driver holds open
    sessions_active: int | None
    rss_bytes: int | None


@dataclass
class Wave:
    number: int
    calls: int
    minutes: float
    opened: int = 0
    turns: int = 0
    start_s: float = 0.0
    end_s: float = 0.0
    after_rss_bytes: int | None = None
    sessions_active_after: int | None = None
    hung_up: int = 0  # ended by POST …/hangup (the others by the client's close)


@dataclass
class RtcSoakRun:
    idle_rss_bytes: int | None = None
    waves: list[Wave] = field(default_factory=list)
    samples: list[RtcSample] = field(default_factory=list)


async def _healthz(http: aiohttp.ClientSession, http_url: str) -> dict[str, Any]:
    try:
        async with http.get(http_url + "/healthz", timeout=aiohttp.ClientTimeout(total=10)) as reply:
            body: dict[str, Any] = await reply.json()
            return body
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return {}


async def _open_call(http_url: str, ws_url: str) -> tuple[Any, str]:
    """A talking client's call and its id (from the answer's ``Location``)."""
    from aiortc import RTCSessionDescription

    from mockengine.bench.webrtc_talk import KEEP_EVENTS
    from mockengine.conformance.webrtc import WebRtcConnection, calls_url
    from mockengine.rtc.ice import include_loopback

    conn = WebRtcConnection(listen=False, keep_events=KEEP_EVENTS)
    include_loopback(conn.pc)
    await conn.pc.setLocalDescription(await conn.pc.createOffer())
    headers = {"Content-Type": "application/sdp", "Authorization": "Bearer sk-soak"}
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http,
        http.post(calls_url(ws_url), data=conn.pc.localDescription.sdp, headers=headers) as reply,
    ):
        body = await reply.text()
        location = reply.headers.get("Location", "")
    if reply.status != 201:
        await conn.close()
        raise RuntimeError(f"call refused: {reply.status} {body[:200]}")
    await conn.pc.setRemoteDescription(RTCSessionDescription(sdp=body, type="answer"))
    await asyncio.wait_for(conn._opened.wait(), 60)
    await conn.wait_for("session.created", since_ms=0, timeout_ms=60_000)
    return conn, location.rsplit("/", 1)[-1]


async def _talk(conn: Any, until_s: float, wave: Wave) -> None:
    """Speak the clip and a second of silence in a loop until ``until_s`` (loop time)."""
    from mockengine.bench.webrtc_talk import question_clip, speak

    clip = question_clip()
    loop = asyncio.get_running_loop()
    while loop.time() < until_s and not conn.is_closed:
        await speak(conn, clip.pcm + bytes(48 * 1000), loop)
        wave.turns += 1


async def _end(http: aiohttp.ClientSession, http_url: str, conn: Any, call_id: str, hang_up: bool) -> bool:
    if hang_up:
        headers = {"Authorization": "Bearer sk-soak"}
        async with http.post(f"{http_url}/v1/realtime/calls/{call_id}/hangup", headers=headers) as reply:
            await reply.read()
        await asyncio.sleep(0.5)
    await conn.close()
    return hang_up


async def _wait_idle(http: aiohttp.ClientSession, http_url: str) -> int | None:
    """Wait for ``sessions_active`` 0 (or the timeout); the last figure read."""
    deadline = time.monotonic() + GONE_TIMEOUT_S
    active = None
    while time.monotonic() < deadline:
        active = (await _healthz(http, http_url)).get("sessions_active")
        if active == 0:
            return 0
        await asyncio.sleep(1.0)
    return active


async def _sampler(
    run: RtcSoakRun,
    engine: Child,
    http_url: str,
    t0: float,
    holding: list[int],
    every_s: float,
    verbose: bool = False,
) -> None:
    async with aiohttp.ClientSession() as http:
        while True:
            body = await _healthz(http, http_url)
            run.samples.append(
                RtcSample(
                    at_s=round(time.monotonic() - t0, 1),
                    wave=len(run.waves),
                    calls=holding[0],
                    sessions_active=body.get("sessions_active"),
                    rss_bytes=engine.rss_bytes(),
                )
            )
            if verbose:
                last = run.samples[-1]
                rss_mib = (last.rss_bytes or 0) / 2**20
                print(
                    f"{last.at_s:8.1f} s  wave {last.wave}  calls {last.calls}  active "
                    f"{last.sessions_active}  rss {rss_mib:.1f} MiB",
                    file=sys.stderr,
                    flush=True,
                )
            await asyncio.sleep(every_s)


async def run_rtc_soak(
    engine: Child,
    *,
    calls: int,
    wave_minutes: list[float],
    sample_s: float = 10.0,
    warm_up_s: float = 20.0,
    verbose: bool = False,
) -> RtcSoakRun:
    """Waves of ``calls`` talking calls against ``engine``, one wave per entry of ``wave_minutes``."""
    run = RtcSoakRun()
    http_url, ws_url = engine.http_url, engine.url
    loop = asyncio.get_running_loop()
    async with aiohttp.ClientSession() as http:
        if warm_up_s > 0:  # the models' first runs and the caches are not a call's cost
            conn, call_id = await _open_call(http_url, ws_url)
            await _talk(conn, loop.time() + warm_up_s, Wave(0, 1, 0))
            await _end(http, http_url, conn, call_id, True)
            await _wait_idle(http, http_url)
            await asyncio.sleep(RECLAIM_WAIT_S)
        run.idle_rss_bytes = engine.rss_bytes()
        t0 = time.monotonic()
        holding = [0]
        sampler = asyncio.create_task(_sampler(run, engine, http_url, t0, holding, sample_s, verbose))
        try:
            for number, minutes in enumerate(wave_minutes, 1):
                wave = Wave(number, calls, minutes, start_s=time.monotonic() - t0)
                run.waves.append(wave)
                opened = await asyncio.gather(
                    *[_open_call(http_url, ws_url) for _ in range(calls)], return_exceptions=True
                )
                live = [c for c in opened if not isinstance(c, BaseException)]
                wave.opened = holding[0] = len(live)
                until_s = loop.time() + minutes * 60
                await asyncio.gather(*[_talk(conn, until_s, wave) for conn, _ in live])
                ended = await asyncio.gather(
                    *[_end(http, http_url, conn, cid, i % 2 == 0) for i, (conn, cid) in enumerate(live)],
                    return_exceptions=True,
                )
                wave.hung_up = sum(1 for e in ended if e is True)
                holding[0] = 0
                wave.end_s = time.monotonic() - t0
                wave.sessions_active_after = await _wait_idle(http, http_url)
                await asyncio.sleep(RECLAIM_WAIT_S)
                wave.after_rss_bytes = engine.rss_bytes()
        finally:
            sampler.cancel()
            await asyncio.gather(sampler, return_exceptions=True)
    return run


def growth_per_call_minute(run: RtcSoakRun, wave: Wave, skip_minutes: float = 2.0) -> float | None:
    """RSS slope (MiB per call-minute) over ``wave`` from ``skip_minutes`` after its start to its end."""
    points = [
        (s.at_s / 60, s.rss_bytes / 2**20)
        for s in run.samples
        if s.wave == wave.number
        and s.rss_bytes is not None
        and s.calls == wave.opened
        and s.at_s >= wave.start_s + skip_minutes * 60
    ]
    if len(points) < 3 or not wave.opened:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    var = sum((x - mean_x) ** 2 for x, _ in points)
    if var == 0:
        return None
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / var
    return slope / wave.opened


def summary(run: RtcSoakRun) -> dict[str, Any]:
    mib = 2**20
    return {
        "idle_rss_mib": None if run.idle_rss_bytes is None else round(run.idle_rss_bytes / mib, 1),
        "waves": [
            {
                "wave": w.number,
                "calls": w.opened,
                "minutes": w.minutes,
                "turns": w.turns,
                "hung_up": w.hung_up,
                "peak_rss_mib": round(
                    max((s.rss_bytes or 0) for s in run.samples if s.wave == w.number) / mib, 1
                )
                if any(s.wave == w.number for s in run.samples)
                else None,
                "growth_mib_per_call_minute": growth_per_call_minute(run, w),
                "sessions_active_after": w.sessions_active_after,
                "after_rss_mib": None if w.after_rss_bytes is None else round(w.after_rss_bytes / mib, 1),
            }
            for w in run.waves
        ],
    }


def print_summary(result: dict[str, Any]) -> None:
    """The summary as the bench prints it: one line a wave, then the verdict on memory given back."""
    idle = result["idle_rss_mib"]
    print(f"\n== soak (WebRTC calls) ==\n  idle engine RSS {idle} MiB")
    for w in result["waves"]:
        growth = w["growth_mib_per_call_minute"]
        after = w["after_rss_mib"]
        fitted = "growth not fitted (a wave under 3 min)"
        if growth is not None:
            fitted = f"growth {growth:.3f} MiB per call-minute"
        share = f" ({100 * (after - idle) / idle:+.1f} % of idle)" if after is not None and idle else ""
        print(
            f"  wave {w['wave']}: {w['calls']} calls × {w['minutes']:g} min, {w['turns']} turns, "
            f"{w['hung_up']} hung up by URL; peak {w['peak_rss_mib']} MiB, "
            f"{fitted}; after: "
            f"sessions_active {w['sessions_active_after']}, RSS {after} MiB{share}"
        )


def plot_rtc_soak(run: RtcSoakRun, path: Path) -> Path | None:
    """RSS and calls held against time, a line at the idle RSS; None if matplotlib is missing."""
    plt = agg_pyplot()
    if plt is None:
        return None
    minutes = [s.at_s / 60 for s in run.samples]
    fig, axes = plt.subplots(2, 1, figsize=(10, 6), dpi=100, sharex=True)
    axes[0].plot(minutes, [(s.rss_bytes or 0) / 2**20 for s in run.samples], "-", label="engine RSS (MiB)")
    if run.idle_rss_bytes:
        axes[0].axhline(run.idle_rss_bytes / 2**20, linestyle="--", color="grey", label="idle engine")
    axes[1].step(minutes, [s.calls for s in run.samples], where="post", label="calls held")
    axes[1].set_xlabel("minute")
    title = f"WebRTC soak: {len(run.waves)} wave(s) of {run.waves[0].calls if run.waves else 0} calls"
    return save_panels(plt, fig, axes, title, path)
