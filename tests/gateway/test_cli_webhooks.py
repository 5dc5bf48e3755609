"""`gateway webhooks ...` and `gateway attributes ...`, run in-process as an operator runs them."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from datasources import events
from datasources.database import create_database
from gateway import cli


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.db"
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    monkeypatch.chdir(tmp_path)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def record_order(path: Path) -> None:
    async def write() -> None:
        db = create_database(f"sqlite+aiosqlite:///{path}")
        try:
            await db.write(lambda session: events.record(session, events.ORDER_EVENT, "shop", AuftNr="5", KundNr="1"))
        finally:
            await db.dispose()

    asyncio.run(write())


def test_an_operator_enables_events_and_manages_endpoints(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "attributes", "set", "restevents", "REST_Auft,REST_Kunde")[:2] == (
        0,
        "RESTEVENTS = 'REST_Auft,REST_Kunde'\n",
    )
    assert run(capsys, "attributes", "list")[1] == "RESTEVENTS = 'REST_Auft,REST_Kunde'\n"
    status, out, err = run(capsys, "webhooks", "add", "https://shop.example/hooks/erp", "--event", "rest_auft")
    fields = dict(line.split(": ", 1) for line in out.splitlines())
    assert status == 0 and fields["id"] == "1" and fields["events"] == "REST_Auft"
    assert fields["url"] == "https://shop.example/hooks/erp" and fields["secret"].startswith("whsec_")
    assert "not shown again" in err
    assert run(capsys, "webhooks", "add", "http://127.0.0.1:9/all")[0] == 0
    status, out, _ = run(capsys, "webhooks", "list")
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "CREATED", "EVENTS", "URL"]
    assert [line.split()[2:] for line in lines[1:]] == [
        ["REST_Auft", "https://shop.example/hooks/erp"],
        ["all", "http://127.0.0.1:9/all"],
    ]
    assert fields["secret"] not in out
    assert run(capsys, "webhooks", "remove", "2") == (0, "webhook endpoint 2 removed\n", "")
    assert run(capsys, "webhooks", "remove", "2") == (1, "", "gateway: there is no webhook endpoint 2\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("webhooks", "add", "ftp://shop.example/"), "the URL must be an absolute http or https URL"),
        (("webhooks", "add", "https://shop.example/", "--event", "REST_X"), "unknown event 'REST_X'"),
        (("attributes", "set", "NOT A KEY", "1"), "a PHKey is 1 to 12 ASCII letters"),
    ],
)
def test_refusals_are_one_line(
    db_file: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    status, out, err = run(capsys, *args)
    assert status == 1 and out == "" and err.startswith(f"gateway: {message}") and err.count("\n") == 1


def test_deliveries_are_listed_and_retried(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "attributes", "set", "RESTEVENTS", "*")
    run(capsys, "webhooks", "add", "http://127.0.0.1:9/hook")
    record_order(db_file)
    with sqlite3.connect(db_file) as conn:
        conn.execute(
            "UPDATE webhook_delivery SET status = 'failed', attempts = 12, last_status = 503, "
            "last_answer = 'try\nlater'"
        )
    status, out, _ = run(capsys, "webhooks", "deliveries", "--failed")
    assert status == 0
    header, row = out.splitlines()
    assert header.split() == [
        "ID",
        "EVENT",
        "ENDPOINT",
        "STATUS",
        "ATTEMPTS",
        "LAST",
        "ATTEMPT",
        "NEXT",
        "ATTEMPT",
        "ANSWER",
    ]
    cells = row.split()
    assert cells[2].startswith("msg_")  # the webhook-id
    del cells[2]
    expected = ["1", "REST_Auft", "1", "http://127.0.0.1:9/hook", "failed", "12", "-", "-", "503", "try", "later"]
    assert cells == expected  # the answer on one line
    assert run(capsys, "webhooks", "retry", "--failed") == (0, "1 delivery due again now\n", "")
    assert run(capsys, "webhooks", "deliveries", "--failed")[1].splitlines()[1:] == []
    assert run(capsys, "webhooks", "retry", "1") == (0, "1 delivery due again now\n", "")
    assert run(capsys, "webhooks", "retry", "7") == (1, "", "gateway: there is no webhook delivery 7\n")
    assert "pending" in run(capsys, "webhooks", "deliveries")[1]


def test_retry_needs_a_delivery_or_failed(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as usage:
        cli.main(["webhooks", "retry"])
    assert usage.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["webhooks", "retry", "1", "--failed"])
    assert "not allowed with" in capsys.readouterr().err
