"""The statement of bench/database_json/main.py: one SELECT that makes the database write the `data` of the page
`GET /www/artikel?limit=N` (every field, German, the leading currency, the default price list) as JSON text,
for SQLite (json_object, json_group_array) and PostgreSQL (json_build_object, json_agg). Each part (tiers,
stock, units, attributes) is read once for the whole page and grouped per article, as the data layer's batched
reads are; a statement with a subquery per article and unit, measured first, cost SQLite 1.1-1.4x the REST
route's CPU. SQLite 3.40 has no ORDER BY inside an aggregate: its arrays come in their subquery's order, which
SQLite keeps but does not promise (the benchmark's check would notice).

It writes what rest_compat's article structure holds, in its key order, by the rules datasources/catalogue
applies in Python: ArtBez in German, the standard tax rate where the article has no tax code, HatVPE from any
packaging unit, the units WEBSHOPVPE lets through (all when it lists none), Preis left out where there is no
tier and BisAnzahl on a range's last tier, tiers by (range, quantity), stock in released warehouses net of
reservations, rounded half away from zero. It is a measurement of that route, not a second implementation to
serve from: it knows only the default view, and an ArtNr that needs percent-encoding in a link is not
encoded (the benchmark checks its body against the REST route's, so a catalogue where that matters fails the
check rather than giving a figure for a different page).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

Pairs = Iterable[tuple[str, str]]  # a JSON object's keys and the SQL of their values, in order


@dataclass(frozen=True)
class JsonSql:
    """How one database writes JSON."""

    name: str  # "sqlite" or "postgresql"

    @property
    def sqlite(self) -> bool:
        return self.name == "sqlite"

    def object(self, pairs: Pairs) -> str:
        function = "json_object" if self.sqlite else "json_build_object"
        arguments = ", ".join(f"'{key}', {value}" for key, value in pairs)
        return f"{function}({arguments})"

    def each(self, table: str, alias: str, condition: str) -> str:
        """`table`'s rows for each of the page's articles, found by index: the page's few articles first. Left to
        themselves, SQLite scans a whole table (every price) and looks each row up in the page, and
        PostgreSQL at 20,000 articles hashes every price (its estimate of the page is its whole limit)."""
        if self.sqlite:
            return f"CROSS JOIN {table} {alias} ON {condition}"  # SQLite's CROSS JOIN keeps the order
        # OFFSET 0: a fence, or PostgreSQL pulls the subquery up into a plain join and plans that as before.
        return f"CROSS JOIN LATERAL (SELECT * FROM {table} {alias} WHERE {condition} OFFSET 0) {alias}"

    def nested(self, json: str) -> str:
        """A JSON value made by another expression: SQLite would otherwise quote its text as a string."""
        return f"json({json})" if self.sqlite else json

    def array(self, element: str, rows: str, order: str) -> str:
        """The JSON array of `element` for each row of `rows` (FROM ... WHERE ...), in `order`; [] for none."""
        if self.sqlite:  # SQLite 3.40 has no ORDER BY in aggregates: it aggregates in its subquery's order
            return f"(SELECT json_group_array(json(j)) FROM (SELECT {element} AS j {rows} ORDER BY {order}))"
        return f"(SELECT coalesce(json_agg({element} ORDER BY {order}), '[]'::json) {rows})"

    def grouped(self, element: str, rows: str, keys: tuple[str, ...], order: str) -> str:
        """Per value of `keys` (named as their columns), `json`: the array of `element` of its rows, in `order`."""
        named = ", ".join(f"{key} AS {key.split('.')[-1]}" for key in keys)
        names = ", ".join(key.split(".")[-1] for key in keys)
        if self.sqlite:
            ordered = f"SELECT {named}, {element} AS j {rows} ORDER BY {', '.join(keys)}, {order}"
            return f"SELECT {names}, json_group_array(json(j)) AS json FROM ({ordered}) GROUP BY {names}"
        return f"SELECT {named}, json_agg({element} ORDER BY {order}) AS json {rows} GROUP BY {', '.join(keys)}"

    def or_empty(self, json: str) -> str:
        return f"coalesce({json}, '[]')" if self.sqlite else f"coalesce({json}, '[]'::json)"

    def links(self, *pairs: tuple[str, str]) -> str:
        function = "json_array" if self.sqlite else "json_build_array"
        link = (self.object((("href", href), ("type", "'GET'"), ("rel", f"'{rel}'"))) for href, rel in pairs)
        return f"{function}({', '.join(link)})"

    def parameter(self, name: str, type_: str) -> str:
        """A parameter where PostgreSQL cannot tell its type from the expression around it."""
        return f":{name}" if self.sqlite else f"CAST(:{name} AS {type_})"

    def contains(self, text: str, part: str) -> str:
        return f"instr({text}, {part}) > 0" if self.sqlite else f"strpos({text}, {part}) > 0"

    def number(self, value: str) -> str:
        """A number the body prints as a float. PostgreSQL writes a float8 1.0 as 1, and its NUMERIC(14, 4) as
        1.0000, which parses as the float the gateway prints."""
        return f"CAST({value} AS REAL)" if self.sqlite else value

    def time(self, value: str) -> str:
        if self.sqlite:
            return f"strftime('%Y-%m-%dT%H:%M:%SZ', {value})"
        return f"""to_char({value}, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')"""

    def same(self, left: str, right: str) -> str:
        """NULL-safe equality."""
        return f"{left} IS {right}" if self.sqlite else f"{left} IS NOT DISTINCT FROM {right}"


def _to_article(sql: JsonSql, number: str) -> str:
    return sql.links((f"{sql.parameter('base', 'text')} || '/www/artikel/' || {number}", "artikel"))


def _tiers(sql: JsonSql) -> str:
    """Per article and unit (NULL: the base unit), its price tiers in the request's currency and list."""
    tier = [
        ("ArtNr", "t.number"),
        ("Bereich", "t.price_range"),
        ("AbAnzahl", sql.number("t.min_quantity")),
        ("BisAnzahl", sql.number("t.next_min")),
        ("PreisList", sql.number("t.amount")),
        ("Preisart", "t.price_kind"),
        ("VPEinheit", "t.packaging_unit"),
        ("GeaendertAmUTC", sql.time("t.modified_at")),
        ("links", _to_article(sql, "t.number")),
    ]
    last = [pair for pair in tier if pair[0] != "BisAnzahl"]  # a range's last tier has no BisAnzahl
    element = (
        f"CASE WHEN t.next_range = coalesce(t.price_range, '') THEN {sql.object(tier)} ELSE {sql.object(last)} END"
    )
    rows = (
        "FROM (SELECT r.article_id, r.packaging_unit, p.number, r.price_range, r.min_quantity, r.amount, "
        "r.modified_at, l.price_kind, lead(r.min_quantity) OVER w AS next_min, "
        "lead(coalesce(r.price_range, '')) OVER w AS next_range "
        f"FROM shown p {sql.each('price', 'r', 'r.article_id = p.id')} JOIN price_list l ON l.id = r.price_list_id "
        "WHERE r.currency = :currency AND r.price_list_id = :price_list "
        "WINDOW w AS (PARTITION BY r.article_id, r.packaging_unit "
        "ORDER BY coalesce(r.price_range, ''), r.min_quantity)) t"
    )
    return sql.grouped(
        element, rows, ("t.article_id", "t.packaging_unit"), "coalesce(t.price_range, ''), t.min_quantity"
    )


def _stock(sql: JsonSql) -> str:
    """Per article and unit, its stock in released warehouses, net of reservations."""
    reserved = (
        "(SELECT coalesce(sum(v.quantity), 0) FROM reservation v WHERE v.article_id = s.article_id "
        f"AND v.warehouse_id = s.warehouse_id AND {sql.same('v.packaging_unit', 's.packaging_unit')})"
    )
    entry = [
        ("ArtNr", "p.number"),
        ("LagerOrt", "w.name"),
        ("StaoNr", "w.location_number"),
        ("LagerBestand", f"CAST(round(s.on_hand - {reserved}) AS INTEGER)"),
        ("VPEinheit", "s.packaging_unit"),
        ("Bereich", "s.stock_range"),
        ("links", _to_article(sql, "p.number")),
    ]
    rows = (
        f"FROM shown p {sql.each('stock', 's', 's.article_id = p.id')} "
        "JOIN warehouse w ON w.id = s.warehouse_id WHERE w.released"
    )
    return sql.grouped(
        sql.object(entry), rows, ("s.article_id", "s.packaging_unit"), "w.location_number, w.name, s.packaging_unit"
    )


def _units(sql: JsonSql) -> str:
    """Per article, its visible packaging units, each with its tiers (when it has any) and its stock."""
    head = [
        ("VPEinheit", "u.code"),
        ("VPEEANNr", "u.ean"),
        ("VPBezeichnung", "u.designation"),
        ("Faktor", sql.number("u.factor")),
        ("Gewicht", sql.number("u.weight_factor")),
        ("VPEGewicht", sql.number("u.weight")),
        ("GewichtInhalt", sql.number("u.content_weight")),
    ]
    stock = ("Bestand", sql.nested(sql.or_empty("s.json")))
    with_tiers = sql.object([*head, ("Preis", sql.nested("t.json")), stock])
    element = f"CASE WHEN t.json IS NULL THEN {sql.object([*head, stock])} ELSE {with_tiers} END"
    # WEBSHOPVPE: the codes it lists (comma-separated, any case) are shown; empty or absent, all are.
    listed = "upper(replace(x.contents, ' ', ''))"
    among = sql.contains(f"',' || {listed} || ','", "',' || upper(u.code) || ','")
    rows = (
        f"FROM shown p {sql.each('packaging_unit', 'u', 'u.article_id = p.id')} "
        "LEFT JOIN article_attribute x ON x.article_id = u.article_id AND x.\"key\" = 'WEBSHOPVPE' "
        "LEFT JOIN page_tiers t ON t.article_id = u.article_id AND t.packaging_unit = u.code "
        "LEFT JOIN page_stock s ON s.article_id = u.article_id AND s.packaging_unit = u.code "
        f"WHERE (x.contents IS NULL OR replace({listed}, ',', '') = '' OR {among})"
    )
    return sql.grouped(element, rows, ("u.article_id",), "u.factor, u.code")


def page_data(sql: JsonSql) -> str:
    """The page's `data` as JSON text, and how many rows the page read (one more than the page: whether
    another follows). Parameters: limit (the page's size plus one), shown (its size), currency, price_list,
    base. Each part is read once for the whole page and grouped per article, as the data layer's batches."""
    exposed = "EXISTS (SELECT 1 FROM article_attribute e WHERE e.article_id = a.id AND e.\"key\" = 'RESTWEBSHOP')"
    page = (
        "SELECT a.id, a.number, a.stock_managed, a.status, a.unit, a.colour, "
        "coalesce(c.rate, (SELECT s.rate FROM tax_code s WHERE s.is_standard)) AS tax_rate, "
        'a."group" AS article_group, a.article_class, a.procurement_type, a.processing_type, a.modified_at, '
        "(SELECT d.text FROM article_designation d WHERE d.article_id = a.id AND d.language = 'ger') AS designation, "
        "k.designation AS sort_designation, k.number AS sort_number "
        "FROM article a LEFT JOIN tax_code c ON c.code = a.tax_code "
        "JOIN article_sort_key k ON k.article_id = a.id AND k.language = 'ger' "
        f"WHERE {exposed} ORDER BY k.designation, k.number LIMIT :limit"
    )
    shown = "SELECT * FROM page ORDER BY sort_designation, sort_number LIMIT :shown"
    attributes = sql.grouped(
        sql.object((("Contents", "x.contents"), ("PHKey", 'x."key"'))),
        f"FROM shown p {sql.each('article_attribute', 'x', 'x.article_id = p.id')}",
        ("x.article_id",),
        'x."key"',
    )
    head = [
        ("ArtNr", "p.number"),
        ("AnLager", "CASE WHEN p.stock_managed THEN 'J' ELSE 'N' END"),
        ("ArtBez", "p.designation"),
        ("ArtikelStatus", "p.status"),
        ("Einheit", "p.unit"),
        ("Farbe", "p.colour"),
        ("WUSTSatz", sql.number("p.tax_rate")),
        ("GeaendertAmUTC", sql.time("p.modified_at")),
        ("ArtGruppe", "p.article_group"),
        ("ArtKlasse", "p.article_class"),
        ("WaehrAbk", sql.parameter("currency", "text")),
        ("BeschaffungsArt", "p.procurement_type"),
        ("VerarbeitungsArt", "p.processing_type"),
        (
            "links",
            sql.links(
                (f"{sql.parameter('base', 'text')} || '/www/artikel/' || p.number", "artikel"),
                (f"{sql.parameter('base', 'text')} || '/www/artikelmedia/' || p.number", "artikelmedia"),
            ),
        ),
        ("attributes", sql.nested(sql.or_empty("x.json"))),
    ]
    with_units = sql.object([*head, ("HatVPE", "'J'"), ("Verpackungen", sql.nested(sql.or_empty("u.json")))])
    without_units = [*head, ("HatVPE", "'N'")]
    stock = ("Bestand", sql.nested(sql.or_empty("s.json")))
    with_tiers = sql.object([*without_units, ("Preis", sql.nested("t.json")), stock])
    has_units = "EXISTS (SELECT 1 FROM packaging_unit h WHERE h.article_id = p.id)"
    article = (
        f"CASE WHEN {has_units} THEN {with_units} "
        f"WHEN t.json IS NULL THEN {sql.object([*without_units, stock])} ELSE {with_tiers} END"
    )
    rows = (
        "FROM shown p LEFT JOIN page_units u ON u.article_id = p.id LEFT JOIN page_attributes x ON x.article_id = p.id "
        "LEFT JOIN page_tiers t ON t.article_id = p.id AND t.packaging_unit IS NULL "
        "LEFT JOIN page_stock s ON s.article_id = p.id AND s.packaging_unit IS NULL"
    )
    data = sql.array(article, rows, "p.sort_designation, p.sort_number")
    parts = {
        "page": page,
        "shown": shown,
        "page_tiers": _tiers(sql),
        "page_stock": _stock(sql),
        "page_units": _units(sql),
        "page_attributes": attributes,
    }
    # Materialised (the default for a part used twice), SQLite ran the page's parts four times slower: each
    # lookup into a materialised part went through an automatic index over its JSON. Only the page itself,
    # counted too, is kept. PostgreSQL does better with its default (hash joins over the parts).
    inlined = "NOT MATERIALIZED " if sql.sqlite else ""
    with_ = ", ".join(f"{name} AS {'' if name == 'page' else inlined}({select})" for name, select in parts.items())
    return f"WITH {with_} SELECT {data}, (SELECT count(*) FROM page)"


def numbered(statement: str, values: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """The statement with PostgreSQL's $n placeholders for its :names, and the values in their order."""
    names: list[str] = []

    def placeholder(match: re.Match[str]) -> str:
        if match[1] not in names:
            names.append(match[1])
        return f"${names.index(match[1]) + 1}"

    text = re.sub(r"(?<!:):([a-z_]+)", placeholder, statement)
    return text, [values[name] for name in names]
