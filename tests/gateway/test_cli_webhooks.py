"""`gateway webhooks ...` and `gateway attributes ...`, run in-process as an operator runs them."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from datasources import events
from datasources.database import create_database
from gateway import cli
from tests.server import gateway_command


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "cli.db"
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    monkeypatch.setenv("GATEWAY_WEBHOOK_ALLOW_PRIVATE", "1")  # the receivers of these tests are on 127.0.0.1
    monkeypatch.chdir(tmp_path)
    assert cli.main(["db", "upgrade"]) == 0  # the other commands create no database
    capsys.readouterr()
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
    headers = [
        "ID",
        "EVENT",
        "MESSAGE",
        "ENDPOINT",
        "URL",
        "STATUS",
        "ATTEMPTS",
        "LAST_ATTEMPT",
        "NEXT_ATTEMPT",
        "ANSWER",
    ]
    assert header.split() == headers
    # Each column starts where its header does, and holds one word but the answer (the last).
    starts = [header.index(name) for name in headers]
    cells = [row[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
    assert cells[2].startswith("msg_")  # the webhook-id
    assert row.split()[: len(headers) - 1] == cells[:-1]
    del cells[2]
    assert cells == ["1", "REST_Auft", "1", "http://127.0.0.1:9/hook", "failed", "12", "-", "-", "503 try later"]
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


@pytest.mark.parametrize(
    ("url", "what"),
    [
        ("http://127.0.0.1:5432/", "127.0.0.1 is a loopback address"),
        ("http://localhost:6379/", "localhost is a loopback address"),
        ("http://2130706433/", "2130706433 (127.0.0.1) is a loopback address"),
        ("http://0x7f000001/", "0x7f000001 (127.0.0.1) is a loopback address"),
        ("http://127.1/", "127.1 (127.0.0.1) is a loopback address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
        ("http://10.0.0.5/", "10.0.0.5 is a private address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
    ],
)
def test_a_private_address_is_refused_by_default(
    db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, url: str, what: str
) -> None:
    monkeypatch.delenv("GATEWAY_WEBHOOK_ALLOW_PRIVATE")

    assert run(capsys, "webhooks", "add", url) == (
        1,
        "",
        f"gateway: the URL's host {what}: webhooks are not sent to loopback, private, link-local, multicast, "
        "unspecified or reserved addresses unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1\n",
    )
    assert run(capsys, "webhooks", "list")[1].splitlines()[1:] == []


def test_the_real_command_refuses_a_private_address_unless_allowed(db_file: Path) -> None:
    def add(url: str, **env: str) -> subprocess.CompletedProcess[str]:
        environment = {key: value for key, value in os.environ.items() if key != "GATEWAY_WEBHOOK_ALLOW_PRIVATE"}
        return subprocess.run(
            gateway_command("webhooks", "add", url),
            capture_output=True,
            text=True,
            env={**environment, **env},
            timeout=120,
        )

    refused = add("http://169.254.169.254/latest/meta-data/")
    allowed = add("http://10.0.0.5/erp-events", GATEWAY_WEBHOOK_ALLOW_PRIVATE="1")

    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.startswith("gateway: the URL's host 169.254.169.254 is a link-local address: ")
    assert allowed.returncode == 0, allowed.stderr
    assert "url: http://10.0.0.5/erp-events" in allowed.stdout


def test_a_password_in_an_endpoints_url_is_never_shown(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "attributes", "set", "RESTEVENTS", "*")
    status, added, _ = run(capsys, "webhooks", "add", "https://erp:s3cret-pass@shop.example/hooks")
    record_order(db_file)

    listed = run(capsys, "webhooks", "list")[1]
    deliveries = run(capsys, "webhooks", "deliveries")[1]

    assert status == 0
    for shown in (added, listed, deliveries):
        assert "s3cret-pass" not in shown
        assert "https://erp:***@shop.example/hooks" in shown


def test_adding_an_endpoint_says_when_restevents_switches_none_of_its_events_on(
    db_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "webhooks", "add", "http://127.0.0.1:9/hook")
    assert status == 0 and "secret: whsec_" in out
    assert "RESTEVENTS switches none of its events on" in err
    assert "gateway attributes set RESTEVENTS 'REST_Auft,REST_Kunde,REST_Artikel'" in err

    run(capsys, "attributes", "set", "RESTEVENTS", "REST_Kunde")
    err = run(capsys, "webhooks", "add", "http://127.0.0.1:9/orders", "--event", "REST_Auft")[2]
    assert "RESTEVENTS switches none of its events on" in err
    err = run(capsys, "webhooks", "add", "http://127.0.0.1:9/all")[2]
    assert "RESTEVENTS does not switch REST_Auft, REST_Artikel on, so those are not recorded" in err
    err = run(capsys, "webhooks", "add", "http://127.0.0.1:9/orders", "--event", "REST_Auft", "--event", "REST_Kunde")[
        2
    ]
    assert "RESTEVENTS does not switch REST_Auft on, so that is not recorded" in err
    err = run(capsys, "webhooks", "add", "http://127.0.0.1:9/customers", "--event", "REST_Kunde")[2]
    assert "RESTEVENTS" not in err

    run(capsys, "attributes", "set", "RESTEVENTS", "*")
    assert "RESTEVENTS" not in run(capsys, "webhooks", "add", "http://127.0.0.1:9/every")[2]
