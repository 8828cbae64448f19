"""The dependency direction of DESIGN.md §1, enforced by walking every module's imports (AST).

ui → app → {ingestors, core}; ingestors → core; core imports no Qt, no network client, no watchdog,
and none of app/ui/ingestors; ui never reaches core.store or ingestors.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "core": {"app", "ui", "ingestors", "PySide6", "PyQt5", "PyQt6", "watchdog", "openai", "httpx", "requests",
             "urllib3", "aiohttp", "socket", "http"},
    "ingestors": {"app", "ui", "PySide6", "openai", "httpx", "requests", "core.store"},
    "app": {"ui"},
    "ui": {"core.store", "ingestors", "sqlmodel", "sqlalchemy", "chromadb"},
}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def modules(package: str):
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layer_imports(package):
    bad = []
    for path in modules(package):
        if package == "app" and path.name == "gui.py":
            continue  # the GUI entry point is the one app module allowed to import ui (DESIGN.md §1)
        for name in imports_of(path):
            for banned in FORBIDDEN[package]:
                if name == banned or name.startswith(banned + "."):
                    bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_every_layer_has_modules():
    for package in FORBIDDEN:
        assert modules(package), package
