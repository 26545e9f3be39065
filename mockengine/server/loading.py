"""A stop signal while ``serve`` starts: between its checks and the moment it listens (imports, the
models, the scenarios: seconds), SIGTERM or SIGINT ends the start-up cleanly, with one log line and
status 0, as a stop once serving does (``lifecycle.serve_until_stopped`` takes the signals over then).

SIGTERM killed the process there (status 143, nothing logged), so an orchestrator stopping a pod that was
still starting recorded a failure; Ctrl-C printed a KeyboardInterrupt traceback. Light on purpose
(no aiohttp): it is installed before the heavy imports, which are part of the start-up.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Iterator

log = logging.getLogger("mockengine")
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class StoppedWhileLoading(BaseException):
    """A stop signal came while the server was starting, ``elapsed_s`` into it. A BaseException, as
    KeyboardInterrupt: a loader's ``except Exception`` fallback must not take it for a failed load."""

    def __init__(self, signum: int, elapsed_s: float) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.elapsed_s = elapsed_s


@contextlib.contextmanager
def stop_while_loading(signals: tuple[signal.Signals, ...] = STOP_SIGNALS) -> Iterator[None]:
    """Inside, each of ``signals`` raises :class:`StoppedWhileLoading` in the main thread, where the
    start-up runs (a long C call, a model's load, finishes first), until ``serve_until_stopped`` takes
    the signals over; on leaving, the handlers before are back (``serve`` also runs inside a test's
    process). Any exception leaving after a stop signal came leaves as :class:`StoppedWhileLoading`,
    whatever the code the signal interrupted made of it. Off the main thread, where Python cannot take
    signals, it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    started = time.monotonic()
    stops: list[StoppedWhileLoading] = []

    def stop(signum: int, _frame: object) -> None:
        stops.append(StoppedWhileLoading(signum, time.monotonic() - started))
        raise stops[-1]

    previous = {signum: signal.signal(signum, stop) for signum in signals}
    try:
        yield
    except StoppedWhileLoading:
        raise
    except BaseException as error:
        # The handler's exception can come out as another: raised while a C extension initialises
        # (ctranslate2 under faster-whisper's import), CPython turns it into "ImportError:
        # initialization failed", and a loader may wrap it in its own error or exit; the stop was
        # still asked for, so it is still a clean stop (a clean-clone CI run saw a worker die so).
        if stops:
            raise StoppedWhileLoading(stops[0].signum, stops[0].elapsed_s) from error
        raise
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def stopped_while_loading(stopped: StoppedWhileLoading) -> int:
    """Log the stop and return the exit status: 0, a stop asked for and made."""
    log.warning(
        "%s while loading (%.1f s into start-up): stopped before serving, nothing was listening",
        signal.Signals(stopped.signum).name,
        stopped.elapsed_s,
    )
    return 0
