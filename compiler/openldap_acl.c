/*
 * openldap_acl.c -- one access rule ("access to <what> by ..."), parsed as
 * slapd 2.5's parse_acl() does: the "to" part here, each "by" clause in
 * openldap_who.c.
 *
 * slapd's rules that shape this file (aclparse.c):
 *   - one "to"; <what> parts until "by": "*", dn[.style]=, filter=,
 *     attr(s)=, val[/rule][.style]=; anything else is an error; a second
 *     dn part is an error, a second filter replaces the first, attrs
 *     lists add up;
 *   - dn with no style is base (exact); dn.subtree="" and the regexes
 *     ".*" (and kin) mean every entry; dn.regex="" means the root DSE;
 *     non-regex patterns are normalised (unknown attribute types are
 *     errors), regexes are checked with regcomp after slapd's space
 *     folding;
 *   - val needs exactly one attrs item, before it; its value is
 *     normalised by the rule (or, for DN-syntax scopes, as a DN);
 *   - a rule needs at least one "by".
 * Invariant: on error nothing is left half-filled that a caller could
 * use; the rule lives under the build context and is dropped with it.
 */
#include "openldap_int.h"

#include "eval.h"
#include "filter.h"
#include "match.h"
#include "schema.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define DN_SYNTAX      "1.3.6.1.4.1.1466.115.121.1.12"
#define NAMEUID_SYNTAX "1.3.6.1.4.1.1466.115.121.1.34"

/* A token split as slapd's split(): left[.style]=right. */
struct kv {
    const struct acreO_ptext *t;
    size_t left;  /* bytes of the name part */
    size_t style; /* offset of the style (after '.'), or 0 */
    size_t style_len;
    size_t right; /* offset of the value (after '='), or 0 */
    int has_style, has_right;
};

static void
kv_split(const struct acreO_ptext *t, struct kv *kv)
{
    const char *eq = memchr(t->s, '=', t->len);
    size_t lhs = eq ? (size_t)(eq - t->s) : t->len;
    const char *dot = memchr(t->s, '.', lhs);

    memset(kv, 0, sizeof(*kv));
    kv->t = t;
    kv->has_right = eq != NULL;
    kv->right = eq ? lhs + 1 : t->len;
    kv->has_style = dot != NULL;
    kv->left = dot ? (size_t)(dot - t->s) : lhs;
    kv->style = dot ? kv->left + 1 : lhs;
    kv->style_len = lhs - kv->style;
}

/* inlined: strlen of a literal word is then a constant */
static inline __attribute__((always_inline)) int
kv_is(const struct kv *kv, const char *name)
{
    return acreO_word_is(kv->t->s, kv->left, name);
}

/* inlined: strlen of a literal word is then a constant */
static inline __attribute__((always_inline)) int
style_is(const struct kv *kv, const char *name)
{
    return acreO_word_is(kv->t->s + kv->style, kv->style_len, name);
}

/* inlined: strlen of a literal word is then a constant */
static inline __attribute__((always_inline)) int
tok_is(const struct acreO_ptext *t, const char *word)
{
    return acreO_word_is(t->s, t->len, word);
}

static const char *
right_of(const struct kv *kv)
{
    return kv->t->s + kv->right;
}

static size_t
right_len(const struct kv *kv)
{
    return kv->t->len - kv->right;
}

/* ------------------------------------------------------------------------
 * dn part
 */

int
acreO_parse_dn(struct acreO_build *b, const char *s, size_t n, acre_dn **out,
               acre_diag *d)
{
    size_t h;

    return acreO_parse_dn_hash(b, s, n, out, &h, d);
}

