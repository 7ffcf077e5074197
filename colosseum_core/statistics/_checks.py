"""Argument checks shared by the ratings modules: every refusal is a ValueError naming the argument."""

from __future__ import annotations

import math
import operator

import numpy as np


def whole(value: object, name: str) -> int:
    """``value`` as a Python int; bools and non-integers are refused (a bool is not a count)."""
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be a whole number, not the bool {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise ValueError(f"{name} must be a whole number, not {value!r}") from None


def positive_whole(value: object, name: str, minimum: int = 1) -> int:
    number = whole(value, name)
    if number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {value!r}")
    return number


def finite_number(value: object, name: str) -> float:
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.integer | np.floating):
        raise ValueError(f"{name} must be a real number, not {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return number


def index_array(values: object, name: str) -> np.ndarray:
    """A 1-D int64 array of whole numbers; floats, bools and objects are refused, not truncated."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, not shape {array.shape}")
    if array.size == 0:
        return np.zeros(0, dtype=np.int64)
    if array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold whole numbers (an integer array), not dtype {array.dtype}")
    if array.dtype.kind == "u" and int(array.max()) > np.iinfo(np.int64).max:
        raise ValueError(f"{name} has values beyond the int64 range, e.g. {int(array.max())}")
    return array.astype(np.int64, copy=False)


def in_range(array: np.ndarray, low: int, high: int, name: str) -> None:
    """Every value in [low, high); the first offender is named."""
    bad = np.flatnonzero((array < low) | (array >= high))
    if bad.size:
        first = int(bad[0])
        raise ValueError(f"{name}[{first}] = {int(array[first])} is outside [{low}, {high})")


def same_length(arrays: dict[str, np.ndarray]) -> int:
    lengths = {name: array.shape[0] for name, array in arrays.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{name} has {length}" for name, length in lengths.items())
        raise ValueError(f"the game arrays differ in length: {listed}")
    return next(iter(lengths.values()))
