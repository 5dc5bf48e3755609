"""PostGraphile 4, the peer: installed from its lock file beside this module (`npm ci`, once) and started on the
bench's database as a superuser, bare: no JWT, no limits, no query log, no GraphiQL."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url

from tests.server import free_port, stop_process_group, wait_until_answering

HERE = Path(__file__).resolve().parent
START_TIMEOUT = 60.0


def install() -> Path:
    """The postgraphile command, `npm ci` first when its packages are not there yet."""
    command = HERE / "node_modules" / ".bin" / "postgraphile"
    if not command.exists():
        subprocess.run(  # npm from the machine, the packages of our lock file
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],  # noqa: S607
            cwd=HERE,
            check=True,
        )
    return command


@dataclass
class PostGraphile:
    directory: Path
    database_url: str  # the bench's SQLAlchemy URL (postgresql+asyncpg://...)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def label(self) -> str:
        return "PostGraphile 4"

    def start(self) -> PostGraphile:
        url = make_url(self.database_url).set(drivername="postgresql").render_as_string(hide_password=False)
        command = [str(install()), "--connection", url, "--host", "127.0.0.1", "--port", str(self.port)]
        command += ["--disable-query-log", "--disable-graphiql"]
        with self._output_path.open("wb") as out:
            self.process = subprocess.Popen(  # noqa: S603 - the pinned peer
                command, cwd=HERE, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        # It answers GET /graphql with 405 once it listens, and that is what waiting needs.
        wait_until_answering(
            self.process, f"{self.base_url}/graphql", self.output, what="postgraphile", timeout=START_TIMEOUT
        )
        return self

    @property
    def _output_path(self) -> Path:
        return self.directory / "postgraphile.out"

    def output(self) -> str:
        return self._output_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)
