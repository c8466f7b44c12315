#!/usr/bin/env bash
# make deb-test (SPEC §14): the Debian package as a user meets it, in a clean Debian 12 root
# (mmdebstrap from Debian's archive) booted with systemd-nspawn, with a Mosquitto on the host's
# loopback (the container shares the host's network). Needs root.
#
#   1. make deb twice: VERSION, and the same code as VERSION+upgrade1; lintian shows no error or warning
#   2. a root with systemd; the package's dependencies from the archive; the root's file list
#   3. boot; apt install the package: enabled, active once READY=1 (with no broker yet)
#   4. the conffile edited to point at the broker, restart: ctl ping answers; `noiseclock sounds`
#      lists the catalog from /usr/share/noiseclock; an alarm added survives a restart; the face
#      answers on 127.0.0.1:8080; a timer rings; the alarm rings at its minute, played to ALSA's
#      null device (no sound card here); a station plays through the stream helper; `say` is spoken
#      by the speech helper into an ALSA file sink (over a second of sound, measured with sox); the
#      calendar helper expands a small feed exactly (and the node links neither libical nor ICU); a face
#      token passed as a systemd credential is required
#   5. apt install the newer package: the service restarted, the alarm and the edited conffile kept
#   6. apt remove: stopped, configuration and state kept; apt purge: the root's file list as in 2
#
# KEEP=1 keeps the work folder (the root, the packages, the logs) for a look afterwards.
# DEBS=DIR takes the two packages from DIR (noiseclock_VERSION_ARCH.deb and
# noiseclock_VERSION+upgrade1_ARCH.deb, as step 1 makes them) instead of building them.
#
# ARCH=arm64 tests the Raspberry Pi package the same way, in a clean Debian 13 "trixie" arm64
# machine with its own kernel booted whole by qemu-system-aarch64 (TCG, -M virt, a Cortex-A72;
# scripts/arm64-vm.sh makes and caches it under .build-deb/arm64/vm/): the checks run in it over
# ssh (forwarded to a free port of the host's loopback), it reaches the host's broker and Icecast
# as 10.0.2.2 through QEMU's user network, and the waits allow for emulation. (systemd-nspawn
# under qemu-user-static cannot start trixie's units: docs/packaging.md.)
set -euo pipefail
# One function, read whole before it runs: editing this file during a run cannot change the run.
main() {
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "deb-test: needs root (mmdebstrap, systemd-nspawn)" >&2; exit 2; }
version=$(tr -d ' \n' < VERSION)
newer="$version+upgrade1"
arch=${ARCH:-$(dpkg --print-architecture)}
# vm=1: a whole emulated machine (qemu-system-aarch64), reached over ssh; else a container (systemd-nspawn).
if [ "$arch" = "$(dpkg --print-architecture)" ]; then suite=bookworm slow=1 vm=0; else suite=trixie slow=10 vm=1; fi
tools=(mmdebstrap systemd-nspawn lintian mosquitto mosquitto_sub dpkg-deb icecast2 ffmpeg curl sox)
if [ "$vm" = 1 ]; then tools+=(qemu-system-aarch64 qemu-img ssh mkfs.ext4); else tools+=(nsenter); fi
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "deb-test: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }
done
work=$(mktemp -d /var/tmp/noiseclock-deb-test.XXXXXX)
root="$work/root"
started=$(date +%s)
nspawn_pid="" qemu_pid="" broker_pid="" icecast_pid="" source_pid=""
passed=0 failed=0

