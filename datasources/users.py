"""API users: creation, listing, removal, new secrets (argon2, a deliberately slow hash), and the token
version that lets the gateway refuse the tokens of a removed or rotated user."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.clock import utcnow
from datasources.errors import Conflict, InvalidInput, NotFound
from datasources.models import ApiUser

SCOPES = ("shop", "catalogue", "admin", "metrics")
MAX_NAME_LENGTH = 64
MIN_SECRET_LENGTH = 8
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


@dataclass(frozen=True, slots=True, order=True)
class TokenVersion:
    """What a user's tokens carry, and must still match to be accepted. `number` (the row's token_version)
    is raised by every rotation; `created` (the user's creation, in microseconds since 1970) tells a user
    added again under a removed user's name apart, as its number starts at 0 once more. Ordered: a larger
    version is a newer one."""

    created: int
    number: int

    @classmethod
    def of(cls, created_at: dt.datetime, number: int) -> TokenVersion:
        return cls((created_at - _EPOCH) // dt.timedelta(microseconds=1), number)


@dataclass(frozen=True, slots=True)
class UserRecord:
    name: str
    scopes: tuple[str, ...]
    created_at: dt.datetime
    token_version: TokenVersion

    @classmethod
    def of(cls, row: ApiUser) -> UserRecord:
        return cls(
            row.name, tuple(row.scopes.split()), row.created_at, TokenVersion.of(row.created_at, row.token_version)
        )


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


def _checked_secret(secret: str) -> str:
    if len(secret) < MIN_SECRET_LENGTH:
        raise InvalidInput(f"a secret has at least {MIN_SECRET_LENGTH} characters", field="secret")
    return secret


async def add_user(session: AsyncSession, name: str, secret: str, scopes: tuple[str, ...]) -> UserRecord:
    if not name or len(name) > MAX_NAME_LENGTH or ":" in name:
        raise InvalidInput(f"a user name has 1 to {MAX_NAME_LENGTH} characters and no colon", field="name")
    _checked_secret(secret)
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise InvalidInput(f"scopes are {', '.join(SCOPES)}; not {', '.join(unknown) or 'none'}", field="scope")
    if await session.get(ApiUser, name) is not None:
        raise Conflict(f"user {name!r} already exists", field="name")
    row = ApiUser(
        name=name, secret_hash=hash_secret(secret), scopes=" ".join(scopes), created_at=utcnow(), token_version=0
    )
    session.add(row)
    return UserRecord.of(row)


async def find_user(session: AsyncSession, name: str) -> tuple[UserRecord, str] | None:
    """The user and the stored hash; verification runs off the event loop in the caller."""
    row = await session.get(ApiUser, name)
    if row is None:
        return None
    return UserRecord.of(row), row.secret_hash


async def list_users(session: AsyncSession) -> list[UserRecord]:
    return [UserRecord.of(row) for row in await session.scalars(select(ApiUser).order_by(ApiUser.name))]


async def remove_user(session: AsyncSession, name: str) -> None:
    """Deletes the user: it gets no token any more, and the tokens it has are refused (gateway/auth)."""
    result = await session.execute(delete(ApiUser).where(ApiUser.name == name))
    if result.rowcount == 0:  # type: ignore[attr-defined]
        raise _unknown(name)


async def rotate_user(session: AsyncSession, name: str, secret: str) -> UserRecord:
    """Gives the user a new secret and raises its token version, so that its earlier tokens are refused."""
    secret_hash = hash_secret(_checked_secret(secret))
    row = (
        await session.scalars(
            update(ApiUser)
            .where(ApiUser.name == name)
            .values(secret_hash=secret_hash, token_version=ApiUser.token_version + 1)
            .returning(ApiUser)
        )
    ).one_or_none()
    if row is None:
        raise _unknown(name)
    return UserRecord.of(row)


async def token_version(session: AsyncSession, name: str) -> TokenVersion | None:
    """The version the user's tokens must carry; None when there is no such user (any more)."""
    row = (
        await session.execute(select(ApiUser.created_at, ApiUser.token_version).where(ApiUser.name == name))
    ).one_or_none()
    return None if row is None else TokenVersion.of(row.created_at, row.token_version)


def _unknown(name: str) -> NotFound:
    return NotFound(f"there is no user {name!r}", field="name", info={"name": name})
