#!/usr/bin/env bash
# Installs Home Assistant Core 2025.4.4 into a cached venv for the end-to-end tests (make e2e-ha).
#
#   bash scripts/ha-core.sh          # prints the venv folder on stdout (progress goes to stderr)
#   bash scripts/ha-core.sh --check  # exit 0 when it could run here (cached, or Python 3.13 found), else 2 and why
#
# The venv lives under ${NOISECLOCK_HA_DIR:-$HOME/.cache/noiseclock/ha-2025.4.4} and is made once
# (about 2.5 minutes and 800 MB from PyPI); later runs only check it and return at once.
# It needs Python 3.13: pyenv's /root/.pyenv/versions/3.13.0, or python3.13 on PATH
# (override with NOISECLOCK_PYTHON=/path/to/python3.13).
set -euo pipefail

HA_VERSION=2025.4.4
PINS=(
  "homeassistant==${HA_VERSION}"
  "paho-mqtt==2.1.0"                       # the MQTT integration's client
  "home-assistant-frontend==20250411.0"    # frontend is always set up (and onboarding with it); hass runs with --skip-pip
)
home=${HOME:-$(cd ~ && pwd)}
dir=${NOISECLOCK_HA_DIR:-$home/.cache/noiseclock/ha-${HA_VERSION}}
venv="$dir/venv"
stamp="$dir/installed"
want="${PINS[*]}"

check=false
[ "${1:-}" = "--check" ] && check=true

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$venv/bin/hass" ]; then
  $check || echo "$venv"
  exit 0
fi

if [ -n "${NOISECLOCK_PYTHON:-}" ]; then
  candidates=("$NOISECLOCK_PYTHON")
else
  candidates=(/root/.pyenv/versions/3.13.0/bin/python3.13 "$(command -v python3.13 || true)")
fi
python=
for candidate in "${candidates[@]}"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && "$candidate" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "ha-core.sh: Python 3.13 not found (looked at: ${candidates[*]})." >&2
  echo "ha-core.sh: Home Assistant Core ${HA_VERSION} needs Python 3.13; install it or set NOISECLOCK_PYTHON." >&2
  exit 2
fi
$check && exit 0

echo "ha-core.sh: installing Home Assistant Core ${HA_VERSION} into $venv with $python (a few minutes, once)" >&2
start=$(date +%s)
rm -rf "$venv" "$stamp"
mkdir -p "$dir"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip >&2
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${PINS[@]}" >&2
"$venv/bin/hass" --version >/dev/null
echo "$want" > "$stamp"
echo "ha-core.sh: installed in $(( $(date +%s) - start )) s" >&2
echo "$venv"
