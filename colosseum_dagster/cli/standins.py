"""``colosseum exchange serve`` and ``colosseum sparring serve``: the local stand-ins, in the foreground."""

from __future__ import annotations

import argparse
import sys

from colosseum_dagster.cli.common import RAW, UserError, port_number, refuse_a_taken_port


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
    exchange = sub.add_parser(
        "exchange",
        help="the simulated exchange",
        formatter_class=RAW,
        epilog="example:\n  colosseum exchange serve --port 8765 --faults '429:n=1'",
    ).add_subparsers(dest="action", required=True)
    serve = exchange.add_parser(
        "serve",
        help="serve the simulated Polymarket Gamma API",
        formatter_class=RAW,
        epilog="example:\n  colosseum exchange serve --host 127.0.0.1 --port 8765 \\\n"
        "      --seed 7 --markets 20000 \\\n"
        "      --faults '429:n=1:retry_after=1;ratelimit:rate=300/10'",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=port_number, default=8765)
    serve.add_argument("--seed", type=int, default=0, help="board seed (default 0)")
    serve.add_argument("--markets", type=int, default=3000, help="open markets on the board (default 3000)")
    serve.add_argument(
        "--faults", default=None, help="fault spec, see colosseum_standins.simulated_exchange.faults"
    )
    serve.set_defaults(func=cmd_exchange_serve)

    sparring = sub.add_parser(
        "sparring",
        help="the sparring server",
        formatter_class=RAW,
        epilog="example:\n  colosseum sparring serve --port 8766",
    ).add_subparsers(dest="action", required=True)
    sparring_serve = sparring.add_parser(
        "serve",
        help="serve house players over the OpenAI, Anthropic and Gemini protocols",
        formatter_class=RAW,
        epilog="example:\n  colosseum sparring serve --host 127.0.0.1 --port 8766 --quota 60/60",
    )
    sparring_serve.add_argument("--host", default="127.0.0.1")
    sparring_serve.add_argument("--port", type=port_number, default=8766)
    sparring_serve.add_argument(
        "--quota",
        type=parse_quota,
        default=None,
        metavar="N/SECONDS",
        help="a provider quota: at most N chat requests per fixed window of SECONDS, then 429 with "
        "Retry-After (default: none)",
    )
    sparring_serve.set_defaults(func=cmd_sparring_serve)
