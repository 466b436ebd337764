"""The game's random generator: a documented, language-independent, counter-mode HMAC-SHA256 stream.

Every random outcome of a game is derived from its 32-byte secret seed and a *label* naming the purpose
(``"setup/deck"``, ``"round/3/rob/2"``, ...), so an auditor holding the seed (revealed when the game ends)
re-derives each outcome on its own, in any language (RULES.md R8.1):

* ``block_i = HMAC-SHA256(key=seed, msg=utf8(label) || 0x00 || uint64_be(i))`` for ``i = 0, 1, 2, ...``;
  the label's stream is ``block_0 || block_1 || ...`` (unbounded).
* ``below(n)`` (a uniform integer in ``[0, n)``, ``n >= 1``): take the next 8 bytes of the stream as a
  big-endian unsigned 64-bit integer ``x``; with ``limit = 2**64 - (2**64 mod n)``, return ``x mod n`` if
  ``x < limit``, else discard ``x`` and repeat. Each call consumes 8 bytes per attempt, ``n = 1`` included.
* ``shuffle(items)``: Fisher-Yates from the end: ``for i = len-1 down to 1: j = below(i + 1); swap(i, j)``.
* ``salt(seed, label)``: the first 16 bytes of the label's stream.

Nothing here touches Python's global ``random``; the module is pure.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any, TypeVar

T = TypeVar("T")

_TWO_64 = 1 << 64


def block(seed: bytes, label: str, index: int) -> bytes:
    """The ``index``-th 32-byte block of ``label``'s stream."""
    return hmac.digest(seed, label.encode("utf-8") + b"\x00" + index.to_bytes(8, "big"), "sha256")


class Stream:
    """An unbounded byte stream for one label, read sequentially."""

    __slots__ = ("_buffer", "_index", "_label", "_pos", "_seed")

    def __init__(self, seed: bytes, label: str) -> None:
        self._seed = seed
        self._label = label
        self._index = 0
        self._buffer = b""
        self._pos = 0

    def read(self, count: int) -> bytes:
        """The next ``count`` bytes of the stream."""
        out = b""
        while count > 0:
            if self._pos >= len(self._buffer):
                self._buffer = block(self._seed, self._label, self._index)
                self._index += 1
                self._pos = 0
            take = min(count, len(self._buffer) - self._pos)
            out += self._buffer[self._pos : self._pos + take]
            self._pos += take
            count -= take
        return out

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` by rejection sampling over 8-byte big-endian chunks."""
        if n < 1:
            raise ValueError("below(n) needs n >= 1")
        limit = _TWO_64 - (_TWO_64 % n)
        while True:
            x = int.from_bytes(self.read(8), "big")
            if x < limit:
                return x % n

    def shuffle(self, items: list[T]) -> list[T]:
        """Fisher-Yates in place, from the last index down to 1; returns ``items``."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def salt(seed: bytes, label: str) -> bytes:
    """A 16-byte salt for a commitment: the first 16 bytes of ``label``'s stream."""
    return block(seed, label, 0)[:16]


def canonical_ascii_json(value: Any) -> bytes:
    """Canonical JSON bytes of a commitment: sorted keys, no spaces, ASCII only (non-ASCII escaped). Not the
    form the record's hashes are taken over (``games.audit.public.canonical_json``: UTF-8 as is); both are
    fixed by docs/AUDIT.md, so neither may change."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def commitment(salt_bytes: bytes, choice: Any) -> str:
    """Hex ``SHA-256(salt || canonical_ascii_json(choice))``: publishes a face-down choice without showing
    it."""
    return hashlib.sha256(salt_bytes + canonical_ascii_json(choice)).hexdigest()


def seed_commitment(seed: bytes) -> str:
    """Hex ``SHA-256(seed)`` (RULES.md R8.2)."""
    return hashlib.sha256(seed).hexdigest()
