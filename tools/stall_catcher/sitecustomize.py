"""Catch what holds the engine's event loop (docs/cpu.md, sixteenth pass): a ``sitecustomize`` for the
engine process only. Run a bench with it on the path and ``STALL_OUT`` set; the engine it starts (a
``serve`` with ``--media-plane``) then writes, every 30 s, to that JSON file per minute: the loop
iterations whose callbacks ran over 50 / 100 / 250 ms, the callbacks of those iterations (by coroutine
or function, ms), and stacks of the loop's thread sampled every 10 ms by a watcher thread while an
iteration had run over 50 ms (collapsed, from the callback down).

Usage: ``STALL_OUT=/tmp/stalls.json PYTHONPATH=tools/stall_catcher:$PWD .venv/bin/python -m mockengine
bench --only webrtc …``. It costs two clock reads per callback and a 10 ms poll; not for figures.
"""

import os
import sys

if os.environ.get("STALL_OUT") and "serve" in sys.argv and "--media-plane" in sys.argv:
    import asyncio
    import asyncio.base_events as be
    import collections
    import json
    import threading
    import time

    out = os.environ["STALL_OUT"]
    state = {"start": None, "iter": 0}
    samples = collections.Counter()  # (minute, stack) -> n samples while an iteration ran > 50 ms
    iters = collections.Counter()  # (minute, bucket)
    cbs = collections.Counter()  # (minute, callback name) -> ms in slow iterations
    t0 = time.monotonic()
    orig_run_once = be.BaseEventLoop._run_once
    main_ident = threading.main_thread().ident
    cur = {"names": None}

    def name_of(h):
        cb = getattr(h, "_callback", None)
        s = getattr(cb, "__self__", None)
        if isinstance(s, asyncio.Task):
            c = s.get_coro()
            return getattr(c, "__qualname__", repr(c))
        return getattr(cb, "__qualname__", repr(cb))[:80]

    orig_handle_run = asyncio.events.Handle._run

    def handle_run(self):
        names = cur["names"]
        if names is None:
            return orig_handle_run(self)
        a = time.perf_counter()
        if state["start"] is None:
            state["start"] = a
        try:
            return orig_handle_run(self)
        finally:
            d = time.perf_counter() - a
            names.append((d, self))

    asyncio.events.Handle._run = handle_run

    def run_once(self):
        if threading.get_ident() != main_ident:
            return orig_run_once(self)
        cur["names"] = []
        state["start"] = None
        state["iter"] += 1
        try:
            return orig_run_once(self)
        finally:
            b = time.perf_counter()
            a = state["start"]
            state["start"] = None
            d = (b - a) if a is not None else 0.0
            m = int((time.monotonic() - t0) // 60)
            if d > 0.05:
                iters[(m, ">50" if d < 0.1 else ">100" if d < 0.25 else ">250")] += 1
                names = cur["names"]
                agg = collections.Counter()
                for dd, h in names:
                    agg[name_of(h)] += dd
                for k, v in agg.items():
                    cbs[(m, k)] += v * 1000
                cbs[(m, "#callbacks")] += len(names)
            cur["names"] = None

    be.BaseEventLoop._run_once = run_once

    def watch():
        last = time.monotonic()
        while True:
            time.sleep(0.01)
            s = state["start"]
            if s is not None and time.perf_counter() - s > 0.05:
                f = sys._current_frames().get(main_ident)
                st = []
                while f is not None:
                    co = f.f_code
                    st.append(f"{getattr(co, 'co_qualname', co.co_name)}:{os.path.basename(co.co_filename)}")
                    f = f.f_back
                st.reverse()
                # keep from the Handle._run frame on
                try:
                    i = max(
                        i
                        for i, x in enumerate(st)
                        if x.startswith("Handle._run") or x.startswith("handle_run")
                    )
                    st = st[i + 1 :]
                except ValueError:
                    pass
                m = int((time.monotonic() - t0) // 60)
                samples[(m, ";".join(st[-25:]))] += 1
            if time.monotonic() - last > 30:
                last = time.monotonic()
                with open(out, "w") as fh:
                    json.dump(
                        {
                            "iters": [[*k, v] for k, v in iters.items()],
                            "cbs": [[*k, v] for k, v in cbs.items()],
                            "samples": [[*k, v] for k, v in samples.items()],
                        },
                        fh,
                    )

    threading.Thread(target=watch, name="stallwatch", daemon=True).start()
