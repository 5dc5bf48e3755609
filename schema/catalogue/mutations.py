"""Catalogue mutations (admin scope): article records pushed over HTTP by an ERP, as `gateway import` reads
them from a file (datasources/exchange: the same record, the same checks, the same "unchanged is not
written" rule)."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from datasources.exchange import Options, upsert_records
from datasources.exchange.importing import Rejection
from schema.context import Context
from schema.permissions import IsAdmin

RECORDS = (
    "Article records, as `gateway export` writes them and `gateway export --schema` describes them (keys "
    "are the REST names: ArtNr, ArtBez, Preis, ...); images inline in base64, never as a path. At most "
    "GATEWAY_MAX_UPSERT_RECORDS."
)


@strawberry.type(description="What a record must hold and does not.")
class RecordProblem:
    field: str = strawberry.field(description="Where in the record, dotted: Preis.STD.CHF[0].PreisList.")
    expected: str = strawberry.field(description="What that place must hold.")


@strawberry.type(description="A record that was not imported, and why.")
class RecordRejection:
    record: int = strawberry.field(description="Its place in `records`, 1 for the first.")
    problems: list[RecordProblem]

    @classmethod
    def of(cls, rejection: Rejection) -> RecordRejection:
        problems = [RecordProblem(field=p.field, expected=p.expected) for p in rejection.problems]
        return cls(record=rejection.number, problems=problems)


@strawberry.type(description="What articlesUpsert did, or would do with dryRun.")
class ArticlesUpsertPayload:
    new: int = strawberry.field(description="Articles created (or, with dryRun, that would be).")
    changed: int = strawberry.field(description="Articles whose stored record differed, written.")
    unchanged: int = strawberry.field(description="Articles whose record equals what is stored: not written.")
    rejected: int = strawberry.field(description="Records refused; see `rejections`.")
    committed: bool = strawberry.field(
        description="Whether anything was stored: false with dryRun, and when a record was rejected without "
        "`partial` (then nothing is)."
    )
    rejections: list[RecordRejection] = strawberry.field(description="The first 100 rejected records.")


@strawberry.type
class CatalogueMutation:
    @strawberry.mutation(
        description="Creates or updates articles by ArtNr from article records, in one transaction: all or "
        "nothing unless `partial`. A record equal to what is stored writes nothing (its GeaendertAmUTC and "
        "change stamps stay). New articles are exposed to the web shop unless the record says WebShop: false.",
        permission_classes=[IsAdmin],
    )
    async def articles_upsert(
        self,
        info: strawberry.Info[Context],
        records: Annotated[list[JSON], strawberry.argument(description=RECORDS)],
        dry_run: Annotated[bool, strawberry.argument(description="Check and count; store nothing.")] = False,
        partial: Annotated[
            bool, strawberry.argument(description="Store the good records, reject the bad ones.")
        ] = False,
    ) -> ArticlesUpsertPayload:
        options = Options(dry_run=dry_run, partial=partial, base=None)
        report = await upsert_records(info.context.db, records, options)
        return ArticlesUpsertPayload(
            new=report.new,
            changed=report.changed,
            unchanged=report.unchanged,
            rejected=report.rejected,
            committed=report.committed,
            rejections=[RecordRejection.of(rejection) for rejection in report.rejections],
        )
