"""Selection benchmark: SLATE-LAWS-3.7 over a 50,000-market sweep in 12,000 events.

Generates a deterministic, realistic verbatim market table (negRisk families of dozens of
candidates, sports fixtures with moneylines, spreads and totals, some listed twice across events,
recurring Up/Down crypto markets, single questions, thin events, one-sided and dead books, wide
spreads, mixed end dates and starts, a few impossible rows), then times ``select_card`` on it
(median of several runs) against the target of 1 s. Side by side it times a naive baseline: the
same rules, ranking and cut written as a plain-Python loop over one dict per market (no value
texts, so it does less work than the real thing), and prints the ratio. It also checks that the
baseline's card is the same card, in the same order, and that the same sweep with its rows
shuffled gets the same verdicts, bit for bit.

    python benchmarks/selection.py                     # 50,000 markets, 12,000 events, 5 runs
    python benchmarks/selection.py --runs 9 --seed 7   # more runs, another board
    python benchmarks/selection.py --json              # one JSON object, for scripts

Exit status 0 when the median is within the target and both checks hold, else 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import random
import sys
import unicodedata
from typing import Any

import polars as pl
from timing import median_seconds

from colosseum_core.exchanges.polymarket.markets import VERBATIM_SCHEMA
from colosseum_core.forecast.schedule import SELECTION_WINDOW, SWEEP_HORIZON, card_from_key
from colosseum_core.forecast.selection import RULE_ORDER, select_card

CARD = card_from_key("2026-11-29-1000")
SEAL = CARD.seal
TARGET_SECONDS = 1.0
HOUR = dt.timedelta(hours=1)


def _words(text: str) -> tuple[str, ...]:
    return tuple(word.strip() for word in text.split(","))


_SUBJECTS = _words(
    "the Fed, the ECB, Bitcoin, Ethereum, Solana, Tesla, Apple, Nvidia, OpenAI, SpaceX, the S&P 500, "
    "gold, oil, the euro, the yen, Taylor Swift, the UN, NASA, Gavin Newsom, the Senate, the House, "
    "Lisbon, Oslo, Tokyo, Chicago"
)
_VERBS = _words(
    "announce a rate cut, close above its record, reach a new high, hold a press conference, "
    "sign the bill, see snowfall, top the charts, launch before the deadline, "
    "report earnings above $2.50, be mentioned in the address"
)
_CITIES = _words(
    "Harbor City, Lakeside, Northgate, Riverton, Summit, Bayport, Westfield, Eastmoor, Pinecrest, "
    "Redwater, Stonebridge, Fairhaven, Ironwood, Silverlake, Brookfield, Clearwater, Kingsport, "
    "Maple Ridge, Oakdale, Sunvale, Granite Falls, Highland, Crescent Bay, Ashford, Bellmont, "
    "Cedar Point, Dunmore, Elmstead, Foxborough, Glenwood"
)
_MASCOTS = _words(
    "Herons, Lynx, Ospreys, Comets, Pilots, Rangers, Wolves, Harriers, Mariners, Titans, Sabres, "
    "Falcons, Bisons, Kestrels, Otters, Vipers, Foxes, Owls, Badgers, Stags"
)
_OFFICES = _words("mayoral, senate, governor, council, assembly, school board, sheriff, treasurer")


# --------------------------------------------------------------------------------------------
# The board


def _book(rng: random.Random, p: float, tick: float) -> dict[str, Any]:
    """Quotes, last trade and listed prices for a market whose fair Yes price is ``p``."""
    ticks = round(1 / tick)
    center = min(max(round(p * ticks), 1), ticks - 1)
    last = round(center / ticks, 4)
    kind = rng.random()
    if kind < 0.70:  # a live two-sided book
        width = rng.randint(1, 4 if tick == 0.01 else 12)
        bid = max(1, center - width // 2)
        ask = min(ticks - 1, bid + width)
    elif kind < 0.80:  # a wide book: over $0.10, the last trade decides
        width = rng.randint(11, 45) * ticks // 100
        bid = max(1, center - width // 2)
        ask = min(ticks - 1, bid + width)
    elif kind < 0.90:  # one-sided: asks only
        bid, ask = None, min(ticks - 1, center + max(1, ticks // 25))
    elif kind < 0.95:  # empty bid side, ask pinned at 1
        bid, ask = None, ticks
    else:  # never traded
        bid, ask, last = None, ticks, 0.0
    mid = ((bid or 0) + ask) / (2 * ticks)
    fields: dict[str, Any] = {
        "best_bid": None if bid is None else bid / ticks,
        "best_ask": ask / ticks,
        "spread": round((ask - (bid or 0)) / ticks, 4),
        "last_trade_price": last,
        "outcome_prices": [f"{mid:.4f}".rstrip("0").rstrip("."), f"{1 - mid:.4f}".rstrip("0").rstrip(".")],
    }
    if bid is None and rng.random() < 0.5:
        del fields["best_bid"]  # Gamma drops the key on an empty side
    return fields


def _interest(rng: random.Random) -> dict[str, Any]:
    # Log-normal: median ~$5,000, about a third of events under the $2,500 floor.
    volume = math.exp(rng.gauss(8.4, 1.9))
    liquidity = math.exp(rng.gauss(8.0, 1.7))
    return {
        "event_volume_24hr": None if rng.random() < 0.2 else round(volume, 6),
        "event_liquidity": None if rng.random() < 0.1 else round(liquidity, 5),
    }


def _event_sizes(rng: random.Random, markets: int, events: int) -> list[tuple[str, int]]:
    """(kind, number of markets) per event, summing to exactly ``markets``."""
    kinds = rng.choices(("single", "sports", "crypto", "family"), weights=(55, 30, 9, 6), k=events)
    sizes = [
        1
        if kind == "single"
        else rng.randint(1, 5)
        if kind == "sports"
        else rng.randint(1, 3)
        if kind == "crypto"
        else 2
        for kind in kinds
    ]
    families = [i for i, kind in enumerate(kinds) if kind == "family"]
    remaining = markets - sum(sizes)
    if remaining < 0 or not families:
        raise SystemExit(f"can not spread {markets} markets over {events} events; ask for more markets")
    # Families take the rest, unevenly, like real negRisk events (a few very large ones).
    weights = [rng.paretovariate(1.6) for _ in families]
    total = sum(weights)
    shares = [int(remaining * w / total) for w in weights]
    for i in range(remaining - sum(shares)):
        shares[i % len(shares)] += 1
    for index, extra in zip(families, shares, strict=True):
        sizes[index] += extra
    return list(zip(kinds, sizes, strict=True))


def board(markets: int = 50_000, events: int = 12_000, seed: int = 2026) -> pl.DataFrame:
    """A deterministic verbatim market table for the card sealed at ``SEAL``."""
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    next_market = 500_000
    horizon_hours = SWEEP_HORIZON / HOUR
    singles_asked: list[str] = []
    fixtures: list[tuple[str, str, dt.datetime, str]] = []
    for event_number, (kind, size) in enumerate(_event_sizes(rng, markets, events)):
        event_id = str(20_000 + event_number)
        event = {"event_id": event_id, **_interest(rng)}
        start: dt.datetime | None = None
        if kind == "sports":
            if fixtures and rng.random() < 0.1:  # a "More Markets" event of a fixture already listed
                home, away, start, game = rng.choice(fixtures)
                title = f"{home} vs. {away} - More Markets"
            else:
                home, away = (f"{rng.choice(_CITIES)} {rng.choice(_MASCOTS)}" for _ in range(2))
                start, game = SEAL + rng.uniform(-4, 90) * HOUR, str(1_400_000 + len(fixtures))
                fixtures.append((home, away, start, game))
                title = f"{home} vs. {away}"
            event |= {"event_title": title, "event_start_time_ts": start, "event_game_id": game}
        elif kind == "crypto":
            event |= {
                "event_title": f"{rng.choice(_SUBJECTS)} Up or Down",
                "event_series_recurrence": "daily",
            }
        elif kind == "family":
            race = f"{rng.choice(_CITIES)} {rng.choice(_OFFICES)} race, district {event_number % 997 + 1}"
            event |= {"event_title": f"Who will win the {race}?", "event_neg_risk": True}
        for index in range(size):
            market_id = str(next_market)
            next_market += rng.randint(1, 3)
            end = SEAL + rng.uniform(-6, horizon_hours + 12) * HOUR
            row: dict[str, Any] = {
                "market_id": market_id,
                "outcomes": ["Yes", "No"],
                "end_date_ts": end,
                "start_date_ts": SEAL - rng.uniform(24, 2_000) * HOUR,
                "active": True,
                "closed": False,
                "accepting_orders": True,
                "volume_24hr": None if rng.random() < 0.3 else round(rng.uniform(0, 50_000), 6),
                **event,
            }
            tick = 0.01 if rng.random() < 0.8 else 0.001
            if kind == "single":
                when = rng.choice(("by December", "before December", "on December"))
                question = (
                    f"Will {rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {when} {rng.randint(1, 31)}"
                    f"{rng.choice(('', ', 2026', ' (ET)', ' after 12PM ET'))}, mark {rng.randint(1, 400)}?"
                )
                if singles_asked and rng.random() < 0.01:  # the same question listed by another event
                    question = rng.choice(singles_asked).upper().replace("?", " ?")
                singles_asked.append(question)
                p = rng.betavariate(0.7, 0.7)
            elif kind == "family":
                question = f"Will candidate {index + 1} win the {event['event_title'][14:-1]}?"
                p = 0.4 * rng.random() if index < 3 else rng.betavariate(0.3, 6)
                row["neg_risk"] = True
            elif kind == "sports":
                home, away = event["event_title"].removesuffix(" - More Markets").split(" vs. ")
                market_type = ("moneyline", "spreads", "totals", "moneyline", "child_moneyline")[index]
                row |= {
                    "sports_market_type": market_type,
                    "game_id": event["event_game_id"],
                    "game_start_time_ts": start,
                    "market_event_start_time_ts": start,
                    "end_date_ts": start + rng.choice((2, 3, 7 * 24)) * HOUR,
                }
                if market_type == "totals":
                    question, row["outcomes"] = f"{home} vs. {away}: O/U 2.5", ["Over", "Under"]
                elif market_type == "spreads":
                    question, row["outcomes"] = f"Spread: {home} (-1.5)", [home, away]
                elif rng.random() < 0.5:
                    question, row["outcomes"] = f"{home} vs. {away}", [home, away]
                else:
                    question = (
                        f"Will {home} beat {away}{rng.choice(('', ' by 5 or more', ' in regulation'))}?"
                    )
                p = rng.uniform(0.2, 0.8)
            else:  # crypto up/down, starting around the seal
                question = f"{event['event_title']} on December {rng.randint(1, 4)}, {index + 1}PM ET?"
                row["outcomes"] = ["Up", "Down"] if rng.random() < 0.8 else ["Yes", "No"]
                row["market_event_start_time_ts"] = SEAL + rng.uniform(-2, 30) * HOUR
                p = rng.uniform(0.3, 0.7)
            row["question"] = question
            row |= _book(rng, p, tick)
            flaw = rng.random()
            if flaw < 0.015:  # an undeployed placeholder
                row |= {"active": False, "best_bid": 0.0, "best_ask": 1.0, "last_trade_price": 0.0}
                row["outcome_prices"] = None
            elif flaw < 0.025:
                row["closed"] = True
            elif flaw < 0.026:
                row["best_ask"] = 1.7
            elif flaw < 0.027:
                row["best_bid"], row["best_ask"] = 0.6, 0.5
            elif flaw < 0.028:
                row["start_date_ts"] = row["end_date_ts"] + HOUR
            elif flaw < 0.030:  # listed moments ago: no book, no trade, no price yet
                row |= {"best_bid": None, "best_ask": None, "last_trade_price": None, "outcome_prices": None}
            rows.append(row)
    return pl.DataFrame(rows, schema=VERBATIM_SCHEMA)


def history_for(markets: pl.DataFrame, seed: int) -> pl.DataFrame:
    """Earlier cards: 3 a day for two weeks, 25 questions each; a few are still on the board.

    About 1 in 20 earlier questions is still swept: half of those under the same market id, half
    re-listed under a new id with the same question.
    """
    rng = random.Random(seed + 1)
    keys = [f"2026-11-{day:02d}-{slot}" for day in range(15, 29) for slot in ("0500", "1000", "1800")]
    still_open = markets.select("market_id", "question").sample(n=min(52, markets.height), seed=seed).rows()
    rows = []
    for i in range(len(keys) * 25):
        market_id, question = f"4{rng.randrange(10**6):06d}", f"An earlier question, number {i}?"
        if i % 20 == 7 and still_open:
            old_id, question = still_open.pop()
            market_id = old_id if i % 40 == 7 else market_id
        rows.append(
            {
                "card": keys[i // 25],
                "market_id": market_id,
                "label": f"M{i % 25 + 1:02d}",
                "question": question,
            }
        )
    return pl.DataFrame(
        rows, schema={"card": pl.String, "market_id": pl.String, "label": pl.String, "question": pl.String}
    )


# --------------------------------------------------------------------------------------------
# The naive baseline: the same rules, one dict at a time


def _stem(text: str | None) -> str | None:
    if text is None:
        return None
    folded = "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    ).lower()
    spaced = "".join(" " if unicodedata.category(c)[0] in "PZC" or c.isspace() else c for c in folded)
    return " ".join(spaced.split()) or None


def _inside(value: float | None, low: float, high: float) -> bool:
    return value is not None and not math.isnan(value) and low <= value <= high


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _price_units(row: dict[str, Any]) -> int | None:
    bid, ask, last = row["best_bid"], row["best_ask"], row["last_trade_price"]
    if _inside(bid, 0, 1) and _inside(ask, 0, 1) and bid > 0 and ask < 1:
        b, a = round(bid * 1_000_000), round(ask * 1_000_000)
        if b <= a and a - b <= 100_000:
            return a + b
    if _inside(last, 0, 1) and 0 < last < 1:
        return 2 * round(last * 1_000_000)
    prices = row["outcome_prices"] or []
    listed = _number(prices[0]) if prices else None
    return 2 * round(listed * 1_000_000) if _inside(listed, 0, 1) else None


def _doubt(units: int) -> float:
    q = min(units, 2_000_000 - units) / 2_000_000
    return 0.0 if q == 0 else -(q * math.log2(q) + (1 - q) * math.log2(1 - q))


def _malformed(row: dict[str, Any]) -> bool:
    if not row["market_id"] or not row["event_id"] or row["question"] is None or row["outcomes"] is None:
        return True
    prices = row["outcome_prices"]
    if prices is not None and (
        len(prices) != len(row["outcomes"]) or not all(_inside(_number(p), 0, 1) for p in prices)
    ):
        return True
    if any(
        row[q] is not None and not _inside(row[q], 0, 1) for q in ("best_bid", "best_ask", "last_trade_price")
    ):
        return True
    if row["best_bid"] is not None and row["best_ask"] is not None and row["best_bid"] > row["best_ask"]:
        return True
    return (
        None not in (row["end_date_ts"], row["start_date_ts"]) and row["end_date_ts"] < row["start_date_ts"]
    )


def baseline(
    rows: list[dict[str, Any]], history: list[dict[str, Any]], seal: dt.datetime, cut: int
) -> list[str]:
    """The card's market ids in place order, by a per-row Python loop."""
    interest: dict[str, float] = {}
    for row in rows:
        own = max(row["event_volume_24hr"] or 0.0, row["event_liquidity"] or 0.0)
        interest[row["event_id"]] = max(interest.get(row["event_id"], own), own)
    seen_ids = {h["market_id"] for h in history}
    seen_stems = {_stem(h["question"]) for h in history} - {None}
    standing = []
    for row in rows:
        if _malformed(row):
            continue
        if row["active"] is not True or row["closed"] is not False or row["accepting_orders"] is False:
            continue
        if row["outcomes"] != ["Yes", "No"]:
            continue
        units = _price_units(row)
        if units is None:
            continue
        starts = (row["event_start_time_ts"], row["market_event_start_time_ts"], row["game_start_time_ts"])
        if any(s is not None and s < seal for s in starts):
            continue
        end = row["end_date_ts"]
        if end is None or not seal < end <= seal + SELECTION_WINDOW:
            continue
        if interest[row["event_id"]] < 2_500:
            continue
        stem = _stem(row["question"])
        if row["market_id"] in seen_ids or stem in seen_stems:
            continue
        market_id = row["market_id"]
        digits = market_id.isascii() and market_id.isdigit()
        order = (
            -_doubt(units),
            -interest[row["event_id"]],
            not digits,
            len(market_id.lstrip("0")) if digits else 0,
            market_id.lstrip("0") if digits else market_id,
            market_id,
        )
        standing.append((order, stem, row))
    standing.sort(key=lambda item: item[0])
    families: set[str] = set()
    taken: set[str] = set()
    card: list[str] = []
    for _, stem, row in standing:
        if row["event_id"] in families:
            continue
        families.add(row["event_id"])
        games = [g for g in (row["event_game_id"], row["game_id"]) if g]
        keys = {"m:" + row["market_id"], "e:" + row["event_id"], *("g:" + g for g in games)}
        if not games and row["sports_market_type"] is not None:
            start = (
                row["event_start_time_ts"] or row["market_event_start_time_ts"] or row["game_start_time_ts"]
            )
            if start is not None and _stem(row["event_title"]) is not None:
                keys.add(f"s:{_stem(row['event_title'])}@{start.isoformat()}")
        if stem is not None:
            keys.add("q:" + stem)
        if keys & taken:
            continue
        taken |= keys
        card.append(row["market_id"])
    return card[:cut]


