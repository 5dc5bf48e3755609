"""wrk as the benches run it (`apt-get install wrk`): one thread, the given connections and seconds, and a Lua
script: the bench's own (bench/orders/wrk.lua, bench/http_catalogue/wrk.lua) after the globals it fills in, and
bench/common/wrk_result.lua, whose done() prints one line `RESULT {json}`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

RESULT_SCRIPT = Path(__file__).with_name("wrk_result.lua")


def write_script(path: Path, globals_: str, script: Path) -> Path:
    """`path`, written as the Lua globals, the bench's own script and the shared result script, in that order."""
    path.write_text(globals_ + script.read_text() + RESULT_SCRIPT.read_text())
    return path


def run(base_url: str, script: Path, connections: int, seconds: float) -> dict[str, object]:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "30s"]
    output = subprocess.run(  # noqa: S603 - our own arguments
        [*command, "-s", str(script), base_url], capture_output=True, text=True, check=True
    ).stdout
    line = next((line for line in output.splitlines() if line.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"wrk printed no result:\n{output}")
    result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return result
