"""API users: creation and secret verification (argon2, a deliberately slow hash)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import Conflict, InvalidInput
from datasources.models import ApiUser

SCOPES = ("shop", "catalogue", "admin")
MAX_NAME_LENGTH = 64


@dataclass(frozen=True, slots=True)
class UserRecord:
    name: str
    scopes: tuple[str, ...]


@cache
def _hasher() -> PasswordHasher:
    return PasswordHasher()


@cache
def _dummy_hash() -> str:
    return _hasher().hash("not a secret of any user")


def hash_secret(secret: str) -> str:
    return _hasher().hash(secret)


def secret_matches(secret_hash: str | None, secret: str) -> bool:
    """Compare in constant work: an unknown user costs the same hash as a wrong secret."""
    try:
        return _hasher().verify(secret_hash or _dummy_hash(), secret) and secret_hash is not None
    except (VerificationError, InvalidHashError):
        return False


async def add_user(session: AsyncSession, name: str, secret: str, scopes: tuple[str, ...]) -> UserRecord:
    if not name or len(name) > MAX_NAME_LENGTH or ":" in name:
        raise InvalidInput(f"a user name has 1 to {MAX_NAME_LENGTH} characters and no colon", field="name")
    if len(secret) < 8:
        raise InvalidInput("a secret has at least 8 characters", field="secret")
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise InvalidInput(f"scopes are {', '.join(SCOPES)}; not {', '.join(unknown) or 'none'}", field="scope")
    if await session.get(ApiUser, name) is not None:
        raise Conflict(f"user {name!r} already exists", field="name")
    session.add(ApiUser(name=name, secret_hash=hash_secret(secret), scopes=" ".join(scopes)))
    return UserRecord(name, scopes)


async def find_user(session: AsyncSession, name: str) -> tuple[UserRecord, str] | None:
    """The user and the stored hash; verification runs off the event loop in the caller."""
    row = (
        await session.execute(select(ApiUser.name, ApiUser.scopes, ApiUser.secret_hash).where(ApiUser.name == name))
    ).one_or_none()
    if row is None:
        return None
    return UserRecord(row.name, tuple(row.scopes.split())), row.secret_hash
