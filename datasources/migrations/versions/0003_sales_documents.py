"""sales documents

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 02:51:53.775097
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import datasources.models.base

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "idempotent_request",
        sa.Column("user_name", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("document_number", sa.String(length=10), nullable=False),
        sa.Column("outcome", sa.String(length=8), nullable=False),
        sa.Column("created_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("user_name", "key", name=op.f("pk_idempotent_request")),
    )
    op.create_table(
        "payment_condition",
        sa.Column("condition_type", sa.Integer(), nullable=False),
        sa.Column("language", sa.String(length=3), nullable=False),
        sa.Column("text", sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint("condition_type", "language", name=op.f("pk_payment_condition")),
    )
    op.create_table(
        "sales_document",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=5), nullable=False),
        sa.Column("number", sa.String(length=10), nullable=False),
        sa.Column("customer_number", sa.String(length=8), nullable=True),
        sa.Column("status", sa.String(length=1), nullable=False),
        sa.Column("description", sa.String(length=80), nullable=True),
        sa.Column("external_number", sa.String(length=36), nullable=True),
        sa.Column("reference", sa.String(length=60), nullable=True),
        sa.Column("ordered_at", datasources.models.base.UtcDateTime(), nullable=True),
        sa.Column("delivery_at", datasources.models.base.UtcDateTime(), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("comment", sa.String(length=255), nullable=True),
        sa.Column("cost_unit", sa.String(length=6), nullable=True),
        sa.Column("tax_code", sa.String(length=6), nullable=True),
        sa.Column("price_list_id", sa.Integer(), nullable=True),
        sa.Column("payment_condition", sa.Integer(), nullable=True),
        sa.Column("delivery_costs", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("location", sa.Integer(), nullable=True),
        sa.Column("contact_address_id", sa.Integer(), nullable=True),
        sa.Column("delivery_address_id", sa.Integer(), nullable=True),
        sa.Column("billing_address_id", sa.Integer(), nullable=True),
        sa.Column("net_total", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("tax_total", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("gross_total", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("order_number", sa.String(length=10), nullable=True),
        sa.Column("offer_number", sa.String(length=10), nullable=True),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("captured_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["billing_address_id"], ["address.id"], name=op.f("fk_sales_document_billing_address_id_address")
        ),
        sa.ForeignKeyConstraint(
            ["contact_address_id"], ["address.id"], name=op.f("fk_sales_document_contact_address_id_address")
        ),
        sa.ForeignKeyConstraint(["currency"], ["currency.code"], name=op.f("fk_sales_document_currency_currency")),
        sa.ForeignKeyConstraint(
            ["customer_number"], ["customer.number"], name=op.f("fk_sales_document_customer_number_customer")
        ),
        sa.ForeignKeyConstraint(
            ["delivery_address_id"],
            ["address.id"],
            name=op.f("fk_sales_document_delivery_address_id_address"),
        ),
        sa.ForeignKeyConstraint(
            ["price_list_id"], ["price_list.id"], name=op.f("fk_sales_document_price_list_id_price_list")
        ),
        sa.ForeignKeyConstraint(["tax_code"], ["tax_code.code"], name=op.f("fk_sales_document_tax_code_tax_code")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sales_document")),
        sa.UniqueConstraint("kind", "number", name=op.f("uq_sales_document_kind")),
    )
    with op.batch_alter_table("sales_document", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_sales_document_customer_number"), ["customer_number"], unique=False)
        batch_op.create_index("ix_sales_document_external", ["customer_number", "external_number"], unique=False)

    op.create_table(
        "document_payment",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=12), nullable=False),
        sa.Column("designation", sa.String(length=255), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=True),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["sales_document.id"],
            name=op.f("fk_document_payment_document_id_sales_document"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_document_payment")),
    )
    with op.batch_alter_table("document_payment", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_document_payment_document_id"), ["document_id"], unique=False)

    op.create_table(
        "document_position",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("position_number", sa.Integer(), nullable=False),
        sa.Column("display_number", sa.Integer(), nullable=True),
        sa.Column("article_number", sa.String(length=15), nullable=False),
        sa.Column("text", sa.String(length=2048), nullable=True),
        sa.Column("quantity", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("packaging_unit", sa.String(length=30), nullable=True),
        sa.Column("packaging_quantity", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("packaging_unit_price", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("unit_price", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("price_basis", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("price_given", sa.Boolean(), nullable=False),
        sa.Column("discount_rate", sa.Numeric(precision=14, scale=4), nullable=True),
        sa.Column("total", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("tax_code", sa.String(length=6), nullable=False),
        sa.Column("tax_rate", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.Column("tax_amount", sa.Numeric(precision=14, scale=4), nullable=False),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["sales_document.id"],
            name=op.f("fk_document_position_document_id_sales_document"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["tax_code"], ["tax_code.code"], name=op.f("fk_document_position_tax_code_tax_code")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_document_position")),
        sa.UniqueConstraint("document_id", "position_number", name=op.f("uq_document_position_document_id")),
    )
    with op.batch_alter_table("document_position", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_document_position_document_id"), ["document_id"], unique=False)

    with op.batch_alter_table("customer", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tax_code", sa.String(length=6), nullable=True))
        batch_op.add_column(sa.Column("cost_unit", sa.String(length=6), nullable=True))
        batch_op.add_column(sa.Column("payment_condition", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(batch_op.f("fk_customer_tax_code_tax_code"), "tax_code", ["tax_code"], ["code"])

    with op.batch_alter_table("tax_code", schema=None) as batch_op:
        batch_op.add_column(sa.Column("turnover_line", sa.String(length=6), nullable=True))
        batch_op.add_column(sa.Column("sales_tax_line", sa.String(length=6), nullable=True))
        batch_op.add_column(sa.Column("input_tax_line", sa.String(length=6), nullable=True))
    # First numbers: orders (AuftNr) from 500001, offers (OffertNr) from 300001.
    sequences = sa.table("number_sequence", sa.column("name", sa.String), sa.column("last_value", sa.Integer))
    op.bulk_insert(sequences, [{"name": "order", "last_value": 500000}, {"name": "offer", "last_value": 300000}])


def downgrade() -> None:
    with op.batch_alter_table("tax_code", schema=None) as batch_op:
        batch_op.drop_column("input_tax_line")
        batch_op.drop_column("sales_tax_line")
        batch_op.drop_column("turnover_line")

    with op.batch_alter_table("customer", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_customer_tax_code_tax_code"), type_="foreignkey")
        batch_op.drop_column("payment_condition")
        batch_op.drop_column("cost_unit")
        batch_op.drop_column("tax_code")

    with op.batch_alter_table("document_position", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_document_position_document_id"))

    op.drop_table("document_position")
    with op.batch_alter_table("document_payment", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_document_payment_document_id"))

    op.drop_table("document_payment")
    with op.batch_alter_table("sales_document", schema=None) as batch_op:
        batch_op.drop_index("ix_sales_document_external")
        batch_op.drop_index(batch_op.f("ix_sales_document_customer_number"))

    op.drop_table("sales_document")
    op.drop_table("payment_condition")
    op.drop_table("idempotent_request")
