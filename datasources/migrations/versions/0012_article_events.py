"""article events: how far the REST_Artikel events have come, and a NOTIFY for every change position

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30 09:00:00

`article_event_state` holds one row (id 1): the change feed's cursor after the last REST_Artikel events
and when they were recorded (datasources/catalogue/change_events.py). The gateway process that records the
next events locks it, so that N processes record each change once.

On PostgreSQL a statement that moves change positions (migration 0011's triggers, whoever writes: the ERP on
its own connection too) also sends `NOTIFY gateway_catalogue`, delivered at its commit: every gateway
process LISTENs to it, and records REST_Artikel events and serves `catalogueChanges` subscriptions at once
instead of at its next poll. One notification per statement at most, and PostgreSQL folds repeats of a
transaction into one. SQLite has no notifications between processes: there the gateway polls.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

CHANNEL = "gateway_catalogue"  # datasources/catalogue/wakeup.py


def upgrade() -> None:
    op.create_table(
        "article_event_state",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("cursor", sa.String(length=4096), nullable=True),
        sa.Column("produced_at", sa.DateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_article_event_state")),
    )
    op.execute("INSERT INTO article_event_state (id, cursor, produced_at) VALUES (1, NULL, NULL)")
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            "CREATE FUNCTION article_change_notify() RETURNS trigger LANGUAGE plpgsql "
            f"AS $$ BEGIN PERFORM pg_notify('{CHANNEL}', ''); RETURN NULL; END $$"
        )
        op.execute(
            "CREATE TRIGGER article_change_notify AFTER INSERT OR UPDATE ON article_change "
            "FOR EACH STATEMENT EXECUTE FUNCTION article_change_notify()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER article_change_notify ON article_change")
        op.execute("DROP FUNCTION article_change_notify()")
    op.drop_table("article_event_state")
