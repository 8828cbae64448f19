from tests.core.memory.conftest import mem, near, unit  # noqa: F401  (shared fixtures)
