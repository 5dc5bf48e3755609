"""`gateway --help` answers at once: the parsers (gateway/cli/parsers.py) import none of the modules the
commands run on, which a command imports when it runs."""

from __future__ import annotations

import resource
import subprocess
import sys

from datasources import events, users
from gateway.cli import parsers
from tests.server import gateway_command

HEAVY = ("sqlalchemy", "strawberry", "starlette", "graphql", "uvicorn", "datasources", "schema", "rest_compat")
SHOW_IMPORTED = """
import sys
from gateway.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(sorted({name.split(".")[0] for name in sys.modules}), file=sys.stderr)
"""


def imported_by(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", SHOW_IMPORTED, *args], capture_output=True, text=True, timeout=60, check=True
    )
    assert "usage: gateway" in done.stdout + done.stderr
    listed = done.stderr.strip().splitlines()[-1]
    return set(eval(listed))  # noqa: S307 - our own child's printed list


def test_help_imports_no_heavy_module() -> None:
    for args in (["--help"], ["webhooks", "--help"], ["users", "add", "--help"], ["serve", "--port", "x"]):
        assert imported_by(*args) & set(HEAVY) == set(), args


def test_help_takes_under_half_a_second_of_cpu() -> None:
    """CPU time, not the wall clock: the machine may be busy, the work is what is measured."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(gateway_command("--help"), capture_output=True, text=True, timeout=60, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0 and done.stdout.startswith("usage: gateway")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu < 0.5, f"gateway --help took {cpu:.2f} s of CPU"


def test_the_version_is_the_installed_one() -> None:
    from importlib.metadata import version

    done = subprocess.run(gateway_command("--version"), capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout == f"gateway {version('erp-shop-gateway')}\n"


def test_the_parsers_name_the_scopes_and_events_the_data_layer_has() -> None:
    assert parsers.SCOPES == users.SCOPES
    assert sorted(parsers.EVENTS) == sorted(events.EVENTS)
