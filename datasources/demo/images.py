"""Small real images for the demo media: a coloured square with the article number on it."""

from __future__ import annotations

from functools import cache
from io import BytesIO

from PIL import Image, ImageDraw, ImageFont

SIZE = 64


def png_image(label: str, colour: str) -> bytes:
    return _encode(_square(label, colour), "PNG", compress_level=1)


def jpeg_image(label: str, colour: str) -> bytes:
    return _encode(_square(label, colour), "JPEG", quality=80)


def _square(label: str, colour: str) -> Image.Image:
    image = Image.new("RGB", (SIZE, SIZE), colour)
    draw = ImageDraw.Draw(image)
    # Centred by hand: text anchors need FreeType, which a Pillow build may lack.
    left, top, right, bottom = draw.textbbox((0, 0), label, font=_font())
    origin = ((SIZE - right - left) / 2, (SIZE - bottom - top) / 2)
    draw.text(origin, label, fill="white", font=_font())
    return image


@cache
def _font() -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default()


def _encode(image: Image.Image, image_format: str, **options: int) -> bytes:
    buffer = BytesIO()
    image.save(buffer, image_format, **options)
    return buffer.getvalue()
