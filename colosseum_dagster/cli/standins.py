"""``colosseum exchange serve`` and ``colosseum sparring serve``: the local stand-ins, in the foreground."""

from __future__ import annotations

import argparse
import sys

from colosseum_dagster.cli.arguments import add_listen_options, command, command_group
from colosseum_dagster.cli.common import UserError, refuse_a_taken_port


def cmd_exchange_serve(args: argparse.Namespace) -> int:
    from colosseum_standins.simulated_exchange import parse_faults, serve

    if args.faults:
        try:
            parse_faults(args.faults)  # fail fast with the parser's message
        except ValueError as exc:
            raise UserError(f"--faults: {exc}") from None
    if not args.faults:
        from colosseum_dagster.cli.instance import make_run_serves, wait_beside

        theirs = make_run_serves("exchange", args.host, args.port, seed=args.seed, markets=args.markets)
        if theirs is not None:
            return wait_beside(theirs, "simulated exchange")
    refuse_a_taken_port(args.host, args.port)
    print(
        f"simulated exchange on http://{args.host}:{args.port} "
        f"(seed {args.seed}, ~{args.markets} open markets"
        f"{', faults ' + args.faults if args.faults else ''}); Ctrl-C stops it",
        file=sys.stderr,
    )
    serve(args.host, args.port, seed=args.seed, markets=args.markets, faults=args.faults)
    return 0


def parse_quota(text: str) -> tuple[int, float]:
    """``N/SECONDS`` (``60/60``): at most N chat requests per window of SECONDS."""
    count, slash, window = text.partition("/")
    try:
        limit, seconds = int(count), float(window)
    except ValueError:
        limit, seconds = -1, 0.0
    if not slash or limit < 1 or not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not N/SECONDS (a whole number of requests of at least 1, a window over 0 s)"
        )
    return limit, seconds


def cmd_sparring_serve(args: argparse.Namespace) -> int:
    from colosseum_standins.sparring import serve

    quota = f", at most {args.quota[0]} requests per {args.quota[1]:g} s" if args.quota else ""
    refuse_a_taken_port(args.host, args.port)
    print(
        f"sparring server (house players; OpenAI, Anthropic and Gemini protocols{quota}) on "
        f"http://{args.host}:{args.port}; Ctrl-C stops it",
        file=sys.stderr,
    )
    from colosseum_core.arenas import sparring_houses

    serve(args.host, args.port, quota=args.quota, houses=sparring_houses())
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    exchange = command_group(
        sub,
        "exchange",
        "the simulated exchange",
        "example:\n  colosseum exchange serve --port 8765 --faults '429:n=1'",
    )
    serve = command(
        exchange,
        "serve",
        cmd_exchange_serve,
        "serve the simulated Polymarket Gamma API",
        "example:\n  colosseum exchange serve --host 127.0.0.1 --port 8765 \\\n"
        "      --seed 7 --markets 20000 \\\n"
        "      --faults '429:n=1:retry_after=1;ratelimit:rate=300/10'",
    )
    add_listen_options(serve, 8765)
    serve.add_argument("--seed", type=int, default=0, help="board seed (default 0)")
    serve.add_argument("--markets", type=int, default=3000, help="open markets on the board (default 3000)")
    serve.add_argument(
        "--faults", default=None, help="fault spec, see colosseum_standins.simulated_exchange.faults"
    )

    sparring = command_group(
        sub, "sparring", "the sparring server", "example:\n  colosseum sparring serve --port 8766"
    )
    sparring_serve = command(
        sparring,
        "serve",
        cmd_sparring_serve,
        "serve house players over the OpenAI, Anthropic and Gemini protocols",
        "example:\n  colosseum sparring serve --host 127.0.0.1 --port 8766 --quota 60/60",
    )
    add_listen_options(sparring_serve, 8766)
    sparring_serve.add_argument(
        "--quota",
        type=parse_quota,
        default=None,
        metavar="N/SECONDS",
        help="a provider quota: at most N chat requests per fixed window of SECONDS, then 429 with "
        "Retry-After (default: none)",
    )
