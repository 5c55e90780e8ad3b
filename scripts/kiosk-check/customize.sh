#!/bin/sh
# Runs inside the new root at the end of mmdebstrap: a machine as an operator receives it.
set -e
echo kiosk > /etc/hostname
printf '127.0.1.1 kiosk\n' >> /etc/hosts
cat > /etc/fstab <<'F'
/dev/vda / ext4 defaults,errors=remount-ro 0 1
share /mnt/share 9p trans=virtio,version=9p2000.L,msize=262144,nofail,x-systemd.device-timeout=5s 0 0
F
mkdir -p /mnt/share
passwd -d root
echo 'PermitRootLogin prohibit-password' > /etc/ssh/sshd_config.d/root.conf
cat > /etc/systemd/network/20-wired.network <<'F'
[Match]
Name=en*
[Network]
DHCP=yes
F
systemctl enable systemd-networkd
systemctl mask systemd-networkd-wait-online.service
# greetd is installed, not started: the check picks each session in turn.
systemctl disable greetd.service 2>/dev/null || true
echo 'LANG=C.UTF-8' > /etc/default/locale
# The operator who is not root: `upright ctl` as a member of the group upright.
useradd -m -s /bin/bash attendant
# The kiosk's buttons, made with uinput; the modules the check loads at boot.
install -m 755 /tmp/uinput-keys.py /usr/local/bin/uinput-keys
printf 'uinput\nvivid\n' > /etc/modules-load.d/kiosk-check.conf
