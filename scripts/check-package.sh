#!/usr/bin/env bash
# `make piuparts`: the package as Debian's tools judge it. lintian --fail-on error on the .deb
# (the overrides it honours are packaging/debian/lintian-overrides, each with its reason), then
# piuparts: the .deb installed in a clean bookworm chroot with its dependencies from Debian's
# mirror, removed, and purged, with nothing left behind that the package made. The chroot's base
# (debootstrap's, made once and kept in .build-deb/piuparts/) is reused; MIRROR names another
# mirror. Needs root and the mirror; takes minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=$(ls -t .build-deb/upright_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "no package: run make deb first" >&2; exit 1; }
mirror=${MIRROR:-http://deb.debian.org/debian}

echo "== lintian $deb"
lintian --fail-on error --info "$deb"
echo "lintian: no error"

echo "== piuparts $deb"
work=.build-deb/piuparts
mkdir -p "$work"
rm -f "$work/piuparts.log"
base="$work/bookworm.tar.gz"
if [ -s "$base" ]; then
    from=(--basetgz="$base")
else
    from=(--save="$(realpath "$base")")  # made by this run, kept for the next
fi
# --warn-on-leftovers-after-purge is not given: a file the package left after its purge fails.
piuparts --distribution=bookworm --mirror="$mirror main" "${from[@]}" \
    --tmpdir="$(realpath "$work")" --log-file="$work/piuparts.log" "$deb" >/dev/null || {
    echo "piuparts failed: the end of $work/piuparts.log:" >&2
    tail -40 "$work/piuparts.log" >&2
    exit 1
}
grep -E "INFO: PASS" "$work/piuparts.log" || true
echo "piuparts: passed ($work/piuparts.log)"
