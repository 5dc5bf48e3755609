"""What the article search finds its candidates in, so that a search reads what it finds, not the catalogue.

The search (`ArticleFilter.search`) wants the articles whose ArtNr, or a designation in any language, contains
a text, both folded (datasources/folding.py). Without an index every search that does not fill its page early
reads every article: at 200,000 articles 1.8 s on SQLite and 2.7 s on PostgreSQL for a term that matches
nothing. Substrings need trigram indexes:

- PostgreSQL: GIN indexes of `pg_trgm` on the folded ArtNr and the folded designation, which serve the search's
  own `LIKE` (migration 0009 creates the extension; without the right to, it leaves them out and searches
  read the catalogue as before).
- SQLite: an FTS5 table with the `trigram` tokenizer, `article_search`, one row per text: an article's ArtNr
  and each of its designations. Its rowid is the id of the text's key in `article_search_key` (article id
  and language, '' for ArtNr; an INTEGER PRIMARY KEY, which VACUUM keeps). Triggers keep both current on
  every write, whoever writes (plain SQL: no gateway function, so the ERP's and the sqlite3 shell's writes
  keep them too); a write rewrites only its own text's row. Neither is a model: SQLAlchemy knows no virtual
  tables, and the key table exists on SQLite only; the migrations' comparison with the models leaves them
  and FTS5's own tables out (`unmodelled`).

The index gives candidates; the search's folded comparison still decides (datasources/catalogue/search.py).
"""

from __future__ import annotations

from sqlalchemy import Index

from datasources.folding import fold
from datasources.models.catalogue import Article, ArticleDesignation

SEARCH_TABLE = "article_search"
SEARCH_KEY_TABLE = "article_search_key"
# FTS5 makes these beside the table itself.
_SHADOW_TABLES = frozenset(f"{SEARCH_TABLE}_{part}" for part in ("config", "content", "data", "docsize", "idx"))

# GIN indexes of the folded columns (folding.fold, as the search compares them) with pg_trgm's operator class.
SEARCH_INDEXES = tuple(
    Index(name, fold(column).label("folded"), postgresql_using="gin", postgresql_ops={"folded": "gin_trgm_ops"}).ddl_if(
        dialect="postgresql"
    )
    for name, column in (
        ("ix_article_search_number", Article.number),
        ("ix_article_designation_search", ArticleDesignation.text),
    )
)


def unmodelled(name: str | None, type_: str) -> bool:
    """Whether a table of the database is one of the search's on SQLite (no model describes them)."""
    return type_ == "table" and (name in (SEARCH_TABLE, SEARCH_KEY_TABLE) or name in _SHADOW_TABLES)
