"""The article catalogue: exposure, views, prices, stock, packaging, declarations and media."""
