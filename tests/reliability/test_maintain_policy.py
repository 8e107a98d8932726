"""`sparkload lakehouse maintain --policy` is checked before Spark starts (issue 40 item 6): a bad policy is
one line on stderr, said once, exit 2, and no session (no lakehouse) was started for it. The rules are
the macro's (macros/helpers/maintenance.sql), rendered without an adapter (maintenance/policy.py)."""
from __future__ import annotations

import pytest

from python_extract.maintenance import MaintenanceError
from python_extract.maintenance.policy import check_policy

from ..support.sparkload_process import one_line, sparkload

EXPECTED_KEYS = "compact_when, small_file_size, keep_snapshots_for, retain_snapshots, remove_orphans_older_than"
BAD = {
    "{retain_snapshots: 0}": "maintenance retain_snapshots=0 is not valid; expected an integer >= 1",
    "{compact_wen: {}}": f"maintenance compact_wen={{}} is not valid; expected one of the keys {EXPECTED_KEYS}",
    "{compact_when: {small_files: ten}}": "maintenance compact_when.small_files='ten' is not valid; expected an "
                                          "integer >= 1 or none",
    "{remove_orphans_older_than: 1h}": "maintenance remove_orphans_older_than='1h' is not valid; expected at least "
                                       "1d: younger files may belong to a commit in progress",
    "7d": f"maintenance maintenance='7d' is not valid; expected true or a dict of {EXPECTED_KEYS}",
}


@pytest.mark.parametrize("policy", list(BAD))
def test_maintain_policy__a_bad_one_is_one_line_before_spark_starts(policy, tmp_path):
    done = sparkload("lakehouse", "maintain", "--policy", policy, home=tmp_path / "lake", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert one_line(done.stderr) == f"sparkload: sparkload maintenance: {BAD[policy]}. The table is unchanged."
    assert not (tmp_path / "lake").exists()  # no session was started for it


def test_maintain_policy__not_yaml_is_one_line_before_spark_starts(tmp_path):
    done = sparkload("lakehouse", "maintain", "--policy", "{retain_snapshots: 1", home=tmp_path / "lake", cwd=tmp_path)
    assert done.returncode == 2 and one_line(done.stderr).startswith("sparkload: --policy is not YAML: ")
    assert not (tmp_path / "lake").exists()


def test_check_policy__fills_in_the_macros_defaults_in_bytes_and_seconds():
    assert check_policy(True) == {"compact_when": {"small_files": 10, "delete_files": 10, "delete_ratio": 0.1},
                                  "small_file_size": 32 * 2**20, "keep_snapshots_for": 7 * 86400, "retain_snapshots": 1,
                                  "remove_orphans_older_than": 3 * 86400}
    assert check_policy({"keep_snapshots_for": "1 day", "remove_orphans_older_than": "off"})["keep_snapshots_for"] == 86400
    assert check_policy(None) is None
    with pytest.raises(MaintenanceError, match="small_file_size='32MB' is not valid"):
        check_policy({"small_file_size": "32MB"})
