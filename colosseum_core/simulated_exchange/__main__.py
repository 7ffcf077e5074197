"""``python -m colosseum_core.simulated_exchange --port 8765 --seed 0 --markets 3000 --faults SPEC``."""

from __future__ import annotations

import argparse

from colosseum_core.simulated_exchange.server import serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the simulated Polymarket Gamma API on loopback.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--markets", type=int, default=3000, help="approximate number of open markets")
    parser.add_argument("--faults", default=None, help="fault SPEC, e.g. '429:p=0.05;reset:every=50'")
    args = parser.parse_args(argv)
    serve(args.host, args.port, seed=args.seed, markets=args.markets, faults=args.faults)


if __name__ == "__main__":
    main()
