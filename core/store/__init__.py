"""Persistence behind typed functions; no other package writes SQL (DESIGN.md §1)."""
