"""``--only load``: the standard load profile against the engine and, in the same run, against the bare
aiohttp baseline; memory per idle and talking session; cache hit rates."""

from __future__ import annotations

import asyncio
from typing import Any

from mockengine.bench.context import BenchContext
from mockengine.bench.figures import cache_rates, cpu, fmt, healthz, mib, row, turn_rows
from mockengine.bench.sections import Section

# Sessions and seconds of the unmeasured warm-up before the load (first model calls, caches). They are
# real connections: against an engine with a fault profile they take its first connection ordinals, so
# the report says so (a load tester compared `faults schedule --count N` with the drops and found fewer).
WARM_UP_SESSIONS, WARM_UP_S = 4, 12.0
# The warm-up repeats (each round new seeds, the load's barge-in share, so every clip is heard) until a
# round adds no sentence to the speech cache, at most this many rounds. One round left ~5 % of the
# sentences unsynthesized, and their first synthesis (piper, ~0.3 s of CPU each, once per distinct
# sentence however long the load) fell in the measured window: a third of the engine's CPU in a 25-s
# run, which the per-session-second figure then charged to talking (docs/cpu.md, twelfth pass).
WARM_UP_ROUNDS_MAX = 4


def _cache_entries(health: dict[str, Any] | None, name: str) -> int | None:
    stats = (health or {}).get("caches", {}).get(name)
    return None if stats is None else int(stats.get("entries", 0))


