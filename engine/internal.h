/*
 * internal.h -- definitions shared by every file of the library and never
 * installed.
 *
 * Module tags on cross-file internals (acreD_, acreE_, acreS_, ...): the
 * one key to all of them, and to the files each belongs to, is the table
 * "Names: one tag per module" in doc/internals.md.  Everything is hidden by
 * -fvisibility=hidden; the public functions of acre.h are marked
 * ACRE_PUBLIC at their definitions, and the version script (acre.map)
 * exports nothing else.
 */
#ifndef ACRE_INTERNAL_H
#define ACRE_INTERNAL_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ACRE_PUBLIC __attribute__((visibility("default")))

#if defined(__GNUC__)
#define acre_likely(x)   __builtin_expect(!!(x), 1)
#define acre_unlikely(x) __builtin_expect(!!(x), 0)
#else
#define acre_likely(x)   (x)
#define acre_unlikely(x) (x)
#endif

/*
 * Invariants, checked.  acre_assert(x) states what the code relies on: in
 * debug builds (./configure --enable-debug leaves NDEBUG undefined) and in
 * sanitizer builds a false x reports file:line and aborts; elsewhere it
 * compiles to nothing and x is not evaluated (so x may be costly, and must
 * have no effect).  acre_never(x) marks a condition believed impossible
 * whose branch fails closed, `if (acre_never(x)) return deny;`: where
 * assertions are on, a true x aborts; elsewhere x is evaluated and the
 * branch taken.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) ||            \
    __has_feature(undefined_behavior_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define ACRE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ACRE_SANITIZED 1
#endif

#if !defined(NDEBUG) || defined(ACRE_SANITIZED)
#define ACRE_ASSERTS 1
#define acre_assert(x) \
    (acre_likely(x) ? (void)0 : acreE_assert_fail(__FILE__, __LINE__, #x))
#define acre_never(x)                                               \
    (acre_unlikely(x)                                               \
         ? (acreE_assert_fail(__FILE__, __LINE__, "never: " #x), 1) \
         : 0)
#else
#define ACRE_ASSERTS   0
#define acre_assert(x) ((void)sizeof(!(x)))
#define acre_never(x)  acre_unlikely(x)
#endif

/*
 * acreE_assert_fail -- report a failed acre_assert / acre_never on stderr
 * and abort (error.c).  Only debug and sanitizer builds call it.
 */
void acreE_assert_fail(const char *file, int line, const char *expr)
    __attribute__((noreturn, cold));

/*
 * ASCII character classes, locale-free, as the RFCs' ABNF has them
 * (ALPHA, DIGIT, HEXDIG): the one copy every parser uses.  c is a byte
 * value or EOF; acreE_hexval is -1 for anything but a hex digit.
 */
static inline int
acreE_is_alpha(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int
acreE_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static inline int
acreE_hexval(int c)
{
    if (acreE_is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

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

/*
 * Handles.  Every object acre.h hands out behind an opaque pointer starts
 * with a uint32_t magic number naming its kind, all different:
 *   acre_dn        ACRED_MAGIC         "acrd"  dn.h
 *   acre_schema    ACRES_MAGIC         "amcS"  schema.h (struct acreS_hot)
 *   acre_policy    ACREP_POLICY_MAGIC  "acrp"  policy.h
 *   acre_filter    FILTER_MAGIC        "acrf"  search.c
 *   acre_request   ACREE_REQUEST_MAGIC "acrq"  below (eval.h)
 *   acre_directory ACREE_DIR_MAGIC     "acrD"  below (directory.c)
 *   acre_slot      ACREE_SLOT_MAGIC    "acrs"  below (policy.c)
 * and acre_lint_result, whose public struct comes first, has its magic
 * RESULT_MAGIC "aclt" right after it (lint.c).  A public function checks
 * each handle argument before anything else (acre.h, Conventions): NULL is
 * ACRE_ERR_INVAL, a wrong magic ACRE_ERR_BADOBJ (or the neutral answer of
 * a function that returns no error code).  A free function clears the
 * magic where the object's memory could outlive it.
 */
#define ACREE_REQUEST_MAGIC 0x61637271u /* "acrq" */
#define ACREE_DIR_MAGIC     0x61637244u /* "acrD" */
#define ACREE_SLOT_MAGIC    0x61637273u /* "acrs" */

/* acreE_is -- h is not NULL and starts with `magic` (read bytewise: h
 * may be memory of any type). */
static inline int
acreE_is(const void *h, uint32_t magic)
{
    uint32_t m;

    if (!h)
        return 0;
    memcpy(&m, h, sizeof m);
    return m == magic;
}

/* acreE_handle -- 0 when h starts with `magic`, ACRE_ERR_INVAL when h is
 * NULL, else ACRE_ERR_BADOBJ. */
static inline int
acreE_handle(const void *h, uint32_t magic)
{
    return !h ? ACRE_ERR_INVAL : acreE_is(h, magic) ? 0 : ACRE_ERR_BADOBJ;
}

#endif /* ACRE_INTERNAL_H */
