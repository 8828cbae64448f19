"""The personal knowledge graph (seed 002)."""
