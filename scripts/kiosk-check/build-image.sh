#!/usr/bin/env bash
# The virtual kiosk's disk: Debian bookworm amd64 from Debian's packages (mmdebstrap), with what
# the kiosk setups of docs/KIOSK.md need (sway, greetd, cage, mpv for the baseline, the libraries
# Upright's package depends on) but not Upright itself: each run installs the .deb built from the
# tree. No bootloader: QEMU boots the kernel and initrd copied out next to the image.
#
#   build-image.sh OUT    → OUT/kiosk.qcow2, OUT/vmlinuz, OUT/initrd.img, OUT/id_ed25519
#
# Rebuilt only when this script or customize.sh changes; downloaded packages are kept in
# OUT/apt-cache, so a rebuild fetches nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-image.sh OUT}
# The Debian mirror this machine's apt uses (MIRROR overrides it).
mirror=${MIRROR:-$(sed -n 's/^URIs: *\([^ ]*\/debian\)$/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)}
[ -n "$mirror" ] || mirror=$(sed -n 's/^deb  *\([^ ]*\/debian\) .*/\1/p' /etc/apt/sources.list 2>/dev/null | head -1)
[ -n "$mirror" ] || { echo "build-image.sh: no Debian mirror in apt's sources; set MIRROR" >&2; exit 1; }
mkdir -p "$out" "$out/apt-cache"
stamp=$(cat "$0" "$here/customize.sh" "$here/uinput-keys.py" | sha256sum | cut -c1-16)
if [ -f "$out/kiosk.qcow2" ] && [ "$(cat "$out/stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "image: up to date ($out/kiosk.qcow2)"
    exit 0
fi
rm -f "$out/stamp"
start=$(date +%s)
[ -f "$out/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$out/id_ed25519"
packages=(
    linux-image-amd64 initramfs-tools systemd-sysv udev dbus libpam-systemd kmod iproute2
    openssh-server sudo procps psmisc systemd-coredump adduser libseccomp2
    sway greetd cage xwayland grim fonts-dejavu-core libgl1-mesa-dri
    mpv libmpv2 libiio0 libmosquitto1 libudev1 libsystemd0 zlib1g
    v4l-utils python3 python3-evdev
)
rootfs="$out/rootfs"
rm -rf "$rootfs"
mmdebstrap --variant=apt --include="$(IFS=,; echo "${packages[*]}")" \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
    --setup-hook="sync-in $out/apt-cache /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $out/apt-cache" \
    --customize-hook="copy-in $here/customize.sh $here/uinput-keys.py /tmp/" \
    --customize-hook='chroot "$1" sh -e /tmp/customize.sh && rm "$1"/tmp/customize.sh "$1"/tmp/uinput-keys.py' \
    --customize-hook="mkdir -p \"\$1/root/.ssh\" && cp $out/id_ed25519.pub \"\$1/root/.ssh/authorized_keys\"" \
    --customize-hook='rm -f "$1"/var/cache/apt/archives/*.deb' \
    bookworm "$rootfs" "$mirror"
cp -L "$rootfs"/boot/vmlinuz-* "$out/vmlinuz"
cp -L "$rootfs"/boot/initrd.img-* "$out/initrd.img"
rm -f "$out/kiosk.raw" "$out/kiosk.qcow2"
mkfs.ext4 -q -L kiosk -d "$rootfs" "$out/kiosk.raw" 4G
qemu-img convert -O qcow2 "$out/kiosk.raw" "$out/kiosk.qcow2"
rm -rf "$out/kiosk.raw" "$rootfs"
echo "$stamp" > "$out/stamp"
echo "image: built in $(($(date +%s) - start)) s ($out/kiosk.qcow2, $(du -h "$out/kiosk.qcow2" | cut -f1))"
