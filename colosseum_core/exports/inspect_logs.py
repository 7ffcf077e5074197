"""Inspect AI eval logs, written with inspect-ai's own log API (``inspect_ai.log.write_eval_log``):
one log per ``UnitLog``, so ``inspect view`` opens them and Inspect's log dataframes read them.

What the record says and Inspect's model differ in a few places, decided here once:
- ids (``eval_id``, ``run_id``, ``task_id``, a sample's ``uuid``) derive from the record, so a second
  export writes the same logs; every log of one unit shares its ``run_id``;
- a setting the provider refused is recorded as ``"OMITTED"``, which Inspect's ``GenerateConfig``
  cannot hold: it keeps the honoured numbers, ``model_args`` the settings as recorded;
- the provider's stop reason maps onto Inspect's (``length``, ``max_tokens`` and ``MAX_TOKENS`` are
  ``max_tokens``), the project's format-failure class onto Inspect's ``invalid_response_format``;
- the file is ``{sealed instant}_{task}_{id}.eval``, the name Inspect's listing parses.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

try:
    import inspect_ai
    from inspect_ai.log import (
        EvalConfig,
        EvalDataset,
        EvalLog,
        EvalMetric,
        EvalPlan,
        EvalPlanStep,
        EvalResults,
        EvalSample,
        EvalScore,
        EvalSpec,
        EvalStats,
        write_eval_log,
    )
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.scorer import Score
except ImportError as exc:  # the optional extra
    raise ImportError("Inspect logs need inspect-ai: pip install -e '.[exports]' (or make install)") from exc

from colosseum_core.exports import EXPORTS_RULES
from colosseum_core.exports.model_names import bare
from colosseum_core.exports.units import Sample, Turn, UnitLog, stable_id

# The providers' stop reasons (OpenAI's finish_reason, Anthropic's stop_reason, Gemini's finishReason,
# and the adapters' own words) in Inspect's vocabulary.
STOP_REASONS: Mapping[str, str] = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "STOP": "stop",
    "length": "max_tokens",
    "max_tokens": "max_tokens",
    "MAX_TOKENS": "max_tokens",
    "content_filter": "content_filter",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "refusal": "content_filter",
    "safety": "content_filter",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "tool_call": "tool_calls",
}
_NUMERIC_SETTINGS = ("temperature", "top_p", "max_tokens", "seed")


def _usage(tin: int | None, tout: int | None) -> ModelUsage | None:
    if tin is None and tout is None:
        return None
    return ModelUsage(input_tokens=tin or 0, output_tokens=tout or 0, total_tokens=(tin or 0) + (tout or 0))


def _message(turn: Turn, model: str, mid: str) -> Any:
    # Inspect draws a message's id at random: derived from the record, a second export says the same
    meta = dict(turn.metadata) or None
    if turn.role == "system":
        return ChatMessageSystem(id=mid, content=turn.text, metadata=meta)
    if turn.role == "user":
        return ChatMessageUser(id=mid, content=turn.text, metadata=meta)
    return ChatMessageAssistant(id=mid, content=turn.text, model=bare(model), metadata=meta)


def _sample(sample: Sample, log: UnitLog) -> EvalSample:
    turns = sample.turns or (Turn("user", sample.input), Turn("assistant", sample.output))
    output = ModelOutput(
        model=bare(log.model),
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(
                    id=stable_id(log.key, sample.id, "output"),
                    content=sample.output,
                    model=bare(log.model),
                    source="generate",
                ),
                stop_reason=STOP_REASONS.get(sample.stop or "", "unknown"),  # type: ignore[arg-type]
            )
        ],
        usage=_usage(sample.input_tokens, sample.output_tokens),
        error=sample.error,
    )
    scores = {
        name: Score(
            value=v.value,
            answer=v.answer,
            explanation=v.explanation,
            metadata={**v.metadata, **({"failure": v.failure} if v.failure else {})} or None,
        )
        for name, v in sample.scores.items()
    }
    return EvalSample(
        id=sample.id,
        epoch=1,
        input=sample.input,
        target=sample.target,
        messages=[_message(t, log.model, stable_id(log.key, sample.id, str(i))) for i, t in enumerate(turns)],
        output=output,
        scores=scores or None,
        metadata={**dict(sample.metadata), **({"stop": sample.stop} if sample.stop else {})},
        uuid=str(uuid.UUID(bytes=bytes.fromhex(stable_id(log.key, sample.id, length=32)), version=4)),
    )


def eval_log(log: UnitLog) -> EvalLog:
    """The ``EvalLog`` of one unit log."""
    settings = dict(log.settings)
    honoured = {
        k: v
        for k, v in settings.items()
        if k in _NUMERIC_SETTINGS and isinstance(v, int | float) and not isinstance(v, bool)
    }
    generate = GenerateConfig(**honoured)
    samples = [_sample(s, log) for s in log.samples]
    scored = sum(1 for s in log.samples if s.scores)
    results = EvalResults(
        # always present: evals_df reads total_samples from here
        total_samples=len(samples),
        completed_samples=len(samples),
        scores=[
            EvalScore(
                name=name,
                scorer=log.scorer,
                scored_samples=scored,
                unscored_samples=len(samples) - scored,
                metrics={m: EvalMetric(name=m, value=float(v)) for m, v in metrics.items()},
            )
            for name, metrics in log.metrics.items()
        ],
    )
    tin = [s.input_tokens for s in log.samples if s.input_tokens is not None]
    tout = [s.output_tokens for s in log.samples if s.output_tokens is not None]
    usage = _usage(sum(tin) if tin else None, sum(tout) if tout else None)
    return EvalLog(
        status="success",
        eval=EvalSpec(
            eval_id=log.key,
            run_id=stable_id("run", log.task, log.unit),
            created=log.created,
            task=log.task,
            task_id=stable_id(log.task, log.unit),
            task_version=",".join(sorted(set(log.rules))) or 0,
            task_display_name=f"{log.task} {log.unit}",
            dataset=EvalDataset(
                name=f"{log.arena} {log.unit}",
                location=log.unit,
                samples=len(samples),
                sample_ids=[s.id for s in samples],
            ),
            model=log.model,
            model_base_url=log.base_url,
            model_generate_config=generate,
            model_args={"settings": settings},
            config=EvalConfig(epochs=1),
            packages={"inspect_ai": inspect_ai.__version__},
            metadata={
                "arena": log.arena,
                "unit": log.unit,
                "contender": log.contender,
                "exports_rules": EXPORTS_RULES,
                **dict(log.metadata),
            },
        ),
        plan=EvalPlan(
            name="colosseum",
            steps=[EvalPlanStep(solver=f"colosseum/{log.task}", params={"rules": sorted(set(log.rules))})],
            config=generate,
        ),
        results=results,
        stats=EvalStats(
            started_at=log.created,
            completed_at=log.completed,
            model_usage={log.model: usage} if usage else {},
        ),
        samples=samples,
    )


def log_file_name(log: UnitLog) -> str:
    stamp = log.created.replace("+00:00", "Z").replace(":", "-").replace("Z", "+00-00")
    return f"{stamp}_{log.task}_{log.key}.eval"


def write_logs(logs: Iterable[UnitLog], out: Path) -> list[Path]:
    """Write each log to ``out`` (``.eval``) and return the paths. A log is written to a temporary
    name and renamed, so an interrupted export leaves no half-written log under a log's name."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for log in logs:
        path = out / log_file_name(log)
        partial = out / f".{path.stem}.partial.eval"
        write_eval_log(eval_log(log), str(partial))
        partial.replace(path)
        written.append(path)
    return written