# --------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--markets", type=int, default=50_000, help="markets on the swept board (default 50,000)"
    )
    parser.add_argument("--events", type=int, default=12_000, help="events they belong to (default 12,000)")
    parser.add_argument(
        "--runs", type=int, default=5, help="timed runs of each (default 5; the median counts)"
    )
    parser.add_argument("--seed", type=int, default=2026, help="board seed (default 2026)")
    parser.add_argument("--no-baseline", action="store_true", help="time select_card only")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    markets = board(args.markets, args.events, args.seed)
    history = history_for(markets, args.seed)
    median, times, selection = median_seconds(
        lambda: select_card(markets, seal=SEAL, history=history), args.runs
    )
    card_ids = selection.card["market_id"].to_list()
    # The same sweep in another row order must give the same verdicts, to the last bit.
    shuffled = select_card(
        markets.sample(fraction=1.0, shuffle=True, seed=args.seed), seal=SEAL, history=history
    )
    report: dict[str, Any] = {
        "markets": markets.height,
        "events": markets["event_id"].n_unique(),
        "seal": SEAL.isoformat(),
        "runs": args.runs,
        "select_card_median_s": round(median, 4),
        "select_card_runs_s": [round(t, 4) for t in times],
        "target_s": TARGET_SECONDS,
        "within_target": median <= TARGET_SECONDS,
        "selected": len(card_ids),
        "total_doubt_bits": round(selection.total_doubt_bits, 6),
        "counts_by_rule": selection.counts_by_rule,
        "same_verdicts_shuffled": shuffled.verdicts.equals(selection.verdicts),
    }
    if not args.no_baseline:
        rows, earlier = markets.to_dicts(), history.to_dicts()
        base_median, base_times, base_card = median_seconds(
            lambda: baseline(rows, earlier, SEAL, selection.cut), args.runs
        )
        report |= {
            "baseline_median_s": round(base_median, 4),
            "baseline_runs_s": [round(t, 4) for t in base_times],
            "baseline_over_select_card": round(base_median / median, 2),
            "baseline_agrees": base_card == card_ids,
        }
    ok = report["within_target"] and report["same_verdicts_shuffled"] and report.get("baseline_agrees", True)

    if args.json:
        print(json.dumps(report))
        return 0 if ok else 1
    print(
        f"selection of {report['markets']:,} markets in {report['events']:,} events, "
        f"seal {SEAL:%Y-%m-%dT%H:%MZ}, median of {args.runs} runs; target ≤ {TARGET_SECONDS:.1f} s"
    )
    verdict = "within target" if report["within_target"] else "OVER TARGET"
    print(f"  select_card (polars)             {median:8.3f} s   {verdict}")
    if not args.no_baseline:
        print(f"  baseline (per-row Python loop)   {report['baseline_median_s']:8.3f} s   (no value texts)")
        print(f"  ratio baseline / select_card     {report['baseline_over_select_card']:8.2f} ×")
        print(f"  same card from both              {'yes' if report['baseline_agrees'] else 'NO'}")
    print(f"  same verdicts, rows shuffled     {'yes' if report['same_verdicts_shuffled'] else 'NO'}")
    print(f"  card: {len(card_ids)} questions, {selection.total_doubt_bits:.3f} bits of doubt")
    counts = selection.counts_by_rule
    print("  excluded: " + ", ".join(f"{rule} {counts[rule]:,}" for rule in RULE_ORDER))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
