#!/usr/bin/env bash
# systemd's own checks on every unit the package installs, run by `make test`:
# `systemd-analyze verify` reports nothing (the units' programs taken from the build and the
# tree, the man page not asked for: `make deb` makes it), and `systemd-analyze security
# --offline=true` rates upright.service 3.0 or less and every other unit 4.9 or less.
#
#   scripts/check-units.sh UPRIGHT_BINARY
set -euo pipefail
bin=$(readlink -f "${1:?usage: check-units.sh UPRIGHT_BINARY}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -m 700 "$work/runtime"
failed=0
for unit in "$root"/packaging/systemd/*.service; do
    name=$(basename "$unit")
    # upright-user.service is installed as the user unit upright.service.
    scope=()
    limit=4.9
    installed=$name
    case $name in
        upright-user.service) scope=(--user); installed=upright.service ;;
        upright.service) limit=3.0 ;;
    esac
    mkdir -p "$work/$name"
    sed -e "s|/usr/bin/upright|$bin|g" -e "s|/usr/share/upright/kiosk/|$root/packaging/kiosk/|g" \
        "$unit" >"$work/$name/$installed"
    copy="$work/$name/$installed"
    out=$(cd "$work" && XDG_RUNTIME_DIR="$work/runtime" systemd-analyze "${scope[@]}" verify --man=no "$copy" 2>&1) \
        || true
    if [ -n "$out" ]; then
        echo "error: $name: systemd-analyze verify: $out" >&2
        failed=1
    fi
    report=$(cd "$work" && XDG_RUNTIME_DIR="$work/runtime" \
        systemd-analyze "${scope[@]}" security --offline=true --no-pager "$copy" 2>&1) || true
    level=$(printf '%s\n' "$report" | sed -n 's/.*Overall exposure level for .*: \([0-9.]*\) .*/\1/p')
    if [ -z "$level" ]; then
        echo "error: $name: systemd-analyze security gave no level: $report" >&2
        failed=1
    elif awk -v l="$level" -v m="$limit" 'BEGIN { exit !(l > m) }'; then
        echo "error: $name: exposure $level, more than $limit:" >&2
        printf '%s\n' "$report" | grep '✗' >&2
        failed=1
    else
        echo "$name: exposure $level (at most $limit), verify clean"
    fi
done
# The update tools' examples (docs/RUNNING.md): verified as installed; rauc is not installed
# here, so its command is taken as /bin/true.
for unit in "$root"/packaging/examples/*/*.service; do
    name=$(basename "$unit")
    mkdir -p "$work/example-$name"
    sed -e "s|/usr/bin/upright|$bin|g" -e "s|/usr/bin/rauc|/bin/true|g" "$unit" >"$work/example-$name/$name"
    out=$(cd "$work" && XDG_RUNTIME_DIR="$work/runtime" systemd-analyze verify --man=no "$work/example-$name/$name" 2>&1) \
        || true
    if [ -n "$out" ]; then
        echo "error: example $name: systemd-analyze verify: $out" >&2
        failed=1
    else
        echo "example $name: verify clean"
    fi
done
exit $failed
