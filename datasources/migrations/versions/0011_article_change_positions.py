"""article change positions: where each exposed article's change stands, kept by triggers

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-29 12:00:00

The catalogue's change feed, its ETags and the `REST_Artikel` event must see every change of what an
article's answer holds, including what the ERP writes on its own connection (see
datasources/models/article_change.py). Triggers on every table that answer is built from move the article's
position forward: `article`, `article_designation`, `article_attribute` (the exposure `RESTWEBSHOP` among
them), `packaging_unit`, `price`, `stock`, `reservation`, `declaration`, `media`; and the tables many
articles share, in one statement for all the articles they affect: `tax_code` (its rate; the standard one
for the articles without a code), `price_list` (its kind, its type, being the default) and `warehouse` (its
name, number and release).

An article has a row once it is exposed; a change while it is not exposed, or its deletion, marks the row
`removed` (a tombstone). SQLite: triggers per row; a new position is the greatest one plus one (one writer
at a time). PostgreSQL: triggers per statement over its transition tables, one position of the sequence
`article_change_position` per statement, and the writing transaction's id beside it.
"""

# Every statement is made of constants of this file.
# ruff: noqa: S608

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

EXPOSED_ATTRIBUTE = "'RESTWEBSHOP'"
# The tables whose rows belong to one article (their column `article_id`).
OWNED = (
    "article_designation",
    "article_attribute",
    "packaging_unit",
    "price",
    "stock",
    "reservation",
    "declaration",
    "media",
)
SEQUENCE = "article_change_position"


def exposure(article: str) -> str:
    return (
        f'EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = {article} AND x."key" = {EXPOSED_ATTRIBUTE})'
    )


def _known(article: str) -> str:
    """The article has a row that is not a tombstone: the shop knows it, a change that hides it removes it."""
    return f"EXISTS (SELECT 1 FROM article_change o WHERE o.article_id = {article} AND NOT o.removed)"


def _upsert(position: str, now: str, transaction: str, condition: str) -> str:
    """Move the articles `condition` names (over `article a`) to `position`: changed while exposed, removed
    when no longer; one never exposed stays without a row."""
    return (
        "INSERT INTO article_change (article_id, number, position, removed, changed_at, transaction_id) "
        f"SELECT a.id, a.number, {position}, NOT {exposure('a.id')}, {now}, {transaction} FROM article a "
        f"WHERE ({condition}) AND ({exposure('a.id')} OR {_known('a.id')}) "
        "ON CONFLICT (article_id) DO UPDATE SET number = excluded.number, position = excluded.position, "
        "removed = excluded.removed, changed_at = excluded.changed_at, transaction_id = excluded.transaction_id"
    )


def _move(position: str, now: str, transaction: str, ids: str) -> str:
    """Move the known articles among `ids` (an IN or = ANY operand) to `position`. Every exposed article has
    a row (made when it is exposed), so a change that cannot change the exposure needs no more: cheaper in
    a bulk load than `_upsert`, which looks the exposure up."""
    return (
        f"UPDATE article_change SET position = {position}, changed_at = {now}, transaction_id = {transaction} "
        f"WHERE article_id {ids} AND NOT removed"
    )