cleanup() {
  set +e
  [ -n "$nspawn_pid" ] && kill "$nspawn_pid" 2>/dev/null && wait "$nspawn_pid" 2>/dev/null
  [ -e "$work/ssh.sock" ] && ssh -o ControlPath="$work/ssh.sock" -O exit dummy > /dev/null 2>&1
  [ -n "$qemu_pid" ] && kill "$qemu_pid" 2>/dev/null && wait "$qemu_pid" 2>/dev/null
  [ -n "$broker_pid" ] && kill "$broker_pid" 2>/dev/null
  [ -n "$source_pid" ] && kill "$source_pid" 2>/dev/null
  [ -n "$icecast_pid" ] && kill "$icecast_pid" 2>/dev/null
  if [ "${KEEP:-0}" = 1 ]; then echo "deb-test: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

check() { # check NAME COMMAND...: one line per check, and the count at the end
  local name=$1; shift
  if "$@"; then echo "ok - $name"; passed=$((passed + 1)); else echo "FAIL - $name"; failed=$((failed + 1)); fi
}
phase() { echo "== $* ($(($(date +%s) - started)) s)"; }

# 1. The packages.
deb="noiseclock_${version}_$arch.deb" newer_deb="noiseclock_${newer}_$arch.deb"
if [ -n "${DEBS:-}" ]; then
  phase "the packages from $DEBS"
  mkdir -p "$work/debs" && cp "$DEBS/$deb" "$DEBS/$newer_deb" "$work/debs/"
else
  phase "make deb: $version and $newer"
  t=$(date +%s)
  ARCH=$arch DEB_DESTDIR="$work/debs" bash scripts/make-deb.sh > "$work/make-deb.log" 2>&1 || { tail -40 "$work/make-deb.log"; exit 1; }
  echo "make deb took $(($(date +%s) - t)) s"
  ARCH=$arch DEB_DESTDIR="$work/debs" DEB_VERSION="$newer" bash scripts/make-deb.sh > "$work/make-deb-newer.log" 2>&1 || { tail -40 "$work/make-deb-newer.log"; exit 1; }
fi
ls -l "$work/debs"
echo "package size: $(stat -c %s "$work/debs/$deb") bytes; installed size: $(dpkg-deb -f "$work/debs/$deb" Installed-Size) KiB; Depends: $(dpkg-deb -f "$work/debs/$deb" Depends)"
lintian --fail-on error,warning "$work/debs/$deb" > "$work/lintian.txt" 2>&1 && lint=0 || lint=$?
grep -v 'root privileges' "$work/lintian.txt" || true
check "lintian: no error, no warning" [ "$lint" -eq 0 ]

# 2. A clean Debian (12 for amd64, 13 for arm64) with systemd, and the package's dependencies from
# the archive: a root booted with systemd-nspawn, or (vm=1) a machine booted with qemu-system-aarch64.
depends=$(dpkg-deb -f "$work/debs/$deb" Depends)
# A broker on the host's loopback, on a free port (which a machine under QEMU reaches as 10.0.2.2).
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n' "$port" > "$work/mosquitto.conf"
mosquitto -c "$work/mosquitto.conf" > "$work/mosquitto.log" 2>&1 &
broker_pid=$!

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ "$vm" = 0 ]; then
  host=127.0.0.1
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  mirror=${mirror:-http://deb.debian.org/debian}
  phase "mmdebstrap $suite $arch from $mirror"
  # The mirror here is a dated snapshot, whose Release files are past their Valid-Until.
  mmdebstrap --quiet --arch="$arch" --variant=important --aptopt='Acquire::Check-Valid-Until "false"' \
    --include=systemd,systemd-sysv,dbus "$suite" "$root" "$mirror" > "$work/mmdebstrap.log" 2>&1 \
    || { tail -20 "$work/mmdebstrap.log"; exit 1; }
  # The host's PID 1 is not systemd and its cgroups are v1 here: the container gets the legacy
  # hierarchy, and --keep-unit/--register=no keep nspawn off a system bus there is none of.
  export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0
  nspawn=(systemd-nspawn --quiet -D "$root" --register=no --keep-unit --bind-ro="$work/debs:/debs")
  "${nspawn[@]}" --pipe /bin/sh -c "apt-get -o Acquire::Check-Valid-Until=false update -qq && DEBIAN_FRONTEND=noninteractive apt-get satisfy -y -qq --no-install-recommends '$depends'" \
    > "$work/depends.log" 2>&1 || { tail -20 "$work/depends.log"; exit 1; }

  # 3. Boot, and find the container's PID 1 to run commands in it.
  phase "boot"
  "${nspawn[@]}" --boot --console=read-only < /dev/null > "$work/boot.log" 2>&1 &
  nspawn_pid=$!
  leader=""
  for _ in $(seq $((200 * slow))); do
    leader=$(pgrep -P "$nspawn_pid" -x systemd || true)
    [ -n "$leader" ] && break
    kill -0 "$nspawn_pid" 2>/dev/null || { cat "$work/boot.log"; exit 1; }
    sleep 0.1
  done
  [ -n "$leader" ] || { echo "deb-test: the container's systemd did not start"; cat "$work/boot.log"; exit 1; }
  inside() {
    nsenter --target "$leader" --mount --uts --ipc --pid --root --wd -- \
      /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
  }
  what=container
else
  host=10.0.2.2
  phase "the trixie $arch machine (scripts/arm64-vm.sh)"
  { read -r vmdir; read -r disk; } < <(bash scripts/arm64-vm.sh "$depends" 2> "$work/arm64-vm.log" || { tail -20 "$work/arm64-vm.log" >&2; echo fail; })
  [ -n "${disk:-}" ] && [ -s "$disk" ] || { echo "deb-test: no machine (scripts/arm64-vm.sh)"; tail -20 "$work/arm64-vm.log"; exit 1; }
  qemu-img create -q -f qcow2 -b "$(realpath "$disk")" -F raw "$work/disk.qcow2"
  ssh_port=$(free_port)
  phase "boot (qemu-system-aarch64, TCG; ssh on 127.0.0.1:$ssh_port)"
  boot_started=$(date +%s)
  # A Cortex-A72 (a Pi 4's core), 2 CPUs, 2 GB; the console on the first serial port, logged.
  qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 2048 -accel tcg,thread=multi \
    -kernel "$vmdir/vmlinuz" -initrd "$vmdir/initrd.img" \
    -append "root=/dev/vda rw console=ttyAMA0 net.ifnames=0 systemd.show_status=1" \
    -drive "file=$work/disk.qcow2,if=none,id=disk0,format=qcow2" -device virtio-blk-pci,drive=disk0 \
    -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$ssh_port-:22" -device virtio-net-pci,netdev=net0,romfile= \
    -device virtio-rng-pci -display none -monitor none -serial "file:$work/console.log" -no-reboot \
    < /dev/null > "$work/qemu.log" 2>&1 &
  qemu_pid=$!
  ssh_options=(-i "$vmdir/id_ed25519" -p "$ssh_port" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
    -o LogLevel=ERROR -o ConnectTimeout=60 -o ServerAliveInterval=15 -o ServerAliveCountMax=8 -o ControlPath="$work/ssh.sock")
  up=""
  for _ in $(seq 300); do # sshd answers once the machine is up
    kill -0 "$qemu_pid" 2>/dev/null || { cat "$work/qemu.log"; tail -30 "$work/console.log"; exit 1; }
    if ssh "${ssh_options[@]}" -o ConnectTimeout=10 -o ControlMaster=yes -o ControlPersist=yes -f -N root@127.0.0.1 \
      < /dev/null >> "$work/ssh.log" 2>&1; then up=1; break; fi
    sleep 2
  done
  [ -n "$up" ] || { echo "deb-test: the machine's sshd did not answer"; tail -30 "$work/console.log"; exit 1; }
  echo "sshd answered $(($(date +%s) - boot_started)) s after qemu started"
  inside() { # one ssh session per command over the master connection; the command quoted for the remote shell
    ssh "${ssh_options[@]}" -n root@127.0.0.1 \
      "$(printf '%q ' /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@")"
  }
  inside mkdir /debs
  for f in "$deb" "$newer_deb"; do
    ssh "${ssh_options[@]}" root@127.0.0.1 "cat > /debs/$f" < "$work/debs/$f"
  done
  what=machine
