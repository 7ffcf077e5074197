"""Every Eval Ever records (schema 0.3.0, the ``every-eval-ever`` package's ``eval.schema.json``):
one per model and unit of play, from the standings the unit sealed, each result with its interval.

The package itself needs Python 3.12, the project runs 3.11: the records are plain JSON built here
and checked against the package's schema, shipped beside this module with its licence (MIT). The
path is the datastore's, ``data/<benchmark>/<developer>/<model>/<uuid4>.json``, the uuid derived
from the record so a second export writes the same file.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import uuid
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any, Final

from colosseum_core.exports import EXPORTS_RULES
from colosseum_core.exports.units import ExportError, UnitLog, stable_id

SCHEMA_VERSION: Final = "0.3.0"
SCHEMA_PATH: Final = Path(__file__).parent / "schemas" / f"every_eval_ever-{SCHEMA_VERSION}.eval.schema.json"
SOURCE: Final = {
    "source_name": "The Colosseum",
    "source_type": "evaluation_run",
    "source_organization_name": "The Colosseum",
    "evaluator_relationship": "third_party",
}
_GENERATION_ARGS = ("temperature", "top_p", "max_tokens")


@cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def _developer_and_model(name: str) -> tuple[str, str]:
    # An OpenAI-compatible service keeps its service as the developer (openai-api/<service>/<model>),
    # so a house stand-in or a self-served model never files under a lab.
    developer, _, rest = name.partition("/")
    if developer == "openai-api":
        developer, _, rest = rest.partition("/")
    return developer, rest


def _component(text: str) -> str:
    """One folder name of the datastore's path: a model's name is the operator's or a model
    maker's words, never a way out of the folder."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip(".")
    return safe or "_"


def _bound(value: float | None) -> float | str:
    if value is None or math.isinf(value):
        return "Infinity" if value is None or value > 0 else "-Infinity"
    return value


def record_of(log: UnitLog, *, version: str) -> dict[str, Any] | None:
    """The record of one unit log, or None when it has no standings (an engine, no model)."""
    if not log.standings:
        return None
    developer, model = _developer_and_model(log.model)
    uid = str(uuid.UUID(bytes=bytes.fromhex(stable_id("eee", log.key, length=32)), version=4))
    sealed = dt.datetime.fromisoformat(log.completed.replace("Z", "+00:00"))
    args = {
        k: v
        for k, v in log.settings.items()
        if k in _GENERATION_ARGS and isinstance(v, int | float) and not isinstance(v, bool)
    }
    results = []
    for s in log.standings:
        low, high = s.bounds if s.bounds else (None, None)
        result: dict[str, Any] = {
            "evaluation_result_id": f"{log.unit}:{s.metric}",
            "evaluation_name": log.task,
            "source_data": {
                "dataset_name": f"{log.task} {log.unit}",
                "source_type": "other",
                "additional_details": {"unit": log.unit, "rules": ",".join(log.rules)},
            },
            "metric_config": {
                "metric_id": s.metric,
                "metric_name": s.metric.rsplit(".", 1)[-1],
                "lower_is_better": s.lower_is_better,
                "score_type": "continuous",
                "min_score": _bound(low) if s.bounds else "-Infinity",
                "max_score": _bound(high) if s.bounds else "Infinity",
            },
            "score_details": {"score": s.value},
        }
        if s.low is not None and s.high is not None:
            result["score_details"]["uncertainty"] = {
                "confidence_interval": {
                    "lower": s.low,
                    "upper": s.high,
                    "confidence_level": 0.95,
                    "method": s.method,
                },
                "num_samples": s.n,
            }
        if args:
            result["generation_config"] = {"generation_args": args}
        results.append(result)
    house = developer == "colosseum-house"
    return {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": f"{log.task}/{log.contender}/{uid}",
        "evaluation_timestamp": sealed.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "retrieved_timestamp": str(int(sealed.timestamp())),
        "source_metadata": dict(SOURCE),
        "eval_library": {
            "name": "colosseum",
            "version": version,
            "additional_details": {"exports_rules": EXPORTS_RULES},
        },
        "model_info": {
            "name": log.model,
            "id": f"{developer}/{model}",
            "developer": developer,
            **({"inference_platform": log.base_url} if log.base_url else {}),
            "additional_details": {
                "deployment_type": "self_deployed" if house else "externally_managed",
                "model_availability": "unknown",
            },
        },
        "evaluation_results": results,
    }


def check(record: dict[str, Any], where: str) -> None:
    """Refuse a record the schema refuses, naming the field (jsonschema, the schema's own draft)."""
    import jsonschema

    errors = sorted(jsonschema.Draft7Validator(schema()).iter_errors(record), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        field = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise ExportError(f"{where}: Every Eval Ever record field {field}: {first.message}")


def write_records(logs: Iterable[UnitLog], out: Path, *, version: str) -> list[Path]:
    written = []
    for log in logs:
        record = record_of(log, version=version)
        if record is None:
            continue
        check(record, f"{log.arena} {log.unit} {log.contender}")
        developer, _, model = record["model_info"]["id"].partition("/")
        name = record["evaluation_id"].rsplit("/", 1)[-1]
        path = out / "data" / log.task / _component(developer) / _component(model) / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.partial")
        partial.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        partial.replace(path)
        written.append(path)
    return written
