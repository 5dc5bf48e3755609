"""article listing: every index of the article list leads with the exposure; text sorts by code point

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-29 09:00:00

A shop exposes a part of the ERP's catalogue (the attribute RESTWEBSHOP). The list's indexes (0007) held every
article, so with 1 in 100 exposed a page walked a hundred articles for each one it kept, or the planner read
the exposed ones and sorted them: both grow with the catalogue. Now the exposure is kept beside every sort
key, and every index of the list leads with it (see datasources/models/article_order.py):

- `article_sort_key` (per article and language) gains `exposed`; its indexes become (exposed, language,
  key, ArtNr).
- `article_listing` (new, per article) holds `exposed`, ArtNr and copies of the sortable columns of
  `article`, with an index (exposed, key, ArtNr) per key and direction; the indexes 0007 made on `article`
  are dropped.

Triggers keep both current: on `article_attribute` (the exposure), on `article` (the copies, and the keys of a
new article), on `article_designation` (the keys of a new language, now with their exposure). On PostgreSQL
the text columns of both tables get the collation "C": byte order, which is code-point order in UTF-8, as
SQLite compares, whatever collation the database was created with.
"""

# Every statement is made of constants of this file.
# ruff: noqa: S608

from __future__ import annotations

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

GERMAN = "'ger'"
EXPOSED_ATTRIBUTE = "'RESTWEBSHOP'"
# (name, SQL name, type, nullable) of the sortable columns of `article`, copied into `article_listing`.
LISTED = (
    ("number", "number", "VARCHAR(15)", False),
    ("group", '"group"', "VARCHAR(15)", True),
    ("article_class", "article_class", "VARCHAR(12)", True),
    ("unit", "unit", "VARCHAR(12)", False),
    ("status", "status", "INTEGER", False),
    ("colour", "colour", "VARCHAR(12)", True),
    ("stock_managed", "stock_managed", "BOOLEAN", False),
    ("procurement_type", "procurement_type", "VARCHAR(1)", True),
    ("processing_type", "processing_type", "VARCHAR(1)", False),
    ("weight", "weight", "NUMERIC(14, 4)", True),
    ("modified_at", "modified_at", "DATETIME", False),
)
# The keys of 0007 on `article_sort_key`: (name, nullable).
KEYED = (("designation", False), ("tax_rate", True))
# The indexes 0007 made on `article`, now on `article_listing`.
OLD_ARTICLE_INDEXES = tuple(name for name, *_ in LISTED if name != "number")


def exposure(article: str) -> str:
    """Whether `article` (an id) is exposed: it has the attribute RESTWEBSHOP."""
    return (
        f'EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = {article} AND x."key" = {EXPOSED_ATTRIBUTE})'
    )


def designation(article: str, language: str) -> str:
    """ArtBez of `article` as output in `language`: its text there, else the German one, else '' (as 0007)."""
    return (
        f"coalesce((SELECT d.text FROM article_designation d WHERE d.article_id = {article} AND d.language = "
        f"{language}), (SELECT d.text FROM article_designation d WHERE d.article_id = {article} AND d.language "
        f"= {GERMAN}), '')"
    )


def tax_rate(code: str) -> str:
    """The rate of tax code `code`, else the standard rate (as 0007)."""
    return (
        f"coalesce((SELECT t.rate FROM tax_code t WHERE t.code = {code}), "
        "(SELECT t.rate FROM tax_code t WHERE t.is_standard))"
    )


_KEY_COLUMNS = "article_id, language, designation, tax_rate, number, exposed"


def keys_of_articles(language: str, source: str) -> str:
    """INSERT the keys of every article in the languages `language` names in `source` (0007's, with exposure)."""
    return (
        f"INSERT INTO article_sort_key ({_KEY_COLUMNS}) SELECT a.id, {language}, {designation('a.id', language)}, "
        f"{tax_rate('a.tax_code')}, a.number, {exposure('a.id')} FROM {source} CROSS JOIN article a"
    )


