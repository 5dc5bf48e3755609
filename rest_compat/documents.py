"""What offers and orders share at the REST edge: their output structure and their input records."""

from __future__ import annotations

from rest_compat.addresses import ADDRESS_INPUT
from rest_compat.inputs import In, InputShape
from rest_compat.shapes import Field, Group, Shape

# The address record as output of orders and offers (ISOLandA2: the ISO 3166 alpha-2 code of OrtLand).
DOCUMENT_ADDRESS = Shape(
    {
        "AdrNr": Field("number"),
        "AdrFirma": Field("company"),
        "AdrFirma2": Field("company2"),
        "AdrVorname": Field("firstName"),
        "AdrName": Field("lastName"),
        "AdrAdresse1": Field("line1"),
        "AdrAdresse2": Field("line2"),
        "AdrTelex": Field("mobile"),
        "AdrTf1": Field("phone1"),
        "AdrTf2": Field("phone2"),
        "AdrFax": Field("fax"),
        "OrtName": Field("place"),
        "OrtPLZ": Field("postalCode"),
        "OrtLand": Field("country"),
        "EmailAdress": Field("email"),
        "ISOLandA2": Field("country"),
    }
)

ADDRESSES = Group(
    Shape(
        {
            "KontaktAdr": Field("contactAddress", shape=DOCUMENT_ADDRESS, null_record=True),
            "LiefAdr": Field("deliveryAddress", shape=DOCUMENT_ADDRESS, null_record=True),
            "RechAdr": Field("billingAddress", shape=DOCUMENT_ADDRESS, null_record=True),
        }
    )
)

POSITION = Shape(
    {
        "PosNr": Field("number"),
        "VisPosNr": Field("displayNumber"),
        "ArtNr": Field("articleNumber"),
        "PosBez": Field("text"),
        "PosAnzBest": Field("quantity"),
        "PosPreisBasis": Field("priceBasis"),
        "PosPreisEinzel": Field("unitPrice"),
        "PosPreisTotal": Field("total"),
        "PosPreisWUSTBetrag": Field("taxAmount"),
        "VPEAnzBest": Field("packagingQuantity"),
        "VPEPreisEinzel": Field("packagingUnitPrice"),
        "VPEinheit": Field("packagingUnit"),
        "WUSTSatz": Field("taxRate"),
        "GRabSatz": Field("discountRate"),
        "GRabBez": Field("discountDesignation"),
    }
)

TAX_SUMMARY = Shape(
    {
        "Abschnitt": Field("section"),
        "WaehrAbk": Field("currency"),
        "PosWUST": Field("tax"),
        "PosVSTSZiffer": Field("inputTaxLine"),
        "PosWUSTSatz": Field("rate"),
        "PosWUSTBez": Field("designation"),
        "PosBetragNetto": Field("net"),
        "PosUSTSZiffer": Field("salesTaxLine"),
        "PosWUSTCode": Field("code"),
        "PosWUSTKlasse": Field("taxClass"),
        "PosUSTUZiffer": Field("turnoverLine"),
    }
)

PAYMENT = Shape({"Bezeichnung": Field("designation"), "Wert": Field("value"), "Key": Field("key")})

# The GraphQL fields of the types these shapes show that REST leaves out, and why: every other field of those
# types must be in a shape (tests/rest_compat/test_field_coverage.py), so a new field is a decision.
GRAPHQL_ONLY = {
    "SalesDocument": {
        "kind": "the route says it (/www/auftrag, /www/offerte)",
        "offerNumber": "an order's GrundDaten has no OffertNr in the specification",
        "costUnit": "KTNr is input only in the specification",
        "capturedAt": "the specification's documents show no capture time",
        "roundingAmount": "AuftBrutto already holds it (AuftNetto + AuftWUST rounded to the cash step)",
    }
}
POSITIONS = Field("positions", shape=POSITION)
TAX_SUMMARIES = Field("taxSummary", shape=TAX_SUMMARY)
PAYMENTS = Field("payments", shape=PAYMENT)

ORDER_POSITION_INPUT = InputShape(
    {
        "ArtNr": In("articleNumber", required=True),
        "PosBez": In("text"),
        "Menge": In("quantity", float, required=True),
        "Preis": In("price", float),
        "VPEinheit": In("packagingUnit"),
        "GRabSatz": In("discountRate", float),
        "VisPosNr": In("displayNumber", int),
    },
    graphql_type="PositionInput",
)
# The specification lists no Preis for offers ("prices are calculated by the rules stored in the ERP"):
# one sent is ignored like any field the interface does not know.
OFFER_POSITION_INPUT = InputShape(
    {name: entry for name, entry in ORDER_POSITION_INPUT.fields.items() if name != "Preis"},
    graphql_type="PositionInput",
)
PAYMENT_INPUT = InputShape(
    {"Bezeichnung": In("designation", required=True), "Wert": In("value")}, graphql_type="PaymentInput"
)
ADDRESSES_INPUT = In(
    "",
    shape=InputShape(
        {
            "KontaktAdr": In("contactAddress", shape=ADDRESS_INPUT),
            "LiefAdr": In("deliveryAddress", shape=ADDRESS_INPUT),
            "RechAdr": In("billingAddress", shape=ADDRESS_INPUT),
        },
        graphql_type="DocumentInput",
    ),
)
HEADER_INPUT = {
    "KundNr": In("customerNumber"),
    "AuftBestellNr": In("externalNumber"),
    "AuftBez": In("description"),
    "AuftBestellRef": In("reference"),
    "AuftBestellT": In("orderedAt"),
    "AuftLieferT": In("deliveryAt"),
    "WaehrAbk": In("currency"),
    "AuftKomment": In("comment"),
    "KTNr": In("costUnit"),
}

ORDER_INPUT = InputShape(
    {
        "GrundDaten": In(
            "",
            required=True,
            shape=InputShape(
                {
                    **HEADER_INPUT,
                    "KundNr": In("customerNumber", required=True),
                    "StaoNr": In("location", int),
                    "KundBedTyp": In("paymentCondition", int),
                    "AuftLiefKost": In("deliveryCosts", float),
                },
                graphql_type="DocumentInput",
            ),
        ),
        "Zahlung": In("payments", shape=PAYMENT_INPUT, many=True, limit="payments"),
        "Adressen": ADDRESSES_INPUT,
        "Positionen": In("positions", shape=ORDER_POSITION_INPUT, many=True, limit="positions", required=True),
    },
    graphql_type="DocumentInput",
)

OFFER_INPUT = InputShape(
    {
        "GrundDaten": In("", shape=InputShape(HEADER_INPUT, graphql_type="DocumentInput")),
        "Adressen": ADDRESSES_INPUT,
        "Positionen": In("positions", shape=OFFER_POSITION_INPUT, many=True, limit="positions", required=True),
    },
    graphql_type="DocumentInput",
)

PAYLOAD_ERRORS = "errors { field code message info }"
