/*
 * dt_results.c -- parsing of the slapd harness output and of LDIF records
 * (see dt_results.h).
 */
#include "dt_results.h"

#include "dt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dt_result_add(struct dt_result *r, const char *dn, size_t n)
{
    if (r->ndns == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->dns = dt_realloc(r->dns, r->cap * sizeof *r->dns);
    }
    r->dns[r->ndns++] = dt_strndup(dn, n);
}

void
dt_result_free(struct dt_result *r)
{
    for (unsigned i = 0; i < r->ndns; i++)
        free(r->dns[i]);
    free(r->dns);
    memset(r, 0, sizeof *r);
}

/* A "dn:" or "dn::" line's value into r. */
static void
dn_line(struct dt_result *r, const char *line, size_t n, const char *path)
{
    if (n > 4 && line[3] == ':') {
        struct dt_str s;
        size_t off = line[4] == ' ' ? 5 : 4;
        dt_str_init(&s);
        if (dt_base64_decode(&s, line + off, n - off))
            dt_die("%s: bad base64 in %.*s", path, (int)n, line);
        dt_result_add(r, s.p, s.len);
        dt_str_free(&s);
    } else {
        size_t off = n > 3 && line[3] == ' ' ? 4 : 3;
        dt_result_add(r, line + off, n - off);
    }
}

struct dt_result *
dt_results_read(const char *path, unsigned *n)
{
    char *text = dt_read_file(path, NULL);
    struct dt_result *v = NULL, *cur = NULL;
    unsigned nv = 0;

    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (!strncmp(line, "# search ", 9)) {
            v = dt_realloc(v, (nv + 1) * sizeof *v);
            cur = &v[nv++];
            memset(cur, 0, sizeof *cur);
            cur->rc = -1000;
        } else if (cur && !strncmp(line, "# rc ", 5)) {
            cur->rc = atoi(line + 5);
            cur = NULL;
        } else if (cur && !strncmp(line, "dn:", 3)) {
            dn_line(cur, line, len, path);
        }
        line += len + (end != NULL);
    }
    free(text);
    *n = nv;
    return v;
}

void
dt_results_free(struct dt_result *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dt_result_free(&v[i]);
    free(v);
}

/* The DN of a record whose first line is at p (len bytes). */
static char *
record_dn(const char *p, size_t len)
{
    struct dt_str s;

    if (len < 3 || strncmp(p, "dn:", 3))
        return NULL;
    dt_str_init(&s);
    if (len > 3 && p[3] == ':') {
        size_t off = len > 4 && p[4] == ' ' ? 5 : 4;
        dt_base64_decode(&s, p + off, len - off);
    } else {
        size_t off = len > 3 && p[3] == ' ' ? 4 : 3;
        dt_str_putn(&s, p + off, len - off);
    }
    return dt_str_take(&s);
}

struct dt_record *
dt_ldif_records(const char *text, unsigned *n)
{
    struct dt_record *v = NULL;
    unsigned nv = 0;
    const char *p = text;

    while (*p) {
        while (*p == '\n')
            p++;
        const char *start = p, *stop = strstr(p, "\n\n");
        size_t len = stop ? (size_t)(stop - p) + 1 : strlen(p);
        size_t l1 = strcspn(start, "\n");
        char *dn = record_dn(start, l1);
        if (dn) {
            v = dt_realloc(v, (nv + 1) * sizeof *v);
            v[nv].dn = dn;
            v[nv++].text = dt_strndup(start, len);
        }
        p = start + len;
    }
    *n = nv;
    return v;
}

void
dt_records_free(struct dt_record *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(v[i].dn);
        free(v[i].text);
    }
    free(v);
}
