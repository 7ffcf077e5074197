"""Salted commitments (COLOSSEUM-COMMIT-1): publish a hash now, reveal what it binds later.

An arena that must fix something before others see it (a task an author wrote, before anyone solves
it) publishes its commitment first and reveals the value and the salt after the event closes;
anyone can then check the reveal against the commitment. The commitment is

    SHA-256( domain ‖ 0x00 ‖ salt ‖ canonical JSON of the value )

- ``domain`` is a tag naming what is committed (``colosseum/task``), so a commitment made for one
  purpose can never be passed off as one made for another; it is ASCII and holds no NUL, so the
  separator is unambiguous.
- ``salt`` is 32 bytes drawn by the committer (a secret until the reveal): without it, a small value
  space (a multiple-choice answer) could be searched from the hash alone.
- The value is encoded as RFC 8785 canonical JSON (``record.identifiers.canonical_json``), the same
  encoding every row identifier uses, so equal values commit equally on every machine.

Randomness is injected: the caller draws the salt (``os.urandom(SALT_BYTES)`` in production, fixed
bytes in tests) and passes it in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import re
from typing import Any, Final

from colosseum_core.record.identifiers import canonical_json

COMMITMENT_FORMAT: Final = "COLOSSEUM-COMMIT-1"
SALT_BYTES: Final = 32
_DOMAIN = re.compile(r"^[a-z0-9][a-z0-9._/-]{0,127}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class CommitmentError(ValueError):
    """A commitment or a reveal that is malformed; the message names the field and the value."""


def _domain_bytes(domain: str) -> bytes:
    if not isinstance(domain, str) or not _DOMAIN.match(domain):
        raise CommitmentError(
            f"commitment domain {domain!r} must be lower-case ASCII letters, digits and ._/- "
            "(1 to 128 characters, e.g. 'colosseum/task')"
        )
    return domain.encode("ascii")


def _salt_bytes(salt: bytes) -> bytes:
    if not isinstance(salt, bytes | bytearray) or len(salt) != SALT_BYTES:
        size = len(salt) if isinstance(salt, bytes | bytearray) else type(salt).__name__
        raise CommitmentError(f"a commitment's salt is {SALT_BYTES} bytes, not {size}")
    return bytes(salt)


def commitment(domain: str, salt: bytes, value: Any) -> str:
    """The commitment to ``value`` under ``domain`` and ``salt``, as 64 lower-case hex digits."""
    prefix = _domain_bytes(domain) + b"\x00" + _salt_bytes(salt)
    try:
        encoded = canonical_json(value)
    except Exception as exc:  # rfc8785 refuses what JSON cannot hold exactly (an int past 2**53, NaN)
        raise CommitmentError(f"the value cannot be committed: it has no canonical JSON ({exc})") from None
    return hashlib.sha256(prefix + encoded).hexdigest()


@dataclasses.dataclass(frozen=True)
class Reveal:
    """What the committer publishes after the event: the value and the salt, with the commitment."""

    domain: str
    commitment: str
    salt_hex: str
    value: Any


def reveal(domain: str, salt: bytes, value: Any) -> Reveal:
    return Reveal(domain, commitment(domain, salt, value), _salt_bytes(salt).hex(), value)


def reveal_problems(published: str, revealed: Reveal) -> list[str]:
    """Why ``revealed`` does not open the commitment ``published`` (nothing if it does)."""
    if not isinstance(published, str) or not _HEX64.match(published):
        return [f"commitment {published!r} is not 64 lower-case hex digits"]
    if revealed.commitment != published:
        return [f"the reveal names commitment {revealed.commitment}, not the published {published}"]
    try:
        salt = bytes.fromhex(revealed.salt_hex)
        recomputed = commitment(revealed.domain, salt, revealed.value)
    except (ValueError, TypeError) as exc:
        return [f"the reveal of {published} cannot be checked: {exc}"]
    if not hmac.compare_digest(recomputed, published):
        return [
            f"the revealed value and salt hash to {recomputed} under {revealed.domain!r}, "
            f"not to the published commitment {published}"
        ]
    return []
