"""address search indexes: the folded value of the fields a shop finds a customer by

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28 09:00:00

GET /www/adressensuche compares address fields trimmed and lower-cased (datasources/folding.py). Without an
index on the folded values every search reads every address: some 250 ms of PostgreSQL's CPU at 100,000
customers. On PostgreSQL these are the indexes of SEARCH_INDEXES (datasources/models/customers.py), on
`lower(TRIM(BOTH FROM x))`, and the statistics are renewed so that the planner knows them selective. SQLite
gets none: its folding is the gateway's function `gateway_fold`, and an index on it would fail every write to
`address` by a connection that does not register it (the ERP's, the sqlite3 shell's), and VACUUM there.
"""

from __future__ import annotations

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

FIELDS = ("email", "last_name", "company", "phone1", "postal_code")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for field in FIELDS:
        op.execute(f"CREATE INDEX ix_address_folded_{field} ON address (lower(TRIM(BOTH FROM {field})))")
    op.execute("ANALYZE address")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for field in FIELDS:
        op.execute(f"DROP INDEX ix_address_folded_{field}")
