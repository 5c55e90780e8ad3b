// libmosquitto: the MQTT client library (Eclipse Mosquitto).
#include <mosquitto.h>
