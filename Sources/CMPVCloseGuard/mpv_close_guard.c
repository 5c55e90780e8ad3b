#define _GNU_SOURCE
#include "mpv_close_guard.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// The text of the two libraries whose closes are looked at, found once.
typedef struct {
    uintptr_t start, end;
} range;
static range mpv_text, wayland_text;
static pthread_once_t found = PTHREAD_ONCE_INIT;

static int note_library(struct dl_phdr_info *info, size_t size, void *unused) {
    (void)size;
    (void)unused;
    range *target = NULL;
    if (strstr(info->dlpi_name, "/libmpv.so")) target = &mpv_text;
    if (strstr(info->dlpi_name, "/libwayland-client.so")) target = &wayland_text;
    if (!target) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_X)) continue;
        target->start = info->dlpi_addr + segment->p_vaddr;
        target->end = target->start + segment->p_memsz;
    }
    return 0;
}

static void find_libraries(void) { dl_iterate_phdr(note_library, NULL); }

static bool within(range r, uintptr_t address) { return address >= r.start && address < r.end; }

// Descriptors libmpv has closed that libwayland-client still owns. A display's socket is held
// until its disconnect; a handful at most are ever held at once.
enum { held_capacity = 32 };
static int held[held_capacity];
static int held_count;
static unsigned long held_total;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void upright_mpv_close_guard_find_libraries(void) {
    pthread_once(&found, find_libraries);
    pthread_mutex_lock(&lock);
    find_libraries();
    pthread_mutex_unlock(&lock);
}

static int really_close(int fd) { return (int)syscall(SYS_close, fd); }

static bool is_socket(int fd) {
    struct stat info;
    return fstat(fd, &info) == 0 && S_ISSOCK(info.st_mode);
}

static int held_index(int fd) {
    for (int i = 0; i < held_count; i++)
        if (held[i] == fd) return i;
    return -1;
}

int close(int fd) {
    uintptr_t caller = (uintptr_t)__builtin_return_address(0);
    pthread_once(&found, find_libraries);
    bool from_mpv = within(mpv_text, caller), from_wayland = within(wayland_text, caller);
    if (!from_mpv && !from_wayland) return really_close(fd);

    pthread_mutex_lock(&lock);
    int index = held_index(fd);
    if (from_mpv && (index >= 0 || is_socket(fd))) {
        // The display's socket: libwayland-client closes it when the display is disconnected.
        if (index < 0) {
            if (held_count == held_capacity) {
                really_close(held[0]);
                memmove(held, held + 1, sizeof held[0] * (held_capacity - 1));
                held_count--;
            }
            held[held_count++] = fd;
        }
        held_total++;
        pthread_mutex_unlock(&lock);
        return 0;
    }
    if (from_wayland && index >= 0) held[index] = held[--held_count];
    int result = really_close(fd);
    int saved = errno;
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

unsigned long upright_mpv_close_guard_held(void) {
    pthread_mutex_lock(&lock);
    unsigned long total = held_total;
    pthread_mutex_unlock(&lock);
    return total;
}

bool upright_mpv_close_guard_installed(void) {
    return dlsym(RTLD_DEFAULT, "close") == (void *)close;
}
