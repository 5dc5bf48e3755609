"""ISO code checks (pycountry): languages ISO 639-2/B, countries ISO 3166 alpha-2, currencies ISO 4217."""

from __future__ import annotations

from functools import cache

import pycountry

from datasources.errors import InvalidInput


@cache
def _bibliographic_languages() -> frozenset[str]:
    # ISO 639-2/B: the bibliographic code where it differs (ger, fre), else the alpha-3 code (ita, eng).
    return frozenset(getattr(lang, "bibliographic", lang.alpha_3) for lang in pycountry.languages)


def language(code: str, *, field: str) -> str:
    normalised = code.strip().lower()
    if normalised not in _bibliographic_languages():
        raise InvalidInput(f"{code!r} is not an ISO 639-2/B language code (e.g. ger, fre, ita, eng)", field=field)
    return normalised


def currency(code: str, *, field: str) -> str:
    normalised = code.strip().upper()
    if len(normalised) != 3 or pycountry.currencies.get(alpha_3=normalised) is None:
        raise InvalidInput(f"{code!r} is not an ISO 4217 currency code", field=field)
    return normalised


def country(code: str, *, field: str) -> str:
    normalised = code.strip().upper()
    if len(normalised) != 2 or pycountry.countries.get(alpha_2=normalised) is None:
        raise InvalidInput(f"{code!r} is not an ISO 3166 alpha-2 country code", field=field)
    return normalised


def language_codes() -> frozenset[str]:
    return _bibliographic_languages()


@cache
def currency_codes() -> frozenset[str]:
    return frozenset(currency.alpha_3 for currency in pycountry.currencies)


@cache
def country_codes() -> frozenset[str]:
    return frozenset(country.alpha_2 for country in pycountry.countries)
