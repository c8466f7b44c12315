#!/usr/bin/env bash
# Installs the Debian packages NoiseClock needs to build, run and test, when they are missing.
# Runs apt-get as root, or through sudo.
set -euo pipefail

packages=(
  pkg-config
  libmosquitto-dev mosquitto mosquitto-clients   # MQTT: the library, a local broker, the CLI clients
  libupower-glib-dev                             # battery: UPower's client library (and GLib)
  libyaml-dev                                    # the configuration file (YAML, read with libyaml)
  tzdata                                         # time zones (the node reads /usr/share/zoneinfo itself)
  libmpg123-dev libasound2-dev                   # audio: MP3 decoding, ALSA output
  libavformat-dev libavcodec-dev libswresample-dev libavutil-dev  # streams: fetch, demux, decode, resample (FFmpeg)
  libcurl4-openssl-dev                           # the node's HTTP client: playlists, the directory, feeds
  libespeak-ng-dev espeak-ng                     # speech: the built-in voice (libespeak-ng, in noiseclock-speak); the CLI for the command engine's tests
  libical-dev                                    # calendars: iCalendar feeds parsed and expanded (libical, in noiseclock-calendar)
  icecast2 ffmpeg                                # tests and benchmarks: a real radio server and its source client
  lame sox                                       # tests and scripts/make-sounds.sh: MP3 encoding, synthesis
  mpg123 pulseaudio libasound2-plugins alsa-utils # benchmarks: the reference player and a real-time sink
  dbus python3-dbus python3-dbusmock libglib2.0-bin   # tests: a private bus, a mocked UPower, gdbus
  openssl                                        # certificates for the TLS tests
  procps                                         # pgrep/ps for tests and benchmarks
  faketime                                       # tests: a node process whose wall clock jumps (libfaketime)
  python3-venv                                   # tests: the references of the holiday rules (PyPI holidays) and the calendar (PyPI icalendar) in venvs
  chromium chromium-driver python3-selenium      # tests: the clock face in a real headless browser
  cog wpewebkit-driver                           # tests: the clock face in WPE WebKit (the small boards' kiosk)
  debhelper dpkg-dev lintian fakeroot            # make deb: the Debian package and its checks
  mmdebstrap systemd-container                   # make deb-test: a clean Debian 12 root, booted with systemd-nspawn
  qemu-user-static binfmt-support arch-test curl xz-utils  # make deb ARCH=arm64, deb-test ARCH=arm64: arm64 roots under emulation
  qemu-system-arm qemu-utils openssh-client e2fsprogs # deb-test ARCH=arm64: the arm64 machine booted whole (qemu-system-aarch64), reached over ssh
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "These Debian packages are missing and there is no sudo: ${missing[*]}" >&2
  exit 1
fi
# No daemon of these packages may start on installing (icecast2's init script would listen on
# port 8000 of every address): the tests start their own servers on loopback ports. The standard
# policy-rc.d answer 101 ("not allowed") does it, for the length of this install only.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee "$policy" >/dev/null
  "${as_root[@]}" chmod 755 "$policy"
  trap '"${as_root[@]}" rm -f "$policy"' EXIT
fi
"${as_root[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
