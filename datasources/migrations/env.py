"""Alembic environment: always runs on a connection handed in by datasources.migrate."""

from __future__ import annotations

from alembic import context

from datasources.migrate import include_name
from datasources.models import Base

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run migrations through `gateway db upgrade` (datasources.migrate.upgrade)")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    include_name=include_name,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
