// libsystemd: the service-manager notification API (sd_notify, sd_watchdog_enabled) and the
// D-Bus client library (sd-bus).
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
