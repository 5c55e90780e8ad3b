// libmpv's client and render APIs, loaded when a core is first made (dlopen), not when Upright
// starts: `upright play` runs its mpv in a process of its own, and `upright ctl`, `doctor` and the
// player's parent process never map libmpv and the two hundred libraries it brings (their
// relocated pages cost each process about 10 MB, and loading them costs every start).
//
// Each function libmpv's header declares as `mpv_NAME` is called as `upright_mpv_NAME`, with the
// same arguments: the loaded library's own function. The header's names are declared but not
// defined, so a call that skipped this module fails at link time instead of at run time.
#pragma once

#include <mpv/client.h>
#include <mpv/render.h>
#include <mpv/render_gl.h>
#include <stdbool.h>
#include <stdint.h>

/// Loads libmpv (its soname for this header's major API version) once; true when every function
/// below was found.
bool upright_mpv_load(void);

/// Why libmpv could not be loaded (the loader's own words), or NULL when it was.
const char *upright_mpv_load_failure(void);

/// NULL when libmpv could not be loaded: `upright_mpv_load_failure` says why.
mpv_handle *upright_mpv_create(void);
/// 0 when libmpv could not be loaded.
unsigned long upright_mpv_client_api_version(void);
/// Valid whether or not libmpv could be loaded.
const char *upright_mpv_error_string(int error);
const char *upright_mpv_event_name(mpv_event_id event);

// Only with a handle from `upright_mpv_create` (so libmpv is loaded).
int upright_mpv_initialize(mpv_handle *ctx);
void upright_mpv_terminate_destroy(mpv_handle *ctx);
void upright_mpv_free(void *data);
void upright_mpv_free_node_contents(mpv_node *node);
int upright_mpv_set_option_string(mpv_handle *ctx, const char *name, const char *data);
int upright_mpv_command(mpv_handle *ctx, const char **args);
int upright_mpv_command_ret(mpv_handle *ctx, const char **args, mpv_node *result);
int upright_mpv_get_property(mpv_handle *ctx, const char *name, mpv_format format, void *data);
char *upright_mpv_get_property_string(mpv_handle *ctx, const char *name);
int upright_mpv_set_property(mpv_handle *ctx, const char *name, mpv_format format, void *data);
int upright_mpv_set_property_string(mpv_handle *ctx, const char *name, const char *data);
int upright_mpv_observe_property(mpv_handle *mpv, uint64_t reply_userdata, const char *name, mpv_format format);
mpv_event *upright_mpv_wait_event(mpv_handle *ctx, double timeout);
int upright_mpv_render_context_create(mpv_render_context **res, mpv_handle *mpv, mpv_render_param *params);
int upright_mpv_render_context_render(mpv_render_context *ctx, mpv_render_param *params);
uint64_t upright_mpv_render_context_update(mpv_render_context *ctx);
void upright_mpv_render_context_free(mpv_render_context *ctx);
