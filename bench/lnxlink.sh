#!/usr/bin/env bash
# Installs lnxlink 2026.10.0 (PyPI) into a cached venv: the peer of the idle row in `make bench` (SPEC §7).
#
#   bash bench/lnxlink.sh          # prints the venv folder on stdout (progress goes to stderr)
#   bash bench/lnxlink.sh --check  # exit 0 when it is cached or could be made here (a Python ≥ 3.9 with venv), else 2 and why
#
# The venv lives under ${NOISECLOCK_LNXLINK_DIR:-$HOME/.cache/noiseclock/lnxlink-2026.10.0} and is made
# once (about 20 s and 65 MB from PyPI); later runs only check it and return at once.
# Any Python ≥ 3.9 with the venv module will do (lnxlink asks for ≥ 3.8): /usr/bin/python3 first, then
# python3 on PATH (override with NOISECLOCK_PYTHON=/path/to/python3).
# The benchmark runs it with only its battery module and a loopback broker: see bench/Sources/main.swift.
set -euo pipefail

LNXLINK_VERSION=2026.10.0
PINS=("lnxlink==${LNXLINK_VERSION}")
home=${HOME:-$(cd ~ && pwd)}
dir=${NOISECLOCK_LNXLINK_DIR:-$home/.cache/noiseclock/lnxlink-${LNXLINK_VERSION}}
venv="$dir/venv"
stamp="$dir/installed"
want="${PINS[*]}"

check=false
[ "${1:-}" = "--check" ] && check=true

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/lnxlink" ]; then
  $check || echo "$venv"
  exit 0
fi

if [ -n "${NOISECLOCK_PYTHON:-}" ]; then
  candidates=("$NOISECLOCK_PYTHON")
else
  candidates=(/usr/bin/python3 "$(command -v python3 || true)")
fi
python=
for candidate in "${candidates[@]}"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] \
    && "$candidate" -c 'import sys, venv, ensurepip; assert sys.version_info[:2] >= (3, 9)' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "lnxlink.sh: no Python ≥ 3.9 with venv and ensurepip (looked at: ${candidates[*]})." >&2
  echo "lnxlink.sh: install python3-venv or set NOISECLOCK_PYTHON." >&2
  exit 2
fi
$check && exit 0

echo "lnxlink.sh: installing lnxlink ${LNXLINK_VERSION} into $venv with $python (once)" >&2
start=$(date +%s)
rm -rf "$venv" "$stamp"
mkdir -p "$dir"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${PINS[@]}" >&2
[ "$("$venv/bin/lnxlink" --version)" = "$LNXLINK_VERSION" ]
echo "$want" > "$stamp"
echo "lnxlink.sh: installed in $(( $(date +%s) - start )) s" >&2
echo "$venv"