def _cache_counts(health: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """Each cache's lookups so far from ``/healthz``: ``{"transcripts": {"hits": .., "misses": ..}, ..}``."""
    caches = (health or {}).get("caches", {})
    return {name: {k: int(stats.get(k, 0)) for k in ("hits", "misses")} for name, stats in caches.items()}


def window_lookups(before: dict[str, dict[str, int]], after: dict[str, dict[str, int]]) -> dict[str, Any]:
    """The caches' lookups in the measured window (``after - before``, by cache): a transcript miss is a
    whisper run, a speech miss a piper synthesis. The hit rates printed beside them count the warm-up too."""
    return {
        name: {k: counts[k] - before.get(name, {}).get(k, 0) for k in ("hits", "misses")}
        for name, counts in after.items()
    }


def bench_load(ctx: BenchContext) -> None:
    from mockengine.loadtest.capacity import idle_session_bytes, measured
    from mockengine.loadtest.driver import run_load
    from mockengine.loadtest.processes import start_server
    from mockengine.loadtest.profile import LoadProfile

    args = ctx.args
    profile = LoadProfile(args.profile, args.sessions, args.duration)
    engine = ctx.engine()

    async def run() -> dict[str, Any]:
        memory: dict[str, Any] = {}
        # Warm-up (not measured): first model calls allocate their working memory, caches fill.
        warm_up = LoadProfile("steady", WARM_UP_SESSIONS, WARM_UP_S)
        new_sentences: list[int | None] = []
        for warm_round in range(WARM_UP_ROUNDS_MAX):
            before = _cache_entries(await healthz(ctx.engine_url()), "speech")
            await run_load(
                ctx.engine_url(),
                warm_up,
                turn_every_s=3.0,
                barge_in=args.barge_in,
                seed=10_000 + warm_round,
                progress=False,
            )
            after = _cache_entries(await healthz(ctx.engine_url()), "speech")
            added = None if before is None or after is None else after - before
            new_sentences.append(added)
            if not added:  # none added (or no speech cache to read: one round, as before)
                break
        if engine is not None:
            memory = await idle_session_bytes(engine, args.sessions)
        counts_before = _cache_counts(await healthz(ctx.engine_url()))
        report, peak = await measured(
            engine,
            run_load(
                ctx.engine_url(),
                profile,
                turn_every_s=args.turn_every,
                barge_in=args.barge_in,
                seed=args.seed,
                progress=args.progress,
                label="mockengine ",
            ),
        )
        if peak is not None and memory.get("rss_before_bytes"):
            memory["talking_session_bytes"] = max(0, peak - memory["rss_before_bytes"]) // args.sessions
        health = await healthz(ctx.engine_url())
        baseline = await start_server([], baseline=True)
        try:
            base_report, _ = await measured(
                baseline,
                run_load(
                    baseline.url,
                    profile,
                    mode="baseline",
                    seed=args.seed,
                    progress=args.progress,
                    label="baseline   ",
                ),
            )
        finally:
            baseline.stop()
        return {
            "engine": report.summary(),
            "baseline": base_report.summary(),
            "memory": memory,
            "cache_hit_rates": cache_rates(health),
            "window_lookups": window_lookups(counts_before, _cache_counts(health)),
            "warm_up": {
                "sessions": WARM_UP_SESSIONS,
                "seconds": WARM_UP_S,
                "rounds": len(new_sentences),
                "new_sentences_per_round": new_sentences,
            },
        }

    result = asyncio.run(run())
    ctx.results["load"] = result
    print_load(result, args)


def print_load(result: dict[str, Any], args: Any) -> None:
    """The load section's report: ``result`` as ``bench_load`` stores it, ``args`` the bench options."""
    from mockengine.loadtest.driver import driver_late_caveat

    s, b, memory = result["engine"], result["baseline"], result["memory"]
    print(
        f"\nload: {args.sessions} sessions, {args.profile} profile, {args.duration:.0f} s, each streaming "
        f"in real time with a turn every ~{args.turn_every:.0f} s ({100 * args.barge_in:.0f} % barge-ins):"
    )
    warm_up = result["warm_up"]
    rounds = warm_up.get("rounds", 1)
    print(
        f"  (first a warm-up, not counted: {warm_up['sessions']} sessions for {warm_up['seconds']:.0f} s"
        + (
            f", {rounds} rounds until the speech cache took no new sentence "
            f"(new per round: {warm_up.get('new_sentences_per_round')})"
            if rounds > 1
            else ""
        )
        + "; their connections come first in the engine's fault schedule)"
    )
    turn_rows(s)
    print(
        f"  sessions {s['sessions_connected']}/{args.sessions} connected, refused {s['sessions_refused']}, "
        f"dropped {s['sessions_dropped']}; turns {s['turns']}, missed {s['turns_missed']}; lost events "
        f"{s['lost_events']}; errors {s['errors'] or 'none'}; driver late chunks "
        f"{100 * s['late_chunk_share']:.2f} %"
    )
    if caveat := driver_late_caveat(s["late_chunk_share"]):
        print(f"  {caveat}")
    rates = ", ".join(
        f"{k} {fmt(None if v is None else 100 * v, ' %')}" for k, v in result["cache_hit_rates"].items()
    )
    print(f"  cache hit rates (warm-up included): {rates or 'n/a'}")
    window = result.get("window_lookups") or {}
    if window:
        models = {"transcripts": "whisper runs", "speech": "piper syntheses"}
        counted = ", ".join(
            f"{name} {c['misses']} {models.get(name, 'misses')} of {c['hits'] + c['misses']} lookups"
            for name, c in window.items()
        )
        print(f"  in the measured window: {counted}")
    print(
        f"  memory: {mib(memory.get('idle_session_bytes'))} per idle session, "
        f"{mib(memory.get('talking_session_bytes'))} per talking session (engine RSS growth past the "
        "warm-up, whose heap a few sessions may reuse whole; `--only soak` follows memory per session-minute)"
    )
    print(f"  CPU: {cpu(s)}")
    row("bare aiohttp baseline: append → ack", b["ack_ms"], p99=True)
    print(f"  baseline sessions {b['sessions_connected']}/{args.sessions}, dropped {b['sessions_dropped']}")
    print(f"  baseline CPU: {cpu(b)}")
    if s.get("server_cpu_ms_per_session_s") and b.get("server_cpu_ms_per_session_s"):
        ratio = b["server_cpu_ms_per_session_s"] / s["server_cpu_ms_per_session_s"]
        print(
            f"  per streaming session the engine costs {1 / ratio:.1f} × the bare server's CPU at this load "
            "(a process's fixed costs weigh more at few sessions; `--only capacity` measures the limits)"
        )
    loop, base_loop = s.get("server_loop_cpu_ms_per_session_s"), b.get("server_loop_cpu_ms_per_session_s")
    one_process = "--workers" not in (getattr(args, "engine_args", None) or "")  # else: the parent's thread
    if loop is not None and base_loop and s.get("server_cpu_ms_per_session_s") and one_process:
        print(
            f"  of which the engine's event-loop thread {loop:.2f} ms per session-second "
            f"({loop / base_loop:.1f} × the bare server's), its other threads (the models' cache misses) "
            f"{s['server_cpu_ms_per_session_s'] - loop:.2f} ms"
        )
    roles = s.get("server_thread_cpu_ms_per_session_s")
    if roles and one_process:
        named = ", ".join(f"{role} {ms:.2f}" for role, ms in roles.items())
        print(f"  the engine's CPU by thread, ms per session-second: {named}")


SECTION = Section("load", bench_load)
