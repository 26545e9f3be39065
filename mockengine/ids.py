"""Id factories for every object the engine names.

The real service uses a prefix plus 21 base62 characters (``event_``, ``item_``, ``resp_``, ``sess_``,
``conv_``) and ``call_`` plus 16 (reference §11). With a seed the sequence is reproducible, which is what
makes a seeded session emit byte-identical event streams; without one ids are random like the real ones.
"""

from __future__ import annotations

import os
import random
import string

BASE62 = string.digits + string.ascii_letters
ID_LENGTH = 21
CALL_ID_LENGTH = 16


class IdFactory:
    """Makes wire ids. ``seed=None`` draws from the OS entropy source; an int or str seed is reproducible."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._seed = seed
        self._streams: dict[str, random.Random] = {}

    def _rng(self, kind: str) -> random.Random:
        """One stream per kind of id, so e.g. item ids do not shift when a timing changes how many
        events (each with an id) came before."""
        stream = self._streams.get(kind)
        if stream is None:
            # Unseeded: a generator seeded once from the OS entropy source (ids are names, not secrets;
            # SystemRandom read the OS source for every character, a visible cost at hundreds of sessions).
            seed = os.urandom(16) if self._seed is None else f"{self._seed}:{kind}"
            stream = random.Random(seed)
            self._streams[kind] = stream
        return stream

    def new(self, prefix: str, length: int = ID_LENGTH) -> str:
        rng = self._rng(prefix)
        if self._seed is None:
            return prefix + "".join(rng.choices(BASE62, k=length))
        return prefix + _seeded_chars(rng, length)

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
        rng = self._rng("obfuscation")
        return _seeded_chars(rng, rng.randint(8, 15))


def _seeded_chars(rng: random.Random, length: int) -> str:
    """``"".join(rng.choice(BASE62) for _ in range(length))``, the same characters from the same
    generator state, at a third of the cost (every server event has a seeded id; checked in
    tests/unit/test_audio_fast_path.py). ``choice`` draws ``getrandbits(6)`` until it is below 62."""
    draw = rng.getrandbits
    chars: list[str] = []
    while len(chars) < length:
        r = draw(6)
        if r < 62:
            chars.append(BASE62[r])
    return "".join(chars)
