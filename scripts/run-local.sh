#!/usr/bin/env bash
# `make run`: runs the node with config/noiseclock.yaml and a state folder in the checkout.
# When no broker answers at the configured address and that address is this machine, a private
# Mosquitto is started on 127.0.0.1 for the node's lifetime.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=$(swift build --show-bin-path)/noiseclock
config=${NOISECLOCK_CONFIG:-$root/config/noiseclock.yaml}
export NOISECLOCK_STATE_DIR=${NOISECLOCK_STATE_DIR:-$root/state}

effective=$("$bin" check-config --config "$config")
host=$(sed -n 's/^mqtt\.host: \([^ ]*\).*/\1/p' <<<"$effective")
port=$(sed -n 's/^mqtt\.port: \([^ ]*\).*/\1/p' <<<"$effective")

broker_pid=""
cleanup() { [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null; true; }
trap cleanup EXIT

if ! timeout 1 bash -c "exec 3<>/dev/tcp/$host/$port" 2>/dev/null; then
  case "$host" in
    127.*|localhost|::1)
      mkdir -p "$root/run"
      cat >"$root/run/mosquitto.conf" <<CONF
listener $port 127.0.0.1
allow_anonymous true
persistence false
CONF
      echo "No broker at $host:$port; starting Mosquitto on 127.0.0.1:$port (watch it: mosquitto_sub -p $port -v -t 'noiseclock/#')" >&2
      # A session of its own, so Ctrl-C reaches the node first; the broker is stopped after it.
      setsid mosquitto -c "$root/run/mosquitto.conf" >"$root/run/mosquitto.log" 2>&1 &
      broker_pid=$!
      for _ in $(seq 50); do
        grep -q "running" "$root/run/mosquitto.log" 2>/dev/null && break
        kill -0 "$broker_pid" 2>/dev/null || { cat "$root/run/mosquitto.log" >&2; exit 1; }
        sleep 0.1
      done
      ;;
    *)
      echo "No broker answers at $host:$port; the node will keep retrying." >&2
      ;;
  esac
fi

"$bin" run --config "$config" "$@" &
node_pid=$!
trap 'kill -TERM $node_pid 2>/dev/null; wait $node_pid; cleanup' INT TERM
wait $node_pid
