"""Enums of the catalogue schema."""

from __future__ import annotations

from enum import Enum

import strawberry

from datasources.catalogue.ordering import SortField


@strawberry.enum(description="Fields articles can be sorted by (their ERP names in brackets).")
class ArticleSortField(Enum):
    NUMBER = SortField.NUMBER.value  # ArtNr
    DESIGNATION = SortField.DESIGNATION.value  # ArtBez, in the output language
    GROUP = SortField.GROUP.value  # ArtGruppe
    ARTICLE_CLASS = SortField.ARTICLE_CLASS.value  # ArtKlasse
    UNIT = SortField.UNIT.value  # Einheit
    STATUS = SortField.STATUS.value  # ArtikelStatus
    COLOUR = SortField.COLOUR.value  # Farbe
    STOCK_MANAGED = SortField.STOCK_MANAGED.value  # AnLager
    PROCUREMENT_TYPE = SortField.PROCUREMENT_TYPE.value  # BeschaffungsArt
    PROCESSING_TYPE = SortField.PROCESSING_TYPE.value  # VerarbeitungsArt
    WEIGHT = SortField.WEIGHT.value  # ArtGewicht
    TAX_RATE = SortField.TAX_RATE.value  # WUSTSatz
    MODIFIED_AT = SortField.MODIFIED_AT.value  # GeaendertAmUTC


@strawberry.enum(description="Sort direction.")
class SortDirection(Enum):
    ASC = "asc"
    DESC = "desc"
