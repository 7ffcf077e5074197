"""The wiring end to end: interrupts, one writer, the providers' pools on a real instance."""
