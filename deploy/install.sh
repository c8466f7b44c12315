#!/usr/bin/env bash
# Installs NoiseClock as a systemd service: a release build, the binary in /usr/local/bin, the
# sound catalog in /usr/local/share/noiseclock, a configuration in /etc/noiseclock (kept when it
# exists), and deploy/noiseclock.service. Run as root from a checkout:
#
#   sudo bash deploy/install.sh            # build, install, enable and start
#   sudo bash deploy/install.sh --no-start # install only
#
# PREFIX (default /usr/local) and SYSTEMD_DIR (default /etc/systemd/system) can be overridden;
# DESTDIR stages everything under another root (packaging, tests) and skips systemctl.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=${PREFIX:-/usr/local}
systemd_dir=${SYSTEMD_DIR:-/etc/systemd/system}
root=${DESTDIR:-}
start=true
[ "${1:-}" = "--no-start" ] && start=false

bash scripts/install-deps.sh
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"
# The Swift runtime linked in, so the binary needs no toolchain on the target; plain when that fails.
if swift build -c release --product noiseclock --static-swift-stdlib; then
  echo "built with the static Swift standard library"
else
  swift build -c release --product noiseclock
fi
bin=$(swift build -c release --show-bin-path)/noiseclock

install -D -m 0755 "$bin" "$root$prefix/bin/noiseclock"
mkdir -p "$root$prefix/share/noiseclock"
cp -R Resources/. "$root$prefix/share/noiseclock/"
if [ ! -e "$root/etc/noiseclock/noiseclock.yaml" ]; then
  install -D -m 0644 config/noiseclock.yaml "$root/etc/noiseclock/noiseclock.yaml"
fi
sed "s|/usr/bin/noiseclock|$prefix/bin/noiseclock|" deploy/noiseclock.service > noiseclock.service.tmp
install -D -m 0644 noiseclock.service.tmp "$root$systemd_dir/noiseclock.service"
rm -f noiseclock.service.tmp

if [ -z "$root" ]; then
  "$prefix/bin/noiseclock" check-config --config /etc/noiseclock/noiseclock.yaml
  systemctl daemon-reload
  if $start; then
    systemctl enable --now noiseclock.service
    systemctl --no-pager status noiseclock.service || true
  fi
fi
echo "installed: $prefix/bin/noiseclock, $prefix/share/noiseclock, /etc/noiseclock/noiseclock.yaml, $systemd_dir/noiseclock.service"
