"""A stop signal during start-up ends it cleanly, whatever the interrupted code made of the signal."""

from __future__ import annotations

import os
import signal

import pytest

from mockengine.server.loading import StoppedWhileLoading, stop_while_loading


def _signal_self(signum: int) -> None:
    os.kill(os.getpid(), signum)
    # the handler runs between bytecodes, at the latest here
    for _ in range(1000):
        pass


def test_a_stop_signal_raises_stopped_while_loading():
    with pytest.raises(StoppedWhileLoading) as raised, stop_while_loading((signal.SIGTERM,)):
        _signal_self(signal.SIGTERM)
    assert raised.value.signum == signal.SIGTERM


def test_a_stop_turned_into_an_import_error_is_still_a_stop():
    """CPython turns an exception raised while a C extension initialises (ctranslate2, imported by
    faster-whisper) into "ImportError: initialization failed"; a clean-clone CI run saw a worker die of
    that traceback instead of stopping cleanly."""

    def import_an_extension() -> None:
        try:
            _signal_self(signal.SIGTERM)
        except StoppedWhileLoading as stop:
            raise ImportError("initialization failed") from stop

    with pytest.raises(StoppedWhileLoading) as raised, stop_while_loading((signal.SIGTERM,)):
        import_an_extension()
    assert raised.value.signum == signal.SIGTERM
    assert isinstance(raised.value.__cause__, ImportError)


def test_a_stop_a_loader_turned_into_an_exit_is_still_a_stop():
    def load() -> None:
        try:
            _signal_self(signal.SIGTERM)
        except BaseException as error:
            raise SystemExit(2) from error

    with pytest.raises(StoppedWhileLoading), stop_while_loading((signal.SIGTERM,)):
        load()


def test_an_error_with_no_stop_signal_is_left_as_it_is():
    with pytest.raises(ImportError), stop_while_loading((signal.SIGTERM,)):
        raise ImportError("a real missing module")


def test_the_handlers_before_are_back_on_leaving():
    before = signal.getsignal(signal.SIGTERM)
    with stop_while_loading((signal.SIGTERM,)):
        assert signal.getsignal(signal.SIGTERM) is not before
    assert signal.getsignal(signal.SIGTERM) is before
