#!/usr/bin/env bash
# Builds the Debian package (docs/packaging.md): noiseclock_<version>_<arch>.deb in the checkout.
#
#   bash scripts/make-deb.sh                 # the version in VERSION
#   DEB_VERSION=0.2.0+1 bash scripts/make-deb.sh   # the same code under another package version
#                                            # (make deb-test builds one to try an upgrade)
#   DEB_DESTDIR=DIR                          # where the .deb goes (default: the checkout)
#
# debian/changelog is written here from CHANGELOG.md, whose section for VERSION must exist; then
# debian/rules does the rest with debhelper (a release build with the Swift runtime linked in,
# in .build-deb/, apart from a developer's .build/).
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

dpkg-checkbuilddeps
mkdir -p "$destdir"
debian/rules clean
DEB_DESTDIR="$destdir" debian/rules binary
ls -l "$destdir/noiseclock_${deb_version}_$(dpkg-architecture -qDEB_HOST_ARCH).deb"
