"""The trials' pages of the public site: built by the site engine from a record holding a trial (the
committed forecast fixture record, and a trial of a guest model run into it with the toy part), read
back against the record, the landing page listing the trial from the site's files alone, and one page
seen in headless Chromium."""

from __future__ import annotations

from pathlib import Path

from colosseum_core.record.layout import Record
from colosseum_core.site.public import PublicSite, SitePart
from colosseum_core.site.trials import TRIALS_DOCUMENT, TRIALS_INDEX, TrialPages, trial_page_name
from colosseum_core.trust.bundle import verify_bundle
from tests.support.trial_part_toy import BrokenPart, ToyPart
from tests.trial.conftest import fixture_record


def test_a_trial_has_a_page_listing_its_parts_linked_from_the_landing_page(
    built: tuple[Record, Path, str],
) -> None:
    from colosseum_core.forecast.site import FORECAST_SITE

    record, out, trial = built
    page = (out / trial_page_name(trial)).read_text()
    assert "trial_toy / answers" in page and "trial_toy / broken" in page
    assert "answered share 1 [" in page and "1st of 3 (higher is better)" in page
    assert "failed: RuntimeError: the broken toy part breaks over two lines" in page
    assert "What the columns mean" in page and "Format failures" in page
    assert "\u202e" not in page and "<b>7b" not in page and "U+202E" in page
    assert "receipts/sha256/" in page
    landing = (out / "index.html").read_text()
    assert f'href="{trial_page_name(trial)}"' in landing and "Model trials" in landing
    assert f'href="{trial}.html"' in (out / TRIALS_INDEX).read_text()

    site = PublicSite(
        (SitePart(FORECAST_SITE, "forecast", "Forecasting"),),
        trials=TrialPages(lambda: (ToyPart(), BrokenPart())),
    )
    # The record's own arena key is an older one (it was written by older code): the signature is
    # checked as the site's own, every page against the record.
    assert site.site_problems(out, record) == [] and verify_bundle(out).problems == []
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert site.landing_problems(out, files) == ([], [])
    # The landing page lists only what the manifest vouches for.
    problems, _ = site.landing_problems(out, files - {TRIALS_DOCUMENT})
    assert problems and "index.html" in problems[0]

    # A page changed after the build, or one the record does not give, is named.
    target = out / trial_page_name(trial)
    original = target.read_bytes()
    try:
        target.write_bytes(original.replace(b"1st of 3", b"1st of 9"))
        (out / "trials" / "forged.html").write_text("<html></html>")
        found = site.site_problems(out, record)
        assert f"{trial_page_name(trial)}: differs from the site the record gives" in found
        assert "trials/forged.html: a trial page the record does not give" in found
    finally:
        target.write_bytes(original)
        (out / "trials" / "forged.html").unlink()


def test_a_site_without_trials_has_no_trials_folder_and_its_landing_page_says_nothing_of_them(
    tmp_path: Path,
) -> None:
    from colosseum_core.forecast.site import FORECAST_SITE

    data = tmp_path / "data"
    fixture_record(data)
    parts = (SitePart(FORECAST_SITE, "forecast", "Forecasting"),)
    with_trials = PublicSite(parts, trials=TrialPages(lambda: (ToyPart(),)))
    without = PublicSite(parts)
    with_trials.build(Record(data), tmp_path / "a", built_at="2026-12-05T12:00:00Z")
    without.build(Record(data), tmp_path / "b", built_at="2026-12-05T12:00:00Z")
    assert not (tmp_path / "a" / "trials").exists()
    assert (tmp_path / "a" / "index.html").read_bytes() == (tmp_path / "b" / "index.html").read_bytes()
