"""webhook endpoints and deliveries; the webhook-id of outbox events

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24 09:00:00

Events recorded in the outbox are delivered to webhook endpoints: one delivery row per event and endpoint,
made in the event's transaction. Events recorded before this revision keep a NULL message_id: no endpoint
existed for them, so they have no deliveries.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import datasources.models.base

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # recreate="never": ALTER TABLE in place (see 0004); a batch copy of outbox_event is not needed to add a
    # nullable column, on SQLite as on PostgreSQL.
    with op.batch_alter_table("outbox_event", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("message_id", sa.String(length=40), nullable=True))
    op.create_table(
        "webhook_endpoint",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("events", sa.String(length=200), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("created_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_endpoint")),
    )
    op.create_table(
        "webhook_delivery",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("endpoint_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=9), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.Column("claimed_until", datasources.models.base.UtcDateTime(), nullable=True),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("last_attempt_at", datasources.models.base.UtcDateTime(), nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_answer", sa.String(length=1000), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("created_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.Column("delivered_at", datasources.models.base.UtcDateTime(), nullable=True),
        sa.ForeignKeyConstraint(
            ["endpoint_id"],
            ["webhook_endpoint.id"],
            name=op.f("fk_webhook_delivery_endpoint_id_webhook_endpoint"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["outbox_event.id"],
            name=op.f("fk_webhook_delivery_event_id_outbox_event"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_delivery")),
        sa.UniqueConstraint("event_id", "endpoint_id", name=op.f("uq_webhook_delivery_event_id")),
    )
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.create_index("ix_webhook_delivery_due", ["status", "next_attempt_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_webhook_delivery_endpoint_id"), ["endpoint_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_webhook_delivery_endpoint_id"))
        batch_op.drop_index("ix_webhook_delivery_due")
    op.drop_table("webhook_delivery")
    op.drop_table("webhook_endpoint")
    with op.batch_alter_table("outbox_event", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("message_id")
