"""The debate arena's house players, which the sparring server hosts (``HOUSE_FAMILIES``, through the
arenas' registry): the intent panelist (``intent.py``), Compelle's debaters and judges
(``debate.py``) and the live-search stand-in (``search.py``). Each reads the arena's prompts from the
text it is sent, as an outside model would, and imports nothing else of the arena.

Imported by: the registry (``colosseum_core.arenas.sparring_houses``, which the wiring hands to the
sparring server), the debate's pages (the glossary names the families) and the tests; never by the
arena's rules, which ask a house player as they ask any model.
"""

from __future__ import annotations

from typing import Final

from colosseum_core.debate.house.debate import debater_reply, judge_reply, read_judge_prompt
from colosseum_core.debate.house.intent import intent_vote
from colosseum_core.debate.house.search import search_reply
from colosseum_core.providers.house_models import Cited, HouseAsk, HouseFamily

# The intent panelist (``house-intent``: reads a strategy, votes GOOD or BAD; ``-lenient`` only
# catches fake boundaries and token signals; ``-invalid-vote`` answers without a vote).
PANELISTS: Final = ("house-intent",)
# Compelle's debaters (``house-debater``: argues its side of the motion in the strategy's style) and
# judges (``house-judge``: a two-line PRO or CON vote by a published heuristic, and deliberation).
DEBATERS: Final = ("house-debater",)
JUDGES: Final = ("house-judge",)
# One model asked both roles, as a model maker's model is in a trial (``debate.trial``):
# ``house-generalist`` judges when the conversation holds the judge prompt and debates otherwise,
# reading the debaters' and the judges' behaviours alike.
GENERALISTS: Final = ("house-generalist",)
# A stand-in for a live-search call (xAI's ``search_parameters``): trending controversies as JSON
# plus top-level citations, OpenAI protocol only.
SEARCHERS: Final = ("house-search",)


def panelist_reply(ask: HouseAsk) -> str:
    if "invalid-vote" in ask.persona.behaviours:
        return "I would rather not classify this one."
    return intent_vote(ask.text, lenient="lenient" in ask.persona.behaviours)


def debater(ask: HouseAsk) -> str:
    return debater_reply(list(ask.conversation), model=ask.model, behaviours=ask.persona.behaviours)


def judge(ask: HouseAsk) -> str:
    temperature = ask.settings.get("temperature")
    return judge_reply(
        list(ask.conversation),
        seed=ask.persona.seed,
        behaviours=ask.persona.behaviours,
        temperature=temperature if isinstance(temperature, int | float) else None,
    )


def generalist(ask: HouseAsk) -> str:
    if any(read_judge_prompt(text) is not None for _, text in ask.conversation):
        return judge(ask)
    return debater(ask)


def searcher(ask: HouseAsk) -> str | Cited:
    content, citations = search_reply(
        list(ask.conversation),
        model=ask.model,
        garbled="garbled" in ask.persona.behaviours,
        today=ask.clock().date(),
    )
    if ask.search.get("return_citations", True) is False:
        return content
    return Cited(content, tuple(citations[: int(ask.search.get("max_search_results", 20))]))


_DEBATER_BEHAVIOURS: Final = ("concede-short", "concede", "banned", "inject", "empty", "huge")
_JUDGE_BEHAVIOURS: Final = ("hedge-always", "hedge", "contrarian", "stubborn", "foreign")

HOUSE_FAMILIES: Final = (
    # Keyed by the prompt's text alone, as every recorded intent vote was.
    *(
        HouseFamily(n, panelist_reply, ("lenient", "invalid-vote"), keyed_by_user_text=True)
        for n in PANELISTS
    ),
    *(HouseFamily(n, debater, _DEBATER_BEHAVIOURS) for n in DEBATERS),
    *(HouseFamily(n, judge, _JUDGE_BEHAVIOURS) for n in JUDGES),
    *(HouseFamily(n, generalist, (*_DEBATER_BEHAVIOURS, *_JUDGE_BEHAVIOURS)) for n in GENERALISTS),
    *(HouseFamily(n, searcher, ("garbled",), protocols=("openai",)) for n in SEARCHERS),
)
