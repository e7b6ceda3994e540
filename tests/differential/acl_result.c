/*
 * acl_result.c -- raw answers and their normal form (see acl_result.h).
 *
 * Both sides' answers go through acl_normal(), so that one normalisation,
 * made with acre's own DN parser and matching rules over the policy's
 * schema, decides what "the same answer" means.  A value or DN acre
 * cannot parse is kept as it came, marked with "!", so it is compared
 * byte for byte rather than dropped.
 */
#include "acl_result.h"

#include "buf.h"
#include "match.h"
#include "schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* ---- the raw form ------------------------------------------------------ */

void
acl_raw_write(struct dt_str *out, unsigned n, const struct acl_raw *r)
{
    dt_str_printf(out, "# search %u\n", n);
    if (r->conn)
        dt_str_printf(out, "conn %s\n", r->conn);
    if (r->bind >= 0)
        dt_str_printf(out, "bind %d\n", r->bind);
    dt_str_printf(out, "result %d\n", r->rc);
    if (r->matched && *r->matched)
        dt_ldif_line(out, "matched", r->matched, strlen(r->matched));
    if (r->text && *r->text)
        dt_ldif_line(out, "text", r->text, strlen(r->text));
    if (r->ldif)
        dt_str_puts(out, r->ldif);
}

/* The value of an LDIF line "name: v" or "name:: b64" (name given). */
static char *
line_value(void *ctx, const char *line, size_t nlen)
{
    const char *v = line + nlen + 1;
    struct dt_str s;
    char *t;

    if (*v == ':') {
        v += 1 + (v[1] == ' ');
        dt_str_init(&s);
        if (dt_base64_decode(&s, v, strlen(v)))
            dt_die("bad base64 in \"%s\"", line);
        t = talloc_strndup(ctx, s.p ? s.p : "", s.len);
        dt_str_free(&s);
        return t;
    }
    return talloc_strdup(ctx, v + (*v == ' '));
}

struct acl_raw *
acl_raw_read(void *ctx, const char *path, unsigned *n)
{
    char *text = dt_read_file(path, NULL), *save = NULL;
    struct acl_raw *v = NULL, *cur = NULL;
    unsigned nv = 0;

    for (char *l = strtok_r(text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "# search ", 9)) {
            v = talloc_realloc(ctx, v, struct acl_raw, nv + 1);
            cur = &v[nv++];
            memset(cur, 0, sizeof *cur);
            cur->bind = -1;
            cur->rc = -1000;
            cur->ldif = talloc_strdup(v, "");
        } else if (!cur) {
            dt_die("%s: text before the first block: %s", path, l);
        } else if (!strncmp(l, "conn ", 5)) {
            cur->conn = talloc_strdup(v, l + 5);
        } else if (!strncmp(l, "bind ", 5)) {
            cur->bind = atoi(l + 5);
        } else if (!strncmp(l, "result ", 7)) {
            cur->rc = atoi(l + 7);
        } else if (!strncmp(l, "matched:", 8)) {
            cur->matched = line_value(v, l, 7);
        } else if (!strncmp(l, "text:", 5)) {
            cur->text = line_value(v, l, 4);
        } else {
            if (!strncmp(l, "dn:", 3) && *cur->ldif)
                cur->ldif = talloc_asprintf_append(cur->ldif, "\n");
            cur->ldif = talloc_asprintf_append(cur->ldif, "%s\n", l);
        }
    }
    free(text);
    *n = nv;
    return v;
}

/* ---- the normal form --------------------------------------------------- */

/* Append v[0..n) to s, bytes outside printable ASCII (and the backslash)
 * as \xx. */
static char *
put_escaped(char *s, const uint8_t *v, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        s = v[i] < 0x20 || v[i] >= 0x7f || v[i] == '\\'
                ? talloc_asprintf_append(s, "\\%02x", v[i])
                : talloc_asprintf_append(s, "%c", v[i]);
    return s;
}

/* computed_op -- entryDN, subschemaSubentry, hasSubordinates: operational
 * attributes slapd computes the same way every time, so compared. */
static int
computed_op(const struct acreS_attr *at)
{
    const char *n = at->nnames ? at->names[0] : "";

    return !strcmp(n, "entryDN") || !strcmp(n, "subschemaSubentry") ||
           !strcmp(n, "hasSubordinates");
}

/* The attribute description's normal name, or NULL for an operational
 * attribute but those of computed_op (dropped): a description of the schema as
 * printed, for both sides print slapd's form (the type's first name, options in
 * lower case and sorted); any other lowercased. */
static char *
norm_desc(void *ctx, const acre_schema *schema, const char *name, int *type)
{
    struct acreS_desc d;
    char *s;

    *type = -1;
    if (acreS_desc_parse(schema, name, strlen(name), &d) || d.type < 0) {
        s = talloc_strdup(ctx, name);
        for (char *p = s; p && *p; p++)
            *p = (char)tolower((unsigned char)*p);
        return s;
    }
    const struct acreS_attr *at = acreS_attr(schema, d.type);
    if (at->usage != ACRES_USER && !computed_op(at))
        return NULL;
    *type = d.type;
    return talloc_strdup(ctx, name);
}

static char *
norm_value(void *ctx, const acre_schema *schema, int type, const char *v,
           size_t n)
{
    struct acreE_buf b;
    uint8_t local[512];
    char *s;
    int eq = type >= 0 ? acreS_attr(schema, type)->eq : ACREM_NONE;

    if (eq == ACREM_DN || eq == ACREM_UNIQUE_MEMBER) /* as text */
        return put_escaped(talloc_strdup(ctx, ""), (const uint8_t *)v, n);
    acreE_buf_init(&b, local, sizeof local);
    if (eq == ACREM_NONE ||
        acreM_normalise(schema, eq, (const uint8_t *)v, n, &b)) {
        acreE_buf_free(&b);
        return put_escaped(talloc_strdup(ctx, eq == ACREM_NONE ? "" : "!"),
                           (const uint8_t *)v, n);
    }
    s = put_escaped(talloc_strdup(ctx, ""), b.p, b.len);
    acreE_buf_free(&b);
    return s;
}