int
acreO_parse_dn_hash(struct acreO_build *b, const char *s, size_t n,
                    acre_dn **out, size_t *hash, acre_diag *d)
{
    const struct acreO_memo *m = acreO_memo_find(b, ACREO_MEMO_DN, s, n);
    size_t i = 0;

    if (m) { /* the same text: the same (immutable) DN */
        *out = (acre_dn *)m->p;
        *hash = m->n;
        return 0;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (n > 0 && i == n) { /* slapd's dnNormalize refuses " " */
        if (d) {
            d->offset = 0;
            snprintf(d->message, sizeof(d->message), "blank DN");
        }
        return ACRE_ERR_DN_EMPTY_RDN;
    }
    int rc = acre_dn_parse(b->ctx, b->schema, s, n, ACRE_DN_STRICT, out, d);
    if (rc == 0) {
        *hash = (size_t)acre_dn_ancestor_hash(*out, acre_dn_depth(*out));
        struct acreO_memo v = {*out, NULL, *hash};
        (void)acreO_memo_put(b, ACREO_MEMO_DN, s, n, &v);
    }
    return rc;
}

/* Parsing state of one <what>. */
struct what_state {
    struct acreO_build *b;
    const char *file;
    struct acreI_what *w;
    int dn_set; /* a dn part or "*" was seen */
    const struct acreO_ptext *dn_tok;
    const char *dn_pat; /* pattern to normalise or compile */
    size_t dn_len;
    int dn_star;      /* the pattern is "*" */
    int attrs_shared; /* w->attrs is in the memo: copy before adding */
};

static int
is_any_regex(const char *r, size_t n)
{
    static const char *const any[] = {"*",    ".*",   ".*$",  "^.*",
                                      "^.*$", ".*$$", "^.*$$"};
    for (size_t i = 0; i < sizeof(any) / sizeof(any[0]); i++)
        if (strlen(any[i]) == n && memcmp(any[i], r, n) == 0)
            return 1;
    return 0;
}

static int
what_dn(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    const char *r = right_of(kv);
    size_t n = right_len(kv);
    struct acreI_what *w = st->w;

    if (st->dn_set)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, 0,
                           "dn pattern already specified in to clause");
    st->dn_set = 1;
    st->dn_tok = kv->t;
    st->dn_pat = r;
    st->dn_len = n;
    if (!kv->has_style || kv->style_len == 0 || style_is(kv, "baseObject") ||
        style_is(kv, "base") || style_is(kv, "exact")) {
        w->dn_style = ACREI_DN_BASE;
    } else if (style_is(kv, "oneLevel") || style_is(kv, "one")) {
        w->dn_style = ACREI_DN_ONE;
    } else if (style_is(kv, "subtree") || style_is(kv, "sub")) {
        w->dn_style = n == 0 ? ACREI_DN_ANY : ACREI_DN_SUBTREE;
        st->dn_star = n == 0;
    } else if (style_is(kv, "children")) {
        w->dn_style = ACREI_DN_CHILDREN;
    } else if (style_is(kv, "regex")) {
        if (n == 0) {
            w->dn_style = ACREI_DN_BASE;
        } else if (is_any_regex(r, n)) {
            w->dn_style = ACREI_DN_ANY;
            st->dn_star = 1;
        } else {
            w->dn_style = ACREI_DN_REGEX;
        }
    } else {
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t,
                           kv->style, "unknown dn style \"%.*s\" in to clause",
                           (int)kv->style_len, kv->t->s + kv->style);
    }
    return 0;
}

/* After the <what> loop: normalise or compile the dn pattern. */
static int
what_dn_finish(struct what_state *st, acre_diag *diag)
{
    struct acreI_what *w = st->w;
    const struct acreO_ptext *t = st->dn_tok;
    size_t at = t ? (size_t)(st->dn_pat - t->s) : 0;
    acre_diag d = {0};
    const char *why = NULL;
    int rc;

    if (!st->dn_set || st->dn_star || w->dn_style == ACREI_DN_ANY) {
        w->dn_style = ACREI_DN_ANY;
        return 0;
    }
    w->dn_pos = acreI_lc_of(acreO_pos_of(st->file, t, at));
    if (w->dn_style != ACREI_DN_REGEX) {
        acre_dn *dn;
        rc = acreO_parse_dn(st->b, st->dn_pat, st->dn_len, &dn, &d);
        if (rc == ACRE_ERR_NOMEM)
            return rc;
        if (rc)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, t,
                               at + d.offset,
                               "bad DN \"%.*s\" in to DN clause: %s",
                               (int)st->dn_len, st->dn_pat, d.message);
        w->dn = dn;
        return 0;
    }
    void *tmp = acreO_build_scratch(st->b);
    char *pat =
        tmp ? acreO_regex_normalise_dn(tmp, st->dn_pat, st->dn_len) : NULL;
    struct acreI_regex *re =
        pat ? talloc_zero(st->b->ctx, struct acreI_regex) : NULL;
    if (!re) {
        talloc_free(pat);
        return ACRE_ERR_NOMEM;
    }
    rc = acreO_build_regex(st->b, pat, strlen(pat), re, &why);
    talloc_free(pat);
    if (!rc)
        w->dn_re = re;
    if (rc && rc != ACRE_ERR_NOMEM)
        return acreO_error(diag, rc, st->file, t, at,
                           "bad regular expression (%s): \"%.*s\"", why,
                           (int)st->dn_len, st->dn_pat);
    return rc;
}

