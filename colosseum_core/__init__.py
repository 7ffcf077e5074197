"""Frontier Colosseum domain logic. Pure Python over plain data; never imports dagster."""
