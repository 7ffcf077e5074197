"""Asking the panel (COMPELLE-JUDGING-1): every judge call through the shared providers, recorded.

Each judge slot reads the fenced transcript once. A reply that is not a vote (a hedge or a malformed
reply) is asked again of the same model at ``RETRY_TEMPERATURE``, once; the record keeps both calls
with the temperature each carried. A model that errors, is rate-limited or is gone moves the slot
down its fallback chain (the shared chain walk), so an erroring judge does not lose its vote. After
a split, each judge's model is asked to deliberate: its own first reading as the conversation so
far, then the deliberation prompt with the other judge's verdict and reason. A deliberation that
does not answer leaves that judge's first vote standing, except a rate limit: the game it cut
short is void, as every game an outage aborts is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Sequence
from typing import Any, Final

from colosseum_core.debate.asking import SLOT_POLICY, Asker
from colosseum_core.debate.judging.fence import fenced_transcript
from colosseum_core.debate.judging.panel import VOID, PanelResult, after_deliberation, first_reading
from colosseum_core.debate.judging.votes import JudgeVote, read_judge_vote
from colosseum_core.debate.models import Slot
from colosseum_core.debate.prompts import DELIBERATION, JUDGE
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import (
    CallResult,
    CallSettings,
    Endpoint,
)

FIRST_TEMPERATURE: Final = 0.0
RETRY_TEMPERATURE: Final = 1.0
TEMPERATURES: Final = (FIRST_TEMPERATURE, RETRY_TEMPERATURE)
JUDGE_SETTINGS: Final = CallSettings(temperature=FIRST_TEMPERATURE, max_tokens=512, timeout_s=300.0, seed=0)
READING, DELIBERATING = "reading", "deliberation"


@dataclasses.dataclass(frozen=True)
class JudgeCall:
    """One call of one judge slot: which stage, which attempt, what it carried and what it said."""

    slot: str
    stage: str
    attempt: int
    temperature: float
    result: CallResult
    fell_back: bool
    receipt_ids: tuple[str, ...]
    vote: JudgeVote
    walk: tuple[str, ...] = ()

    def row(self) -> dict[str, Any]:
        return {
            "slot": self.slot,
            "stage": self.stage,
            "attempt": self.attempt,
            "temperature": self.temperature,
            "model": self.result.model,
            "protocol": self.result.protocol,
            "status": self.result.status,
            "reply": self.result.text,
            "verdict": self.vote.verdict,
            "reason": self.vote.reason,
            "problem": self.vote.problem,
            "invalid": self.vote.invalid,
            "fell_back": self.fell_back,
            "walk": list(self.walk),
            "receipt_ids": list(self.receipt_ids),
            "settings": json.dumps(self.result.settings_record, sort_keys=True),
            "error": self.result.error,
            "rate_limited": self.result.refusal == "rate_limited",
            "retry_after_s": self.result.retry_after_s,
        }


@dataclasses.dataclass(frozen=True)
class Judged:
    result: PanelResult
    calls: tuple[JudgeCall, ...]
    # A judge's whole chain was rate-limited (the game is void), and the wait its provider asked for.
    rate_limited: bool = False
    retry_after_s: float | None = None


def _no_model(slot: Slot, stage: str) -> JudgeCall:
    result = CallResult(
        "refused", None, (), 0, {}, f"slot {slot.name}: no model of its chain has its key set", "", ""
    )
    return JudgeCall(slot.name, stage, 1, FIRST_TEMPERATURE, result, False, (), read_judge_vote(None))


async def _read(slot: Slot, prompt: str, asker: Asker) -> tuple[list[JudgeCall], Endpoint | None]:
    """One slot's first reading: the calls made, and the model whose vote counts (None: no vote)."""
    chain = asker.chain(slot)
    if not chain:
        return [_no_model(slot, READING)], None
    calls: list[JudgeCall] = []
    for attempt, temperature in enumerate(TEMPERATURES, start=1):
        settings = dataclasses.replace(JUDGE_SETTINGS, temperature=temperature)
        asked = await asker.ask(chain, [Message("user", prompt)], policy=SLOT_POLICY, settings=settings)
        result = asked.result
        vote = read_judge_vote(result.text) if result.status == "answered" else read_judge_vote(None)
        calls.append(
            JudgeCall(
                slot.name, READING, attempt, temperature, result, asked.fell_back, asked.receipt_ids, vote,
                asked.walk,
            )
        )  # fmt: skip
        if result.status != "answered":
            return calls, None
        if vote.verdict is not None:
            return calls, chain[asked.at]
        # The same model is asked again; the models before it already refused.
        chain = chain[asked.at :]
    return calls, None


async def _deliberate(
    slot: Slot, model: Endpoint, prompt: str, own: JudgeCall, other: JudgeCall, asker: Asker
) -> JudgeCall:
    messages = [
        Message("user", prompt),
        Message("assistant", own.result.text or ""),
        Message(
            "user",
            DELIBERATION.render(
                {"other_verdict": other.vote.verdict or "", "other_reason": other.vote.reason or ""}
            ),
        ),
    ]
    settings = dataclasses.replace(JUDGE_SETTINGS, temperature=own.temperature)
    asked = await asker.ask([model], messages, policy=SLOT_POLICY, settings=settings)
    result = asked.result
    vote = read_judge_vote(result.text) if result.status == "answered" else read_judge_vote(None)
    return JudgeCall(
        slot.name,
        DELIBERATING,
        1,
        own.temperature,
        result,
        asked.fell_back,
        asked.receipt_ids,
        vote,
        asked.walk,
    )


def _rate_limited(calls: Sequence[JudgeCall]) -> tuple[bool, float | None]:
    """Whether a call ended rate-limited, and the longest wait asked for (None: none was named)."""
    waits = [c.result.retry_after_s for c in calls if c.result.refusal == "rate_limited"]
    named = [w for w in waits if w is not None]
    return bool(waits), max(named) if named else None


async def judge_game(
    topic: str, turns: list[tuple[int, str, str]], judges: Sequence[Slot], asker: Asker
) -> Judged:
    """The panel's result for a game that ran to the cap: ``turns`` are (number, side, neutralised
    text)."""
    prompt = JUDGE.render({"topic": topic, "transcript": fenced_transcript(turns)})
    readings = await asyncio.gather(*(_read(slot, prompt, asker) for slot in judges))
    calls = [call for made, _ in readings for call in made]
    votes = [made[-1].vote.verdict if model is not None else None for made, model in readings]
    result = first_reading(votes)
    if result is not None:
        limited, wait = _rate_limited(calls) if result.status == VOID else (False, None)
        return Judged(result, tuple(calls), limited, wait)
    counted = [made[-1] for made, _ in readings]
    deliberations = await asyncio.gather(
        *(
            _deliberate(slot, model, prompt, counted[i], counted[1 - i], asker)
            for i, (slot, (_, model)) in enumerate(zip(judges, readings, strict=True))
            if model is not None
        )
    )
    limited, wait = _rate_limited(deliberations)
    if limited:
        # A deliberation the provider cut short would otherwise leave the split standing as a draw.
        slots = ", ".join(d.slot for d in deliberations if d.result.refusal == "rate_limited")
        reason = f"Panel split 1-1 → deliberation aborted ({slots} rate-limited) → void"
        return Judged(PanelResult(VOID, None, reason), (*calls, *deliberations), True, wait)
    result = after_deliberation([v for v in votes if v is not None], [d.vote.verdict for d in deliberations])
    return Judged(result, (*calls, *deliberations))
