"""What a stopping server closes: every live session loop, and one whose handshake ends during the stop."""

from mockengine.server.state import LiveLoops


class Loop:
    def __init__(self) -> None:
        self.closed_with: tuple[int, str] | None = None

    def shutdown(self, code: int, reason: str) -> None:
        self.closed_with = (code, reason)


def test_close_all_closes_the_live_loops_and_any_added_later() -> None:
    live = LiveLoops()
    first, second = Loop(), Loop()
    live.add(first)
    live.add(second)
    assert first.closed_with is None
    assert live.close_all(1001, "server shutting down") == 2
    assert first.closed_with == second.closed_with == (1001, "server shutting down")
    late = Loop()
    live.add(late)  # its handshake was under way when the stop began
    assert late.closed_with == (1001, "server shutting down")


def test_loops_are_held_weakly() -> None:
    live = LiveLoops()
    live.add(Loop())  # gone as soon as nothing else holds it
    assert live.close_all(1001, "x") == 0
