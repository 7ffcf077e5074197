"""``python -m colosseum_standins.simulated_exchange --fd N``: the exchange on a socket it is handed.

The child side of ``exchange_process``; people start the exchange with ``colosseum exchange serve``.
"""

from __future__ import annotations

import argparse

from colosseum_standins.simulated_exchange.server import serve_fd


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m colosseum_standins.simulated_exchange")
    parser.add_argument("--fd", type=int, required=True, help="a listening socket's file descriptor")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markets", type=int, default=3000)
    parser.add_argument("--faults", default=None)
    args = parser.parse_args()
    serve_fd(args.fd, seed=args.seed, markets=args.markets, faults=args.faults)


if __name__ == "__main__":
    main()
