"""The arenas on this platform: what the platform's commands (the catalog, ``verify``, the public board,
the record's migration) go through. Adding an arena is a folder of its own and one line here."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from colosseum_core.debate.arena import DEBATE, DEBATE_TOPICS, DEBATE_TRIALS
from colosseum_core.events.arena import EVENTS
from colosseum_core.forecast.arena import FORECAST, FORECAST_TRIALS
from colosseum_core.providers.house_models import HouseFamily
from colosseum_core.record.layout import ArenaRecord

# The debate arena keeps three records: its epochs, its topic rotations every six hours, and the
# model makers' trials; the forecast two: its cards, and the trial seats that answer a card's packet
# beside them.
ARENAS: tuple[ArenaRecord, ...] = (FORECAST, FORECAST_TRIALS, DEBATE, DEBATE_TOPICS, DEBATE_TRIALS, EVENTS)

if TYPE_CHECKING:
    from colosseum_core.debate.site.plugin import DebateSite
    from colosseum_core.events.site.plugin import EventsSite
    from colosseum_core.exports.units import UnitLog
    from colosseum_core.record.layout import Record
    from colosseum_core.site.public import PublicSite
    from colosseum_core.trial import TrialPart
    from colosseum_core.verify.audit import Audit

    AUDITS: tuple[Audit, ...]
    DEBATE_SITE: DebateSite
    EVENTS_SITE: EventsSite
    PUBLIC_SITE: PublicSite


def _audits() -> dict[str, Any]:
    """Each arena's part of `colosseum verify` (AUDITS), and the one public site (`colosseum board
    build`, PUBLIC_SITE): a landing page for every arena at its root, the forecasting board in
    forecast/, the debate arena's in debate/, the multi-event arena's in events/, the model trials'
    pages in trials/. The debate and events
    boards vouch for the records they read, so those must verify first."""
    from colosseum_core.debate.audit import DEBATE_AUDIT
    from colosseum_core.debate.site.plugin import DebateSite
    from colosseum_core.debate.topics.audit import TOPICS_AUDIT
    from colosseum_core.debate.trial.audit import TRIALS_AUDIT as DEBATE_TRIALS_AUDIT
    from colosseum_core.events.audit import EVENTS_AUDIT
    from colosseum_core.events.site.plugin import EventsSite
    from colosseum_core.forecast.audit import FORECAST_AUDIT
    from colosseum_core.forecast.audit.trial import TRIAL_AUDIT as FORECAST_TRIALS_AUDIT
    from colosseum_core.forecast.site import FORECAST_SITE
    from colosseum_core.site.public import PublicSite, SitePart
    from colosseum_core.site.trials import TrialPages

    debate_site = DebateSite((DEBATE_AUDIT, TOPICS_AUDIT))
    events_site = EventsSite((EVENTS_AUDIT,))
    return {
        "AUDITS": (
            FORECAST_AUDIT,
            FORECAST_TRIALS_AUDIT,
            DEBATE_AUDIT,
            TOPICS_AUDIT,
            DEBATE_TRIALS_AUDIT,
            EVENTS_AUDIT,
        ),
        "DEBATE_SITE": debate_site,
        "EVENTS_SITE": events_site,
        "PUBLIC_SITE": PublicSite(
            (
                SitePart(FORECAST_SITE, "forecast", "Forecasting"),
                SitePart(debate_site, "debate", "Debate"),
                SitePart(events_site, "events", "Events"),
            ),
            # Every arena's trial parts, asked when the site is built (trial_parts is defined below).
            trials=TrialPages(trial_parts),
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


def _forecast_trial() -> tuple[TrialPart, ...]:
    from colosseum_core.forecast.trial import trial_parts

    return trial_parts()


def _debate_trial_parts() -> tuple[TrialPart, ...]:
    from colosseum_core.debate.trial import DebateTrialPart

    return (DebateTrialPart(),)


def _events_trial_parts() -> tuple[TrialPart, ...]:
    # A chess, a Solve-or-Object and a challenge event, each with the model beside the house field.
    from colosseum_core.events.trial import TRIAL_EVENTS

    return TRIAL_EVENTS


# Each arena's parts of a model maker's trial (COLOSSEUM-TRIAL-1), by its record's name, imported
# only when asked for: the forecast's trial seat on the latest answered card, the debate's (the
# model debating the house debater and judging beside the house panel, ``debate.trial``) and the
# events' (``events.trial``).
TRIAL_PARTS: dict[str, Callable[[], tuple[TrialPart, ...]]] = {
    FORECAST.name: _forecast_trial,
    DEBATE.name: _debate_trial_parts,
    EVENTS.name: _events_trial_parts,
}


def unit_log_exporters() -> dict[str, Callable[[Record], Iterable[UnitLog]]]:
    """Each arena's sealed units as the exporters' unit logs (``colosseum export``), by record name,
    imported when asked for."""
    from colosseum_core.debate.exports import unit_logs as debate_logs
    from colosseum_core.events.exports import unit_logs as events_logs
    from colosseum_core.forecast.exports import unit_logs as forecast_logs

    return {FORECAST.name: forecast_logs, DEBATE.name: debate_logs, EVENTS.name: events_logs}


def trial_parts(arenas: Iterable[str] | None = None) -> tuple[Any, ...]:
    """The trial parts (``colosseum_core.trial.TrialPart``) of ``arenas`` (record names; every arena's
    by default): each arena's ``TRIAL_PARTS``, then those the modules ``$COLOSSEUM_TRIAL_PARTS`` names
    offer; what ``colosseum trial`` asks and the site's trial pages read."""
    import os

    from colosseum_core.trial.registry import offered_parts, parts_of

    return parts_of(offered_parts(globals().get("TRIAL_PARTS", {}), os.environ), arenas)
