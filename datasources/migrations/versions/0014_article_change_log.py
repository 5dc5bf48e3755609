"""article change positions: SQLite's triggers append to a change log instead of moving the article's row

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-29 16:00:00

SQLite runs a trigger per row: one UPDATE of 1,000 prices ran 1,000 moves of the article's row of
`article_change` (find it, take the greatest position plus one, rewrite it and its index entry), 2.5x the
update without triggers (bench/change_stamps.py); a trigger that does nothing costs 1.4x, and one that appends
a row to a table without an index about as much. So the triggers of the tables an article is built from now
append the article to `article_change_log`, whose rowid `seq` is the change's position (taken under the write
lock, in commit order, as before); the triggers that make, re-expose or remove an article's row (the article,
its attributes, its deletion) append one too and give the row the log's greatest `seq`. A reader takes the
greater of the row's position and the log's for the article (datasources/catalogue/change_log.py), and the
gateway folds the log into the rows. The log starts with one row at the greatest position so far: SQLite
takes the next rowid from the greatest, and the fold always keeps that row.

PostgreSQL's triggers run per statement and stay as they are; the table is made there too (the models are the
same on both), and stays empty.
"""

# Every statement is made of constants of this file.
# ruff: noqa: S608

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

# Frozen here, as in 0013: a later change of an earlier migration's text must not change what this one does.
_EXPOSED = "EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id AND x.\"key\" = 'RESTWEBSHOP')"
_KNOWN_ROW = "EXISTS (SELECT 1 FROM article_change o WHERE o.article_id = {article} AND NOT o.removed)"
_GREATEST = "(SELECT max(l.seq) FROM article_change_log l)"
_NOW = "strftime('%Y-%m-%d %H:%M:%f', 'now')"
# The tables whose rows belong to one article (`article_id`), but for article_attribute (its own below).
_OWNED = ("article_designation", "packaging_unit", "price", "stock", "reservation", "declaration", "media")


def _log(*articles: str) -> str:
    return "; ".join(f"INSERT INTO article_change_log (article_id) VALUES ({article})" for article in articles)


def _log_known(ids: str) -> str:
    """One log row for each article among `ids` (a SELECT of article ids) that has a row and is not removed:
    a change of a table many articles share appends no more than the articles it moves."""
    return (
        f"INSERT INTO article_change_log (article_id) SELECT DISTINCT m.id FROM ({ids}) m "
        f"WHERE {_KNOWN_ROW.format(article='m.id')}"
    )


def _upsert(condition: str) -> str:
    """As 0011's: the articles `condition` names made, moved or removed, at the log's greatest position."""
    return (
        "INSERT INTO article_change (article_id, number, position, removed, changed_at, transaction_id) "
        f"SELECT a.id, a.number, {_GREATEST}, NOT {_EXPOSED}, {_NOW}, NULL FROM article a "
        f"WHERE ({condition}) AND ({_EXPOSED} OR {_KNOWN_ROW.format(article='a.id')}) "
        "ON CONFLICT (article_id) DO UPDATE SET number = excluded.number, position = excluded.position, "
        "removed = excluded.removed, changed_at = excluded.changed_at, transaction_id = excluded.transaction_id"
    )


def _removal(article: str) -> str:
    return (
        f"{_log(article)}; UPDATE article_change SET removed = 1, position = {_GREATEST}, changed_at = {_NOW} "
        f"WHERE article_id = {article} AND NOT removed"
    )


def _trigger(name: str, event: str, statement: str, when: str = "") -> str:
    return f"CREATE TRIGGER article_change_{name} AFTER {event} FOR EACH ROW {when}BEGIN {statement}; END"


def _article_triggers() -> list[str]:
    # A new article has no attributes yet: it is not exposed, nothing to do.
    return [
        _trigger("article_update", "UPDATE ON article", f"{_log('NEW.id')}; {_upsert('a.id = NEW.id')}",
                 "WHEN OLD.id = NEW.id "),
        _trigger("article_reassign", "UPDATE ON article",
                 f"{_log('OLD.id', 'NEW.id')}; {_upsert('a.id IN (OLD.id, NEW.id)')}", "WHEN OLD.id IS NOT NEW.id "),
        _trigger("article_delete", "DELETE ON article", _removal("OLD.id")),
    ]  # fmt: skip


