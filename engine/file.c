/*
 * file.c -- opening the files acre reads (rule files, includes, slapd.d
 * entries, schema files) without ever blocking on them.
 *
 * Invariant: only a regular file is read.  The file is opened with
 * O_NONBLOCK, so opening a FIFO (which would wait for a writer) or a
 * device returns at once, and its type is checked on the open descriptor
 * (fstat), so what is read is what was checked.
 */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* acreE_fopen_regular -- see internal.h. */
FILE *
acreE_fopen_regular(const char *path, const char **why)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    FILE *f;

    *why = NULL;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *why = S_ISDIR(st.st_mode) ? "a directory, not a regular file"
                                   : "not a regular file";
        return NULL;
    }
    /* a regular file never blocks; reads go through stdio from here */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!(f = fdopen(fd, "rb")))
        close(fd);
    return f;
}