fi
state=""
for _ in $(seq $((300 * slow))); do # is-system-running --wait needs D-Bus from outside; ask until it settles
  state=$(inside systemctl is-system-running 2>/dev/null || true)
  case "$state" in running|degraded) break;; esac
  sleep 0.1
done
echo "booted: $state"
check "the $what booted with systemd (running or degraded)" [ "$state" = running -o "$state" = degraded ]
# Where a user would put the credentials (systemd's own folder), made before the file list is taken.
inside install -d -m 0700 /etc/credstore

# The root's files, less what a running system changes by itself (logs, caches, apt's lists,
# systemd's own state, the mounts).
files() {
  inside find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp -o -path /var/tmp \
    -o -path /var/log -o -path /var/cache -o -path /var/lib/apt/lists -o -path /var/lib/systemd/timers \
    -o -path /var/lib/systemd/random-seed -o -path /var/lib/systemd/catalog -o -path /debs \
    -o -path /var/lib/dpkg/status-old -o -path /var/lib/dpkg/available-old \) -prune -o -print | sort
}
files > "$work/files-before.txt"

http_get() { # http_get PATH [HEADER]: the face's answer over bash's /dev/tcp, from inside the container
  local header=${2:+$2\\r\\n}
  inside bash -c "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET $1 HTTP/1.0\r\nHost: 127.0.0.1:8080\r\n$header\r\n' >&3 && cat <&3" 2>/dev/null
}
face_has() { # face_has TEXT [HEADER]: /api/state holds TEXT within 10 s (the face listens a moment after READY)
  for _ in $(seq $((50 * slow))); do http_get /api/state "${2:-}" | grep -q "$1" && return 0; sleep 0.2; done
  return 1
}
active() { [ "$(inside systemctl is-active noiseclock.service)" = active ]; }

