#!/usr/bin/env bash
# Fetch the official SARIF 2.1.0 JSON schema, as shipped in Microsoft's SARIF multitool npm package, into
# .cache/sarif-2.1.0.json for tests/test_review.py (the schema is not vendored: it is installed at setup time).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.cache/sarif-2.1.0.json
[ -s "$dest" ] && exit 0
mkdir -p .cache
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent @microsoft/sarif-multitool-linux@5.7.0 >/dev/null)
tar -xzf "$tmp"/microsoft-sarif-multitool-linux-5.7.0.tgz -C "$tmp" package/sarif-2.1.0.json
mv "$tmp/package/sarif-2.1.0.json" "$dest"
echo "SARIF schema: $dest"