/* ------------------------------------------------------------------------
 * filter part
 */

static int
what_filter(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    const struct acreO_memo *m =
        acreO_memo_find(st->b, ACREO_MEMO_FILTER, right_of(kv), right_len(kv));
    struct acreF_filter *f;
    acre_diag d = {0};
    int rc;

    if (m) { /* parsed before: share the filter and its text */
        st->w->filter = m->p;
        st->w->filter_text = m->q;
        return 0;
    }
    /* not ACREF_STRICT_RULES: slapd's str2filter takes an unknown
     * extensible rule (the item is then Undefined); ACREF_NO_OPERATION:
     * slapd tests a rule's filter without an operation (acl.c's
     * test_filter(NULL, ...)), where hasSubordinates is not computed */
    rc = acreF_parse_flags(st->b->ctx, st->b->schema, right_of(kv),
                           right_len(kv), ACREF_NO_OPERATION, &f, &d);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t,
                           kv->right + d.offset,
                           "bad filter \"%.*s\" in to clause: %s",
                           (int)right_len(kv), right_of(kv), d.message);
    st->w->filter = f;
    st->w->filter_text =
        talloc_strndup(st->b->ctx, right_of(kv), right_len(kv));
    if (!st->w->filter_text)
        return ACRE_ERR_NOMEM;
    struct acreO_memo v = {f, st->w->filter_text, 0};
    (void)acreO_memo_put(st->b, ACREO_MEMO_FILTER, right_of(kv), right_len(kv),
                         &v);
    return 0;
}

/* ------------------------------------------------------------------------
 * attrs part (slapd's str2anlist)
 */

