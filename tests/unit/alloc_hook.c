/*
 * alloc_hook.c -- counting and failing allocations (see alloc_hook.h).
 * glibc exports its allocator under __libc_* names; these definitions
 * interpose the public ones for the whole process.
 */
#include "alloc_hook.h"

#if ALLOC_HOOK
#include <stdlib.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static unsigned long count, fail_at, failed;

/* refuse -- does this allocation fail? */
static int
refuse(void)
{
    count++;
    if (!fail_at || count < fail_at)
        return 0;
    failed++;
    return 1;
}

void *
malloc(size_t n)
{
    return refuse() ? NULL : __libc_malloc(n);
}

void *
calloc(size_t a, size_t b)
{
    return refuse() ? NULL : __libc_calloc(a, b);
}

void *
realloc(void *p, size_t n)
{
    return refuse() ? NULL : __libc_realloc(p, n);
}

void
free(void *p)
{
    __libc_free(p);
}

void
alloc_fail_after(unsigned long n)
{
    fail_at = n ? count + n : 0;
    failed = 0;
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
#else
void
alloc_fail_after(unsigned long n)
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
#endif
