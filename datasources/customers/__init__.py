"""Customers and their addresses."""
