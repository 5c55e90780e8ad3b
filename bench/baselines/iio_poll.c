/* The floor for polling an accelerometer through libiio: a C loop that only reads the three
 * `raw` attributes at 25 Hz for 10 s and prints its own CPU share (schedstat, after setup).
 * scripts/bench_sensor.py builds it and runs it beside Upright on the same fake device. */
#include <iio.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long cpu_ns(void) {
    long long ns = 0;
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (f) {
        if (fscanf(f, "%lld", &ns) != 1) ns = 0;
        fclose(f);
    }
    return ns;
}

int main(int argc, char **argv) {
    const char *uri = argc > 1 ? argv[1] : "local:";
    struct iio_context *ctx = iio_create_context_from_uri(uri);
    if (!ctx) { perror("iio_create_context_from_uri"); return 1; }
    struct iio_device *dev = iio_context_find_device(ctx, "accel_3d");
    if (!dev) { fprintf(stderr, "no accel_3d\n"); return 1; }
    const char *ids[3] = {"accel_x", "accel_y", "accel_z"};
    struct iio_channel *ch[3];
    for (int i = 0; i < 3; i++) ch[i] = iio_device_find_channel(dev, ids[i], false);
    struct timespec period = {0, 40000000};
    char buf[64];
    double sum = 0;
    long long start = cpu_ns();
    for (int i = 0; i < 250; i++) {
        nanosleep(&period, NULL);
        for (int k = 0; k < 3; k++) {
            if (iio_channel_attr_read(ch[k], "raw", buf, sizeof buf) > 0) sum += atof(buf);
        }
    }
    printf("%.6f %g\n", (cpu_ns() - start) / 1e9 / 10.0, sum);
    iio_context_destroy(ctx);
    return 0;
}
