"""document totals to the cent with the amount payable rounded; the request fingerprint of orders

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 09:00:00

AuftNetto and AuftWUST were each rounded to the currency's step, so they differed from the positions and the
tax recapitulation they add up. Now both are exact to the cent and only AuftBrutto, the amount payable, is
rounded to the step (EN 16931 BT-114/BT-115). The documents stored so far get their totals recomputed from
their positions, so that old and new ones follow one rule; a downgrade restores the old rule.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_MONEY = sa.Numeric(precision=14, scale=4, asdecimal=True)
_CENT = Decimal("0.01")
# The tables as this revision knows them, whatever the models say later.
_documents = sa.table(
    "sales_document",
    sa.column("id", sa.Integer),
    sa.column("currency", sa.String),
    sa.column("net_total", _MONEY),
    sa.column("tax_total", _MONEY),
    sa.column("gross_total", _MONEY),
)
_positions = sa.table(
    "document_position",
    sa.column("document_id", sa.Integer),
    sa.column("total", _MONEY),
    sa.column("tax_amount", _MONEY),
)
_currencies = sa.table("currency", sa.column("code", sa.String), sa.column("rounding_step", _MONEY))


# recreate="never": ALTER TABLE in place. A batch copy of sales_document would drop the old table, and with
# SQLite's foreign keys on that deletes every position (ON DELETE CASCADE). SQLite adds and drops a plain
# column in place (DROP COLUMN since 3.35).


def upgrade() -> None:
    with op.batch_alter_table("sales_document", schema=None, recreate="never") as batch_op:
        # sha256 of the validated request that placed the order: the same AuftBestellNr again with the same
        # request is a repeat, with another one a conflict. NULL for older orders and orders from offers.
        batch_op.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=True))
    _recompute_totals(exact=True)


def downgrade() -> None:
    _recompute_totals(exact=False)
    with op.batch_alter_table("sales_document", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("fingerprint")


def _recompute_totals(*, exact: bool) -> None:
    """Every document's totals from its positions, in Python with Decimal so that both databases compute
    the same (SQLite's SUM and ROUND work in binary floating point). The rule is copied here, not imported:
    what a revision does must not change when the application's code does."""
    bind = op.get_bind()
    steps = {row.code: row.rounding_step for row in bind.execute(sa.select(_currencies))}
    sums: dict[int, list[Decimal]] = defaultdict(lambda: [Decimal(0), Decimal(0)])
    for row in bind.execute(sa.select(_positions)):
        sums[row.document_id][0] += row.total
        sums[row.document_id][1] += row.tax_amount
    rows = []
    for document in bind.execute(sa.select(_documents.c.id, _documents.c.currency)):
        net, tax = (amount.quantize(_CENT, ROUND_HALF_UP) for amount in sums[document.id])
        step = steps.get(document.currency) or _CENT
        if exact:  # 0004: net and tax to the cent, the amount payable to the step
            gross = _to_step(net + tax, step)
        else:  # 0003: net and tax each to the step, gross their sum
            net, tax = _to_step(net, step), _to_step(tax, step)
            gross = net + tax
        rows.append({"document": document.id, "net": net, "tax": tax, "gross": gross})
    if rows:
        bind.execute(
            _documents.update()
            .where(_documents.c.id == sa.bindparam("document"))
            .values(net_total=sa.bindparam("net"), tax_total=sa.bindparam("tax"), gross_total=sa.bindparam("gross")),
            rows,
        )


def _to_step(amount: Decimal, step: Decimal) -> Decimal:
    return ((amount / step).quantize(Decimal(1), ROUND_HALF_UP) * step).quantize(_CENT)
