"""The Kubernetes path, checked by loading it (no cluster is reachable here): deploy/k8s/dagster.yaml is
a valid instance config whose run launcher's config K8sRunLauncher accepts, and deploy/k8s/run_config.yaml
is valid for the k8s_job_executor that COLOSSEUM_EXECUTOR=k8s chooses."""

from __future__ import annotations

import dagster as dg
import pytest
import yaml

from colosseum_dagster.executors import executor_from_environment
from tests.support import REPO

dagster_k8s = pytest.importorskip(
    "dagster_k8s", reason="dagster-k8s (the [production] extra) is not installed"
)

from dagster._config import process_config  # noqa: E402 (no public way to check a config by its schema)
from dagster._core.instance.config import dagster_instance_config  # noqa: E402

K8S = REPO / "deploy" / "k8s"


def test_the_k8s_instance_config_loads_and_its_run_launcher_accepts_its_config(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLOSSEUM_POSTGRES_URL", "postgresql://colosseum@db:5432/colosseum")
    monkeypatch.setenv("COLOSSEUM_IMAGE", "registry.example/colosseum:1")
    config, _ = dagster_instance_config(str(K8S), "dagster.yaml")
    launcher = config["run_launcher"]
    assert (launcher["module"], launcher["class"]) == ("dagster_k8s", "K8sRunLauncher")
    checked = process_config(dagster_k8s.K8sRunLauncher.config_type(), launcher["config"])
    assert checked.success, [e.message for e in checked.errors]
    assert checked.value["job_image"] == "registry.example/colosseum:1"
    assert "COLOSSEUM_EXECUTOR=k8s" in checked.value["env_vars"]


def test_the_k8s_executor_is_chosen_by_name_and_accepts_the_run_config() -> None:
    executor = executor_from_environment({"COLOSSEUM_EXECUTOR": "k8s"})
    assert executor is dagster_k8s.k8s_job_executor
    run_config = yaml.safe_load((K8S / "run_config.yaml").read_text())
    checked = process_config(executor.config_schema.config_type, run_config["execution"]["config"])
    assert checked.success, [e.message for e in checked.errors]
    assert checked.value["max_concurrent"] == 4


@pytest.mark.parametrize(
    ("environ", "said"),
    [
        ({"COLOSSEUM_EXECUTOR": "threads"}, "must be one of in_process, multiprocess, k8s, not 'threads'"),
        ({"COLOSSEUM_EXECUTOR": "multiprocess", "COLOSSEUM_MAX_CONCURRENT_STEPS": "0"}, "not '0'"),
        ({"COLOSSEUM_EXECUTOR": "multiprocess", "COLOSSEUM_MAX_CONCURRENT_STEPS": "two"}, "not 'two'"),
    ],
)
def test_a_bad_executor_setting_is_named(environ: dict[str, str], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        executor_from_environment(environ)


def test_the_default_is_in_process_and_multiprocess_takes_its_step_limit() -> None:
    assert executor_from_environment({}) is dg.in_process_executor
    multiprocess = executor_from_environment(
        {"COLOSSEUM_EXECUTOR": "multiprocess", "COLOSSEUM_MAX_CONCURRENT_STEPS": "3"}
    )
    assert multiprocess.name == "multiprocess"