def keys_of_new_article() -> str:
    return (
        f"INSERT INTO article_sort_key ({_KEY_COLUMNS}) SELECT NEW.id, l.language, "
        f"{designation('NEW.id', 'l.language')}, {tax_rate('NEW.tax_code')}, NEW.number, {exposure('NEW.id')} "
        "FROM article_sort_language l"
    )


def listing_of(row: str) -> str:
    """INSERT the listing row of `row` (NEW in a trigger, `a` over `article`)."""
    names = ", ".join(column for _, column, _, _ in LISTED)
    values = ", ".join(f"{row}.{column}" for _, column, _, _ in LISTED)
    return (
        f"INSERT INTO article_listing (article_id, exposed, {names}) SELECT {row}.id, {exposure(row + '.id')}, {values}"
    )


def copy_listed() -> str:
    assignments = ", ".join(f"{column} = NEW.{column}" for _, column, _, _ in LISTED)
    return f"UPDATE article_listing SET {assignments} WHERE article_id = NEW.id"


def expose(article: str) -> list[str]:
    """Renew the exposure of `article` (an id) in both tables."""
    return [
        f"UPDATE {table} SET exposed = {exposure(article)} WHERE article_id = {article}"
        for table in ("article_listing", "article_sort_key")
    ]


def _new_language(row: str) -> list[str]:
    """A designation in a language seen for the first time: every article gets its keys in it (as 0007)."""
    absent = f"NOT EXISTS (SELECT 1 FROM article_sort_language WHERE language = {row}.language)"
    return [
        keys_of_articles("added.language", f"(SELECT {row}.language AS language WHERE {absent}) AS added"),
        f"INSERT INTO article_sort_language (language) SELECT {row}.language WHERE {absent}",
    ]


def _refresh_designations(row: str) -> str:
    """As 0007: the designation keys a change of designation `row` (NEW or OLD) can change."""
    return (
        f"UPDATE article_sort_key SET designation = "
        f"{designation('article_sort_key.article_id', 'article_sort_key.language')} "
        f"WHERE article_id = {row}.article_id AND (language = {row}.language OR {row}.language = {GERMAN})"
    )


def upgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    for name, _ in KEYED:
        op.execute(f"DROP INDEX ix_article_sort_key_{name}")
        op.execute(f"DROP INDEX ix_article_sort_key_{name}_desc")
    for name in OLD_ARTICLE_INDEXES:
        op.execute(f"DROP INDEX ix_article_order_{name}")
        op.execute(f"DROP INDEX ix_article_order_{name}_desc")
    op.add_column("article_sort_key", sa.Column("exposed", sa.Boolean(), server_default=sa.false(), nullable=False))
    op.execute(f"UPDATE article_sort_key SET exposed = {exposure('article_sort_key.article_id')}")
    _create_listing(postgresql)
    if postgresql:
        for column, length in (("designation", 255), ("number", 15)):
            op.execute(f'ALTER TABLE article_sort_key ALTER COLUMN {column} TYPE VARCHAR({length}) COLLATE "C"')
    for statement in _indexes(postgresql):
        op.execute(statement)
    for statement in _postgresql_triggers() if postgresql else _sqlite_triggers():
        op.execute(statement)
    for table in ("article_listing", "article_sort_key"):
        op.execute(f"ANALYZE {table}")


def _create_listing(postgresql: bool) -> None:
    def column(name: str, sql_type: str, nullable: bool) -> str:
        text = postgresql and sql_type.startswith("VARCHAR")
        sql_type = "TIMESTAMP WITHOUT TIME ZONE" if postgresql and sql_type == "DATETIME" else sql_type
        collation = ' COLLATE "C"' if text else ""
        return f"{name} {sql_type}{collation}{'' if nullable else ' NOT NULL'}"

    columns = ", ".join(column(sql_name, sql_type, nullable) for _, sql_name, sql_type, nullable in LISTED)
    false = "false" if postgresql else "0"
    op.execute(
        f"CREATE TABLE article_listing (article_id INTEGER NOT NULL, exposed BOOLEAN DEFAULT {false} NOT NULL, "
        f"{columns}, CONSTRAINT pk_article_listing PRIMARY KEY (article_id), "
        "CONSTRAINT fk_article_listing_article_id_article FOREIGN KEY(article_id) REFERENCES article (id) "
        "ON DELETE CASCADE)"
    )
    op.execute(listing_of("a") + " FROM article a")


