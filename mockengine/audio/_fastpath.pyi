# Types of the C module (_fastpath.c).

from collections.abc import Callable
from typing import Any

def vad_input(frame: bytes | bytearray | memoryview, min_sum_square: float, /) -> bytes | None: ...
def bare_append_audio(
    shapes: tuple[tuple[str, str], ...],
    max_chars: int,
    b64decode: Callable[[Any, None, bool], bytes],
    raw: str,
    /,
) -> bytes | None: ...
