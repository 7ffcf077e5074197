"""The schemas of an epoch's game tables: ``games`` (and ``fight_games``), ``turns`` and ``judge_calls``.

Apart from the playing (``epoch_games``) because the close, verify and the title fight read these
tables without playing anything.
"""

from __future__ import annotations

from typing import Final

import polars as pl

GAME_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "game_id": pl.String(),
    "round": pl.Int64(),
    "rotation": pl.String(),
    "motion_id": pl.String(),
    "motion": pl.String(),
    "context": pl.String(),
    "date": pl.String(),
    "pro_hotkey": pl.String(),
    "con_hotkey": pl.String(),
    "pro_strategy_hash": pl.String(),
    "con_strategy_hash": pl.String(),
    "pro_rating_key": pl.String(),
    "con_rating_key": pl.String(),
    "status": pl.String(),
    "winner": pl.String(),
    "ended_by": pl.String(),
    "reason": pl.String(),
    "conceded_by": pl.String(),
    "concession_short": pl.Boolean(),
    "turns": pl.Int64(),
    "neutralised": pl.Int64(),
    "kind": pl.String(),
    "pairing": pl.String(),
    "models_sha256": pl.String(),
    "rules": pl.String(),
    "prompts": pl.String(),
}
TURN_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "game_id": pl.String(),
    "turn": pl.Int64(),
    "side": pl.String(),
    "hotkey": pl.String(),
    "model": pl.String(),
    "protocol": pl.String(),
    "status": pl.String(),
    "text": pl.String(),
    "cut": pl.Boolean(),
    "neutralised": pl.List(pl.String()),
    "concession": pl.String(),
    "concession_chars": pl.Int64(),
    "concession_short": pl.Boolean(),
    "style_flags": pl.List(pl.String()),
    "fell_back": pl.Boolean(),
    "walk": pl.List(pl.String()),
    "receipt_ids": pl.List(pl.String()),
    "settings": pl.String(),
    "error": pl.String(),
}
JUDGE_CALL_SCHEMA: Final[dict[str, pl.DataType]] = {
    "epoch": pl.String(),
    "game_id": pl.String(),
    "slot": pl.String(),
    "stage": pl.String(),
    "attempt": pl.Int64(),
    "temperature": pl.Float64(),
    "model": pl.String(),
    "protocol": pl.String(),
    "status": pl.String(),
    "reply": pl.String(),
    "verdict": pl.String(),
    "reason": pl.String(),
    "problem": pl.String(),
    "invalid": pl.String(),
    "fell_back": pl.Boolean(),
    "walk": pl.List(pl.String()),
    "receipt_ids": pl.List(pl.String()),
    "settings": pl.String(),
    "error": pl.String(),
    "rate_limited": pl.Boolean(),
    "retry_after_s": pl.Float64(),
}
