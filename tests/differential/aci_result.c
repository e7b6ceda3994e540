/*
 * aci_result.c -- reading and normalising the answers of the 389-DS ACI
 * differential suite (see aci_result.h for the format and the normal
 * form).
 */
#include "aci_result.h"

#include "dt_results.h"
#include "dt_util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What 389 adds to every entry for itself (lower case). */
static const char *const dropped[] = {"creatorsname",
                                      "modifiersname",
                                      "createtimestamp",
                                      "modifytimestamp",
                                      "nsuniqueid",
                                      "parentid",
                                      "entryid",
                                      "entryuuid",
                                      "dsentrydn",
                                      "subschemasubentry",
                                      "structuralobjectclass",
                                      "entrycsn"};

static int
is_dropped(const char *name)
{
    for (size_t i = 0; i < DT_NELEM(dropped); i++)
        if (!strcmp(name, dropped[i]))
            return 1;
    return 0;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append v[0..n) with bytes outside printable ASCII as \XX. */
static void
put_text(struct dt_str *out, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c < 0x20 || c > 0x7e || c == '\\')
            dt_str_printf(out, "\\%02X", c);
        else
            dt_str_putc(out, (char)c);
    }
}

/* One LDIF line "name: v" / "name:: b64" in normal form (NULL: dropped).
 * With lower_value the value is lower-cased and spaces around , = go. */
static char *
norm_line(const char *line, size_t n, int is_dn)
{
    const char *colon = memchr(line, ':', n);
    struct dt_str name, val, out;

    if (!colon)
        dt_die("aci_result: not an LDIF line: %.*s", (int)n, line);
    dt_str_init(&name);
    for (const char *p = line; p < colon; p++)
        dt_str_putc(&name, (char)tolower((unsigned char)*p));
    if (!is_dn && is_dropped(name.p)) {
        dt_str_free(&name);
        return NULL;
    }
    dt_str_init(&val);
    const char *v = colon + 1, *end = line + n;
    int b64 = v < end && *v == ':';
    v += b64;
    while (v < end && *v == ' ')
        v++;
    if (b64 ? dt_base64_decode(&val, v, (size_t)(end - v))
            : (dt_str_putn(&val, v, (size_t)(end - v)), 0))
        dt_die("aci_result: bad base64: %.*s", (int)n, line);
    dt_str_init(&out);
    dt_str_printf(&out, "%s: ", name.p);
    if (is_dn) {
        for (size_t i = 0; i < val.len; i++) {
            char c = (char)tolower((unsigned char)val.p[i]);
            if (c == ' ' && ((i && strchr(",=", val.p[i - 1])) ||
                             (i + 1 < val.len && strchr(",=", val.p[i + 1]))))
                continue;
            dt_str_putc(&out, c);
        }
    } else {
        put_text(&out, val.p, val.len);
    }
    dt_str_free(&name);
    dt_str_free(&val);
    return dt_str_take(&out);
}

/* One entry (record text) in normal form: its dn line, sorted lines. */
static char *
norm_entry(const char *text)
{
    char **lines = NULL;
    unsigned n = 0;
    struct dt_str out;
    const char *p = text;

    while (*p) {
        size_t len = strcspn(p, "\n");
        if (len && *p != '#') {
            char *l = norm_line(p, len, n == 0);
            if (l) {
                lines = dt_realloc(lines, (n + 1) * sizeof *lines);
                lines[n++] = l;
            }
        }
        p += len + (p[len] == '\n');
    }
    if (n > 1)
        qsort(lines + 1, n - 1, sizeof *lines, cmp_str);
    dt_str_init(&out);
    for (unsigned i = 0; i < n; i++) {
        dt_str_printf(&out, "%s\n", lines[i]);
        free(lines[i]);
    }
    free(lines);
    return dt_str_take(&out);
}

/* The exact form of one block: its text without the lines of what 389
 * adds for itself (as the normal form drops them) and without comments
 * but the block's own two, everything else --
 * entry and attribute order, names as spelt -- as printed. */
static char *
exact_form(const char *raw)
{
    struct dt_str out;
    const char *p = raw;

    dt_str_init(&out);
    while (*p) {
        size_t len = strcspn(p, "\n"), k = strcspn(p, ":\n");
        char name[64];
        int drop = 0;

        if (*p != '#' && k < len && k < sizeof name) {
            for (size_t i = 0; i < k; i++)
                name[i] = (char)tolower((unsigned char)p[i]);
            name[k] = 0;
            drop = strcmp(name, "dn") && is_dropped(name);
        }
        if (*p == '#') /* acre's comments ("# matched: DN") */
            drop = strncmp(p, "# search ", 9) && strncmp(p, "# rc ", 5);
        if (!drop)
            dt_str_putn(&out, p, len + (p[len] == '\n'));
        p += len + (p[len] == '\n');
    }
    return dt_str_take(&out);
}

/* The normal form of one block's LDIF text and its rc. */
static void
normalise(struct aci_answer *a, const char *ldif)
{
    unsigned nrec;
    struct dt_record *rec = dt_ldif_records(ldif, &nrec);
    char **ents = dt_alloc((nrec + 1) * sizeof *ents);
    struct dt_str out;

    for (unsigned i = 0; i < nrec; i++)
        ents[i] = norm_entry(rec[i].text);
    qsort(ents, nrec, sizeof *ents, cmp_str);
    dt_str_init(&out);
    dt_str_printf(&out, "rc %d\n", a->rc);
    for (unsigned i = 0; i < nrec; i++) {
        dt_str_printf(&out, "%s\n", ents[i]);
        free(ents[i]);
    }
    free(ents);
    dt_records_free(rec, nrec);
    a->nentries = nrec;
    a->norm = dt_str_take(&out);
}

/* aci_answers_read -- see aci_result.h. */
struct aci_answer *
aci_answers_read(const char *path, unsigned *n)
{
    char *text = dt_read_file(path, NULL);
    struct aci_answer *v = NULL;
    unsigned nv = 0;
    const char *p = text;

    while ((p = strstr(p, "# search ")) != NULL) {
        const char *body = p + strcspn(p, "\n");
        const char *rc = strstr(body, "\n# rc ");
        if (!rc)
            dt_die("%s: block %u has no # rc line", path, nv + 1);
        v = dt_realloc(v, (nv + 1) * sizeof *v);
        memset(&v[nv], 0, sizeof *v);
        v[nv].rc = atoi(rc + 6);
        char *ldif = dt_strndup(body, (size_t)(rc - body) + 1);
        const char *stop = rc + 1 + strcspn(rc + 1, "\n");
        v[nv].raw = dt_strndup(p, (size_t)(stop - p) + (*stop == '\n'));
        normalise(&v[nv], ldif);
        v[nv].exact = exact_form(v[nv].raw);
        free(ldif);
        nv++;
        p = stop;
    }
    free(text);
    *n = nv;
    return v;
}

void
aci_answers_free(struct aci_answer *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        free(v[i].norm);
        free(v[i].raw);
        free(v[i].exact);
    }
    free(v);
}