def _attribute_triggers() -> list[str]:
    table = "article_attribute"  # the exposure may change: the article's row is made, moved or removed
    return [
        _trigger(f"{table}_insert", f"INSERT ON {table}",
                 f"{_log('NEW.article_id')}; {_upsert('a.id = NEW.article_id')}"),
        _trigger(f"{table}_update", f"UPDATE ON {table}",
                 f"{_log('NEW.article_id')}; {_upsert('a.id = NEW.article_id')}",
                 "WHEN OLD.article_id = NEW.article_id "),
        _trigger(f"{table}_reassign", f"UPDATE ON {table}",
                 f"{_log('OLD.article_id', 'NEW.article_id')}; "
                 f"{_upsert('a.id IN (OLD.article_id, NEW.article_id)')}",
                 "WHEN OLD.article_id IS NOT NEW.article_id "),
        _trigger(f"{table}_delete", f"DELETE ON {table}",
                 f"{_log('OLD.article_id')}; {_upsert('a.id = OLD.article_id')}"),
    ]  # fmt: skip


def _owned_triggers() -> list[str]:
    # An append, nothing read: a row of an article that has no row (never exposed) or a tombstone is left
    # in the log and read as nothing (change_log.py).
    triggers = []
    for table in _OWNED:
        triggers += [
            _trigger(f"{table}_insert", f"INSERT ON {table}", _log("NEW.article_id")),
            _trigger(f"{table}_update", f"UPDATE ON {table}", _log("NEW.article_id"),
                     "WHEN OLD.article_id = NEW.article_id "),
            _trigger(f"{table}_reassign", f"UPDATE ON {table}", _log("OLD.article_id", "NEW.article_id"),
                     "WHEN OLD.article_id IS NOT NEW.article_id "),
            _trigger(f"{table}_delete", f"DELETE ON {table}", _log("OLD.article_id")),
        ]  # fmt: skip
    return triggers


def _standard_tax(row: str) -> str:
    """As 0011's: the articles whose rate is the standard one, when `row` of tax_code is or was it."""
    return (
        f"({row}.is_standard AND (a.tax_code IS NULL OR a.tax_code NOT IN (SELECT t.code FROM tax_code t) "
        f"OR a.tax_code = {row}.code))"
    )


def _shared_triggers() -> list[str]:
    """The tables many articles share: every article they affect, in one statement."""

    def taxed(condition: str) -> str:
        return _log_known(f"SELECT a.id FROM article a WHERE {condition}")

    triggers = [
        _trigger("tax_code_insert", "INSERT ON tax_code",
                 taxed(f"a.tax_code IN (NEW.code) OR {_standard_tax('NEW')}")),
        _trigger("tax_code_update", "UPDATE ON tax_code",
                 taxed(f"a.tax_code IN (OLD.code, NEW.code) OR {_standard_tax('OLD')} OR {_standard_tax('NEW')}")),
        _trigger("tax_code_delete", "DELETE ON tax_code",
                 taxed(f"a.tax_code IN (OLD.code) OR {_standard_tax('OLD')}")),
    ]  # fmt: skip
    for table, child, column in (("price_list", "price", "price_list_id"), ("warehouse", "stock", "warehouse_id")):
        for event, ids in (("update", "OLD.id, NEW.id"), ("delete", "OLD.id")):
            of = f"SELECT s.article_id AS id FROM {child} s WHERE s.{column} IN ({ids})"
            triggers.append(_trigger(f"{table}_{event}", f"{event.upper()} ON {table}", _log_known(of)))
    return triggers