def _standard_tax(row: str) -> str:
    """The articles whose rate is the standard one (no code, or a code that does not exist), when `row` of
    tax_code is or was the standard one."""
    return (
        f"({row}.is_standard AND (a.tax_code IS NULL OR a.tax_code NOT IN (SELECT t.code FROM tax_code t) "
        f"OR a.tax_code = {row}.code))"
    )


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    op.create_table(
        "article_change",
        sa.Column("article_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("number", sa.String(length=15), nullable=False),
        sa.Column("position", sa.BigInteger(), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("changed_at", sa.DateTime(), nullable=False),
        sa.Column("transaction_id", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("article_id", name=op.f("pk_article_change")),
    )
    op.create_index("ix_article_change_position", "article_change", ["position", "article_id"])
    op.create_index("ix_article_change_transaction", "article_change", ["transaction_id"])
    if postgresql:
        op.execute(f"CREATE SEQUENCE {SEQUENCE}")
        _seed(
            f"nextval('{SEQUENCE}')", "(now() AT TIME ZONE 'utc')", "CAST(CAST(pg_current_xact_id() AS text) AS bigint)"
        )
        for statement in _postgresql_triggers():
            op.execute(statement)
    else:
        _seed("1", "CURRENT_TIMESTAMP", "NULL")
        for statement in _sqlite_triggers():
            op.execute(statement)


def _seed(position: str, now: str, transaction: str) -> None:
    """Every article exposed now, at one first position."""
    op.execute(
        "INSERT INTO article_change (article_id, number, position, removed, changed_at, transaction_id) "
        f"SELECT a.id, a.number, p.position, false, {now}, {transaction} FROM (SELECT {position} AS position) p "
        f"CROSS JOIN article a WHERE {exposure('a.id')}"
    )


# SQLite ---------------------------------------------------------------------------------------------------

_SQLITE_POSITION = "(SELECT coalesce(max(c.position), 0) + 1 FROM article_change c)"
_SQLITE_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')"


def _sqlite_upsert(condition: str) -> str:
    return _upsert(_SQLITE_POSITION, _SQLITE_NOW, "NULL", condition)


def _sqlite_move(ids: str) -> str:
    # The position alone: a trigger per row that writes three columns costs twice as much in a bulk
    # update (the time of a row that is not a tombstone is not read: the purge reads the tombstones').
    return f"UPDATE article_change SET position = {_SQLITE_POSITION} WHERE article_id {ids} AND NOT removed"


def _sqlite_of_articles(condition: str) -> str:
    return f"IN (SELECT a.id FROM article a WHERE {condition})"


def _sqlite_removal(article: str) -> str:
    return (
        f"UPDATE article_change SET removed = 1, position = {_SQLITE_POSITION}, changed_at = {_SQLITE_NOW} "
        f"WHERE article_id = {article} AND NOT removed"
    )


def _sqlite_trigger(name: str, event: str, statement: str) -> str:
    return f"CREATE TRIGGER article_change_{name} AFTER {event} FOR EACH ROW BEGIN {statement}; END"


def _sqlite_triggers() -> list[str]:
    # A new article has no attributes yet: it is not exposed, nothing to do.
    triggers = [
        _sqlite_trigger("article_update", "UPDATE ON article", _sqlite_upsert("a.id IN (OLD.id, NEW.id)")),
        _sqlite_trigger("article_delete", "DELETE ON article", _sqlite_removal("OLD.id")),
    ]
    for table in OWNED:
        if table == "article_attribute":  # the exposure may change
            insert, update, delete = (
                _sqlite_upsert("a.id = NEW.article_id"),
                _sqlite_upsert("a.id IN (OLD.article_id, NEW.article_id)"),
                _sqlite_upsert("a.id = OLD.article_id"),
            )
        else:
            insert, update, delete = (
                _sqlite_move("= NEW.article_id"),
                _sqlite_move("IN (OLD.article_id, NEW.article_id)"),
                _sqlite_move("= OLD.article_id"),
            )
        triggers += [
            _sqlite_trigger(f"{table}_insert", f"INSERT ON {table}", insert),
            _sqlite_trigger(f"{table}_update", f"UPDATE ON {table}", update),
            _sqlite_trigger(f"{table}_delete", f"DELETE ON {table}", delete),
        ]
    tax = "a.tax_code IN ({row}.code) OR {standard}"
    triggers += [
        _sqlite_trigger(
            "tax_code_insert",
            "INSERT ON tax_code",
            _sqlite_move(_sqlite_of_articles(tax.format(row="NEW", standard=_standard_tax("NEW")))),
        ),
        _sqlite_trigger(
            "tax_code_update",
            "UPDATE ON tax_code",
            _sqlite_move(
                _sqlite_of_articles(
                    f"a.tax_code IN (OLD.code, NEW.code) OR {_standard_tax('OLD')} OR {_standard_tax('NEW')}"
                )
            ),
        ),
        _sqlite_trigger(
            "tax_code_delete",
            "DELETE ON tax_code",
            _sqlite_move(_sqlite_of_articles(tax.format(row="OLD", standard=_standard_tax("OLD")))),
        ),
    ]
    for table, child, column in (("price_list", "price", "price_list_id"), ("warehouse", "stock", "warehouse_id")):
        for event, ids in (("update", "OLD.id, NEW.id"), ("delete", "OLD.id")):
            condition = f"IN (SELECT s.article_id FROM {child} s WHERE s.{column} IN ({ids}))"
            triggers.append(_sqlite_trigger(f"{table}_{event}", f"{event.upper()} ON {table}", _sqlite_move(condition)))
    return triggers


# PostgreSQL -----------------------------------------------------------------------------------------------

_PG_TRANSACTION = "CAST(CAST(pg_current_xact_id() AS text) AS bigint)"
_PG_NOW = "(now() AT TIME ZONE 'utc')"


def _pg_function(name: str, body: str, arguments: str = "", returns: str = "trigger") -> str:
    return (
        f"CREATE FUNCTION {name}({arguments}) RETURNS {returns} LANGUAGE plpgsql "
        f"SET jit = off AS $$ DECLARE new_position bigint; BEGIN {body} END $$"
    )


def _pg_touch(ids: str) -> str:
    return f"PERFORM article_change_touch(ARRAY({ids}));"


def _pg_move(ids: str) -> str:
    return f"PERFORM article_change_move(ARRAY({ids}));"


def _pg_statement_triggers(table: str, function: str, events: tuple[str, ...]) -> list[str]:
    tables = {"INSERT": "NEW TABLE AS new_rows", "UPDATE": "OLD TABLE AS old_rows NEW TABLE AS new_rows",
              "DELETE": "OLD TABLE AS old_rows"}  # fmt: skip
    return [
        f"CREATE TRIGGER article_change_{table}_{event.lower()} AFTER {event} ON {table} REFERENCING {tables[event]} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        for event in events
    ]


def _pg_by_operation(insert: str, update: str, delete: str) -> str:
    """A trigger body per operation: each names only the transition tables its operation has."""
    return f"IF TG_OP = 'INSERT' THEN {insert} ELSIF TG_OP = 'UPDATE' THEN {update} ELSE {delete} END IF; RETURN NULL;"


def _postgresql_triggers() -> list[str]:
    touch = _upsert("new_position", _PG_NOW, _PG_TRANSACTION, "a.id = ANY(ids)")
    move = _move("new_position", _PG_NOW, _PG_TRANSACTION, "= ANY(ids)")
    statements = [
        _pg_function(
            "article_change_move",
            f"IF cardinality(ids) = 0 THEN RETURN; END IF; new_position := nextval('{SEQUENCE}'); {move};",
            arguments="ids integer[]",
            returns="void",
        ),
        _pg_function(
            "article_change_touch",
            f"IF cardinality(ids) = 0 THEN RETURN; END IF; new_position := nextval('{SEQUENCE}'); {touch};",
            arguments="ids integer[]",
            returns="void",
        ),
        _pg_function(
            "article_change_on_article",
            _pg_by_operation(
                "NULL;",  # a new article has no attributes yet: it is not exposed
                _pg_touch("SELECT id FROM new_rows UNION SELECT id FROM old_rows"),
                f"new_position := nextval('{SEQUENCE}'); UPDATE article_change SET removed = true, "
                f"position = new_position, changed_at = {_PG_NOW}, "
                f"transaction_id = {_PG_TRANSACTION} WHERE article_id IN (SELECT id FROM old_rows) AND NOT removed;",
            ),
        ),
        *_pg_statement_triggers("article", "article_change_on_article", ("UPDATE", "DELETE")),
    ]
    for name, call in (("attribute", _pg_touch), ("owned", _pg_move)):  # an attribute may change the exposure
        statements.append(
            _pg_function(
                f"article_change_on_{name}",
                _pg_by_operation(
                    call("SELECT article_id FROM new_rows"),
                    call("SELECT article_id FROM new_rows UNION SELECT article_id FROM old_rows"),
                    call("SELECT article_id FROM old_rows"),
                ),
            )
        )
    for table in OWNED:
        function = "article_change_on_attribute" if table == "article_attribute" else "article_change_on_owned"
        statements += _pg_statement_triggers(table, function, ("INSERT", "UPDATE", "DELETE"))

    def taxed(rows: str) -> str:
        standard = (
            f"EXISTS (SELECT 1 FROM {rows} r WHERE r.is_standard) AND (a.tax_code IS NULL OR "
            "NOT EXISTS (SELECT 1 FROM tax_code t WHERE t.code = a.tax_code))"
        )
        return f"SELECT a.id FROM article a WHERE a.tax_code IN (SELECT r.code FROM {rows} r) OR ({standard})"

    statements += [
        _pg_function(
            "article_change_on_tax_code",
            _pg_by_operation(
                _pg_move(taxed("new_rows")),
                _pg_move(f"{taxed('new_rows')} UNION {taxed('old_rows')}"),
                _pg_move(taxed("old_rows")),
            ),
        ),
        *_pg_statement_triggers("tax_code", "article_change_on_tax_code", ("INSERT", "UPDATE", "DELETE")),
    ]
    for table, child, column in (("price_list", "price", "price_list_id"), ("warehouse", "stock", "warehouse_id")):

        def of(rows: str, child: str = child, column: str = column) -> str:
            return f"SELECT s.article_id FROM {child} s WHERE s.{column} IN (SELECT r.id FROM {rows} r)"

        statements += [
            _pg_function(
                f"article_change_on_{table}",
                _pg_by_operation(
                    "NULL;", _pg_move(f"{of('new_rows')} UNION {of('old_rows')}"), _pg_move(of("old_rows"))
                ),
            ),
            *_pg_statement_triggers(table, f"article_change_on_{table}", ("UPDATE", "DELETE")),
        ]
    return statements


_PG_TABLES = ("article", *OWNED, "tax_code", "price_list", "warehouse")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in _PG_TABLES:
            for event in ("insert", "update", "delete"):
                op.execute(f"DROP TRIGGER IF EXISTS article_change_{table}_{event} ON {table}")
        for name in ("article_change_on_article", "article_change_on_owned", "article_change_on_attribute",
                     "article_change_on_tax_code",
                     "article_change_on_price_list", "article_change_on_warehouse"):  # fmt: skip
            op.execute(f"DROP FUNCTION {name}()")
        op.execute("DROP FUNCTION article_change_touch(integer[])")
        op.execute("DROP FUNCTION article_change_move(integer[])")
        op.execute(f"DROP SEQUENCE {SEQUENCE}")
    else:
        for (name,) in op.get_bind().execute(
            sa.text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'article_change_%'")
        ):
            op.execute(f"DROP TRIGGER {name}")
    op.drop_index("ix_article_change_transaction", table_name="article_change")
    op.drop_index("ix_article_change_position", table_name="article_change")
    op.drop_table("article_change")
