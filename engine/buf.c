/*
 * buf.c -- growth of acreE_buf (see buf.h).  Capacity doubles, so a
 * buffer filled byte by byte costs amortised O(1) per byte.
 */
#include "buf.h"

#include "acre.h"

#include <stdlib.h>

__thread unsigned long acreE_nomem;

int
acreE_buf_grow(struct acreE_buf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 64;
    uint8_t *p;

    if (more > SIZE_MAX / 4 - b->len) {
        acreE_nomem++;
        return ACRE_ERR_NOMEM;
    }
    if (b->cap - b->len >= more)
        return 0;
    while (cap - b->len < more)
        cap *= 2;
    if (b->heap) {
        p = realloc(b->p, cap);
    } else {
        p = malloc(cap);
        if (p && b->len)
            memcpy(p, b->p, b->len);
    }
    if (!p) {
        acreE_nomem++;
        return ACRE_ERR_NOMEM;
    }
    b->p = p;
    b->cap = cap;
    b->heap = 1;
    return 0;
}

void
acreE_buf_free(struct acreE_buf *b)
{
    if (b->heap)
        free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
    b->heap = 0;
}
