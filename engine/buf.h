/*
 * buf.h -- a byte buffer that starts in caller-provided (usually stack)
 * storage and moves to the heap only when it outgrows it.
 *
 * This is how the DN parser stays allocation-free for ordinary input while
 * still accepting the rare very long value.  Invariant: p points either at
 * the caller's storage (heap == 0) or at malloc'd memory owned by the
 * buffer (heap == 1); acreE_buf_free() releases only the latter.
 */
#ifndef ACRE_BUF_H
#define ACRE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct acreE_buf {
    uint8_t *p;
    size_t len;
    size_t cap;
    int heap;
};

/*
 * acreE_nomem -- allocations refused in this thread so far (a buffer's
 * growth, a normalisation).  Code that cannot report one itself (the
 * filter evaluator reads a value it cannot normalise as no match) is
 * checked by its caller comparing the count before and after
 * (acreV_filter_eval): a failed allocation then denies.
 */
extern __thread unsigned long acreE_nomem;

/* acreE_buf_init -- start empty on `local` storage of `cap` bytes. */
static inline void
acreE_buf_init(struct acreE_buf *b, void *local, size_t cap)
{
    b->p = (uint8_t *)local;
    b->len = 0;
    b->cap = cap;
    b->heap = 0;
}

/*
 * acreE_buf_grow -- make room for `more` bytes past len.
 * Returns 0 or ACRE_ERR_NOMEM (the buffer is unchanged then).
 */
int acreE_buf_grow(struct acreE_buf *b, size_t more);

/* acreE_buf_free -- release heap storage, if any; the buffer is empty. */
void acreE_buf_free(struct acreE_buf *b);

static inline int
acreE_buf_put(struct acreE_buf *b, const void *p, size_t n)
{
    if (n == 0) /* p may be NULL, and so may b->p of an empty buffer */
        return 0;
    if (b->cap - b->len < n) {
        int rc = acreE_buf_grow(b, n);
        if (rc)
            return rc;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

static inline int
acreE_buf_putc(struct acreE_buf *b, uint8_t c)
{
    if (b->len == b->cap) {
        int rc = acreE_buf_grow(b, 1);
        if (rc)
            return rc;
    }
    b->p[b->len++] = c;
    return 0;
}

#endif /* ACRE_BUF_H */
