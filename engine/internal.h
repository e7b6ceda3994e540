/*
 * internal.h -- definitions shared by every file of the library and never
 * installed.
 *
 * Module tags on cross-file internals: acreD_ (distinguished names),
 * acreE_ (engine), acreC_ (compiler).  Everything is hidden by
 * -fvisibility=hidden; the public functions of acre.h are marked
 * ACRE_PUBLIC at their definitions, and the version script (acre.map)
 * exports nothing else.
 */
#ifndef ACRE_INTERNAL_H
#define ACRE_INTERNAL_H

#include "acre.h"

#include <stddef.h>
#include <stdio.h>

#define ACRE_PUBLIC __attribute__((visibility("default")))

#if defined(__GNUC__)
#define acre_likely(x)   __builtin_expect(!!(x), 1)
#define acre_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define acre_likely(x)   (x)
#define acre_unlikely(x) (x)
#endif

/*
 * acreE_diag_set -- fill *diag (when not NULL) for an error at byte
 * `offset` of a one-line input.  fmt is printf-style.  Returns code, so a
 * caller can `return acreE_diag_set(...)`.
 */
int acreE_diag_set(acre_diag *diag, int code, size_t offset, const char *fmt,
                   ...) __attribute__((format(printf, 4, 5)));

/*
 * acreE_fopen_regular -- open path for reading only when it is a regular
 * file, without blocking on a FIFO or device (file.c).  Returns the FILE,
 * or NULL with *why set to a message ("not a regular file") or, when the
 * open itself failed, *why NULL and errno set (ENOMEM: out of memory, for
 * the FILE's buffer; callers answer ACRE_ERR_NOMEM, not an I/O error).
 */
FILE *acreE_fopen_regular(const char *path, const char **why);

#endif /* ACRE_INTERNAL_H */
