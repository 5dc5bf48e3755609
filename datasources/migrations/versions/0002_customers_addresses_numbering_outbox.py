"""customers, addresses, company attributes, numbering, outbox

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 02:38:00.602137
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

import datasources.models.base

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "company_attribute",
        sa.Column("key", sa.String(length=12), nullable=False),
        sa.Column("contents", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_company_attribute")),
    )
    number_sequence = op.create_table(
        "number_sequence",
        sa.Column("name", sa.String(length=20), nullable=False),
        sa.Column("last_value", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_number_sequence")),
    )
    op.create_table(
        "outbox_event",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(length=32), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.Column("delivered_at", datasources.models.base.UtcDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox_event")),
    )
    op.create_table(
        "address",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("customer_number", sa.String(length=8), nullable=True),
        sa.Column("language", sa.String(length=3), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column("line1", sa.String(length=60), nullable=False),
        sa.Column("line2", sa.String(length=60), nullable=True),
        sa.Column("salutation", sa.Integer(), nullable=False),
        sa.Column("fax", sa.String(length=28), nullable=True),
        sa.Column("company", sa.String(length=36), nullable=True),
        sa.Column("company2", sa.String(length=36), nullable=True),
        sa.Column("first_name", sa.String(length=36), nullable=True),
        sa.Column("last_name", sa.String(length=36), nullable=True),
        sa.Column("mobile", sa.String(length=28), nullable=True),
        sa.Column("phone1", sa.String(length=28), nullable=True),
        sa.Column("phone2", sa.String(length=28), nullable=True),
        sa.Column("country", sa.String(length=4), nullable=False),
        sa.Column("place", sa.String(length=48), nullable=False),
        sa.Column("postal_code", sa.String(length=10), nullable=False),
        sa.Column("modified_at", datasources.models.base.UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_number"], ["customer.number"], name=op.f("fk_address_customer_number_customer")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_address")),
    )
    with op.batch_alter_table("address", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_address_customer_number"), ["customer_number"], unique=False)

    op.create_table(
        "customer_attribute",
        sa.Column("customer_number", sa.String(length=8), nullable=False),
        sa.Column("key", sa.String(length=12), nullable=False),
        sa.Column("contents", sa.String(length=200), nullable=False),
        sa.ForeignKeyConstraint(
            ["customer_number"],
            ["customer.number"],
            name=op.f("fk_customer_attribute_customer_number_customer"),
        ),
        sa.PrimaryKeyConstraint("customer_number", "key", name=op.f("pk_customer_attribute")),
    )
    op.create_table(
        "customer_address",
        sa.Column("customer_number", sa.String(length=8), nullable=False),
        sa.Column("role", sa.String(length=12), nullable=False),
        sa.Column("address_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["address_id"], ["address.id"], name=op.f("fk_customer_address_address_id_address")),
        sa.ForeignKeyConstraint(
            ["customer_number"],
            ["customer.number"],
            name=op.f("fk_customer_address_customer_number_customer"),
        ),
        sa.PrimaryKeyConstraint("customer_number", "role", "address_id", name=op.f("pk_customer_address")),
    )
    with op.batch_alter_table("customer_address", schema=None) as batch_op:
        batch_op.create_index("ix_customer_address_address", ["address_id"], unique=False)

    with op.batch_alter_table("customer", schema=None) as batch_op:
        batch_op.add_column(sa.Column("payment_type", sa.String(length=1), nullable=True))
        batch_op.add_column(sa.Column("expenses", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("shipping_type", sa.String(length=12), nullable=True))
        batch_op.add_column(sa.Column("transport_insurance_type", sa.String(length=12), nullable=True))
        batch_op.add_column(sa.Column("comment", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("tax_number", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("company_url", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("credit_limit", sa.Integer(), nullable=False, server_default="0"))
        batch_op.add_column(sa.Column("payment_methods", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("industry", sa.String(length=12), nullable=True))
        batch_op.add_column(sa.Column("contact_address_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("delivery_address_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("billing_address_id", sa.Integer(), nullable=True))
        # Customers that exist already have no known creation time.
        batch_op.add_column(sa.Column("created_at", datasources.models.base.UtcDateTime(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_customer_contact_address_id_address"),
            "address",
            ["contact_address_id"],
            ["id"],
            use_alter=True,
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_customer_billing_address_id_address"),
            "address",
            ["billing_address_id"],
            ["id"],
            use_alter=True,
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_customer_delivery_address_id_address"),
            "address",
            ["delivery_address_id"],
            ["id"],
            use_alter=True,
        )

    # The first customer number handed out is 100001 (unless higher ones exist; see numbering.py).
    op.bulk_insert(number_sequence, [{"name": "customer", "last_value": 100000}])


def downgrade() -> None:
    with op.batch_alter_table("customer", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("fk_customer_delivery_address_id_address"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_customer_billing_address_id_address"), type_="foreignkey")
        batch_op.drop_constraint(batch_op.f("fk_customer_contact_address_id_address"), type_="foreignkey")
        batch_op.drop_column("created_at")
        batch_op.drop_column("billing_address_id")
        batch_op.drop_column("delivery_address_id")
        batch_op.drop_column("contact_address_id")
        batch_op.drop_column("industry")
        batch_op.drop_column("payment_methods")
        batch_op.drop_column("credit_limit")
        batch_op.drop_column("company_url")
        batch_op.drop_column("tax_number")
        batch_op.drop_column("comment")
        batch_op.drop_column("transport_insurance_type")
        batch_op.drop_column("shipping_type")
        batch_op.drop_column("expenses")
        batch_op.drop_column("payment_type")

    with op.batch_alter_table("customer_address", schema=None) as batch_op:
        batch_op.drop_index("ix_customer_address_address")

    op.drop_table("customer_address")
    op.drop_table("customer_attribute")
    with op.batch_alter_table("address", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_address_customer_number"))

    op.drop_table("address")
    op.drop_table("outbox_event")
    op.drop_table("number_sequence")
    op.drop_table("company_attribute")
