"""Real connectors' low-code manifests, from their PyPI packages: each wheel (pinned below) is fetched once
into a cache (`pip download --no-deps`, as tests/airbyte installs airbyte-source-faker) and its
`manifest.yaml` read from it. `adapted` points a manifest at a local API and changes nothing else: every
`url_base` keeps its path, only its scheme and host become the local server's."""
from __future__ import annotations

import copy
import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any, Dict
from urllib.parse import urlsplit, urlunsplit

import yaml

CACHE = Path(os.environ.get("SPARKLOAD_CONNECTORS_CACHE", Path.home() / ".cache" / "sparkload" / "connectors")) / "manifests"
# connector -> its last PyPI release, all three declarative manifests with DatetimeBasedCursor streams
PACKAGES = {
    "dixa": "airbyte-source-dixa==0.3.14",
    "delighted": "airbyte-source-delighted==0.2.19",
    "datascope": "airbyte-source-datascope==0.1.14",
}


def wheel(requirement: str) -> Path:
    """The wheel of `requirement` (`name==version`), fetched once into the cache."""
    name, version = requirement.split("==")
    found = CACHE / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
    if found.exists():
        return found
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".{name}.lock", "w") as lock:  # two test workers at once: one download
        fcntl.flock(lock, fcntl.LOCK_EX)
        if found.exists():
            return found
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--disable-pip-version-check",
                               "--only-binary", ":all:", "-d", str(CACHE), requirement], capture_output=True, text=True)
        assert done.returncode == 0 and found.exists(), f"pip download {requirement}: {done.stderr.strip()[-500:]}"
    return found


def manifest(connector: str) -> Dict[str, Any]:
    """The manifest of `connector` as its package ships it."""
    wheel_file = wheel(PACKAGES[connector])
    with zipfile.ZipFile(wheel_file) as archive:
        found = [n for n in archive.namelist() if n.endswith("/manifest.yaml")]
        assert len(found) == 1, f"{wheel_file.name} holds {len(found)} manifest.yaml"
        return yaml.safe_load(archive.read(found[0]))


def adapted(source: Dict[str, Any], base_url: str) -> Dict[str, Any]:
    """`source` with the scheme and host of every `url_base` replaced by `base_url`'s."""
    local = urlsplit(base_url)
    count = 0

    def walk(node: Any) -> Any:
        nonlocal count
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "url_base" and isinstance(value, str):
                    count += 1
                    value = urlunsplit((local.scheme, local.netloc, *urlsplit(value)[2:]))
                out[key] = walk(value)
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    out = walk(copy.deepcopy(source))
    assert count, "the manifest has no url_base"
    return out
