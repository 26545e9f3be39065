"""argparse types for the bench's numeric options: a bad value is refused up front with a one-line error
naming the option (exit 2), not a traceback or a table of ``None`` minutes later."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def positive(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    """An argparse type: a number above 0 (a load of 0 sessions or -1 s ended in a traceback)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            wanted = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
        if not math.isfinite(value):
            # ``--minutes inf`` would run a bench that never ends and never prints.
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
        return value

    parse.__name__ = f"positive {kind.__name__}"  # argparse names the type in its fallback message
    return parse


def share(text: str) -> float:
    """An argparse type: a share from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return value


def level_list(text: str) -> list[int]:
    """An argparse type: comma-separated concurrency levels, each a whole number above 0, e.g. ``10,25,50``
    (``a,b`` ended in a ValueError traceback once the engine had started)."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers, got {text!r}")
    parse = positive(int)
    try:
        return [int(parse(part)) for part in parts]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated whole numbers above 0, got {text!r}"
        ) from None


def minute_list(text: str) -> list[float]:
    """An argparse type: comma-separated minutes, each a finite number above 0, e.g. ``35,4`` (the waves
    of a WebRTC soak)."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    parse = positive(float)
    try:
        if not parts:
            raise argparse.ArgumentTypeError(text)
        return [float(parse(part)) for part in parts]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected comma-separated minutes above 0, got {text!r}") from None


def choice_list(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    """An argparse type: comma-separated names, each one of ``choices``, none twice, e.g. ``pion,aiortc``."""

    def parse(text: str) -> list[str]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts or any(part not in choices for part in parts) or len(set(parts)) < len(parts):
            raise argparse.ArgumentTypeError(
                f"expected comma-separated names from {', '.join(choices)}, got {text!r}"
            )
        return parts

    parse.__name__ = "choice list"
    return parse