phase "apt install ./$deb"
inside apt-get install -y -q "/debs/$deb" > "$work/install.log" 2>&1 || { tail -30 "$work/install.log"; exit 1; }
check "install: enabled" [ "$(inside systemctl is-enabled noiseclock.service)" = enabled ]
check "install: active (READY=1) with no broker answering" active
ready_us=$(inside systemctl show noiseclock.service -p ExecMainStartTimestampMonotonic -p ActiveEnterTimestampMonotonic \
  | awk -F= '/ExecMain/ {s=$2} /ActiveEnter/ {a=$2} END {print a - s}')
echo "start to READY=1: $((ready_us / 1000)) ms"
check "install: the kiosk unit is installed, not enabled" [ "$(inside systemctl is-enabled noiseclock-kiosk.service)" = disabled ]
check "install: the man page" inside test -e /usr/share/man/man1/noiseclock.1.gz
check "install: the udev rule" inside test -e /lib/udev/rules.d/99-noiseclock-backlight.rules
inside ldd /usr/bin/noiseclock > "$work/ldd.txt" 2>&1 || true
sed 's/ (0x.*//; s/^/  ldd: /' "$work/ldd.txt"
check "install: ldd finds every library, and no Swift runtime library" bash -c "! grep -q -e 'not found' -e libswift '$work/ldd.txt'"

# 4. Pointed at the broker by editing the conffile, as a user would.
phase "configured: broker $host:$port"
inside sed -i "s/^  port: 1883\b.*/  port: $port                    # edited by deb-test/" /etc/noiseclock/noiseclock.yaml
[ "$host" = 127.0.0.1 ] || inside sed -i "s/^  host: 127.0.0.1\b.*/  host: $host               # edited by deb-test: the host, through QEMU/" /etc/noiseclock/noiseclock.yaml
# There is no sound card in the container: the node plays to ALSA's own null device, which takes
# the samples and drops them, so what rings goes through the mixer and ALSA all the same.
inside sed -i 's/^  device: default\b.*/  device: "null"                # edited by deb-test: no sound card here/' /etc/noiseclock/noiseclock.yaml
check "the conffile is edited" inside grep -q "edited by deb-test" /etc/noiseclock/noiseclock.yaml
# Every event from here to the alarm's ring (SPEC §8: the events go out with or without a sound card).
timeout $((300 * slow)) mosquitto_sub -h 127.0.0.1 -p "$port" -t 'noiseclock/+/event' > "$work/events.txt" 2>&1 &
subscriber=$!
inside systemctl restart noiseclock.service
check "restart: active" active
ping_answers() { inside noiseclock ctl ping 2>&1 | grep -q "\"version\":\"$version\""; }
check "noiseclock ctl ping answers, with the version" ping_answers
inside noiseclock sounds > "$work/sounds.txt" 2>&1 || true
check "noiseclock sounds lists the catalog from /usr/share/noiseclock" grep -q "heavy-rain-white-noise.mp3" "$work/sounds.txt"
face_page() { for _ in $(seq $((50 * slow))); do http_get / | grep -qi '<html' && return 0; sleep 0.2; done; return 1; }
check "the face serves its page on 127.0.0.1:8080" face_page
# An alarm a minute or two ahead (by the container's clock and zone), so that it rings in this run
# after the restart below; under emulation, two minutes, for the slower steps before the ring.
seconds=$(inside date +%S); ahead=$(( slow > 1 ? 2 : 1 )); [ "${seconds#0}" -gt 40 ] && ahead=$((ahead + 1))
ring_at=$(inside date -d "+$ahead minutes" +%H:%M)
check "alarm/add answers ok" inside noiseclock ctl alarm/add "{\"time\":\"$ring_at\",\"label\":\"Packaged\"}"
inside systemctl restart noiseclock.service
check "the alarm survives systemctl restart" face_has Packaged

