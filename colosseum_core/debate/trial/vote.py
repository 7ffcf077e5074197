"""The model as a judge beside the house panel (COMPELLE-TRIAL-1): asked what the panel's judges
are asked, never counted.

On every game the panel judged, the model reads the judge prompt with the same fenced transcript the
panel read (each turn as it was passed on, neutralised by the game's fence), once, and once more at
the retry temperature if its reply was no vote, as a judge slot is (``judging.ask``). Its calls are
the rows of ``trial_model_votes``, in the judge calls' own schema, slot ``trial-model``; the game's
result never reads them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Final

from colosseum_core.debate.asking import SLOT_POLICY, Asker
from colosseum_core.debate.game.turns import passed_on
from colosseum_core.debate.judging.ask import JUDGE_SETTINGS, READING, TEMPERATURES, JudgeCall
from colosseum_core.debate.judging.fence import fence_of, fenced_transcript, neutralise
from colosseum_core.debate.judging.votes import read_judge_vote
from colosseum_core.debate.prompts import JUDGE
from colosseum_core.providers.adapters import Message
from colosseum_core.providers.call import Endpoint

MODEL_SLOT: Final = "trial-model"


def judge_prompt(game: Mapping[str, Any], turns: Sequence[Mapping[str, Any]]) -> str:
    """The judge prompt the panel read for ``game``, rebuilt from its turns and its rules' fence."""
    fence = fence_of(game["rules"])
    fenced = [
        (t["turn"], t["side"], neutralise(passed_on(t["text"] or "")[0], fence)[0])
        for t in sorted(turns, key=lambda t: t["turn"])
        if t["status"] == "answered"
    ]
    return JUDGE.render({"topic": game["motion"], "transcript": fenced_transcript(fenced)})


async def model_vote(
    game: Mapping[str, Any], turns: Sequence[Mapping[str, Any]], model: Endpoint, asker: Asker
) -> list[dict[str, Any]]:
    """The model's reading of ``game`` as judge calls' rows (one, or two when the first was no vote)."""
    prompt = judge_prompt(game, turns)
    rows = []
    for attempt, temperature in enumerate(TEMPERATURES, start=1):
        settings = dataclasses.replace(JUDGE_SETTINGS, temperature=temperature)
        asked = await asker.ask([model], [Message("user", prompt)], policy=SLOT_POLICY, settings=settings)
        result = asked.result
        vote = read_judge_vote(result.text if result.status == "answered" else None)
        call = JudgeCall(
            MODEL_SLOT, READING, attempt, temperature, result, asked.fell_back, asked.receipt_ids, vote,
            asked.walk,
        )  # fmt: skip
        rows.append({"game_id": game["game_id"], **call.row()})
        if result.status != "answered" or vote.verdict is not None:
            break
    return rows
