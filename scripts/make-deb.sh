#!/usr/bin/env bash
# `make deb`: builds upright_VERSION_ARCH.deb in .build-deb/ with the binary (the Swift runtime
# linked in statically; it is its player's mpv process too), the example configuration as
# /etc/upright/upright.toml, the system and
# user systemd units, and the man pages: upright(1) (generated from the command line's own help,
# with the files, signals and mounting sections of packaging/upright.1.extra) and upright.toml(5)
# (from the example configuration, scripts/toml-man.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# The package's directories and files take their modes from here, never the builder's umask.
umask 022
scratch=.build-deb
# lld packs the binary's 133 000 relative relocations into 27 kB (DT_RELR, glibc 2.36): 3 MB less
# read at every start and resident in both of its processes.
swift build -c release --static-swift-stdlib --product upright --scratch-path "$scratch" \
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
bin="$scratch/release/upright"
version=$("$bin" --version)
arch=$(dpkg --print-architecture)
stage="$scratch/stage"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/etc/upright/sway.d" "$stage/etc/pam.d" "$stage/lib/systemd/system" \
    "$stage/usr/lib/systemd/user" "$stage/usr/share/man/man1" "$stage/usr/share/doc/upright" \
    "$stage/usr/share/upright/kiosk"

install -m 755 -s "$bin" "$stage/usr/bin/upright"
install -m 644 config/upright.toml "$stage/etc/upright/upright.toml"
install -m 644 packaging/systemd/upright.service "$stage/lib/systemd/system/upright.service"
install -m 644 packaging/systemd/upright-user.service "$stage/usr/lib/systemd/user/upright.service"
install -m 644 packaging/systemd/upright-sway.service packaging/systemd/upright-cage.service \
    packaging/systemd/upright-console.service "$stage/lib/systemd/system/"
install -m 644 packaging/kiosk/upright-kiosk.pam "$stage/etc/pam.d/upright-kiosk"
install -m 644 packaging/kiosk/sway.conf packaging/kiosk/greetd.toml packaging/kiosk/upright.desktop \
    "$stage/usr/share/upright/kiosk/"
install -m 755 packaging/kiosk/upright-kiosk-session "$stage/usr/share/upright/kiosk/"
install -D -m 644 packaging/systemd/upright.tmpfiles "$stage/usr/lib/tmpfiles.d/upright.conf"
install -m 644 README.md "$stage/usr/share/doc/upright/README.md"
# The docs by topic, where the README's links lead.
install -d "$stage/usr/share/doc/upright/docs"
install -m 644 docs/*.md docs/*.png "$stage/usr/share/doc/upright/docs/"
# The copyright file: Upright's, and that of every package whose code the binary was linked from.
python3 scripts/copyright.py packaging/debian/copyright.in "$scratch/checkouts" \
    "$scratch/release/upright.product/Objects.LinkFileList" >"$stage/usr/share/doc/upright/copyright"

# The man page: the command line's help as mdoc, then the hand-written sections.
man="$scratch/man"
rm -rf "$man" && mkdir -p "$man"
swift package --allow-writing-to-directory "$man" generate-manual --output-directory "$man" >/dev/null
awk -v extra=packaging/upright.1.extra '
    /^\.Sh "EXIT STATUS"/ { while ((getline line < extra) > 0) print line }
    { print }' "$man/upright.1" | gzip -9n > "$stage/usr/share/man/man1/upright.1.gz"
# upright.toml(5): every key with its default and meaning, from the example configuration.
mkdir -p "$stage/usr/share/man/man5"
python3 scripts/toml-man.py config/upright.toml "$version" | gzip -9n > "$stage/usr/share/man/man5/upright.toml.5.gz"

# Depends: the package of each library the binary names itself (DT_NEEDED), and of libmpv, which
# it loads when it plays (dlopen: the soname of the major API version of the headers built with),
# at least the version built with; theirs bring their own.
mpv_major=$(sed -n 's/^#define MPV_CLIENT_API_VERSION MPV_MAKE_VERSION(\([0-9]*\),.*/\1/p' /usr/include/mpv/client.h)
[ -n "$mpv_major" ] || { echo "make-deb: no MPV_CLIENT_API_VERSION in /usr/include/mpv/client.h" >&2; exit 1; }
depends=$({ objdump -p "$bin" | awk '/NEEDED/ { print $2 }'; echo "libmpv.so.$mpv_major"; } | while read -r soname; do
    lib=$(ldd "$bin" | awk -v n="$soname" '$1 == n { print $3 }')
    [ -n "$lib" ] || lib=$(ldconfig -p | awk -v n="$soname" '$1 == n { print $NF; exit }')
    [ -n "$lib" ] || continue
    real=$(readlink -f "$lib")
    pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || true)
    pkg=${pkg%%:*}
    [ -n "$pkg" ] || continue
    ver=$(dpkg-query -W -f='${Version}' "$pkg" | sed 's/-[^-]*$//')
    echo "$pkg (>= $ver)"
done | sort -u | paste -sd, | sed 's/,/, /g')
# The maintainer scripts make the system user.
depends="adduser, $depends"

# The maintainer as Debian's tools take it: DEBFULLNAME and DEBEMAIL, else git's user.
name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || true)}
email=${DEBEMAIL:-$(git config user.email 2>/dev/null || true)}
maintainer="${name:-Upright developers} <${email:-root@$(hostname -f 2>/dev/null || hostname)}>"
# The changelog Debian asks of a native package: this version, from the commit it was built from.
built=$(git log -1 --format=%cD 2>/dev/null || date -R)
commit=$(git describe --always --dirty 2>/dev/null || echo "an unversioned tree")
printf 'upright (%s) unstable; urgency=medium\n\n  * Upright %s, built from %s.\n\n -- %s  %s\n' \
    "$version" "$version" "$commit" "$maintainer" "$built" | gzip -9n >"$stage/usr/share/doc/upright/changelog.gz"
# lintian's overrides, each with its reason.
install -D -m 644 packaging/debian/lintian-overrides "$stage/usr/share/lintian/overrides/upright"
size=$(du -sk "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s|@MAINTAINER@|$maintainer|" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
    packaging/debian/control.in > "$stage/DEBIAN/control"
install -m 644 packaging/debian/conffiles "$stage/DEBIAN/conffiles"
install -m 755 packaging/debian/postinst packaging/debian/postrm "$stage/DEBIAN/"

deb="$scratch/upright_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
