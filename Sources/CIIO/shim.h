// The module map needs one header to name; libiio's own header is all we import.
#include <iio.h>
