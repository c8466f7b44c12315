#!/usr/bin/env bash
# The arm64 machine `make deb-test ARCH=arm64` boots (docs/packaging.md, *How it is proven*): a
# clean Debian 13 "trixie" arm64 root with its own kernel, booted whole by qemu-system-aarch64, so
# that systemd runs on a real (emulated) kernel and needs nothing of a user-mode emulator. Made from
# Debian's archive alone and kept under .build-deb/arm64/vm/ (git-ignored): a second run downloads
# nothing. Needs root (mmdebstrap, systemd-nspawn, mkfs.ext4 -d) and qemu-user-static with binfmt_misc.
#
#   bash scripts/arm64-vm.sh 'DEPENDS'    make what is missing; print the folder and the disk
#   bash scripts/arm64-vm.sh -            the root, kernel and key alone
#
# What it makes, each once:
#   root.tar          trixie arm64 (mmdebstrap, its maintainer scripts under qemu-user-static) with
#                     systemd, udev, D-Bus, linux-image-arm64 (and its initramfs), openssh-server
#                     and ifupdown: the network is QEMU's user network (the guest 10.0.2.15, the
#                     host's loopback seen as 10.0.2.2), configured statically as eth0. A tarball,
#                     not a folder: debhelper's dh_clean (make deb) walks the whole checkout
#   vmlinuz, initrd.img   its own kernel and initramfs, for qemu's -kernel and -initrd
#   id_ed25519        the key the test logs in with (root, over ssh forwarded to the host's loopback)
#   disk-KEY.raw      an ext4 image of the root with the package's DEPENDS installed from the
#                     archive (KEY: a hash of DEPENDS), made with mkfs.ext4 -d; each run boots a
#                     qcow2 overlay of it and throws it away (only the newest disk is kept)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "arm64-vm: needs root (mmdebstrap, mkfs.ext4 -d)" >&2; exit 2; }
depends=${1:?usage: arm64-vm.sh DEPENDS}
dir=.build-deb/arm64/vm
mkdir -p "$dir"
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
log() { echo "arm64-vm: $*" >&2; }

if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { log "qemu-aarch64 is not registered with binfmt_misc (install qemu-user-static and binfmt-support)"; exit 2; }
fi

[ -s "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C noiseclock-deb-test -f "$dir/id_ed25519"

customize() { # customize ROOT: what the machine needs beyond the packages (run by mmdebstrap's hook)
  local r=$1
  echo noiseclock-arm64 > "$r/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 noiseclock-arm64\n' > "$r/etc/hosts"
  printf '/dev/vda / ext4 defaults,errors=remount-ro 0 1\n' > "$r/etc/fstab"
  # QEMU's user network is fixed: the guest is 10.0.2.15, the gateway (the host) 10.0.2.2, its DNS 10.0.2.3.
  printf 'auto lo\niface lo inet loopback\n\nauto eth0\niface eth0 inet static\n  address 10.0.2.15/24\n  gateway 10.0.2.2\n' \
    > "$r/etc/network/interfaces"
  printf 'nameserver 10.0.2.3\n' > "$r/etc/resolv.conf"
  install -d -m 0700 "$r/root/.ssh"
  install -m 0600 "$dir/id_ed25519.pub" "$r/root/.ssh/authorized_keys"
  # No DNS lookup of the client on each login (there is no name for 10.0.2.2).
  printf 'UseDNS no\n' > "$r/etc/ssh/sshd_config.d/deb-test.conf"
  local kernel; kernel=$(ls "$r"/boot/vmlinuz-* | sort -V | tail -1)
  cp "$kernel" "$dir/vmlinuz"
  cp "$r/boot/initrd.img-${kernel##*/vmlinuz-}" "$dir/initrd.img"
}
if [ "${1:-}" = --customize ]; then dir=$(realpath "$dir"); customize "$2"; exit 0; fi

if [ ! -s "$dir/root.tar" ]; then
  log "trixie arm64 with its kernel (mmdebstrap under qemu-user-static; several minutes)"
  # The mirror here is a dated snapshot, whose Release files are past their Valid-Until.
  mmdebstrap --quiet --arch=arm64 --variant=important --aptopt='Acquire::Check-Valid-Until "false"' \
    --include=systemd,systemd-sysv,dbus,udev,ifupdown,openssh-server,linux-image-arm64,initramfs-tools \
    --customize-hook="bash '$PWD/scripts/arm64-vm.sh' --customize \"\$1\"" --format=tar \
    trixie "$dir/root.tar.part" "$mirror" >&2
  mv "$dir/root.tar.part" "$dir/root.tar"
fi

[ "$depends" = - ] && { echo "$dir"; exit 0; } # the root alone
key=$(printf '%s' "$depends" | sha256sum | cut -c1-16)
disk=$dir/disk-$key.raw
if [ ! -s "$disk" ]; then
  log "the disk: the root with the package's Depends (apt under qemu-user-static), mkfs.ext4 -d"
  staging=$dir/staging
  rm -rf "$staging" "$dir"/disk-*.raw
  mkdir "$staging" && tar -xf "$dir/root.tar" -C "$staging"
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 systemd-nspawn --quiet --pipe --register=no --keep-unit -D "$staging" /bin/sh -c \
    "apt-get -o Acquire::Check-Valid-Until=false update -qq && DEBIAN_FRONTEND=noninteractive apt-get satisfy -y -qq --no-install-recommends '$depends' && apt-get clean" >&2
  printf 'nameserver 10.0.2.3\n' > "$staging/etc/resolv.conf"
  size=$(( $(du -sm "$staging" | cut -f1) + 1536 ))
  truncate -s "${size}M" "$disk.part"
  mkfs.ext4 -q -F -L noiseclock -d "$staging" "$disk.part"
  mv "$disk.part" "$disk"
  rm -rf "$staging"
fi
echo "$dir"
echo "$disk"
