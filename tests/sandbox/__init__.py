"""The sandbox (colosseum_core/sandbox) on bubblewrap."""
