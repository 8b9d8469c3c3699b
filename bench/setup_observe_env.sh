#!/usr/bin/env bash
# The environment bench/observe.py runs real test suites in: a venv (bench/observe-venv,
# gitignored) that sees the main venv's packages (jax, flax, equinox, optax, … at the main venv's
# versions, and jaxlint from this clone) and adds what the suites' tests import besides.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
python="${PYTHON:-$root/.venv/bin/python}"
venv="$here/observe-venv"

rm -rf "$venv"
"$python" -m venv "$venv"
main_site="$("$python" -c 'import site; print(site.getsitepackages()[0])')"
site="$("$venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')"
printf '%s\n%s\n' "$root" "$main_site" > "$site/main-venv.pth"
constraints="$(mktemp)"
trap 'rm -f "$constraints"' EXIT
"$python" -m pip freeze | grep -i -E '^(jax|jaxlib|numpy|flax|equinox|optax|scipy|jaxtyping)==' > "$constraints"
"$venv/bin/pip" install --quiet -c "$constraints" matplotlib chex einops pandas diffrax omegaconf
echo "bench/observe-venv ready"
