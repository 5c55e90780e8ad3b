#include "cmpv.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Every function Upright calls, as (return type, name, parameters, arguments). The four that are
// valid without a handle are written out below.
#define UPRIGHT_MPV_RETURNING(X)                                                                        \
    X(int, mpv_initialize, (mpv_handle * ctx), (ctx))                                                   \
    X(int, mpv_set_option_string, (mpv_handle * ctx, const char *name, const char *data), (ctx, name, data)) \
    X(int, mpv_command, (mpv_handle * ctx, const char **args), (ctx, args))                             \
    X(int, mpv_command_ret, (mpv_handle * ctx, const char **args, mpv_node *result), (ctx, args, result)) \
    X(int, mpv_get_property, (mpv_handle * ctx, const char *name, mpv_format format, void *data),       \
      (ctx, name, format, data))                                                                        \
    X(char *, mpv_get_property_string, (mpv_handle * ctx, const char *name), (ctx, name))               \
    X(int, mpv_set_property, (mpv_handle * ctx, const char *name, mpv_format format, void *data),       \
      (ctx, name, format, data))                                                                        \
    X(int, mpv_set_property_string, (mpv_handle * ctx, const char *name, const char *data), (ctx, name, data)) \
    X(int, mpv_observe_property, (mpv_handle * mpv, uint64_t reply_userdata, const char *name, mpv_format format), \
      (mpv, reply_userdata, name, format))                                                              \
    X(mpv_event *, mpv_wait_event, (mpv_handle * ctx, double timeout), (ctx, timeout))                  \
    X(int, mpv_render_context_create, (mpv_render_context * *res, mpv_handle * mpv, mpv_render_param * params), \
      (res, mpv, params))                                                                               \
    X(int, mpv_render_context_render, (mpv_render_context * ctx, mpv_render_param * params), (ctx, params)) \
    X(uint64_t, mpv_render_context_update, (mpv_render_context * ctx), (ctx))

#define UPRIGHT_MPV_VOID(X)                                                                             \
    X(mpv_terminate_destroy, (mpv_handle * ctx), (ctx))                                                 \
    X(mpv_free, (void *data), (data))                                                                   \
    X(mpv_free_node_contents, (mpv_node * node), (node))                                                \
    X(mpv_render_context_free, (mpv_render_context * ctx), (ctx))

#define UPRIGHT_MPV_ANY(X)                                                                              \
    X(mpv_handle *, mpv_create, (void), ())                                                             \
    X(unsigned long, mpv_client_api_version, (void), ())                                                \
    X(const char *, mpv_error_string, (int error), (error))                                             \
    X(const char *, mpv_event_name, (mpv_event_id event), (event))

#define POINTER(type, name, parameters, arguments) type(*name) parameters;
#define VOID_POINTER(name, parameters, arguments) void(*name) parameters;
static struct {
    UPRIGHT_MPV_RETURNING(POINTER)
    UPRIGHT_MPV_VOID(VOID_POINTER)
    UPRIGHT_MPV_ANY(POINTER)
} api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    char soname[32];
    snprintf(soname, sizeof soname, "libmpv.so.%lu", (unsigned long)(MPV_CLIENT_API_VERSION >> 16));
    // Lazily bound: a function of libmpv's ~200 libraries that is never called is never looked
    // up (18 % of the load's 56 000 relocations here; libraries linked to bind at once still do).
    void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define FIND(type, name, parameters, arguments) *(void **)&api.name = dlsym(library, #name);
#define VOID_FIND(name, parameters, arguments) *(void **)&api.name = dlsym(library, #name);
    UPRIGHT_MPV_RETURNING(FIND)
    UPRIGHT_MPV_VOID(VOID_FIND)
    UPRIGHT_MPV_ANY(FIND)
#define CHECK(type, name, parameters, arguments) VOID_CHECK(name, parameters, arguments)
#define VOID_CHECK(name, parameters, arguments)                                                         \
    if (api.name == NULL && failure[0] == 0) {                                                          \
        snprintf(failure, sizeof failure, "%s has no function %s (too old a libmpv)", soname, #name);  \
    }
    UPRIGHT_MPV_RETURNING(CHECK)
    UPRIGHT_MPV_VOID(VOID_CHECK)
    UPRIGHT_MPV_ANY(CHECK)
}

bool upright_mpv_load(void) {
    pthread_once(&once, load);
    return failure[0] == 0;
}

const char *upright_mpv_load_failure(void) { return upright_mpv_load() ? NULL : failure; }

mpv_handle *upright_mpv_create(void) { return upright_mpv_load() ? api.mpv_create() : NULL; }

unsigned long upright_mpv_client_api_version(void) {
    return upright_mpv_load() ? api.mpv_client_api_version() : 0;
}

const char *upright_mpv_error_string(int error) {
    return upright_mpv_load() ? api.mpv_error_string(error) : "libmpv is not loaded";
}

const char *upright_mpv_event_name(mpv_event_id event) {
    return upright_mpv_load() ? api.mpv_event_name(event) : "unknown";
}

#define FORWARD(type, name, parameters, arguments)                                                      \
    type upright_##name parameters { return api.name arguments; }
#define VOID_FORWARD(name, parameters, arguments)                                                       \
    void upright_##name parameters { api.name arguments; }
UPRIGHT_MPV_RETURNING(FORWARD)
UPRIGHT_MPV_VOID(VOID_FORWARD)
