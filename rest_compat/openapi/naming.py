"""Every operation's `operationId` and tag: the names client generators (openapi-typescript, openapi-generator)
give the functions and groups they make. One tag per resource of the specification."""

from __future__ import annotations

from typing import Any

Paths = dict[str, dict[str, Any]]

# (method, path) -> operationId; HEAD gets its GET's name with "Headers" appended.
OPERATION_IDS = {
    ("post", "/www/token"): "createToken",
    ("get", "/www/artikel"): "listArticles",
    ("get", "/www/artikel/{ArtNr}"): "getArticle",
    ("get", "/www/artikelaenderungen"): "listArticleChanges",
    ("get", "/www/artikelmedia/{ArtNr}"): "listArticleMedia",
    ("get", "/www/artikelmediadaten/{IDKey}"): "getArticleMediaFile",
    ("post", "/www/kunden"): "createCustomer",
    ("get", "/www/kunden/{DebiNr}"): "getCustomer",
    ("get", "/www/adressen"): "listCustomerAddresses",
    ("get", "/www/adressen/{AdrNr}"): "getAddress",
    ("patch", "/www/adressen/{AdrNr}"): "updateAddress",
    ("get", "/www/adressensuche"): "searchCustomerByAddress",
    ("post", "/www/auftrag"): "createOrder",
    ("put", "/www/auftrag"): "convertOfferToOrder",
    ("get", "/www/auftrag/{AuftNr}"): "getOrder",
    ("get", "/www/offerte"): "getOffer",
    ("post", "/www/offerte"): "createOffer",
    ("patch", "/www/offerte"): "updateOffer",
    ("post", "/www/zugferd"): "processEInvoice",
    ("options", "/www/zugferd"): "describeEInvoiceMethods",
    ("delete", "/www/log"): "deleteLogFiles",
}
# The first path segment after /www -> its tag, and the tag's description.
TAGS = {
    "token": ("Token", "Bearer tokens for HTTP Basic credentials"),
    "artikel": ("Artikel", "The exposed catalogue: articles, prices, stock, packaging units"),
    "artikelaenderungen": ("Artikel", ""),
    "artikelmedia": ("Artikel", ""),
    "artikelmediadaten": ("Artikel", ""),
    "kunden": ("Kunden", "Customers"),
    "adressen": ("Adressen", "A customer's addresses"),
    "adressensuche": ("Adressen", ""),
    "auftrag": ("Auftrag", "Orders"),
    "offerte": ("Offerte", "Offers, and templates of offers"),
    "zugferd": ("ZUGFeRD", "E-invoices: an XML invoice in a PDF"),
    "log": ("Log", "The gateway's log files (admin scope)"),
}


def named(paths: Paths) -> Paths:
    """The paths with an operationId and a tag on every operation."""
    result: Paths = {}
    for path, item in paths.items():
        tag = TAGS[path.split("/")[2]][0]
        result[path] = {
            key: value if key == "description" else {**value, "operationId": _operation_id(key, path), "tags": [tag]}
            for key, value in item.items()
        }
    return result


def tags() -> list[dict[str, str]]:
    return [{"name": name, "description": description} for name, description in TAGS.values() if description]


def _operation_id(method: str, path: str) -> str:
    if method == "head":
        return OPERATION_IDS["get", path] + "Headers"
    return OPERATION_IDS[method, path]
