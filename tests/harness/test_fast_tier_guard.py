"""The fast tier's guards can fail: a test marked `fast` that starts a JVM, hides that it did, or asks for
an execution-tier fixture does not pass, and it runs before the unmarked tests of its folder. Each case runs
a small subject folder whose conftest is a copy of the fast-tier plugin (tests/support/fast_tier.py) through
pytest's own `pytester`. The two cases that start a SparkSession run in a pytest
subprocess: in a full run this process may hold a session of the execution tier already (an xdist worker
runs both tiers), and `getOrCreate` would return it without starting a JVM; the guard stops the
subprocess's JVM before it starts."""
from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

pytest_plugins = ["pytester"]

PLUGIN = Path(__file__).resolve().parents[1] / "support" / "fast_tier.py"
# the inner runs need no hypothesis plugin: at a run's end it imports hypothesis, anew in each run (pytester forgets
# the modules a run imported) and, under PYTHONDONTWRITEBYTECODE, with its asserts rewritten again: about 2 s a run
INNER = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def fast(code: str) -> str:
    """A test module of the fast tier: its `pytestmark` line, then `code`."""
    return "import pytest\n\npytestmark = pytest.mark.fast\n\n" + textwrap.dedent(code)


@pytest.fixture
def fast_tier(pytester):
    """A `subject/` folder whose conftest is the fast-tier plugin, for fast and execution tests side by side."""
    pytester.mkpydir("subject")
    shutil.copy(PLUGIN, pytester.path / "subject" / "conftest.py")
    return pytester


def test_guard__a_test_starting_a_spark_session_fails_naming_it(fast_tier):
    fast_tier.makepyfile(**{"subject/test_starts_spark": fast("""
        def test_starts_spark():
            from pyspark.sql import SparkSession
            SparkSession.builder.master("local[1]").getOrCreate()
    """)})
    result = fast_tier.runpytest_subprocess(*INNER)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*JvmStarted*test_starts_spark*started a JVM*"])


def test_guard__a_test_that_swallows_the_refusal_still_fails(fast_tier):
    fast_tier.makepyfile(**{"subject/test_hides_it": fast("""
        def test_hides_it():
            from pyspark import SparkContext
            try:
                SparkContext("local[1]", "hidden")
            except BaseException:
                pass
    """)})
    result = fast_tier.runpytest_subprocess(*INNER)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*test_hides_it started a JVM (the test caught the refusal)*"])


def test_guard__a_subprocess_cannot_start_java(fast_tier):
    import pyspark

    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    fast_tier.makepyfile(**{"subject/test_subprocess": fast(f"""
        import subprocess

        def test_subprocess():
            done = subprocess.run(["{spark_submit}", "--version"], capture_output=True, text=True, timeout=60)
            assert done.returncode != 0, done.stderr
            assert "the-fast-tier-starts-no-jvm" in done.stderr
    """)})
    fast_tier.runpytest_inprocess(*INNER).assert_outcomes(passed=1)


def test_guard__an_execution_tier_fixture_is_a_usage_error_before_any_test_runs(fast_tier):
    fast_tier.makeconftest("""
        import pytest

        @pytest.fixture(scope="session")
        def spark():
            raise AssertionError("the session fixture must not even be set up")
    """)
    fast_tier.makepyfile(**{"subject/test_wants_spark": fast("""
        def test_wants_spark(spark):
            pass
    """), "subject/test_execution_wants_spark": "def test_execution(spark): pass"})
    result = fast_tier.runpytest_inprocess(*INNER)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the fast tier (tests marked fast) runs without a JVM*", "*test_wants_spark uses spark*"])
    assert "test_execution_wants_spark" not in result.stderr.str()  # an unmarked test of the folder may use it


def test_order__the_fast_tier_runs_before_every_other_test(fast_tier):
    fast_tier.makepyfile(**{"subject/test_a_first_by_name": "def test_execution(): pass",
                            "subject/test_z_last_by_name": fast("def test_fast(): pass")})
    result = fast_tier.runpytest_inprocess(*INNER, "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*subject/test_z_last_by_name.py::test_fast PASSED*",
                                 "*subject/test_a_first_by_name.py::test_execution PASSED*"])


def test_select__dash_m_fast_imports_no_module_of_the_execution_tier(fast_tier):
    fast_tier.makepyfile(**{"subject/test_execution": "raise ImportError('an execution module was imported')",
                            "subject/test_rules": fast("def test_rule(): pass")})
    result = fast_tier.runpytest_inprocess(*INNER, "-m", "fast")
    result.assert_outcomes(passed=1)
    assert "an execution module was imported" not in result.stdout.str()
