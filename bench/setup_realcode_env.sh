#!/usr/bin/env bash
# The environment a user of the real-code packages has: a venv (bench/realcode-venv, gitignored)
# with jaxlint and every pinned package of bench/realcode.txt installed *with* its dependencies,
# JAX held at the version the main venv has. bench/fix_share.py run with this venv's Python
# measures the fix share where the packages' imports work, as they do on their users' machines.
# The linted copies still come from bench/realcode/ (bench/setup_realcode.sh): the child puts the
# copy's package root first on sys.path, so the installed package only supplies what it imports.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
python="${PYTHON:-$root/.venv/bin/python}"
venv="$here/realcode-venv"
pins="$(sed 's/#.*//' "$here/realcode.txt" | awk 'NF {print $1}')"
stamp="$venv/.pins"

if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$pins" ]]; then
    echo "bench/realcode-venv is up to date"
    exit 0
fi

constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
"$python" -m pip freeze | grep -i -E '^(jax|jaxlib|numpy)==' > "$constraints"

rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --upgrade pip
"$venv/bin/pip" install --quiet -c "$constraints" -e "$root[verify]"
failed=()
for pin in $pins; do
    # One pin at a time: a package whose dependencies cannot be met beside JAX's version is
    # reported and skipped, the others still get theirs.
    if ! "$venv/bin/pip" install --quiet -c "$constraints" "$pin" 2>"$venv/pip-$pin.log"; then
        failed+=("$pin")
        echo "  $pin: not installable beside $(tr '\n' ' ' < "$constraints")(see $venv/pip-$pin.log)" >&2
    fi
done
echo "$pins" > "$stamp"
echo "bench/realcode-venv: $(echo "$pins" | wc -l) pins, ${#failed[@]} not installable: ${failed[*]:-none}"
