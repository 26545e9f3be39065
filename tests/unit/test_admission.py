"""Saturation admission rules (loop lag, queued speech jobs) on a bare application, no sockets."""

from __future__ import annotations

import json
from types import SimpleNamespace

from aiohttp import web

from mockengine.server.admission import LOOP_LAG, PROBES_KEPT, LoopLagMonitor, saturation_refusal
from mockengine.server.state import RESOURCES
from mockengine.settings import Settings


def _app(*, lag_ms: list[float], queued: int, settings: Settings | None = None) -> web.Application:
    app = web.Application()
    executor = SimpleNamespace(queue_depth=queued)
    idle = SimpleNamespace(queue_depth=0)
    app[RESOURCES] = SimpleNamespace(  # type: ignore[assignment]
        settings=settings or Settings(), stt_executor=executor, tts_executor=idle
    )
    monitor = LoopLagMonitor()
    monitor.samples_ms.extend(lag_ms)
    app[LOOP_LAG] = monitor
    return app


def _body(response: web.Response) -> dict:
    assert response.text is not None
    return json.loads(response.text)


def test_a_calm_process_admits() -> None:
    assert saturation_refusal(_app(lag_ms=[1.0] * PROBES_KEPT, queued=0)) is None


def test_one_slow_callback_is_not_saturation_but_a_lagging_second_is() -> None:
    spike = [1.0] * (PROBES_KEPT - 1) + [900.0]
    assert saturation_refusal(_app(lag_ms=spike, queued=0)) is None
    refused = saturation_refusal(_app(lag_ms=[600.0] * PROBES_KEPT, queued=0))
    assert refused is not None and refused.status == 503 and refused.headers["Retry-After"]
    error = _body(refused)["error"]
    assert (error["type"], error["code"], error["param"]) == ("server_error", "server_overloaded", None)
    assert "event loop" in error["message"]


def test_queued_speech_jobs_refuse_past_the_bound_and_zero_turns_rules_off() -> None:
    refused = saturation_refusal(_app(lag_ms=[1.0] * PROBES_KEPT, queued=65))
    assert refused is not None and "65 speech jobs" in _body(refused)["error"]["message"]
    off = Settings(admission_max_queue=0, admission_max_loop_lag_ms=0)
    assert saturation_refusal(_app(lag_ms=[900.0] * PROBES_KEPT, queued=1000, settings=off)) is None
