"""Cosmetics of the simulated board: wording, hashes, books and volume scales, per event.

Drawn lazily from ``random.Random(f"{seed}:e:{event_id}")`` the first time an event is shown, and
frozen into key/value tuples (one shared key tuple per shape) so a cached 50,000-market board
stays compact. Key order follows the real payloads in the reference samples.
"""

from __future__ import annotations

import hashlib
import math
import random
from typing import Any

from colosseum_standins.simulated_exchange import catalog as C
from colosseum_standins.simulated_exchange._common import (
    NEGRISK_RESOLVER,
    RESOLVER,
    SUBMITTER,
    USDC,
    _abbr,
    _et_clock,
    _hex64,
    _jlist,
    _micro,
    _money,
    _month_day,
    _name_hash,
    _slugify,
    team_name,
)
from colosseum_standins.simulated_exchange._skeleton import _Ev
from colosseum_standins.simulated_exchange._time import DAY, HOUR, MINUTE, day_iso, from_ts, iso_z, pg

_KEYSETS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _freeze(d: dict[str, Any]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    keys = tuple(d)
    keys = _KEYSETS.setdefault(keys, keys)
    return keys, tuple(d.values())


_TAGS: dict[str, dict[str, Any]] = {}


def _game_number(ev: _Ev) -> int | None:
    """The game id a sports event carries: the fixture's, which its "More Markets" event shares and a
    re-listing of it shares, carries one of its own, or carries none."""
    if ev.stream != "sports":
        return None
    root = ev
    if ev.kind == "fixture_dup":
        if ev.extra["game"] == 2:
            return None
        root = ev if ev.extra["game"] == 1 else ev.parent or ev
    elif ev.kind == "soccer_more" and ev.parent is not None:
        root = ev.parent
    return root.eid * 37 + 1_000_003


def _tag(tid: str, label: str) -> dict[str, Any]:
    tag = _TAGS.get(tid)
    if tag is None:
        tag = {
            "id": tid,
            "label": label,
            "slug": _slugify(label),
            "forceShow": False,
            "createdAt": "2023-11-02T21:03:54.564Z",
            "updatedAt": "2026-04-17T20:26:28.786983Z",
            "requiresTranslation": False,
        }
        _TAGS[tid] = tag
    return tag


_FEES = {
    "sports_fees_v2": {"exponent": 1, "rate": 0.05, "takerOnly": True, "rebateRate": 0.15},
    "crypto_fees": {"exponent": 2, "rate": 0.25, "takerOnly": True, "rebateRate": 0.2},
    "finance_prices_fees": {"exponent": 1, "rate": 0.04, "takerOnly": True, "rebateRate": 0.25},
    "weather_fees": {"exponent": 1, "rate": 0.04, "takerOnly": True, "rebateRate": 0.25},
    "economics_fees": {"exponent": 1, "rate": 0.05, "takerOnly": True, "rebateRate": 0.25},
}


class _Detailer:
    """Fills in an event's cosmetics from its own seeded RNG."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def ensure(self, ev: _Ev) -> None:
        if ev.detail:
            return
        if ev.parent is not None:
            self.ensure(ev.parent)
        rng = random.Random(f"{self.seed}:e:{ev.eid}")
        texts = getattr(self, f"_t_{ev.kind.removesuffix('_twin')}")(ev, rng)
        self._fill(ev, rng, texts)
        ev.detail = True

    # texts per kind: returns dict with event title/description/slug/etc. and per-market rows
    def _t_game(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        slug, name, sport, _d, _e, source, tag, _h, _w = C.LEAGUES[ev.league]
        a, b = (team_name(ev.league, team) for team in ev.extra["teams"])
        assert ev.start is not None
        when = f"{_month_day(ev.start)} at {_et_clock(ev.start)}"
        date = day_iso(ev.start)
        abbr_a, abbr_b = _abbr(a), _abbr(b)
        ev_slug = f"{slug}-{abbr_a}-{abbr_b}-{date}"
        if slug in C.ESPORTS:
            stage = rng.choice(("Pro League", "Masters", "Open Qualifier", "Playoffs"))
            title = f"{name}: {a} vs {b} (BO3) - {stage}"
        elif slug == "ufc":
            title = f"UFC Fight Night: {a} vs. {b}"
        elif slug == "mlp":
            title = f"MLP: {a} vs {b} (Match {rng.randint(1, 3)})"
        else:
            title = f"{a} vs. {b}"
        desc = C.SPORT_RULES.format(league=name, a=a, b=b, when=when)
        rows = []
        for kind in ev.extra["kinds"]:
            if kind == "moneyline":
                rows.append(
                    {
                        "q": title,
                        "slug": ev_slug,
                        "outcomes": (a, b),
                        "smt": "moneyline",
                        "desc": desc,
                        "git": "Match Winner" if slug in C.ESPORTS else None,
                    }
                )
            elif kind in ("spreads", "map_handicap"):
                line = -rng.choice((1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)) if kind == "spreads" else -1.5
                fav = a if rng.random() < 0.5 else b
                other = b if fav == a else a
                label = "Spread" if kind == "spreads" else "Map Handicap"
                body = (
                    f'This market will resolve to "{fav}" if {fav} wins by more than {abs(line)} '
                    f"{'points' if kind == 'spreads' else 'maps'}. Otherwise, this market will resolve to "
                    f'"{other}".'
                )
                rows.append(
                    {
                        "q": f"{label}: {fav} ({line})",
                        "slug": f"{ev_slug}-{kind.replace('_', '-')}-"
                        f"{_abbr(fav)}-{str(abs(line)).replace('.', 'pt')}",
                        "outcomes": (fav, other),
                        "smt": kind,
                        "line": line,
                        "git": f"{label} {line}",
                        "desc": C.LINE_RULES.format(league=name, when=when, body=body),
                    }
                )
            elif kind == "totals":
                line = {"nba": 224.5, "nfl": 44.5, "mlb": 8.5, "nhl": 6.5}.get(slug, 150.5) + rng.choice(
                    (-3, -2, -1, 0, 1, 2, 3)
                )
                body = (
                    f'This market will resolve to "Over" if the total combined score is greater than {line}. '
                    f'Otherwise, this market will resolve to "Under".'
                )
                rows.append(
                    {
                        "q": f"{a} vs. {b}: O/U {line}",
                        "slug": f"{ev_slug}-total-{str(line).replace('.', 'pt')}",
                        "outcomes": ("Over", "Under"),
                        "smt": "totals",
                        "line": line,
                        "git": f"O/U {line}",
                        "desc": C.LINE_RULES.format(league=name, when=when, body=body),
                    }
                )
            else:  # distance
                body = (
                    'This market will resolve to "Yes" if the fight goes the full scheduled distance and is '
                    'decided by the judges. Otherwise, this market will resolve to "No".'
                )
                rows.append(
                    {
                        "q": f"{a} vs. {b}: Will the fight go the distance?",
                        "slug": f"{ev_slug}-distance",
                        "outcomes": ("Yes", "No"),
                        "git": "Go the Distance",
                        "desc": C.LINE_RULES.format(league=name, when=when, body=body),
                    }
                )
        return {
            "title": title,
            "slug": ev_slug,
            "desc": desc,
            "source": source,
            "tags": [("1", "Sports"), (str(100000 + ev.league), tag), ("100639", "Games")],
            "image": f"{C.IMG}league-icons/{slug}.png",
            "fee": "sports_fees_v2",
            "rows": rows,
            "teams": (a, b),
            "sport": (slug, sport, name),
            "series": (slug, name, "daily"),
        }

    def _t_soccer(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        slug, name, _sport, _d, _e, source, tag, _h, _w = C.LEAGUES[ev.league]
        home, away = (team_name(ev.league, team) for team in ev.extra["teams"])
        assert ev.start is not None
        when = f"{_month_day(ev.start)} at {_et_clock(ev.start)}"
        date = day_iso(ev.start)
        ev_slug = f"{slug}-{_abbr(home)}-{_abbr(away)}-{date}"
        rows = []
        for subject, q, git in (
            (f"{home} wins", f"Will {home} win on {date}?", home),
            (
                f"the game between {home} and {away} ends in a draw",
                f"Will {home} vs. {away} end in a draw?",
                f"Draw ({home} vs. {away})",
            ),
            (f"{away} wins", f"Will {away} win on {date}?", away),
        ):
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(q),
                    "outcomes": ("Yes", "No"),
                    "smt": "moneyline",
                    "git": git,
                    "desc": C.SOCCER_RULES.format(league=name, when=when, subject=subject),
                }
            )
        return {
            "title": f"{home} vs. {away}",
            "slug": ev_slug,
            "desc": rows[0]["desc"],
            "source": source,
            "tags": [("1", "Sports"), (str(100000 + ev.league), tag), ("100350", "Soccer")],
            "image": f"{C.IMG}league-icons/{slug}.png",
            "fee": "sports_fees_v2",
            "rows": rows,
            "teams": (home, away),
            "sport": (slug, "Soccer", name),
            "series": (slug, name, "daily"),
            "neg": True,
        }

    def _t_soccer_more(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        assert ev.parent is not None and ev.parent.tmpl is not None
        slug, name, _sport, _d, _e, source, tag, _h, _w = C.LEAGUES[ev.league]
        home, away = (team_name(ev.league, team) for team in ev.extra["teams"])
        assert ev.start is not None
        when = f"{_month_day(ev.start)} at {_et_clock(ev.start)}"
        base = f"{slug}-{_abbr(home)}-{_abbr(away)}-{day_iso(ev.start)}"
        body_t = (
            'This market will resolve to "Over" if the total number of goals scored is 3 or more. '
            'Otherwise, this market will resolve to "Under".'
        )
        body_b = (
            'This market will resolve to "Yes" if both teams score at least one goal. Otherwise, this market '
            'will resolve to "No".'
        )
        rows = [
            {
                "q": f"{home} vs. {away}: O/U 2.5",
                "slug": f"{base}-total-2pt5",
                "outcomes": ("Over", "Under"),
                "smt": "totals",
                "line": 2.5,
                "git": "O/U 2.5",
                "desc": C.LINE_RULES.format(league=name, when=when, body=body_t),
            },
            {
                "q": f"{home} vs. {away}: Both Teams to Score",
                "slug": f"{base}-btts",
                "outcomes": ("Yes", "No"),
                "smt": "both_teams_to_score",
                "git": "Both Teams to Score",
                "desc": C.LINE_RULES.format(league=name, when=when, body=body_b),
            },
        ]
        return {
            "title": f"{home} vs. {away} - More Markets",
            "slug": f"{base}-more-markets",
            "desc": rows[0]["desc"],
            "source": source,
            "tags": [("1", "Sports"), (str(100000 + ev.league), tag)],
            "image": f"{C.IMG}league-icons/{slug}.png",
            "fee": "sports_fees_v2",
            "rows": rows,
            "teams": (home, away),
            "sport": (slug, "Soccer", name),
            "series": (slug, name, "daily"),
        }

    def _t_fixture_dup(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        slug, name, sport, _d, _e, source, tag, _h, _w = C.LEAGUES[ev.league]
        home, away = (team_name(ev.league, team) for team in ev.extra["teams"])
        assert ev.start is not None
        when = f"{_month_day(ev.start)} at {_et_clock(ev.start)}"
        title = C.FIXTURE_STYLES[ev.extra["style"]].format(
            home=home, away=away, HOME=home.upper(), AWAY=away.upper(), league=name
        )
        q = f"Will {home} beat {away}?"
        body = (
            f'This market will resolve to "Yes" if {home} wins the game. Otherwise, this market will '
            'resolve to "No".'
        )
        desc = C.LINE_RULES.format(league=name, when=when, body=body)
        ev_slug = f"{_slugify(title)}-{day_iso(ev.start)}-{rng.randint(100, 999)}"
        return {
            "title": title,
            "slug": ev_slug,
            "desc": desc,
            "source": source,
            "tags": [("1", "Sports"), (str(100000 + ev.league), tag)],
            "image": f"{C.IMG}league-icons/{slug}.png",
            "fee": "sports_fees_v2",
            "rows": [{"q": q, "slug": f"{ev_slug}-{_abbr(home)}", "outcomes": ("Yes", "No"), "desc": desc}],
            "teams": (home, away),
            "sport": (slug, sport, name),
        }

    def _t_weather(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        short, city, station, path = C.CITIES_WEATHER[ev.extra["city"]]
        date = _month_day(ev.end)
        src = f"https://www.wunderground.com/history/daily/{path}/{station}"
        rows = []
        for m in ev.markets:
            if m.lo is None:
                label = f"{int(m.hi - 0.5)}°F or below"  # type: ignore[operator]
            elif m.hi is None:
                label = f"{int(m.lo + 0.5)}°F or higher"
            else:
                label = f"{int(m.lo + 0.5)}-{int(m.hi - 0.5)}°F"
            q = f"Will the highest temperature in {city} be {label} on {date}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"highest temperature in {short} on {date} {label}"),
                    "outcomes": ("Yes", "No"),
                    "git": label,
                }
            )
        desc = (
            "This market will resolve to the temperature range that contains the highest "
            "temperature recorded "
            f"at the {city} {station} station in degrees Fahrenheit on {date}.\n\nThe resolution "
            "source for this "
            f"market will be information from Wunderground, available here: {src}. This market can "
            "not resolve "
            f'to "Yes" until all data for this date has been finalized.\n\nAny revisions to temperatures '
            f"recorded after data is finalized for this market's timeframe will not be considered."
        )
        return {
            "title": f"Highest temperature in {city} on {date}?",
            "slug": _slugify(f"highest temperature in {short} on {date} {from_ts(ev.end).year}"),
            "desc": desc,
            "source": src,
            "tags": [("84", "Weather"), ("103037", "Daily Temperature")],
            "image": f"{C.IMG}weather-{_slugify(short)}.png",
            "fee": "weather_fees",
            "rows": rows,
            "neg": True,
            "series": (f"{_slugify(short)}-daily-weather", f"{city} Daily Weather", "daily"),
        }

    def _t_crypto_above(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, _s, _b, _v = C.CRYPTO[ev.extra["asset"]]
        date = _month_day(ev.end)
        rows = []
        for m in ev.markets:
            assert m.lo is not None
            px = _money(m.lo)
            q = f"Will the price of {name} be above ${px} on {date}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{name} above {px} on {date}"),
                    "outcomes": ("Yes", "No"),
                    "git": px,
                }
            )
        desc = (
            f'This market will resolve to "Yes" if the Binance 1 minute candle for {tick}/USDT '
            "12:00 in the ET "
            f'timezone (noon) on {date} has a final "Close" price higher than the price specified in the '
            'title. Otherwise, this market will resolve to "No".\n\nThe resolution source for this '
            "market is "
            f'Binance, specifically the {tick}/USDT "Close" prices currently available at '
            f'https://www.binance.com/en/trade/{tick}_USDT with "1m" and "Candles" selected.'
        )
        return {
            "title": f"{name} above ___ on {date}?",
            "slug": _slugify(f"{name} above on {date}"),
            "desc": desc,
            "source": f"https://www.binance.com/en/trade/{tick}_USDT",
            "tags": [("21", "Crypto"), ("235", name)],
            "image": f"{C.IMG}{tick}+fullsize.png",
            "fee": "crypto_fees",
            "rows": rows,
            "series": (f"{tick.lower()}-multi-strikes-daily", f"{name} Multi Strikes Daily", "daily"),
        }

    def _t_crypto_range(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, _s, _b, _v = C.CRYPTO[ev.extra["asset"]]
        date = _month_day(ev.end)
        rows = []
        for m in ev.markets:
            if m.lo is None:
                label, q = (
                    f"<{_money(m.hi)}",
                    f"Will the price of {name} be less than ${_money(m.hi)} on {date}?",
                )
            elif m.hi is None:
                label, q = (
                    f">{_money(m.lo)}",
                    f"Will the price of {name} be greater than ${_money(m.lo)} on {date}?",
                )
            else:
                label = f"{_money(m.lo)}-{_money(m.hi)}"
                q = f"Will the price of {name} be between ${_money(m.lo)} and ${_money(m.hi)} on {date}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{name} price {label} on {date}"),
                    "outcomes": ("Yes", "No"),
                    "git": label,
                }
            )
        desc = (
            f'This market will resolve to "Yes" if the Binance 1 minute candle for {tick}/USDT '
            "12:00 in the ET "
            f'timezone (noon) on {date} has a final "Close" price within the range specified in the title. '
            f'Otherwise, this market will resolve to "No".'
        )
        return {
            "title": f"{name} price on {date}?",
            "slug": _slugify(f"{name} price on {date}"),
            "desc": desc,
            "source": f"https://www.binance.com/en/trade/{tick}_USDT",
            "tags": [("21", "Crypto"), ("235", name)],
            "image": f"{C.IMG}{tick}+fullsize.png",
            "fee": "crypto_fees",
            "rows": rows,
            "neg": True,
        }

    def _t_stock_updown(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, _b = C.STOCKS[ev.extra["stock"]]
        date = _month_day(ev.end)
        title = f"{name} ({tick}) Up or Down on {date}?"
        desc = (
            f'This market will resolve to "Up" if the official closing price for {name} ({tick}) on '
            f"{date} is "
            "higher than the official closing price on the previous trading day. Otherwise, this "
            "market will "
            f'resolve to "Down".\n\nIf the market is closed on the specified date, this market will resolve '
            f"50-50.\n\nThe resolution source for this market is the official closing price as published by "
            f"Nasdaq."
        )
        rows = [{"q": title, "slug": _slugify(f"{tick} up or down on {date}"), "outcomes": ("Up", "Down")}]
        return {
            "title": title,
            "slug": rows[0]["slug"],
            "desc": desc,
            "source": "https://www.nasdaq.com/",
            "tags": [("120", "Finance"), ("604", "Stocks")],
            "image": f"{C.IMG}{tick.lower()}.png",
            "fee": "finance_prices_fees",
            "rows": rows,
            "series": (f"{tick.lower()}-daily-up-or-down", f"{tick} Daily Up or Down", "daily"),
        }

    def _t_stock_above(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, _b = C.STOCKS[ev.extra["stock"]]
        date = _month_day(ev.end)
        rows = []
        for m in ev.markets:
            assert m.lo is not None
            px = _money(m.lo)
            q = f"Will {name} ({tick}) close above ${px} on {date}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{tick} close above {px} on {date}"),
                    "outcomes": ("Yes", "No"),
                    "git": f"${px}",
                }
            )
        desc = (
            f'This market will resolve to "Yes" if the official closing price of {name} ({tick}) on '
            f"{date} is "
            f'above the price specified in the title. Otherwise, this market will resolve to "No".\n\nIf '
            f'there is no official close on that date, this market will resolve "No".'
        )
        return {
            "title": f"{name} ({tick}) close above ___ on {date}?",
            "slug": _slugify(f"{tick} above on {date}"),
            "desc": desc,
            "source": "https://www.nasdaq.com/",
            "tags": [("120", "Finance"), ("604", "Stocks")],
            "image": f"{C.IMG}{tick.lower()}.png",
            "fee": "finance_prices_fees",
            "rows": rows,
        }

    def _t_mentions(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        short, full, occasion = C.MENTION_SPEAKERS[ev.extra["speaker"]]
        date = _month_day(ev.end)
        rows = []
        for wi in ev.extra["words"]:
            w = C.MENTION_WORDS[wi]
            q = f'Will {short} say "{w}" during the {occasion} on {date}?'
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{short} say {w} {occasion} {date}"),
                    "outcomes": ("Yes", "No"),
                    "git": w,
                }
            )
        desc = (
            f'This market will resolve to "Yes" if {full} says the listed term during the {occasion} '
            f'scheduled for {date}. Otherwise, this market will resolve to "No".\n\nAny usage of the term '
            f"regardless of context will count toward the resolution of this market. Pluralization and "
            f"possessive forms of the term will count; other forms will not.\n\nIf the {occasion} "
            "does not take "
            'place on the scheduled date, this market will resolve to "No".\n\nThe resolution '
            "source will be "
            f"video of the {occasion}."
        )
        # A second listing of the appearance has the same title; only its slugs tell the two apart.
        again = f"-{rng.randint(100, 999)}" if ev.parent is not None else ""
        for row in rows:
            row["slug"] += again
        return {
            "title": f"What will {short} say during the {occasion} on {date}?",
            "slug": _slugify(f"what will {short} say {occasion} {date}") + again,
            "desc": desc,
            "source": "",
            "tags": [("2", "Politics"), ("101757", "Mentions")],
            "image": f"{C.IMG}{_slugify(short)}-mentions.png",
            "fee": None,
            "rows": rows,
        }

    def _t_tweets(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        who, handle = C.TWEETERS[ev.extra["who"]]
        a, b = _month_day(ev.created), _month_day(ev.end)
        year = from_ts(ev.end).year
        rows = []
        for m in ev.markets:
            if m.lo is None:
                label = f"<{int(m.hi)}"  # type: ignore[arg-type]
                q = f"Will {who} post fewer than {int(m.hi)} tweets from {a} to {b}, {year}?"  # type: ignore[arg-type]
            elif m.hi is None:
                label = f"{int(m.lo)}+"
                q = f"Will {who} post {int(m.lo)} or more tweets from {a} to {b}, {year}?"
            else:
                label = f"{int(m.lo)}-{int(m.hi) - 1}"
                q = f"Will {who} post {label} tweets from {a} to {b}, {year}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{handle} tweets {a} {b} {year} {label}"),
                    "outcomes": ("Yes", "No"),
                    "git": label,
                }
            )
        desc = (
            f"This market will resolve according to the number of times {who} (@{handle}) posts on X between "
            f"{a}, 12:00 PM ET and {b}, {year}, 12:00 PM ET.\n\nReplies will not count toward the total, but "
            f"reposts and quote posts will.\n\nThe resolution source is the post counter at "
            f"https://xtracker.io/ for the @{handle} account."
        )
        return {
            "title": f"{who} # of tweets {a} - {b}, {year}?",
            "slug": _slugify(f"{handle} of tweets {a} {b} {year}"),
            "desc": desc,
            "source": "https://xtracker.io/",
            "tags": [("22", "Tech"), ("409", "X")],
            "image": f"{C.IMG}{handle}.png",
            "fee": None,
            "rows": rows,
            "neg": True,
            "series": (f"{handle.lower()}-tweets", f"{who} Tweets", "weekly"),
        }

    def _t_crypto_reach(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, _s, _b, _v = C.CRYPTO[ev.extra["asset"]]
        a, b = _month_day(ev.created), _month_day(ev.end)
        level = sorted(m.lo for m in ev.markets if m.lo is not None)[3]
        rows = []
        for m in ev.markets:
            assert m.lo is not None
            px = _money(m.lo)
            verb = "reach" if m.lo >= level else "dip to"
            q = f"Will {name} {verb} ${px} {a}-{b}?"
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(f"{name} {verb} {px} {a} {b}"),
                    "outcomes": ("Yes", "No"),
                    "git": f"{'↑' if verb == 'reach' else '↓'} {px}",
                }
            )
        desc = (
            f'This market will immediately resolve to "Yes" if any Binance 1 minute candle for {tick}/USDT '
            f'between {a}, 00:00 and {b}, 23:59 ET has a final "High" (or "Low" for dip markets) price '
            f"equal to or beyond the price specified in the title. Otherwise, this market will resolve to "
            f'"No".'
        )
        return {
            "title": f"What price will {name} hit {a}-{b}?",
            "slug": _slugify(f"what price will {name} hit {a} {b}"),
            "desc": desc,
            "source": f"https://www.binance.com/en/trade/{tick}_USDT",
            "tags": [("21", "Crypto"), ("235", name)],
            "image": f"{C.IMG}{tick}+fullsize.png",
            "fee": "crypto_fees",
            "rows": rows,
            "series": (f"{tick.lower()}-hit-price-weekly", f"{name} Hit Price Weekly", "weekly"),
        }

    def _t_box_office(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        movie = C.MOVIES[ev.extra["movie"]]
        g = ev.extra["gross"]
        q = f'Will "{movie}" gross more than ${g}M in its opening weekend?'
        desc = (
            f'This market will resolve to "Yes" if "{movie}" grosses more than ${g}M domestically in its '
            f"opening weekend (Friday-Sunday), as reported by Box Office Mojo. Otherwise, this market will "
            f'resolve to "No".\n\nIf the release is postponed past the listed weekend, this market will '
            f"resolve 50-50."
        )
        rows = [{"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No")}]
        return {
            "title": f'"{movie}" opening weekend box office?',
            "slug": _slugify(f"{movie} opening weekend"),
            "desc": desc,
            "source": "https://www.boxofficemojo.com/",
            "tags": [("53", "Movies"), ("596", "Culture")],
            "image": f"{C.IMG}{_slugify(movie)}.png",
            "fee": None,
            "rows": rows,
        }

    def _by_date_texts(
        self, ev: _Ev, rng: random.Random, pool: tuple[tuple[str, str], ...], tags: list[tuple[str, str]]
    ) -> tuple[str, str, str]:
        tpl, what = rng.choice(pool)
        ca, cb = rng.sample(range(len(C.COUNTRIES)), 2)
        a, nat = C.COUNTRIES[ca]
        b = C.COUNTRIES[cb][0]
        c = rng.choice(C.COMPANIES)
        deadline = f"{_month_day(ev.end - DAY)}, {from_ts(ev.end - DAY).year}"
        fmt = {"a": a, "b": b, "nat": nat, "c": c}
        return tpl.format(date=deadline, **fmt), what.format(**fmt), deadline

    def _binary_by_date(
        self,
        ev: _Ev,
        rng: random.Random,
        pool: tuple[tuple[str, str], ...],
        tags: list[tuple[str, str]],
        source: str,
    ) -> dict[str, Any]:
        if ev.parent is not None and ev.kind.endswith("_twin"):
            assert ev.parent.markets[0].tmpl is not None
            keys, vals = ev.parent.markets[0].tmpl
            pd = dict(zip(keys, vals, strict=True))
            q, desc = pd["question"], pd["description"]
            title = q.removesuffix("?") + " (official)?" if rng.random() < 0.5 else q
            rows = [{"q": q, "slug": _slugify(q) + f"-{rng.randint(100, 999)}", "outcomes": ("Yes", "No")}]
            return {
                "title": title,
                "slug": _slugify(title) + f"-{rng.randint(100, 999)}",
                "desc": desc,
                "source": source,
                "tags": [(a, b) for a, b in tags],
                "image": f"{C.IMG}{_slugify(q)[:40]}.png",
                "fee": None,
                "rows": rows,
            }
        q, what, deadline = self._by_date_texts(ev, rng, pool, tags)
        extra = rng.choice(
            (
                "",
                "This market may resolve early if the event occurs before the deadline.\n\n",
                "An announcement of intent without a completed action will not count.\n\n",
            )
        )
        desc = C.BY_DATE_RULES.format(
            what=what, deadline=deadline, extra=extra, source=source or "a consensus of credible reporting"
        )
        rows = [{"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No")}]
        return {
            "title": q,
            "slug": _slugify(q),
            "desc": desc,
            "source": source,
            "tags": tags,
            "image": f"{C.IMG}{_slugify(q)[:40]}.png",
            "fee": None,
            "rows": rows,
        }

    def _t_by_date(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._binary_by_date(ev, rng, C.COMPANY_EVENTS, [("107", "Business"), ("1401", "Tech")], "")

    def _t_company(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._binary_by_date(ev, rng, C.COMPANY_EVENTS, [("107", "Business"), ("1401", "Tech")], "")

    def _t_geo(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._binary_by_date(
            ev, rng, C.GEO_EVENTS, [("2", "Politics"), ("101970", "World"), ("100265", "Geopolitics")], ""
        )

    def _t_macro(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._binary_by_date(
            ev,
            rng,
            C.MACRO_EVENTS,
            [("120", "Finance"), ("100328", "Economy")],
            "https://fred.stlouisfed.org/",
        )

    def _ladder(
        self, ev: _Ev, rng: random.Random, pool: tuple[tuple[str, str], ...], tags: list[tuple[str, str]]
    ) -> dict[str, Any]:
        tpl, what = rng.choice(pool)
        ca, cb = rng.sample(range(len(C.COUNTRIES)), 2)
        a, nat = C.COUNTRIES[ca]
        fmt = {"a": a, "b": C.COUNTRIES[cb][0], "nat": nat, "c": rng.choice(C.COMPANIES)}
        rows = []
        for m in ev.markets:
            deadline = f"{_month_day(m.end - DAY)}, {from_ts(m.end - DAY).year}"
            q = tpl.format(date=deadline, **fmt)
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(q),
                    "outcomes": ("Yes", "No"),
                    "git": deadline,
                    "desc": C.BY_DATE_RULES.format(
                        what=what.format(**fmt),
                        deadline=deadline,
                        extra="",
                        source="a consensus of credible reporting",
                    ),
                }
            )
        title = tpl.format(date="___", **fmt).replace("by ___?", "by...?")
        return {
            "title": title,
            "slug": _slugify(title),
            "desc": rows[-1]["desc"],
            "source": "",
            "tags": tags,
            "image": f"{C.IMG}{_slugify(title)[:40]}.png",
            "fee": None,
            "rows": rows,
        }

    def _t_company_ladder(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._ladder(ev, rng, C.COMPANY_EVENTS, [("107", "Business"), ("600", "IPOs")])

    def _t_geo_ladder(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        return self._ladder(ev, rng, C.GEO_EVENTS, [("2", "Politics"), ("101970", "World")])

    def _t_fed(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        d = from_ts(ev.end)
        month, year = C.MONTHS[d.month - 1], d.year
        labels = ("50+ bps decrease", "25 bps decrease", "No change", "25+ bps increase")
        qs = (
            f"Will the Fed decrease interest rates by 50+ bps after the {month} {year} meeting?",
            f"Will the Fed decrease interest rates by 25 bps after the {month} {year} meeting?",
            f"Will there be no change in Fed interest rates after the {month} {year} meeting?",
            f"Will the Fed increase interest rates by 25+ bps after the {month} {year} meeting?",
        )
        desc = (
            "The FED interest rates are defined in this market by the upper bound of the target "
            "federal funds "
            f"range. The decisions on the target federal funds range are made by the Federal Open Market "
            f"Committee (FOMC) meetings.\n\nThis market will resolve to the amount of basis points the upper "
            "bound of the target federal funds rate is changed by versus the level it was prior to "
            "the Federal "
            f"Reserve's {month} {year} meeting.\n\nThe resolution source for this market is the "
            "FOMC's statement "
            f"after its meeting scheduled for {_month_day(ev.end - DAY)}-{d.day}, {year}."
        )
        rows = [
            {"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No"), "git": lab}
            for q, lab in zip(qs, labels, strict=True)
        ]
        return {
            "title": f"Fed Decision in {month}?",
            "slug": _slugify(f"fed decision in {month} {year}"),
            "desc": desc,
            "source": "https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm",
            "tags": [("120", "Finance"), ("100196", "Fed Rates"), ("100328", "Economy")],
            "image": f"{C.IMG}jerome+powell+glasses1.png",
            "fee": "economics_fees",
            "rows": rows,
            "neg": True,
            "series": ("fomc", "FOMC", "monthly"),
        }

    def _t_fed_cut(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        d = from_ts(ev.end)
        month = C.MONTHS[d.month - 1]
        q = f"Will the Fed cut rates in {month}?"
        desc = (
            f'This market will resolve to "Yes" if the Federal Reserve lowers the upper bound of the target '
            f"federal funds range at its {month} {d.year} FOMC meeting. Otherwise, this market will "
            "resolve to "
            f'"No".\n\nThe resolution source for this market is the FOMC statement published after the '
            f"meeting."
        )
        title = (
            f"Fed rate cut in {month}?"
            if ev.extra.get("copy", 0) == 0
            else f"Fed rate cut in {month} {d.year}?"
        )
        rows = [
            {
                "q": q,
                "slug": _slugify(q) + ("" if ev.extra.get("copy", 0) == 0 else f"-{d.year}"),
                "outcomes": ("Yes", "No"),
            }
        ]
        return {
            "title": title,
            "slug": _slugify(title),
            "desc": desc,
            "source": "https://www.federalreserve.gov/monetarypolicy/openmarket.htm",
            "tags": [("120", "Finance"), ("100196", "Fed Rates")],
            "image": f"{C.IMG}jerome+powell+glasses1.png",
            "fee": "economics_fees",
            "rows": rows,
            "series": ("fomc", "FOMC", "monthly"),
        }

    def _t_cpi(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        d = from_ts(ev.end - 40 * DAY)
        month, year = C.MONTHS[d.month - 1], d.year
        rows = []
        for m in ev.markets:
            assert m.lo is not None
            x = f"{m.lo - 0.05:.1f}"
            q = f"Will US annual inflation be above {x}% in {month} {year}?"
            rows.append({"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No"), "git": f">{x}%"})
        desc = (
            f'This market will resolve to "Yes" if the year-over-year change in the US Consumer Price Index '
            f"(CPI-U, not seasonally adjusted) for {month} {year}, as first published by the Bureau of Labor "
            f"Statistics, is greater than the value in the title. Otherwise, this market will resolve to "
            f'"No".\n\nThe resolution source is https://www.bls.gov/cpi/. Revisions after the first release '
            f"will not be considered."
        )
        return {
            "title": f"US inflation (CPI YoY) in {month}?",
            "slug": _slugify(f"us inflation cpi yoy {month} {year}"),
            "desc": desc,
            "source": "https://www.bls.gov/cpi/",
            "tags": [("120", "Finance"), ("101016", "CPI"), ("100328", "Economy")],
            "image": f"{C.IMG}cpi.png",
            "fee": "economics_fees",
            "rows": rows,
        }

    def _names(self, rng: random.Random, n: int) -> list[str]:
        seen: set[str] = set()
        out = []
        while len(out) < n:
            name = f"{rng.choice(C.FIRST_NAMES)} {rng.choice(C.LAST_NAMES)}"
            if name not in seen:
                seen.add(name)
                out.append(name)
        return out

    def _family(
        self,
        ev: _Ev,
        rng: random.Random,
        title: str,
        q_tpl: str,
        desc: str,
        tags: list[tuple[str, str]],
        country: str = "",
        election: str = "",
    ) -> dict[str, Any]:
        named = [m for m in ev.markets if not m.placeholder and not m.other]
        names = self._names(rng, len(named))
        rows = []
        for nm in names:
            q = q_tpl.format(n=nm)
            rows.append(
                {
                    "q": q,
                    "slug": _slugify(q) + f"-{rng.randint(100, 999)}",
                    "outcomes": ("Yes", "No"),
                    "git": nm,
                }
            )
        if any(m.other for m in ev.markets):
            q = q_tpl.format(n="another person")
            rows.append({"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No"), "git": "Other"})
        letters = "ABCDEFGHIJ"
        for i, _m in enumerate(m for m in ev.markets if m.placeholder):
            q = q_tpl.format(n=f"Person {letters[i]}")
            rows.append(
                {"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No"), "git": f"Person {letters[i]}"}
            )
        return {
            "title": title,
            "slug": _slugify(title),
            "desc": desc,
            "source": "",
            "tags": tags,
            "image": f"{C.IMG}{_slugify(title)[:40]}.png",
            "fee": None,
            "rows": rows,
            "neg": True,
            "country": country,
            "election": election,
            "sort": "price",
        }

    def _t_election(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        year = from_ts(ev.end).year
        if rng.random() < 0.5:
            country, _nat = rng.choice(C.COUNTRIES)
            title = f"{country} Presidential Election Winner {year}"
            q_tpl = f"Will {{n}} win the {year} {country} presidential election?"
            election = "Presidential"
        else:
            state = rng.choice(C.US_STATES)
            office = rng.choice(("Governor", "Senate"))
            title = f"{state} {office} Election Winner {year}"
            q_tpl = f"Will {{n}} win the {year} {state} {office} election?"
            country, election = "U.S.", office
        desc = (
            'This market will resolve to "Yes" if the named candidate wins the '
            f"{title.removesuffix(' Winner ' + str(year))} "
            f'held in {year}. Otherwise, it will resolve to "No".\n\nThe resolution source will be '
            "the official "
            "certified results, or a consensus of credible reporting if certification is delayed "
            "beyond the end "
            "date.\n\nIf the election is postponed beyond the end date, this market will resolve "
            'to "No" for '
            f'all candidates, except "Other" which will resolve to "Yes" if it exists.'
        )
        return self._family(
            ev,
            rng,
            title,
            q_tpl,
            desc,
            [("2", "Politics"), ("144", "Elections"), ("101970", "World")],
            country,
            election,
        )

    def _t_ai_rank(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        d = from_ts(ev.end)
        month = C.MONTHS[d.month - 1]
        labs = rng.sample(C.AI_LABS, len(ev.markets))
        rows = []
        for lab in labs:
            q = f"Will {lab} have the best AI model at the end of {month} {d.year}?"
            rows.append({"q": q, "slug": _slugify(q), "outcomes": ("Yes", "No"), "git": lab})
        desc = (
            "This market will resolve according to the company that owns the model with the "
            "highest Text Arena "
            f"score on the LMArena leaderboard on {month} {d.day}, {d.year}, 12:00 PM ET. If two models are "
            f"tied, the company whose name comes first alphabetically wins."
        )
        title = f"Which company has the best AI model end of {month}?"
        return {
            "title": title,
            "slug": _slugify(f"{title} {d.year}"),
            "desc": desc,
            "source": "https://lmarena.ai/",
            "tags": [("22", "Tech"), ("439", "AI")],
            "image": f"{C.IMG}ai-model.png",
            "fee": None,
            "rows": rows,
            "neg": True,
        }

    def _t_marquee(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        title_t, q_t, country, election = C.MARQUEE[ev.extra["template"]]
        year = from_ts(ev.end).year
        title = title_t.format(y=year)
        if ev.extra["serial"]:
            title = f"{title} ({ev.extra['serial'] + 1})"
        q_tpl = q_t.format(y=year, n="{n}")
        desc = (
            f'This market will resolve to "Yes" if the listed person is the winner of "{title}". Otherwise, '
            f'it will resolve to "No".\n\nThe resolution source will be the official announcement, or a '
            "consensus of credible reporting.\n\nIf the result is not known by the end date, this "
            "market will "
            f"remain open until it is. Unnamed outcomes (Person A, B, ...) may be assigned names later; an "
            f'unlisted winner resolves the "Other" market to "Yes".'
        )
        return self._family(
            ev,
            rng,
            title,
            q_tpl,
            desc,
            [("2", "Politics"), ("144", "Elections"), ("102137", "Featured")],
            country,
            election,
        )

    def _t_updown5m(self, ev: _Ev, rng: random.Random) -> dict[str, Any]:
        name, tick, slug, _b, _v = C.CRYPTO[ev.extra["asset"]]
        assert ev.start is not None
        title = (
            f"{name} Up or Down - {_month_day(ev.start - 4 * HOUR)}, {_et_clock(ev.start)}-"
            f"{_et_clock(ev.end)} ET"
        )
        src = f"https://data.chain.link/streams/{slug}-usd"
        desc = (
            f'This market will resolve to "Up" if the {name} price at the end of the time range specified in '
            "the title is greater than or equal to the price at the beginning of that range. "
            "Otherwise, it will "
            f'resolve to "Down".\nThe resolution source for this market is information from Chainlink, '
            f"specifically the {tick}/USD data stream available at {src}.\nPlease note that this "
            "market is about "
            f"the price according to Chainlink data stream {tick}/USD, not according to other "
            "sources or spot "
            f"markets."
        )
        ev_slug = f"{slug}-updown-5m-{ev.start}"
        rows = [{"q": title, "slug": ev_slug, "outcomes": ("Up", "Down")}]
        return {
            "title": title,
            "slug": ev_slug,
            "desc": desc,
            "source": src,
            "tags": [("21", "Crypto"), ("102127", "Up or Down")],
            "image": f"{C.IMG}{tick}+fullsize.png",
            "fee": "crypto_fees",
            "rows": rows,
            "series": (f"{slug}-up-or-down-5m", f"{tick} Up or Down 5m", "5m"),
        }

    # the dict templates -----------------------------------------------------------------------
    def _fill(self, ev: _Ev, rng: random.Random, tx: dict[str, Any]) -> None:
        seed = self.seed
        stream = ev.stream
        neg = bool(tx.get("neg"))
        # Popularity tier: a fifth of ordinary events sit below the $2,500 money floor.
        sub = stream != "crypto" and rng.random() < {"sports": 0.24, "daily": 0.22, "weekly": 0.14}.get(
            stream, 0.08
        )
        nm = len(ev.markets)
        if sub:
            ev_vol = rng.uniform(40, 1800)
            ev_liq = rng.uniform(15, 1500)
        elif stream == "crypto":
            ev_vol = rng.uniform(5, 4000)
            ev_liq = rng.uniform(8000, 30000)
        else:
            ev_vol = math.exp(
                rng.uniform(math.log(8e3), math.log(6e6 if stream in ("long", "marquee") else 9e5))
            )
            ev_liq = ev_vol * rng.uniform(0.01, 0.3) + 2600
        nrm = ev.cat_w if ev.shape == "cat" else [1.0 / nm] * nm
        neg_id = ("0x" + _hex64(seed, ev.eid, "negrisk")[:62] + "00") if neg else None
        tick_fine = stream in ("long", "marquee", "weekly") or rng.random() < 0.3
        img = tx["image"]
        src = tx["source"]
        rows = tx["rows"]
        desc = tx["desc"]
        fee = tx["fee"]
        game = _game_number(ev)
        game_id = None if game is None else str(game)
        if game is not None and ev.league == 14:  # MLP uses composite uuid:HOME:AWAY game ids
            h = _name_hash(f"{seed}:{(game - 1_000_003) // 37}")
            home, away = (_abbr(t).upper() for t in tx["teams"])
            game_id = f"{h[:8]}-{h[8:12]}-{h[12:16]}:{home}:{away}"
        base: dict[str, Any] = {
            "id": None,
            "question": None,
            "conditionId": None,
            "slug": None,
            "resolutionSource": src,
            "endDate": None,
            "liquidity": None,
            "startDate": None,
            "image": img,
            "icon": img,
            "description": None,
            "outcomes": None,
            "outcomePrices": None,
            "volume": None,
            "active": True,
            "closed": False,
            "marketMakerAddress": "",
            "createdAt": None,
            "updatedAt": None,
            "closedTime": None,
            "new": False,
            "featured": False,
            "submitted_by": SUBMITTER,
            "archived": False,
            "resolvedBy": NEGRISK_RESOLVER if neg else RESOLVER,
            "restricted": True,
            "groupItemTitle": None,
            "groupItemThreshold": None,
            "questionID": None,
            "umaEndDate": None,
            "enableOrderBook": True,
            "orderPriceMinTickSize": None,
            "orderMinSize": 5,
            "umaResolutionStatus": None,
            "volumeNum": None,
            "liquidityNum": None,
            "endDateIso": None,
            "startDateIso": None,
            "hasReviewedDates": True,
            "volume24hr": None,
            "volume1wk": None,
            "volume1mo": None,
            "volume1yr": None,
            # A listing without a game id was made by hand, not from a game feed: no game clock either.
            "gameStartTime": pg(ev.start) if ev.start is not None and game_id is not None else None,
            "secondsDelay": (3 if ev.league in (10, 11, 12) else 1) if stream == "sports" else None,
            "clobTokenIds": None,
            "comboStatus": "disabled",
            "umaBond": "500" if stream != "sports" else "250",
            "umaReward": "5" if stream != "sports" else "0.8",
            "volume24hrClob": None,
            "volume1wkClob": None,
            "volume1moClob": None,
            "volume1yrClob": None,
            "volumeClob": None,
            "liquidityClob": None,
            "makerBaseFee": 1000,
            "takerBaseFee": 1000,
            "customLiveness": 0,
            "acceptingOrders": None,
            "negRisk": neg,
            "negRiskMarketID": neg_id,
            "negRiskRequestID": "",
            "events": None,
            "ready": False,
            "funded": False,
            "acceptingOrdersTimestamp": None,
            "cyom": False,
            "competitive": None,
            "pagerDutyNotificationEnabled": False,
            "approved": True,
            "clobRewards": None,
            "rewardsMinSize": None,
            "rewardsMaxSpread": None,
            "spread": None,
            "automaticallyResolved": None,
            "oneDayPriceChange": None,
            "oneHourPriceChange": None,
            "oneWeekPriceChange": None,
            "lastTradePrice": None,
            "bestBid": None,
            "bestAsk": None,
            "automaticallyActive": True,
            "clearBookOnStart": stream != "crypto",
            "seriesColor": "",
            "showGmpSeries": False,
            "showGmpOutcome": False,
            "manualActivation": False,
            "negRiskOther": False,
            "gameId": game_id,
            "sportsMarketType": None,
            "line": None,
            "umaResolutionStatuses": None,
            "pendingDeployment": False,
            "deploying": False,
            "deployingTimestamp": None,
            "rfqEnabled": False,
            "eventStartTime": iso_z(ev.start) if ev.start is not None else None,
            "holdingRewardsEnabled": False,
            "feesEnabled": fee is not None,
            "requiresTranslation": False,
            "feeType": fee,
            "feeSchedule": _FEES.get(fee) if fee else None,
            "version": "v1",
            "positionIds": None,
        }
        for m, row in zip(ev.markets, rows, strict=True):
            mid = m.mid
            share = nrm[m.idx] if m.idx < len(nrm) else 0.0
            m.tick = 1000 if tick_fine else 100
            m.thin = None
            m.liqw = 0.0
            m.spread_t = 0
            # The book: most are tight, some wide (> 0.10), a few one-sided or dead.
            r = rng.random()
            m.book = 0 if r < 0.82 else 1 if r < 0.92 else 2 if r < 0.97 else 3
            if sub and m.book == 0 and rng.random() < 0.4:
                m.book = 1
            if m.book == 0:
                m.spread_t = rng.randint(1, 4 if m.tick == 100 else 12)
            elif m.book == 1:
                m.spread_t = rng.randint(11, 45) * m.tick // 100
            m.wob = (
                rng.uniform(0.15, 0.7),
                2 * math.pi / rng.uniform(4 * HOUR, 5 * DAY),
                rng.uniform(0, 6.283),
                2 * math.pi / rng.uniform(40 * MINUTE, 12 * HOUR),
                rng.uniform(0, 6.283),
            )
            if m.placeholder:
                m.vtot = 0.0
                m.liq0 = 0.0
            else:
                weight = (0.15 + share) if ev.shape == "cat" else 1.0 / nm
                m.vtot = ev_vol * weight * rng.uniform(0.6, 1.4)
                m.liq0 = ev_liq * weight * rng.uniform(0.6, 1.4) / 1.2
                if sub:
                    m.liq0 = min(m.liq0, 2000.0 / nm)
                    m.vtot = min(m.vtot, 2200.0 / nm)
                m.liqw = rng.uniform(0, 6.283)
                if sub or rng.random() < 0.05:
                    span = max(m.close - m.created, HOUR)
                    k = rng.randint(0, 6)
                    ts = sorted(m.created + int(span * rng.random() ** 0.7) for _ in range(k))
                    m.thin = tuple((t, m.vtot / max(k, 1) * rng.uniform(0.3, 1.7)) for t in ts)
                    m.vtot = sum(s for _t, s in m.thin)
            outcomes = row["outcomes"]
            d = base.copy()
            d["id"] = str(mid)
            d["question"] = row["q"]
            d["slug"] = row["slug"]
            d["endDate"] = iso_z(m.end)
            d["description"] = row.get("desc", desc)
            d["outcomes"] = _jlist(outcomes)
            d["createdAt"] = iso_z(m.created, _micro(mid))
            d["groupItemTitle"] = row.get("git")
            d["groupItemThreshold"] = str(m.idx)
            d["orderPriceMinTickSize"] = 0.001 if m.tick == 1000 else 0.01
            d["endDateIso"] = day_iso(m.end)
            d["negRiskOther"] = m.other
            d["sportsMarketType"] = row.get("smt")
            d["line"] = row.get("line")
            if m.placeholder:
                d["conditionId"] = ""
                d["active"] = False
                d["submitted_by"] = ""
                d["negRiskRequestID"] = ""
                d["rewardsMinSize"] = 0
                d["rewardsMaxSpread"] = 0
            else:
                h1 = hashlib.sha512(f"{seed}:{mid}:ids".encode()).hexdigest()
                h2 = hashlib.sha512(f"{seed}:{mid}:tokens".encode()).hexdigest()
                cond = "0x" + h1[:64]
                d["conditionId"] = cond
                d["questionID"] = "0x" + h1[64:]
                d["startDate"] = iso_z(m.created + 60 + mid % 300, _micro(mid + 1) // 10 * 10)
                d["startDateIso"] = day_iso(m.created)
                d["acceptingOrdersTimestamp"] = iso_z(m.created + 30 + mid % 200)
                d["deployingTimestamp"] = iso_z(m.created + 20, _micro(mid + 2))
                tokens = [str(int(h2[64 * i : 64 * i + 64], 16)) for i in range(len(outcomes))]
                d["clobTokenIds"] = _jlist(tokens)
                if neg:
                    d["negRiskRequestID"] = "0x" + h2[::-1][:64]
                d["rewardsMinSize"] = rng.choice((20, 50, 100, 200))
                d["rewardsMaxSpread"] = rng.choice((2.5, 3.5, 4.5))
                if mid % 23 == 0:  # a few Polymarket V2 markets, whose outcome ids are positionIds
                    d["version"] = "v2"
                    pos = int(h1[:60], 16)
                    d["positionIds"] = [str(pos + i) for i in range(len(outcomes))]
                if not sub and rng.random() < 0.4:
                    d["clobRewards"] = [
                        {
                            "id": str(900000 + mid % 99991),
                            "conditionId": cond,
                            "assetAddress": USDC,
                            "rewardsAmount": 0,
                            "rewardsDailyRate": rng.choice((0.001, 5, 25, 100, 1250)),
                            "startDate": day_iso(m.created),
                            "endDate": "2500-12-31",
                        }
                    ]
                d["holdingRewardsEnabled"] = stream in ("long", "marquee") and mid % 3 == 0
            # None marks keys absent from this market; dynamic keys are re-added per instant.
            for key in (
                "groupItemTitle",
                "questionID",
                "startDate",
                "startDateIso",
                "acceptingOrdersTimestamp",
                "deployingTimestamp",
                "gameStartTime",
                "secondsDelay",
                "clobTokenIds",
                "negRiskMarketID",
                "gameId",
                "sportsMarketType",
                "line",
                "eventStartTime",
                "feeSchedule",
                "positionIds",
                "clobRewards",
            ):
                if d[key] is None:
                    del d[key]
            m.tmpl = _freeze(d)
        self._event_template(ev, rng, tx, neg, neg_id)

    def _event_template(
        self, ev: _Ev, rng: random.Random, tx: dict[str, Any], neg: bool, neg_id: str | None
    ) -> None:
        img = tx["image"]
        e: dict[str, Any] = {
            "id": str(ev.eid),
            "ticker": tx["slug"],
            "slug": tx["slug"],
            "title": tx["title"],
            "description": tx["desc"],
            "resolutionSource": tx["source"],
            "startDate": iso_z(ev.created + 40, _micro(ev.eid)),
            "creationDate": iso_z(
                ev.start if ev.stream == "sports" and ev.start else ev.created + 40,
                0 if ev.stream == "sports" else _micro(ev.eid + 5),
            ),
            "endDate": iso_z(ev.end),
            "image": img,
            "icon": img,
            "active": True,
            "closed": None,
            "archived": False,
            "new": False,
            "featured": ev.stream == "marquee" or ev.eid % 53 == 0,
            "restricted": True,
            "liquidity": None,
            "volume": None,
            "openInterest": None,
            "sortBy": tx.get("sort"),
            "createdAt": iso_z(ev.created, _micro(ev.eid + 3)),
            "updatedAt": None,
            "competitive": None,
            "volume24hr": None,
            "volume1wk": None,
            "volume1mo": None,
            "volume1yr": None,
            "enableOrderBook": True,
            "liquidityClob": None,
            "negRisk": neg,
            "negRiskMarketID": neg_id,
            "commentCount": rng.choice((0, 0, 1, 3, 12, 45, 92, 575)),
            "markets": None,
            "series": None,
            "tags": [_tag(tid, label) for tid, label in tx["tags"]],
            "cyom": False,
            "closedTime": None,
            "showAllOutcomes": True,
            "showMarketImages": ev.stream in ("crypto", "marquee"),
            "automaticallyResolved": None,
            "enableNegRisk": neg,
            "automaticallyActive": True,
            "eventDate": day_iso(ev.start) if ev.stream == "sports" and ev.start else None,
            "startTime": iso_z(ev.start) if ev.start is not None else None,
            "seriesSlug": tx["series"][0] if tx.get("series") else None,
            "score": None,
            "period": None,
            "live": None,
            "ended": None,
            "finishedTimestamp": None,
            "gmpChartMode": "default",
            "negRiskAugmented": bool(ev.extra.get("augmented")),
            "countryName": tx.get("country") or None,
            "electionType": tx.get("election") or None,
            "estimateValue": False,
            "cumulativeMarkets": False,
            "pendingDeployment": False,
            "deploying": False,
            "gameId": _game_number(ev),
            "parentEventId": ev.parent.eid if ev.kind == "soccer_more" and ev.parent else None,
            "requiresTranslation": False,
            "teams": None,
            "sport": None,
            "eventMetadata": {"context_requires_regen": True},
            "version": "v1",
        }
        if tx.get("series"):
            sslug, stitle, rec = tx["series"]
            e["series"] = [
                {
                    "id": str(10000 + int(_name_hash(sslug)[:4], 16) % 9000),
                    "ticker": sslug,
                    "slug": sslug,
                    "title": stitle,
                    "seriesType": "single",
                    "recurrence": rec,
                    "image": "",
                    "icon": "",
                    "active": True,
                    "closed": False,
                    "archived": False,
                    "featured": False,
                    "restricted": True,
                    "createdAt": "2025-11-21T21:46:22.201627Z",
                    "updatedAt": "2026-03-11T15:13:45.415743Z",
                    "volume24hr": 0,
                    "volume": 0,
                    "liquidity": 0,
                    "commentCount": 0,
                    "requiresTranslation": False,
                }
            ]
        if ev.stream == "sports" and tx.get("teams"):
            a, b = tx["teams"]
            lslug, _sport, lname = tx["sport"]
            e["teams"] = [
                {
                    "id": 3_000_000 + int(_name_hash(a)[:5], 16),
                    "name": a,
                    "league": lslug,
                    "record": "0-0",
                    "logo": f"{C.IMG}{a}.png",
                    "abbreviation": _abbr(a),
                    "providerId": int(_name_hash(a)[5:10], 16),
                    "color": "#" + _name_hash(a)[10:16],
                    "ordering": "away",
                },
                {
                    "id": 3_000_000 + int(_name_hash(b)[:5], 16),
                    "name": b,
                    "league": lslug,
                    "record": "0-0",
                    "logo": f"{C.IMG}{b}.png",
                    "abbreviation": _abbr(b),
                    "providerId": int(_name_hash(b)[5:10], 16),
                    "color": "#" + _name_hash(b)[10:16],
                    "ordering": "home",
                },
            ]
            e["sport"] = {
                "id": 200 + ev.league,
                "sport": lslug,
                "name": lname,
                "image": img,
                "resolution": tx["source"],
                "ordering": "home",
                "series": e["series"][0]["id"] if e["series"] else "",
            }
            e["eventMetadata"] = {"context_requires_regen": False, "league": lname}
        for key in (
            "sortBy",
            "negRiskMarketID",
            "series",
            "eventDate",
            "startTime",
            "seriesSlug",
            "countryName",
            "electionType",
            "gameId",
            "parentEventId",
            "teams",
            "sport",
        ):
            if e[key] is None:
                del e[key]
        if ev.stream != "sports":
            for key in ("score", "period", "live", "ended", "finishedTimestamp"):
                del e[key]
        ev.tmpl = _freeze(e)
        ev.stmpl = _freeze({k: v for k, v in e.items() if k not in ("markets", "tags")})
