"""``colosseum export`` on the three committed fixture records, opened with the field's own libraries,
never with the exporter's code: inspect-ai's ``read_eval_log``, ``list_eval_logs``, its log dataframes
and the viewer's own API; ``datasets.load_dataset`` on the dataset folder; ``jsonschema`` against
Every Eval Ever's schema. What each export says is compared with the record's tables read with polars.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.parse
from pathlib import Path

import polars as pl
import pytest

from colosseum_core.record.migrate import migrate_to_arena_folders
from colosseum_dagster.cli import main
from tests.support import FIXTURES

inspect_log = pytest.importorskip("inspect_ai.log", reason="the exports extra: pip install -e '.[exports]'")
analysis = pytest.importorskip("inspect_ai.analysis")
datasets = pytest.importorskip("datasets")
jsonschema = pytest.importorskip("jsonschema")

RECORDS = ("forecast_record_620f091", "debate_record_9b5eb0b", "events_record_9b5eb0b")
SCHEMA = (
    Path(__file__).parents[2]
    / "colosseum_core"
    / "exports"
    / "schemas"
    / "every_eval_ever-0.3.0.eval.schema.json"
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One record holding the three fixtures (the forecast's moved into its arena folder first), and
    what ``colosseum export`` wrote from it."""
    tmp = tmp_path_factory.mktemp("export")
    root = tmp / "data"
    from colosseum_core.forecast.arena import FORECAST

    legacy = Path(shutil.copytree(FIXTURES / RECORDS[0] / "data", tmp / "legacy"))
    migrate_to_arena_folders(legacy, FORECAST)
    for source in (legacy, FIXTURES / RECORDS[1] / "data", FIXTURES / RECORDS[2] / "data"):
        shutil.copytree(
            source, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("colosseum.duckdb", "locks")
        )
    out = tmp / "out"
    with pytest.raises(SystemExit) as exited:
        main(["export", "--data", str(root), "--out", str(out), "--json", "--quiet"])
    assert exited.value.code == 0
    return root, out


def _table(root: Path, arena: str, table: str) -> pl.DataFrame:
    return pl.read_parquet(root / "warehouse" / arena / table / "*" / "data.parquet", hive_partitioning=False)


def test_every_log_opens_with_inspect_and_carries_the_record(exported):
    root, out = exported
    listed = inspect_log.list_eval_logs(str(out / "inspect"))
    # 13 seats x 1 card, 4 debaters + 2 judges x 1 epoch, 2 chess + 3 Soo + 3 challenge contenders
    assert len(listed) == 13 + 6 + 2 + 3 + 3
    games = _table(root, "events", "chess_games")
    by_task: dict[str, int] = {}
    for info in listed:
        log = inspect_log.read_eval_log(info)
        by_task[log.eval.task] = by_task.get(log.eval.task, 0) + 1
        assert log.status == "success" and log.results is not None
        assert log.results.total_samples == len(log.samples) == log.eval.dataset.samples
        assert log.eval.metadata["unit"] and log.eval.metadata["contender"]
        for sample in log.samples:
            assert sample.input and sample.messages and sample.metadata
        if log.eval.task == "colosseum-chess":
            for sample in log.samples:
                game = games.filter(pl.col("game_id") == sample.metadata["game_id"]).row(0, named=True)
                white = sample.metadata["colour"] == "white"
                assert sample.scores["points"].value == (
                    game["white_score"] if white else 1 - game["white_score"]
                )
                assert sample.output.completion == game["pgn"]
                assert sample.metadata["game_row"] == game["id"]
    assert by_task == {
        "colosseum-forecast": 13,
        "colosseum-debate": 4,
        "colosseum-debate-judge": 2,
        "colosseum-chess": 2,
        "colosseum-solve-or-object": 3,
        "colosseum-challenges": 3,
    }


def test_the_forecast_logs_hold_each_seats_binding_lines_and_omitted_settings(exported):
    root, out = exported
    lines = _table(root, "forecast", "answer_lines").filter(pl.col("binding"))
    answers = _table(root, "forecast", "answers")
    logs = [inspect_log.read_eval_log(p) for p in inspect_log.list_eval_logs(str(out / "inspect"))]
    forecast = {log.eval.metadata["seat"]: log for log in logs if log.eval.task == "colosseum-forecast"}
    assert set(forecast) == set(answers["seat"])
    for a in answers.iter_rows(named=True):
        log = forecast[a["seat"]]
        recorded = json.loads(a["settings"])
        assert log.eval.model_args["settings"] == recorded  # OMITTED kept as recorded
        assert log.eval.model_generate_config.seed == (
            None if recorded["seed"] == "OMITTED" else recorded["seed"]
        )
        mine = lines.filter(pl.col("seat") == a["seat"])
        said = {s.id: s.output.completion for s in log.samples if s.output.completion}
        assert said == {
            r["label"]: f"{r['label']}: {r['call']} {r['confidence']}" for r in mine.iter_rows(named=True)
        }
        assert all(s.target == "" and not s.scores for s in log.samples)  # the card is not settled yet


