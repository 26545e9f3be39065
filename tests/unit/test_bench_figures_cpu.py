"""The load section's CPU line: a run too short to measure any server CPU (the process clock ticks every
10 ms; a 1 s baseline of one session read 0 ms) printed a ZeroDivisionError instead of its figures."""

from mockengine.bench.figures import cpu


def test_a_run_that_measured_no_server_cpu_still_prints_its_line() -> None:
    figures = {"server_cpu_ms_per_session_s": 0.0, "server_cores": 0.0}
    figures |= {"driver_cpu_ms_per_session_s": 1.5, "driver_cores": 0.01}
    line = cpu(figures)
    assert line.startswith("server 0.00 ms per session-second") and "n/a (too little CPU measured)" in line


def test_a_measured_run_says_how_many_sessions_a_core_streams() -> None:
    figures = {"server_cpu_ms_per_session_s": 4.0, "server_cores": 0.2}
    figures |= {"driver_cpu_ms_per_session_s": 1.0, "driver_cores": 0.05}
    assert "→ ~250 streaming sessions per free core" in cpu(figures)