# It rings: a 3 s timer finishes and says so on MQTT, then the alarm set above rings at its minute.
check "timer/start answers ok" inside noiseclock ctl timer/start '{"seconds":3,"label":"Tea"}'
event_seen() { # event_seen EVENT SECONDS: EVENT reached the subscriber within SECONDS
  for _ in $(seq $(($2 * 5))); do grep -q "\"$1\"" "$work/events.txt" && return 0; sleep 0.2; done; return 1
}
check "the timer rings: timer_finished on B/event" event_seen timer_finished $((20 * slow))
inside noiseclock ctl timer/dismiss > /dev/null 2>&1 || true
echo "waiting for the alarm at $ring_at (the $what's clock says $(inside date +%H:%M:%S))"
check "the alarm rings at $ring_at after the restart: alarm_ringing on B/event" event_seen alarm_ringing $((150 + 30 * slow))
# The ring is played: the status names the null device and no audio error while it sounds.
sleep $slow
inside noiseclock ctl ping > "$work/ringing-status.json" 2>&1 || true
audio_ok() {
  python3 -c 'import json, sys
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        doc = json.loads(line)
        audio = (doc.get("data") or doc).get("audio", {})
        sys.exit(0 if audio.get("device") == "null" and audio.get("ok") is True and not audio.get("error") else 1)
sys.exit(1)' "$work/ringing-status.json"
}
audio_ok || sed 's/^/  status: /' "$work/ringing-status.json"
check "the ring plays to ALSA's null device, no audio error" audio_ok
check "dismiss answers ok" inside noiseclock ctl dismiss
check "the alarm is dismissed: alarm_dismissed on B/event" event_seen alarm_dismissed $((10 * slow))
kill "$subscriber" 2>/dev/null || true

# A station from an Icecast on the host's loopback (fed by ffmpeg), played by the packaged node
# through its helper (/usr/libexec/noiseclock/noiseclock-stream, FFmpeg from the package's Depends).
icecast_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$work/icecast/log" && chmod 755 "$work" "$work/icecast" && chmod 777 "$work/icecast/log"
cat > "$work/icecast/icecast.xml" <<XML
<icecast><location>loopback</location><admin>test@localhost</admin><hostname>127.0.0.1</hostname>
  <limits><sources>2</sources><source-timeout>10</source-timeout></limits>
  <authentication><source-password>deb-test</source-password><admin-user>admin</admin-user><admin-password>deb-test</admin-password></authentication>
  <listen-socket><port>$icecast_port</port><bind-address>127.0.0.1</bind-address></listen-socket>
  <paths><basedir>/usr/share/icecast2</basedir><logdir>$work/icecast/log</logdir><webroot>/usr/share/icecast2/web</webroot><adminroot>/usr/share/icecast2/admin</adminroot></paths>
  <logging><errorlog>error.log</errorlog><loglevel>2</loglevel></logging>
  <security><chroot>0</chroot><changeowner><user>nobody</user><group>nogroup</group></changeowner></security>
</icecast>
XML
icecast2 -c "$work/icecast/icecast.xml" > "$work/icecast/out.log" 2>&1 &
icecast_pid=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$icecast_port/status-json.xsl" && break; sleep 0.2; done
ffmpeg -nostdin -hide_banner -loglevel error -re -f lavfi -i "sine=frequency=440:sample_rate=44100" -ac 2 -c:a libmp3lame -b:a 128k \
  -f mp3 -content_type audio/mpeg "icecast://source:deb-test@127.0.0.1:$icecast_port/radio" > "$work/icecast/ffmpeg.log" 2>&1 &