/* The lowercased option s[0..n), interned. */
static int
lower_copy(struct acreO_build *b, const char *s, size_t n, const char **out)
{
    char local[64];
    char *c = n <= sizeof(local) ? local : talloc_strndup(NULL, s, n);

    if (!c)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        c[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
    *out = acreO_intern(b, c, n);
    if (c != local)
        talloc_free(c);
    return *out ? 0 : ACRE_ERR_NOMEM;
}

int
acreO_attr_desc(struct acreO_build *b, const char *s, size_t n,
                struct acreI_attrspec *a)
{
    struct acreS_desc d;

    if (n == 0 || acreS_desc_parse(b->schema, s, n, &d) || d.type < 0 ||
        d.nopts > ACREI_MAX_OPTIONS)
        return 0;
    if (!acreS_slapd_desc_ok(b->schema, acreS_attr(b->schema, d.type), &d))
        return 0;
    for (unsigned i = 0; i < d.nopts; i++)
        if (lower_copy(b, d.opts[i], d.opt_len[i], &a->opts[i]))
            return -1;
    a->type = d.type;
    a->nopts = d.nopts;
    if (!a->text && !(a->text = acreO_intern(b, s, n)))
        return -1;
    return 1;
}

static int
class_item(struct acreO_build *b, const char *s, size_t n,
           struct acreI_attrspec *a, enum acreI_attr_kind kind)
{
    int oc = n ? acreS_class_find(b->schema, s, n) : -1;

    if (oc < 0)
        return 0;
    a->kind = kind;
    a->oc = oc;
    a->extensible = oc == acreS_class_find(b->schema, "extensibleObject", 16);
    return 1;
}

/* One comma-separated attrs item; 1 done, 0 unknown, -1 no memory. */
static int
attr_item(struct acreO_build *b, const char *s, size_t n,
          struct acreI_attrspec *a)
{
    memset(a, 0, sizeof(*a));
    a->type = a->oc = -1;
    if (!(a->text = acreO_intern(b, s, n)))
        return -1;
    int rc = acreO_attr_desc(b, s, n, a);
    if (rc)
        return rc;
    switch (s[0]) {
    case '-':
        a->kind = ACREI_ATTR_EXACT;
        return acreO_attr_desc(b, s + 1, n - 1, a);
    case '@':
    case '+':
        return class_item(b, s + 1, n - 1, a, ACREI_ATTR_CLASS);
    case '!':
        return class_item(b, s + 1, n - 1, a, ACREI_ATTR_NOT_CLASS);
    default:
        return class_item(b, s, n, a, ACREI_ATTR_CLASS);
    }
}

/* The non-empty items of a comma-separated list r[0..n). */
static unsigned
count_items(const char *r, size_t n)
{
    unsigned k = 0;

    for (size_t i = 0; i < n; i++)
        k += r[i] != ',' && (i + 1 == n || r[i + 1] == ',');
    return k;
}

/* Room for k more items in w's list, in an array of its own (a list
 * from the memo is shared, so it is copied, never extended). */
static int
attrs_room(struct what_state *st, unsigned k)
{
    struct acreI_what *w = st->w;
    struct acreI_attrspec *v =
        talloc_array(st->b->ctx, struct acreI_attrspec, w->nattrs + k);

    if (!v)
        return ACRE_ERR_NOMEM;
    if (w->nattrs)
        memcpy(v, w->attrs, w->nattrs * sizeof(*v));
    if (!st->attrs_shared)
        talloc_free(w->attrs);
    w->attrs = v;
    st->attrs_shared = 0;
    return 0;
}

static int
what_attrs(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    struct acreI_what *w = st->w;
    const char *r = right_of(kv);
    size_t n = right_len(kv), i = 0;
    unsigned k = count_items(r, n), first = w->nattrs;
    const struct acreO_memo *m;

    if (kv->left == 4 && !strncasecmp(kv->t->s, "attr", 4))
        acreO_note_add(st->b, acreO_pos_of(st->file, kv->t, 0),
                       "\"attr\" is deprecated; use \"attrs\" instead");
    if (!w->has_attrs)
        w->attrs_pos = acreI_lc_of(acreO_pos_of(st->file, kv->t, kv->right));
    w->has_attrs = 1;
    if (k == 0)
        return 0;
    if (first == 0 && (m = acreO_memo_find(st->b, ACREO_MEMO_ATTRS, r, n))) {
        w->attrs = (struct acreI_attrspec *)m->p; /* the same list */
        w->nattrs = (unsigned)m->n;
        st->attrs_shared = 1;
        return 0;
    }
    if (attrs_room(st, k))
        return ACRE_ERR_NOMEM;
    while (i < n) {
        size_t j = i;
        while (j < n && r[j] != ',')
            j++;
        if (j > i) {
            int rc = attr_item(st->b, r + i, j - i, &w->attrs[w->nattrs]);
            if (rc < 0)
                return ACRE_ERR_NOMEM;
            if (rc == 0)
                return acreO_error(
                    diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, kv->right + i,
                    "unknown attr \"%.*s\" in to clause", (int)(j - i), r + i);
            w->nattrs++;
        }
        i = j + 1;
    }
    if (first == 0) {
        struct acreO_memo v = {w->attrs, NULL, w->nattrs};
        if (acreO_memo_put(st->b, ACREO_MEMO_ATTRS, r, n, &v) == 0)
            st->attrs_shared = 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * val part
 */

/* Is `rule` usable with attribute `type` (slapd's mr_usable_with_at)?
 * The filter module knows that answer: ask it through an extensible
 * item, which it refuses with ACRE_ERR_FILTER_RULE in strict mode. */
static int
rule_usable(struct acreO_build *b, int type, const char *rule, size_t n)
{
    const struct acreS_attr *at = acreS_attr(b->schema, type);
    char *f = talloc_asprintf(NULL, "(%s:%.*s:=x)", at->oid, (int)n, rule);
    struct acreF_filter *flt = NULL;

    if (!f)
        return -1;
    int rc = acreF_parse_flags(f, b->schema, f, strlen(f), ACREF_STRICT_RULES,
                               &flt, NULL);
    talloc_free(f);
    return rc == ACRE_ERR_NOMEM ? -1 : rc != ACRE_ERR_FILTER_RULE;
}

static int
has_syntax(const struct acreS_attr *at, const char *oid)
{
    return at->syntax && strcmp(at->syntax, oid) == 0;
}

/* val/<rule>: resolve and check the rule. */
static int
val_rule(struct what_state *st, const struct kv *kv, size_t slash, int type,
         acre_diag *diag)
{
    const char *name = kv->t->s + slash + 1;
    size_t n = kv->left - slash - 1;
    struct acreI_val *v = st->w->val;

    v->rule = acreM_find(name, n);
    if (v->rule == ACREM_NONE)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t,
                           slash + 1, "invalid matching rule \"%.*s\"", (int)n,
                           name);
    int ok = rule_usable(st->b, type, name, n);
    if (ok < 0)
        return ACRE_ERR_NOMEM;
    if (!ok)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t,
                           slash + 1,
                           "matching rule \"%.*s\" use with attr \"%s\" not "
                           "appropriate",
                           (int)n, name, st->w->attrs[0].text);
    return 0;
}

/* val.<style>: the style, given the attribute's syntax. */
static int
val_style(struct what_state *st, const struct kv *kv, int dn_syntax,
          acre_diag *diag)
{
    struct acreI_val *v = st->w->val;

    if (!kv->has_style)
        v->style = ACREI_VAL_EXACT;
    else if (style_is(kv, "regex"))
        v->style = ACREI_VAL_REGEX;
    else if (style_is(kv, "base") || style_is(kv, "exact"))
        v->style = ACREI_VAL_EXACT;
    else if (dn_syntax && style_is(kv, "baseObject"))
        v->style = ACREI_VAL_EXACT;
    else if (dn_syntax && (style_is(kv, "onelevel") || style_is(kv, "one")))
        v->style = ACREI_VAL_ONE;
    else if (dn_syntax && (style_is(kv, "subtree") || style_is(kv, "sub")))
        v->style = ACREI_VAL_SUBTREE;
    else if (dn_syntax && style_is(kv, "children"))
        v->style = ACREI_VAL_CHILDREN;
    else
        return acreO_error(
            diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, kv->style,
            "unknown val.<style> \"%.*s\" for attributeType "
            "\"%s\"",
            (int)kv->style_len, kv->t->s + kv->style, st->w->attrs[0].text);
    return 0;
}

/* The value of a DN-syntax val with a scope style (or baseObject). */
static int
val_dn(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    struct acreI_val *v = st->w->val;
    acre_diag d = {0};
    acre_dn *dn;
    int rc = acreO_parse_dn(st->b, right_of(kv), right_len(kv), &dn, &d);

    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_error(
            diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, kv->right + d.offset,
            "unable to normalize DN \"%.*s\" for attributeType "
            "\"%s\"",
            (int)right_len(kv), right_of(kv), st->w->attrs[0].text);
    v->dn = dn;
    v->norm = (const uint8_t *)acre_dn_normalised(dn, &v->norm_len);
    return 0;
}

/* The value of val= / val.exact=: normalised by the rule. */
static int
val_exact(struct what_state *st, const struct kv *kv, int type, acre_diag *diag)
{
    struct acreI_val *v = st->w->val;
    const struct acreS_attr *at = acreS_attr(st->b->schema, type);
    struct acreE_buf out;
    uint8_t local[256];

    if (v->rule == ACREM_NONE)
        v->rule = at->eq;
    if (v->rule == ACREM_NONE)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, 0,
                           "attr \"%s\" does not have an EQUALITY matching "
                           "rule (or acre cannot evaluate it)",
                           st->w->attrs[0].text);
    acreE_buf_init(&out, local, sizeof(local));
    int rc =
        acreM_normalise(st->b->schema, acreM_info(v->rule)->eq,
                        (const uint8_t *)right_of(kv), right_len(kv), &out);
    if (!rc && !v->dn_syntax) { /* a DN's form comes from val_dn */
        uint8_t *copy = talloc_array(st->b->ctx, uint8_t, out.len + 1);
        if (copy) {
            memcpy(copy, out.p, out.len);
            copy[out.len] = '\0';
            v->norm = copy;
            v->norm_len = out.len;
        } else {
            rc = ACRE_ERR_NOMEM;
        }
    }
    acreE_buf_free(&out);
    if (rc && rc != ACRE_ERR_NOMEM)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t,
                           kv->right, "attr \"%s\" normalization failed",
                           st->w->attrs[0].text);
    return rc;
}

