def main() -> None:  # placeholder until the CLI lands
    raise SystemExit("colosseum: CLI not wired yet")
