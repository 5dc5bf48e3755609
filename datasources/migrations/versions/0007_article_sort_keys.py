"""article sort keys: an index for every sort of the article list, kept by triggers

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 09:00:00

A page of the article list reads its rows in order from an index and stops after the page (see
datasources/models/article_order.py). Plain columns of `article` get an index per direction, ties in ArtNr
order. ArtBez in the output language (with its German fallback) and the effective tax rate are not columns
of `article`: `article_sort_key` keeps them per article and language, `article_sort_language` lists the
languages it has rows in. Triggers keep both current on every write to article, article_designation and
tax_code, whoever writes; existing rows are filled here. The statistics are renewed at the end: SQLite's
planner, given statistics for the old indexes and none for the new, would take the new ones for needles
in the haystack and sort anyway.
"""

# Every statement is made of constants of this file.
# ruff: noqa: S608

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

GERMAN = "'ger'"
# (name, column, nullable) of the sortable columns of `article`.
ARTICLE_COLUMNS = (
    ("group", '"group"', True),
    ("article_class", "article_class", True),
    ("unit", "unit", False),
    ("status", "status", False),
    ("colour", "colour", True),
    ("stock_managed", "stock_managed", False),
    ("procurement_type", "procurement_type", True),
    ("processing_type", "processing_type", False),
    ("weight", "weight", True),
    ("modified_at", "modified_at", False),
)


def designation(article: str, language: str) -> str:
    """ArtBez of `article` as output in `language`: its text there, else the German one, else ''."""
    return (
        f"coalesce((SELECT d.text FROM article_designation d WHERE d.article_id = {article} AND d.language = "
        f"{language}), (SELECT d.text FROM article_designation d WHERE d.article_id = {article} AND d.language "
        f"= {GERMAN}), '')"
    )


def tax_rate(code: str) -> str:
    """The rate of tax code `code`, else the standard rate (WUSTSatz as output)."""
    return (
        f"coalesce((SELECT t.rate FROM tax_code t WHERE t.code = {code}), "
        "(SELECT t.rate FROM tax_code t WHERE t.is_standard))"
    )


def keys_of_articles(language: str, source: str = "article_sort_language l") -> str:
    """INSERT the keys of every article in the languages `language` names in `source`."""
    return (
        "INSERT INTO article_sort_key (article_id, language, designation, tax_rate, number) "
        f"SELECT a.id, {language}, {designation('a.id', language)}, {tax_rate('a.tax_code')}, a.number "
        f"FROM {source} CROSS JOIN article a"
    )


def keys_of_new_article() -> str:
    return (
        "INSERT INTO article_sort_key (article_id, language, designation, tax_rate, number) "
        f"SELECT NEW.id, l.language, {designation('NEW.id', 'l.language')}, {tax_rate('NEW.tax_code')}, "
        "NEW.number FROM article_sort_language l"
    )


def refresh_designations(row: str) -> str:
    """The designation keys that a change of designation `row` (NEW or OLD) can change: those of its
    language, and where it is German, those of every language of the article (they may fall back to it)."""
    return (
        f"UPDATE article_sort_key SET designation = "
        f"{designation('article_sort_key.article_id', 'article_sort_key.language')} "
        f"WHERE article_id = {row}.article_id AND (language = {row}.language OR {row}.language = {GERMAN})"
    )


def refresh_tax_rates(distinct: str) -> str:
    rate = f"(SELECT {tax_rate('a.tax_code')} FROM article a WHERE a.id = article_sort_key.article_id)"
    return f"UPDATE article_sort_key SET tax_rate = {rate} WHERE tax_rate {distinct} {rate}"


