"""The tax recapitulation (MWSTRekapitulation) and the document totals."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from sqlalchemy import bindparam, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.models import Currency, TaxCode
from datasources.reads import Query, Reads, Row, record_columns, values_in
from datasources.sales.money import cents, to_step
from datasources.sales.records import TaxLine
from datasources.transaction import Statement

SECTION = "UST-Rekap"  # Abschnitt
_TAX_CODES = "sales_tax_codes"  # a session.info key
_CURRENCIES = "sales_currencies"  # a session.info key


@dataclass(frozen=True, slots=True)
class TaxCodeRecord:
    code: str
    designation: str
    tax_class: str
    turnover_line: str | None
    sales_tax_line: str | None
    input_tax_line: str | None


# What the recapitulation shows of a tax code, as TaxCodeRecord has it; compiled once.
TAX_CODE_COLUMNS = record_columns(
    TaxCodeRecord,
    code=TaxCode.code,
    designation=TaxCode.designation,
    tax_class=TaxCode.tax_class,
    turnover_line=TaxCode.turnover_line,
    sales_tax_line=TaxCode.sales_tax_line,
    input_tax_line=TaxCode.input_tax_line,
)
_TAX_CODES_IN = Query(select(*TAX_CODE_COLUMNS).where(values_in(TaxCode.code, "p_codes")), record=TaxCodeRecord)
_CURRENCY = Statement(select(Currency.rounding_step).where(Currency.code == bindparam("p_code")))


@dataclass(frozen=True, slots=True)
class CurrencyRecord:
    code: str
    rounding_step: Decimal | None


class Taxed(Protocol):
    @property
    def total(self) -> Decimal: ...
    @property
    def tax_amount(self) -> Decimal: ...
    @property
    def tax_code(self) -> str: ...
    @property
    def tax_rate(self) -> Decimal: ...


async def recapitulation(session: AsyncSession, positions: Sequence[Taxed], currency: str) -> list[TaxLine]:
    """One line per tax code, highest rate first: the positions' net amounts and taxes added up (in a write's
    transaction, its tax codes read once)."""
    return _recapitulate(positions, currency, await _tax_codes(session, {p.tax_code for p in positions}))


async def read_recapitulation(reads: Reads, positions: Sequence[Taxed], currency: str) -> list[TaxLine]:
    """The same for a stored document (a GET)."""
    codes = sorted({p.tax_code for p in positions})
    rows = await reads.rows(_TAX_CODES_IN, p_codes=codes) if codes else []
    return _recapitulate(positions, currency, {row[0]: TaxCodeRecord(*row) for row in rows})


def _recapitulate(positions: Sequence[Taxed], currency: str, codes: Mapping[str, TaxCodeRecord]) -> list[TaxLine]:
    lines: dict[str, TaxLine] = {}
    for position in positions:
        code = codes[position.tax_code]
        line = lines.get(code.code)
        lines[code.code] = TaxLine(
            currency=currency,
            tax=(line.tax if line else Decimal(0)) + position.tax_amount,
            rate=position.tax_rate,
            designation=code.designation,
            net=(line.net if line else Decimal(0)) + position.total,
            code=code.code,
            tax_class=code.tax_class,
            turnover_line=code.turnover_line,
            sales_tax_line=code.sales_tax_line,
            input_tax_line=code.input_tax_line,
        )
    return sorted(lines.values(), key=lambda line: (-line.rate, line.code))


async def _tax_codes(session: AsyncSession, codes: set[str]) -> dict[str, TaxCodeRecord]:
    """The tax codes, each read once per transaction: a write sums its positions' taxes for its totals and
    again for its answer. Kept in the session's info."""
    known: dict[str, TaxCodeRecord] = session.info.setdefault(_TAX_CODES, {})
    if missing := codes - known.keys():
        remember_tax_codes(session, await transaction.rows(session, _TAX_CODES_IN, p_codes=sorted(missing)))
    return known


def remember_tax_codes(session: AsyncSession, rows: list[Row]) -> None:
    """Tax codes another statement of the transaction read (rows of TAX_CODE_COLUMNS): not read again."""
    known: dict[str, TaxCodeRecord] = session.info.setdefault(_TAX_CODES, {})
    known.update((row[0], TaxCodeRecord(*row)) for row in rows)


def remember_currencies(session: AsyncSession, rows: list[Row]) -> None:
    """Currencies another statement of the transaction read (code, cash step): not read again."""
    known: dict[str, CurrencyRecord | None] = session.info.setdefault(_CURRENCIES, {})
    known.update((code, CurrencyRecord(code, step)) for code, step in rows)


async def find_currency(session: AsyncSession, code: str) -> CurrencyRecord | None:
    """The currency, None when the ERP has none of that code; read once per transaction (the document's
    currency is checked when it is priced and its cash step wanted again for the totals)."""
    known: dict[str, CurrencyRecord | None] = session.info.setdefault(_CURRENCIES, {})
    if code not in known:
        found = await transaction.rows(session, _CURRENCY, p_code=code)
        known[code] = CurrencyRecord(code, found[0][0]) if found else None
    return known[code]


async def totals(
    session: AsyncSession, positions: Sequence[Taxed], lines: Sequence[TaxLine], currency: str
) -> tuple[Decimal, Decimal, Decimal]:
    """AuftNetto, AuftWUST, AuftBrutto as EN 16931 and Swiss invoices have them: the net total is the sum of
    the positions' net totals (BT-109) and the tax the sum of the recapitulation's tax (BT-110), both to the
    cent, so that they agree with the lines they add up; the gross total is the amount payable (BT-115),
    net + tax rounded to the currency's cash step (CHF 0.05, EUR 0.01). What that rounding adds or takes
    is the rounding amount (BT-114): gross - (net + tax)."""
    # The document's currency was usually read in this transaction already (no statement then).
    row = await find_currency(session, currency)
    step = row.rounding_step if row is not None and row.rounding_step else Decimal("0.01")
    net = cents(sum((p.total for p in positions), Decimal(0)))
    tax = cents(sum((line.tax for line in lines), Decimal(0)))
    return net, tax, to_step(net + tax, step)
