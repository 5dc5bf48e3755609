"""Words the demo data is built from, in the four catalogue languages (ISO 639-2/B)."""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("ger", "fre", "ita", "eng")

# One phrase per language, in the order of LANGUAGES.
Phrase = tuple[str, str, str, str]


@dataclass(frozen=True, slots=True)
class Product:
    group: str
    unit: str
    name: Phrase
    sizes: tuple[str, ...]


PRODUCTS = (
    Product("WERKZEUG", "Stk", ("Hammer", "Marteau", "Martello", "Hammer"), ("300 g", "500 g", "800 g")),
    Product(
        "WERKZEUG",
        "Stk",
        ("Schraubenschlüssel", "Clé plate", "Chiave fissa", "Spanner"),
        ("8 mm", "10 mm", "13 mm", "17 mm"),
    ),
    Product(
        "WERKZEUG",
        "Stk",
        ("Schraubenzieher", "Tournevis", "Cacciavite", "Screwdriver"),
        ("PH1", "PH2", "4 mm"),
    ),
    Product(
        "WERKZEUG",
        "Stk",
        ("Kombizange", "Pince universelle", "Pinza universale", "Pliers"),
        ("160 mm", "200 mm"),
    ),
    Product("WERKZEUG", "Stk", ("Fuchsschwanzsäge", "Scie égoïne", "Sega a mano", "Handsaw"), ("400 mm", "550 mm")),
    Product(
        "WERKZEUG",
        "Stk",
        ("Wasserwaage", "Niveau à bulle", "Livella a bolla", "Spirit level"),
        ("60 cm", "100 cm"),
    ),
    Product("GARTEN", "Stk", ("Giesskanne", "Arrosoir", "Annaffiatoio", "Watering can"), ("5 l", "10 l")),
    Product(
        "GARTEN",
        "m",
        ("Gartenschlauch", "Tuyau d'arrosage", "Tubo da giardino", "Garden hose"),
        ('1/2"', '3/4"'),
    ),
    Product(
        "GARTEN",
        "kg",
        ("Rasensamen", "Semences de gazon", "Semi per prato", "Lawn seed"),
        ("Sport", "Schatten"),
    ),
    Product("GARTEN", "kg", ("Dünger", "Engrais", "Concime", "Fertiliser"), ("NPK 10-5-20", "Bio")),
    Product(
        "GARTEN",
        "Stk",
        ("Gartenschere", "Sécateur", "Forbici da giardino", "Pruning shears"),
        ("20 mm", "25 mm"),
    ),
    Product("BUERO", "Stk", ("Ordner", "Classeur", "Raccoglitore", "Binder"), ("A4 5 cm", "A4 7 cm")),
    Product("BUERO", "Stk", ("Kugelschreiber", "Stylo à bille", "Penna a sfera", "Ballpoint pen"), ("M", "F")),
    Product("BUERO", "Stk", ("Notizblock", "Bloc-notes", "Blocco note", "Notepad"), ("A5", "A6")),
    Product("BUERO", "Stk", ("Bürostuhl", "Chaise de bureau", "Sedia da ufficio", "Office chair"), ("Modell 2",)),
    Product(
        "ELEKTRO",
        "m",
        ("Installationskabel", "Câble d'installation", "Cavo d'installazione", "Cable"),
        ("3x1.5 mm²", "5x2.5 mm²"),
    ),
    Product("ELEKTRO", "Stk", ("LED-Lampe", "Ampoule LED", "Lampadina LED", "LED bulb"), ("E27 9 W", "E14 5 W")),
    Product("ELEKTRO", "Stk", ("Verlängerungskabel", "Rallonge", "Prolunga", "Extension lead"), ("5 m", "10 m")),
    Product("REINIGUNG", "l", ("Reinigungsmittel", "Détergent", "Detergente", "Cleaning agent"), ("Zitrus",)),
    Product("REINIGUNG", "l", ("Entkalker", "Détartrant", "Decalcificante", "Descaler"), ("Konzentrat",)),
    Product("REINIGUNG", "l", ("Flüssigseife", "Savon liquide", "Sapone liquido", "Liquid soap"), ("Aloe",)),
)

# Mostly empty, so that most designations are a plain name and size.
VARIANTS: tuple[Phrase | None, ...] = (
    None,
    None,
    None,
    ("verzinkt", "zingué", "zincato", "galvanised"),
    ("rostfrei", "inoxydable", "inossidabile", "stainless"),
    ("Profi", "professionnel", "professionale", "professional"),
    ("ökologisch", "écologique", "ecologico", "eco-friendly"),
    ("hohe Qualität", "qualité supérieure", "alta qualità", "premium quality"),
    # The en dash is outside ISO-8859-1, which the REST layer must escape.
    (
        "Set \N{EN DASH} 2 Stück",
        "lot \N{EN DASH} 2 pièces",
        "set \N{EN DASH} 2 pezzi",
        "set \N{EN DASH} 2 pieces",
    ),
)

ARTICLE_CLASSES = ("STANDARD", "PREMIUM", "AKTION", "AUSLAUF", "NEU")
COLOUR_MARKERS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)


@dataclass(frozen=True, slots=True)
class UnitOption:
    code: str
    factor: int
    designation: str


# Per article unit: the base packaging unit first, then larger ones.
PACKAGING_OPTIONS = {
    "Stk": (
        UnitOption("STK", 1, "Stück"),
        UnitOption("KAR", 12, "Karton à 12 Stk"),
        UnitOption("PAL", 480, "Palette à 480 Stk"),
    ),
    "m": (
        UnitOption("M", 1, "Meter"),
        UnitOption("ROL", 50, "Rolle à 50 m"),
        UnitOption("TRO", 500, "Trommel à 500 m"),
    ),
    "kg": (
        UnitOption("KG", 1, "Kilogramm"),
        UnitOption("SAC", 25, "Sack à 25 kg"),
        UnitOption("PAL", 1000, "Palette à 1000 kg"),
    ),
    "l": (
        UnitOption("L", 1, "Liter"),
        UnitOption("KAN", 10, "Kanister à 10 l"),
        UnitOption("FAS", 200, "Fass à 200 l"),
    ),
}

ORIGIN_COUNTRIES: dict[str, Phrase] = {
    "CH": ("Schweiz", "Suisse", "Svizzera", "Switzerland"),
    "DE": ("Deutschland", "Allemagne", "Germania", "Germany"),
    "IT": ("Italien", "Italie", "Italia", "Italy"),
    "CN": ("China", "Chine", "Cina", "China"),
    "AT": ("Österreich", "Autriche", "Austria", "Austria"),
}
ORIGIN_LABEL: Phrase = ("Ursprungsland", "Pays d'origine", "Paese d'origine", "Country of origin")
TARIFF_LABEL: Phrase = (
    "Zolltarifnummer",
    "Numéro de tarif douanier",
    "Numero di tariffa doganale",
    "Tariff number",
)
ORIGIN_SHORT: Phrase = ("Ursprung", "Origine", "Origine", "Origin")

DESCRIPTION: Phrase = (
    "Robust und langlebig, für den täglichen Einsatz in Werkstatt und Garten.",
    "Robuste et durable, pour l'usage quotidien à l'atelier et au jardin.",
    "Robusto e durevole, per l'uso quotidiano in officina e in giardino.",
    "Sturdy and durable, for everyday use in the workshop and the garden.",
)


def phrase(words: Phrase, language: str) -> str:
    return words[LANGUAGES.index(language)]
