"""article search index: trigrams of ArtNr and the designations, so that a search reads what it finds

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28 11:00:00

The article search compares folded text by containment (datasources/catalogue/search.py); without an index,
a search for a term few articles have read the whole catalogue. See datasources/models/article_search.py.

PostgreSQL: pg_trgm's GIN indexes on the folded ArtNr and designation. Creating the extension needs the right
to (a superuser, or the database's owner: pg_trgm is a trusted extension); without it the indexes are left
out, with a warning, and a search reads the catalogue as before. SQLite: the FTS5 table `article_search`, one
row per text (ArtNr, each designation) under the key `article_search_key` gives it, filled here and kept by
triggers.
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


NUMBER = "''"  # the language of the row that holds the article's ArtNr


def searched(text: str) -> str:
    """A text as the search's table holds it: U+0130 and U+212A become the ASCII letters they fold to
    (folding.ASCII_FROM_OTHERS), so that FTS5, which compares ASCII letters in either case, finds every text
    whose folded form has them."""
    return f"replace(replace({text}, char(304), 'i'), char(8490), 'k')"


def remove(article_id: str, language: str) -> str:
    """Remove the row of one text: the article's ArtNr (language NUMBER) or its designation in `language`."""
    key = f"article_id = {article_id} AND language = {language}"
    return (
        f"DELETE FROM article_search WHERE rowid IN (SELECT id FROM article_search_key WHERE {key}); "
        f"DELETE FROM article_search_key WHERE {key}"
    )


def write(article_id: str, language: str, text: str) -> str:
    """Write the row of one new text under a new key (the key table's INTEGER PRIMARY KEY: VACUUM keeps it).
    Nothing is removed first: a DELETE on the FTS5 table costs some 50 µs even when it finds nothing, as any
    write to it from a trigger does (FTS5 writes out what it holds in memory). A key left over (none should
    be) is replaced, not a reason to fail the write; its old row then finds nothing."""
    return (
        f"INSERT OR REPLACE INTO article_search_key (article_id, language) VALUES ({article_id}, {language}); "
        f"INSERT INTO article_search (rowid, text) VALUES (last_insert_rowid(), {searched(text)})"
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
    op.execute(
        "CREATE TABLE article_search_key (id INTEGER PRIMARY KEY, article_id INTEGER NOT NULL, "
        "language VARCHAR(3) NOT NULL, UNIQUE (article_id, language))"
    )
    op.execute(f"INSERT INTO article_search_key (article_id, language) SELECT id, {NUMBER} FROM article")
    op.execute(
        "INSERT INTO article_search_key (article_id, language) SELECT article_id, language FROM article_designation"
    )
    op.execute(
        f"INSERT INTO article_search (rowid, text) SELECT k.id, {searched('a.number')} FROM article_search_key k "
        f"JOIN article a ON a.id = k.article_id WHERE k.language = {NUMBER}"
    )
    op.execute(
        f"INSERT INTO article_search (rowid, text) SELECT k.id, {searched('d.text')} FROM article_search_key k "
        "JOIN article_designation d ON d.article_id = k.article_id AND d.language = k.language"
    )

    def trigger(name: str, event: str, *statements: str) -> str:
        return f"CREATE TRIGGER article_search_{name} AFTER {event} FOR EACH ROW BEGIN {'; '.join(statements)}; END"

    for statement in (
        trigger("article_insert", "INSERT ON article", write("NEW.id", NUMBER, "NEW.number")),
        # An article given a new id keeps its designations' rows: their keys follow it.
        trigger(
            "article_update",
            "UPDATE OF id, number ON article",
            remove("OLD.id", NUMBER),
            "UPDATE article_search_key SET article_id = NEW.id WHERE article_id = OLD.id",
            write("NEW.id", NUMBER, "NEW.number"),
        ),
        trigger(
            "article_delete",
            "DELETE ON article",
            "DELETE FROM article_search WHERE rowid IN (SELECT id FROM article_search_key WHERE article_id = OLD.id)",
            "DELETE FROM article_search_key WHERE article_id = OLD.id",
        ),
        trigger(
            "designation_insert", "INSERT ON article_designation", write("NEW.article_id", "NEW.language", "NEW.text")
        ),
        trigger(
            "designation_update",
            "UPDATE ON article_designation",
            remove("OLD.article_id", "OLD.language"),
            write("NEW.article_id", "NEW.language", "NEW.text"),
        ),
        trigger("designation_delete", "DELETE ON article_designation", remove("OLD.article_id", "OLD.language")),
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
    op.execute("DROP TABLE article_search_key")
