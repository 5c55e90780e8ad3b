// libsystemd: the service-manager notification API (sd_notify, sd_watchdog_enabled), the
// D-Bus client library (sd-bus), logind's session records (sd-login) and the journal (sd-journal).
#include <systemd/sd-daemon.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>
#include <systemd/sd-journal.h>
