"""An order's first statement: what the order needs before it is priced, in one round trip.

It claims the Idempotency-Key (datasources/sales/idempotency.py), takes the lock of the customer's
AuftBestellNr (orders.py), and reads the company's events switch (datasources/events.py), what a new document
takes from its customer (documents.DocumentCustomer) and the currencies the document can be in: the one the
request gives and the leading one, which the catalogue view picks without one (taxes.find_currency then
reads neither again). Five statements before; each was a round trip the order waited for, and the database's
and the gateway's work of a statement.

PostgreSQL does it all in one SELECT: the claim is a data-modifying CTE, the lock an uncommitted subquery;
neither depends on the reads beside them. Waiting there (for another transaction with the same key or
AuftBestellNr) is waiting as before. SQLite has no data-modifying CTE and needs no lock (its writer holds the
whole database): the key is claimed by a statement of its own, the rest read by the second.

A claim that finds the key taken leaves the rest unused (the request is a repeat and answers as the first).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import String, bindparam, func, literal, null, or_, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import events, transaction
from datasources.models import Currency, Customer
from datasources.sales import idempotency, taxes
from datasources.sales.documents import DocumentCustomer
from datasources.transaction import Statement

_CUSTOMER_COLUMNS = [getattr(Customer, f.name) for f in fields(DocumentCustomer)]
_CURRENCY = 4 + len(_CUSTOMER_COLUMNS)  # the first currency column (see _build)


@dataclass(frozen=True, slots=True)
class Opening:
    claimed: bool  # the Idempotency-Key is this request's (True without one)
    events: str | None  # the RESTEVENTS attribute's contents
    customer: DocumentCustomer | None  # None: no such customer

    def records(self, event: str) -> bool:
        return events.enabled_in(self.events, event)


async def open_order(
    session: AsyncSession,
    *,
    customer_number: str,
    currency: str | None,
    claim: tuple[str, str, str] | None,
    external_number: str | None,
) -> Opening:
    """`claim`: (user, Idempotency-Key, fingerprint); `external_number`: the AuftBestellNr to lock on."""
    params: dict[str, Any] = {"p_customer": customer_number, "p_currency": currency}
    postgresql_ = session.get_bind().dialect.name == "postgresql"
    claimed = True
    if claim is not None:
        user, key, print_ = claim
        if postgresql_:
            idempotency.check_key(key)
            params.update(idempotency.claim_parameters(user, key, print_))
        else:
            claimed = await idempotency.claim(session, user, key, print_)  # checks the key itself
    if external_number is not None and postgresql_:
        params["p_lock"] = lock_name(customer_number, external_number)
    statement = _STATEMENTS[postgresql_ and claim is not None, postgresql_ and external_number is not None]
    rows = await transaction.rows(session, statement, **params)
    first = rows[0]
    if postgresql_ and claim is not None:
        claimed = first[0] is not None
    customer = DocumentCustomer(*first[4:_CURRENCY]) if first[3] is not None else None
    taxes.remember_currencies(session, [row[_CURRENCY:] for row in rows if row[_CURRENCY] is not None])
    return Opening(claimed, first[2], customer)


def lock_name(customer_number: str, external_number: str) -> str:
    return f"AuftBestellNr {customer_number} {external_number}"


def _build(claim: bool, lock: bool) -> Statement:
    """Columns: claimed key, lock, events switch, customer number and DocumentCustomer's columns, currency code
    and cash step; a row per currency found (the one given, the leading one), one without either."""
    one = select(literal(1).label("one")).subquery("one")
    claimed: Any = null()
    if claim:
        cte = idempotency.claim_statement(postgresql.insert).cte("claimed")
        claimed = select(cte.c.key).scalar_subquery()
    locked: Any = null()
    if lock:
        name = bindparam("p_lock", type_=String)
        locked = select(func.pg_advisory_xact_lock(func.hashtextextended(name, 0))).scalar_subquery()
    stmt = select(
        claimed.label("claimed"),
        locked.label("locked"),
        events.SWITCH.label("events"),
        Customer.number,
        *_CUSTOMER_COLUMNS,
        Currency.code,
        Currency.rounding_step,
    ).select_from(
        one.outerjoin(Customer, Customer.number == bindparam("p_customer")).outerjoin(
            Currency, or_(Currency.code == bindparam("p_currency", type_=String), Currency.is_leading)
        )
    )
    return Statement(stmt)


# By (claim, lock): the four forms of the statement.
_STATEMENTS = {(claim, lock): _build(claim, lock) for claim in (False, True) for lock in (False, True)}
