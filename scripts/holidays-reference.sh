#!/usr/bin/env bash
# The reference for the node's holiday rules (SPEC §12): the Python `holidays` package from PyPI,
# installed once into a cached venv, asked for the public holidays of the regions named on the
# command line for every year 2000-2050.
#
#   bash scripts/holidays-reference.sh DE DE-BY GB-SCT US ...
#   bash scripts/holidays-reference.sh --install   # only makes the venv (make test does, before the tests)
#
# prints one line a region and year: `DE-BY 2026 2026-01-01 2026-01-06 ...` (an empty region is the
# country's national holidays). The venv lives under
# ${NOISECLOCK_HOLIDAYS_DIR:-$HOME/.cache/noiseclock/holidays-0.109}; the first run takes a few seconds.
set -euo pipefail

VERSION=0.109
home=${HOME:-$(cd ~ && pwd)}
dir=${NOISECLOCK_HOLIDAYS_DIR:-$home/.cache/noiseclock/holidays-${VERSION}}
venv="$dir/venv"
stamp="$dir/installed"

if ! [ -f "$stamp" ] || [ "$(cat "$stamp")" != "$VERSION" ] || ! [ -x "$venv/bin/python" ]; then
  echo "holidays-reference.sh: installing holidays ${VERSION} into $venv" >&2
  rm -rf "$venv" "$stamp"
  mkdir -p "$dir"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "holidays==${VERSION}" >&2
  echo "$VERSION" > "$stamp"
fi
[ "${1:-}" = "--install" ] && exit 0

"$venv/bin/python" - "$@" <<'PY'
import sys
import holidays

for name in sys.argv[1:]:
    country, _, region = name.partition("-")
    for year in range(2000, 2051):
        days = holidays.country_holidays(country, subdiv=region or None, years=year)
        print(name, year, *sorted(d.isoformat() for d in days))
PY
