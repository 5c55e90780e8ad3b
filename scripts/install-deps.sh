#!/usr/bin/env bash
# Installs the Debian packages Upright needs to build, test and benchmark, and only those missing.
# Idempotent: with everything present it changes nothing and does not touch the network.
#
#   scripts/install-deps.sh [build|test|bench|deb|kiosk|ha|web]    (default: test)
set -euo pipefail

need=(pkg-config libiio-dev libmpv-dev zlib1g-dev libudev-dev libsystemd-dev libmosquitto-dev libseccomp-dev libxml2-dev)
case "${1:-test}" in
    build) ;;
    # The scorer and benchmarks are Python; the sensor tests run a real iiod; the display tests a
    # headless sway (screenshots by grim, wlr-randr for the wlroots backend, kanshi as a rival) and Xvfb.
    # GNOME: a headless mutter on a private session bus, its settings through dconf; KDE: KWin's
    # virtual output listed by kscreen-doctor; the metrics, scraped by a real node-exporter; MQTT
    # through a real mosquitto broker (Home Assistant's discovery rules checked with Jinja, as it
    # renders templates); the power plan under libfaketime's wall clock; what the screen shows
    # between items, recorded by wf-recorder; the operator's page in a real headless Chromium
    # (selenium), a clip for its upload made by ffmpeg; live streams from GStreamer's RTSP server
    # (through Python) and an HLS stream made by ffmpeg; keys typed into a window by wtype (a
    # virtual keyboard in sway). systemd-analyze and cage: the checks of the units (cage: the
    # programs one starts). systemd-journal-remote writes a journal of kernel records to read.
    test) need+=(python3 systemd iiod sway cage grim wlr-randr kanshi xvfb x11-xserver-utils xinput
        mutter dbus libglib2.0-bin dconf-service dconf-gsettings-backend
        kwin-wayland libkf5screen-bin qtwayland5
        prometheus-node-exporter curl mosquitto mosquitto-clients python3-jinja2 faketime
        wf-recorder chromium chromium-driver python3-selenium ffmpeg
        python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good openssl wtype
        systemd-journal-remote) ;;
    # The sensor benchmark also builds a C baseline against libiio; the display one runs sway.
    # The appliance and screen benchmarks run plain mpv beside upright play; the screen one records
    # with wf-recorder.
    bench) need+=(python3 iiod gcc mosquitto mosquitto-clients faketime sway grim wlr-randr mpv wf-recorder ffmpeg python3-gi gir1.2-gst-rtsp-server-1.0
        gstreamer1.0-plugins-base gstreamer1.0-plugins-good) ;;
    # The Debian package: objdump reads the libraries the binary needs.
    deb) need+=(binutils) ;;
    # Debian's checks of the package (make piuparts): lintian, and piuparts with debootstrap.
    package) need+=(binutils lintian piuparts debootstrap) ;;
    # The virtual kiosk (make kiosk-check): a Debian image by mmdebstrap, booted by QEMU; the
    # accelerometer served by iiod (relayed by socat); the clip made by ffmpeg; the broker the
    # presence check sends command/presence through.
    kiosk) need+=(binutils mmdebstrap qemu-system-x86 qemu-utils e2fsprogs openssh-client iiod socat
        iproute2 util-linux ffmpeg python3 mosquitto mosquitto-clients) ;;
    # Home Assistant Core in a virtual environment beside a real broker, Upright under a headless
    # sway, its screenshots read by ffmpeg (make ha-check).
    ha) need+=(python3 python3-venv mosquitto mosquitto-clients sway ffmpeg) ;;
    # The page's external checks (make check-web): the Nu checker (Java), axe-core in a real
    # headless Chromium (selenium), wapiti's scan; the checkers themselves from PyPI in a venv.
    web) need+=(python3 python3-venv python3-selenium chromium chromium-driver default-jre-headless wapiti curl unzip) ;;
    *) echo "usage: $0 [build|test|bench|deb|package|kiosk|ha|web]" >&2; exit 2 ;;
esac

missing=()
for p in "${need[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null; then SUDO=sudo; else
        echo "error: missing packages: ${missing[*]}; run this script as root to install them" >&2
        exit 1
    fi
else
    SUDO=
fi
echo "Installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