struct nent {
    char *dn;
    char **lines;
    unsigned n;
};

/* Normalise one LDIF record (its lines, the first "dn:"). */
static void
norm_record(void *ctx, const acre_schema *schema, char *rec, struct nent *e)
{
    char *save = NULL;

    memset(e, 0, sizeof *e);
    for (char *l = strtok_r(rec, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        size_t nl = strcspn(l, ":");
        if (!l[nl])
            dt_die("not an LDIF line: %s", l);
        char *name = talloc_strndup(ctx, l, nl);
        char *v = line_value(ctx, l, nl);
        if (!e->dn) { /* as text: slapd's own form on both sides */
            e->dn = put_escaped(talloc_strdup(ctx, ""), (const uint8_t *)v,
                                strlen(v));
            continue;
        }
        int type;
        char *d = norm_desc(ctx, schema, name, &type);
        if (!d)
            continue;
        e->lines = talloc_realloc(ctx, e->lines, char *, e->n + 1);
        e->lines[e->n++] = talloc_asprintf(
            ctx, "  %s: %s", d, norm_value(ctx, schema, type, v, strlen(v)));
    } /* in the order returned: the entry's stored order on both sides */
}

char *
acl_normal(void *ctx, const acre_schema *schema, const struct acl_raw *r)
{
    void *tmp = talloc_new(ctx);
    char *ldif = talloc_strdup(tmp, r->ldif ? r->ldif : "");
    struct nent *v = NULL;
    unsigned nv = 0;
    char *s = talloc_strdup(ctx, "");

    if (r->bind >= 0)
        s = talloc_asprintf_append(s, "bind %d\n", r->bind);
    s = talloc_asprintf_append(s, "result %d\n", r->rc == -7 ? 87 : r->rc);
    if (r->matched && *r->matched)
        s = talloc_asprintf_append(s, "matched %s\n",
                                   put_escaped(talloc_strdup(tmp, ""),
                                               (const uint8_t *)r->matched,
                                               strlen(r->matched)));
    for (char *p = ldif; *p;) {
        char *end = strstr(p, "\n\n");
        if (end)
            *end = 0;
        if (*p) {
            v = talloc_realloc(tmp, v, struct nent, nv + 1);
            norm_record(tmp, schema, p, &v[nv++]);
        }
        p = end ? end + 2 : p + strlen(p);
    }
    for (unsigned i = 0; i < nv; i++) { /* in the order returned */
        s = talloc_asprintf_append(s, "dn: %s\n", v[i].dn);
        for (unsigned j = 0; j < v[i].n; j++)
            s = talloc_asprintf_append(s, "%s\n", v[i].lines[j]);
    }
    talloc_free(tmp);
    if (!s)
        dt_die("out of memory");
    return s;
}

unsigned
acl_count_entries(const char *normal)
{
    unsigned n = 0;

    for (const char *p = normal; (p = strstr(p, "dn: ")); p += 4)
        n += p == normal || p[-1] == '\n';
    return n;
}

/* ---- differences ------------------------------------------------------- */

static char **
split_lines(void *ctx, const char *text, unsigned *n)
{
    char *copy = talloc_strdup(ctx, text), *save = NULL;
    char **v = NULL;
    unsigned nv = 0;

    for (char *l = strtok_r(copy, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        v = talloc_realloc(ctx, v, char *, nv + 1);
        v[nv++] = l;
    }
    *n = nv;
    return v;
}

void
acl_diff(FILE *f, const char *a, const char *b, unsigned max)
{
    void *tmp = talloc_new(NULL);
    unsigned na, nb, shown = 0;
    char **la = split_lines(tmp, a, &na), **lb = split_lines(tmp, b, &nb);
    /* lcs[i][j]: the longest common subsequence of la[i..], lb[j..] */
    unsigned *lcs = talloc_zero_array(tmp, unsigned, (na + 1) * (nb + 1));
    const char *ctx_dn = NULL, *shown_dn = NULL;

#define L(i, j) lcs[(size_t)(i) * (nb + 1) + (j)]
    for (unsigned i = na; i-- > 0;)
        for (unsigned j = nb; j-- > 0;)
            L(i, j) =
                !strcmp(la[i], lb[j])
                    ? L(i + 1, j + 1) + 1
                    : (L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) : L(i, j + 1));
    for (unsigned i = 0, j = 0; (i < na || j < nb) && shown < max;) {
        const char *line;
        char mark;
        if (i < na && j < nb && !strcmp(la[i], lb[j])) {
            if (!strncmp(la[i], "dn: ", 4))
                ctx_dn = la[i];
            i++, j++;
            continue;
        }
        if (j >= nb || (i < na && L(i + 1, j) >= L(i, j + 1)))
            line = la[i++], mark = '-';
        else
            line = lb[j++], mark = '+';
        if (line[0] == ' ' && ctx_dn && ctx_dn != shown_dn) {
            fprintf(f, "     %s\n", ctx_dn);
            shown_dn = ctx_dn;
        }
        if (!strncmp(line, "dn: ", 4))
            ctx_dn = shown_dn = line;
        fprintf(f, "   %c %s\n", mark, line);
        shown++;
    }
#undef L
    if (shown == max)
        fprintf(f, "     ...\n");
    talloc_free(tmp);
}