static int
val_regex(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    const char *why = NULL;
    int rc = acreO_build_regex(st->b, right_of(kv), right_len(kv),
                               &st->w->val->re, &why);

    if (rc && rc != ACRE_ERR_NOMEM)
        return acreO_error(diag, rc, st->file, kv->t, kv->right,
                           "bad regular expression (%s): \"%.*s\"", why,
                           (int)right_len(kv), right_of(kv));
    return rc;
}

static int
what_val(struct what_state *st, const struct kv *kv, acre_diag *diag)
{
    struct acreI_what *w = st->w;
    struct acreI_val *v;
    const char *slash = memchr(kv->t->s, '/', kv->left);
    int rc;

    if (w->val)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, 0,
                           "attr val already specified in to clause");
    if (!w->has_attrs || w->nattrs != 1)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, 0,
                           "attr val requires a single attribute");
    int type = w->attrs[0].type;
    /* one class (@oc, !oc, a bare class name) is a single entry to slapd
     * too; a regex then tests the value of whatever attribute the class
     * takes, and any other form reads the entry's attribute type, which
     * a class has none of (slapd dies) */
    if (type < 0 && (slash || !kv->has_style || !style_is(kv, "regex")))
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, kv->t, 0,
                           "attr val on object class \"%s\" takes only "
                           "val.regex (slapd reads an attribute type for "
                           "any other form, and a class has none)",
                           w->attrs[0].text);
    if (!(v = w->val = talloc_zero(st->b->ctx, struct acreI_val)))
        return ACRE_ERR_NOMEM;
    if (type < 0) {
        v->pos = acreO_pos_of(st->file, kv->t, 0);
        v->style = ACREI_VAL_REGEX;
        return val_regex(st, kv, diag);
    }
    const struct acreS_attr *at = acreS_attr(st->b->schema, type);
    v->pos = acreO_pos_of(st->file, kv->t, 0);
    v->dn_syntax = has_syntax(at, DN_SYNTAX);
    if (slash &&
        (rc = val_rule(st, kv, (size_t)(slash - kv->t->s), type, diag)))
        return rc;
    if ((rc = val_style(st, kv, v->dn_syntax, diag)))
        return rc;
    if (v->style == ACREI_VAL_REGEX)
        return val_regex(st, kv, diag);
    if (v->dn_syntax && kv->has_style && !style_is(kv, "base") &&
        !style_is(kv, "exact"))
        return val_dn(st, kv, diag);
    if ((rc = val_exact(st, kv, type, diag)))
        return rc;
    if (v->dn_syntax) /* parse it too: compared as a DN */
        return val_dn(st, kv, diag);
    return 0;
}

