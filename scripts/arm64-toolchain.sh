#!/usr/bin/env bash
# The cross toolchain for `make deb ARCH=arm64` (docs/packaging.md, *On a Raspberry Pi*), made
# from Debian's archive alone and kept under .build-deb/arm64/ (git-ignored), so a second build
# downloads nothing. Needs root (mmdebstrap, chroot) and qemu-user-static with binfmt_misc.
#
#   bash scripts/arm64-toolchain.sh          make what is missing; print the folder
#
# What it makes, each once (a folder is used only when its .done stamp is there):
#   sid-root/    Debian sid amd64 with `swiftlang` 6.2 (Debian's Swift; its compiler needs
#                glibc 2.42, which only sid has): the compiler that cross-builds the node
#   sysroot/     Debian 13 "trixie" arm64 with the -dev packages of debian/control, debhelper
#                and dpkg-dev: the system the node is linked against (and where debhelper,
#                under qemu, strips it and reads its Depends from trixie's own libraries)
#                with the aarch64 Swift runtime and modules out of `swiftlang_*_arm64.deb`
#                (its usr/libexec/swift/lib/swift and swift_static) in usr/lib/, linked in statically
#   sdks/        a Swift SDK bundle (`swift-sdk.json`, `toolset.json`) that ties them together,
#                with paths as the build sees them inside sid-root (the checkout at /src)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "arm64-toolchain: needs root (mmdebstrap, chroot)" >&2; exit 2; }
dir=.build-deb/arm64
mkdir -p "$dir/cache"
mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
# The archive's mirror here is a dated snapshot: its Release files are past their Valid-Until.
apt_options=(--aptopt='Acquire::Check-Valid-Until "false"')
log() { echo "arm64-toolchain: $*" >&2; }

# arm64 programs (the sysroot's maintainer scripts, debhelper) run through qemu-user-static.
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { log "qemu-aarch64 is not registered with binfmt_misc (install qemu-user-static and binfmt-support)"; exit 2; }
fi

# The swiftlang packages, once: the version is the one sid has today.
deb_url() { # deb_url PACKAGE ARCH: the pool path of sid's PACKAGE for ARCH
  local index="$dir/cache/Packages-sid-$2.xz"
  [ -s "$index" ] || curl -sfL -o "$index" "$mirror/dists/sid/main/binary-$2/Packages.xz"
  xz -dc "$index" | awk -v RS= -v want="Package: $1" 'index($0, want "\n") == 1' | sed -n 's/^Filename: //p' | head -1
}
fetch() { # fetch PACKAGE ARCH: the .deb in cache/, downloaded once
  local path; path=$(deb_url "$1" "$2")
  [ -n "$path" ] || { log "sid has no $1 for $2"; exit 1; }
  local file="$dir/cache/$(basename "$path")"
  if [ ! -s "$file" ]; then
    log "downloading $(basename "$path")"
    curl -sfL -o "$file.part" "$mirror/$path" && mv "$file.part" "$file"
  fi
  echo "$file"
}

if [ ! -e "$dir/sid-root.done" ]; then
  log "sid amd64 with swiftlang (mmdebstrap)"
  rm -rf "$dir/sid-root"
  swiftlang=$(fetch swiftlang amd64) runtime=$(fetch libswiftlang amd64)
  mmdebstrap --quiet --variant=apt "${apt_options[@]}" \
    --include=swiftlang,libc6-dev,git,pkgconf,ca-certificates,make \
    --setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && cp '$swiftlang' '$runtime' \"\$1/var/cache/apt/archives/\"" \
    sid "$dir/sid-root" "$mirror"
  # Swift packages resolve from the machine's copies, as on the host (the checkout's git config).
  git config --get-regexp '^url\..*\.insteadof$' | while read -r key value; do
    git config --file "$dir/sid-root/root/.gitconfig" --add "$key" "$value"
  done
  touch "$dir/sid-root.done"
fi
# swiftlang links the manifest and the build plugins for the host with gcc, and sid's gcc only
# recommends libc6-dev (without it: "cannot find Scrt1.o"): a root made before it was listed above
# gets it once.
if [ ! -e "$dir/sid-root/usr/lib/x86_64-linux-gnu/crti.o" ]; then
  log "sid-root: libc6-dev"
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 systemd-nspawn --quiet --pipe --register=no --keep-unit -D "$dir/sid-root" /bin/sh -c \
    'apt-get -o Acquire::Check-Valid-Until=false update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libc6-dev' >&2
