"""The effective view of the catalogue for one request: language, currency and price-list chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, select, true

from datasources import iso
from datasources.errors import NotFound
from datasources.models import Currency, Customer, PriceList
from datasources.reads import Query, Reads, Row

DEFAULT_LANGUAGE = "ger"


@dataclass(frozen=True, slots=True)
class CatalogueView:
    language: str
    currency: str
    # Price lists to try in order: the customer's list type, then the configured default.
    price_list_ids: tuple[int, ...]


# Everything a view needs in one statement: the leading currency (unique, or none) beside every price list,
# one row when there is none; with a customer number, the customer beside them too (NULLs: no such customer).
_LEADING = select(Currency.code).where(Currency.is_leading).scalar_subquery()


def _view_query(customer: bool) -> Query:
    view = select(_LEADING.label("leading")).subquery("view")
    columns = [view.c.leading, PriceList.id, PriceList.list_type, PriceList.is_default]
    stmt = select(*columns).select_from(view)
    if customer:
        stmt = stmt.add_columns(Customer.number, Customer.language, Customer.price_list_type).outerjoin(
            Customer, Customer.number == bindparam("number")
        )
    return Query(stmt.outerjoin(PriceList, true()).order_by(PriceList.id))


_VIEW = _view_query(customer=False)
_CUSTOMER_VIEW = _view_query(customer=True)


def output_language(language: str | None) -> str:
    """The output language asked for (adrsprache), checked; German by default. A customer's own language
    wins over it (resolve_view)."""
    return iso.language(language, field="language") if language else DEFAULT_LANGUAGE


async def resolve_view(
    reads: Reads,
    *,
    language: str | None = None,
    currency: str | None = None,
    customer_number: str | None = None,
) -> CatalogueView:
    lang = output_language(language)
    code = iso.currency(currency, field="currency") if currency else None
    customer_list_type: str | None = None
    if customer_number is None:
        rows = await reads.rows(_VIEW)
    else:
        rows = await reads.rows(_CUSTOMER_VIEW, number=customer_number)
        found, customer_language, customer_list_type = rows[0][4:7]
        if found is None:
            raise NotFound(f"customer {customer_number!r} does not exist", field="customerNumber")
        lang = customer_language  # the customer's own language has priority over the one asked for
    if code is None:
        code = rows[0][0] or "CHF"
    lists = [row[1:4] for row in rows if row[1] is not None]
    return CatalogueView(lang, code, _price_list_chain(lists, customer_list_type))


def _price_list_chain(rows: Sequence[Row], list_type: str | None) -> tuple[int, ...]:
    chain = [list_id for list_id, type_, _ in rows if list_type is not None and type_ == list_type]
    chain += [list_id for list_id, _, is_default in rows if is_default and list_id not in chain]
    return tuple(chain)
