"""The ERP's attribute keys (PHKeys) the gateway reads, in one place: of articles (ArticleAttribute) and of
the company (CompanyAttribute). The migrations keep their own copies: a migration is frozen as it ran."""

from __future__ import annotations

# Of an article.
EXPOSED = "RESTWEBSHOP"  # the article exists for the web shop (and GraphQL): any contents
PACKAGING_UNITS = "WEBSHOPVPE"  # the packaging units shown, comma-separated codes; empty: all
USAGE = "VERWENDUNG"  # AMDVerwendung of the article's media records that name none

# Of the company.
EVENTS = "RESTEVENTS"  # the events recorded: comma-separated names, or "*"
