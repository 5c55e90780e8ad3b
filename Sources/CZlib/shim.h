// The module map needs one header to name: zlib's, for the PNG writer's deflate.
#include <zlib.h>
