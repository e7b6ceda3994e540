/*
 * eval.c -- deciding checks from the compiled tables: slapd 2.5's
 * access_allowed (acl.c) over one index node's table instead of every
 * rule, with the requester's clause states from its spec.
 *
 * One check (entry, attribute, value, privilege):
 *   1. the deepest index node on the entry's ancestry (acreP_node_for);
 *   2. the requester is its section's rootdn: manage, granted;
 *   3. a write-level check of a no-user-modification attribute other
 *      than entry and children: granted, mask none;
 *   4. no rule applies anywhere (the node says so): the default read;
 *   5. the node's table in order: a rule whose target covers the check
 *      (depth window or regex, attribute list, value, filter) scans its
 *      clauses -- a clause false for this requester is skipped without a
 *      look, a true one applies, a residual one has its entry part
 *      evaluated; "break" goes on, running out of rules denies;
 *   6. granted iff the mask holds every bit of the privilege.
 *
 * The per-entry verdict runs the "entry" check, then one check per value
 * -- or only the first value's when that walk never looked at the value
 * (no value condition tested, no value-dependent clause evaluated): every
 * other value then takes the same walk.  Filters of targets are evaluated
 * once per entry.
 */
#include "eval.h"
#include "internal.h"
#include "match.h"
#include "schema.h"

#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Trace (explain)
 */

