"""The whole project end to end: the README, make run, the browser, the production stack, the crash
matrix, the benchmarks."""
