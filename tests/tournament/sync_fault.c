/* A fault of the disk's sync, injected below SQLite for tests/tournament/test_sqlite_sync.py.

Loaded with LD_PRELOAD in a child process, it replaces the C library's fsync and fdatasync (what
SQLite's unix VFS and Python's os.fsync call). For a descriptor of a file whose path ends in "-wal"
(an event's log):
- while the file named by SYNC_FAULT_HOLD exists, the call waits, having created that name plus
  ".held" to say a sync is in flight;
- while the file named by SYNC_FAULT_FAIL exists, it fails with EIO, syncing nothing.
Every other call is the real one. Nothing of SQLite is replaced: it sees the disk fail. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int is_log(int fd) {
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n < 4)
        return 0;
    path[n] = 0;
    return strcmp(path + n - 4, "-wal") == 0;
}

static int exists(const char *name) { return name != NULL && access(name, F_OK) == 0; }

static int fault(int fd) {
    if (!is_log(fd))
        return 0;
    const char *hold = getenv("SYNC_FAULT_HOLD");
    if (exists(hold)) {
        char held[4096];
        snprintf(held, sizeof held, "%s.held", hold);
        int mark = open(held, O_CREAT | O_WRONLY, 0600);
        if (mark >= 0)
            close(mark);
        while (exists(hold))
            usleep(1000);
    }
    if (exists(getenv("SYNC_FAULT_FAIL"))) {
        errno = EIO;
        return -1;
    }
    return 0;
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return fault(fd) ? -1 : real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    return fault(fd) ? -1 : real(fd);
}
