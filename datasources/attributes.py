"""Company attributes (the ERP's PHKey management of the REST interface): RESTEVENTS, ..."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.errors import InvalidInput
from datasources.models import CompanyAttribute

MAX_KEY = 12
MAX_CONTENTS = 200


async def set_attribute(session: AsyncSession, key: str, contents: str) -> CompanyAttribute:
    """Creates or changes the attribute. PHKeys are upper case in the ERP, and the gateway looks them up
    so: a key given in any case is stored in upper case."""
    key = key.strip().upper()
    if not key or len(key) > MAX_KEY or not key.isascii() or not key.replace("_", "").isalnum():
        raise InvalidInput(f"a PHKey is 1 to {MAX_KEY} ASCII letters, digits or _", field="key")
    if len(contents) > MAX_CONTENTS or "\x00" in contents:
        raise InvalidInput(f"the contents are at most {MAX_CONTENTS} characters, without NUL", field="contents")
    attribute = await session.get(CompanyAttribute, key)
    if attribute is None:
        attribute = CompanyAttribute(key=key, contents=contents)
        session.add(attribute)
    else:
        attribute.contents = contents
    await session.flush()
    return attribute


async def list_attributes(session: AsyncSession) -> list[tuple[str, str]]:
    rows = await session.execute(select(CompanyAttribute.key, CompanyAttribute.contents).order_by(CompanyAttribute.key))
    return [(key, contents) for key, contents in rows]
