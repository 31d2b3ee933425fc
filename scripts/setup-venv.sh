#!/usr/bin/env bash
# Create .venv (if needed) and install porter into it. Usage: scripts/setup-venv.sh [test]
#   (no argument)  porter itself: libclang, click, jinja2 — enough for `porter analyze`
#   test           plus torch 2.13.0 (CPU), tilelang, pytest, hypothesis, jsonschema — everything the tests use
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  if ! "$PY" -m venv .venv 2>/dev/null; then
    # Debian ships venv separately
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
      rm -rf .venv && "$PY" -m venv .venv
    else
      echo "error: '$PY -m venv' failed; install python3-venv (sudo apt-get install python3-venv)" >&2
      exit 2
    fi
  fi
fi
. .venv/bin/activate
pip install -q --upgrade pip >/dev/null
if [ "${1:-}" = "test" ]; then
  # the tests run kernels' host code in porter's sandbox (porter/sandbox.py), which needs bubblewrap
  if ! command -v bwrap >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null
  fi
  # torch first and pinned: an unpinned torch would pull a multi-GB CUDA build
  pip install -q torch==2.13.0
  pip install -q -e '.[convert,test]'
else
  pip install -q -e .
fi
