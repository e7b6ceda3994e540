/*
 * openldap_set.c -- set expressions of "by set=..." (slapd's sets.c), as a
 * tree.
 *
 * slapd evaluates a set with a small stack machine while it reads it, per
 * check.  The grammar that machine accepts, written as the recursive
 * descent below:
 *
 *   expr    := term { op term }          op: '|' union, '&' intersection,
 *                                            '+' concatenation; left to
 *                                            right, no precedence
 *   term    := primary { step }
 *   primary := "this" | "user" | '[' text ']' | '(' expr ')'
 *   step    := ('/' | "->") ( attr ['*'] | '-' digits | "-*" )
 *
 * White space (space, tab, CR, LF) may separate tokens.  "this" and
 * "user" are case-sensitive; attr is an attribute description of AD
 * characters (a '-' not followed by one ends it, so "member->cn" reads
 * as member then "->").  One quirk is kept: at the top level a ')'
 * without its '(' is accepted right after "term op term" (slapd's stack
 * reduces the pending operation and pops nothing), so "a|b)" is "a|b".
 * Invariants: recursion is bounded by ACREO_MAX_SET_DEPTH and input by
 * ACREO_MAX_SET; the tree is immutable once returned.
 */
#include "openldap_int.h"

#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

struct sp {
    void *ctx;
    const acre_schema *schema;
    const char *s;
    size_t n, p;
    int depth;
    int nomem;
};

static const struct acreI_setnode *sp_expr(struct sp *x, int top);

static int
ad_lead(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9');
}

static int
ad_char(char c)
{
    return ad_lead(c) || c == '-' || c == '.' || c == ';';
}

static void
skip_ws(struct sp *x)
{
    while (x->p < x->n && (x->s[x->p] == ' ' || x->s[x->p] == '\t' ||
                           x->s[x->p] == '\n' || x->s[x->p] == '\r'))
        x->p++;
}

static int
at(const struct sp *x, size_t k, char c)
{
    return x->p + k < x->n && x->s[x->p + k] == c;
}

/* A node, or NULL with x->nomem set. */
static struct acreI_setnode *
node(struct sp *x, enum acreI_set_op op)
{
    struct acreI_setnode *nd = talloc_zero(x->ctx, struct acreI_setnode);

    if (!nd)
        x->nomem = 1;
    else
        nd->op = op;
    return nd;
}

/* The length of an AD name at x->p (slapd's scan). */
static size_t
name_len(const struct sp *x)
{
    size_t len = 1;

    while (x->p + len < x->n && ad_char(x->s[x->p + len])) {
        if (x->s[x->p + len] == '-' &&
            !(x->p + len + 1 < x->n && ad_char(x->s[x->p + len + 1])))
            break;
        len++;
    }
    return len;
}

/* "this", "user", [literal], ( expr ). */
static const struct acreI_setnode *
sp_primary(struct sp *x)
{
    struct acreI_setnode *nd;

    skip_ws(x);
    if (x->p >= x->n)
        return NULL;
    if (at(x, 0, '(')) {
        if (++x->depth > ACREO_MAX_SET_DEPTH)
            return NULL;
        x->p++;
        const struct acreI_setnode *e = sp_expr(x, 0);
        x->depth--;
        skip_ws(x);
        if (!e || !at(x, 0, ')'))
            return NULL;
        x->p++;
        return e;
    }
    if (at(x, 0, '[')) {
        const char *end = memchr(x->s + x->p, ']', x->n - x->p);
        if (!end || !(nd = node(x, ACREI_SET_LITERAL)))
            return NULL;
        nd->lit_len = (size_t)(end - (x->s + x->p)) - 1;
        nd->lit = talloc_strndup(nd, x->s + x->p + 1, nd->lit_len);
        x->p += nd->lit_len + 2;
        if (nd->lit) /* a NUL ends it, as in slapd's C strings */
            nd->lit_len = strlen(nd->lit);
        return nd->lit ? nd : NULL;
    }
    if (!ad_lead(x->s[x->p]))
        return NULL;
    size_t len = name_len(x);
    if (len == 4 && !memcmp(x->s + x->p, "this", 4))
        nd = node(x, ACREI_SET_THIS);
    else if (len == 4 && !memcmp(x->s + x->p, "user", 4))
        nd = node(x, ACREI_SET_USER);
    else
        return NULL; /* an attribute needs a '/' before it */
    x->p += len;
    return nd;
}

