"""An event's deliveries are made in its transaction, one per subscribed endpoint, and this process's
dispatchers are told after the commit."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text

from datasources import events, transaction
from datasources.database import Database
from datasources.models import CompanyAttribute, DeliveryStatus, OutboxEvent, WebhookDelivery
from datasources.webhooks import fanout, wakeup
from tests.datasources.webhooks.helpers import T0, enable, endpoint, record, stored


async def test_each_event_goes_to_every_endpoint_that_subscribes_to_it(db: Database) -> None:
    await enable(db)
    every, _ = await endpoint(db)
    orders, _ = await endpoint(db, "http://127.0.0.1:9/orders", "REST_Auft")
    customers, _ = await endpoint(db, "http://127.0.0.1:9/customers", "REST_Kunde")
    await record(db, events.ORDER_EVENT)
    await record(db, events.CUSTOMER_EVENT)
    async with db.reader() as session:
        order, customer = await session.scalars(select(OutboxEvent).order_by(OutboxEvent.id))
    assert [(d.event_id, d.endpoint_id) for d in await stored(db)] == [
        (order.id, every.id),
        (order.id, orders.id),
        (customer.id, every.id),
        (customer.id, customers.id),
    ]
    assert {d.status for d in await stored(db)} == {DeliveryStatus.PENDING}
    assert {d.attempts for d in await stored(db)} == {0}
    # One webhook-id per event, for every endpoint and every attempt.
    assert order.message_id is not None and order.message_id.startswith("msg_")
    assert order.message_id != customer.message_id


async def test_an_endpoint_added_later_gets_only_later_events(db: Database) -> None:
    await enable(db)
    await record(db)  # no endpoint yet: recorded, delivered to nobody
    assert await stored(db) == []
    later, _ = await endpoint(db)
    await record(db)
    assert [d.endpoint_id for d in await stored(db)] == [later.id]


async def test_events_of_disabled_names_are_never_recorded_nor_delivered(db: Database) -> None:
    await endpoint(db)
    assert not await record(db)  # no RESTEVENTS at all
    await enable(db, "REST_Kunde")
    assert not await record(db, events.ORDER_EVENT)
    assert await record(db, events.CUSTOMER_EVENT)
    async with db.reader() as session:
        assert list(await session.scalars(select(OutboxEvent.event))) == ["REST_Kunde"]
    assert len(await stored(db)) == 1


async def test_a_rolled_back_event_leaves_no_delivery_and_wakes_nobody(db: Database) -> None:
    await enable(db)
    await endpoint(db)
    woken: list[str] = []
    stop = wakeup.listen(lambda: woken.append("woken"))

    class Abort(Exception):
        pass

    try:
        with pytest.raises(Abort):
            async with db.writer() as session, session.begin():
                await events.record(session, events.ORDER_EVENT, "shop", AuftNr="1", KundNr="2")
                raise Abort
        assert await stored(db) == [] and woken == []
        await record(db)
        assert woken == ["woken"]  # once per transaction, after its commit
        async with db.writer() as session, session.begin():
            for number in ("1", "2", "3"):
                await events.record(session, events.ORDER_EVENT, "shop", AuftNr=number, KundNr="2")
        assert woken == ["woken", "woken"]
        async with db.writer() as session, session.begin():
            session.add(CompanyAttribute(key="RESTWEBSHOP", contents="1"))
        assert woken == ["woken", "woken"]  # a commit without deliveries wakes nobody
    finally:
        stop()
    await record(db)
    assert woken == ["woken", "woken"]  # stopped listening


async def test_a_failing_wake_up_does_not_fail_the_commit(db: Database) -> None:
    await enable(db)
    await endpoint(db)

    def broken() -> None:
        raise RuntimeError("the loop is closed")

    stop = wakeup.listen(broken)
    try:
        assert await record(db)
    finally:
        stop()
    assert len(await stored(db)) == 1


async def test_an_event_and_its_delivery_are_stored_as_the_orm_stored_them(db: Database) -> None:
    """They are written by compiled INSERTs (datasources/transaction.py): the same stored values as the ORM's,
    down to the text of a timestamp, which SQLite compares as text when a dispatcher looks for due deliveries."""
    hook, _ = await endpoint(db)
    async with db.writer() as session, session.begin():
        by_orm = OutboxEvent(event=events.ORDER_EVENT, payload="{}", message_id="msg_1", created_at=T0)
        session.add(by_orm)
        await session.flush()
        session.add(
            WebhookDelivery(
                event_id=by_orm.id,
                endpoint_id=hook.id,
                status=DeliveryStatus.PENDING,
                attempts=0,
                next_attempt_at=T0,
                created_at=T0,
            )
        )
        await session.flush()
        params = {"p_event": events.ORDER_EVENT, "p_payload": "{}", "p_message_id": "msg_1", "p_created_at": T0}
        compiled_id = await transaction.scalar(session, events._INSERT, **params)
        assert await fanout.fan_out(session, compiled_id, events.ORDER_EVENT, T0) == 1
    events_stored = text(
        "SELECT event, payload, message_id, CAST(created_at AS TEXT), delivered_at FROM outbox_event ORDER BY id"
    )
    deliveries_stored = text(
        "SELECT endpoint_id, status, attempts, CAST(next_attempt_at AS TEXT), claimed_until, claimed_by, "
        "last_attempt_at, last_status, last_answer, last_error, CAST(created_at AS TEXT), delivered_at "
        "FROM webhook_delivery ORDER BY id"
    )
    async with db.reader() as session:
        stored_events = (await session.execute(events_stored)).all()
        deliveries = (await session.execute(deliveries_stored)).all()
    assert stored_events[0] == stored_events[1]
    assert deliveries[0] == deliveries[1]
    assert [d.event_id for d in await stored(db)] == [by_orm.id, compiled_id]
