"""Id factories for every object the engine names.

The real service uses a prefix plus 21 base62 characters (``event_``, ``item_``, ``resp_``, ``sess_``,
``conv_``) and ``call_`` plus 16 (reference §11). With a seed the sequence is reproducible, which is what
makes a seeded session emit byte-identical event streams; without one ids are random like the real ones.
"""

from __future__ import annotations

import random
import string

BASE62 = string.digits + string.ascii_letters
ID_LENGTH = 21
CALL_ID_LENGTH = 16


class IdFactory:
    """Makes wire ids. ``seed=None`` draws from the OS entropy source; an int or str seed is reproducible."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._rng: random.Random = random.SystemRandom() if seed is None else random.Random(str(seed))

    def new(self, prefix: str, length: int = ID_LENGTH) -> str:
        return prefix + "".join(self._rng.choice(BASE62) for _ in range(length))

    def event(self) -> str:
        return self.new("event_")

    def item(self) -> str:
        return self.new("item_")

    def response(self) -> str:
        return self.new("resp_")

    def session(self) -> str:
        return self.new("sess_")

    def conversation(self) -> str:
        return self.new("conv_")

    def call(self) -> str:
        return self.new("call_", CALL_ID_LENGTH)

    def obfuscation(self) -> str:
        """The random padding the live service adds to text deltas (8–15 chars, reference §2)."""
        return "".join(self._rng.choice(BASE62) for _ in range(self._rng.randint(8, 15)))
