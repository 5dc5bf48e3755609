"""article search index: trigrams of ArtNr and the designations, so that a search reads what it finds

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28 11:00:00

The article search compares folded text by containment (datasources/catalogue/search.py); without an index,
a search for a term few articles have read the whole catalogue. See datasources/models/article_search.py.

PostgreSQL: pg_trgm's GIN indexes on the folded ArtNr and designation. Creating the extension needs the right
to (a superuser, or the database's owner: pg_trgm is a trusted extension); without it the indexes are left
out, with a warning, and a search reads the catalogue as before. SQLite: the FTS5 table `article_search`,
filled here and kept by triggers.
"""

# Every statement is made of constants of this file.
# ruff: noqa: S608

from __future__ import annotations

import logging

from alembic import op
from sqlalchemy.exc import DBAPIError

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

log = logging.getLogger("gateway.migrations")

INDEXES = (
    ("ix_article_search_number", "article", "number"),
    ("ix_article_designation_search", "article_designation", "text"),
)
TRIGGERS = ("article_insert", "article_update", "article_delete", "designation_insert", "designation_update",
            "designation_delete")  # fmt: skip


def searched_text(article: str) -> str:
    """What the search looks in for the row `article` of `article`: ArtNr and every designation, one per line.
    U+0130 and U+212A become the ASCII letters they fold to (folding.ASCII_FROM_OTHERS), so that FTS5, which
    compares ASCII letters in either case, finds every article whose folded text has them."""
    text = (
        f"{article}.number || char(10) || coalesce((SELECT group_concat(d.text, char(10)) "
        f"FROM article_designation d WHERE d.article_id = {article}.id), '')"
    )
    return f"replace(replace({text}, char(304), 'i'), char(8490), 'k')"


def refresh(article_id: str) -> str:
    """Write the row of article `article_id` anew: removed, then written if the article exists."""
    return (
        f"DELETE FROM article_search WHERE rowid = {article_id}; INSERT INTO article_search (rowid, text) "
        f"SELECT a.id, {searched_text('a')} FROM article a WHERE a.id = {article_id}"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _upgrade_postgresql()
    else:
        _upgrade_sqlite()


def _upgrade_postgresql() -> None:
    connection = op.get_bind()
    try:
        with connection.begin_nested():
            op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except DBAPIError as error:
        log.warning("article search without index: the extension pg_trgm cannot be created (%s)", error.orig)
        return
    for name, table, column in INDEXES:
        op.execute(f"CREATE INDEX {name} ON {table} USING gin (lower(TRIM(BOTH FROM {column})) gin_trgm_ops)")
    op.execute("ANALYZE article")
    op.execute("ANALYZE article_designation")


def _upgrade_sqlite() -> None:
    op.execute("CREATE VIRTUAL TABLE article_search USING fts5(text, tokenize = 'trigram')")
    op.execute(f"INSERT INTO article_search (rowid, text) SELECT a.id, {searched_text('a')} FROM article a")

    def trigger(name: str, event: str, *articles: str) -> str:
        body = "; ".join(refresh(article) for article in articles)
        return f"CREATE TRIGGER article_search_{name} AFTER {event} FOR EACH ROW BEGIN {body}; END"

    for statement in (
        trigger("article_insert", "INSERT ON article", "NEW.id"),
        trigger("article_update", "UPDATE OF id, number ON article", "OLD.id", "NEW.id"),
        trigger("article_delete", "DELETE ON article", "OLD.id"),
        trigger("designation_insert", "INSERT ON article_designation", "NEW.article_id"),
        trigger("designation_update", "UPDATE ON article_designation", "OLD.article_id", "NEW.article_id"),
        trigger("designation_delete", "DELETE ON article_designation", "OLD.article_id"),
    ):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name, _, _ in INDEXES:
            op.execute(f"DROP INDEX IF EXISTS {name}")
        return  # the extension stays: something else may use it
    for name in TRIGGERS:
        op.execute(f"DROP TRIGGER article_search_{name}")
    op.execute("DROP TABLE article_search")