/* ------------------------------------------------------------------------
 * The rule
 */

static int
what_part(struct what_state *st, const struct acreO_ptext *t, acre_diag *diag)
{
    struct kv kv;

    if (tok_is(t, "*")) {
        if (st->dn_set)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, t, 0,
                               "dn pattern already specified in to clause");
        st->dn_set = st->dn_star = 1;
        return 0;
    }
    kv_split(t, &kv);
    if (!kv.has_right)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, t, 0,
                           "missing \"=\" in \"%.*s\" in to clause",
                           (int)kv.left, t->s);
    if (kv_is(&kv, "dn"))
        return what_dn(st, &kv, diag);
    if (kv_is(&kv, "filter"))
        return what_filter(st, &kv, diag);
    if (kv_is(&kv, "attr") || kv_is(&kv, "attrs"))
        return what_attrs(st, &kv, diag);
    if (acreO_prefix_is(t->s, kv.left, "val"))
        return what_val(st, &kv, diag);
    return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, st->file, t, 0,
                       "expecting <what> got \"%.*s\"", (int)kv.left, t->s);
}

/* "to" and the <what> parts after it, up to "by" or the end. */
static int
parse_to(struct acreO_build *b, const struct acreO_ptext *toks, unsigned ntoks,
         unsigned *i, const char *file, struct acreI_rule *rule,
         acre_diag *diag)
{
    struct what_state st = {.b = b, .file = file, .w = &rule->what};
    int rc;

    rule->what.pos = acreI_lc_of(acreO_pos_of(file, &toks[*i], 0));
    for ((*i)++; *i < ntoks && !tok_is(&toks[*i], "by"); (*i)++)
        if ((rc = what_part(&st, &toks[*i], diag)))
            return rc;
    return what_dn_finish(&st, diag);
}

/* Clauses: one per "by" token (parse_to stops at every one and no clause
 * takes one), so the array is allocated once at its size, in the
 * configuration's arena (acreO_alloc: not a talloc block per rule). */
