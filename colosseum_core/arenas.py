"""The arenas on this platform: what the platform's commands (the catalog, ``verify``, the public board,
the record's migration) go through. Adding an arena is a folder of its own and one line here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS
from colosseum_core.events.arena import EVENTS
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.providers.house_models import HouseFamily
from colosseum_core.record.layout import ArenaRecord

# The debate arena keeps two records: its epochs, and its topic rotations every six hours.
ARENAS: tuple[ArenaRecord, ...] = (FORECAST, DEBATE, DEBATE_TOPICS, EVENTS)

if TYPE_CHECKING:
    from colosseum_core.debate.site.plugin import DebateSite
    from colosseum_core.events.site.plugin import EventsSite
    from colosseum_core.site.public import PublicSite
    from colosseum_core.trial.part import TrialPart
    from colosseum_core.verify.audit import Audit

    AUDITS: tuple[Audit, ...]
    DEBATE_SITE: DebateSite
    EVENTS_SITE: EventsSite
    PUBLIC_SITE: PublicSite


def _audits() -> dict[str, Any]:
    """Each arena's part of `colosseum verify` (AUDITS), and the one public site (`colosseum board
    build`, PUBLIC_SITE): a landing page for every arena at its root, the forecasting board in
    forecast/, the debate arena's in debate/, the multi-event arena's in events/. The debate and events
    boards vouch for the records they read, so those must verify first."""
    from colosseum_core.debate.audit import DEBATE_AUDIT
    from colosseum_core.debate.site.plugin import DebateSite
    from colosseum_core.debate.topics.audit import TOPICS_AUDIT
    from colosseum_core.events.audit import EVENTS_AUDIT
    from colosseum_core.events.site.plugin import EventsSite
    from colosseum_core.forecast.audit import FORECAST_AUDIT
    from colosseum_core.forecast.site import FORECAST_SITE
    from colosseum_core.site.public import PublicSite, SitePart

    debate_site = DebateSite((DEBATE_AUDIT, TOPICS_AUDIT))
    events_site = EventsSite((EVENTS_AUDIT,))
    return {
        "AUDITS": (FORECAST_AUDIT, DEBATE_AUDIT, TOPICS_AUDIT, EVENTS_AUDIT),
        "DEBATE_SITE": debate_site,
        "EVENTS_SITE": events_site,
        "PUBLIC_SITE": PublicSite(
            (
                SitePart(FORECAST_SITE, "forecast", "Forecasting"),
                SitePart(debate_site, "debate", "Debate"),
                SitePart(events_site, "events", "Events"),
            )
        ),
    }


def __getattr__(name: str) -> Any:
    # The audits and the sites import every arena's rules, pandera's schemas and the site engine
    # (about 1.5 s): built on first use, so a command that runs one arena's job (the catalog needs
    # only ARENAS) does not pay for them.
    if name in ("AUDITS", "DEBATE_SITE", "EVENTS_SITE", "PUBLIC_SITE"):
        globals().update(_audits())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# The one arena before arenas had folders: a record from then is all of it.
LEGACY_ARENA = FORECAST


def _forecast_houses() -> tuple[HouseFamily, ...]:
    from colosseum_core.forecast.answering.house import HOUSE_FAMILIES

    return HOUSE_FAMILIES


def _debate_houses() -> tuple[HouseFamily, ...]:
    from colosseum_core.debate.house import HOUSE_FAMILIES

    return HOUSE_FAMILIES


def _events_houses() -> tuple[HouseFamily, ...]:
    # Every kind of event's (``events.kinds``): the Solve-or-Object event's solvers, the challenge
    # event's authors and reviewers, and the chess event's players when python-chess, its optional
    # extra, is installed. Importing them all takes a fifth of a second, which a card does without.
    from colosseum_core.events.kinds import house_families

    return house_families()


# The house players each arena brings to the sparring server, by its record's name, imported only when
# asked for: the forecast's gladiators, the debate's intent panelist, debaters, judges and live search,
# and every kind of event's.
HOUSE_PLAYERS: dict[str, Callable[[], tuple[HouseFamily, ...]]] = {
    FORECAST.name: _forecast_houses,
    DEBATE.name: _debate_houses,
    EVENTS.name: _events_houses,
}


def _events_trial_parts() -> tuple[TrialPart, ...]:
    # A chess, a Solve-or-Object and a challenge event, each with the model beside the house field.
    from colosseum_core.events.trial import TRIAL_EVENTS

    return TRIAL_EVENTS


# Each arena's part of a model maker's trial (``colosseum_core.trial``), by its record's name, imported
# only when a trial asks for them.
TRIAL_PARTS: dict[str, Callable[[], tuple[TrialPart, ...]]] = {
    EVENTS.name: _events_trial_parts,
}


def trial_parts(arenas: Iterable[str] | None = None) -> tuple[TrialPart, ...]:
    """Every arena's trial parts (``arenas``: only these arenas', by record name), in the arenas' order."""
    return tuple(
        part for arena in (TRIAL_PARTS if arenas is None else arenas) for part in TRIAL_PARTS[arena]()
    )


def sparring_houses(arenas: Iterable[str] | None = None) -> dict[str, HouseFamily]:
    """The house players the arenas bring to the sparring server, by family (``arenas``: only these
    arenas' players, by record name; every arena's by default). The server knows no arena: the
    wiring hands it these."""
    houses: dict[str, HouseFamily] = {}
    for arena in HOUSE_PLAYERS if arenas is None else arenas:
        for family in HOUSE_PLAYERS[arena]():
            if family.name in houses:
                raise ValueError(f"house family {family.name}: brought twice")
            houses[family.name] = family
    return houses
