"""What a subscriber receives: one object per outbox event, or per batch of the catalogue's changes, with the
cursor to resume after it."""

from __future__ import annotations

import strawberry

from datasources.events import ARTICLE_EVENT
from datasources.live import LiveEvent, encode_cursor
from datasources.live.catalogue import CatalogueBatch
from schema.scalars import UtcDateTime


def _text(event: LiveEvent, key: str) -> str | None:
    value = event.fields.get(key)
    return None if value is None else str(value)


@strawberry.type(description="An order event (REST_Auft): an order was placed, or made from an offer.")
class OrderEvent:
    type: str = strawberry.field(description="The ERP event's name: REST_Auft.")
    order_number: str = strawberry.field(description="The order's AuftNr.")
    customer_number: str | None = strawberry.field(description="The customer's KundNr.")
    occurred_at: UtcDateTime = strawberry.field(description="When the event was recorded (UTC).")
    cursor: str = strawberry.field(description="The position after this event: `since` resumes from it.")

    @classmethod
    def of(cls, event: LiveEvent) -> OrderEvent:
        return cls(
            type=event.event,
            order_number=_text(event, "AuftNr") or "",
            customer_number=_text(event, "KundNr"),
            occurred_at=UtcDateTime(event.occurred_at),
            cursor=encode_cursor(event.id),
        )


@strawberry.type(description="A customer event (REST_Kunde): a customer was created.")
class CustomerEvent:
    type: str = strawberry.field(description="The ERP event's name: REST_Kunde.")
    customer_number: str = strawberry.field(description="The customer's DebiNr.")
    occurred_at: UtcDateTime = strawberry.field(description="When the event was recorded (UTC).")
    cursor: str = strawberry.field(description="The position after this event: `since` resumes from it.")

    @classmethod
    def of(cls, event: LiveEvent) -> CustomerEvent:
        return cls(
            type=event.event,
            customer_number=_text(event, "DebiNr") or "",
            occurred_at=UtcDateTime(event.occurred_at),
            cursor=encode_cursor(event.id),
        )


@strawberry.type(
    description="A batch of the catalogue's changes (REST_Artikel): articles changed or removed, whoever wrote them."
)
class CatalogueChangeEvent:
    type: str = strawberry.field(description="The ERP event's name: REST_Artikel.")
    changed: list[str] = strawberry.field(
        description="Geaendert: the ArtNr of the exposed articles that changed (GET /www/artikel/{ArtNr} has them)."
    )
    removed: list[str] = strawberry.field(
        description="Entfernt: the ArtNr of the articles deleted or no longer exposed."
    )
    has_more: bool = strawberry.field(description="MehrVorhanden: another batch follows at once.")
    occurred_at: UtcDateTime = strawberry.field(description="When the gateway read the changes (UTC).")
    cursor: str = strawberry.field(
        description="The change feed's cursor after this batch: `since` resumes from it, as does "
        "catalogueChanges and GET /www/artikelaenderungen?seit=."
    )

    @classmethod
    def of(cls, batch: CatalogueBatch) -> CatalogueChangeEvent:
        return cls(
            type=ARTICLE_EVENT,
            changed=batch.changed,
            removed=batch.removed,
            has_more=batch.more,
            occurred_at=UtcDateTime(batch.read_at),
            cursor=batch.cursor.encode(),
        )
