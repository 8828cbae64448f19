"""Small named operations the CLI and the window both call (DESIGN.md §1, the Anki habit).

Each takes the :class:`app.container.Container` first.  Results are plain
dataclasses with ``to_json()``; nothing here imports Qt.
"""
from app.operations.types import AskResult, EntityRow, IngestError, IngestProgress, IngestReport  # noqa: F401
