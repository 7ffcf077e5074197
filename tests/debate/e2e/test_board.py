"""The debate board: built from sealed epochs played through the real Definitions, signed by the
shared engine, read back against the record; a changed page or record is named."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from colosseum_core.arenas import AUDITS, PUBLIC_SITE
from colosseum_core.debate.arena import DEBATE
from colosseum_core.debate.prompts import PROMPTS
from colosseum_core.debate.site.stats import judge_statistics
from colosseum_core.forecast.arena import FORECAST
from colosseum_core.record import with_ids
from colosseum_core.record.layout import Record
from colosseum_core.site.publish import UnverifiedRecordError, publish_site, published_problems
from colosseum_core.trust.bundle import ARENA_PEM, ENVELOPE_NAME, MANIFEST_NAME, sign_bundle
from colosseum_core.trust.keys import ARENA, KeyStore
from colosseum_core.verify import verify_path
from colosseum_dagster.definitions import defs
from tests.conftest import check_results
from tests.support.debate import Arena, debate_servers, enter_field
from tests.support.pages import read_page_text

BUILT = dt.datetime(2026, 1, 5, 12, 0, tzinfo=dt.UTC)


@contextlib.contextmanager
def _playing(data: Path) -> Iterator[Arena]:
    """The debate arena on loopback, over the record at ``data``, with a field and a strong player."""
    with debate_servers() as (ledger_url, ledger, sparring, exchange):
        enter_field(ledger, "Be thorough: build a comprehensive case.")
        yield Arena(data, ledger_url, ledger, sparring, exchange)


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[str]]]:
    data = tmp_path_factory.mktemp("board") / "data"
    with _playing(data) as arena:
        epochs = [arena.epoch() for _ in range(3)]
    yield data, epochs


def _publish(data: Path, out: Path):
    record = Record(data)
    return record, publish_site(PUBLIC_SITE, record, KeyStore.for_data(data), out, built_at=BUILT)


def test_the_board_shows_every_sealed_epoch_and_game_and_reads_back_clean(season, tmp_path: Path) -> None:
    data, epochs = season
    record, published = _publish(data, tmp_path / "site")
    tables = record.tables(DEBATE)
    assert published_problems(PUBLIC_SITE, published.site, record) == []
    # A record with no forecasting arena: the landing page leads to the debate arena's part, in debate/,
    # names its king and its top Elo from the crown and ratings rows, and says the others have no record.
    assert list(published.report.parts) == ["debate"]
    landing = (published.site / "index.html").read_text()
    assert 'href="debate/index.html"' in landing and 'href="forecast/' not in landing
    assert landing.count('<p class="empty">No record yet.</p>') == 2
    crown = tables.read("crown", epochs[-1]).row(0, named=True)
    king = f'data-table="crown" data-id="{crown["id"]}" data-field="king_hotkey">{crown["king_hotkey"]}<'
    assert king in landing and f'data-field="king_rating">{crown["king_rating"]:.1f}<' in landing
    ratings = tables.read("ratings", epochs[-1])
    top = ratings.filter(pl.col("rating") == pl.col("rating").max())
    assert all(f'data-id="{row_id}" data-field="hotkey">' in landing for row_id in top["id"])
    site = published.site / "debate"
    assert published.report.parts["debate"].summary["epochs"] == 3
    games = pl.concat([tables.read("games", e) for e in epochs])
    assert published.report.parts["debate"].summary["games"] == games.height
    for epoch in epochs:
        assert (site / "epochs" / f"{epoch}.html").is_file()
    for game_id in games["game_id"]:
        page = (site / "games" / f"{game_id}.html").read_text()
        assert "Transcript (raw)" in page and "judge_calls" in page
    index = (site / "index.html").read_text()
    last = tables.read("ratings", epochs[-1])
    assert "Standings after epoch" in index and all(h in index for h in last["hotkey"])
    prompts = (site / "prompts.html").read_text()
    assert all(p.version in prompts and p.sha256 in prompts for p in PROMPTS)
    shares = judge_statistics(games).shares()
    judges = (site / "judges.html").read_text()
    assert all(value.replace("%", "%") in judges for value in shares.values())
    # Every sealed table is downloadable, byte for byte the record's.
    for epoch in epochs:
        for table in ("games", "ratings", "crown", "weights"):
            assert (site / "downloads" / table / f"epoch={epoch}.parquet").read_bytes() == tables.read_bytes(
                table, epoch
            )


def test_a_changed_page_value_is_named(season, tmp_path: Path) -> None:
    data, epochs = season
    record, published = _publish(data, tmp_path / "site")
    tables = record.tables(DEBATE)
    page = published.site / "debate" / "index.html"
    rating = tables.read("ratings", epochs[-1]).row(0, named=True)
    shown = f"{rating['rating']:.1f}"
    text = page.read_text()
    assert shown in text
    page.write_text(text.replace(f">{shown}<", ">9999.9<", 1))
    problems = published_problems(PUBLIC_SITE, published.site, record)
    assert any(
        p.startswith("debate/index.html: ratings row") and "field rating: shows '9999.9'" in p
        for p in problems
    ), problems
    assert any("debate/index.html: differs from the board the record gives" in p for p in problems)
    assert "debate/index.html: SHA-256 does not match the signed manifest" in problems


def test_the_sites_own_pages_are_read_back_too(season, tmp_path: Path) -> None:
    """With no forecasting record, the root page is the site's own: a change to it, a stray file beside
    it or a changed site document is named."""
    data, _ = season
    record, published = _publish(data, tmp_path / "site")
    site = published.site
    landing = site / "index.html"
    landing.write_text(landing.read_text().replace("Frontier Colosseum</h1>", "Frontier Colosseo</h1>"))
    (site / "stray.html").write_text("<p>not built</p>")
    problems = published_problems(PUBLIC_SITE, site, record)
    assert "index.html: differs from the site the record gives" in problems
    assert "stray.html: a file of no part of the site" in problems
    document = site / "site.json"
    document.write_text(document.read_text().replace('"Debate"', '"Elsewhere"'))
    assert "site.json: differs from the site the record gives" in published_problems(
        PUBLIC_SITE, site, record
    )


def test_the_standings_say_in_plain_words_what_every_column_means(season, tmp_path: Path) -> None:
    data, _ = season
    _, published = _publish(data, tmp_path / "site")
    site = published.site / "debate"
    index = read_page_text(site / "index.html")
    terms = {header for term in index.key for header in term.split(", ")}
    shown = [t for t in index.tables if t.caption.startswith(("Elo and Bradley", "The weights"))]
    assert len(shown) == 2
    for table in shown:
        assert table.rows and not [h for h in table.head if h not in terms], (table.caption, terms)
    assert {"Elo", "BT", "BT low, BT high", "Voids", "Entered", "King", "Weight", "Rating key"} <= set(
        index.key
    )
    # Every column header of every page says what it is when hovered; no footer is in backticks.
    for path in sorted(site.rglob("*.html")):
        page = read_page_text(path)
        for table in page.tables:
            untitled = [h for h, tip in zip(table.head, table.tips, strict=True) if not tip.strip()]
            assert not untitled, (path.name, table.caption, untitled)
        assert "`colosseum verify`" not in path.read_text(encoding="utf-8"), path
        assert "colosseum verify checks it" in page.footer and "`" not in page.footer, path


def test_rating_keys_are_shortened_in_tables_and_whole_on_the_miners_page(season, tmp_path: Path) -> None:
    data, epochs = season
    record, published = _publish(data, tmp_path / "site")
    site = published.site / "debate"
    ratings = record.tables(DEBATE).read("ratings", epochs[-1])
    [table] = [t for t in read_page_text(site / "index.html").tables if t.caption.startswith("Elo")]
    keys, miners = table.column("Rating key"), table.column("Miner")
    assert [m.text for m in miners] == ratings["hotkey"].to_list()
    index = (site / "index.html").read_text(encoding="utf-8")
    for row, key, miner in zip(ratings.iter_rows(named=True), keys, miners, strict=True):
        full = row["rating_key"]
        assert key.text == f"{full.rpartition(':')[2][:12]}…" and key.title == full
        assert f">{full}<" not in index  # the whole key only as the cell's tooltip
        # The miner's own page shows every key it has held in full.
        page = site / miner.href
        assert page.parent.name == "miners" and f"<code>{full}</code>" in page.read_text(encoding="utf-8")
        assert read_page_text(page).headings[1] == f"Miner {row['hotkey']}"
    # The crown's tables shorten the keys they show too, the whole key as the tooltip.
    crown = read_page_text(site / "crown.html")
    [crowns] = [t for t in crown.tables if t.caption.startswith("Every epoch's crown")]
    assert all(c.text == "—" or (c.text.endswith("…") and c.title) for c in crowns.column("Deposed"))


def test_a_calibration_game_names_the_house_player_first(season, tmp_path: Path) -> None:
    data, epochs = season
    record, published = _publish(data, tmp_path / "site")
    tables = record.tables(DEBATE)
    games = tables.read("games", epochs[-1])
    assert set(games["kind"]) == {"CALIBRATION"}
    turns = tables.read("turns", epochs[-1])
    game_id = games["game_id"][0]
    page = read_page_text(published.site / "debate" / "games" / f"{game_id}.html")
    spoken = [h for h in page.headings if h.startswith("Turn ")]
    mine = turns.filter(pl.col("game_id") == game_id).sort("turn")
    assert len(spoken) == mine.height
    for heading, turn in zip(spoken, mine.iter_rows(named=True), strict=True):
        assert heading.startswith(
            f"Turn {turn['turn']}, {turn['side']}: {turn['model']}, standing in for the debate model, "
            f"plays {turn['hotkey']}’s strategy"
        ), heading
    [calls] = [t for t in page.tables if t.caption.startswith("The panel")]
    assert calls.head[:2] == ["House player", "Standing in for"]
    assert {c.text for c in calls.column("Standing in for")} <= {"judge-a", "judge-b"}
    assert all(c.text.startswith("house-judge") for c in calls.column("House player"))


def test_a_record_that_does_not_verify_is_not_published(season, tmp_path: Path) -> None:
    data, epochs = season
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    tables = Record(copy).tables(DEBATE)
    weights = tables.read("weights", epochs[-1])
    tables.write("weights", with_ids(weights.with_columns(weight=pl.lit(0.5)).drop("id")), epochs[-1])
    with pytest.raises(UnverifiedRecordError, match=f"weights epoch {epochs[-1]}: does not re-derive"):
        _publish(copy, tmp_path / "site")
    assert not (tmp_path / "site").exists()


@pytest.fixture(scope="module")
def both_arenas(published, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Arena]]:
    """The forecasting record the real Definitions published, and one debate epoch played into it."""
    data = tmp_path_factory.mktemp("both") / "data"
    shutil.copytree(published.root, data)
    with _playing(data) as arena:
        arena.epoch()
        yield data, arena


def test_one_site_holds_both_arenas_under_one_manifest_and_the_epoch_asks_for_it(
    both_arenas, tmp_path: Path
) -> None:
    data, arena = both_arenas
    # The close asks for the board: the sensor follows the epoch's weight_sets.
    context = dg.build_sensor_context(instance=arena.instance, definitions=defs)
    sensor = defs.resolve_sensor_def("debate_board_sensor")
    [request] = sensor.evaluate_tick(context).run_requests
    assert sensor.job_name == "public_board_job" and request.run_key
    result = arena.run_unpartitioned(sensor.job_name)
    assert check_results(result) == {
        "site_matches_record": True,
        "forecast_published": True,
        "debate_published": True,
        "events_published": True,
    }
    site = data / "site"
    record = Record(data)
    assert published_problems(PUBLIC_SITE, site, record) == []
    # One manifest lists both parts' files; the debate part has no signature of its own.
    listed = {f["path"] for f in json.loads((site / MANIFEST_NAME).read_text())["files"]}
    assert "index.html" in listed and "debate/index.html" in listed and "debate/crown.html" in listed
    assert not (site / "debate" / MANIFEST_NAME).exists()
    assert json.loads((site / "site.json").read_text())["arenas"] == [
        {"arena": "forecast", "folder": "forecast", "label": "Forecasting"},
        {"arena": "debate", "folder": "debate", "label": "Debate"},
    ]
    # Every page leads to the landing page and both arenas, from wherever it lives.
    landing = (site / "index.html").read_text()
    assert 'aria-label="Arenas"' in landing and 'href="debate/index.html">Debate<' in landing
    assert 'href="forecast/index.html">Forecasting<' in landing
    forecast_home = (site / "forecast" / "index.html").read_text()
    assert (
        'href="../index.html">Arenas<' in forecast_home
        and 'href="../debate/index.html">Debate<' in forecast_home
    )
    game = next((site / "debate" / "games").glob("*.html")).read_text()
    assert (
        'href="../../index.html">Arenas<' in game and 'href="../../forecast/index.html">Forecasting<' in game
    )
    assert 'href="../index.html" aria-current="true">Debate<' in game
    report = verify_path(site, AUDITS, workers=1, public_site=PUBLIC_SITE)
    assert report.ok(), report.problems[:5]

    # A changed debate page is named with its place on the site, by the re-read and by verify.
    tampered = tmp_path / "tampered"
    shutil.copytree(site, tampered)
    page = tampered / "debate" / "crown.html"
    page.write_text(page.read_text().replace("<h1>", "<h1>Forged ", 1))
    problems = published_problems(PUBLIC_SITE, tampered, record)
    assert "debate/crown.html: differs from the board the record gives" in problems
    assert "debate/crown.html: SHA-256 does not match the signed manifest" in problems
    assert any(
        "debate/crown.html" in p
        for p in verify_path(tampered, AUDITS, workers=1, public_site=PUBLIC_SITE).problems
    )
    # A navigation the site does not have is named too.
    about = tampered / "debate" / "about.json"
    about.write_text(about.read_text().replace('"Forecasting"', '"Elsewhere"'))
    assert any(p.startswith("debate/about.json: the navigation between arenas") for p in
               published_problems(PUBLIC_SITE, tampered, record))  # fmt: skip


def test_a_forged_download_under_a_fresh_signature_is_named_by_its_row(both_arenas, tmp_path: Path) -> None:
    """Whoever holds the arena key and re-signs a changed download is still caught: verify re-computes
    every row identifier of the debate board's Parquet downloads."""
    data, _ = both_arenas
    record = Record(data)
    site = publish_site(PUBLIC_SITE, record, KeyStore.for_data(data), tmp_path / "site", built_at=BUILT).site
    [download] = sorted((site / "debate" / "downloads" / "games").glob("*.parquet"))[:1]
    games = pl.read_parquet(download)
    flipped = pl.when(pl.col("winner") == "Pro").then(pl.lit("Con")).otherwise(pl.lit("Pro"))
    games.with_columns(
        winner=pl.when(pl.int_range(pl.len()) == 0).then(flipped).otherwise("winner")
    ).write_parquet(download)
    for name in (MANIFEST_NAME, ENVELOPE_NAME, ARENA_PEM):
        (site / name).unlink()
    sign_bundle(site, KeyStore.for_data(data).signing_key(ARENA, BUILT.date()))
    problems = verify_path(site, AUDITS, workers=1).problems
    name = download.relative_to(site).as_posix()
    assert any(p.startswith(name) and games["id"][0] in p for p in problems), problems


