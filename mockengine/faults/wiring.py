"""Put the faults into an aiohttp application (state, middleware, SSE hook, control routes)."""

from __future__ import annotations

from collections.abc import Iterable

from aiohttp import web

from mockengine.brain.scenario import Scenario
from mockengine.faults.control import CONTROL_TOKEN, WORKERS, add_routes
from mockengine.faults.http import fault_middleware, truncate_event_streams
from mockengine.faults.spec import FaultProfile, load_profile, parse_faults, scenario_rule_faults
from mockengine.faults.state import FAULTS, fault_state
from mockengine.settings import Settings


def profile_from_settings(settings: Settings) -> FaultProfile:
    """``--faults FILE.yaml`` plus ``--fault SPEC`` (``;``-separated); raises FaultSpecError."""
    profile = load_profile(settings.faults_file) if settings.faults_file else FaultProfile()
    extra = tuple(parse_faults(settings.fault)) if settings.fault else ()
    return FaultProfile(profile.faults + extra, profile.seed)


def install(app: web.Application, settings: Settings, scenarios: Iterable[Scenario]) -> None:
    """Fault state, the HTTP middleware, the SSE truncation hook and the control routes; ``scenarios``:
    every loaded scenario, whose rules may fire faults."""
    app[FAULTS] = fault_state(profile_from_settings(settings), settings.seed)
    app[FAULTS].rule_faults = scenario_rule_faults(scenarios)
    if settings.control_token:
        app[CONTROL_TOKEN] = settings.control_token
    app[WORKERS] = settings.workers
    app.middlewares.append(fault_middleware)
    app.on_response_prepare.append(truncate_event_streams)
    add_routes(app)