source_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$icecast_port/status-json.xsl" | grep -q '/radio' && break; sleep 0.2; done
radio_state() { # radio_state STATE SECONDS: the retained B/radio reads STATE within SECONDS
  for _ in $(seq "$2"); do
    mosquitto_sub -h 127.0.0.1 -p "$port" -t 'noiseclock/+/radio' -C 1 -W 2 2>/dev/null | grep -q "\"state\":\"$1\"" && return 0
    sleep 1
  done
  return 1
}
check "radio/play answers ok for the host's Icecast" inside noiseclock ctl radio/play "{\"url\":\"http://$host:$icecast_port/radio\",\"volume\":40}"
check "the station plays: B/radio state playing, codec mp3" radio_state playing $((20 * slow))
check "the stream helper runs from /usr/libexec/noiseclock" inside pgrep -f /usr/libexec/noiseclock/noiseclock-stream
helper_pid=$(inside pgrep -f /usr/libexec/noiseclock/noiseclock-stream | head -1)
echo "stream helper: RssAnon $(inside awk '/^RssAnon/ {print $2, $3}' "/proc/$helper_pid/status" 2>/dev/null)"
check "radio/stop answers ok" inside noiseclock ctl radio/stop
check "the station stops: B/radio idle" radio_state idle $((10 * slow))
gone() { for _ in $(seq $((25 * slow))); do inside pgrep -f noiseclock-stream > /dev/null || return 0; sleep 0.2; done; return 1; }
check "the stream helper has ended" gone
kill "$source_pid" "$icecast_pid" 2>/dev/null; source_pid="" icecast_pid=""

# It speaks (SPEC §16): `say` over MQTT, made by the helper /usr/libexec/noiseclock/noiseclock-speak
# (libespeak-ng, the voices of espeak-ng-data from the Depends) under the unit's sandbox, and played
# to an ALSA file sink in the node's state folder (the one place it may write), which the host
# measures with sox: over a second of sound, and loud enough to be speech, not a codec's hiss.
check "speech: the voices are installed (espeak-ng-data)" inside sh -c 'test -s /usr/lib/*/espeak-ng-data/en_dict'
inside ldd /usr/libexec/noiseclock/noiseclock-speak > "$work/ldd-speak.txt" 2>&1 || true
check "speech: ldd finds every library of the helper, libespeak-ng among them" \
  bash -c "grep -q libespeak-ng '$work/ldd-speak.txt' && ! grep -q -e 'not found' -e libswift '$work/ldd-speak.txt'"
check "speech: the node itself does not load libespeak-ng" bash -c "! grep -q libespeak '$work/ldd.txt'"
sink=/var/lib/noiseclock/speech.raw # the node's view; the root's is under /var/lib/private (DynamicUser=)
inside sed -i "s|^  device: \"null\".*|  device: \"file:'$sink',raw\"  # edited by deb-test: a file sink, to hear the speech|" /etc/noiseclock/noiseclock.yaml
inside sed -i -e 's/^    start: "22:30".*/    start: ""                  # edited by deb-test: no quiet hours, whenever it runs/' \
  -e 's/^    end: "07:00".*/    end: ""/' /etc/noiseclock/noiseclock.yaml