def _indexes(postgresql: bool) -> list[str]:
    # SQLite puts NULLs first ascending and last descending by itself, and refuses the words in an index.
    first, last = (" NULLS FIRST", " NULLS LAST") if postgresql else ("", "")
    keyed = [(name, name, nullable) for name, nullable in KEYED]
    listed = [(name, column, nullable) for name, column, _, nullable in LISTED]
    statements = []
    for table, lead, columns in (("article_sort_key", "exposed, language", keyed),
                                 ("article_listing", "exposed", listed)):  # fmt: skip
        for name, column, nullable in columns:
            ascending, descending = (f"{column}{first}", f"{column} DESC{last}") if nullable else (column, column)
            descending = descending if nullable else f"{column} DESC"
            ties = "" if name == "number" else ", number"
            statements.append(f"CREATE INDEX ix_{table}_{name} ON {table} ({lead}, {ascending}{ties})")
            statements.append(f"CREATE INDEX ix_{table}_{name}_desc ON {table} ({lead}, {descending}{ties})")
    return statements


def _sqlite_triggers() -> list[str]:
    def trigger(name: str, event: str, *statements: str, when: str = "") -> str:
        condition = f" WHEN {when}" if when else ""
        return f"CREATE TRIGGER {name} AFTER {event} FOR EACH ROW{condition} BEGIN {'; '.join(statements)}; END"

    listed = ", ".join(column for _, column, _, _ in LISTED)
    is_exposing = f'"key" = {EXPOSED_ATTRIBUTE}'
    return [
        "DROP TRIGGER article_sort_key_article_insert",
        "DROP TRIGGER article_sort_key_designation_insert",
        "DROP TRIGGER article_sort_key_designation_update",
        trigger("article_sort_key_article_insert", "INSERT ON article", keys_of_new_article(), listing_of("NEW")),
        trigger("article_listing_article_update", f"UPDATE OF {listed} ON article", copy_listed()),
        trigger(
            "article_sort_key_designation_insert",
            "INSERT ON article_designation",
            *_new_language("NEW"),
            _refresh_designations("NEW"),
        ),
        trigger(
            "article_sort_key_designation_update",
            "UPDATE ON article_designation",
            *_new_language("NEW"),
            _refresh_designations("OLD"),
            _refresh_designations("NEW"),
        ),
        trigger(
            "article_exposure_insert",
            "INSERT ON article_attribute",
            *expose("NEW.article_id"),
            when=f"NEW.{is_exposing}",
        ),
        trigger(
            "article_exposure_update",
            "UPDATE OF article_id, key ON article_attribute",
            *expose("OLD.article_id"),
            *expose("NEW.article_id"),
            when=f"OLD.{is_exposing} OR NEW.{is_exposing}",
        ),
        trigger(
            "article_exposure_delete",
            "DELETE ON article_attribute",
            *expose("OLD.article_id"),
            when=f"OLD.{is_exposing}",
        ),
    ]


def _function(name: str, body: str) -> str:
    # As 0007: planned on every call, no JIT.
    return (
        f"CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql "
        f"SET plan_cache_mode = force_custom_plan SET jit = off AS $$ BEGIN {body} RETURN NULL; END $$"
    )


