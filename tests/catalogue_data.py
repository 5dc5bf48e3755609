"""A small catalogue in which every rule of the specification shows, with hand-known answers."""

from __future__ import annotations

from dataclasses import dataclass

from datasources.models import Article
from tests.factories import Factory, unit


@dataclass
class Catalogue:
    hammer: Article  # no packaging units; tiers in STD (CHF, EUR) and one WV price; stock in 3 warehouses
    screws: Article  # STK/KAR/PAL units; WEBSHOPVPE lets KAR and STK through
    pliers: Article  # no price at all; German designation only
    hidden: Article  # not exposed (no RESTWEBSHOP)
    drill: Article  # prices only in the WV list (and BRUTTO)
    dowel: Article  # units with an empty WEBSHOPVPE: all units


async def build_catalogue(factory: Factory) -> Catalogue:
    lists = await factory.reference_data()
    main = await factory.warehouse("Hauptlager", 1)
    branch = await factory.warehouse("Filiale", 2)
    blocked = await factory.warehouse("Sperrlager", 9, released=False)

    hammer = await factory.article(
        "A-100",
        designations={"ger": "Hammer", "fre": "Marteau", "ita": "Martello", "eng": "Claw hammer"},
        tax_code="R26",
        group="WERKZEUG",
        article_class="HAND",
        colour="#1f77b4",
        procurement_type="E",
        attributes={"VERWENDUNG": "WEB"},
    )
    for quantity, amount in (("1", "12.50"), ("10", "11.00"), ("50", "9.90")):
        await factory.price(hammer, amount, min_quantity=quantity)
    await factory.price(hammer, "13.00", currency="EUR")
    await factory.price(hammer, "10.00", price_list=lists["WV"])
    await factory.stock(hammer, main, "10", reserved=["2", "1"])
    await factory.stock(hammer, branch, "2", reserved=["5"])
    await factory.stock(hammer, blocked, "100")
    await factory.declaration(hammer, "ger", designation1="Ursprung Schweiz", short_designation="CH", country="CH")
    await factory.declaration(hammer, "fre", designation1="Origine Suisse", country="CH")

    screws = await factory.article(
        "A-200",
        designations={"ger": "Schrauben", "fre": "Vis"},
        group="BEFESTIG",
        attributes={"WEBSHOPVPE": "KAR, stk"},
        units=[
            unit("STK", "1", ean="7610000000017"),
            unit("KAR", "12", ean="7610000000024", designation="Karton", weight="1.2"),
            unit("PAL", "480", ean="7610000000031"),
        ],
    )
    await factory.price(screws, "2.00", unit="STK")
    await factory.price(screws, "22.00", unit="KAR")
    await factory.price(screws, "20.00", unit="KAR", min_quantity="5")
    await factory.price(screws, "800.00", unit="PAL")
    await factory.stock(screws, main, "50", unit="STK")
    await factory.stock(screws, main, "4", unit="KAR", reserved=["1"])

    pliers = await factory.article("A-300", designations={"ger": "Zange"}, group="WERKZEUG")
    hidden = await factory.article("A-400", designations={"ger": "Intern"}, exposed=False)
    await factory.price(hidden, "1.00")

    drill = await factory.article("A-500", designations={"ger": "Bohrer", "fre": "Foret"}, group="WERKZEUG")
    await factory.price(drill, "30.00", price_list=lists["WV"])
    await factory.price(drill, "39.90", price_list=lists["BRUTTO"])
    await factory.stock(drill, main, "0")

    dowel = await factory.article(
        "A-600",
        designations={"ger": "Dübel", "fre": "Cheville"},
        attributes={"WEBSHOPVPE": ""},
        units=[unit("STK", "1"), unit("BTL", "100")],
    )
    await factory.price(dowel, "0.10", unit="STK")

    await factory.customer("100001", language="fre", price_list_type="WV", designation="Bricolage SA")
    await factory.customer("100002", language="ger", designation="Muster AG")
    await factory.customer("100003", language="ita", price_list_type="BRUTTO", designation="Ferramenta")
    return Catalogue(hammer, screws, pliers, hidden, drill, dowel)