static int
add_by(struct acreO_build *b, const struct acreI_section *db,
       const struct acreO_ptext *toks, unsigned ntoks, unsigned *i,
       const char *file, struct acreI_rule *rule, unsigned *cap,
       acre_diag *diag)
{
    struct acreI_clause *v = rule->by;

    if (!v) {
        unsigned n = 0;
        for (unsigned k = *i - 1; k < ntoks; k++)
            n += tok_is(&toks[k], "by");
        if (!(v = acreO_alloc(b, (size_t)n * sizeof(*v))))
            return ACRE_ERR_NOMEM;
        rule->by = v;
        *cap = n;
    }
    if (rule->nby == *cap) { /* never, but safe */
        if (!(v = acreO_alloc(b, (size_t)(rule->nby + 1) * sizeof(*v))))
            return ACRE_ERR_NOMEM;
        memcpy(v, rule->by, rule->nby * sizeof(*v));
        rule->by = v;
        *cap = rule->nby + 1;
    }
    memset(&v[rule->nby], 0, sizeof(v[0]));
    int rc = acreO_parse_by(b, db, toks, ntoks, i, file, &v[rule->nby], diag);
    if (!rc)
        rule->nby++;
    return rc;
}

/* A pattern whose submatches slapd takes from regexec with no bound:
 * an alternation and a back-reference. */
static int
unbounded_posix(const struct acreI_regex *re)
{
    unsigned both = ACREI_RE_ALT | ACREI_RE_BACKREF;

    return re->code && (re->flags & both) == both;
}

/* Refuse a rule whose clauses substitute the submatches of such a
 * pattern: glibc's regexec recurses without limit on it ("(|)(\1\1)*"
 * overflows its stack on any DN) and takes time exponential in the
 * subject, and no other engine gives slapd's submatches. */
static int
check_submatches(const struct acreI_rule *rule, acre_diag *diag)
{
    const struct acreI_what *w = &rule->what;
    const struct acreI_regex *re = NULL;
    struct acreI_pos pos = acreI_pos_in(rule, w->dn_pos);

    if (w->dn_style == ACREI_DN_REGEX && unbounded_posix(acreI_dn_re(w)))
        re = acreI_dn_re(w);
    else if (acreI_val(w)->style == ACREI_VAL_REGEX &&
             unbounded_posix(&acreI_val(w)->re))
        re = &acreI_val(w)->re, pos = acreI_val(w)->pos;
    for (unsigned i = 0; re && i < rule->nby; i++)
        if (acreV_clause_flags(&rule->by[i]) & ACREP_C_MATCHES)
            return acreO_error_pos(
                diag, ACRE_ERR_RULE_LIMIT, pos,
                "regular expression \"%s\" has '|' and a back-reference, "
                "and a <who> substitutes its submatches: slapd takes them "
                "from the C library's regexec, which has no bound on such a "
                "pattern",
                re->pattern);
    return 0;
}

int
acreO_parse_access(struct acreO_build *b, const struct acreI_section *db,
                   const struct acreO_ptext *toks, unsigned ntoks,
                   const char *file, struct acreI_rule *rule, acre_diag *diag)
{
    int have_to = 0, rc;
    unsigned i = 1, cap = 0;
    const struct acreO_ptext *last = &toks[ntoks - 1];

    memset(rule, 0, sizeof(*rule));
    rule->pos = acreO_pos_of(file, &toks[0], 0);
    while (i < ntoks) {
        if (tok_is(&toks[i], "to")) {
            if (have_to)
                return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[i],
                                   0,
                                   "only one to clause allowed in access "
                                   "line");
            have_to = 1;
            rc = parse_to(b, toks, ntoks, &i, file, rule, diag);
        } else if (tok_is(&toks[i], "by")) {
            if (!have_to)
                return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[i],
                                   0,
                                   "to clause required before by clause in "
                                   "access line");
            i++;
            rc = add_by(b, db, toks, ntoks, &i, file, rule, &cap, diag);
        } else {
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[i], 0,
                               "expecting \"to\" or \"by\" got \"%s\"",
                               toks[i].s);
        }
        if (rc)
            return rc;
    }
    if (!have_to)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, last, 0,
                           "no access clause(s) specified in access line");
    if (rule->nby == 0)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, last, last->len,
                           "no by clause(s) specified in access line");
    return check_submatches(rule, diag);
}
