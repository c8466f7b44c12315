#!/usr/bin/env bash
# `make bench`: the SPEC §7 rows this build can measure, against a private loopback Mosquitto.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build -c release --show-bin-path)
mkdir -p bench/results
"$bin/noiseclock-bench" "$@" | tee bench/results/latest.md
