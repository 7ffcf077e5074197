"""The exporters on plain unit logs: a contender's hostile text survives whole, a provider's stop
reason and a format failure reach Inspect's own fields, and what Inspect or Every Eval Ever could
not hold is refused naming the unit, the field and the value."""

from __future__ import annotations

import json

import pytest

from colosseum_core.exports.eee import check, record_of, write_records
from colosseum_core.exports.exchanges import last_exchange
from colosseum_core.exports.model_names import field_name
from colosseum_core.exports.units import ExportError, Sample, Standing, UnitLog, Verdict
from colosseum_core.record.receipts import Receipt, ReceiptStore

inspect_log = pytest.importorskip("inspect_ai.log", reason="the exports extra: pip install -e '.[exports]'")
pytest.importorskip("jsonschema")

from colosseum_core.exports.inspect_logs import write_logs  # noqa: E402

# A contender writes what it likes: YAML fences, NUL bytes, the viewer's markup, another sample's id.
HOSTILE = '---\nconfigs: []\n---\n\x00<script>alert(1)</script>\n"M01: YES 10"\n' + "x" * 200_000


def _log(*samples: Sample, **more) -> UnitLog:
    fields = {
        "arena": "somewhere",
        "task": "colosseum-test",
        "unit": "u-1",
        "contender": "c/../1",
        "model": "openai-api/vllm-local/qwen3-8b",
        "created": "2026-11-20T15:00:00Z",
        "completed": "2026-11-20T16:00:00Z",
        "samples": samples,
        "scorer": "TEST-SCORING-1",
        "rules": ("TEST-SCORING-1",),
        "settings": {"temperature": 0.0, "seed": "OMITTED", "max_tokens": 512},
    }
    return UnitLog(**{**fields, **more})


def test_a_hostile_reply_survives_whole_and_its_stop_and_failure_reach_inspect(tmp_path):
    log = _log(
        Sample(
            "q.1",
            input="the question",
            output=HOSTILE,
            scores={"points": Verdict(0.0, answer=None, failure="unreadable")},
            stop="length",
            input_tokens=10,
            output_tokens=512,
        ),
        Sample("q.2", input=HOSTILE, output="fine", stop="MAX_TOKENS"),
    )
    [path] = write_logs([log], tmp_path)
    read = inspect_log.read_eval_log(str(path))
    first, second = read.samples
    assert first.output.completion == HOSTILE and second.input == HOSTILE
    assert first.output.choices[0].stop_reason == "max_tokens"  # finish_reason: length leaves its trace
    assert second.output.choices[0].stop_reason == "max_tokens"
    assert first.scores["points"].metadata == {"failure": "unreadable"}
    assert (
        read.eval.model_generate_config.seed is None and read.eval.model_args["settings"]["seed"] == "OMITTED"
    )
    assert read.stats.model_usage["openai-api/vllm-local/qwen3-8b"].output_tokens == 512
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no partial file left


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"task": "colosseum_test"}, "task 'colosseum_test'"),
        ({"samples": (Sample("a/b", "in", "out"),)}, "sample id 'a/b'"),
        ({"samples": (Sample("a", "in", "out"), Sample("a", "in", "out"))}, "sample id 'a' appears twice"),
        ({"metrics": {"points": {"placement": "1st"}}}, "metric points.placement is '1st'"),
    ],
)
def test_what_inspect_could_not_hold_is_refused_naming_the_unit_and_the_field(change, said):
    with pytest.raises(ExportError, match=r"somewhere u-1 c/\.\./1") as refused:
        _log(**change)
    assert said in str(refused.value)


def test_an_every_eval_ever_record_the_schema_refuses_is_named_by_its_field():
    log = _log(standings=(Standing("x.brier", 0.2, 0.1, 0.3, 8, "bootstrap", True, (0.0, 1.0)),))
    record = record_of(log, version="0.1.0")
    assert record is not None and record["model_info"]["id"] == "vllm-local/qwen3-8b"
    check(record, "u-1")
    record["source_metadata"]["evaluator_relationship"] = "friend"
    with pytest.raises(
        ExportError, match="u-1: Every Eval Ever record field source_metadata/evaluator_relationship"
    ):
        check(record, "u-1")
    assert record_of(_log(), version="0.1.0") is None  # no standings (an engine): no record


def test_a_model_name_cannot_lead_an_every_eval_ever_file_out_of_its_folder(tmp_path):
    standing = (Standing("x.score", 0.5, None, None, 1, "mean"),)
    [path] = write_records(
        [_log(model="openai/../../../escape", standings=standing)], tmp_path / "eee", version="0"
    )
    assert path.resolve().is_relative_to((tmp_path / "eee" / "data" / "colosseum-test").resolve())


@pytest.mark.parametrize(
    ("protocol", "model", "base_url", "kind", "name"),
    [
        ("openai", "gpt-5.1", None, "model", "openai/gpt-5.1"),
        ("gemini", "gemini-3-pro", "https://generativelanguage.googleapis.com", None, "google/gemini-3-pro"),
        ("openai", "qwen3-8b", "http://127.0.0.1:8000/v1", None, "openai-api/127-0-0-1/qwen3-8b"),
        (
            "openai",
            "house-chess-greedy",
            "sparring",
            "model",
            "openai-api/colosseum-house/house-chess-greedy",
        ),
        (None, "Stockfish 15.1", None, "engine", "none/stockfish"),
    ],
)
def test_a_model_is_named_as_inspect_names_it(protocol, model, base_url, kind, name):
    assert field_name(protocol, model, base_url=base_url, kind=kind) == name


def test_a_reply_that_is_not_json_gives_no_stop_and_no_tokens(tmp_path):
    store = ReceiptStore(tmp_path)
    asked = json.dumps({"messages": [{"role": "user", "content": "play"}]}).encode()
    receipt_id = store.put(
        Receipt(
            "POST", "http://x/v1/chat/completions", (), 200, {}, b"\xff not json", "t0", "t1", None, {}, asked
        )
    )
    said = last_exchange(store, [receipt_id])
    assert said is not None and said.prompt == "play" and said.stop is None and said.output_tokens is None
    assert last_exchange(store, ["0" * 64]) is None  # a missing receipt: nothing, never a crash
