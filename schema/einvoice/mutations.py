"""E-invoices (POST /www/zugferd): Combine embeds an invoice XML into a PDF, Extract reads it out."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.scalars import JSON, Base64

from datasources import einvoice
from schema.context import Context
from schema.permissions import IsShop, Scope


@strawberry.enum(description="Why an e-invoice operation failed.")
class EInvoiceErrorCode(Enum):
    ENDPOINT = "endpoint"


@strawberry.type(description="The file an e-invoice operation produced.")
class EInvoiceFile:
    file_name: str = strawberry.field(description="invoice.pdf, or the attachment's name (factur-x.xml, ...).")
    content_type: str = strawberry.field(description="application/pdf or application/xml.")
    content: Base64
    log: list[str] = strawberry.field(description="The toolkit's log lines of this call.")


@strawberry.type(description="A failed e-invoice operation, as the ZUGFeRD endpoint reports it.")
class EInvoiceError:
    field: str | None = strawberry.field(description="PDF, XML or Operation where one of them is at fault.")
    code: EInvoiceErrorCode
    message: str
    info: JSON = strawberry.field(description="{filename: the work file, subprocess_output: the log lines}.")


@strawberry.type(description="The file, or why there is none.")
class EInvoicePayload:
    file: EInvoiceFile | None
    errors: list[EInvoiceError]


@strawberry.input(description="An e-invoice operation (the body of POST /www/zugferd).")
class EInvoiceInput:
    operation: str | None = strawberry.field(default=None, description="Operation: Combine or Extract.")
    pdf: str | None = strawberry.field(default=None, description="PDF: the PDF, base64.")
    xml: str | None = strawberry.field(default=None, description="XML: the CII invoice, base64 (Combine).")
    verbose: bool | None = strawberry.field(
        default=False, description="Verbose: the log lines also go to the log (null: false)."
    )
    debug: bool | None = strawberry.field(
        default=False,
        description="Debug: keep the work files of a call that succeeds in the work directory (null: false). "
        "Only for a token with the admin scope; ignored for others.",
    )


@strawberry.type
class EInvoiceMutation:
    @strawberry.mutation(
        description="Combine (PDF + CII XML -> ZUGFeRD/Factur-X PDF) or Extract (e-invoice PDF -> XML).",
        permission_classes=[IsShop],
    )
    async def einvoice(self, info: strawberry.Info[Context], input: EInvoiceInput) -> EInvoicePayload:
        user = info.context.user
        try:
            result = await einvoice.run_operation(
                input.operation or "",
                input.pdf,
                input.xml,
                verbose=bool(input.verbose),
                # Work files hold a shop's invoices and take disk space: an operator's, not every shop's.
                debug=bool(input.debug) and user is not None and user.has(Scope.ADMIN),
                work_dir=info.context.work_dir,
                max_work_bytes=info.context.max_work_bytes,
            )
        except einvoice.EInvoiceError as error:
            problem = EInvoiceError(
                field=error.field, code=EInvoiceErrorCode.ENDPOINT, message=error.message, info=JSON(error.info)
            )
            return EInvoicePayload(file=None, errors=[problem])
        file = EInvoiceFile(
            file_name=result.file_name,
            content_type=result.content_type,
            content=Base64(result.content),
            log=list(result.log),
        )
        return EInvoicePayload(file=file, errors=[])
