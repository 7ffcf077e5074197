"""Every package says, first thing in its ``__init__``, what lives in it and what may import it.

The convention: the module docstring opens with what lives there and holds a paragraph starting
``Imported by:`` that names who may import the package (per the contracts in ``.importlinter`` and
the architecture: the platform knows no arena, the arenas never import each other, the core never
imports the wiring nor the stand-ins).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGES = ("colosseum_core", "colosseum_dagster", "colosseum_standins")
IMPORTED_BY = "Imported by:"


def docstring_problems(init: Path) -> list[str]:
    """What the ``__init__`` at ``init`` lacks of the convention (nothing when it holds)."""
    docstring = ast.get_docstring(ast.parse(init.read_text()), clean=True)
    if not docstring:
        return ["no module docstring first in the file"]
    problems = []
    lines = docstring.splitlines()
    if not lines[0].strip() or lines[0].startswith(IMPORTED_BY):
        problems.append("its first line does not say what lives in the package")
    said = [line for line in lines if line.startswith(IMPORTED_BY)]
    if not said:
        problems.append(f"no line starting {IMPORTED_BY!r} says what may import it")
    elif any(not line.removeprefix(IMPORTED_BY).strip() for line in said):
        problems.append(f"{IMPORTED_BY!r} names no importer")
    return problems


def test_every_package_says_what_lives_in_it_and_what_may_import_it() -> None:
    inits = sorted(init for root in PACKAGES for init in (REPO / root).rglob("__init__.py"))
    assert len(inits) > 40
    found = {str(init.relative_to(REPO)): docstring_problems(init) for init in inits}
    lacking = {path: problems for path, problems in found.items() if problems}
    assert not lacking, "\n".join(f"{path}: {'; '.join(problems)}" for path, problems in lacking.items())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no module docstring first in the file"),
        ('import os\n"""Too late for a docstring.\n\nImported by: the tests."""\n', "no module docstring"),
        ('"""The widgets.\n\nThe tests use them."""\n', "no line starting 'Imported by:'"),
        ('"""The widgets.\n\nImported by:\n"""\n', "'Imported by:' names no importer"),
        ('"""Imported by: the tests."""\n', "its first line does not say what lives in the package"),
    ],
)
def test_a_docstring_short_of_the_convention_is_named(tmp_path: Path, text: str, problem: str) -> None:
    init = tmp_path / "__init__.py"
    init.write_text(text)
    assert any(p.startswith(problem) for p in docstring_problems(init)), docstring_problems(init)
    init.write_text('"""The widgets: one per kind.\n\nImported by: the tests."""\n')
    assert docstring_problems(init) == []
