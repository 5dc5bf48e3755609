"""GraphiQL in Chromium against a real `gateway serve` (graphiql.mjs): every file from the gateway, the
explorer, a query with a pasted token, and no token left in localStorage unless the user opts in."""

from __future__ import annotations

import json
from pathlib import Path

from tests.browser import driver
from tests.browser.conftest import Served

pytestmark = driver.requirement()


def test_graphiql_runs_a_query_with_its_explorer_and_keeps_no_token(served: Served, tmp_path: Path) -> None:
    result = driver.run_script("graphiql.mjs", served.base_url, served.token, screenshot=tmp_path / "graphiql.png")

    driver.assert_nothing_went_wrong(result)
    assert result["editors"] >= 4  # query, variables, headers, result: CodeMirror editors
    assert {"articles", "article", "items", "designation"} <= set(result["explorer"])
    articles = result["response"]["data"]["articles"]
    assert articles["totalCount"] > 2 and len(articles["items"]) == 2
    assert "errors" not in result["response"]
    # The history keeps the query, not the token; the switch is off.
    assert served.token not in json.dumps(result["stored"])
    assert "Two" in result["stored"]["graphiql:queries"]
    # The analysts' tab is there beside the first one (docs/how-to/analytics.md).
    tabs = json.loads(result["stored"]["graphiql:tabState"])["tabs"]
    assert any("articleFacets" in tab["query"] and "text/csv" in tab["query"] for tab in tabs), tabs
    assert result["stored"]["graphiql:shouldPersistHeaders"] == "false"
    # Turned on, the headers survive a reload; turned off again, nothing of the token stays behind.
    assert served.token in result["remembered"]
    assert served.token not in json.dumps(result["optedOut"])