def test_an_arena_that_stops_verifying_is_held_at_its_last_pages_and_the_others_publish(
    both_arenas, tmp_path: Path
) -> None:
    """One arena's trouble is its own: the debate record stops verifying, the forecasting board is still
    rebuilt, the debate keeps its last published pages with a notice naming the problem, the board's
    check for the debate fails in Dagster and the command exits 1 naming it."""
    from colosseum_dagster.cli import main

    data, _ = both_arenas
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    record = Record(copy)
    site = tmp_path / "site"
    good = publish_site(PUBLIC_SITE, record, KeyStore.for_data(copy), site, built_at=BUILT)
    assert good.held == {}
    good_crown = (site / "debate" / "crown.html").read_text()
    tables = record.tables(DEBATE)
    [epoch] = tables.partitions("weights")
    weights = tables.read("weights", epoch)
    tables.write("weights", with_ids(weights.with_columns(weight=pl.lit(0.5)).drop("id")), epoch)

    later = BUILT + dt.timedelta(hours=1)
    held = publish_site(PUBLIC_SITE, record, KeyStore.for_data(copy), site, built_at=later)
    assert list(held.held) == ["debate"]
    debate = held.held["debate"]
    assert debate.pages_built_at == "2026-01-05T12:00:00Z" and debate.problem_count >= 1
    assert any(f"weights epoch {epoch}" in p for p in debate.problems)
    # The forecasting board is this build's; the debate's pages are the last good ones, with a notice.
    document = json.loads((site / "site.json").read_text())
    assert document["built_at"] == "2026-01-05T13:00:00Z"
    assert [a["arena"] for a in document["arenas"]] == ["forecast"]
    assert [h["arena"] for h in document["held"]] == ["debate"]
    crown = (site / "debate" / "crown.html").read_text()
    start = crown.index('<p class="notice held" role="status">')
    notice = crown[start : crown.index("</p>\n", start) + 5]
    assert "These Debate pages are as published on 2026-01-05T12:00:00Z" in notice
    assert f"weights epoch {epoch}" in notice
    assert crown.replace(notice, "") == good_crown
    landing = (site / "index.html").read_text()
    assert "2026-01-05T13:00" in landing
    # The landing page shows the debate held, with its notice, beside what its kept pages say.
    section = landing[landing.index('id="arena-debate"') :]
    assert section.index('class="notice held"') < section.index("Who leads now")
    assert "Debate is held" in section and "as published on 2026-01-05T12:00:00Z" in section
    assert f"weights epoch {epoch}" in section[: section.index("</p>")]
    # The site reads back clean where it is built from the record; its signature covers all of it.
    assert published_problems(PUBLIC_SITE, site, record) == []
    report = verify_path(site, AUDITS, workers=1, public_site=PUBLIC_SITE)
    assert report.ok(), report.problems[:5]
    # Held again an hour later: the same last good pages, with one notice, not two.
    publish_site(PUBLIC_SITE, record, KeyStore.for_data(copy), site, built_at=later + dt.timedelta(hours=1))
    assert (site / "debate" / "crown.html").read_text().count('class="notice held"') == 1

    # The operator is told in the UI: the debate's check fails, the forecast's passes, the board is built.
    result = defs.resolve_job_def("public_board_job").execute_in_process(
        run_config={"resources": {"record": {"config": {"data_dir": str(copy)}}}},
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=False,
    )
    assert result.success
    assert check_results(result) == {
        "site_matches_record": True,
        "forecast_published": True,
        "debate_published": False,
        "events_published": True,
    }
    # And the command names it and exits 1.
    with pytest.raises(SystemExit) as exited:
        main(["board", "build", str(tmp_path / "cli-site"), "--data", str(copy)])
    assert exited.value.code == 1


