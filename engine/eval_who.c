/*
 * eval_who.c -- does one "by" clause apply?  The engine's form of slapd
 * 2.5's slap_acl_mask(), acl_mask_dn(), acl_mask_dnattr() and
 * fe_acl_group() (acl.c, backend.c), with the semantics of the reference
 * evaluator (tests/oracle/openldap_oracle_who.c) kept quirk for quirk.
 *
 * A clause is split in two:
 *   requester part  decided once per requester identity (spec): DN
 *                   subjects that substitute nothing, connection strings
 *                   that substitute nothing, ssf minimums, and the
 *                   prerequisites that only need the requester (dnattr,
 *                   group and "self" need a non-anonymous DN);
 *   entry part      per check: "self" access, self subjects, patterns
 *                   substituted from the rule's <what>, dnattr, groups
 *                   (a group may be the entry checked, which slapd then
 *                   reads without its class check) and sets.
 * The two parts are evaluated by separate calls, and the clause holds iff
 * both do; acreV_clause_flags says which parts exist so that the caller
 * skips what is trivially true.  Every condition belongs to exactly one
 * part; subject_static and str_static decide which for DN subjects and
 * connection strings.  A group is all entry part: its membership is read
 * from the entry itself when it is the group, else from the directory
 * (which is per request -- a static group's answer is remembered in the
 * request -- while the requester part is cached per identity across
 * requests).
 *
 * Invariants: nothing here allocates from the system on the common path;
 * what is bigger than the stack holds (DN parse buffers, regexes compiled
 * from substituted patterns, parsed memberURLs) comes from rq->scratch,
 * which the caller empties per check.  Requester DNs are NULL when
 * anonymous, with normalised text "".
 */
#include "eval.h"

#include "buf.h"
#include "filter.h"
#include "match.h"
#include "schema.h"
#include "url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

#define DN_SYNTAX      "1.3.6.1.4.1.1466.115.121.1.12"
#define NAMEUID_SYNTAX "1.3.6.1.4.1.1466.115.121.1.34"

/* Append to the check's explain trace, when one is asked for. */
static void note_put(struct acreV_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Only explain pays for the formatting. */
#define note(c, ...)                    \
    do {                                \
        if ((c)->trace)                 \
            note_put((c), __VA_ARGS__); \
    } while (0)

static void
note_put(struct acreV_check *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->trace || !*c->trace)
        return;
    va_start(ap, fmt);
    *c->trace = talloc_vasprintf_append_buffer(*c->trace, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * slapd's DN text
 */

#if defined(__SSE2__) && defined(__x86_64__)
/* slapd_dn_differs over the 16 bytes at p, less the first `skip` (read
 * before): 1 at a backslash or a second '=' in a value, else 0 with
 * *in_value carried on. */
static inline int
dn_block_differs(const char *p, unsigned skip, int *in_value)
{
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
    unsigned bs =
        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('\\')));
    unsigned e =
        (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_set1_epi8('=')));
    unsigned m = e | (unsigned)_mm_movemask_epi8(
                         _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8(',')),
                                      _mm_cmpeq_epi8(b, _mm_set1_epi8('+'))));

    if (bs >> skip)
        return 1;
    e >>= skip;
    /* the '=', ',' and '+' in order: the byte loop's states */
    for (m >>= skip; m; m &= m - 1) {
        if (!(e & m & -m))
            *in_value = 0;
        else if (*in_value)
            return 1;
        else
            *in_value = 1;
    }
    return 0;
}
#endif

/* Does acre's normalised DN text s[0..n) differ from slapd's: an escape,
 * or an '=' inside a value?  With SSE2, 16 bytes a step, the last step
 * reading the last 16 bytes and skipping those already read. */
static int
slapd_dn_differs(const char *s, size_t n)
{
    int in_value = 0;

#if defined(__SSE2__) && defined(__x86_64__)
    if (n >= 16) {
        size_t i = 0;
        for (; i + 16 <= n; i += 16)
            if (dn_block_differs(s + i, 0, &in_value))
                return 1;
        return i < n && dn_block_differs(s + n - 16, (unsigned)(16 - (n - i)),
                                         &in_value);
    }
#endif
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\')
            return 1;
        if (s[i] == '=' && in_value)
            return 1;
        if (s[i] == '=')
            in_value = 1;
        else if (s[i] == ',' || s[i] == '+')
            in_value = 0;
    }
    return 0;
}

