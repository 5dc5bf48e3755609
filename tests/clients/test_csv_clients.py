"""The CSV answer of /graphql (gateway/graphql_csv.py) read by an outside reader, PHP's fgetcsv, from a real
`gateway serve`: the same cells as Python's csv module, and as the JSON answer of the same query."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.clients.conftest import Shop
from tests.gateway.test_graphql_csv import flattened

HERE = Path(__file__).parent
QUERY = (
    "{ articles(sort: [{field: NUMBER}], limit: 40) { items { number designation group weight"
    " prices { amount minQuantity } packagingUnits { code ean prices { amount } } } } }"
)


def test_php_reads_the_csv_as_the_json_says(shop: Shop, tmp_path: Path) -> None:
    if shutil.which("php") is None:
        pytest.skip("php is not on PATH")  # a failure under CI (tests/clients/conftest.py)
    auth = {"Authorization": f"Bearer {shop.token()}"}
    with httpx.Client(base_url=shop.base_url, headers=auth, timeout=60) as http:
        answer = http.post("/graphql", json={"query": QUERY}, headers={"Accept": "text/csv"})
        items = http.post("/graphql", json={"query": QUERY}).json()["data"]["articles"]["items"]
    assert answer.status_code == 200, answer.text
    path = tmp_path / "articles.csv"
    path.write_bytes(answer.content)
    done = subprocess.run(
        ["php", str(HERE / "php" / "read_csv.php"), str(path)], capture_output=True, text=True, timeout=60, check=True
    )
    by_php = json.loads(done.stdout)
    by_python = list(csv.reader(io.StringIO(answer.content.decode("utf-8"), newline="")))
    assert by_php == by_python
    header, *rows = by_php
    assert len(rows) == len(items) > 0
    for row, item in zip(rows, items, strict=True):
        leaves = {path: text for path, text in flattened(item).items() if text}
        assert {column: text for column, text in zip(header, row, strict=True) if text} == leaves
