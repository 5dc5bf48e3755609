"""API users in the data layer: listing, removal, new secrets, and the token version tokens must match."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from datasources import users
from datasources.database import Database
from datasources.errors import InvalidInput, NotFound
from datasources.models import ApiUser
from datasources.users import TokenVersion

SECRET = "a-long-secret"


async def add(db: Database, name: str, *scopes: str) -> users.UserRecord:
    return await db.write(lambda session: users.add_user(session, name, SECRET, scopes or ("shop",)))


async def version_of(db: Database, name: str) -> TokenVersion | None:
    async with db.reader() as session:
        return await users.token_version(session, name)


async def test_a_new_user_is_listed_in_name_order_at_version_0(db: Database) -> None:
    before = dt.datetime.now(dt.UTC)
    added = await add(db, "webshop", "shop", "admin")
    await add(db, "catalogue-reader", "catalogue")

    async with db.reader() as session:
        listed = await users.list_users(session)

    assert [(user.name, user.scopes) for user in listed] == [
        ("catalogue-reader", ("catalogue",)),
        ("webshop", ("shop", "admin")),
    ]
    assert listed[1] == added
    assert before <= added.created_at <= dt.datetime.now(dt.UTC)
    assert added.token_version == TokenVersion.of(added.created_at, 0)
    assert await version_of(db, "webshop") == added.token_version


async def test_rotation_replaces_the_secret_and_raises_the_version(db: Database) -> None:
    added = await add(db, "webshop")

    rotated = await db.write(lambda session: users.rotate_user(session, "webshop", "a-new-long-secret"))
    again = await db.write(lambda session: users.rotate_user(session, "webshop", "a-third-long-secret"))

    assert rotated.token_version == TokenVersion(added.token_version.created, 1)
    assert again.token_version == TokenVersion(added.token_version.created, 2) > rotated.token_version
    assert (again.name, again.scopes, again.created_at) == (added.name, added.scopes, added.created_at)
    assert await version_of(db, "webshop") == again.token_version
    async with db.reader() as session:
        found = await users.find_user(session, "webshop")
    assert found is not None
    assert found[0] == again
    assert users.secret_matches(found[1], "a-third-long-secret")
    assert not users.secret_matches(found[1], SECRET)


async def test_rotation_refuses_a_short_secret_and_an_unknown_user(db: Database) -> None:
    added = await add(db, "webshop")

    with pytest.raises(InvalidInput, match="a secret has at least 8 characters"):
        await db.write(lambda session: users.rotate_user(session, "webshop", "short"))
    with pytest.raises(NotFound, match="there is no user 'nobody'"):
        await db.write(lambda session: users.rotate_user(session, "nobody", "a-new-long-secret"))

    assert await version_of(db, "webshop") == added.token_version
    assert await version_of(db, "nobody") is None


async def test_removal_deletes_the_user(db: Database) -> None:
    await add(db, "webshop")
    await add(db, "other")

    await db.write(lambda session: users.remove_user(session, "webshop"))

    assert await version_of(db, "webshop") is None
    async with db.reader() as session:
        assert await users.find_user(session, "webshop") is None
        assert list(await session.scalars(select(ApiUser.name))) == ["other"]
    with pytest.raises(NotFound, match="there is no user 'webshop'") as refused:
        await db.write(lambda session: users.remove_user(session, "webshop"))
    assert refused.value.code == "not_found"
    assert refused.value.field == "name"


async def test_a_user_added_again_after_removal_has_a_newer_version(db: Database) -> None:
    # Its number starts at 0 again; the creation time tells its tokens from the removed user's.
    first = await add(db, "webshop")
    await db.write(lambda session: users.remove_user(session, "webshop"))

    second = await add(db, "webshop")

    assert second.token_version.number == first.token_version.number == 0
    assert second.token_version > first.token_version
    assert await version_of(db, "webshop") == second.token_version


def test_versions_are_ordered_by_creation_then_number() -> None:
    created = dt.datetime(2026, 11, 25, 9, 0, 0, 123456, tzinfo=dt.UTC)

    version = TokenVersion.of(created, 3)

    assert version == TokenVersion(1_795_597_200_123_456, 3)
    assert TokenVersion.of(created, 2) < version < TokenVersion.of(created, 4)
    assert version < TokenVersion.of(created + dt.timedelta(microseconds=1), 0)
