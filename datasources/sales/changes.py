"""The PATCH rules of an offer's positions: without PosNr an entry is added, with PosNr and Menge 0 the
position is deleted, otherwise its quantity (and GRabSatz/PosBez when given) changes and the ERP prices it
again. The whole change is priced at once and written with one DELETE, one UPDATE and one INSERT, however
many entries it has."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from operator import itemgetter

from sqlalchemy import bindparam, delete, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import InvalidInput, Unprocessable
from datasources.models import SalesDocument
from datasources.sales.documents import POSITION_TABLE, add_positions, document_view
from datasources.sales.position_pricing import price_positions
from datasources.sales.records import PositionChange, PositionInput, PositionRecord, PricedPosition
from datasources.sales.taxes import Taxed


async def change_positions(
    session: AsyncSession,
    offer: SalesDocument,
    current: Sequence[PositionRecord],
    changes: Sequence[PositionChange],
    max_positions: int,
) -> list[Taxed]:
    """Applies the entries to the offer's `current` positions; returns its positions after the change.
    Entries for one position apply in order; a deletion wins over any other entry for its position."""
    existing = {p.position_number: p for p in current}
    deleted: set[int] = set()
    updates: dict[int, tuple[int, PositionInput]] = {}  # PosNr -> (index of its last entry, the request)
    additions: list[tuple[int, PositionInput]] = []
    for index, change in enumerate(changes):
        if change.position_number is None:
            assert change.article_number is not None
            request = PositionInput(
                change.article_number, change.quantity, change.text, discount_rate=change.discount_rate
            )
            additions.append((index, request))
            continue
        row = existing.get(change.position_number)
        if row is None:
            raise Unprocessable(
                f"offer {offer.number} has no position {change.position_number}",
                field=f"positions.{index}.position_number",
                info={"position": index + 1},
            )
        _check_article(offer, row, change, index)
        if change.quantity == 0:
            deleted.add(row.position_number)
        else:
            earlier = updates[row.position_number][1] if row.position_number in updates else None
            updates[row.position_number] = (index, _updated(row, change, earlier))
    for number in deleted:
        updates.pop(number, None)
    count = len(existing) - len(deleted) + len(additions)
    if additions and count > max_positions:
        raise InvalidInput(
            f"an offer has at most {max_positions} positions; after this change it would have {count}",
            field="positions",
            info={"limit": max_positions},
        )
    first_added = max(existing, default=0) + 1
    entries = [(index, number, request) for number, (index, request) in updates.items()]
    entries += [(index, first_added + n, request) for n, (index, request) in enumerate(additions)]
    priced = await _priced(session, offer, sorted(entries, key=itemgetter(0)))
    await _delete(session, offer.id, deleted)
    await _update(session, offer.id, {number: priced[number] for number in updates})
    added = [priced[first_added + n] for n in range(len(additions))]
    await add_positions(session, offer.id, added, first_number=first_added)
    kept = [p for p in current if p.position_number not in deleted and p.position_number not in updates]
    return [*kept, *(priced[number] for number in updates), *added]


def _updated(row: PositionRecord, change: PositionChange, earlier: PositionInput | None) -> PositionInput:
    """The position's request after the entry: re-priced by the ERP for the new quantity (offers take
    no given price), with the text and discount of the entry, else of an earlier entry, else its own."""
    text = earlier.text if earlier else row.text
    discount = earlier.discount_rate if earlier else row.discount_rate
    return PositionInput(
        row.article_number,
        change.quantity,
        change.text or text,
        packaging_unit=row.packaging_unit,
        discount_rate=change.discount_rate if change.discount_rate is not None else discount,
        display_number=row.display_number,
    )


async def _priced(
    session: AsyncSession, offer: SalesDocument, entries: Sequence[tuple[int, int, PositionInput]]
) -> dict[int, PricedPosition]:
    """Every entry priced at once, in the order of the request (so the first bad one is named); by PosNr."""
    if not entries:
        return {}
    view = await document_view(session, offer.currency, offer.customer_number)
    priced = await price_positions(
        session, [request for _, _, request in entries], view, indexes=[index for index, _, _ in entries]
    )
    return {number: price for (_, number, _), price in zip(entries, priced, strict=True)}


def _check_article(offer: SalesDocument, row: PositionRecord, change: PositionChange, index: int) -> None:
    """An ArtNr sent with a PosNr must be the position's: a position keeps its article. Compared exactly,
    as the article lookup compares article numbers."""
    if change.article_number is None or change.article_number == row.article_number:
        return
    number, article, given = row.position_number, row.article_number, change.article_number
    what = f"position {number} of offer {offer.number} is article {article}, not {given!r}"
    if change.quantity == 0:
        message = f"{what}; nothing was changed"
    else:
        message = f"{what}: to change the article, delete the position (Menge 0) and add a new one"
    raise Unprocessable(message, field=f"positions.{index}.article_number", info={"position": index + 1})


async def _delete(session: AsyncSession, document_id: int, numbers: set[int]) -> None:
    if numbers:
        await session.execute(
            delete(POSITION_TABLE).where(
                POSITION_TABLE.c.document_id == document_id, POSITION_TABLE.c.position_number.in_(sorted(numbers))
            )
        )


async def _update(session: AsyncSession, document_id: int, priced: Mapping[int, PricedPosition]) -> None:
    """One UPDATE, executed for every changed position (an executemany)."""
    if not priced:
        return
    stmt = update(POSITION_TABLE).where(
        POSITION_TABLE.c.document_id == bindparam("b_document"),
        POSITION_TABLE.c.position_number == bindparam("b_number"),
    )
    rows = [
        {"b_document": document_id, "b_number": number, **dataclasses.asdict(price)} for number, price in priced.items()
    ]
    await session.execute(stmt, rows)
