"""The article search: ArtNr, or a designation in any language, contains a text; both folded (folding.py).

A term with three ASCII characters in a row is looked up in the search's trigram index
(datasources/models/article_search.py): the index gives the candidates, and the folded comparison decides
among them, so a search reads about what it finds. A term without (`ö`, `42`, `öl`: too short for a
trigram) is compared on the articles in the list's order until the page is full, as before the index:
such a term is common, and its page fills early. An indexed term's count (`totalCount`) reads what it finds
too; a term without the index is counted on every article.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from sqlalchemy import (
    ColumnElement,
    Select,
    String,
    and_,
    bindparam,
    column,
    exists,
    literal_column,
    or_,
    select,
    table,
    union,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import aliased
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal

from datasources.folding import (
    ASCII_FROM_OTHERS,
    contains_folded,
    contains_pattern,
    fold,
    fold_text,
    folded_value,
    like_pattern,
)
from datasources.models import Article, ArticleDesignation
from datasources.models.article_search import SEARCH_KEY_TABLE, SEARCH_TABLE

# How a page's search is made: compared on the articles in order, or through the index.
SearchKind = Literal["compared", "indexed"]
_TRIGRAM = 3
# Runs of ASCII characters: those the index compares in either case once U+0130 and U+212A are written as
# the letters they fold to, as the index's text does (migration 0009).
_RUN = re.compile(rf"[\x00-\x7f]{{{_TRIGRAM},}}")
assert frozenset("ik") == ASCII_FROM_OTHERS, "the index's text maps exactly these (migration 0009)"


def search_kind(search: str) -> SearchKind:
    """How a search for `search` is made: through the index where the folded term has a run for it."""
    return "indexed" if _RUN.search(_folded(search)) else "compared"


def _folded(search: str) -> str:
    folded = fold_text(search)
    assert folded is not None
    return folded


def search_values(search: str) -> dict[str, Any]:
    """The statement's values for a search for `search`."""
    folded = _folded(search)
    values = {"search": search.strip(), "pattern": contains_pattern(folded), "prefilter": like_pattern(folded)}
    runs = _RUN.findall(folded)
    if runs:
        # FTS5's query: every run as a phrase (a trigram phrase matches where the text holds it).
        values["trigrams"] = " AND ".join('"{}"'.format(run.replace('"', '""')) for run in runs)
    return values


def search_condition(kind: SearchKind) -> ColumnElement[bool]:
    # `pattern` is the term's, as its database folds it (folding.folded_value).
    pattern = folded_value(bindparam("search", type_=String()), bindparam("pattern", type_=String()), is_pattern=True)
    prefilter = bindparam("prefilter", type_=String())
    in_designation = exists().where(
        ArticleDesignation.article_id == Article.id,
        contains_folded(ArticleDesignation.text, pattern, prefilter),
    )
    matches = or_(contains_folded(Article.number, pattern, prefilter), in_designation)
    return matches if kind == "compared" else _Indexed(matches, pattern)


class _Indexed(ColumnElement[bool]):
    """`matches`, the folded comparison, made on the articles the search's index gives for the term.

    SQLite: the articles of the FTS5 table's texts that hold every run of the term (`trigrams`), compared.
    PostgreSQL: the articles whose folded ArtNr or designation is `LIKE` the pattern, which the trigram indexes
    serve and which is the comparison itself; made into an array first, so that the planner reads the page's
    articles by their ids and sorts them. Given as `IN (...)`, PostgreSQL walked the list's order instead,
    comparing each article with every match: 20-30 s for a term some thousand of 200,000 articles have."""

    inherit_cache = True
    _traverse_internals = [
        ("matches", InternalTraversal.dp_clauseelement),
        ("pattern", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, matches: ColumnElement[bool], pattern: ColumnElement[str]) -> None:
        self.matches = matches
        self.pattern = pattern


@compiles(_Indexed, "sqlite")
def _indexed_sqlite(element: _Indexed, compiler: SQLCompiler, **kw: Any) -> str:
    key = table(SEARCH_KEY_TABLE, column("id"), column("article_id"))
    found: Select[tuple[Any]] = (
        select(key.c.article_id)
        .join(table(SEARCH_TABLE), literal_column(f"{SEARCH_TABLE}.rowid") == key.c.id)
        .where(literal_column(SEARCH_TABLE).op("MATCH")(bindparam("trigrams", type_=String())))
    )
    return compiler.process(and_(Article.id.in_(found), element.matches), **kw)


@compiles(_Indexed)
def _indexed_default(element: _Indexed, compiler: SQLCompiler, **kw: Any) -> str:
    article, designation = aliased(Article), aliased(ArticleDesignation)
    found = union(
        select(article.id).where(fold(article.number).like(element.pattern, escape="\\")),
        select(designation.article_id).where(fold(designation.text).like(element.pattern, escape="\\")),
    )
    return f"{compiler.process(Article.id.expression, **kw)} = ANY(ARRAY({compiler.process(found, **kw)}))"
