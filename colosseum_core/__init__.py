"""Frontier Colosseum domain logic. Pure Python over plain data; never imports dagster, nor the local
stand-ins (``colosseum_standins``)."""
