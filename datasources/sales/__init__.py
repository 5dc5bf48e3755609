"""Offers and orders: pricing, taxes, numbering, conversion."""
