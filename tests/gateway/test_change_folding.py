"""A serving gateway folds SQLite's change log soon after the ERP's bulk update on its own connection
(gateway/change_folding.py), and an article's ETag reads the same before the fold and after it."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests import databases
from tests.gateway.dispatch.processes import until_equal
from tests.gateway.dispatch.test_article_events import erp
from tests.server import GatewayServer, ServerDatabase

USER, SECRET = "shop", "a-long-shop-secret"
pytestmark = pytest.mark.skipif(bool(databases.SERVER_URL), reason="PostgreSQL's triggers keep no log")


def etag(server: GatewayServer, number: str) -> str:
    headers = {"Authorization": f"Bearer {server.token(USER, SECRET)}"}
    response = httpx.get(f"{server.base_url}/www/artikel/{number}", headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.headers["etag"]


def test_a_served_gateway_folds_the_erps_bulk_update(tmp_path: Path) -> None:
    database = ServerDatabase.create(tmp_path)
    server = GatewayServer(tmp_path, database, ("--no-demo",))
    try:
        server.run_cli("demo", "--articles", "300", "--customers", "0")
        server.add_user(USER, SECRET, "shop")
        assert databases.run_sql(database.url, "SELECT count(*) FROM article_change_log") == 1  # the demo folded
        number = databases.run_sql(database.url, "SELECT min(number) FROM article_change WHERE NOT removed")
        server.start()
        before = etag(server, number)
        prices = databases.run_sql(database.url, "SELECT count(*) FROM price")
        erp(database.url, [["UPDATE price SET amount = amount + 1"]])  # one statement, every price
        assert prices > 1000
        meanwhile = etag(server, number)  # folded or not yet: the same
        # Folded within the server's interval (half a second), give or take a busy machine.
        until_equal(lambda: databases.run_sql(database.url, "SELECT count(*) FROM article_change_log"), 1, 20.0)
        assert etag(server, number) == meanwhile != before
    finally:
        server.stop()
        database.drop()
