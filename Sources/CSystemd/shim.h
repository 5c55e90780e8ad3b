// libsystemd's service-manager notification API (sd_notify, sd_watchdog_enabled).
#include <systemd/sd-daemon.h>