def test_a_held_forecast_keeps_no_pages_of_a_site_from_before_the_landing_page(
    both_arenas, tmp_path: Path
) -> None:
    """A site built before the landing page had the forecasting board at its root. Held now, the
    forecast does not carry those pages into forecast/ (their links lead elsewhere there): the landing
    page shows it held with no pages, the debate is published, and the new site reads back clean."""
    data, _ = both_arenas
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    record = Record(copy)
    site = tmp_path / "site"
    publish_site(PUBLIC_SITE, record, KeyStore.for_data(copy), site, built_at=BUILT)
    # The site as the engine before the landing page laid it out: the forecasting board at the root.
    (site / "index.html").unlink()
    for path in sorted((site / "forecast").iterdir()):
        if not (site / path.name).exists():
            path.rename(site / path.name)
    shutil.rmtree(site / "forecast")
    document = json.loads((site / "site.json").read_text())
    document["arenas"][0]["folder"] = "."
    (site / "site.json").write_text(json.dumps(document))
    [card, *_] = sorted(record.tables(FORECAST).partitions("answers"), reverse=True)
    answers = record.tables(FORECAST).read("answers", card)
    seat = answers["seat"][0]
    pending = answers.with_columns(
        status=pl.when(pl.col("seat") == seat).then(pl.lit("pending")).otherwise(pl.col("status"))
    )
    record.tables(FORECAST).write("answers", with_ids(pending), card)

    later = BUILT + dt.timedelta(hours=1)
    published = publish_site(PUBLIC_SITE, record, KeyStore.for_data(copy), site, built_at=later)
    assert list(published.held) == ["forecast"] and published.held["forecast"].pages_built_at is None
    assert not (site / "forecast").exists() and not (site / "cards").exists()
    landing = (site / "index.html").read_text()
    section = landing[landing.index('id="arena-forecast"') : landing.index('id="arena-debate"')]
    assert "Forecasting is held" in section and "It has no pages on the site yet" in section
    assert f"card {card}" in section and 'href="forecast/' not in landing
    assert published_problems(PUBLIC_SITE, site, record) == []


