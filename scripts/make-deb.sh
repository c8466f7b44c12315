#!/usr/bin/env bash
# Builds the Debian package (docs/packaging.md): noiseclock_<version>_<arch>.deb in the checkout.
#
#   bash scripts/make-deb.sh                 # the version in VERSION
#   DEB_VERSION=0.2.0+1 bash scripts/make-deb.sh   # the same code under another package version
#                                            # (make deb-test builds one to try an upgrade)
#   DEB_DESTDIR=DIR                          # where the .deb goes (default: the checkout)
#   ARCH=arm64 bash scripts/make-deb.sh      # for a Raspberry Pi, built on amd64 (needs root)
#
# debian/changelog is written here from CHANGELOG.md, whose section for VERSION must exist; then
# debian/rules does the rest with debhelper (a release build with the Swift runtime linked in,
# in .build-deb/, apart from a developer's .build/).
#
# ARCH=arm64 cross-builds for Debian 13 "trixie" on arm64 with Debian's own Swift
# (scripts/arm64-toolchain.sh makes and caches the toolchain under .build-deb/arm64/): the node is
# compiled in a Debian sid root, whose `swiftlang` is the compiler, against a trixie arm64 sysroot;
# then debian/rules runs in that sysroot under qemu, so debhelper strips with arm64's binutils and
# dpkg-shlibdeps reads trixie's own libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="$PATH:/opt/swift/usr/bin"

version=$(tr -d ' \n' < VERSION)
deb_version=${DEB_VERSION:-$version}
destdir=${DEB_DESTDIR:-$PWD}
case "$deb_version" in [0-9]*) ;; *) echo "make-deb: not a version: '$deb_version'" >&2; exit 2;; esac
dpkg --compare-versions "$deb_version" ge "$version" || { echo "make-deb: DEB_VERSION $deb_version is older than VERSION $version" >&2; exit 2; }

# debian/changelog from CHANGELOG.md: each "## VERSION (YYYY-MM-DD)" section an entry, its "- "
# items (folded lines joined) the entry's lines.
grep -q "^## $version (" CHANGELOG.md || { echo "make-deb: CHANGELOG.md has no section '## $version (YYYY-MM-DD)'" >&2; exit 2; }
maintainer=$(sed -n 's/^Maintainer: //p' debian/control)
{
  if [ "$deb_version" != "$version" ]; then
    printf 'noiseclock (%s) bookworm; urgency=medium\n\n  * Version %s rebuilt as %s.\n\n -- %s  %s\n\n' \
      "$deb_version" "$version" "$deb_version" "$maintainer" "$(date -R)"
  fi
  awk -v maintainer="$maintainer" '
    # An item wrapped at 78 columns, as Debian changelogs are.
    function close_item(   n, words, i, line) {
      if (item == "") return
      n = split(item, words, " "); line = "  *"
      for (i = 1; i <= n; i++) {
        if (length(line) + 1 + length(words[i]) > 78) { print line; line = "   " }
        line = line " " words[i]
      }
      print line; item = ""
    }
    function close_entry() { close_item(); if (open) { print ""; print " -- " maintainer "  " stamp; print "" }; open = 0 }
    /^## [0-9]/ {
      close_entry()
      v = $2; d = $3; gsub(/[()]/, "", d)
      cmd = "date -R -u -d " d; cmd | getline stamp; close(cmd)
      print "noiseclock (" v ") bookworm; urgency=medium"; print ""; open = 1; next
    }
    open && /^- / { close_item(); item = substr($0, 3); next }
    open && /^  [^ ]/ && item != "" { line = $0; sub(/^ +/, "", line); item = item " " line; next }
    END { close_entry() }
  ' CHANGELOG.md
} > debian/changelog

mkdir -p "$destdir"
host=$(dpkg --print-architecture)
arch=${ARCH:-$host}
if [ "$arch" = "$host" ]; then
  dpkg-checkbuilddeps
  debian/rules clean
  DEB_DESTDIR="$destdir" debian/rules binary
elif [ "$arch" = arm64 ] && [ "$host" = amd64 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "make-deb: ARCH=arm64 needs root (mmdebstrap, systemd-nspawn)" >&2; exit 2; }
  toolchain=$(bash scripts/arm64-toolchain.sh)
  destdir=$(realpath "$destdir")
  # The package is made in a folder of its own outside the checkout, then moved: bound at /out of
  # the sysroot, the checkout itself (the default destination) would be a loop under /src, where
  # dh_clean's find stops at it.
  out=$(mktemp -d /var/tmp/noiseclock-deb-arm64.XXXXXX)
  trap 'rm -rf "$out"' EXIT
  # The host's PID 1 is not systemd here: the legacy cgroup hierarchy, and no machined to register with.
  export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0
  in_root() { # in_root ROOT COMMAND: COMMAND in ROOT with the checkout at /src and the .deb's folder at /out
    local root=$1; shift
    systemd-nspawn --quiet --pipe --register=no --keep-unit -D "$toolchain/$root" --bind="$PWD:/src" --bind="$out:/out" \
      --bind-ro=/opt/swift-packages --chdir=/src /bin/bash -c "$*"
  }
  sysroot=/src/$toolchain/sysroot
  # SwiftPM reads the sysroot's .pc files itself (its prefixes moved under the sysroot).
  pkgconfig="PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_PATH=$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig"
  cross="swift build -c release --swift-sdks-path /src/$toolchain/sdks --swift-sdk noiseclock-trixie-arm64 --scratch-path .build-deb-arm64 --static-swift-stdlib"
  in_root sid-root "set -e; export $pkgconfig
    $cross --product noiseclock -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
    $cross --product noiseclock-stream -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
    $cross --product noiseclock-speak -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
    $cross --product noiseclock-calendar -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
    $cross --product generate-manual"
  bin=$(in_root sid-root "export $pkgconfig; $cross --show-bin-path" | tr -d "\r" | tail -1)
  # -I: build-essential (a compiler) is not needed here, the node is built already.
  in_root sysroot "set -e; dpkg-checkbuilddeps -I; debian/rules clean
    NOISECLOCK_PREBUILT=$bin DEB_DESTDIR=/out debian/rules binary"
  mv "$out/noiseclock_${deb_version}_$arch.deb" "$destdir/"
else
  echo "make-deb: ARCH=$arch: only the machine's own architecture, or arm64 from amd64" >&2
  exit 2
fi
ls -l "$destdir/noiseclock_${deb_version}_$arch.deb"