fi

sysroot_packages=libc6-dev,libgcc-14-dev,libstdc++-14-dev,libmosquitto-dev,libmpg123-dev,libasound2-dev,libupower-glib-dev,libyaml-dev,libavformat-dev,libavcodec-dev,libswresample-dev,libavutil-dev,libcurl4-openssl-dev,libespeak-ng-dev,libical-dev,pkgconf,debhelper,dpkg-dev,binutils
if [ ! -e "$dir/sysroot.done" ]; then
  log "trixie arm64 sysroot (mmdebstrap under qemu; several minutes)"
  rm -rf "$dir/sysroot" "$dir/swift-arm64.done"
  mmdebstrap --quiet --arch=arm64 --variant=minbase "${apt_options[@]}" \
    --include="$sysroot_packages" trixie "$dir/sysroot" "$mirror"
  touch "$dir/sysroot.done"
fi
# A sysroot made before a -dev package was added to the list above (the streams' FFmpeg and curl,
# speech's libespeak-ng) gets what it lacks, under qemu, once.
missing=()
for package in ${sysroot_packages//,/ }; do
  dpkg-query --admindir="$dir/sysroot/var/lib/dpkg" -W -f='${Status}' "$package:arm64" 2>/dev/null | grep -q "install ok installed" \
    || dpkg-query --admindir="$dir/sysroot/var/lib/dpkg" -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "sysroot: ${missing[*]} (apt under qemu)"
  SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=0 systemd-nspawn --quiet --pipe --register=no --keep-unit -D "$dir/sysroot" /bin/sh -c \
    "apt-get -o Acquire::Check-Valid-Until=false update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ${missing[*]} && apt-get clean" >&2
fi

# The aarch64 Swift runtime and modules, where the Swift driver looks for them in an SDK's root
# (it takes swiftrt.o from <sysroot>/usr/lib/swift_static whatever swift-sdk.json says).
if [ ! -e "$dir/swift-arm64.done" ]; then
  log "the aarch64 Swift runtime out of swiftlang (arm64), into the sysroot"
  rm -rf "$dir/swift-arm64" "$dir/sysroot/usr/lib/swift" "$dir/sysroot/usr/lib/swift_static"
  mkdir -p "$dir/swift-arm64"
  dpkg-deb --fsys-tarfile "$(fetch swiftlang arm64)" \
    | tar -x -C "$dir/swift-arm64" ./usr/libexec/swift/lib/swift ./usr/libexec/swift/lib/swift_static
  mv "$dir/swift-arm64/usr/libexec/swift/lib/swift" "$dir/swift-arm64/usr/libexec/swift/lib/swift_static" "$dir/sysroot/usr/lib/"
  # Their clang/ (the C compiler's own headers, stdbool.h) points at ../clang/N: the compiler's
  # own copy, in sid-root, of the same version (arch-independent headers).
  for resources in swift swift_static; do
    link="$dir/sysroot/usr/lib/$resources/clang"
    ln -sfn "/usr/libexec/swift/lib/clang/$(basename "$(readlink "$link")")" "$link"
  done
  rm -rf "$dir/swift-arm64"
  touch "$dir/swift-arm64.done"
fi

# The SDK bundle: written every time (it is small), with the paths of the build inside sid-root.
bundle="$dir/sdks/noiseclock-arm64.artifactbundle"
variant="$bundle/trixie-arm64"
mkdir -p "$variant"
inside=/src/$dir
cat > "$bundle/info.json" <<EOF
{
  "schemaVersion": "1.0",
  "artifacts": {
    "noiseclock-trixie-arm64": { "type": "swiftSDK", "version": "1", "variants": [ { "path": "trixie-arm64" } ] }
  }
}
EOF
cat > "$variant/swift-sdk.json" <<EOF
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "$inside/sysroot",
      "swiftResourcesPath": "$inside/sysroot/usr/lib/swift",
      "swiftStaticResourcesPath": "$inside/sysroot/usr/lib/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
EOF
cat > "$variant/toolset.json" <<EOF
{
  "schemaVersion": "1.0",
  "linker": { "path": "/usr/libexec/swift/bin/ld.lld" },
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld"] }
}
EOF
echo "$dir"
