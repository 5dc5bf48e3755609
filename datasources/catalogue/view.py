"""The effective view of the catalogue for one request: language, currency and price-list chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, bindparam, select, true

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
    # The customer's price list type the chain starts with (None: no customer, or one without a type).
    price_list_type: str | None = None

    @property
    def key(self) -> tuple[str, str, str | None]:
        """What decides the view beside the articles' own data: a customer's language and list type, and
        the leading currency, move no article's change position (datasources/catalogue/versions.py). The
        price lists themselves do, for the articles with prices in them."""
        return self.language, self.currency, self.price_list_type


@dataclass(frozen=True, slots=True)
class ViewRequest:
    """The view a request asks for, its codes checked: the output language (German by default), a
    currency (None: the leading one) and a customer number (whose language wins)."""

    language: str
    currency: str | None
    customer_number: str | None

    @classmethod
    def of(cls, language: str | None, currency: str | None, customer_number: str | None) -> ViewRequest:
        checked = output_language(language)
        return cls(checked, iso.currency(currency, field="currency") if currency else None, customer_number)

    def key(self, leading: str | None, customer: Row | None) -> tuple[str, str, str | None]:
        """The view's key (CatalogueView.key) from the leading currency and, with a customer number, the
        customer's (number, language, price list type), all None when there is no such customer."""
        currency = self.currency or leading or "CHF"
        if self.customer_number is None:
            return self.language, currency, None
        found, language, list_type = customer or (None, None, None)
        if found is None:
            raise NotFound(f"customer {self.customer_number!r} does not exist", field="customerNumber")
        return str(language), currency, list_type  # the customer's own language has priority over the one asked


# Everything a view needs in one statement: the leading currency (unique, or none) beside every price list,
# one row when there is none; with a customer number, the customer beside them too (NULLs: no such customer).
LEADING = select(Currency.code).where(Currency.is_leading).scalar_subquery()


def view_statement(customer: bool) -> Select[Any]:
    """The view's rows: (leading, list_id, list_type, is_default), with a customer (the parameter `customer`)
    its (customer_number, customer_language, customer_list_type) after them; ordered by list."""
    view = select(LEADING.label("leading")).subquery("view")
    columns = [
        view.c.leading,
        PriceList.id.label("list_id"),
        PriceList.list_type.label("list_type"),
        PriceList.is_default.label("is_default"),
    ]
    stmt = select(*columns).select_from(view)
    if customer:
        stmt = stmt.add_columns(
            Customer.number.label("customer_number"),
            Customer.language.label("customer_language"),
            Customer.price_list_type.label("customer_list_type"),
        ).outerjoin(Customer, Customer.number == bindparam("customer"))
    return stmt.outerjoin(PriceList, true()).order_by(PriceList.id)


def view_columns(customer: bool) -> int:
    """How many columns view_statement(customer) has."""
    return 7 if customer else 4


_VIEW = Query(view_statement(customer=False))
_CUSTOMER_VIEW = Query(view_statement(customer=True))


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
    return await resolve_asked(reads, ViewRequest.of(language, currency, customer_number))


async def resolve_asked(reads: Reads, asked: ViewRequest) -> CatalogueView:
    if asked.customer_number is None:
        return view_of(asked, await reads.rows(_VIEW))
    return view_of(asked, await reads.rows(_CUSTOMER_VIEW, customer=asked.customer_number))


def view_of(asked: ViewRequest, rows: Sequence[Row]) -> CatalogueView:
    """The view from view_statement's rows (at least one; further columns after them are ignored)."""
    customer = rows[0][4:7] if asked.customer_number is not None else None
    language, code, list_type = asked.key(rows[0][0], customer)
    lists = [row[1:4] for row in rows if row[1] is not None]
    return CatalogueView(language, code, _price_list_chain(lists, list_type), list_type)


def _price_list_chain(rows: Sequence[Row], list_type: str | None) -> tuple[int, ...]:
    chain = [list_id for list_id, type_, _ in rows if list_type is not None and type_ == list_type]
    chain += [list_id for list_id, _, is_default in rows if is_default and list_id not in chain]
    return tuple(chain)