def test_every_part_has_a_folder_of_its_own_and_the_root_is_the_sites() -> None:
    from colosseum_core.arenas import DEBATE_SITE, EVENTS_SITE
    from colosseum_core.forecast.site import FORECAST_SITE
    from colosseum_core.site.public import PublicSite, SitePart

    plugins = (FORECAST_SITE, DEBATE_SITE, EVENTS_SITE)
    for folders in (("", "debate", "events"), ("keys", "debate", "events"), ("a/b", "debate", "events"),
                    (".hidden", "debate", "events"), ("forecast", "debate", "debate")):  # fmt: skip
        with pytest.raises(ValueError, match="folder"):
            PublicSite([SitePart(p, f, f or "root") for p, f in zip(plugins, folders, strict=True)])
    assert [p.folder for p in PUBLIC_SITE.parts] == ["forecast", "debate", "events"]


def test_a_hostile_name_on_the_landing_page_is_shown_escaped_and_read_back_as_it_is() -> None:
    """A miner names its own hotkey: on the landing page every hidden code point is a visible escape, no
    markup gets through, and the re-check reads the name back as the record's exact text."""
    from colosseum_core.site.check import page_problems
    from colosseum_core.site.front import Front, KindFront, Lead, Shown, Value, front_differences
    from colosseum_core.site.page_parse import read_page
    from colosseum_core.site.public import landing_page

    hostile = 'ada\u202e\u200b\x00"><script>alert(1)</script><a href="https://x">'
    lead = Lead(
        "King",
        (Value(hostile, "crown", "row-1", "king_hotkey"),),
        (("Elo", Value("1016.0", "crown", "row-1", "king_rating")),),
    )
    front = Front("Two sentences.", (KindFront("FIGHT"), KindFront("CALIBRATION", (lead,))))
    shown = [Shown("debate", "Debate", "debate", front=front)]
    page = landing_page(shown, "2026-01-05T12:00:00Z")
    assert "\u202e" not in page and "\x00" not in page and "<script>" not in page
    assert "U+202E" in page and "U+200B" in page
    marks = read_page(page, fast=False)
    assert ("crown", "row-1", "king_hotkey", hostile) in marks.cells
    assert "https://x" not in {ref for _, _, ref in marks.refs} and not marks.scripts
    assert front_differences("index.html", page, shown) == []
    files = {"index.html", "style.css", "debate/index.html", "debate/crown.html", "debate/epochs/e.html"}
    files |= {"MANIFEST.json", "MANIFEST.json.dsse", "keys/arena.pem"}
    assert page_problems("index.html", marks, files | {"debate/downloads.html"}) == []
