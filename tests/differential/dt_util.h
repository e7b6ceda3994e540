/*
 * dt_util.h -- small helpers shared by the slapd differential test
 * programs: a seeded random generator, a growable string, base64 and
 * fatal-error reporting.
 *
 * Invariants: the generator is fully determined by its seed (the same seed
 * gives the same DIT and searches on every machine: no use of rand(),
 * time or addresses); a dt_str is always NUL-terminated.
 */
#ifndef DT_UTIL_H
#define DT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define DT_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fatal errors and allocation (test programs: die, never recover) ----- */
void dt_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
void *dt_alloc(size_t n);
void *dt_realloc(void *p, size_t n);
char *dt_strdup(const char *s);
char *dt_strndup(const char *s, size_t n);

/* ---- seeded pseudo-random numbers (splitmix64) --------------------------- */
struct dt_rng {
    uint64_t s;
};

void dt_rng_seed(struct dt_rng *r, uint64_t seed);
uint64_t dt_rng_next(struct dt_rng *r);
/* A number in [0, n); n > 0. */
unsigned dt_rng_below(struct dt_rng *r, unsigned n);
/* 1 with probability percent/100. */
int dt_rng_chance(struct dt_rng *r, unsigned percent);
/* A number in [lo, hi]. */
int dt_rng_range(struct dt_rng *r, int lo, int hi);
/* One element of a string array of n elements. */
const char *dt_rng_pick(struct dt_rng *r, const char *const *v, size_t n);

#define DT_PICK(r, arr) dt_rng_pick((r), (arr), DT_NELEM(arr))

/* ---- growable, NUL-terminated string ------------------------------------- */
struct dt_str {
    char *p;
    size_t len;
    size_t cap;
};

void dt_str_init(struct dt_str *s);
void dt_str_free(struct dt_str *s);
void dt_str_clear(struct dt_str *s);
void dt_str_putn(struct dt_str *s, const char *p, size_t n);
void dt_str_puts(struct dt_str *s, const char *p);
void dt_str_putc(struct dt_str *s, char c);
void dt_str_printf(struct dt_str *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The contents as a heap string the caller frees; s is left released
 * (dt_str_init it again before reuse). */
char *dt_str_take(struct dt_str *s);

/* ---- base64 (RFC 4648, as LDIF uses it) ---------------------------------- */
void dt_base64_encode(struct dt_str *out, const uint8_t *p, size_t n);
/* Decode p[0..n) into out, up to its first '='; returns 0, or -1 on
 * malformed input. */
int dt_base64_decode(struct dt_str *out, const char *p, size_t n);

/* ---- misc ---------------------------------------------------------------- */
/* Read a whole file; dies on error.  *len may be NULL. */
char *dt_read_file(const char *path, size_t *len);
/* Write text[0..n) to the file dir/name; dies on error. */
void dt_write_file(const char *dir, const char *name, const char *text,
                   size_t n);
/* 1 when p[0..n) must be base64 in LDIF (RFC 2849 SAFE-STRING rules, and
 * no trailing space, no bytes >= 0x80). */
int dt_ldif_needs_base64(const char *p, size_t n);
/* Append "name: value\n" or "name:: base64\n" to out. */
void dt_ldif_line(struct dt_str *out, const char *name, const char *v,
                  size_t n);

#endif /* DT_UTIL_H */
