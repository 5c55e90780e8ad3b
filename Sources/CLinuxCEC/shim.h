// The kernel's HDMI-CEC interface (/dev/cecN): its structures from <linux/cec.h>, and its ioctl
// numbers as functions (Swift does not import function-like macros).
#include <linux/cec.h>
#include <sys/ioctl.h>

static inline unsigned long upright_cec_adap_g_caps(void) { return CEC_ADAP_G_CAPS; }
static inline unsigned long upright_cec_adap_g_phys_addr(void) { return CEC_ADAP_G_PHYS_ADDR; }
static inline unsigned long upright_cec_adap_g_log_addrs(void) { return CEC_ADAP_G_LOG_ADDRS; }
static inline unsigned long upright_cec_adap_s_log_addrs(void) { return CEC_ADAP_S_LOG_ADDRS; }
static inline unsigned long upright_cec_transmit(void) { return CEC_TRANSMIT; }
