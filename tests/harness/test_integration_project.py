"""integration_tests/ keeps dbt's partial parsing across tests: each test's schemas reach the project through
env vars read in two yml files (models/test_schemas.yml, the sources' yml), never through the profile or
`--vars`, which make dbt parse the whole project again (about 2.3 s against 0.2 s for a partial parse, and
1-1.5 s when a test's new schemas re-parse those files and their models). A model missing from
test_schemas.yml would be built in the profile's schema `analytics`, shared by every test."""
from __future__ import annotations

import pytest
import yaml

from tests.support.paths import INTEGRATION

pytestmark = pytest.mark.fast

SCHEMA = "{{ env_var('SPARKLOAD_TARGET_SCHEMA', target.schema) }}"
STAGING = "{{ env_var('SPARKLOAD_STAGING_DATASET', 'skeleton_raw') }}"


def _ymls():
    return {path: yaml.safe_load(path.read_text()) for path in (INTEGRATION / "models").rglob("*.yml")}


def test_integration_project__every_model_takes_the_tests_schema_from_an_env_var_in_yml():
    models = {path.stem for path in (INTEGRATION / "models").rglob("*.sql")}
    configured = {}
    for path, doc in _ymls().items():
        for model in (doc or {}).get("models", []):
            configured[model["name"]] = (model.get("config") or {}).get("schema")
    assert {m for m in models if configured.get(m) != SCHEMA} == set(), "models without the test's schema"
    assert set(configured) <= models, "test_schemas.yml names models that do not exist"


def test_integration_project__sources_read_the_staging_dataset_from_an_env_var_and_the_profile_is_fixed():
    sources = [source for doc in _ymls().values() for source in (doc or {}).get("sources", [])]
    assert sources and all(source["schema"] == STAGING for source in sources)
    profiles = yaml.safe_load((INTEGRATION / "profiles.yml").read_text())
    for name, output in profiles["sparkload_integration_tests"]["outputs"].items():
        assert output["schema"] == "analytics", name  # the same for every test: no full re-parse
    assert "vars" not in yaml.safe_load((INTEGRATION / "dbt_project.yml").read_text())