def upgrade() -> None:
    op.create_table(
        "article_sort_language",
        sa.Column("language", sa.String(length=3), nullable=False),
        sa.PrimaryKeyConstraint("language", name=op.f("pk_article_sort_language")),
    )
    op.create_table(
        "article_sort_key",
        sa.Column("article_id", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(length=3), nullable=False),
        sa.Column("designation", sa.String(length=255), nullable=False),
        sa.Column("tax_rate", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("number", sa.String(length=15), nullable=False),
        sa.ForeignKeyConstraint(
            ["article_id"], ["article.id"], name=op.f("fk_article_sort_key_article_id_article"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("article_id", "language", name=op.f("pk_article_sort_key")),
    )
    op.execute(
        f"INSERT INTO article_sort_language (language) SELECT {GERMAN} "
        "UNION SELECT DISTINCT language FROM article_designation"
    )
    op.execute(keys_of_articles("l.language"))
    postgresql = op.get_bind().dialect.name == "postgresql"
    for statement in _indexes(postgresql):
        op.execute(statement)
    for statement in _postgresql_triggers() if postgresql else _sqlite_triggers():
        op.execute(statement)
    for table in ("article", "article_sort_key", "article_sort_language"):
        op.execute(f"ANALYZE {table}")


def _indexes(postgresql: bool) -> list[str]:
    # SQLite puts NULLs first ascending and last descending by itself, and refuses the words in an index.
    first, last = (" NULLS FIRST", " NULLS LAST") if postgresql else ("", "")
    keys = [("designation", "designation", False), ("tax_rate", "tax_rate", True)]
    statements = []
    for table, prefix, columns in (("article", "ix_article_order", ARTICLE_COLUMNS),
                                   ("article_sort_key", "ix_article_sort_key", keys)):  # fmt: skip
        lead = "language, " if table == "article_sort_key" else ""
        for name, column, nullable in columns:
            ascending, descending = (f"{column}{first}", f"{column} DESC{last}") if nullable else (column, column)
            descending = descending if nullable else f"{column} DESC"
            statements.append(f"CREATE INDEX {prefix}_{name} ON {table} ({lead}{ascending}, number)")
            statements.append(f"CREATE INDEX {prefix}_{name}_desc ON {table} ({lead}{descending}, number)")
    return statements


def _new_language(row: str) -> list[str]:
    """A designation in a language seen for the first time: every article gets its keys in it. The
    language comes first in the join (SQLite keeps a CROSS JOIN's order), so a known one reads no article."""
    absent = f"NOT EXISTS (SELECT 1 FROM article_sort_language WHERE language = {row}.language)"
    return [
        keys_of_articles("added.language", f"(SELECT {row}.language AS language WHERE {absent}) AS added"),
        f"INSERT INTO article_sort_language (language) SELECT {row}.language WHERE {absent}",
    ]


def _sqlite_triggers() -> list[str]:
    def trigger(name: str, event: str, *statements: str) -> str:
        body = "; ".join(statements)
        return f"CREATE TRIGGER {name} AFTER {event} FOR EACH ROW BEGIN {body}; END"

    return [
        trigger("article_sort_key_article_insert", "INSERT ON article", keys_of_new_article()),
        trigger(
            "article_sort_key_article_update",
            "UPDATE OF number, tax_code ON article",
            f"UPDATE article_sort_key SET number = NEW.number, tax_rate = {tax_rate('NEW.tax_code')} "
            "WHERE article_id = NEW.id",
        ),
        trigger(
            "article_sort_key_designation_insert",
            "INSERT ON article_designation",
            *_new_language("NEW"),
            refresh_designations("NEW"),
        ),
        trigger(
            "article_sort_key_designation_update",
            "UPDATE ON article_designation",
            *_new_language("NEW"),
            refresh_designations("OLD"),
            refresh_designations("NEW"),
        ),
        trigger("article_sort_key_designation_delete", "DELETE ON article_designation", refresh_designations("OLD")),
        *(
            trigger(f"article_sort_key_tax_code_{event.lower()}", f"{event} ON tax_code", refresh_tax_rates("IS NOT"))
            for event in ("INSERT", "UPDATE", "DELETE")
        ),
    ]


def _postgresql_triggers() -> list[str]:
    def function(name: str, body: str) -> str:
        # Planned on every call: a plan kept from a call on a small table would read a large one in full
        # (a bulk load then takes quadratic time; the statistics say "small" until the next ANALYZE). No
        # JIT: compiling the statement that fills a new language, costed for the whole catalogue, took
        # 10 ms per call.
        return (
            f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql "
            f"SET plan_cache_mode = force_custom_plan SET jit = off AS $$ BEGIN {body} RETURN NULL; END $$"
        )

    new_language = (
        "IF NOT EXISTS (SELECT 1 FROM article_sort_language WHERE language = NEW.language) THEN "
        f"{keys_of_articles('NEW.language', '(SELECT 1) AS added')}; "
        "INSERT INTO article_sort_language (language) VALUES (NEW.language) ON CONFLICT DO NOTHING; END IF;"
    )
    return [
        function(
            "article_sort_key_on_article",
            f"IF TG_OP = 'INSERT' THEN {keys_of_new_article()}; ELSE UPDATE article_sort_key SET number = "
            f"NEW.number, tax_rate = {tax_rate('NEW.tax_code')} WHERE article_id = NEW.id; END IF;",
        ),
        "CREATE TRIGGER article_sort_key_on_article AFTER INSERT OR UPDATE OF number, tax_code ON article "
        "FOR EACH ROW EXECUTE FUNCTION article_sort_key_on_article()",
        function(
            "article_sort_key_on_designation",
            f"IF TG_OP <> 'INSERT' THEN {refresh_designations('OLD')}; END IF; "
            f"IF TG_OP <> 'DELETE' THEN {new_language} {refresh_designations('NEW')}; END IF;",
        ),
        "CREATE TRIGGER article_sort_key_on_designation AFTER INSERT OR UPDATE OR DELETE ON article_designation "
        "FOR EACH ROW EXECUTE FUNCTION article_sort_key_on_designation()",
        # Tax codes change seldom: every article is looked at, only changed keys are written.
        function("article_sort_key_on_tax_code", f"{refresh_tax_rates('IS DISTINCT FROM')};"),
        "CREATE TRIGGER article_sort_key_on_tax_code AFTER INSERT OR UPDATE OR DELETE ON tax_code "
        "FOR EACH STATEMENT EXECUTE FUNCTION article_sort_key_on_tax_code()",
    ]


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table, name in (("article", "article"), ("article_designation", "designation"), ("tax_code", "tax_code")):
            op.execute(f"DROP TRIGGER article_sort_key_on_{name} ON {table}")
            op.execute(f"DROP FUNCTION article_sort_key_on_{name}()")
    else:
        for name in ("article_insert", "article_update", "designation_insert", "designation_update",
                     "designation_delete", "tax_code_insert", "tax_code_update", "tax_code_delete"):  # fmt: skip
            op.execute(f"DROP TRIGGER article_sort_key_{name}")
    for name, _, _ in ARTICLE_COLUMNS:
        op.execute(f"DROP INDEX ix_article_order_{name}")
        op.execute(f"DROP INDEX ix_article_order_{name}_desc")
    op.drop_table("article_sort_key")
    op.drop_table("article_sort_language")
