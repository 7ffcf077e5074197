"""No circle of imports anywhere in the project: at no depth of ``colosseum_core``,
``colosseum_dagster`` or ``colosseum_standins`` do two modules, or two sub-packages, import each
other, directly or round a loop.

grimp's ``nominate_cycle_breakers(package)`` names the fewest imports between the package's children
whose removal would leave the children in layers; none means their imports form no loop. It is asked
of every package at every depth (the root and every sub-package), the imports made only under
``TYPE_CHECKING`` left out (they never run). ``.importlinter`` says which way the arrows point where
it matters (the forecast's stages, the debate's layers); this says that nowhere do they go round.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

PACKAGES = ("colosseum_core", "colosseum_dagster", "colosseum_standins")


def _named(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    lines = graph.get_import_details(importer=importer, imported=imported)
    where = "; ".join(f"l.{line['line_number']} {line['line_contents']}" for line in lines)
    return f"{importer} -> {imported} ({where})"


def cycle_breakers(root: str) -> dict[str, list[str]]:
    """Every package under ``root`` (itself included) whose children import round a circle, with the
    imports grimp would cut to break it, each with its line."""
    graph = grimp.build_graph(root, exclude_type_checking_imports=True, cache_dir=None)
    found = {}
    for package in sorted(m for m in graph.modules if graph.find_children(m)):
        breakers = graph.nominate_cycle_breakers(package)
        if breakers:
            found[package] = [_named(graph, importer, imported) for importer, imported in sorted(breakers)]
    return found


@pytest.mark.parametrize("root", PACKAGES)
def test_no_package_at_any_depth_imports_round_a_circle(root: str) -> None:
    found = cycle_breakers(root)
    assert not found, f"{root} imports round a circle; move what both sides need below them:\n" + "\n".join(
        f"  in {package}: {breaker}" for package, breakers in found.items() for breaker in breakers
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_circle_between_sub_packages_is_found_and_its_import_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No module imports itself round a loop here: only the two sub-packages do, as settings and
    # the record once did (settings -> record.storage, record.layout -> settings).
    _write(
        tmp_path,
        {
            "circled/__init__.py": "",
            "circled/low/__init__.py": "",
            "circled/low/a.py": "from circled.high import c\n",
            "circled/low/b.py": "",
            "circled/high/__init__.py": "",
            "circled/high/c.py": "",
            "circled/high/d.py": "from circled.low import b\n",
            "circled/high/e.py": "from circled.low import b\n",
            "apart/__init__.py": "",
            "apart/low.py": "",
            "apart/high.py": "from apart import low\n",
        },
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycle_breakers("circled") == {
        "circled": ["circled.low.a -> circled.high.c (l.1 from circled.high import c)"]
    }
    assert cycle_breakers("apart") == {}
