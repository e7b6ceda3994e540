/*
 * openldap_oracle_text.c -- a search result entry as text: its DN line and
 * its "attr: value" lines sorted (names as the schema spells them,
 * lowercased; base64 where ldapsearch would use it), the form slapd's
 * golden outputs are compared in (test006, the slapd_diff tool).
 */
#include "openldap_oracle.h"

#include "schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* ldapsearch's ldif_is_not_printable. */
static int
needs_base64(const uint8_t *v, size_t n)
{
    if (n == 0)
        return 0;
    if (v[0] == ' ' || v[0] == ':' || v[0] == '<' || v[n - 1] <= ' ' ||
        v[n - 1] >= 0x7f)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0x20 || v[i] >= 0x7f)
            return 1;
    return 0;
}

static char *
base64(void *ctx, const uint8_t *v, size_t n)
{
    static const char t[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = talloc_array(ctx, char, (n + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; i < n; i += 3) {
        unsigned x = (unsigned)v[i] << 16 |
                     (i + 1 < n ? (unsigned)v[i + 1] << 8 : 0) |
                     (i + 2 < n ? v[i + 2] : 0);
        *o++ = t[x >> 18 & 63];
        *o++ = t[x >> 12 & 63];
        *o++ = i + 1 < n ? t[x >> 6 & 63] : '=';
        *o++ = i + 2 < n ? t[x & 63] : '=';
    }
    *o = '\0';
    return out;
}

int
acreR_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char *
acreR_sentry_text(void *ctx, const acre_schema *s,
                  const struct acreR_sentry *se, int pretty)
{
    unsigned n = 0;
    for (unsigned i = 0; i < se->nattrs; i++)
        n += se->attrs[i].nvals;
    char **l = talloc_array(ctx, char *, n + 1);
    n = 0;
    for (unsigned i = 0; i < se->nattrs; i++) {
        const acre_view_attr *a = se->attrs[i].attr;
        char *name = talloc_strdup(ctx, acreS_dinfo(s, a->id)->text);
        for (char *p = name; *p; p++)
            *p = (char)tolower((unsigned char)*p);
        for (unsigned j = 0; j < se->attrs[i].nvals; j++) {
            const acre_value *v = se->attrs[i].vals[j];
            l[n++] = needs_base64(v->val, v->len)
                         ? talloc_asprintf(ctx, "%s:: %s", name,
                                           base64(ctx, v->val, v->len))
                         : talloc_asprintf(ctx, "%s: %.*s", name, (int)v->len,
                                           (const char *)v->val);
        }
    }
    qsort(l, n, sizeof(*l), acreR_cmp_str);
    char *t = talloc_asprintf(ctx, "dn: %s\n",
                              pretty ? acre_dn_pretty(se->entry->dn, NULL)
                                     : acre_dn_normalised(se->entry->dn, NULL));
    for (unsigned i = 0; i < n; i++)
        t = talloc_asprintf_append(t, "%s\n", l[i]);
    return t;
}
