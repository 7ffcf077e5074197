"""The local servers that speak the real services' protocols on loopback: the simulated exchange, the
sparring server of house models, and the helpers that serve them. Only the wiring, the CLI, the
benchmarks and the tests import them; no rule of any arena does."""
