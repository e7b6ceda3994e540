/*
 * url.c -- LDAP URLs (RFC 4516) split as libldap's
 * ldap_url_parse() does, for dynamic groups (memberURL values) and set
 * literals of the OpenLDAP dialect.
 *
 *   [<][URL:]scheme://host[:port][/dn[?attrs[?scope[?filter[?exts]]]]][>]
 *
 * scheme is ldap, ldaps, ldapi or cldap (any case); each part is
 * %-unescaped; a missing scope is base (libldap's "historic" default);
 * an unknown scope, a bad port, an empty filter after unescaping or a
 * fifth '?' make the URL malformed.  Invariant: the result lives under
 * the caller's context and points at no input byte.
 */
#include "url.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* A %-unescaped copy of s[0..n) (libldap's ldap_pvt_hex_unescape). */
static char *
unescape(void *ctx, const char *s, size_t n)
{
    char *out = talloc_array(ctx, char, n + 1);
    size_t o = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 1 < n) {
            int hi = acreE_hexval(s[++i]),
                lo = i + 1 < n ? acreE_hexval(s[i + 1]) : -1;
            if (hi >= 0 && lo >= 0) {
                out[o++] = (char)(hi << 4 | lo);
                i++;
            } else if (hi >= 0) {
                out[o++] = (char)(hi << 4);
            }
        } else if (s[i] != '%') {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

/* Strip "<...>", "URL:" and the scheme; *rest is what follows "//". */
static int
skip_prefix(const char *s, size_t n, const char **rest, size_t *rn)
{
    static const char *const schemes[] = {"ldap://", "ldaps://", "ldapi://",
                                          "cldap://"};
    if (n > 0 && s[0] == '<') {
        if (s[n - 1] != '>')
            return -1;
        s++;
        n -= 2;
    }
    if (n >= 4 && !strncasecmp(s, "URL:", 4)) {
        s += 4;
        n -= 4;
    }
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
        size_t k = strlen(schemes[i]);
        if (n >= k && !strncasecmp(s, schemes[i], k)) {
            *rest = s + k;
            *rn = n - k;
            return 0;
        }
    }
    return -1;
}

static int
str2scope(const char *s)
{
    static const struct {
        const char *name;
        int scope;
    } t[] = {{"base", ACRE_SCOPE_BASE},
             {"one", ACRE_SCOPE_ONE},
             {"onelevel", ACRE_SCOPE_ONE},
             {"sub", ACRE_SCOPE_SUB},
             {"subtree", ACRE_SCOPE_SUB},
             {"subord", ACRE_SCOPE_CHILDREN},
             {"subordinate", ACRE_SCOPE_CHILDREN},
             {"children", ACRE_SCOPE_CHILDREN}};

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcasecmp(s, t[i].name))
            return t[i].scope;
    return -1;
}

/* host[:port]: kept as text (acre's users only need to know whether it
 * is empty: a URL naming a host is ignored). */
static int
parse_host(void *ctx, const char *s, size_t n, struct acreE_url *u)
{
    u->host = unescape(ctx, s, n);
    return u->host ? 0 : ACRE_ERR_NOMEM;
}

static int
parse_attrs(void *ctx, const char *s, struct acreE_url *u)
{
    const char *p = s;

    while (*p) {
        const char *c = strchr(p, ',');
        size_t k = c ? (size_t)(c - p) : strlen(p);
        if (k) {
            const char **v =
                talloc_realloc(ctx, u->attrs, const char *, u->nattrs + 1);
            if (!v || !(v[u->nattrs] = talloc_strndup(ctx, p, k)))
                return ACRE_ERR_NOMEM;
            u->attrs = v;
            u->nattrs++;
        }
        p += k + (c != NULL);
    }
    return 0;
}

/* Split the part after the host: dn ? attrs ? scope ? filter ? exts. */
static int
parse_path(void *ctx, const char *s, size_t n, struct acreE_url *u)
{
    const char *part[5] = {0};
    size_t len[5] = {0};
    unsigned np = 0;

    for (size_t i = 0, start = 0; i <= n; i++)
        if (i == n || s[i] == '?') {
            if (np == 5)
                return -1; /* extra '?' */
            part[np] = s + start;
            len[np++] = i - start;
            start = i + 1;
        }
    char *v[5] = {0};
    for (unsigned k = 0; k < np; k++)
        if (!(v[k] = unescape(ctx, part[k], len[k])))
            return ACRE_ERR_NOMEM;
    u->dn = v[0];
    if (np > 1 && parse_attrs(ctx, v[1], u))
        return ACRE_ERR_NOMEM;
    if (np > 2 && len[2] && (u->scope = str2scope(v[2])) < 0)
        return -1;
    if (np > 3 && len[3]) {
        if (!*v[3])
            return -1;
        u->filter = v[3];
    }
    if (np > 4)
        u->nexts = 1; /* only presence matters to acre */
    return 0;
}

int
acreE_url_parse(void *ctx, const char *s, size_t n, struct acreE_url *out)
{
    struct acreE_url u = {0};
    const char *rest;
    size_t rn;

    u.scope = ACRE_SCOPE_BASE;
    u.dn = "";
    u.host = "";
    if (skip_prefix(s, n, &rest, &rn))
        return -1;
    const char *slash = memchr(rest, '/', rn);
    size_t hn = slash ? (size_t)(slash - rest) : rn;
    int rc = hn ? parse_host(ctx, rest, hn, &u) : 0;
    if (!rc && slash)
        rc = parse_path(ctx, slash + 1, rn - hn - 1, &u);
    if (rc)
        return rc;
    *out = u;
    return 0;
}
