"""Origin declarations (Deklaration) of an article, in some of the catalogue languages."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from datasources.demo.rows import Batch, Ids
from datasources.demo.vocabulary import (
    LANGUAGES,
    ORIGIN_COUNTRIES,
    ORIGIN_LABEL,
    ORIGIN_SHORT,
    TARIFF_LABEL,
    phrase,
)
from datasources.models import Declaration

if TYPE_CHECKING:
    from datasources.demo.catalogue import DemoArticle


def add_declarations(rng: random.Random, ids: Ids, batch: Batch, article: DemoArticle) -> None:
    if rng.random() >= 0.3:
        return
    country = rng.choice(sorted(ORIGIN_COUNTRIES))
    tariff = f"{rng.randint(3900, 9619)}.{rng.randint(0, 99):02d}00" if rng.random() < 0.7 else None
    origin = ORIGIN_COUNTRIES[country]
    for language in rng.sample(LANGUAGES, rng.randint(1, len(LANGUAGES))):
        batch.add(
            Declaration,
            {
                "id": ids.next(Declaration),
                "article_id": article.id,
                "language": language,
                "designation1": f"{phrase(ORIGIN_LABEL, language)}: {phrase(origin, language)}",
                "designation2": None if tariff is None else f"{phrase(TARIFF_LABEL, language)} {tariff}",
                "short_designation": f"{phrase(ORIGIN_SHORT, language)} {country}",
                "country": country,
            },
        )