check "speech: the conffile has its speech section, edited for no quiet hours" inside grep -q "edited by deb-test: no quiet hours" /etc/noiseclock/noiseclock.yaml
inside systemctl restart noiseclock.service
check "speech: active with the file sink" active
# The events and the retained B/speech; the retained message says the subscription is in place.
timeout $((120 * slow)) mosquitto_sub -h 127.0.0.1 -p "$port" -v -t 'noiseclock/+/event' -t 'noiseclock/+/speech' > "$work/speech-events.txt" 2>&1 &
subscriber=$!
speech_state() { for _ in $(seq $((50 * slow))); do grep '/speech {' "$work/speech-events.txt" | grep '"engine":"espeak-ng"' | grep -q '"error":null' && return 0; sleep 0.2; done; return 1; }
check "speech: B/speech names the engine espeak-ng, no error" speech_state
sentence="Good morning. It is a quarter past seven, and the coffee is ready downstairs."
check "speech: say answers ok" inside noiseclock ctl say "{\"text\":\"$sentence\",\"chime\":false}"
finished() { for _ in $(seq $((150 * slow))); do grep -q '"event":"speech_finished"' "$work/speech-events.txt" && return 0; sleep 0.2; done; return 1; }
check "speech: speech_finished on B/event" finished
grep -h '"speech_' "$work/speech-events.txt" | sed 's/^/  /'
kill "$subscriber" 2>/dev/null || true
# What the sink holds (44.1 kHz, 16-bit stereo), with every pause over 0.3 s taken out: its length
# is the seconds of sound, its RMS their loudness (1.0 is full scale).
sound() { # sound FIELD: sox's figure for the sink's sound
  inside cat "/var/lib/private/noiseclock/speech.raw" > "$work/speech.raw" 2>/dev/null || return 1
  sox -t raw -r 44100 -e signed -b 16 -c 2 "$work/speech.raw" -n silence 1 0.02 1% -1 0.3 1% stat 2>&1 \
    | awk -F: -v field="$1" '$1 ~ field {gsub(/ /, "", $2); print $2}'
}
heard() { # the file sink is written a moment after the mixer: wait until it holds the sentence
  for _ in $(seq $((25 * slow))); do
    awk -v s="$(sound Length)" -v r="$(sound 'RMS +amplitude')" 'BEGIN { exit !(s > 1.0 && r > 0.02) }' && return 0
    sleep 0.2
  done
  return 1
}
check "speech: the sink holds over a second of sound with real energy" heard
echo "speech in the sink: $(sound Length) s of sound (of $(awk -v b="$(stat -c %s "$work/speech.raw")" 'BEGIN { printf "%.2f", b / 176400 }') s), RMS $(sound 'RMS +amplitude')"
helper_gone() { for _ in $(seq $((25 * slow))); do inside pgrep -f noiseclock-speak > /dev/null || return 0; sleep 0.2; done; return 1; }
check "speech: the helper has ended" helper_gone

# The calendar helper (SPEC §17): /usr/libexec/noiseclock/noiseclock-calendar (libical, which links
# ICU: never in the node's process) expands a small feed across the spring change in Berlin, an
# Outlook zone name without its VTIMEZONE, an EXDATE, a moved instance and an all-day event.
inside ldd /usr/libexec/noiseclock/noiseclock-calendar > "$work/ldd-calendar.txt" 2>&1 || true
check "calendar: ldd finds every library of the helper, libical among them" \
  bash -c "grep -q libical '$work/ldd-calendar.txt' && ! grep -q -e 'not found' -e libswift '$work/ldd-calendar.txt'"
check "calendar: the node itself loads neither libical nor ICU" bash -c "! grep -q -e libical -e libicu '$work/ldd.txt'"
inside sh -c 'printf "%s\r\n" BEGIN:VCALENDAR VERSION:2.0 PRODID:deb-test \
  BEGIN:VEVENT UID:daily@deb-test SUMMARY:Daily "DTSTART;TZID=W. Europe Standard Time:20260326T090000" \
  "DTEND;TZID=W. Europe Standard Time:20260326T093000" RRULE:FREQ=DAILY "EXDATE;TZID=Europe/Berlin:20260328T090000" END:VEVENT \
  BEGIN:VEVENT UID:daily@deb-test SUMMARY:Daily\ moved "RECURRENCE-ID;TZID=Europe/Berlin:20260330T090000" \
  "DTSTART;TZID=Europe/Berlin:20260330T100000" "DTEND;TZID=Europe/Berlin:20260330T103000" END:VEVENT \
  BEGIN:VEVENT UID:off@deb-test SUMMARY:Urlaub "DTSTART;VALUE=DATE:20260329" "DTEND;VALUE=DATE:20260401" END:VEVENT \
  END:VCALENDAR > /tmp/deb-test.ics'
inside /usr/libexec/noiseclock/noiseclock-calendar --from 2026-03-27 --days 4 --zone Europe/Berlin /tmp/deb-test.ics \
  > "$work/calendar.txt" 2>&1 || echo "exit $?" >> "$work/calendar.txt"
sed 's/^/  calendar: /' "$work/calendar.txt"
cat > "$work/calendar-expected.txt" <<'LINES'
{"uid":"daily@deb-test","summary":"Daily","start":1774598400,"end":1774600200,"all_day":false}
{"uid":"off@deb-test","summary":"Urlaub","date":"2026-03-29","end_date":"2026-04-01","all_day":true}
{"uid":"daily@deb-test","summary":"Daily","start":1774767600,"end":1774769400,"all_day":false}
{"uid":"daily@deb-test","summary":"Daily moved","start":1774857600,"end":1774859400,"all_day":false}
LINES
check "calendar: the installed helper expands the feed exactly (DST, Windows zone, EXDATE, override, all-day)" \
  cmp -s "$work/calendar.txt" "$work/calendar-expected.txt"
