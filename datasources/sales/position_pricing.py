"""Pricing positions the way the ERP does when the shop sends no price.

The customer's price list falls back to the default (the catalogue's chain); the tier is the one for
the ordered quantity, counted in the packaging unit; a gross list's price is turned into net with the
position's tax rate. Amounts are rounded per position to cents, unit prices to four places.

Every refusal says what is really the matter: which unit, which currency, which price lists were looked in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources import transaction
from datasources.catalogue import details, price_tiers
from datasources.catalogue.articles import is_exposed
from datasources.catalogue.records import PackagingUnitRecord, PriceTier
from datasources.catalogue.view import CatalogueView
from datasources.errors import Unprocessable
from datasources.models import Article, PriceList, TaxCode
from datasources.reads import values_in
from datasources.reads.records import check_record_columns
from datasources.sales import taxes
from datasources.sales.money import cents, unit_price
from datasources.sales.records import PositionInput, PricedPosition
from datasources.transaction import Statement, TransactionReads

HUNDRED = Decimal(100)
MAX_AMOUNT = Decimal(10) ** 10  # amounts are stored as Numeric(14, 4)


@dataclass(frozen=True, slots=True)
class _Article:
    id: int
    number: str
    tax_code: str | None  # None: the article has none and the ERP no standard rate
    tax_rate: Decimal | None


async def price_positions(
    session: AsyncSession,
    positions: Sequence[PositionInput],
    view: CatalogueView,
    *,
    indexes: Sequence[int] | None = None,
) -> list[PricedPosition]:
    """Prices every position; `indexes` are their places in the request, for error fields
    (positions.N.*), by default 0, 1, 2, ..."""
    articles = await _articles(session, {p.article_number for p in positions})
    ids = [a.id for a in articles.values()]
    reads = TransactionReads(session)  # in the write's transaction: what it prices with is what it commits
    packaging = await details.packaging(reads, ids)
    prices = await price_tiers.prices_by_article(reads, ids, view)
    texts = await details.designations(reads, ids, view.language)
    priced = []
    for index, position in zip(indexes or range(len(positions)), positions, strict=True):
        article = articles.get(position.article_number)
        if article is None:
            raise Unprocessable(
                f"article {position.article_number!r} does not exist or is not offered",
                field=f"positions.{index}.article_number",
                info={"position": index + 1},
            )
        tax = _tax_of(article, index)
        unit = _unit(position, packaging[article.id].visible, index)
        tiers = prices.get((article.id, unit.code if unit else None), [])
        if position.price is None and not tiers:
            raise await _no_price(session, view, article.number, unit, index)
        priced.append(_priced(position, article, tax, unit, tiers, texts.get(article.id), index))
    return priced


def _articles_statement() -> Statement:
    """The articles with their effective tax code: its rate, and what the tax recapitulation shows of it
    (taxes.TAX_CODE_COLUMNS), so that the recapitulation reads no tax code again; NULLs for an article
    without a code where the ERP has no standard rate."""
    standard = select(TaxCode.code).where(TaxCode.is_standard).scalar_subquery()
    code = func.coalesce(Article.tax_code, standard)
    statement = (
        select(Article.id, Article.number, TaxCode.rate, *taxes.TAX_CODE_COLUMNS)
        .outerjoin(TaxCode, TaxCode.code == code)
        .where(values_in(Article.number, "p_numbers"), is_exposed())
    )
    check_record_columns(statement, taxes.TaxCodeRecord, lead=3)  # remember_tax_codes reads row[3:]
    return Statement(statement)


_ARTICLES = _articles_statement()  # compiled once (datasources/transaction.py): every document asks


async def _articles(session: AsyncSession, numbers: set[str]) -> dict[str, _Article]:
    rows = await transaction.rows(session, _ARTICLES, p_numbers=sorted(numbers))
    taxes.remember_tax_codes(session, [row[3:] for row in rows if row[3] is not None])
    return {number: _Article(id_, number, code, rate) for id_, number, rate, code, *_ in rows}


@dataclass(frozen=True, slots=True)
class _Tax:
    code: str
    rate: Decimal


def _tax_of(article: _Article, index: int) -> _Tax:
    """The tax the position is taxed with, when the ERP's data gives a usable one: a rate, and not a negative
    one (a gross price is divided by 1 + rate)."""
    info = {"position": index + 1, "ArtNr": article.number}
    if article.tax_rate is None:
        raise Unprocessable(
            f"article {article.number} has no tax code and the ERP has no standard rate",
            field=f"positions.{index}.article_number",
            info=info,
        )
    if article.tax_rate < 0:
        raise Unprocessable(
            f"tax code {article.tax_code} of article {article.number} has the rate {_plain(article.tax_rate)} %: "
            "the ERP's rate cannot be used",
            field=f"positions.{index}.article_number",
            info={**info, "WUSTCode": article.tax_code},
        )
    assert article.tax_code is not None  # the rate is the code's
    return _Tax(article.tax_code, article.tax_rate)


def _unit(position: PositionInput, units: Sequence[PackagingUnitRecord], index: int) -> PackagingUnitRecord | None:
    """The packaging unit the position is counted in, among those the article offers (after WEBSHOPVPE):
    the one named; without one, the unit of factor 1, else the article's only unit. An article with
    several units and none of factor 1 needs VPEinheit; one without units is sold in its base unit."""
    article, info = position.article_number, {"position": index + 1}
    only = ""
    if position.packaging_unit is not None:
        wanted = position.packaging_unit.strip().upper()
        unit = next((u for u in units if u.code.upper() == wanted), None)
        if unit is None:
            raise Unprocessable(
                f"packaging unit {position.packaging_unit!r} is not offered for {article}",
                field=f"positions.{index}.packaging_unit",
                info=info,
            )
    elif not units:
        return None
    else:
        unit = next((u for u in units if u.factor == 1), None)
        if unit is None and len(units) > 1:
            raise Unprocessable(
                f"a packaging unit (VPEinheit) is required: {article} is offered in "
                + ", ".join(f"{u.code} ({_plain(u.factor)})" for u in units),
                field=f"positions.{index}.packaging_unit",
                info=info,
            )
        if unit is None:
            unit, only = units[0], f", the only packaging unit {article} is offered in"
    if unit.factor <= 0:
        raise Unprocessable(
            f"packaging unit {unit.code} of article {article} has Faktor {_plain(unit.factor)}: "
            "it cannot be ordered in that unit",
            field=f"positions.{index}.packaging_unit",
            info={**info, "ArtNr": article, "VPEinheit": unit.code},
        )
    if (position.quantity / unit.factor) % 1 != 0:
        raise Unprocessable(
            f"the quantity must be a multiple of {_plain(unit.factor)} ({unit.code}){only}",
            field=f"positions.{index}.quantity",
            info=info,
        )
    return unit


def _plain(number: Decimal) -> str:
    return f"{number.normalize():f}"


async def _no_price(
    session: AsyncSession, view: CatalogueView, article: str, unit: PackagingUnitRecord | None, index: int
) -> Unprocessable:
    """No list of the chain has a price for the unit in the currency: the refusal names the lists looked in."""
    rows = await session.execute(
        select(PriceList.id, PriceList.list_type, PriceList.is_default).where(PriceList.id.in_(view.price_list_ids))
    )
    lists = sorted(rows, key=lambda row: view.price_list_ids.index(row.id))
    # The chain is the customer's list type, then the default lists (datasources/catalogue/view.py).
    places = [
        ("the default price list " if row.is_default else "the customer's price list ") + row.list_type for row in lists
    ]
    if not places:
        message = f"article {article} has no price: no price list applies to this document"
    else:
        per = f"per {unit.code}" if unit else "per base unit"
        neither = "neither " if len(places) > 1 else ""
        message = f"article {article} has no price {per} in {view.currency} {neither}in {' nor in '.join(places)}"
    return Unprocessable(message, field=f"positions.{index}.article_number", info={"position": index + 1})


def _priced(
    position: PositionInput,
    article: _Article,
    tax: _Tax,
    unit: PackagingUnitRecord | None,
    tiers: Sequence[PriceTier],
    designation: str | None,
    index: int,
) -> PricedPosition:
    factor = unit.factor if unit else Decimal(1)
    packaging_quantity = position.quantity / factor
    gross = False
    if position.price is not None:
        packaging_price = position.price * factor  # a given Preis is net, per base unit
    else:
        tier = _tier(tiers, packaging_quantity, article.number, index)  # tiers: price_positions refused none
        if tier.amount < 0:
            per = f"per {tier.packaging_unit}" if tier.packaging_unit else "per base unit"
            raise Unprocessable(
                f"the price of article {article.number} {per} from {_plain(tier.min_quantity)} is negative "
                f"({tier.amount}): it cannot be used",
                field=f"positions.{index}.article_number",
                info={"position": index + 1, "ArtNr": article.number, "VPEinheit": tier.packaging_unit},
            )
        packaging_price, gross = tier.amount, tier.price_kind == "B"
    discount = (HUNDRED - (position.discount_rate or 0)) / HUNDRED
    amount = cents(packaging_quantity * packaging_price * discount)
    if amount >= MAX_AMOUNT:
        raise Unprocessable(
            f"the position's amount {amount} is larger than the ERP can hold",
            field=f"positions.{index}.quantity",
            info={"position": index + 1},
        )
    rate_factor = 1 + tax.rate / HUNDRED
    if gross:
        # Gross list: the rounded gross amount is split into net and tax, so net + tax = gross exactly.
        net = cents(amount / rate_factor)
        tax_amount = amount - net
        packaging_price = packaging_price / rate_factor
    else:
        net, tax_amount = amount, cents(amount * tax.rate / HUNDRED)
    return PricedPosition(
        article_number=article.number,
        text=position.text or designation,
        quantity=position.quantity,
        packaging_unit=unit.code if unit else None,
        packaging_quantity=packaging_quantity if unit else None,
        packaging_unit_price=unit_price(packaging_price) if unit else None,
        unit_price=unit_price(packaging_price / factor),
        price_given=position.price is not None,
        discount_rate=position.discount_rate,
        total=net,
        tax_code=tax.code,
        tax_rate=tax.rate,
        tax_amount=tax_amount,
        display_number=position.display_number,
    )


def _tier(tiers: Sequence[PriceTier], quantity: Decimal, article: str, index: int) -> PriceTier:
    """The tier of the position's ladder whose span holds the quantity; below the first tier, the first one."""
    ladder = _ladder(tiers, article, index)
    eligible = [t for t in ladder if t.min_quantity <= quantity]
    return eligible[-1] if eligible else ladder[0]


def _ladder(tiers: Sequence[PriceTier], article: str, index: int) -> list[PriceTier]:
    """The ladder a web-shop position is priced from. Tiers of different Bereich (price range) are separate
    ladders, as the article's Preis shows them; the shop names no range, so the ladder without one (an empty
    Bereich counts as none) when there is one, else the only one there is. Several ranged ladders and none
    without a range: which one the ERP would take is not known, so the position is refused."""
    ladders: dict[str, list[PriceTier]] = {}
    for tier in tiers:  # in ladder order already (catalogue/price_tiers.py)
        ladders.setdefault((tier.price_range or "").strip(), []).append(tier)
    if "" in ladders:
        return ladders[""]
    if len(ladders) == 1:
        return next(iter(ladders.values()))
    unit = tiers[0].packaging_unit
    per = f"per {unit}" if unit else "per base unit"
    raise Unprocessable(
        f"article {article} has prices {per} in the price ranges (Bereich) {', '.join(sorted(ladders))} and none "
        "without a range: which one applies is not known",
        field=f"positions.{index}.article_number",
        info={"position": index + 1, "ArtNr": article, "Bereich": sorted(ladders)},
    )
