"""Id factories for every object the engine names.

The real service uses a prefix plus 21 base62 characters (``event_``, ``item_``, ``resp_``, ``sess_``,
``conv_``) and ``call_`` plus 16 (reference §11); a WebRTC call is ``rtc_u1_`` plus 32 hex digits, as
the live service's sideband docs show one: ``rtc_u1_9c6574da8b8a41a18da9308f4ad974ce``. With a seed the
sequence is reproducible, which is what makes a seeded session emit byte-identical event streams;
without one ids are random like the real ones.
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
        self._taken: set[str] = set()
        # Per kind of id: base62 characters drawn ahead from its stream, and how many are used.
        self._pools: dict[str, tuple[str, int]] = {}
        self._lengths = b""  # unseeded obfuscation lengths, drawn ahead (one byte each)

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
        while (made := prefix + self._chars(prefix, length)) in self._taken:
            pass
        return made

    def _chars(self, kind: str, length: int) -> str:
        """The next ``length`` characters of ``kind``'s stream: those ``_seeded_chars`` would give, call
        after call (a stream's accepted characters are the same however many outputs are drawn at a
        time, and nothing else draws from an id kind's stream), drawn ahead ``_POOL_OUTPUTS`` outputs at
        a time: one ``randbytes`` and ``translate`` per ~11 event ids instead of one per id."""
        chars, used = self._pools.get(kind, ("", 0))
        if used + length > len(chars):
            rng, chars, used = self._rng(kind), chars[used:], 0
            while len(chars) < length:
                chars += _base62_run(rng, _POOL_OUTPUTS)
        self._pools[kind] = (chars, used + length)
        return chars[used : used + length]

    def take(self, chosen_id: str) -> None:
        """Note an id a client chose (an item's ``id``, a function call's ``call_id``): this factory never
        makes it. Seeded sessions make the same ids, so a client that replays one session's items into
        the next (LiveKit after a reconnect) would otherwise get a reply whose id one of them holds.
        Unseeded ids are random, as the live service's, and never meet a client's: nothing is kept then,
        so a long session's memory does not grow with the ids its client chose."""
        if self._seed is not None:
            self._taken.add(chosen_id)

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

    def rtc_call(self) -> str:
        """A WebRTC call's id (``Location: /v1/realtime/calls/{id}``): ``rtc_u1_`` + 32 hex digits, from a
        stream of its own, so it never equals a function call's ``call_…`` id."""
        return f"rtc_u1_{self._rng('rtc_').getrandbits(128):032x}"

    def obfuscation(self) -> str:
        """The random padding the live service adds to text deltas (8–15 chars, reference §2). Seeded,
        its length and characters come from one stream, as they always did (so its strings stay those of
        earlier versions); unseeded, the length is one of 8 bytes drawn ahead, the characters pooled."""
        if self._seed is not None:
            rng = self._rng("obfuscation")
            return _seeded_chars(rng, rng.randint(8, 15))
        lengths = self._lengths
        if not lengths:
            lengths = self._rng("obfuscation-length").randbytes(_POOL_OUTPUTS)
        self._lengths = lengths[1:]
        return self._chars("obfuscation", 8 + (lengths[0] & 7))


def _seeded_chars(rng: random.Random, length: int) -> str:
    """``"".join(rng.choice(BASE62) for _ in range(length))``: the same characters from the same
    generator state (checked in tests/unit/test_audio_fast_path.py), uniform over base62, at about a
    quarter of the cost; unseeded ids take it too (``rng.choices`` cost 5 µs an id). Every server event
    has an id and every text delta an obfuscation string, so this runs several times per reply tick.

    ``choice`` draws ``getrandbits(6)`` until it is below 62, and ``getrandbits(6)`` is the top 6 bits of
    one 32-bit Mersenne Twister output. ``randbytes(4 * n)`` is n such outputs, little-endian, so every
    fourth byte from the fourth is an output's top byte: ``translate`` maps it to its character and
    deletes the rejected ones (top 6 bits 62 or 63). Drawing only as many outputs as characters are still
    missing consumes exactly the outputs ``choice``'s loop would, so later ids do not shift.
    """
    chars = b""
    while len(chars) < length:
        outputs = rng.randbytes(4 * (length - len(chars)))
        chars += outputs[3::4].translate(_TOP_BYTE_TO_BASE62, _TOP_BYTES_REJECTED)
    return chars.decode("ascii")


def _base62_run(rng: random.Random, outputs: int) -> str:
    """The base62 characters ``outputs`` draws of ``rng`` give (see :func:`_seeded_chars`)."""
    return (
        rng.randbytes(4 * outputs)[3::4].translate(_TOP_BYTE_TO_BASE62, _TOP_BYTES_REJECTED).decode("ascii")
    )


# Outputs drawn per refill of an id kind's pool: ~248 characters (about 11 event ids), a few hundred
# bytes per kind per session.
_POOL_OUTPUTS = 256
_TOP_BYTE_TO_BASE62 = bytes(ord(BASE62[top >> 2]) if top < 248 else 0 for top in range(256))
_TOP_BYTES_REJECTED = bytes(range(248, 256))
