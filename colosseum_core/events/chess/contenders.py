"""COLOSSEUM-CHESS-CONTENDERS-1: who plays a chess event, read from ``chess.toml`` and resolved once.

The model contenders are every event's (``events.contenders``: FIGHT when every model's key is
set, else CALIBRATION with house stand-ins, never mixed). The chess event adds its ``[[engine]]``
levels: Stockfish at a node limit, rated as ordinary players in both kinds of event.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from colosseum_core.events.contenders import (
    CALIBRATION,
    FIGHT,
    SPARRING,
    ContendersError,
    checked,
    entry_id,
    resolve_models,
)

CONTENDERS_REGISTRY: Final = "COLOSSEUM-CHESS-CONTENDERS-1"
DEFAULT_CONTENDERS: Final = Path(__file__).resolve().parents[3] / "chess.toml"
__all__ = ["CALIBRATION", "FIGHT", "SPARRING", "ContendersError", "resolve_contenders"]


def resolve_contenders(path: Path | str, environ: Mapping[str, str]) -> dict[str, Any]:
    """The event's class, its contenders as the manifest records them, and the keys that were missing."""
    resolved, registry = resolve_models(path, environ, extra_sections=("engine",))
    where = f"contenders {Path(path)}"
    contenders = list(resolved["contenders"])
    for raw in registry.get("engine", []):
        contender = entry_id(where, raw, "engine")
        nodes = raw.get("nodes")
        if isinstance(nodes, bool) or not isinstance(nodes, int) or nodes < 1:
            raise ContendersError(
                f"{where} [[engine]] {contender}: nodes is {nodes!r}, not a whole number ≥ 1"
            )
        contenders.append({"id": contender, "kind": "engine", "engine": "stockfish", "nodes": nodes})
    return checked(path, {**resolved, "contenders": contenders})
