/*
 * dt_util.c -- helpers of the differential test programs (see dt_util.h).
 *
 * Everything here is deterministic: the random generator is splitmix64
 * seeded only by the caller, so a seed printed by a failing run reproduces
 * the run exactly.
 */
#include "dt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dt_die(const char *fmt, ...)
{
    va_list ap;

    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(2);
}

void *
dt_alloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);

    if (!p)
        dt_die("out of memory");
    return p;
}

void *
dt_realloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        dt_die("out of memory");
    return p;
}

char *
dt_strndup(const char *s, size_t n)
{
    char *p = dt_alloc(n + 1);

    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *
dt_strdup(const char *s)
{
    return dt_strndup(s, strlen(s));
}

/* ---- random numbers ------------------------------------------------------ */

void
dt_rng_seed(struct dt_rng *r, uint64_t seed)
{
    r->s = seed ^ 0x6a09e667f3bcc909ull;
}

uint64_t
dt_rng_next(struct dt_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

unsigned
dt_rng_below(struct dt_rng *r, unsigned n)
{
    return (unsigned)(dt_rng_next(r) % n);
}

int
dt_rng_chance(struct dt_rng *r, unsigned percent)
{
    return dt_rng_below(r, 100) < percent;
}

int
dt_rng_range(struct dt_rng *r, int lo, int hi)
{
    return lo + (int)dt_rng_below(r, (unsigned)(hi - lo + 1));
}

const char *
dt_rng_pick(struct dt_rng *r, const char *const *v, size_t n)
{
    return v[dt_rng_below(r, (unsigned)n)];
}

/* ---- strings ------------------------------------------------------------- */

void
dt_str_init(struct dt_str *s)
{
    s->cap = 64;
    s->len = 0;
    s->p = dt_alloc(s->cap);
}

void
dt_str_free(struct dt_str *s)
{
    free(s->p);
    s->p = NULL;
    s->len = s->cap = 0;
}

void
dt_str_clear(struct dt_str *s)
{
    s->len = 0;
    s->p[0] = 0;
}

void
dt_str_putn(struct dt_str *s, const char *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        while (s->len + n + 1 > s->cap)
            s->cap *= 2;
        s->p = dt_realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

void
dt_str_puts(struct dt_str *s, const char *p)
{
    dt_str_putn(s, p, strlen(p));
}

void
dt_str_putc(struct dt_str *s, char c)
{
    dt_str_putn(s, &c, 1);
}

void
dt_str_printf(struct dt_str *s, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        dt_die("dt_str_printf: bad format");
    if ((size_t)n < sizeof small) {
        dt_str_putn(s, small, (size_t)n);
        return;
    }
    char *big = dt_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    dt_str_putn(s, big, (size_t)n);
    free(big);
}

char *
dt_str_take(struct dt_str *s)
{
    char *p = s->p;

    s->p = NULL;
    s->len = s->cap = 0;
    return p;
}

/* ---- base64 -------------------------------------------------------------- */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void
dt_base64_encode(struct dt_str *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        size_t k = n - i;

        if (k > 1)
            v |= (uint32_t)p[i + 1] << 8;
        if (k > 2)
            v |= p[i + 2];
        dt_str_putc(out, b64[v >> 18 & 63]);
        dt_str_putc(out, b64[v >> 12 & 63]);
        dt_str_putc(out, k > 1 ? b64[v >> 6 & 63] : '=');
        dt_str_putc(out, k > 2 ? b64[v & 63] : '=');
    }
}

static int
b64val(char c)
{
    const char *q = c ? strchr(b64, c) : NULL;

    return q ? (int)(q - b64) : -1;
}

int
dt_base64_decode(struct dt_str *out, const char *p, size_t n)
{
    uint32_t acc = 0;
    int bits = 0;

    for (size_t i = 0; i < n; i++) {
        if (p[i] == '=') /* padding ends the data: libldap's LDIF reader
                          * ignores what follows it */
            break;
        if (p[i] == ' ' || p[i] == '\n' || p[i] == '\r')
            continue;
        int v = b64val(p[i]);
        if (v < 0)
            return -1;
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            dt_str_putc(out, (char)(acc >> bits & 0xff));
        }
    }
    return 0;
}

/* ---- files and LDIF ------------------------------------------------------ */

char *
dt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct dt_str s;
    char buf[65536];
    size_t n;

    if (!f)
        dt_die("%s: cannot open", path);
    dt_str_init(&s);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        dt_str_putn(&s, buf, n);
    if (ferror(f))
        dt_die("%s: read error", path);
    fclose(f);
    if (len)
        *len = s.len;
    return s.p;
}

int
dt_ldif_needs_base64(const char *p, size_t n)
{
    if (n == 0)
        return 0;
    if (p[0] == ' ' || p[0] == ':' || p[0] == '<' || p[n - 1] == ' ')
        return 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0 || c == '\n' || c == '\r' || c >= 0x80)
            return 1;
    }
    return 0;
}

void
dt_ldif_line(struct dt_str *out, const char *name, const char *v, size_t n)
{
    dt_str_puts(out, name);
    if (dt_ldif_needs_base64(v, n)) {
        dt_str_puts(out, ":: ");
        dt_base64_encode(out, (const uint8_t *)v, n);
    } else {
        dt_str_puts(out, ": ");
        dt_str_putn(out, v, n);
    }
    dt_str_putc(out, '\n');
}

void
dt_write_file(const char *dir, const char *name, const char *text, size_t n)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fwrite(text, 1, n, f) != n || fclose(f))
        dt_die("%s: cannot write", path);
}
