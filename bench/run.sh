#!/usr/bin/env bash
# `make bench`: the SPEC §7 rows this build can measure, against a private loopback Mosquitto.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
mkdir -p bench/results
# The idle row's peer: lnxlink in a venv made once (bench/lnxlink.sh); when it cannot be made, the
# row says so and the other rows still run. An explicit --lnxlink on the command line wins, and
# `--only` without `idle` (e.g. `bash bench/run.sh --only wake-ups --wake-seconds 60`) needs no peer.
peer=()
only=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [[ ${args[i]} == --only ]] && only=${args[i + 1]:-}
done
if [[ " $* " != *" --lnxlink "* && ( -z $only || ,$only, == *,idle,* ) ]]; then
  if venv=$(bash bench/lnxlink.sh); then
    peer=(--lnxlink "$venv/bin/lnxlink")
  else
    peer=(--lnxlink "none:bench/lnxlink.sh could not make its venv (its message is above)")
  fi
fi
"$bin/noiseclock-bench" "${peer[@]}" "$@" | tee bench/results/latest.md