static void trace_put(struct acreV_check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Only explain pays for the formatting. */
#define trace(c, ...)                    \
    do {                                 \
        if ((c)->trace)                  \
            trace_put((c), __VA_ARGS__); \
    } while (0)

static void
trace_put(struct acreV_check *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->trace || !*c->trace)
        return;
    va_start(ap, fmt);
    *c->trace = talloc_vasprintf_append_buffer(*c->trace, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * Targets
 */

/* Every wanted option is among the attribute's ("lang-" ranges too). */
static int
opts_cover(const struct acreV_check *c, const struct acreI_attrspec *a)
{
    for (unsigned i = 0; i < a->nopts; i++) {
        size_t wl = strlen(a->opts[i]);
        int found = 0;
        for (unsigned j = 0; j < c->nopts && !found; j++) {
            size_t hl = c->opt_len[j];
            found = (hl == wl && !strncasecmp(c->opts[j], a->opts[i], wl)) ||
                    (wl > 0 && a->opts[i][wl - 1] == '-' && hl > wl &&
                     !strncasecmp(c->opts[j], a->opts[i], wl));
        }
        if (!found)
            return 0;
    }
    return 1;
}

static int
opts_equal(const struct acreV_check *c, const struct acreI_attrspec *a)
{
    if (c->nopts != a->nopts)
        return 0;
    for (unsigned i = 0; i < a->nopts; i++)
        if (strlen(a->opts[i]) != c->opt_len[i] ||
            strncasecmp(c->opts[i], a->opts[i], c->opt_len[i]))
            return 0;
    return 1;
}

/* slapd's ad_inlist for a description with options (the bitmap answers
 * those without). */
static int
attr_in_list(const struct acreV_check *c, const struct acreI_what *w)
{
    const acre_schema *s = c->rq->schema;

    for (unsigned i = 0; i < w->nattrs; i++) {
        const struct acreI_attrspec *a = &w->attrs[i];
        switch (a->kind) {
        case ACREI_ATTR_EXACT:
            if (c->type == a->type && opts_equal(c, a))
                return 1;
            break;
        case ACREI_ATTR_TYPE:
            if (c->type == a->type && opts_equal(c, a))
                return 1;
            if (acreS_is_subtype(s, c->type, a->type) && opts_cover(c, a))
                return 1;
            break;
        case ACREI_ATTR_CLASS:
            if (a->extensible || acreS_class_allows(s, a->oc, c->type))
                return 1;
            break;
        case ACREI_ATTR_NOT_CLASS:
            return !a->extensible && !acreS_class_allows(s, a->oc, c->type);
        }
    }
    return 0;
}

/* The value parsed as a DN (slapd's strict dnNormalize), in scratch. */
static const acre_dn *
value_dn(struct acreV_check *c)
{
    size_t i = 0, n = c->val_len;
    const char *s = (const char *)c->val;
    acre_dn *dn;

    while (i < n && s[i] == ' ')
        i++;
    if (n > 0 && i == n)
        return NULL;
    void *buf = talloc_size(c->rq->scratch, ACRE_DN_BUF_MAX);
    if (!buf || acre_dn_parse_buf(buf, ACRE_DN_BUF_MAX, c->rq->schema, s, n,
                                  ACRE_DN_STRICT, &dn, NULL))
        return NULL;
    return dn;
}

static int
val_dn_scope(struct acreV_check *c, const struct acreI_val *v)
{
    const acre_dn *dn = value_dn(c);
    unsigned pd = acre_dn_depth(v->dn);

    if (!dn)
        return 0;
    switch (v->style) {
    case ACREI_VAL_ONE:
        return pd > 0 && acre_dn_in_scope(dn, v->dn, ACRE_SCOPE_ONE) == 1;
    case ACREI_VAL_SUBTREE:
        return pd == 0 ? acre_dn_depth(dn) == 0
                       : acre_dn_in_scope(dn, v->dn, ACRE_SCOPE_SUB) == 1;
    case ACREI_VAL_CHILDREN:
        return pd > 0 && acre_dn_in_scope(dn, v->dn, ACRE_SCOPE_CHILDREN) == 1;
    default:
        return 0;
    }
}

/* The value NUL-terminated (as slapd's berval), made once per check. */
static const char *
val_str(struct acreV_check *c)
{
    if (!c->val_str && c->val) {
        char *s = talloc_size(c->rq->scratch, c->val_len + 1);
        if (s) {
            memcpy(s, c->val, c->val_len);
            s[c->val_len] = '\0';
        }
        c->val_str = s;
    }
    return c->val_str;
}

static int
what_val(struct acreV_check *c, const struct acreI_val *v,
         struct acreV_matches *m)
{
    if (!c->val)
        return 0;
    if (v->style == ACREI_VAL_REGEX) {
        const char *s = val_str(c);
        /* slapd's regexec stops at a NUL byte */
        return s && acreV_regex_match(c->rq, &v->re, s, strlen(s), m->val,
                                      ACREI_MAX_MATCHES);
    }
    if (v->style == ACREI_VAL_EXACT)
        return c->val_len == v->norm_len &&
               memcmp(c->val, v->norm, v->norm_len) == 0;
    return val_dn_scope(c, v);
}

static int
what_filter(struct acreV_check *c, const struct acreP_rule *r)
{
    struct acre_request *rq = c->rq;
    uint32_t slot = (uint32_t)r->filter_slot;

    if (rq->filter_epoch[slot] != rq->epoch) {
        rq->filter_epoch[slot] = rq->epoch;
        rq->filter_state[slot] =
            acreF_eval(r->ir->what.filter, c->e, NULL, NULL) == ACREF_TRUE ? 1
                                                                           : 2;
    }
    return rq->filter_state[slot] == 1;
}

static void
matches_reset(struct acreV_matches *m, const struct acreV_check *c)
{
    m->dn_src = c->endn;
    m->dn_count = ACREI_MAX_MATCHES;
    m->val_src = c->val_str;
    m->val_count = ACREI_MAX_MATCHES;
    for (int i = 0; i < ACREI_MAX_MATCHES; i++)
        m->dn[i][0] = m->dn[i][1] = m->val[i][0] = m->val[i][1] = -1;
}

/* The submatches a non-regex target gives its clauses: $0 the entry's
 * DN, $1 the part matching the pattern for one / subtree / children. */
static void
style_matches(const struct acreV_check *c, const struct acreI_what *w,
              struct acreV_matches *tm)
{
    int len = (int)c->endn_len;

    memset(tm, 0, sizeof(*tm));
    tm->dn_src = c->endn;
    tm->val_src = c->val_str;
    tm->val_count = ACREI_MAX_MATCHES;
    tm->dn[0][1] = len;
    tm->dn_count = 1;
    if (w->dn_style == ACREI_DN_ONE || w->dn_style == ACREI_DN_SUBTREE ||
        w->dn_style == ACREI_DN_CHILDREN) {
        size_t pl = 0;
        acre_dn_normalised(w->dn, &pl);
        tm->dn[1][0] = len - (int)pl;
        tm->dn[1][1] = len;
        tm->dn_count = 2;
    }
}

/* Does rule r's target cover check c (depth window already passed)?  With
 * want_m, m receives the regex submatches. */
static int
what_matches(struct acreV_check *c, const struct acreP_rule *r,
             struct acreV_matches *m, int want_m)
{
    const struct acreI_what *w = &r->ir->what;

    if (r->scope == ACREP_SCOPE_NEVER)
        return 0;
    if (r->flags & ACREP_R_ATTRS) {
        if (c->nopts ? !attr_in_list(c, w)
                     : !(r->attr_in[(unsigned)c->type >> 6] >>
                             ((unsigned)c->type & 63) &
                         1))
            return 0;
    }
    /* from here on the outcome depends on the entry itself */
    if (r->flags & (ACREP_R_VAL | ACREP_R_FILTER) ||
        r->scope == ACREP_SCOPE_REGEX)
        c->entrydep = 1;
    if (want_m) {
        if (c->val)
            val_str(c);
        matches_reset(m, c);
    }
    if (r->scope == ACREP_SCOPE_REGEX &&
        !acreV_regex_match(c->rq, &w->dn_re, c->endn, c->endn_len,
                           want_m ? m->dn : NULL,
                           want_m ? ACREI_MAX_MATCHES : 0))
        return 0;
    if (r->flags & ACREP_R_VAL) {
        c->valdep = 1;
        if (!what_val(c, &w->val, m))
            return 0;
    }
    if ((r->flags & ACREP_R_FILTER) && !what_filter(c, r))
        return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Clauses
 */

static uint8_t
clause_state(struct acre_request *rq, uint32_t ci)
{
    uint8_t *slot = &rq->spec->state[ci];
    uint8_t st = __atomic_load_n(slot, __ATOMIC_RELAXED);

    if (st == ACREV_UNKNOWN) {
        const struct acreP_clause *cl = &rq->p->clauses[ci];
        int hit = rq->limit_hit;
        rq->limit_hit = 0;
        if (!acreV_clause_requester(rq, cl->ir, cl->flags))
            st = ACREV_FALSE;
        else
            st = cl->flags & ACREP_C_ENTRY ? ACREV_RESIDUAL : ACREV_TRUE;
        if (rq->limit_hit) /* not an answer: never cached; the check
                              denies */
            return ACREV_FALSE;
        rq->limit_hit = hit;
        __atomic_store_n(slot, st, __ATOMIC_RELAXED);
    }
    return st;
}

/* slapd's slap_acl_mask over rule r's clauses. */
static enum acreI_control
clauses(struct acreV_check *c, const struct acreP_rule *r,
        struct acreV_matches *m, uint32_t *mask)
{
    struct acre_request *rq = c->rq;
    struct acreV_matches tm;
    int have_tm = 0;

    for (uint32_t k = 0; k < r->nclauses; k++) {
        uint32_t ci = r->clause0 + k;
        const struct acreP_clause *cl = &rq->p->clauses[ci];
        uint8_t st = clause_state(rq, ci);
        if (st == ACREV_FALSE) {
            trace(c, "  by #%u: not for this requester\n", k + 1);
            continue;
        }
        if (st == ACREV_RESIDUAL) {
            if (!have_tm && (cl->flags & (ACREP_C_MATCHES | ACREP_C_VALDEP))) {
                if (c->val)
                    val_str(c);
                if (r->scope == ACREP_SCOPE_REGEX ||
                    r->ir->what.val.style == ACREI_VAL_REGEX) {
                    m->val_src = c->val_str;
                    tm = *m;
                } else {
                    style_matches(c, &r->ir->what, &tm);
                }
                have_tm = 1;
            }
            if (cl->flags & ACREP_C_VALDEP)
                c->valdep = 1;
            /* "self" alone is in the memo's key; a fixed group depends on
             * the entry only when it is the group */
            if (!(cl->flags & ACREP_C_SELFONLY) &&
                !((cl->flags & ACREP_C_GROUPONLY) &&
                  !acre_dn_equal(cl->ir->group->dn, c->e->dn)))
                c->entrydep = 1;
            if (!acreV_clause_entry(c, cl->ir, cl->flags, m,
                                    have_tm ? &tm : m)) {
                trace(c, "  by #%u: does not apply to this entry\n", k + 1);
                continue;
            }
        }
        *mask = acreI_mask_apply(*mask, cl->ir->mask);
        if (c->trace) {
            char buf[ACREI_MASK_BUF];
            trace(c, "  by #%u applies: mask %s%s\n", k + 1,
                  acreI_mask_format(*mask, buf),
                  cl->ir->control == ACREI_CONTINUE ? ", continue"
                  : cl->ir->control == ACREI_BREAK  ? ", break"
                                                    : "");
        }
        if (cl->ir->control == ACREI_CONTINUE)
            continue;
        return cl->ir->control;
    }
    *mask = ACREI_PRIV_NONE; /* the implicit "by * none" */
    trace(c, "  implicit by * none\n");
    return ACREI_STOP;
}

/* ------------------------------------------------------------------------
 * The decision
 */

void
acreV_check_init(struct acreV_check *c, struct acre_request *rq,
                 const struct acreE_entry *e, int type,
                 const struct acreE_attr *a, const uint8_t *val, size_t len)
{
    c->rq = rq;
    c->e = e;
    c->endn = acre_dn_normalised(e->dn, &c->endn_len);
    c->type = type;
    c->nopts = a ? a->nopts : 0;
    c->opts = a ? a->opts : NULL;
    c->opt_len = a ? a->opt_len : NULL;
    c->val = val;
    c->val_len = len;
    c->val_str = NULL;
    c->trace = NULL;
    c->is_self = rq->authz && acre_dn_equal(e->dn, rq->authz);
    c->key_base = (uint64_t)acre_dn_depth(e->dn) << 24 | (uint64_t)c->is_self
                                                             << 4;
    rq->epoch++;
    if (rq->epoch == 0) { /* wrapped: forget every cached filter */
        memset(rq->filter_epoch, 0, sizeof(uint32_t) * rq->p->nfilters);
        rq->epoch = 1;
    }
}

static int
is_write(enum acreI_access want)
{
    return want == ACREI_ACCESS_WADD || want == ACREI_ACCESS_WDEL ||
           want == ACREI_ACCESS_WRITE;
}

static int
decide(struct acreV_check *c, const struct acreP_node *n,
       enum acreI_access want, uint32_t *mask)
{
    struct acre_request *rq = c->rq;
    const struct acre_policy *p = rq->p;
    uint32_t priv = acreI_access_priv(want);
    unsigned depth = acre_dn_depth(c->e->dn);
    struct acreV_matches m;

    *mask = ACREI_PRIV_NONE;
    talloc_free_children(rq->scratch); /* the previous check's */
    c->val_str = NULL;
    rq->limit_hit = 0;
    c->valdep = 0;
    c->entrydep = 0;
    if (n->section && rq->is_root[n->section - p->ir->dbs]) {
        trace(c, "requester is the rootdn of database %s\n", n->section->type);
        *mask = ACREI_LVL_MANAGE;
        return 1;
    }
    if (is_write(want) && c->type != p->id_entry && c->type != p->id_children &&
        (acreS_attr(p->schema, c->type)->flags & ACRES_NO_USER_MOD)) {
        trace(c, "no-user-modification attribute: write granted\n");
        return 1;
    }
    if (n->default_read) {
        trace(c, "no rules: the default read access\n");
        *mask = ACREI_LVL_READ;
        return (ACREI_LVL_READ & priv) == priv;
    }
    const struct acreP_slot *t = n->table, *te = t + n->ntable;
    const struct acreP_slot *u = n->residual->table;
    const struct acreP_slot *ue = u + n->residual->ntable;
    while (t < te || u < ue) { /* the two tables merged by rule number */
        const struct acreP_slot *sl =
            u == ue || (t < te && t->rule < u->rule) ? t++ : u++;
        if (depth < sl->lo || depth > sl->hi)
            continue;
        const struct acreP_rule *r = &p->rules[sl->rule];
        int want_m = (r->flags & ACREP_R_MATCHES) != 0;
        if (!what_matches(c, r, &m, want_m)) {
            if (rq->limit_hit) {
                trace(c, "rule %u: evaluation limit reached: denied\n",
                      sl->rule);
                *mask = ACREI_PRIV_NONE;
                return 0;
            }
            continue;
        }
        if (!want_m) { /* nothing substitutes: no submatches needed */
            m.dn_src = c->endn;
            m.dn_count = 0;
            m.val_src = NULL;
            m.val_count = 0;
        }
        trace(c, "rule %u (%s#%u, line %u) matches\n", sl->rule,
              r->section ? r->section->type : "frontend", r->ir->index,
              r->ir->pos.line);
        enum acreI_control ctl = clauses(c, r, &m, mask);
        if (rq->limit_hit) {
            trace(c, "evaluation limit reached: denied\n");
            *mask = ACREI_PRIV_NONE;
            return 0;
        }
        if (ctl != ACREI_BREAK)
            return (*mask & priv) == priv;
    }
    trace(c, "no more rules: denied\n");
    return 0;
}

/*
 * decide, remembering what depended only on the node and the depth: the
 * next entry of the same shape (most entries, for most attributes) is
 * answered by one probe.  Descriptions with options and explain runs go
 * the long way.
 */
static int
decide_memo(struct acreV_check *c, const struct acreP_node *n,
            enum acreI_access want, uint32_t *mask)
{
    struct acre_request *rq = c->rq;

    if (c->nopts || c->trace)
        return decide(c, n, want, mask);
    uint64_t key = (c->key_base | (uint64_t)(n - rq->p->nodes) << 32 |
                    (uint64_t)(uint32_t)c->type << 5 | (uint64_t)want) +
                   1;
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    unsigned slot = (unsigned)(h >> 54) & (ACREV_MEMO - 1);
    struct acreV_memo *m = &rq->memo[slot];
    uint64_t bit = (uint64_t)1 << (slot & 63);
    if ((rq->memo_valid[slot >> 6] & bit) && m->key == key) {
        c->valdep = c->entrydep = 0;
        *mask = m->mask;
        return m->granted;
    }
    int g = decide(c, n, want, mask);
    if (!c->entrydep && !rq->limit_hit) {
        rq->memo_valid[slot >> 6] |= bit;
        m->key = key;
        m->mask = *mask;
        m->granted = g;
    }
    return g;
}

int
acreV_decide(struct acreV_check *c, enum acreI_access want, uint32_t *mask)
{
    uint32_t m = 0;
    int granted = 0;

    if (acreI_access_priv(want)) {
        const struct acreP_node *n = acreP_node_for(c->rq->p, c->e->dn);
        trace(c, "index node \"%.*s\" (%u rules in its table)\n",
              (int)n->ndn_len, n->ndn, n->ntable);
        c->val_str = NULL;
        granted = decide_memo(c, n, want, &m);
    }
    if (mask)
        *mask = m;
    return granted;
}

/* ------------------------------------------------------------------------
 * Public checks
 */

/* Sort options case-insensitively (slapd compares them in order). */
static void
sort_opts(const char **o, uint32_t *l, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0; j--) {
            size_t m = l[j] < l[j - 1] ? l[j] : l[j - 1];
            int c = strncasecmp(o[j], o[j - 1], m);
            if (c > 0 || (c == 0 && l[j] >= l[j - 1]))
                break;
            const char *t = o[j];
            o[j] = o[j - 1];
            o[j - 1] = t;
            uint32_t u = l[j];
            l[j] = l[j - 1];
            l[j - 1] = u;
        }
}

static int
valid(const acre_request *rq, const acre_entry *e, int right)
{
    return rq && e && right >= ACRE_RIGHT_DISCLOSE &&
           right <= ACRE_RIGHT_MANAGE;
}

/* The shared part of acre_access and acre_explain. */
static int
access_check(acre_request *rq, const acre_entry *e, const char *attr,
             const void *val, size_t val_len, int right, uint32_t *mask,
             char **tr)
{
    struct acreS_desc d;
    const char *opts[ACRES_MAX_OPTIONS];
    uint32_t opt_len[ACRES_MAX_OPTIONS];
    struct acreE_attr a;
    uint8_t local[512];
    struct acreE_buf b;
    struct acreV_check c;
    int granted;

    if (mask)
        *mask = 0;
    if (!valid(rq, e, right) || !attr)
        return ACRE_ERR_INVAL;
    if (acreS_desc_parse(rq->schema, attr, strlen(attr), &d) || d.type < 0)
        return ACRE_ERR_INVAL;
    memset(&a, 0, sizeof(a));
    for (unsigned i = 0; i < d.nopts; i++) {
        opts[i] = d.opts[i];
        opt_len[i] = d.opt_len[i];
    }
    sort_opts(opts, opt_len, d.nopts);
    a.nopts = d.nopts;
    a.opts = opts;
    a.opt_len = opt_len;
    acreE_buf_init(&b, local, sizeof(local));
    const uint8_t *v = val;
    size_t vl = val_len;
    if (val) {
        int eq = acreS_attr(rq->schema, d.type)->eq;
        if (eq != ACREM_NONE &&
            acreM_normalise(rq->schema, eq, val, val_len, &b) == 0) {
            v = b.p;
            vl = b.len;
        }
    }
    acreV_check_init(&c, rq, (const struct acreE_entry *)e, d.type, &a, v, vl);
    c.trace = tr;
    granted = acreV_decide(&c, (enum acreI_access)right, mask);
    acreE_buf_free(&b);
    if (!granted && rq->limit_hit)
        return ACRE_ERR_EVAL_LIMIT;
    return granted;
}

ACRE_PUBLIC int
acre_access(acre_request *rq, const acre_entry *e, const char *attr,
            const void *val, size_t val_len, int right, uint32_t *mask)
{
    return access_check(rq, e, attr, val, val_len, right, mask, NULL);
}

ACRE_PUBLIC char *
acre_explain(acre_request *rq, const acre_entry *e, const char *attr,
             const void *val, size_t val_len, int right, int *granted)
{
    char *t, *res;
    uint32_t mask = 0;
    char buf[ACREI_MASK_BUF];

    if (!rq || !(t = talloc_strdup(rq->mem, "")))
        return NULL;
    int g = access_check(rq, e, attr, val, val_len, right, &mask, &t);
    if (t)
        t = talloc_asprintf_append_buffer(t, "%s (mask %s)\n",
                                          g == 1   ? "granted"
                                          : g == 0 ? "denied"
                                                   : acre_strerror(g),
                                          acreI_mask_format(mask, buf));
    if (granted)
        *granted = g == 1;
    res = t ? strdup(t) : NULL;
    talloc_free(t);
    return res;
}

ACRE_PUBLIC char *
acre_mask_format(uint32_t mask, char *buf)
{
    return acreI_mask_format(mask, buf);
}

/* ------------------------------------------------------------------------
 * Per-entry verdicts
 */

static int
verdict_room(struct acre_request *rq, size_t nattrs, size_t nvals)
{
    if (nattrs > rq->v_attr_cap) {
        size_t cap = nattrs < 32 ? 32 : nattrs * 2;
        uint8_t *a = talloc_realloc(rq->mem, rq->v_attr, uint8_t, cap);
        uint32_t *f =
            a ? talloc_realloc(rq->mem, rq->v_first, uint32_t, cap) : NULL;
        if (a)
            rq->v_attr = a;
        if (!f)
            return ACRE_ERR_NOMEM;
        rq->v_first = f;
        rq->v_attr_cap = cap;
    }
    if (nvals > rq->v_value_cap) {
        size_t cap = nvals < 128 ? 128 : nvals * 2;
        uint8_t *v = talloc_realloc(rq->mem, rq->v_value, uint8_t, cap);
        if (!v)
            return ACRE_ERR_NOMEM;
        rq->v_value = v;
        rq->v_value_cap = cap;
    }
    return 0;
}

static const uint8_t *
norm_of(const struct acreE_value *v, size_t *len)
{
    *len = v->norm ? v->nlen : v->len;
    return v->norm ? v->norm : v->val;
}

int
acreV_entry_verdict(struct acre_request *rq, const struct acreE_entry *e,
                    enum acreI_access want,
                    int (*select)(void *arg, const struct acreE_attr *a),
                    void *arg, acre_verdict *out)
{
    size_t nvals = 0;
    struct acreV_check c;
    uint32_t mask;

    for (uint32_t i = 0; i < e->nattrs; i++)
        nvals += e->attrs[i].nvals;
    if (verdict_room(rq, e->nattrs, nvals))
        return ACRE_ERR_NOMEM;
    out->visible = 0;
    out->nattrs = e->nattrs;
    out->attr = rq->v_attr;
    out->value = rq->v_value;
    out->first = rq->v_first;
    memset(rq->v_attr, ACRE_ATTR_NONE, e->nattrs);
    memset(rq->v_value, 0, nvals);
    for (uint32_t i = 0, f = 0; i < e->nattrs; i++) {
        rq->v_first[i] = f;
        f += e->attrs[i].nvals;
    }
    /* one epoch for the whole entry: its filters are evaluated once */
    acreV_check_init(&c, rq, e, rq->p->id_entry, NULL, NULL, 0);
    const struct acreP_node *n = acreP_node_for(rq->p, e->dn);
    out->visible = decide_memo(&c, n, want, &mask);
    if (!out->visible)
        return 0;
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const struct acreE_attr *a = &e->attrs[i];
        uint8_t *vv = rq->v_value + rq->v_first[i];
        if (!a->nvals || (select && !select(arg, a)))
            continue;
        c.type = a->type;
        c.nopts = a->nopts;
        c.opts = a->opts;
        c.opt_len = a->opt_len;
        c.val = norm_of(&a->vals[0], &c.val_len);
        int g = decide_memo(&c, n, want, &mask);
        if (!c.valdep) { /* the walk never looked at the value: the same
                            walk for every value */
            memset(vv, g, a->nvals);
            rq->v_attr[i] = g ? ACRE_ATTR_ALL : ACRE_ATTR_NONE;
            continue;
        }
        unsigned granted = vv[0] = (uint8_t)g;
        for (uint32_t j = 1; j < a->nvals; j++) {
            c.val = norm_of(&a->vals[j], &c.val_len);
            granted += vv[j] = (uint8_t)decide_memo(&c, n, want, &mask);
        }
        rq->v_attr[i] = granted == 0          ? ACRE_ATTR_NONE
                        : granted == a->nvals ? ACRE_ATTR_ALL
                                              : ACRE_ATTR_SOME;
    }
    return 0;
}

ACRE_PUBLIC int
acre_entry_decide(acre_request *rq, const acre_entry *e, int right,
                  acre_verdict *out)
{
    if (!valid(rq, e, right) || !out || rq->p->id_entry < 0)
        return ACRE_ERR_INVAL;
    return acreV_entry_verdict(rq, (const struct acreE_entry *)e,
                               (enum acreI_access)right, NULL, NULL, out);
}
