"""The e-invoice toolkit: ZUGFeRD / Factur-X / XRechnung PDFs made (Combine) and read (Extract)."""

from datasources.einvoice.combine import combine
from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.extract import extract
from datasources.einvoice.isolation import shutdown_workers
from datasources.einvoice.model import EInvoiceFile
from datasources.einvoice.operation import run_operation

__all__ = ["EInvoiceError", "EInvoiceFile", "combine", "extract", "run_operation", "shutdown_workers"]
