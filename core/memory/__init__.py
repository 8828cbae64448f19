"""The cognitive memory (seed 001): sensory buffer, working memory, episodes, recall cascade,
consolidation, beliefs, goals, procedures, self-model, unlearn.  Pure Python + numpy (+ mlx)."""
