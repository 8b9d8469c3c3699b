#!/usr/bin/env bash
# Download the pinned real-code corpus (bench/realcode.txt) and unpack it into bench/realcode/,
# one folder per package, without dependencies, idempotently. Wheels are unzipped; sdists are
# untarred (their top folder `name-version/` is kept).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
pip="${PIP:-$root/.venv/bin/pip}"
python="${PYTHON:-$root/.venv/bin/python}"
# PINS / TARGET: another pin list and folder (bench/traced_errors.txt → bench/traced_errors/);
# DOWNLOAD_ARGS: extra `pip download` options (`--python-version 3.12 --only-binary=:all:`)
target="${TARGET:-$here/realcode}"
pins_file="${PINS:-$here/realcode.txt}"
stamp="$target/.pins"

pins="$(sed 's/#.*//' "$pins_file" | awk 'NF {print $1}')"

if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$pins" ]]; then
    echo "$target is up to date ($(echo "$pins" | wc -l) packages)"
    exit 0
fi

rm -rf "$target"
mkdir -p "$target/_dist"
for pin in $pins; do
    name="${pin%%==*}"
    before="$(ls "$target/_dist")"
    # shellcheck disable=SC2086 # DOWNLOAD_ARGS: extra pip options, word-split on purpose
    "$pip" download --quiet --no-deps --ignore-requires-python ${DOWNLOAD_ARGS:-} -d "$target/_dist" "$pin"
    archive="$(comm -13 <(echo "$before") <(ls "$target/_dist") | head -n 1)"
    if [[ -z "$archive" ]]; then
        echo "no new archive for $pin" >&2
        exit 1
    fi
    "$python" - "$target/_dist/$archive" "$target/$name" <<'PY'
import sys
import tarfile
import zipfile

archive, dest = sys.argv[1], sys.argv[2]
if archive.endswith(".whl") or archive.endswith(".zip"):
    with zipfile.ZipFile(archive) as z:
        z.extractall(dest)
else:
    with tarfile.open(archive) as t:
        t.extractall(dest, filter="data")
PY
    echo "  $pin -> $target/$name ($archive)"
done
echo "$pins" > "$stamp"
echo "unpacked $(echo "$pins" | wc -l) packages into $target"