const char *
acreV_slapd_dn(struct acre_request *rq, const char *s, size_t n, size_t *len)
{
    static const char hx[] = "0123456789ABCDEF";
    char *o, *t;
    int in_value = 0;

    *len = n;
    if (!slapd_dn_differs(s, n))
        return s;
    if (!(t = o = talloc_size(rq->scratch, 3 * n + 1)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!in_value) {
            *o++ = (char)c;
            in_value = c == '=';
        } else if (c == '\\' && i + 1 < n) {
            unsigned char d = (unsigned char)s[++i];
            *o++ = '\\';
            if (isxdigit(d) && i + 1 < n && isxdigit((unsigned char)s[i + 1])) {
                *o++ = (char)toupper(d); /* already a hex pair (NUL) */
                *o++ = (char)toupper((unsigned char)s[++i]);
            } else { /* \c becomes \XX */
                *o++ = hx[d >> 4];
                *o++ = hx[d & 15];
            }
        } else if (c == ',' || c == '+') {
            *o++ = (char)c;
            in_value = 0;
        } else if (c == '=') {
            memcpy(o, "\\3D", 3);
            o += 3;
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    *len = (size_t)(o - t);
    return t;
}

/* ------------------------------------------------------------------------
 * Shared helpers
 */

/* slapd's acl_string_expand of t with the submatches of m (NULL: none);
 * with_val 0 hides the value's.  Returns out, or NULL when it fails. */
static const char *
expand(const struct acreI_template *t, const struct acreV_matches *m,
       int with_val, char out[ACREI_EXPAND_MAX + 1])
{
    size_t n;

    if (acreI_expand(t->tmpl, t->len, m ? m->dn_src : NULL, m ? m->dn : NULL,
                     m ? m->dn_count : 0, m && with_val ? m->val_src : NULL,
                     m ? m->val : NULL, m ? m->val_count : 0, out, &n))
        return NULL;
    return out;
}

/* Bytes of the stack buffer a DN is parsed into first; a DN that does
 * not fit (rare: long or many RDNs) goes to a buffer from scratch. */
#define DN_LOCAL 4096

const acre_dn *
acreV_dn_parse(const acre_schema *schema, void *local, size_t size, void *ctx,
               void **big, const char *s, size_t n)
{
    acre_dn *dn;
    size_t i = 0;
    int rc = ACRE_ERR_NOSPACE;

    while (i < n && s[i] == ' ')
        i++;
    if (n > 0 && i == n)
        return NULL;
    if (local)
        rc = acre_dn_parse_buf(local, size, schema, s, n, ACRE_DN_STRICT, &dn,
                               NULL);
    if (rc == ACRE_ERR_NOSPACE) { /* valid, but too big for local */
        if (!*big && !(*big = talloc_size(ctx, ACRE_DN_BUF_MAX)))
            return NULL;
        rc = acre_dn_parse_buf(*big, ACRE_DN_BUF_MAX, schema, s, n,
                               ACRE_DN_STRICT, &dn, NULL);
    }
    return rc ? NULL : dn;
}

/* acreV_dn_parse into local (DN_LOCAL bytes) or a fresh buffer from
 * scratch. */
static const acre_dn *
parse_dn(struct acre_request *rq, uint64_t *local, const char *s, size_t n)
{
    void *big = NULL;

    return acreV_dn_parse(rq->schema, local, DN_LOCAL, rq->scratch, &big, s, n);
}

/* Normalised DN text ndn[0..n) under the equality rule of attribute
 * `type`, as a value of it would be stored, appended to b.  0, or -1 when
 * the type has no equality rule or the text is not a value of it. */
static int
dn_as_value(const acre_schema *s, int type, const char *ndn, size_t n,
            struct acreE_buf *b)
{
    const struct acreS_attr *at = acreS_attr(s, type);

    if (at->eq == ACREM_NONE)
        return -1;
    if (at->eq == ACREM_DN) /* normalising a normalised DN changes nothing */
        return acreE_buf_put(b, ndn, n) ? -1 : 0;
    return acreM_normalise(s, at->eq, (const uint8_t *)ndn, n, b) ? -1 : 0;
}

/* Does normalised value v[0..vn) of `type` equal DN text ndn? */
static int
value_is_dn(const acre_schema *s, int type, const uint8_t *v, size_t vn,
            const char *ndn, size_t n)
{
    uint8_t local[512];
    struct acreE_buf b;

    acreE_buf_init(&b, local, sizeof(local));
    int ok = dn_as_value(s, type, ndn, n, &b) == 0 && b.len == vn &&
             memcmp(b.p, v, vn) == 0;
    acreE_buf_free(&b);
    return ok;
}

/* acreV_attr_lists -- see eval.h. */
int
acreV_attr_lists(const acre_schema *s, const acre_view_attr *a, const char *ndn,
                 size_t n)
{
    uint8_t local[512];
    struct acreE_buf b;

    acreE_buf_init(&b, local, sizeof(local));
    int ok = dn_as_value(s, acreE_attr_type(s, a), ndn, n, &b) == 0 &&
             acreE_attr_has_value(s, a, b.p, b.len);
    acreE_buf_free(&b);
    return ok;
}

const acre_view_attr *
acreV_find_desc(const acre_schema *s, const acre_entry_view *e,
                const struct acreI_attrspec *d)
{
    if (!d->nopts) { /* a type alone: its id is the type's, and only its */
        for (uint32_t i = 0; i < e->nattrs; i++)
            if (e->attrs[i].id == d->type)
                return &e->attrs[i];
        return NULL;
    }
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        const struct acreS_dinfo *ai = acreS_desc_of(s, a->id);
        if (ai->type != d->type || ai->nopts != d->nopts)
            continue;
        unsigned k = 0;
        while (k < d->nopts && strlen(d->opts[k]) == ai->opt_len[k] &&
               !strncasecmp(d->opts[k], ai->opts[k], ai->opt_len[k]))
            k++;
        if (k == d->nopts)
            return a;
    }
    return NULL;
}

/* Does a template substitute a submatch of the value (${vn})?  Runs
 * acreI_expand's state machine without output; conservative: a "{v"
 * anywhere in an expanding template counts too. */
static int
uses_value(const struct acreI_template *t)
{
    const char *s = t->tmpl;
    int flag = 0, val = 0;

    if (!t->expands)
        return 0;
    for (size_t k = 0; k < t->len; k++) {
        char ch = s[k];
        if (k + 1 < t->len && ch == '{' && s[k + 1] == 'v')
            return 1;
        if (!flag) {
            flag = ch == '$';
        } else if (flag == 1 && ch == '$') {
            flag = val = 0;
        } else if (flag == 2 && (ch == 'v' || ch == 'd')) {
            val = ch == 'v';
        } else if (flag == 1 && ch == '{') {
            flag = 2;
        } else if (ch >= '0' && ch <= '9') {
            if (val)
                return 1;
            while (flag == 2 && k + 1 < t->len && s[k + 1] != '}')
                k++;
            flag = val = 0;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * DN subjects
 */

/* Is the subject decided by the requester alone? */
static int
subject_static(const struct acreI_subject *sj)
{
    switch (sj->kind) {
    case ACREI_SUBJ_NONE:
    case ACREI_SUBJ_ANY:
    case ACREI_SUBJ_ANONYMOUS:
    case ACREI_SUBJ_USERS:
        return 1;
    case ACREI_SUBJ_SELF:
        return 0;
    case ACREI_SUBJ_REGEX:
        return acreI_pat(sj)->re.code != NULL &&
               !acreI_pat(sj)->re_tmpl.expands;
    default:
        return !sj->is_expand && sj->dn != NULL;
    }
}

/* A DN style against the requester (op NULL: anonymous; opnorm "" then). */
static int
subject_scope(const struct acreI_subject *sj, const acre_dn *pat,
              const acre_dn *op, const char *opnorm, size_t oplen)
{
    unsigned pd = acre_dn_depth(pat);
    size_t pl;
    const char *pn = acre_dn_normalised(pat, &pl);

    switch (sj->kind) {
    case ACREI_SUBJ_BASE:
        return op ? acre_dn_equal(op, pat) : pd == 0;
    case ACREI_SUBJ_ONE:
        return op && pd > 0 && acre_dn_in_scope(op, pat, ACRE_SCOPE_ONE) == 1;
    case ACREI_SUBJ_SUBTREE:
        return pd == 0 ? op == NULL
                       : op && acre_dn_in_scope(op, pat, ACRE_SCOPE_SUB) == 1;
    case ACREI_SUBJ_CHILDREN:
        return op && pd > 0 &&
               acre_dn_in_scope(op, pat, ACRE_SCOPE_CHILDREN) == 1;
    case ACREI_SUBJ_LEVEL:
        return op && pd > 0 && sj->level > 0 &&
               acre_dn_depth(op) == pd + (unsigned)sj->level &&
               acre_dn_in_scope(op, pat, ACRE_SCOPE_SUB) == 1;
    case ACREI_SUBJ_SUFFIX: /* slapd: only the end of the normalised DN */
        return oplen >= pl && memcmp(opnorm + oplen - pl, pn, pl) == 0;
    default:
        return 0;
    }
}

/* The requester part of a subject: a static one decided, or the
 * prerequisite of a self subject (a DN). */
static int
subject_requester(struct acre_request *rq, const struct acreI_subject *sj,
                  const acre_dn *op, const char *opnorm, size_t oplen)
{
    switch (sj->kind) {
    case ACREI_SUBJ_NONE:
    case ACREI_SUBJ_ANY:
        return 1;
    case ACREI_SUBJ_ANONYMOUS:
        return op == NULL;
    case ACREI_SUBJ_USERS:
        return op != NULL;
    case ACREI_SUBJ_SELF:
        return op != NULL;
    case ACREI_SUBJ_REGEX: {
        size_t sl;
        const char *sd;
        if (!subject_static(sj))
            return 1;
        /* slapd matches its own normalised text (\2C, not \,) */
        if (!(sd = acreV_slapd_dn(rq, opnorm, oplen, &sl))) {
            rq->limit_hit = 1; /* out of memory: deny */
            return 0;
        }
        return acreV_regex_match(rq, &acreI_pat(sj)->re, sd, sl, NULL, 0);
    }
    default:
        return !subject_static(sj) ||
               subject_scope(sj, sj->dn, op, opnorm, oplen);
    }
}

/* self, self.level{n}: the requester is the entry, or its ancestor
 * (n > 0) / descendant (n < 0) n levels away; never the root. */
static int
subject_self(struct acreV_check *c, const struct acreI_subject *sj,
             const acre_dn *op)
{
    const acre_dn *walk = op, *other = c->e->dn;
    long level = sj->level;

    if (!op)
        return 0;
    if (level < 0) {
        walk = c->e->dn;
        other = op;
        level = -level;
    }
    unsigned d = acre_dn_depth(walk);
    if (level == 0)
        return d > 0 && acre_dn_equal(walk, other);
    if (level >= (long)d)
        return 0;
    uint64_t local[DN_LOCAL / 8];
    size_t n; /* slapd re-normalises the ancestor (strictly) */
    const char *s = acre_dn_ancestor(walk, d - (unsigned)level, &n);
    const acre_dn *up = parse_dn(c->rq, local, s, n);
    return up && acre_dn_depth(up) > 0 && acre_dn_equal(up, other);
}

/* The entry part of a subject (slapd's acl_mask_dn for what the
 * requester part left); tm: the submatches its patterns take. */
static int
subject_entry(struct acreV_check *c, const struct acreI_subject *sj,
              const acre_dn *op, const char *opnorm, size_t oplen,
              const struct acreV_matches *tm)
{
    char buf[ACREI_EXPAND_MAX + 1];
    uint64_t local[DN_LOCAL / 8];
    const char *s;

    if (subject_static(sj))
        return 1;
    if (sj->kind == ACREI_SUBJ_SELF)
        return subject_self(c, sj, op);
    if (sj->kind == ACREI_SUBJ_REGEX) {
        size_t sl;
        const char *sd = acreV_slapd_dn(c->rq, opnorm, oplen, &sl);
        if (!sd) {
            c->rq->limit_hit = 1; /* out of memory: deny */
            return 0;
        }
        s = expand(&acreI_pat(sj)->re_tmpl, tm, 0, buf);
        return s && acreV_regex_match_text(c->rq, s, sd, sl);
    }
    const acre_dn *pat = sj->dn;
    if (sj->is_expand) {
        s = expand(&acreI_pat(sj)->expand, tm, 1, buf);
        if (!s || !(pat = parse_dn(c->rq, local, s, strlen(s))))
            return 0;
    }
    return pat && subject_scope(sj, pat, op, opnorm, oplen);
}

/* Is the value checked, of type `type`, the DN whose normalised text is
 * ndn[0..n)?  A value taken as given (c->asis: slapacl's) of DN syntax is
 * compared byte for byte with slapd's text of that DN, as slapd's
 * value_match does with flags 0; else as normalised values. */
static int
check_val_is_dn(struct acreV_check *c, int type, const uint8_t *v, size_t vl,
                const char *ndn, size_t n)
{
    const struct acreS_attr *at = acreS_attr(c->rq->schema, type);

    if (c->asis && at->syntax && !strcmp(at->syntax, DN_SYNTAX)) {
        size_t sl;
        const char *sd = acreV_slapd_dn(c->rq, ndn, n, &sl);
        if (!sd) {
            c->rq->limit_hit = 1; /* out of memory: deny */
            return 0;
        }
        return sl == vl && memcmp(sd, v, vl) == 0;
    }
    return value_is_dn(c->rq->schema, type, v, vl, ndn, n);
}

/* "selfwrite" and kin: a value check of a DN (or NameUID) attribute
 * whose value is the requester. */
static int
self_access(struct acreV_check *c)
{
    struct acre_request *rq = c->rq;
    const struct acreS_attr *at = acreS_attr(rq->schema, c->type);

    size_t vl;
    const uint8_t *v;

    if (!at->syntax ||
        (strcmp(at->syntax, DN_SYNTAX) && strcmp(at->syntax, NAMEUID_SYNTAX)))
        return 0;
    if (!rq->authz || !(v = acreV_check_val(c, &vl)))
        return 0;
    return check_val_is_dn(c, c->type, v, vl, rq->authz_norm, rq->authz_len);
}

/* ------------------------------------------------------------------------
 * dnattr
 */

/* Is ndn a value of an attribute of e covered by desc (its type and
 * subtypes, with at least as many options: slapd counts only)? */
static int
entry_lists(const acre_schema *s, const acre_entry_view *e,
            const struct acreI_attrspec *desc, const char *ndn, size_t n)
{
    if (desc->type < 0)
        return 0;
    /* a type no other type descends from is met only by its own id */
    int sub = acreS_desc_of(s, desc->type)->has_sub;

    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        const struct acreS_dinfo *ai = acreS_desc_of(s, a->id);
        if ((ai->type == desc->type ||
             (sub && acreS_is_subtype(s, ai->type, desc->type))) &&
            ai->nopts >= desc->nopts && acreV_attr_lists(s, a, ndn, n))
            return 1;
    }
    return 0;
}

/* slapd's acl_mask_dnattr: with "self" only the value checked counts. */
static int
dnattr_matches(struct acreV_check *c, const struct acreI_subject *sj,
               const acre_dn *op, const char *opnorm, size_t oplen)
{
    const acre_schema *s = c->rq->schema;

    if (!op)
        return 0;
    if (!sj->self) {
        int listed = entry_lists(s, c->e, sj->dnattr, opnorm, oplen);
        note(c, "    dnattr=%s: requester %s\n", sj->dnattr->text,
             listed ? "listed" : "not listed");
        return listed;
    }
    size_t vl;
    const uint8_t *v = acreV_check_val(c, &vl);
    int ok = v && check_val_is_dn(c, sj->dnattr->type, v, vl, opnorm, oplen);
    note(c, "    dnattr=%s with self: the value %s the requester\n",
         sj->dnattr->text, ok ? "is" : "is not");
    return ok;
}

/* ------------------------------------------------------------------------
 * Connection
 */

/* Is the string match decided without submatches? */
static int
str_static(const struct acreI_strmatch *m)
{
    if (m->style == ACREI_STR_NONE || m->any)
        return 1;
    switch (m->style) {
    case ACREI_STR_REGEX:
        return m->re.code != NULL && !m->pat.expands;
    case ACREI_STR_EXPAND:
        return !m->pat.expands;
    default:
        return !m->expand || !m->pat.expands; /* domain ",expand" */
    }
}

/* peername.ip / .ipv6 against "IP=a.b.c.d:port" / "IP=[v6]:port". */
static int
peer_ip(const struct acreI_strmatch *m, const char *peer)
{
    int v6 = m->style == ACREI_STR_IPV6, port = -1;
    const char *pre = v6 ? "IP=[" : "IP=";
    char buf[64];

    if (strncasecmp(peer, pre, strlen(pre)))
        return 0;
    const char *ip = peer + strlen(pre);
    const char *p = strrchr(ip, v6 ? ']' : ':');
    size_t n = p ? (size_t)(p - ip) : strlen(ip);
    if (p && (!v6 || p[1] == ':')) {
        char *end;
        const char *ps = p + 1 + v6;
        long v = strtol(ps, &end, 10);
        if (end == ps || *end)
            return 0;
        port = (int)v;
    }
    if (m->port != -1 && port != m->port)
        return 0;
    if (n >= (v6 ? 40u : 16u))
        return 0;
    memcpy(buf, ip, n);
    buf[n] = '\0';
    uint8_t a[16];
    if (v6 && inet_pton(AF_INET6, buf, a) != 1)
        return 0;
    if (!v6) { /* slapd's "unable to convert" test never fires: all ones */
        in_addr_t x = inet_addr(buf);
        memcpy(a, &x, 4);
    }
    for (int i = 0; i < (v6 ? 16 : 4); i++)
        if ((a[i] & m->mask[i]) != m->addr[i])
            return 0;
    return 1;
}

/* $-expanded pattern compared case-insensitively. */
static int
str_expand_eq(const struct acreI_strmatch *m, const struct acreV_matches *mm,
              const char *have)
{
    char buf[ACREI_EXPAND_MAX + 1];
    const char *s = expand(&m->pat, mm, 1, buf);

    return s && !strcasecmp(s, have);
}

static int
peer_matches(const struct acreI_strmatch *m, const struct acreV_matches *mm,
             const char *peer)
{
    switch (m->style) {
    case ACREI_STR_EXACT:
        return !strcasecmp(m->pat.tmpl, peer);
    case ACREI_STR_EXPAND:
        return str_expand_eq(m, mm, peer);
    case ACREI_STR_IP:
    case ACREI_STR_IPV6:
        return peer_ip(m, peer);
    case ACREI_STR_PATH:
        return !strncmp(peer, "PATH=", 5) && !strcmp(peer + 5, m->pat.tmpl);
    default:
        return !strcmp(peer, m->pat.tmpl);
    }
}

static int
domain_matches(const struct acreI_strmatch *m, const struct acreV_matches *mm,
               const char *dom)
{
    char buf[ACREI_EXPAND_MAX + 1];
    const char *pat = m->pat.tmpl;

    if (m->expand && !(pat = expand(&m->pat, mm, 1, buf)))
        return 0;
    if (m->style == ACREI_STR_SUBTREE) {
        long off = (long)strlen(dom) - (long)strlen(pat);
        if (off < 0 || off == 1 || (off > 1 && dom[off - 1] != '.'))
            return 0;
        dom += off;
    }
    return !strcasecmp(pat, dom);
}

/* One connection string; `have` NULL when the connection lacks it; mm the
 * submatches (NULL at requester time, for a static match). */
static int
conn_matches(struct acre_request *rq, const struct acreI_strmatch *m,
             const struct acreV_matches *mm, const char *have, int which)
{
    if (m->style == ACREI_STR_NONE)
        return 1;
    if (!have)
        return 0;
    if (m->any)
        return 1;
    if (m->style == ACREI_STR_REGEX) {
        if (m->re.code && !m->pat.expands)
            return acreV_regex_match(rq, &m->re, have, strlen(have), NULL, 0);
        char buf[ACREI_EXPAND_MAX + 1];
        const char *pat = expand(&m->pat, mm, 1, buf);
        return pat && acreV_regex_match_text(rq, pat, have, strlen(have));
    }
    switch (which) {
    case 'p':
        return peer_matches(m, mm, have);
    case 'd':
        return domain_matches(m, mm, have);
    default:
        return m->style == ACREI_STR_EXPAND ? str_expand_eq(m, mm, have)
                                            : !strcasecmp(m->pat.tmpl, have);
    }
}

/* The connection parts of b that are (want_static 1) or are not (0)
 * decided without submatches. */
static int
connection(struct acre_request *rq, const struct acreI_clause *b,
           const struct acreV_matches *mm, int want_static)
{
    const struct acreI_clause_rare *x = acreI_rare(b);
    const struct acreI_strmatch *ms[4] = {&x->sockurl, &x->domain, &x->peername,
                                          &x->sockname};
    const char *have[4] = {rq->who.sockurl ? rq->who.sockurl : "",
                           rq->who.domain, rq->who.peername, rq->who.sockname};
    static const char which[4] = {'u', 'd', 'p', 's'};

    for (int i = 0; i < 4; i++)
        if (str_static(ms[i]) == want_static &&
            !conn_matches(rq, ms[i], want_static ? NULL : mm, have[i],
                          which[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Groups
 */

/* Does e have objectClass oc or a subclass of it? */
static int
has_class(const struct acre_request *rq, const acre_entry_view *e, int oc)
{
    const acre_view_attr *a = acreE_entry_attr(e, rq->p->id_objectclass);

    for (uint32_t i = 0; a && i < a->nvals; i++) {
        int id = acreS_class_find(rq->schema, (const char *)a->vals[i].val,
                                  a->vals[i].len);
        if (id >= 0 && acreS_class_is(rq->schema, id, oc))
            return 1;
    }
    return 0;
}

/* The requester against the base and scope of a memberURL. */
static int
url_scope(const struct acreE_url *u, const acre_dn *base, const acre_dn *op)
{
    if (u->scope == ACRE_SCOPE_BASE)
        return acre_dn_equal(op, base);
    return acre_dn_in_scope(op, base, u->scope) == 1;
}

/*
 * One memberURL value v: 1 member, 0 not, -1 slapd gives up.  The URL
 * and its filter are parsed in a context of their own, freed before
 * returning, so a group of many large URLs costs the memory of one.
 * user: the requester's entry (found at the first need).
 */
static int
member_url(struct acreV_check *c, const acre_value *v, uint64_t *local,
           const acre_entry_view **user)
{
    struct acre_request *rq = c->rq;
    struct acreE_url u;
    const acre_dn *base;
    struct acreF_filter *f;
    void *tmp = talloc_new(rq->scratch);
    int r = 0;

    if (!tmp) {
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return -1;
    }
    if (acreE_url_parse(tmp, (const char *)v->val, v->len, &u) || u.host[0] ||
        u.nattrs || u.nexts)
        goto out;
    if (!(base = parse_dn(rq, local, u.dn, strlen(u.dn))) ||
        !url_scope(&u, base, rq->authz))
        goto out;
    if (!u.filter || !u.filter[0])
        goto out; /* slapd 2.5 never matches a URL without a filter */
    r = -1;
    if (acreF_parse(tmp, rq->schema, u.filter, strlen(u.filter), &f, NULL))
        goto out;
    if (!*user)
        *user = acreV_authz_entry(rq);
    if (*user) {
        struct acreF_hooks h = acreV_filter_hooks(rq, NULL, NULL);
        r = acreV_filter_eval(rq, f, *user, &h) == ACREF_TRUE;
    }
out:
    talloc_free(tmp);
    return r;
}

/*
 * A dynamic group: the first memberURL that decides.  Bounded: at most
 * ACREV_GROUP_MAX_URL_BYTES of URL text is read for one group (a larger
 * group denies the check: ACRE_ERR_EVAL_LIMIT).
 */
static int
dynamic_member(struct acreV_check *c, const acre_view_attr *a)
{
    const acre_entry_view *user = NULL;
    uint64_t local[DN_LOCAL / 8]; /* each URL's base, in turn */
    size_t bytes = 0;

    if (c->e && acre_dn_equal(c->e->dn, c->rq->authz))
        user = c->e;
    for (uint32_t i = 0; i < a->nvals; i++) {
        if ((bytes += a->vals[i].len) > ACREV_GROUP_MAX_URL_BYTES) {
            acreV_fail(c->rq, ACRE_ERR_EVAL_LIMIT);
            return 0;
        }
        int r = member_url(c, &a->vals[i], local, &user);
        if (c->rq->limit_hit)
            return 0;
        if (r)
            return r > 0;
    }
    return 0;
}

/* Membership in group entry ge (may be the entry checked) by g's
 * attribute: its static values, or its memberURLs. */
static int
member_of(struct acreV_check *c, const struct acreI_group *g,
          const acre_entry_view *ge)
{
    struct acre_request *rq = c->rq;
    const acre_view_attr *a = acreV_find_desc(rq->schema, ge, &g->at);

    if (!a)
        return 0;
    return g->dynamic
               ? dynamic_member(c, a)
               : acreV_attr_lists(rq->schema, a, rq->authz_norm, rq->authz_len);
}

/* The membership of fixed group g (not the entry checked): remembered
 * in the request and, while the host's data stays the same, in the
 * requester's spec (acreV_group_memo); else looked up through the host. */
static int
fixed_group(struct acreV_check *c, const struct acreI_group *g,
            const acre_dn *gdn)
{
    struct acre_request *rq = c->rq;
    const acre_entry_view *ge;
    int member = 0;

    for (unsigned i = 0; i < rq->ngroups; i++)
        if (rq->groups[i].g == g)
            return rq->groups[i].member;
    if (acreV_group_memo_get(rq, g, &member))
        goto keep;
    if (acreV_host_get(rq, gdn, &ge) == 1) {
        if (has_class(rq, ge, g->oc))
            member = member_of(c, g, ge);
        acreV_host_release(rq, ge);
    }
    if (rq->limit_hit)
        return 0; /* not an answer: never remembered */
    acreV_group_memo_put(rq, g, member);
keep:
    if (rq->ngroups < ACREV_GROUP_MEMO) {
        rq->groups[rq->ngroups].g = g;
        rq->groups[rq->ngroups++].member = member;
    }
    return member;
}

/* acreV_limits_group -- see eval.h. */
int
acreV_limits_group(struct acre_request *rq, const struct acreI_group *g)
{
    struct acreV_check c = {.rq = rq, .val_skip = -1};

    return rq->authz && g->dn ? fixed_group(&c, g, g->dn) : 0;
}

/* slapd's backend_group(): is the requester a member of g? */
static int
group_matches(struct acreV_check *c, const struct acreI_group *g,
              const struct acreV_matches *tm)
{
    struct acre_request *rq = c->rq;
    const acre_entry_view *ge;
    const acre_dn *gdn = g->dn;
    char buf[ACREI_EXPAND_MAX + 1];
    uint64_t local[DN_LOCAL / 8];
    int member = 0;

    if (!rq->authz)
        return 0;
    if (g->expand) {
        const char *s = expand(&g->tmpl, tm, 1, buf);
        if (!s || !(gdn = parse_dn(rq, local, s, strlen(s))))
            return 0;
    }
    if (!gdn)
        return 0;
    if (acre_dn_equal(gdn, c->e->dn)) /* slapd reads it, no class check */
        return member_of(c, g, c->e);
    if (!g->expand) /* the answer does not depend on the entry */
        return fixed_group(c, g, gdn);
    if (acreV_host_get(rq, gdn, &ge) == 1) {
        if (has_class(rq, ge, g->oc))
            member = member_of(c, g, ge);
        acreV_host_release(rq, ge);
    }
    return member;
}

/* ------------------------------------------------------------------------
 * The clause
 */

static int
ssf_ok(const struct acreI_clause *b, const acre_subject *who)
{
    const struct acreI_clause_rare *x = acreI_rare(b);

    return (!b->ssf || b->ssf <= who->ssf) &&
           (!x->transport_ssf || x->transport_ssf <= who->transport_ssf) &&
           (!x->tls_ssf || x->tls_ssf <= who->tls_ssf) &&
           (!x->sasl_ssf || x->sasl_ssf <= who->sasl_ssf);
}

/* The flags one subject contributes. */
static uint8_t
subject_flags(const struct acreI_subject *sj)
{
    uint8_t f = 0;

    if (sj->kind != ACREI_SUBJ_NONE && sj->kind != ACREI_SUBJ_ANY)
        f |= ACREP_C_REQ;
    if (!subject_static(sj))
        f |= ACREP_C_ENTRY;
    if (sj->kind == ACREI_SUBJ_REGEX && acreI_pat(sj)->re_tmpl.expands)
        f |= ACREP_C_MATCHES; /* the value is hidden from this one */
    if (sj->kind != ACREI_SUBJ_REGEX && sj->is_expand) {
        f |= acreI_pat(sj)->expand.expands ? ACREP_C_MATCHES : 0;
        f |= uses_value(&acreI_pat(sj)->expand) ? ACREP_C_VALDEP : 0;
    }
    if (sj->dnattr) /* needs a DN; reads the entry (self: the value) */
        f |= ACREP_C_REQ | ACREP_C_ENTRY | (sj->self ? ACREP_C_VALDEP : 0);
    if (sj->self)
        f |= ACREP_C_VALDEP;
    return f;
}

/* The flags one connection string contributes. */
static uint8_t
str_flags(const struct acreI_strmatch *m)
{
    if (m->style == ACREI_STR_NONE)
        return 0;
    if (str_static(m))
        return ACREP_C_REQ;
    return ACREP_C_ENTRY | (m->pat.expands ? ACREP_C_MATCHES : 0) |
           (uses_value(&m->pat) ? ACREP_C_VALDEP : 0);
}

uint8_t
acreV_clause_flags(const struct acreI_clause *b)
{
    const struct acreI_clause_rare *x = acreI_rare(b);
    uint8_t f = subject_flags(&b->dn) | subject_flags(&x->realdn);

    if (b->dn.self) /* self access: a value of the requester's DN */
        f |= ACREP_C_REQ | ACREP_C_ENTRY | ACREP_C_VALDEP;
    f |= str_flags(&x->sockurl) | str_flags(&x->domain) |
         str_flags(&x->peername) | str_flags(&x->sockname);
    if (acreI_group(b)) {
        const struct acreI_group *g = acreI_group(b);
        f |= ACREP_C_REQ | ACREP_C_ENTRY;
        if (g->expand)
            f |= (g->tmpl.expands ? ACREP_C_MATCHES : 0) |
                 (uses_value(&g->tmpl) ? ACREP_C_VALDEP : 0);
    }
    if (acreI_set(b)) {
        const struct acreI_set *s = acreI_set(b);
        if (s->invalid || (!s->expand && !s->root))
            f |= ACREP_C_REQ; /* never holds */
        else
            f |= ACREP_C_ENTRY |
                 (s->expand && s->text.expands ? ACREP_C_MATCHES : 0) |
                 (s->expand && uses_value(&s->text) ? ACREP_C_VALDEP : 0);
    }
    if (b->ssf || x->transport_ssf || x->tls_ssf || x->sasl_ssf)
        f |= ACREP_C_REQ;
    return f;
}

int
acreV_clause_requester(struct acre_request *rq, const struct acreI_clause *b,
                       uint8_t flags)
{
    const char *zn = rq->authz_norm ? rq->authz_norm : "";
    const char *cn = rq->authc_norm ? rq->authc_norm : "";
    const struct acreI_subject *real = &acreI_rare(b)->realdn;

    (void)flags;
    if (b->dn.self && !rq->authz)
        return 0;
    if (!subject_requester(rq, &b->dn, rq->authz, zn, rq->authz_len) ||
        !subject_requester(rq, real, rq->authc, cn, rq->authc_len))
        return 0;
    if (!connection(rq, b, NULL, 1))
        return 0;
    if ((b->dn.dnattr && !rq->authz) || (real->dnattr && !rq->authc))
        return 0;
    if (acreI_group(b) && !rq->authz)
        return 0;
    if (acreI_set(b) && (acreI_set(b)->invalid ||
                         (!acreI_set(b)->expand && !acreI_set(b)->root)))
        return 0;
    return ssf_ok(b, &rq->who);
}

int
acreV_clause_entry(struct acreV_check *c, const struct acreI_clause *b,
                   uint8_t flags, const struct acreV_matches *m,
                   const struct acreV_matches *tm)
{
    struct acre_request *rq = c->rq;
    const char *zn = rq->authz_norm ? rq->authz_norm : "";
    const char *cn = rq->authc_norm ? rq->authc_norm : "";
    /* NULL: no realdn and no connection part (acreI_no_rare, all of
     * whose conditions hold), so neither is looked at */
    const struct acreI_clause_rare *x = b->ext ? b->ext->rare : NULL;

    (void)flags;
    if (b->dn.self && !self_access(c)) {
        note(c, "    self: the value is not the requester's DN\n");
        return 0;
    }
    if (!subject_entry(c, &b->dn, rq->authz, zn, rq->authz_len, tm) ||
        (x &&
         !subject_entry(c, &x->realdn, rq->authc, cn, rq->authc_len, tm))) {
        note(c, "    the requester's DN does not match\n");
        return 0;
    }
    if (x && !connection(rq, b, m, 0)) {
        note(c, "    the connection does not match\n");
        return 0;
    }
    if (b->dn.dnattr &&
        !dnattr_matches(c, &b->dn, rq->authz, zn, rq->authz_len))
        return 0;
    if (x && x->realdn.dnattr &&
        !dnattr_matches(c, &x->realdn, rq->authc, cn, rq->authc_len))
        return 0;
    if (acreI_group(b)) {
        int ok = group_matches(c, acreI_group(b), tm);
        note(c, "    group: the requester is %sa member\n", ok ? "" : "not ");
        if (!ok)
            return 0;
    }
    if (acreI_set(b) && !acreV_set_matches(c, acreI_set(b), tm))
        return 0;
    return 1;
}
