"""Log file maintenance (DELETE /www/log)."""

from __future__ import annotations

import asyncio

import strawberry

from datasources import logfiles
from schema.context import Context
from schema.permissions import IsAdmin


@strawberry.type(description="Result of deleting the log files.")
class LogFilesDeletePayload:
    deleted_count: int = strawberry.field(description="How many log files were removed.")


@strawberry.type
class LogsMutation:
    @strawberry.mutation(
        description="Deletes every log file of the service; logging carries on in new files.",
        permission_classes=[IsAdmin],
    )
    async def log_files_delete(self, info: strawberry.Info[Context]) -> LogFilesDeletePayload:
        count = await asyncio.to_thread(logfiles.delete_log_files, info.context.log_dir)
        info.context.reopen_logs()  # the deleted files' space is freed now, not at the next line
        return LogFilesDeletePayload(deleted_count=count)
