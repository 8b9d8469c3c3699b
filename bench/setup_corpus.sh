#!/usr/bin/env bash
# Install the pinned speed corpus (bench/corpus.txt) into bench/corpus/, source only, idempotently.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
pip="${PIP:-$root/.venv/bin/pip}"
target="$here/corpus"
pins_file="$here/corpus.txt"
stamp="$target/.pins"

pins="$(grep -v '^[[:space:]]*#' "$pins_file" | awk 'NF {print $1}')"

if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$pins" ]]; then
    echo "bench/corpus is up to date ($(echo "$pins" | wc -l) packages)"
    exit 0
fi

rm -rf "$target"
mkdir -p "$target"
# shellcheck disable=SC2086
"$pip" install --quiet --no-deps --no-compile --target "$target" $pins
echo "$pins" > "$stamp"
echo "installed into bench/corpus:"
echo "$pins" | sed 's/^/  /'
