"""token version of API users

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 09:00:00

Every token carries its user's token version; removing or rotating a user raises it, so tokens issued
before are refused (gateway/auth). Existing users start at 0, the version their tokens would carry.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # recreate="never": ALTER TABLE in place, as in 0005 (a NOT NULL column with a server default).
    with op.batch_alter_table("api_user", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("token_version", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("api_user", schema=None) as batch_op:
        batch_op.drop_column("token_version")
