"""The normalized question stem, for every arena: one question in different clothes has one stem.

Shared like ``screens``: the forecast's selection rules (``once_ever``, ``one_of_a_kind``) and the
debate's topic dedup read the same stem, so a rule of one arena never drifts from the other's.

Steps, in order:
1. Unicode NFKC, so full-width letters, ligatures and compatibility forms read as their plain
   letters ("Ｗｉｌｌ" is "Will").
2. Invisible format characters (Unicode category Cf: zero-width spaces and joiners, soft hyphens)
   are removed, so they can not split one word into two.
3. Lowercase (Unicode simple lowercase mapping).
4. Every run of punctuation (P*), separators (Z*), other control characters (C*) and whitespace
   becomes one space, and the ends are trimmed. Punctuation becomes a space rather than nothing so
   "2.5" and "25" stay different questions while "Will X win?" and "will x  win" are one stem.
   Symbols (S*: $, €, +, %, <) are kept: "+1.5" and "$100k" are part of what a question asks.
A stem that comes out empty is no stem (null): two questions of pure punctuation are not alike.
"""

from __future__ import annotations

from typing import Final

import polars as pl

_INVISIBLE: Final = r"\p{Cf}+"
_SEPARATORS: Final = r"[\p{P}\p{Z}\p{C}\s]+"


def _stem_text(question: pl.Expr) -> pl.Expr:
    """The stem, with the empty string where nothing is left."""
    return (
        question.str.normalize("NFKC")
        .str.replace_all(_INVISIBLE, "")
        .str.to_lowercase()
        .str.replace_all(_SEPARATORS, " ")
        .str.strip_chars(" ")
    )


def question_stem(question: pl.Expr) -> pl.Expr:
    """The normalized stem of each question (String), null for a null or empty stem."""
    stem = _stem_text(question)
    return pl.when(stem.str.len_bytes() > 0).then(stem).otherwise(None)


def with_question_stem(frame: pl.DataFrame, question: str = "question", name: str = "stem") -> pl.DataFrame:
    """``frame`` with ``name``, the stem of its ``question`` column, exactly as ``question_stem``.

    The hot path of a card: the text pipeline runs once per question and the empty stems are set
    to null on the finished column (``question_stem`` as one expression evaluates the pipeline
    twice, once for the test and once for the value).
    """
    return frame.with_columns(_stem_text(pl.col(question)).alias(name)).with_columns(
        pl.when(pl.col(name).str.len_bytes() > 0).then(pl.col(name)).otherwise(None).alias(name)
    )
