"""Fast tier, no JVM: the one settings resolver (python_extract/settings.py) as the lakehouse settings and
the sources' config values use it, the one error tree under SparkloadError, and the CLI's exit-code policy
(`cli.explain`). The execution tier proves the same on real processes (tests/reliability/test_cli_errors.py,
tests/test_lakehouse.py)."""
from __future__ import annotations

import errno
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import python_extract
from python_extract import cli, errors
from python_extract.extract.config import config, resolve, with_config
from python_extract.lakehouse import LakehouseConfig
from python_extract.settings import Settings

pytestmark = pytest.mark.fast


def _files(folder: Path, **texts: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (folder / name.replace("_toml", ".toml").replace("_yaml", ".yaml")).write_text(text)
    return folder


# --- the lakehouse: explicit > environment > .dlt/ files > default -------------------------------------

def test_lakehouse_settings__each_provider_wins_over_the_ones_below_it(tmp_path):
    dlt = _files(tmp_path / ".dlt", config_toml='[lakehouse]\nmaster = "local[1]"\ntable_format = "iceberg"\n'
                                               'app_name = "from-file"\n[lakehouse.spark_conf]\n"spark.x" = "1"\n')
    env = {"SPARKLOAD_CONFIG_DIR": str(dlt), "SPARKLOAD_MASTER": "local[2]", "SPARKLOAD_APP_NAME": "from-env"}
    config = LakehouseConfig.from_env(env, home=tmp_path / "lake", app_name="explicit")
    assert (config.home, config.app_name, config.master, config.table_format, config.spark_conf) == (
        tmp_path / "lake", "explicit", "local[2]", "iceberg", {"spark.x": "1"})
    assert LakehouseConfig.from_env({"SPARKLOAD_CONFIG_DIR": str(tmp_path / "none")}).master == "local[*]"  # default


def test_lakehouse_settings__secrets_file_before_config_file_and_the_sparkload_name_before_aws(tmp_path):
    dlt = _files(tmp_path / ".dlt", secrets_toml='[lakehouse]\ns3_secret_access_key = "from-secrets"\n',
                 config_toml='[lakehouse]\ns3_secret_access_key = "from-config"\ns3_access_key_id = "id-file"\n')
    config = LakehouseConfig.from_env({"SPARKLOAD_CONFIG_DIR": str(dlt)})
    assert (config.s3_secret_access_key, config.s3_access_key_id) == ("from-secrets", "id-file")
    both = LakehouseConfig.from_env({"SPARKLOAD_CONFIG_DIR": str(dlt), "AWS_ACCESS_KEY_ID": "aws",
                                     "SPARKLOAD_S3_ACCESS_KEY_ID": "key-of-sparkload"})
    assert both.s3_access_key_id == "key-of-sparkload" and "key-of-sparkload" not in repr(both)


def test_lakehouse_settings__an_unknown_key_in_a_file_names_the_file_and_the_valid_keys(tmp_path):
    dlt = _files(tmp_path / ".dlt", config_toml='[lakehouse]\ntabel_format = "iceberg"\n')
    with pytest.raises(errors.LakehouseConfigError) as error:
        LakehouseConfig.from_env({"SPARKLOAD_CONFIG_DIR": str(dlt)})
    assert str(error.value).startswith(f"{dlt / 'config.toml'}:lakehouse.tabel_format: unknown lakehouse setting "
                                       "'tabel_format'; expected one of home, table_format, master,")


@pytest.mark.parametrize("name, text, problem", [
    ("config.toml", "[lakehouse\nmaster = 1\n", "not valid TOML: "),
    ("config.yaml", "lakehouse: [\n", "not valid YAML: "),
    ("config.yaml", "- a list\n", "holds a list; expected a mapping of sections"),
])
def test_settings_file__unreadable_is_a_config_error_naming_the_file(tmp_path, name, text, problem):
    (tmp_path / name).write_text(text)
    with pytest.raises(errors.ConfigError) as error:
        Settings({}, config_dir=tmp_path).section("lakehouse")
    assert str(error.value).startswith(f"{tmp_path / name}: {problem}")
    assert cli.explain(error.value)[0] == 2


# --- config.value arguments of sources and resources -----------------------------------------------------

def test_config_value__environment_then_files_most_specific_key_first(tmp_path, monkeypatch):
    _files(tmp_path, secrets_toml='[sources.github]\napi_key = "file-specific"\n', config_yaml="api_key: file-top\n")
    monkeypatch.setenv("SPARKLOAD_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("API_KEY", raising=False)
    assert resolve("api_key", "github") == "file-specific"
    assert resolve("api_key", "gitlab") == "file-top"
    monkeypatch.setenv("API_KEY", "env-top")
    assert resolve("api_key", "github") == "env-top"  # any environment name wins over every file
    monkeypatch.setenv("SOURCES__GITHUB__API_KEY", "env-specific")

    def source(api_key=config.value):
        return api_key

    assert with_config(source, "github")() == "env-specific" and with_config(source, "github")("given") == "given"


def test_config_value__missing_names_every_place_looked_up_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("SPARKLOAD_CONFIG_DIR", str(tmp_path))
    with pytest.raises(errors.ConfigFieldMissing) as error:
        resolve("token_x9", "shop")
    looked = error.value.looked_up
    assert looked[:3] == ["SOURCES__SHOP__TOKEN_X9", "SOURCES__TOKEN_X9", "TOKEN_X9"]
    assert looked[3:6] == [f"{tmp_path / 'secrets.toml'}:sources.shop.token_x9", f"{tmp_path / 'secrets.toml'}:sources.token_x9",
                           f"{tmp_path / 'secrets.toml'}:token_x9"]
    assert len(looked) == 3 + 4 * 3 and looked[-1] == f"{tmp_path / 'config.yaml'}:token_x9"
    assert cli.explain(error.value)[0] == 2


# --- one error tree ------------------------------------------------------------------------------------

# modules that import no JVM and no plugin environment; every exception class they define is a SparkloadError
KNOWN_OUTSIDE = {
    "python_extract.normalize.arrow_batch._Fallback": "private control flow, never leaves its module",
    "python_extract.sources.helpers.requests._StatusToRetry": "private control flow: a status to retry, caught in its module",
    "python_extract.normalize.schema_contract.DiscardRow": "control flow: a row the schema contract drops, caught by the extractor",
}


def test_error_tree__every_exception_class_of_the_package_is_a_sparkload_error():
    outside = {}
    for info in pkgutil.walk_packages(python_extract.__path__, "python_extract."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                if not issubclass(value, errors.SparkloadError):
                    outside[f"{info.name}.{name}"] = value
    assert set(outside) == set(KNOWN_OUTSIDE), sorted(set(outside) ^ set(KNOWN_OUTSIDE))


def test_error_tree__lakehouse_errors_are_configuration_errors_not_value_errors():
    assert issubclass(errors.LakehouseMismatch, errors.LakehouseConfigError)
    assert issubclass(errors.LakehouseConfigError, errors.ConfigError)
    assert not issubclass(errors.LakehouseConfigError, ValueError)
    assert python_extract.LakehouseConfigError is errors.LakehouseConfigError


# --- the CLI's exit-code policy --------------------------------------------------------------------------

@pytest.mark.parametrize("error, code, line", [
    (errors.LakehouseConfigError("table_format='hudi' is not one of auto, delta, iceberg"), 2,
     "table_format='hudi' is not one of auto, delta, iceberg"),
    (errors.LakehouseMismatch("this process runs the SparkSession of lakehouse /a"), 2,
     "this process runs the SparkSession of lakehouse /a"),
    (errors.PipelineLocked("shop", "/p/shop/writer.lock", "pid 1"), 4,
     "pipeline shop is being written by pid 1 (lock /p/shop/writer.lock); wait for it to finish or pass --wait SECONDS"),
    (errors.PipelineStepFailed("load", "boom", load_id="17", table="t"), 1, "load step failed load 17 table t: boom"),
    (OSError(errno.ENOSPC, "No space left on device", "/full/x"), 3,
     "/full/x: no space left on the device; free space there (old load packages: `sparkload pipeline packages NAME`) "
     "or point the option that chose it (--pipelines-dir, --home) elsewhere"),
    (ValueError("bad\nthing"), 70,
     "internal error: ValueError: bad thing (this is a bug, please report it with the traceback `-v` prints)"),
    (TypeError("f() takes 1 argument"), 70,
     "internal error: TypeError: f() takes 1 argument (this is a bug, please report it with the traceback `-v` prints)"),
])
def test_explain__one_line_and_the_code_of_the_class(error, code, line):
    assert cli.explain(error) == (code, line)


def test_cli_docstring__documents_every_exit_code_the_error_classes_use():
    documented = {int(word) for word in cli.__doc__.split("Exit-code policy", 1)[1].split() if word.isdigit()}
    used = {cls.exit_code for cls in vars(errors).values() if inspect.isclass(cls) and issubclass(cls, errors.SparkloadError)}
    assert used | {0, errors.EXIT_INTERNAL, errors.EXIT_INTERRUPTED} <= documented, sorted(documented)
