"""aggregate covering indexes: the list price, stock and reservations an article's facets read, from indexes alone

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29 22:30:00

Facets and statistics (datasources/catalogue/facets.py, aggregates.py) look up, per matching article, its list
price (the lowest base-unit tier of a list in a currency), its stock rows in released warehouses and the
reservations of each. The indexes these lookups took led with the article alone (stock, reservation) or
lacked the unit and the amount (price): every lookup went on to read the table's rows. Each is replaced by one
with the same leading columns, holding what the lookups read:

- `price`: `ix_price_lookup` (article, currency, list) becomes `ix_price_amount` (article, currency, list,
  unit, amount): the list price is the first entry of (article, currency, list, no unit), read from the index.
- `stock`: `ix_stock_article_id` (article) becomes `ix_stock_quantity` (article, warehouse, unit, on hand).
- `reservation`: `ix_reservation_article_id` (article) becomes `ix_reservation_quantity` (article,
  warehouse, unit, quantity): the reservations of a stock row are a range of it.

Every statement that used an old index finds its leading columns in the new one. At 20,000 articles on
SQLite a count of the price bands took a third of its time before, availability half.
"""

from __future__ import annotations

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

# (table, old index and its columns, new index and its columns)
REPLACED = (
    ("price", "ix_price_lookup", ("article_id", "currency", "price_list_id")),
    ("stock", "ix_stock_article_id", ("article_id",)),
    ("reservation", "ix_reservation_article_id", ("article_id",)),
)
COVERING = {
    "price": ("ix_price_amount", ("article_id", "currency", "price_list_id", "packaging_unit", "amount")),
    "stock": ("ix_stock_quantity", ("article_id", "warehouse_id", "packaging_unit", "on_hand")),
    "reservation": ("ix_reservation_quantity", ("article_id", "warehouse_id", "packaging_unit", "quantity")),
}


def upgrade() -> None:
    for table, old, _ in REPLACED:
        name, columns = COVERING[table]
        op.create_index(name, table, list(columns), unique=False)
        op.drop_index(old, table_name=table)
    # The planners' statistics for the new indexes (SQLite, given statistics for some indexes and none for
    # others, would take the unmeasured ones for needles in a haystack: datasources/planner.py).
    for table, _, _ in REPLACED:
        op.execute(f"ANALYZE {table}")


def downgrade() -> None:
    for table, old, columns in REPLACED:
        op.create_index(old, table, list(columns), unique=False)
        op.drop_index(COVERING[table][0], table_name=table)
