/*
 * alloc_hook.c -- counting and failing allocations (see alloc_hook.h).
 * glibc exports its allocator under __libc_* names; these definitions
 * interpose the public ones for the whole process.
 *
 * Invariant: `live` moves by one for every block the C allocator hands
 * out (malloc, calloc, realloc of NULL, the aligned forms) and by minus
 * one for every block it takes back (free, realloc to size 0), so its
 * difference across a call is the number of blocks that call left behind.
 */
#include "alloc_hook.h"

#if ALLOC_HOOK
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <malloc.h>
#include <regex.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static unsigned long count, tick, fail_at, failed;
static int once; /* only the fail_at-th fails (alloc_fail_once) */
static long live;
static int shielded; /* inside glibc's regcomp: nothing fails */

/* trace -- with ALLOC_HOOK_TRACE=FILE, the stack of the first refusal
 * since alloc_fail_after, appended to FILE (addresses: addr2line -f -e
 * BINARY). */
static void
trace(void)
{
    static int busy;
    const char *path = getenv("ALLOC_HOOK_TRACE");
    void *pc[32];

    if (busy || !path)
        return;
    busy = 1; /* backtrace may allocate once */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
        backtrace_symbols_fd(pc, backtrace(pc, 32), fd);
        write(fd, "--\n", 3);
        close(fd);
    }
    busy = 0;
}

/* refuse -- does this allocation fail? */
static int
refuse(void)
{
    count++;
    if (shielded)
        return 0;
    tick++;
    if (!fail_at || tick < fail_at || (once && tick > fail_at))
        return 0;
    if (!failed++)
        trace();
    errno = ENOMEM; /* as glibc's allocator says it */
    return 1;
}

/* born -- p is a new block (or NULL); returns p. */
static void *
born(void *p)
{
    if (p)
        __atomic_add_fetch(&live, 1, __ATOMIC_RELAXED);
    return p;
}

void *
malloc(size_t n)
{
    return refuse() ? NULL : born(__libc_malloc(n));
}

void *
calloc(size_t a, size_t b)
{
    return refuse() ? NULL : born(__libc_calloc(a, b));
}

void *
realloc(void *p, size_t n)
{
    if (refuse())
        return NULL;
    if (!p)
        return born(__libc_realloc(p, n));
    void *q = __libc_realloc(p, n);
    if (!q && n == 0) /* glibc freed p */
        __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    return q;
}

void *
memalign(size_t align, size_t n)
{
    return refuse() ? NULL : born(__libc_memalign(align, n));
}

void *
aligned_alloc(size_t align, size_t n)
{
    return memalign(align, n);
}

int
posix_memalign(void **out, size_t align, size_t n)
{
    void *p = memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/*
 * regcomp -- glibc's, shielded: glibc's regcomp is not safe when malloc
 * fails (CVE-2025-8058, sourceware bug 33185: a double free; 2.36 also
 * leaks blocks on several failure paths), so a sweep failing allocations
 * inside it would test glibc, not acre.  A regcomp counts as one
 * allocation: when that one is refused it fails with REG_ESPACE at once
 * (as glibc does, cleanly, when its first allocation fails); otherwise
 * nothing inside it is refused.
 */
int
regcomp(regex_t *re, const char *pattern, int flags)
{
    static int (*real)(regex_t *, const char *, int);

    if (refuse())
        return REG_ESPACE;
    shielded++;
    if (!real)
        real =
            (int (*)(regex_t *, const char *, int))dlsym(RTLD_NEXT, "regcomp");
    int rc = real(re, pattern, flags);
    shielded--;
    return rc;
}

void
free(void *p)
{
    if (p)
        __atomic_sub_fetch(&live, 1, __ATOMIC_RELAXED);
    __libc_free(p);
}

void
alloc_fail_after(unsigned long n)
{
    static int warm;
    if (!warm && getenv("ALLOC_HOOK_TRACE")) { /* load the unwinder now */
        void *pc[2];
        warm = backtrace(pc, 2);
    }
    fail_at = n ? tick + n : 0;
    failed = 0;
    once = 0;
}

void
alloc_fail_once(unsigned long n)
{
    alloc_fail_after(n);
    once = 1;
}

unsigned long
alloc_failed(void)
{
    return failed;
}

unsigned long
alloc_count(void)
{
    return count;
}

long
alloc_live(void)
{
    return __atomic_load_n(&live, __ATOMIC_RELAXED);
}
#else
void
alloc_fail_after(unsigned long n)
{
    (void)n;
}

void
alloc_fail_once(unsigned long n)
{
    (void)n;
}

unsigned long
alloc_failed(void)
{
    return 0;
}

unsigned long
alloc_count(void)
{
    return 0;
}

long
alloc_live(void)
{
    return 0;
}
#endif