/* slapd's slap_bv2ad for a set step: a known type, lang-/binary options. */
static struct acreI_attrspec *
step_attr(struct sp *x, size_t len)
{
    struct acreS_desc d;
    struct acreI_attrspec *a;

    if (acreS_desc_parse(x->schema, x->s + x->p, len, &d) || d.type < 0 ||
        d.nopts > ACREI_MAX_OPTIONS)
        return NULL;
    if (!(a = talloc_zero(x->ctx, struct acreI_attrspec))) {
        x->nomem = 1;
        return NULL;
    }
    a->kind = ACREI_ATTR_EXACT;
    a->type = d.type;
    a->oc = -1;
    a->nopts = d.nopts;
    a->text = talloc_strndup(a, x->s + x->p, len);
    for (unsigned i = 0; i < d.nopts; i++) {
        char *o = talloc_strndup(a, d.opts[i], d.opt_len[i]);
        if (!o) {
            x->nomem = 1;
            return NULL;
        }
        if (d.opt_len[i] < 5 || strncasecmp(o, "lang-", 5))
            return NULL; /* binary on a set step: refused (fail closed) */
        for (char *c = o; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        a->opts[i] = o;
    }
    return a;
}

/* After '/' or "->": an attribute, -n or -*. */
static const struct acreI_setnode *
sp_step(struct sp *x, const struct acreI_setnode *kid)
{
    struct acreI_setnode *nd;

    skip_ws(x);
    if (at(x, 0, '-') &&
        (at(x, 1, '*') ||
         (x->p + 1 < x->n && x->s[x->p + 1] >= '0' && x->s[x->p + 1] <= '9'))) {
        if (at(x, 1, '*')) {
            if (!(nd = node(x, ACREI_SET_ANCESTORS)))
                return NULL;
            x->p += 2;
        } else {
            char buf[24];
            size_t k = x->p + 1, m = 0;
            while (k < x->n && x->s[k] >= '0' && x->s[k] <= '9' && m < 20)
                buf[m++] = x->s[k++];
            buf[m] = '\0';
            if (!(nd = node(x, ACREI_SET_PARENT)))
                return NULL;
            nd->level = strtol(buf, NULL, 10);
            while (k < x->n && x->s[k] >= '0' && x->s[k] <= '9')
                k++; /* beyond long: slapd saturates, so do we */
            x->p = k;
        }
        nd->kid[0] = kid;
        return nd;
    }
    if (x->p >= x->n || !ad_lead(x->s[x->p]))
        return NULL;
    size_t len = name_len(x);
    if (len == 4 &&
        (!memcmp(x->s + x->p, "this", 4) || !memcmp(x->s + x->p, "user", 4)))
        return NULL;
    struct acreI_attrspec *a = step_attr(x, len);
    if (!a || !(nd = node(x, ACREI_SET_ATTR)))
        return NULL;
    nd->ad = a;
    nd->entrydn =
        a->nopts == 0 && a->type == acreS_attr_find(x->schema, "entryDN", 7);
    nd->kid[0] = kid;
    x->p += len;
    if (at(x, 0, '*')) {
        nd->closure = 1;
        x->p++;
    }
    return nd;
}

static const struct acreI_setnode *
sp_term(struct sp *x)
{
    const struct acreI_setnode *t = sp_primary(x);

    while (t) {
        skip_ws(x);
        if (at(x, 0, '/'))
            x->p++;
        else if (at(x, 0, '-') && at(x, 1, '>'))
            x->p += 2;
        else
            break;
        t = sp_step(x, t);
    }
    return t;
}

static enum acreI_set_op
binop(char c)
{
    return c == '|'   ? ACREI_SET_UNION
           : c == '&' ? ACREI_SET_INTERSECT
                      : ACREI_SET_CONCAT;
}

static const struct acreI_setnode *
sp_expr(struct sp *x, int top)
{
    const struct acreI_setnode *left = sp_term(x);
    int pending = 0;

    while (left) {
        skip_ws(x);
        if (x->p >= x->n)
            break;
        char c = x->s[x->p];
        if (c == ')' && top && pending) { /* slapd's stray ')' */
            x->p++;
            pending = 0;
            continue;
        }
        if (c != '|' && c != '&' && c != '+')
            break;
        x->p++;
        struct acreI_setnode *nd = node(x, binop(c));
        const struct acreI_setnode *right = nd ? sp_term(x) : NULL;
        if (!right)
            return NULL;
        nd->kid[0] = left;
        nd->kid[1] = right;
        left = nd;
        pending = 1;
    }
    return left;
}

int
acreO_set_parse(void *ctx, const acre_schema *schema, const char *s, size_t n,
                const struct acreI_setnode **out, size_t *err_off)
{
    struct sp x = {NULL, schema, s, n, 0, 0, 0};
    const struct acreI_setnode *root;

    *err_off = 0;
    if (n > ACREO_MAX_SET)
        return ACRE_ERR_RULE_LIMIT;
    if (!(x.ctx = talloc_new(ctx)))
        return ACRE_ERR_NOMEM;
    root = sp_expr(&x, 1);
    skip_ws(&x);
    if (x.nomem) {
        talloc_free(x.ctx);
        return ACRE_ERR_NOMEM;
    }
    if (!root || x.p != n) {
        *err_off = x.p;
        talloc_free(x.ctx);
        return x.depth > ACREO_MAX_SET_DEPTH ? ACRE_ERR_RULE_LIMIT
                                             : ACRE_ERR_RULE_SYNTAX;
    }
    *out = root;
    return 0;
}
