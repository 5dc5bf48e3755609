"""API users: the web shop and other clients that obtain tokens with HTTP Basic."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from datasources.clock import utcnow
from datasources.models.base import Base


class ApiUser(Base):
    __tablename__ = "api_user"
    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    secret_hash: Mapped[str] = mapped_column(String(255))
    scopes: Mapped[str] = mapped_column(String(255))  # space-separated, as in OAuth
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # Raised when the user is removed or rotated: tokens carry the version they were issued under.
    token_version: Mapped[int] = mapped_column(Integer, server_default="0", default=0)