def _drop_sqlite_triggers() -> None:
    for (name,) in (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'article_change\\_%' ESCAPE '\\'"
            )
        )
        .all()
    ):
        op.execute(f'DROP TRIGGER "{name}"')


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.create_table(
        "article_change_log",
        sa.Column("seq", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("article_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_article_change_log")),
    )
    if not sqlite:
        return
    op.execute(
        "INSERT INTO article_change_log (seq, article_id) SELECT coalesce(max(position), 0), NULL FROM article_change"
    )
    _drop_sqlite_triggers()
    for statement in _article_triggers() + _attribute_triggers() + _owned_triggers() + _shared_triggers():
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # The log's positions into the rows first: 0013's triggers read the rows alone.
        op.execute(
            "UPDATE article_change SET position = folded.seq FROM (SELECT article_id, max(seq) AS seq "
            "FROM article_change_log WHERE article_id IS NOT NULL GROUP BY article_id) AS folded "
            "WHERE article_change.article_id = folded.article_id AND NOT article_change.removed "
            "AND article_change.position < folded.seq"
        )
        _drop_sqlite_triggers()
        _restore_0013()
    op.drop_table("article_change_log")


def _restore_0013() -> None:
    """0013's SQLite triggers, as 0011 and 0013 made them, with their texts frozen here."""
    position = "(SELECT coalesce(max(c.position), 0) + 1 FROM article_change c)"

    def upsert(condition: str) -> str:
        return _upsert(condition).replace(_GREATEST, position)

    def move(ids: str) -> str:
        return f"UPDATE article_change SET position = {position} WHERE article_id {ids} AND NOT removed"

    def of_articles(condition: str) -> str:
        return f"IN (SELECT a.id FROM article a WHERE {condition})"

    triggers = [
        _trigger("article_update", "UPDATE ON article", upsert("a.id = NEW.id"), "WHEN OLD.id = NEW.id "),
        _trigger("article_reassign", "UPDATE ON article", upsert("a.id IN (OLD.id, NEW.id)"),
                 "WHEN OLD.id IS NOT NEW.id "),
        _trigger("article_delete", "DELETE ON article",
                 f"UPDATE article_change SET removed = 1, position = {position}, changed_at = {_NOW} "
                 "WHERE article_id = OLD.id AND NOT removed"),
    ]  # fmt: skip
    for table in ("article_attribute", *_OWNED):
        change = upsert if table == "article_attribute" else None
        one, both, new, old = (
            (change("a.id = NEW.article_id"), change("a.id IN (OLD.article_id, NEW.article_id)"),
             change("a.id = NEW.article_id"), change("a.id = OLD.article_id"))
            if change else
            (move("= NEW.article_id"), move("IN (OLD.article_id, NEW.article_id)"), move("= NEW.article_id"),
             move("= OLD.article_id"))
        )  # fmt: skip
        triggers += [
            _trigger(f"{table}_insert", f"INSERT ON {table}", new),
            _trigger(f"{table}_update", f"UPDATE ON {table}", one, "WHEN OLD.article_id = NEW.article_id "),
            _trigger(f"{table}_reassign", f"UPDATE ON {table}", both, "WHEN OLD.article_id IS NOT NEW.article_id "),
            _trigger(f"{table}_delete", f"DELETE ON {table}", old),
        ]
    triggers += [
        _trigger("tax_code_insert", "INSERT ON tax_code",
                 move(of_articles(f"a.tax_code IN (NEW.code) OR {_standard_tax('NEW')}"))),
        _trigger("tax_code_update", "UPDATE ON tax_code",
                 move(of_articles(f"a.tax_code IN (OLD.code, NEW.code) OR {_standard_tax('OLD')} "
                                  f"OR {_standard_tax('NEW')}"))),
        _trigger("tax_code_delete", "DELETE ON tax_code",
                 move(of_articles(f"a.tax_code IN (OLD.code) OR {_standard_tax('OLD')}"))),
    ]  # fmt: skip
    for table, child, column in (("price_list", "price", "price_list_id"), ("warehouse", "stock", "warehouse_id")):
        for event, ids in (("update", "OLD.id, NEW.id"), ("delete", "OLD.id")):
            condition = f"IN (SELECT s.article_id FROM {child} s WHERE s.{column} IN ({ids}))"
            triggers.append(_trigger(f"{table}_{event}", f"{event.upper()} ON {table}", move(condition)))
    for statement in triggers:
        op.execute(statement)