def _postgresql_triggers() -> list[str]:
    new_language = (
        "IF NOT EXISTS (SELECT 1 FROM article_sort_language WHERE language = NEW.language) THEN "
        f"{keys_of_articles('NEW.language', '(SELECT 1) AS added')}; "
        "INSERT INTO article_sort_language (language) VALUES (NEW.language) ON CONFLICT DO NOTHING; END IF;"
    )
    listed = ", ".join(column for _, column, _, _ in LISTED)
    is_exposing = f'"key" = {EXPOSED_ATTRIBUTE}'
    return [
        _function(
            "article_sort_key_on_article",
            f"IF TG_OP = 'INSERT' THEN {keys_of_new_article()}; {listing_of('NEW')}; ELSE UPDATE article_sort_key "
            f"SET number = NEW.number, tax_rate = {tax_rate('NEW.tax_code')} WHERE article_id = NEW.id; END IF;",
        ),
        _function("article_listing_on_article", f"{copy_listed()};"),
        f"CREATE TRIGGER article_listing_on_article AFTER UPDATE OF {listed} ON article "
        "FOR EACH ROW EXECUTE FUNCTION article_listing_on_article()",
        _function(
            "article_sort_key_on_designation",
            f"IF TG_OP <> 'INSERT' THEN {_refresh_designations('OLD')}; END IF; "
            f"IF TG_OP <> 'DELETE' THEN {new_language} {_refresh_designations('NEW')}; END IF;",
        ),
        _function(
            "article_exposure_on_attribute",
            f"IF TG_OP <> 'INSERT' AND OLD.{is_exposing} THEN {'; '.join(expose('OLD.article_id'))}; END IF; "
            f"IF TG_OP <> 'DELETE' AND NEW.{is_exposing} THEN {'; '.join(expose('NEW.article_id'))}; END IF;",
        ),
        "CREATE TRIGGER article_exposure_on_attribute AFTER INSERT OR UPDATE OR DELETE ON article_attribute "
        "FOR EACH ROW EXECUTE FUNCTION article_exposure_on_attribute()",
    ]


def downgrade() -> None:
    postgresql = op.get_bind().dialect.name == "postgresql"
    if postgresql:
        op.execute("DROP TRIGGER article_listing_on_article ON article")
        op.execute("DROP TRIGGER article_exposure_on_attribute ON article_attribute")
        for name in ("article_listing_on_article", "article_exposure_on_attribute"):
            op.execute(f"DROP FUNCTION {name}()")
    else:
        for name in ("article_listing_article_update", "article_exposure_insert", "article_exposure_update",
                     "article_exposure_delete", "article_sort_key_article_insert",
                     "article_sort_key_designation_insert", "article_sort_key_designation_update"):  # fmt: skip
            op.execute(f"DROP TRIGGER {name}")
    for name, _ in KEYED:
        op.execute(f"DROP INDEX ix_article_sort_key_{name}")
        op.execute(f"DROP INDEX ix_article_sort_key_{name}_desc")
    op.drop_table("article_listing")
    op.drop_column("article_sort_key", "exposed")
    if postgresql:
        for column, length in (("designation", 255), ("number", 15)):
            op.execute(f'ALTER TABLE article_sort_key ALTER COLUMN {column} TYPE VARCHAR({length}) COLLATE "default"')
    _restore_0007(postgresql)


def _restore_0007(postgresql: bool) -> None:
    """0007's indexes and the triggers this migration replaced, made by 0007's own code."""
    path = Path(__file__).with_name("0007_article_sort_keys.py")
    spec = importlib.util.spec_from_file_location("_migration_0007", path)
    assert spec is not None and spec.loader is not None
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    for statement in before._indexes(postgresql):
        op.execute(statement)
    if postgresql:
        replaced = ("article_sort_key_on_article", "article_sort_key_on_designation")
        for statement in before._postgresql_triggers():
            if statement.startswith("CREATE FUNCTION") and statement.split()[2].removesuffix("()") in replaced:
                op.execute(statement.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
        return
    for statement in before._sqlite_triggers():
        if statement.split()[2] in ("article_sort_key_article_insert", "article_sort_key_designation_insert",
                                    "article_sort_key_designation_update"):  # fmt: skip
            op.execute(statement)