def test_inspects_dataframes_and_its_viewer_read_the_logs(exported):
    root, out = exported
    folder = str(out / "inspect")
    evals = analysis.evals_df(folder)  # strict: a column it cannot read raises
    samples = analysis.samples_df(folder)
    assert len(evals) == 27
    assert len(samples) == int(evals["total_samples"].sum())
    soo_ids = set(evals[evals["task_name"] == "colosseum-solve-or-object"]["eval_id"])
    soo = samples[samples["eval_id"].isin(soo_ids)]
    replies = _table(root, "events", "soo_replies")
    assert len(soo) == replies.height
    assert sorted(soo["score_points"].astype(float)) == sorted(replies["points"].cast(pl.Float64).to_list())
    assert "score_points_rating_low" in evals.columns and "metadata_game_id" in samples.columns

    from fastapi.testclient import TestClient
    from inspect_ai._view.fastapi_server import view_server_app  # what `inspect view` serves under /api

    client = TestClient(view_server_app(default_dir=folder))
    listing = client.get("/logs")
    assert listing.status_code == 200, listing.text
    names = [f["name"] for f in listing.json()["files"]]
    assert len(names) == 27
    one = client.get("/logs/" + urllib.parse.quote(names[0], safe=""))
    assert one.status_code == 200 and one.json()["eval"]["task"].startswith("colosseum-")


def test_the_dataset_folder_loads_with_datasets_offline(exported, tmp_path, monkeypatch):
    root, out = exported
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    folder = str(out / "hf")
    configs = datasets.get_dataset_config_names(folder)
    assert {"forecast_answers", "debate_games", "events_chess_games", "events_soo_replies"} <= set(configs)
    assert "debate_fight_games" not in configs  # 0 rows: named in the card, no config
    card = (out / "hf" / "README.md").read_text()
    assert "debate_fight_games" in card and "COLOSSEUM-PACKET-2" in card and "license: other" in card
    for config in ("forecast_answer_lines", "debate_turns", "events_chess_moves", "events_challenge_scores"):
        arena, table = config.split("_", 1)
        ds = datasets.load_dataset(folder, config, split="train")
        recorded = _table(root, arena, table)
        assert ds.num_rows == recorded.height
        assert sorted(ds["id"]) == sorted(recorded["id"].to_list())


def test_every_eval_ever_records_pass_its_schema(exported):
    _, out = exported
    schema = json.loads(SCHEMA.read_text())
    assert schema["version"] == "0.3.0"
    validator = jsonschema.Draft7Validator(schema)
    files = sorted((out / "eee" / "data").rglob("*.json"))
    # chess: the model, not the engine; 3 Soo solvers; 3 challenge contenders; 4 debaters
    assert len(files) == 1 + 3 + 3 + 4
    for path in files:
        record = json.loads(path.read_text())
        assert not list(validator.iter_errors(record)), path
        benchmark, developer, model = path.relative_to(out / "eee" / "data").parts[:3]
        assert record["model_info"]["id"] == f"{developer}/{model}"
        assert record["evaluation_results"][0]["evaluation_name"] == benchmark
    broken = json.loads(files[0].read_text())
    del broken["evaluation_results"][0]["metric_config"]["lower_is_better"]
    assert list(validator.iter_errors(broken))  # the check can fail


def test_a_second_export_says_the_same(exported, tmp_path):
    root, out = exported
    again = tmp_path / "again"
    with pytest.raises(SystemExit):
        main(["export", "--data", str(root), "--out", str(again), "--format", "inspect,eee", "--quiet"])
    first = sorted(p.name for p in (out / "inspect").glob("*.eval"))
    assert sorted(p.name for p in (again / "inspect").glob("*.eval")) == first
    for path in (out / "eee").rglob("*.json"):
        assert (again / path.relative_to(out)).read_bytes() == path.read_bytes()
    a = inspect_log.read_eval_log(str(out / "inspect" / first[0]))
    b = inspect_log.read_eval_log(str(again / "inspect" / first[0]))
    assert a.model_dump(exclude={"location"}) == b.model_dump(exclude={"location"})


