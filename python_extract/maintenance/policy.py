"""The maintenance policy, checked before any Spark work (`sparkload lakehouse maintain --policy`): by the
package's own macro `validate_sparkload_maintenance` (macros/helpers/maintenance.sql, the rules' one home),
rendered with dbt's Jinja and no adapter, so a bad policy fails in a second with the macro's one line
instead of after a Spark start, and the rules are never written twice.

Errors: `MaintenanceError` naming the key, the value given and what is expected.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Dict

from .operation import MaintenanceError

WHERE = "sparkload maintenance"  # what the operation's own check names (macros/operations/sparkload_maintain.sql)
MACRO_FILES = ("helpers/maintenance.sql", "helpers/durations.sql")


def check_policy(policy: Any) -> Dict[str, Any]:
    """The policy as the macro returns it (defaults filled in, sizes in bytes, durations in seconds); a
    `MaintenanceError` for a policy the macro refuses.

    >>> check_policy({"keep_snapshots_for": "1d"})["keep_snapshots_for"]
    86400
    """
    from dbt_common.clients.jinja import get_dbt_macro_name, get_environment

    context: Dict[str, Any] = {}

    class Adapter:  # dispatch as dbt does for an adapter without overrides: the default__ macro
        @staticmethod
        def dispatch(name: str, namespace: str) -> Callable[..., Any]:
            return context[f"default__{name}"]

    context.update({
        "return": _return, "context": context, "adapter": Adapter(), "modules": type("modules", (), {"re": re}),
        "exceptions": type("exceptions", (), {"raise_compiler_error": staticmethod(_refuse)}),
    })
    prefix, env = get_dbt_macro_name(""), get_environment()
    for name in MACRO_FILES:
        module = env.from_string((_macros() / name).read_text()).make_module(vars=context)
        for attr in dir(module):
            if attr.startswith(prefix):
                context[attr[len(prefix):]] = _returning(getattr(module, attr))
    return context["validate_sparkload_maintenance"](policy, WHERE)


def _macros() -> Path:
    from dbt.include import sparkload

    return Path(sparkload.PACKAGE_PATH) / "macros"


def _return(value: Any) -> None:
    from dbt_common.exceptions.macros import MacroReturn

    raise MacroReturn(value)


def _refuse(message: str) -> None:
    raise MaintenanceError(" ".join(str(message).split()))


def _returning(macro: Callable[..., Any]) -> Callable[..., Any]:
    from dbt_common.exceptions.macros import MacroReturn

    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return macro(*args, **kwargs)
        except MacroReturn as returned:
            return returned.value

    return call
