"""Salted commitments (COLOSSEUM-COMMIT-1): a reveal opens its commitment, and nothing else does."""

from __future__ import annotations

import hashlib

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from colosseum_core.trust.commitments import (
    SALT_BYTES,
    CommitmentError,
    Reveal,
    commitment,
    reveal,
    reveal_problems,
)

SALT = bytes(range(32))
TASK = {"statement": "What is 6 × 7?", "answer_type": "integer", "reference": 42}


def test_the_commitment_is_the_documented_hash():
    expected = hashlib.sha256(b"colosseum/task\x00" + SALT + rfc8785.dumps(TASK)).hexdigest()
    assert commitment("colosseum/task", SALT, TASK) == expected
    # Key order does not matter: the value is canonical JSON.
    assert commitment("colosseum/task", SALT, dict(reversed(TASK.items()))) == expected


def test_a_reveal_opens_its_commitment_and_every_change_is_named():
    published = commitment("colosseum/task", SALT, TASK)
    opened = reveal("colosseum/task", SALT, TASK)
    assert reveal_problems(published, opened) == []
    changed_value = Reveal(opened.domain, published, opened.salt_hex, {**TASK, "reference": 41})
    changed_salt = Reveal(opened.domain, published, bytes(32).hex(), TASK)
    other_domain = Reveal("colosseum/answer", published, opened.salt_hex, TASK)
    for forged in (changed_value, changed_salt, other_domain):
        [problem] = reveal_problems(published, forged)
        assert "not to the published commitment" in problem and published in problem
    [named] = reveal_problems(published, Reveal(opened.domain, "0" * 64, opened.salt_hex, TASK))
    assert "not the published" in named
    assert "64 lower-case hex" in reveal_problems("ABC", opened)[0]
    assert "cannot be checked" in reveal_problems(published, Reveal(opened.domain, published, "zz", TASK))[0]


@pytest.mark.parametrize(
    ("domain", "salt", "words"),
    [
        ("Colosseum/Task", SALT, "must be lower-case ASCII"),
        ("", SALT, "must be lower-case ASCII"),
        ("task\x00x", SALT, "must be lower-case ASCII"),
        ("colosseum/task", SALT[:31], f"salt is {SALT_BYTES} bytes, not 31"),
        ("colosseum/task", "not bytes", f"salt is {SALT_BYTES} bytes, not str"),
    ],
)
def test_bad_input_is_refused_naming_the_field(domain, salt, words):
    with pytest.raises(CommitmentError, match=words):
        commitment(domain, salt, TASK)


def test_a_value_without_canonical_json_is_refused():
    with pytest.raises(CommitmentError, match="no canonical JSON"):
        commitment("colosseum/task", SALT, {"n": 2**53})


@given(
    value=st.dictionaries(
        st.text(max_size=8), st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=8), max_size=5
    ),
    salt=st.binary(min_size=32, max_size=32),
    other=st.binary(min_size=32, max_size=32),
)
def test_commitments_bind_the_salt_and_the_value(value, salt, other):
    published = commitment("colosseum/task", salt, value)
    assert reveal_problems(published, reveal("colosseum/task", salt, value)) == []
    if other != salt:
        assert commitment("colosseum/task", other, value) != published