def test_a_bad_format_and_a_missing_record_are_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["export", "--format", "inspect,csv", "--data", str(tmp_path)])
    assert exited.value.code == 2 and "unknown format csv" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["export", "--data", str(tmp_path / "nothing"), "--out", str(tmp_path / "out")])
    assert exited.value.code == 2
    assert not (tmp_path / "out").exists()
    assert os.listdir(tmp_path) == []


def test_a_settled_card_exports_its_outcomes_and_brier_scores(tmp_path):
    from colosseum_core.forecast.arena import FORECAST
    from colosseum_core.record.layout import Record

    root = Path(shutil.copytree(FIXTURES / RECORDS[0] / "data", tmp_path / "data"))
    migrate_to_arena_folders(root, FORECAST)
    tables = Record(root).tables(FORECAST)
    card = tables.partitions("answers")[0]
    lines = tables.read("answer_lines", card).filter(pl.col("binding"))
    # The card's settlement, as the scoring step would write it: an outcome and a Brier score a line.
    scores = lines.select(
        pl.col("id").alias("answer_line_id"),
        "card",
        "seat",
        "label",
        pl.lit("scored").alias("result"),
        (pl.col("label").str.slice(1).cast(pl.Int64) % 2).alias("outcome"),
        (pl.col("confidence").cast(pl.Float64) / 10).alias("brier"),
        pl.lit("COLOSSEUM-SCORING-2.1").alias("formula"),
    ).with_columns(pl.col("answer_line_id").alias("id"))
    tables.write("scores", scores, card)
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exited:
        main(["export", "--data", str(root), "--out", str(out), "--format", "inspect,eee", "--quiet"])
    assert exited.value.code == 0
    logs = [inspect_log.read_eval_log(p) for p in inspect_log.list_eval_logs(str(out / "inspect"))]
    assert len(logs) == 13
    for log in logs:
        mine = scores.filter(pl.col("seat") == log.eval.metadata["seat"])
        scored = {s.id: (s.target, s.scores["brier"].value) for s in log.samples if s.scores}
        assert scored == {r["label"]: (str(r["outcome"]), r["brier"]) for r in mine.iter_rows(named=True)}
        assert log.results.scores[0].metrics["mean"].value == pytest.approx(mine["brier"].mean())
    records = [json.loads(p.read_text()) for p in (out / "eee" / "data").rglob("*.json")]
    assert len(records) == 13
    assert {r["evaluation_results"][0]["metric_config"]["lower_is_better"] for r in records} == {True}


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A record (the events fixture's: a chess, a Solve-or-Object and a challenge event) and the public
    site ``colosseum board build`` writes from it."""
    tmp = tmp_path_factory.mktemp("site")
    root = Path(shutil.copytree(FIXTURES / RECORDS[2] / "data", tmp / "data"))
    site = tmp / "site"
    with pytest.raises(SystemExit) as exited:
        main(["board", "build", str(site), "--data", str(root)])
    assert exited.value.code == 0
    return root, site


def test_the_built_site_is_a_dataset_that_datasets_loads_as_it_stands(built_site):
    import yaml

    root, site = built_site
    card = (site / "README.md").read_text(encoding="utf-8")
    head = yaml.safe_load(card.split("---\n")[1])
    configs = {c["config_name"]: c["data_files"][0]["path"] for c in head["configs"]}
    assert {"events_chess_games", "events_soo_items", "events_recipes"} <= set(configs)
    for config, paths in configs.items():
        loaded = datasets.load_dataset(str(site), config, split="train")
        rows = sum(pl.read_parquet(site / p).height for p in paths)
        assert loaded.num_rows == rows > 0, config
    games = _table(root, "events", "chess_games")
    loaded = datasets.load_dataset(str(site), "events_chess_games", split="train")
    assert sorted(loaded["game_id"]) == sorted(games["game_id"].to_list())


def test_a_site_whose_dataset_card_was_edited_is_caught(built_site, tmp_path):
    from colosseum_core.arenas import PUBLIC_SITE
    from colosseum_core.record.layout import Record

    root, site = built_site
    assert PUBLIC_SITE.site_problems(site, Record(root)) == []
    edited = Path(shutil.copytree(site, tmp_path / "edited"))
    card = edited / "README.md"
    card.write_text(card.read_text().replace("license: other", "license: mit"), encoding="utf-8")
    assert "README.md: differs from the site the record gives" in PUBLIC_SITE.site_problems(
        edited, Record(root)
    )
