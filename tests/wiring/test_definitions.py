"""The merged Definitions as the UI, the daemon and the CLI load them: a snapshot, and a loadable module."""

from __future__ import annotations

import importlib

import dagster as dg

from colosseum_dagster.definitions import defs

ASSETS = {
    "duckdb_catalog",
    *(
        f"forecast/{table}"
        for table in (
            "raw_sweep",
            "sweeps",
            "verbatim_markets",
            "copy_errors",
            "card_status",
            "ranked_candidates",
            "card_questions",
            "packet",
            "answers",
            "answer_lines",
            "answer_signatures",
            "public_keys",
            "settlements",
            "settlement_reviews",
            "scores",
            "leaderboard",
            "calibration",
        )
    ),
    "public_board",
    "debate/entries",
    "debate/panel_calls",
    "debate/games",
    "debate/turns",
    "debate/judge_calls",
    "debate/fight_games",
    "debate/fight_turns",
    "debate/fight_judge_calls",
    "debate/ratings",
    "debate/rating_changes",
    "debate/crown",
    "debate/streaks",
    "debate/title_fights",
    "debate/weights",
    "debate/epoch_manifest",
    "debate/weight_sets",
    "debate_topics/topic_sources",
    "debate_topics/topic_candidates",
    "debate_topics/motions",
    "events/event_manifests",
    "events/event_bundles",
    "events/chess_games",
    "events/chess_moves",
    "events/chess_standings",
    "events/chess_fit",
    "events/soo_replies",
    "events/soo_standings",
    "events/challenge_authored",
    "events/challenge_submissions",
    "events/challenge_checker_runs",
    "events/challenge_commitments",
    "events/challenge_replies",
    "events/challenge_reviews",
    "events/challenge_solving_runs",
    "events/challenge_reveals",
    "events/challenge_key",
    "events/challenge_scores",
    "events/challenge_standings",
}
CHECKS = {
    "forecast/verbatim_markets:verbatim_matches_receipts",
    "forecast/ranked_candidates:one_verdict_per_swept_question",
    "forecast/ranked_candidates:selection_obeys_rules",
    "forecast/ranked_candidates:verdicts_schema",
    "forecast/packet:card_schema",
    "forecast/packet:packet_hash_matches",
    "forecast/answers:every_seat_has_a_status",
    "forecast/answers:signatures_verify",
    "forecast/answers:every_seat_got_the_sealed_packet",
    "forecast/scores:scores_rederive",
    "forecast/leaderboard:kinds_never_mix",
    "forecast/leaderboard:intervals_contain_points",
    "public_board:site_matches_record",
    "public_board:forecast_published",
    "public_board:debate_published",
    "public_board:events_published",
}


def test_the_merged_definitions_hold_exactly_these_assets_checks_jobs_schedules_and_sensors():
    graph = defs.resolve_asset_graph()
    assert {key.to_user_string() for key in graph.get_all_asset_keys()} == ASSETS
    assert {key.to_user_string() for key in graph.asset_check_keys} == CHECKS
    jobs = {job.name for job in defs.resolve_all_job_defs()} - {"__ASSET_JOB"}
    assert jobs == {
        "card_job",
        "settlement_job",
        "leaderboard_job",
        "catalog_job",
        "public_board_job",
        "debate_entries_job",
        "debate_games_job",
        "debate_close_job",
        "debate_epoch_job",
        "debate_topics_job",
        "chess_freeze_job",
        "chess_event_job",
        "soo_freeze_job",
        "soo_event_job",
        "challenge_freeze_job",
        "challenge_event_job",
    }
    assert {s.name for s in defs.schedules or []} == {"card_schedule", "debate_topics_schedule"}
    assert {s.name for s in defs.sensors or []} == {
        "settlement_sensor",
        "leaderboard_sensor",
        "catalog_sensor",
        "debate_epoch_sensor",
        "debate_board_sensor",
        "events_board_sensor",
    }
    assert set(defs.resources or {}) == {
        "io_manager",
        "record",
        "exchange",
        "clock",
        "gladiators",
        "provider_keys",
        "chain",
        "debate_models",
        "kalshi",
        "chess",
        "solve_or_object",
    }


def test_every_arena_asset_is_prefixed_and_every_step_is_named_for_its_arena():
    for key in defs.resolve_asset_graph().get_all_asset_keys():
        platform = key.path in (["duckdb_catalog"], ["public_board"])
        assert key.path[0] in ("forecast", "debate", "debate_topics", "events") or platform, key
    # The debate arena's topics are a record of their own (partitioned by rotation), in its steps' name.
    for job, arena, record in (
        ("card_job", "forecast", "forecast"),
        ("settlement_job", "forecast", "forecast"),
        ("leaderboard_job", "forecast", "forecast"),
        ("debate_entries_job", "debate", "debate"),
        ("debate_games_job", "debate", "debate"),
        ("debate_close_job", "debate", "debate"),
        ("debate_epoch_job", "debate", "debate"),
        ("debate_topics_job", "debate", "debate_topics"),
        ("chess_freeze_job", "events", "events"),
        ("chess_event_job", "events", "events"),
        ("soo_freeze_job", "events", "events"),
        ("soo_event_job", "events", "events"),
        ("challenge_freeze_job", "events", "events"),
        ("challenge_event_job", "events", "events"),
    ):
        # The leaderboard's run ends with the platform's public board of every arena.
        steps = {node.name for node in defs.resolve_job_def(job).graph.node_defs} - {"public_board"}
        assert all(step.startswith(f"{arena}__") for step in steps), (job, steps)
        assert defs.resolve_job_def(job).tags.get("colosseum/arena") == record


def test_the_module_holds_one_definitions_object_as_dagster_requires():
    module = importlib.import_module("colosseum_dagster.definitions")
    found = [name for name, value in vars(module).items() if isinstance(value, dg.Definitions)]
    assert found == ["defs"]
    dg.Definitions.validate_loadable(defs)


def test_the_board_sensors_ask_for_the_board_once_per_materialization():
    """Each arena's sensor follows what the board shows of it (a card's scores, an epoch's weights)."""
    with dg.instance_for_test() as instance:
        for sensor, asset, job in (
            ("leaderboard_sensor", ["forecast", "scores"], "leaderboard_job"),
            ("debate_board_sensor", ["debate", "weight_sets"], "public_board_job"),
        ):
            context = dg.build_sensor_context(instance=instance, definitions=defs)
            definition = defs.resolve_sensor_def(sensor)
            assert not definition.evaluate_tick(context).run_requests  # nothing materialized yet
            instance.report_runless_asset_event(dg.AssetMaterialization(dg.AssetKey(asset)))
            result = definition.evaluate_tick(context)
            [request] = result.run_requests
            assert (request.job_name or definition.job_name) == job and request.run_key
            context.update_cursor(result.cursor)
            assert not definition.evaluate_tick(context).run_requests  # the cursor moved past it
