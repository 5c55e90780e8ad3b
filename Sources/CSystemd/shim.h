// libsystemd: the service-manager notification API (sd_notify, sd_watchdog_enabled), the
// D-Bus client library (sd-bus) and logind's session records (sd-login).
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
