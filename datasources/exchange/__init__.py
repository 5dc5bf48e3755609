"""The catalogue in and out: the article record, `gateway export` and `gateway import`."""

from datasources.exchange.exporting import BadFilter, Filter, count_articles, export_records
from datasources.exchange.importing import Options, Report, import_entries, upsert_records
from datasources.exchange.record import check_record, json_schema

__all__ = [
    "BadFilter",
    "Filter",
    "Options",
    "Report",
    "check_record",
    "count_articles",
    "export_records",
    "import_entries",
    "json_schema",
    "upsert_records",
]
