"""The local servers (colosseum_standins): simulated exchange, sparring server, child processes."""
