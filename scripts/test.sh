#!/usr/bin/env bash
# Set everything up (venv with torch CPU + tilelang, the gfx942 device toolchain) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-venv.sh test
. .venv/bin/activate
porter toolchain setup
bash scripts/fetch-sarif-schema.sh
python -m pytest -q "$@"
