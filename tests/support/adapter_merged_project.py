"""Several dbt-tests-adapter classes as one dbt project, so their checks run in one `dbt build`.

Each class of the suite's `utils` folder writes its own seeds, models and tests (distinct file names)
and checks only that `dbt build` passes; one project holding all of them checks the same with one
dbt invocation instead of one per class (each costs seconds of parsing and catalog round trips).
"""
from __future__ import annotations

from typing import Dict, Iterable


def merged_files(bases: Iterable[type], fixture: str) -> Dict[str, str]:
    """The union of what `fixture` (`models`, `seeds`, `macros`) returns on each class in `bases`."""
    files: Dict[str, str] = {}
    for base in bases:
        definition = getattr(base, fixture, None)
        if definition is None:
            continue
        for name, text in definition.__wrapped__(base()).items():
            if files.get(name, text) != text:
                raise ValueError(f"{base.__name__} writes {fixture}/{name}, which another class writes differently")
            files[name] = text
    return files
