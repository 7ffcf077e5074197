"""The project's own docs stand alone, and the method page says what the public rules page lists."""

from __future__ import annotations

import re

from colosseum_core.forecast.site.documents import rules_document
from tests.support import REPO

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
METHOD = (REPO / "docs" / "method.md").read_text()


def test_no_doc_points_outside_the_repository():
    for doc in DOCS:
        text = doc.read_text()
        for target in re.findall(r"\]\(([^)]+)\)", text) + re.findall(r"`(\.\./[^`]*)`", text):
            if "://" in target or target.startswith("#"):
                continue
            # docs/ may link up to the README; nothing may link past the repository's root.
            assert not target.startswith("/"), f"{doc.name} links outside the repository: {target}"
            path = (doc.parent / target.split("#")[0]).resolve()
            assert path.is_relative_to(REPO.resolve()), f"{doc.name} links outside the repository: {target}"
            assert path.exists(), f"{doc.name} links to missing {target}"
        assert "shared/" not in text, f"{doc.name} names the workplace's shared folder"


def test_the_method_page_names_every_rule_the_public_rules_page_lists():
    rules = rules_document()
    for version in rules["versions"]:
        assert version["version"] in METHOD, version
    for rule in rules["selection_rules"]:
        assert f"`{rule['id']}`" in METHOD, rule
    for step in rules["recovery_steps"]:
        assert f"`{step['id']}`" in METHOD, step
    for parameter in rules["parameters"]:
        assert parameter["id"] in METHOD and str(parameter["value"]) in METHOD, parameter
    # The selection rules and the recovery steps in the published order.
    for key in ("selection_rules", "recovery_steps"):
        ids = [f"`{item['id']}`" for item in rules[key]]
        assert [METHOD.index(i) for i in ids] == sorted(METHOD.index(i) for i in ids), key