inside rm -f /tmp/deb-test.ics

# A face token as a systemd credential: root-only on disk, required by the node at once.
token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
inside sh -c "install -m 0600 /dev/null /etc/credstore/noiseclock.face-token && echo $token > /etc/credstore/noiseclock.face-token"
inside systemctl restart noiseclock.service
check "credential: active with the token" active
refused() { for _ in $(seq $((50 * slow))); do http_get /api/state | head -1 | grep -q ' 401 ' && return 0; sleep 0.2; done; return 1; }
check "credential: the face refuses a request without the token" refused
check "credential: the face answers with it" face_has Packaged "Authorization: Bearer $token"
inside rm -f /etc/credstore/noiseclock.face-token
inside systemctl restart noiseclock.service

# Figures of the installed node (for arm64, of the emulation, not of a Pi): its memory, and its CPU
# over 30 idle seconds with an alarm set.
pid=$(inside systemctl show noiseclock.service -p MainPID --value)
cpu() { inside awk '{print $14 + $15}' "/proc/$pid/stat"; }
before_ticks=$(cpu); sleep 30; after_ticks=$(cpu)
echo "idle: RssAnon $(inside awk '/^RssAnon/ {print $2, $3}' "/proc/$pid/status"), CPU $(awk -v t=$((after_ticks - before_ticks)) -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz / 30 * 100 }') % over 30 s"

# 5. An upgrade.
phase "apt install ./$newer_deb (upgrade)"
before_pid=$(inside systemctl show noiseclock.service -p MainPID --value)
inside apt-get install -y -q "/debs/$newer_deb" > "$work/upgrade.log" 2>&1 || { tail -30 "$work/upgrade.log"; exit 1; }
check "upgrade: the new version is installed" [ "$(inside dpkg-query -W -f='${Version}' noiseclock)" = "$newer" ]
check "upgrade: the service was restarted" [ "$(inside systemctl show noiseclock.service -p MainPID --value)" != "$before_pid" ]
check "upgrade: active" active
check "upgrade: the edited conffile is kept" inside grep -q "edited by deb-test" /etc/noiseclock/noiseclock.yaml
check "upgrade: no .dpkg-dist or .dpkg-new beside it" inside sh -c "! ls /etc/noiseclock/ | grep -q dpkg"
check "upgrade: the alarm is kept" face_has Packaged
check "upgrade: ctl ping answers" ping_answers
# Never restarted behind our back (a watchdog that missed its ping, a crash): only by the steps above.
check "no restart but the ones asked for (NRestarts=0)" [ "$(inside systemctl show noiseclock.service -p NRestarts --value)" = 0 ]

# 6. Remove, then purge.
phase "apt remove, apt purge"
inside apt-get remove -y -q noiseclock > "$work/remove.log" 2>&1 || { tail -30 "$work/remove.log"; exit 1; }
stopped() { ! active; }
check "remove: stopped" stopped
check "remove: the configuration is kept" inside test -e /etc/noiseclock/noiseclock.yaml
check "remove: the state is kept" inside sh -c "ls /var/lib/private/noiseclock/ | grep -q alarms"
inside apt-get purge -y -q noiseclock > "$work/purge.log" 2>&1 || { tail -30 "$work/purge.log"; exit 1; }
files > "$work/files-after.txt"
if diff "$work/files-before.txt" "$work/files-after.txt" > "$work/files.diff"; then left=0; else left=1; sed 's/^/  /' "$work/files.diff" | head -40; fi
check "purge: the root's files are the ones before the install" [ "$left" -eq 0 ]

inside systemctl poweroff || true
for _ in $(seq $((100 * slow))); do kill -0 "${qemu_pid:-$nspawn_pid}" 2>/dev/null || break; sleep 0.1; done
phase "done"
echo "deb-test: $passed passed, $failed failed ($(($(date +%s) - started)) s)"
[ "$failed" -eq 0 ]
}
main "$@"
