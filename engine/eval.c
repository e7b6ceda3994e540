/*
 * eval.c -- deciding checks from the compiled tables: slapd 2.5's
 * access_allowed (acl.c) over one index node's table instead of every
 * rule, with the requester's clause states from its spec.
 *
 * One check (entry, attribute, value, privilege):
 *   1. the deepest index node on the entry's ancestry (node_of: the
 *      request remembers the last parent's, acreP_node_for finds it);
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
 * once per entry.  Under an attached policy the entry's collective values
 * (collective.c) are decided the same way, on the entry, after its own.
 */
#include "eval.h"
#include "aci_index.h"
#include "collective.h"
#include "internal.h"
#include "match.h"
#include "schema.h"

#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------------
 * Explain: the text trace and the structured steps
 *
 * An explained check (c->trace set) reports each step of its walk twice:
 * as a line appended to the text trace (acre_explain), and, when c->steps
 * is set, as an acre_explain_step handed to the caller's function
 * (acre_explain_steps).  eval_who.c and eval_set.c append notes of their
 * own to the text; the step of a clause that does not apply carries them
 * as its detail.  Only explained checks call step_put: the `step` macro's
 * test is all the ordinary path pays.
 */

struct acreV_steps {
    acre_explain_fn fn;
    void *arg;
};

static void step_put(struct acreV_check *c, int kind, int rule, unsigned clause,
                     uint32_t mask, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

#define step(c, ...)                    \
    do {                                \
        if ((c)->trace)                 \
            step_put((c), __VA_ARGS__); \
    } while (0)

/* The structured form of a step: where its rule or clause is written. */
static void
step_call(const struct acreV_check *c, acre_explain_step *s, int rule,
          unsigned clause)
{
    const struct acre_policy *p = c->rq->p;
    struct acreI_pos pos;
    int known = 0;

    s->rule = rule;
    s->clause = clause;
    if (rule >= 0) {
        const struct acreP_rule *r = &p->rules[rule];
        s->section = r->section ? r->section->type : "frontend";
        s->index = (int)r->ir->index;
        pos = r->ir->pos;
        known = 1;
        if (clause > 0) {
            const struct acreI_clause *cl =
                p->clauses[r->clause0 + clause - 1].ir;
            pos = acreI_pos_in(r->ir, cl->pos);
            s->control = cl->control == ACREI_CONTINUE ? ACRE_CONTROL_CONTINUE
                         : cl->control == ACREI_BREAK  ? ACRE_CONTROL_BREAK
                                                       : ACRE_CONTROL_STOP;
        }
    }
    if (known) {
        s->file = pos.file;
        s->line = pos.line;
        s->column = pos.column;
    }
    c->steps->fn(c->steps->arg, s);
}

/* step_put -- report one step (see the banner): kind (enum
 * acre_explain_kind), the rule's number or -1, the 1-based clause or 0,
 * the mask after the step, notes (or NULL), and the text. */
static void
step_put(struct acreV_check *c, int kind, int rule, unsigned clause,
         uint32_t mask, const char *detail, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (c->steps) { /* before the text grows: detail may point into it */
        acre_explain_step s;
        memset(&s, 0, sizeof s);
        s.kind = kind;
        s.index = -1;
        s.mask = mask;
        s.text = line;
        s.detail = detail ? detail : "";
        step_call(c, &s, rule, clause);
    }
    if (*c->trace)
        *c->trace = talloc_asprintf_append_buffer(
            *c->trace, "%s%s\n",
            kind == ACRE_EXPLAIN_CLAUSE ||
                    kind == ACRE_EXPLAIN_CLAUSE_SKIPPED ||
                    kind == ACRE_EXPLAIN_IMPLICIT_NONE
                ? "  "
                : "",
            line);
}

/* The text of a rule in steps: its number, section, index and place. */
#define RULE_FMT "rule %u (%s#%u, %s:%u)"
#define RULE_ARGS(r, i)                                                  \
    (i), (r)->section ? (r)->section->type : "frontend", (r)->ir->index, \
        (r)->ir->pos.file ? (r)->ir->pos.file : "-", (r)->ir->pos.line

/* ------------------------------------------------------------------------
 * Targets
 */

/* slapd's ad_inlist for a description with options (the bitmap answers
 * those without). */
static int
attr_in_list(const struct acreV_check *c, const struct acreI_what *w)
{
    struct acreI_desc d = {c->type, c->nopts, c->opts, c->opt_len};

    return acreI_attrs_take(c->rq->schema, w, &d, ACREI_OPTS_KNOWN);
}

/* The value parsed as a DN (slapd's strict dnNormalize), in scratch. */
static const acre_dn *
value_dn(struct acreV_check *c)
{
    size_t n = 0;
    const char *s = (const char *)acreV_check_val(c, &n);
    void *big = NULL;

    return s ? acreV_dn_parse(c->rq->schema, NULL, 0, c->rq->scratch, &big, s,
                              n)
             : NULL;
}

/* val_dn_bytes -- val_dn_scope for a value taken as given (c->asis), as
 * slapd's acl_get compares a value of DN syntax with the pattern's
 * normalised text: its end, and the separator before it, byte for byte;
 * one level also wants the value's first ',' right there (dn_rdnlen). */
static int
val_dn_bytes(struct acreV_check *c, const struct acreI_val *v)
{
    size_t vl, pl;
    const char *val = (const char *)acreV_check_val(c, &vl);
    const char *pat = acre_dn_normalised(v->dn, &pl);

    if (!val || !(pat = acreV_slapd_dn(c->rq, pat, pl, &pl))) {
        if (val)
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return 0;
    }
    if (vl < pl)
        return 0;
    const char *sep = vl > pl ? val + vl - pl - 1 : NULL; /* before the end */
    const char *comma = memchr(val, ',', vl);
    switch (v->style) {
    case ACREI_VAL_ONE:
        if (!sep || *sep != ',' || comma != sep)
            return 0;
        break;
    case ACREI_VAL_SUBTREE:
        if (sep && *sep != ',')
            return 0;
        break;
    case ACREI_VAL_CHILDREN:
        if (!sep || *sep != ',')
            return 0;
        break;
    default:
        return 0;
    }
    return memcmp(val + vl - pl, pat, pl) == 0;
}

static int
val_dn_scope(struct acreV_check *c, const struct acreI_val *v)
{
    if (c->asis)
        return val_dn_bytes(c, v);

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

/* Is type objectClass or structuralObjectClass? */
static int
is_class_type(const acre_schema *s, int type)
{
    const struct acreS_known *k = acreS_known(s);

    return type >= 0 &&
           (type == k->objectClass || type == k->structuralObjectClass);
}

/* The 16 bytes slapd's UUIDNormalize makes of a UUID in acre's form
 * (36 characters, lowercase hex and dashes) into u; 0, or -1 when
 * v[0..n) is not one. */
static int
uuid_bytes(const uint8_t *v, size_t n, uint8_t u[16])
{
    static const char hex[] = "0123456789abcdef";
    size_t k = 0;

    if (n != 36)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *h = v[i] ? strchr(hex, v[i]) : NULL;
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (v[i] != '-')
                return -1;
        } else if (!h) {
            return -1;
        } else {
            u[k / 2] = (uint8_t)(k % 2 ? u[k / 2] << 4 | (h - hex) : h - hex);
            k++;
        }
    }
    return 0;
}

/* The value NUL-terminated (as slapd's berval), made once per check; a
 * DN value as slapd's normalised text (acreV_slapd_dn), which its value
 * regexes see, unless it is taken as given (c->asis); a UUID as slapd's
 * 16 bytes (acre compares UUIDs in text, slapd in binary); a class as the
 * entry spells it. */
static const char *
val_str(struct acreV_check *c)
{
    size_t vl;
    const uint8_t *v;

    if (!c->val_str && (v = acreV_check_val(c, &vl))) {
        int eq = acreS_attr(c->rq->schema, c->type)->eq;
        size_t n;
        /* objectClass has no normaliser in slapd (its values are kept
         * as written): a regex sees the text, not the class's OID */
        if (c->va && is_class_type(c->rq->schema, c->type)) {
            v = (const uint8_t *)c->va->vals[c->vi].val;
            vl = c->va->vals[c->vi].len;
        }
        uint8_t u[16];
        if (!c->asis && eq == ACREM_UUID && uuid_bytes(v, vl, u) == 0) {
            v = u;
            vl = sizeof u;
        }
        char *s = talloc_size(c->rq->scratch, vl + 1);
        if (s) {
            memcpy(s, v, vl);
            s[vl] = '\0';
        }
        if (s && !c->asis && (eq == ACREM_DN || eq == ACREM_UNIQUE_MEMBER))
            s = (char *)acreV_slapd_dn(c->rq, s, vl, &n);
        if (!s)
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
        c->val_str = s;
    }
    return c->val_str;
}

/* The value as rule r's substitutions see it: val_str when one of its
 * clauses reads the value (ACREP_R_VALDEP), else nothing is made, but
 * the value is still normalised as val_str would (an invalid one denies
 * the check all the same): the string was a copy and a free per check. */
static void
val_for(struct acreV_check *c, const struct acreP_rule *r)
{
    size_t vl;

    if (r->flags & ACREP_R_VALDEP)
        val_str(c);
    else if (!c->val_str)
        (void)acreV_check_val(c, &vl);
}

/* The entry's DN as slapd's normalised text, which its regexes and
 * substitutions see (acreV_slapd_dn; whether it differs from endn is
 * found once per check); NULL, and the check denied, when memory ran
 * out. */
static const char *
entry_text(struct acreV_check *c, size_t *len)
{
    const char *s;

    *len = c->endn_len;
    if (c->endn_slapd == 1)
        return c->endn;
    if (!(s = acreV_slapd_dn(c->rq, c->endn, c->endn_len, len)))
        c->rq->limit_hit = 1;
    else
        c->endn_slapd = s == c->endn ? 1 : 2;
    return s;
}

/* The value condition; with want_m, m->val receives the submatches. */
static int
what_val(struct acreV_check *c, const struct acreI_val *v,
         struct acreV_matches *m, int want_m)
{
    const acre_schema *sch = c->rq->schema;

    size_t vl;
    const uint8_t *cv = acreV_check_val(c, &vl);

    if (!cv)
        return 0;
    if (v->style == ACREI_VAL_REGEX) {
        const char *s = val_str(c);
        /* slapd's regexec stops at a NUL byte */
        return s && acreV_regex_match(c->rq, &v->re, s, strlen(s), m->val,
                                      want_m ? ACREI_MAX_MATCHES : 0);
    }
    if (v->style == ACREI_VAL_EXACT && is_class_type(sch, c->type) &&
        v->rule == acreS_attr(sch, c->type)->eq) {
        /* objectSubClassMatch, slapd's equality of objectClass: the
         * value names the asserted class or a subclass of it */
        int have = acreS_class_find(sch, (const char *)cv, vl),
            want = acreS_class_find(sch, (const char *)v->norm, v->norm_len);
        return have >= 0 && want >= 0 && acreS_class_is(sch, have, want);
    }
    if (v->style == ACREI_VAL_EXACT)
        return vl == v->norm_len && memcmp(cv, v->norm, v->norm_len) == 0;
    return val_dn_scope(c, v);
}

static int
what_filter(struct acreV_check *c, const struct acreP_rule *r)
{
    struct acre_request *rq = c->rq;
    uint32_t slot = (uint32_t)r->filter_slot;

    if (rq->test_epoch[slot] != rq->epoch) {
        struct acreF_hooks h = acreV_filter_hooks(rq, NULL, NULL);
        rq->test_epoch[slot] = rq->epoch;
        rq->test_state[slot] =
            acreV_filter_eval(rq, r->ir->what.filter, c->fe, &h) == ACREF_TRUE
                ? 1
                : 2;
    }
    return rq->test_state[slot] == 1;
}

/* Does rule r's regex match the entry's DN text dn?  Asked per attribute
 * and value, answered once per entry: a match is run again only for its
 * submatches, and an answer cut by a limit is not kept. */
static int
what_regex(struct acreV_check *c, const struct acreP_rule *r, const char *dn,
           size_t dnlen, struct acreV_matches *m, int want_m)
{
    struct acre_request *rq = c->rq;
    uint32_t slot = (uint32_t)r->regex_slot;

    if (rq->test_epoch[slot] == rq->epoch &&
        (rq->test_state[slot] == 2 || !want_m))
        return rq->test_state[slot] == 1;
    int hit = acreV_regex_match(rq, acreI_dn_re(&r->ir->what), dn, dnlen,
                                want_m ? m->dn : NULL,
                                want_m ? ACREI_MAX_MATCHES : 0);
    if (!rq->limit_hit) {
        rq->test_epoch[slot] = rq->epoch;
        rq->test_state[slot] = hit ? 1 : 2;
    }
    return hit;
}

/* Every submatch unset; keep_dn: but m->dn, which a regex target that
 * matched has just set in full (acreV_regex_match writes every pair). */
static void
matches_reset(struct acreV_matches *m, const struct acreV_check *c, int keep_dn)
{
    m->dn_src = c->endn;
    m->dn_count = ACREI_MAX_MATCHES;
    m->val_src = c->val_str;
    m->val_count = ACREI_MAX_MATCHES;
    for (int i = 0; i < ACREI_MAX_MATCHES; i++)
        m->val[i][0] = m->val[i][1] = -1;
    for (int i = 0; !keep_dn && i < ACREI_MAX_MATCHES; i++)
        m->dn[i][0] = m->dn[i][1] = -1;
}

/* The submatches a non-regex target gives its clauses: $0 the entry's
 * DN, $1 the part matching the pattern for one / subtree / children. */
static void
style_matches(struct acreV_check *c, const struct acreI_what *w,
              struct acreV_matches *tm)
{
    size_t n = c->endn_len;
    const char *dn = entry_text(c, &n);
    int len = (int)n;

    memset(tm, 0, sizeof(*tm));
    tm->dn_src = dn ? dn : c->endn;
    tm->val_src = c->val_str;
    tm->val_count = ACREI_MAX_MATCHES;
    tm->dn[0][1] = len;
    tm->dn_count = 1;
    if (w->dn_style == ACREI_DN_ONE || w->dn_style == ACREI_DN_SUBTREE ||
        w->dn_style == ACREI_DN_CHILDREN) {
        size_t pl = 0;
        const char *pn = acre_dn_normalised(w->dn, &pl);
        if (!acreV_slapd_dn(c->rq, pn, pl, &pl))
            c->rq->limit_hit = 1;
        tm->dn[1][0] = len - (int)pl;
        tm->dn[1][1] = len;
        tm->dn_count = 2;
    }
}

/* Does rule r's target cover check c (depth window already passed)?  With
 * want_m, m receives the regex submatches.  When it does not, *dead says
 * which run of slots (struct acreP_slot) fails with it: DEAD_ATTRS, its
 * attribute list refused; DEAD_TEST, the test of build.c's run_sig was
 * false (the regex of a REGEX rule, else the filter). */
enum { DEAD_NONE, DEAD_ATTRS, DEAD_TEST };

static int
what_matches(struct acreV_check *c, const struct acreP_rule *r,
             struct acreV_matches *m, int want_m, int *dead)
{
    const struct acreI_what *w = &r->ir->what;

    if (r->scope == ACREP_SCOPE_NEVER)
        return 0;
    if (r->flags & ACREP_R_ATTRS) {
        if (c->nopts ? !attr_in_list(c, w)
                     : !(r->attr_in[(unsigned)c->type >> 6] >>
                             ((unsigned)c->type & 63) &
                         1))
            return !(*dead = DEAD_ATTRS);
    }
    /* from here on the outcome depends on the entry itself */
    if (r->flags & (ACREP_R_VAL | ACREP_R_FILTER) ||
        r->scope == ACREP_SCOPE_REGEX)
        c->entrydep = 1, c->path_ok = 0;
    /* a pattern already found not to match this entry (its slot is
     * shared by every rule spelling it): nothing more to look at, unless
     * the value this rule would normalise first is still to be read */
    if (r->scope == ACREP_SCOPE_REGEX &&
        c->rq->test_epoch[r->regex_slot] == c->rq->epoch &&
        c->rq->test_state[r->regex_slot] == 2 && (!want_m || c->val || !c->va))
        return !(*dead = DEAD_TEST);
    /* slapd's regexes and substitutions see its own normalised text */
    size_t dnlen = c->endn_len;
    const char *dn = c->endn;
    if ((want_m || r->scope == ACREP_SCOPE_REGEX) &&
        !(dn = entry_text(c, &dnlen)))
        return 0;
    if (want_m && (c->val || c->va))
        val_for(c, r);
    if (r->scope == ACREP_SCOPE_REGEX &&
        !what_regex(c, r, dn, dnlen, m, want_m))
        return !(*dead = DEAD_TEST);
    /* reset after the regex, not before each: most patterns do not match
     * (with 100 of them, clearing m was a third of a verdict's cost) */
    if (want_m) {
        matches_reset(m, c, r->scope == ACREP_SCOPE_REGEX);
        m->dn_src = dn;
    }
    if (r->flags & ACREP_R_VAL) {
        c->valdep = 1;
        /* slapd passes a value condition by, recording nothing, when the
         * check has no value; one a resumed check skipped it never sees */
        if ((!c->val && !c->va) ||
            (int32_t)(r - c->rq->p->rules) <= c->val_skip)
            return 0;
        if (c->vd_rule < 0) {
            c->vd_rule = (int32_t)(r - c->rq->p->rules);
            c->vd_self = 0;
        }
        if (!what_val(c, acreI_val(w), m, want_m))
            return 0;
    }
    if ((r->flags & ACREP_R_FILTER) && !what_filter(c, r)) {
        if (r->scope != ACREP_SCOPE_REGEX)
            *dead = DEAD_TEST;
        return 0;
    }
    return 1;
}

/* skip_reason -- why what_matches refused rule r (explain only: the
 * parts are tested again, in the same order). */
static const char *
skip_reason(struct acreV_check *c, const struct acreP_rule *r)
{
    const struct acreI_what *w = &r->ir->what;
    struct acreV_matches m;

    if (r->scope == ACREP_SCOPE_NEVER)
        return "its target can never match";
    if ((r->flags & ACREP_R_ATTRS) &&
        !(c->nopts ? attr_in_list(c, w)
                   : (int)(r->attr_in[(unsigned)c->type >> 6] >>
                               ((unsigned)c->type & 63) &
                           1)))
        return "the attribute is not in its list";
    size_t dnlen;
    const char *dn = entry_text(c, &dnlen);
    if (r->scope == ACREP_SCOPE_REGEX &&
        !(dn && acreV_regex_match(c->rq, acreI_dn_re(w), dn, dnlen, NULL, 0)))
        return "the entry's DN does not match its regex";
    if (r->flags & ACREP_R_VAL) {
        if (!c->val && !c->va)
            return "it has a value condition and the check has no value";
        matches_reset(&m, c, 0);
        if (!what_val(c, acreI_val(w), &m, 0))
            return "the value does not match its value condition";
    }
    if (r->flags & ACREP_R_FILTER)
        return "the entry does not match its filter";
    return "its target does not cover the check";
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
        /* Invariant (policy.h): a state byte only ever goes from unknown
         * to one value, whichever thread gets there first */
        uint8_t was = __atomic_exchange_n(slot, st, __ATOMIC_RELAXED);
        acre_assert(was == ACREV_UNKNOWN || was == st);
        (void)was;
    }
    return st;
}

/* Note that clause ci (flags) answered ok for c's entry (struct
 * acreV_pmemo): a clause that looked at the value or at submatches, or
 * one too many, leaves nothing to replay. */
static inline void
path_note(struct acreV_check *c, uint32_t ci, uint8_t flags, int ok)
{
    if ((flags & (ACREP_C_MATCHES | ACREP_C_VALDEP)) ||
        c->npath == ACREV_PATH_MAX)
        c->path_ok = 0;
    else
        c->path[c->npath++] = ci << 1 | (ok != 0);
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
        if (cl->ir->dn.self && c->vd_rule < 0) { /* slapd records it here,
                                                    whoever the requester */
            c->vd_rule = (int32_t)cl->rule;
            c->vd_self = 1;
            c->vd_prev = c->broke;
            c->entrydep = 1;
            c->path_ok = 0;
        }
        uint8_t st = clause_state(rq, ci);
        if (st == ACREV_FALSE) {
            step(c, ACRE_EXPLAIN_CLAUSE_SKIPPED, (int)(r - rq->p->rules), k + 1,
                 *mask, NULL, "by #%u: not for this requester", k + 1);
            continue;
        }
        if (st == ACREV_RESIDUAL) {
            if (!have_tm && (cl->flags & (ACREP_C_MATCHES | ACREP_C_VALDEP))) {
                if (c->val || c->va)
                    val_for(c, r);
                if (r->scope == ACREP_SCOPE_REGEX ||
                    acreI_val(&r->ir->what)->style == ACREI_VAL_REGEX) {
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
            int dep = !(cl->flags & ACREP_C_SELFONLY) &&
                      !((cl->flags & ACREP_C_GROUPONLY) &&
                        !acre_dn_equal(acreI_group(cl->ir)->dn, c->e->dn));
            if (dep)
                c->entrydep = 1;
            size_t mark = c->trace && *c->trace ? strlen(*c->trace) : 0;
            int ok =
                acreV_clause_entry(c, cl->ir, cl->flags, m, have_tm ? &tm : m);
            if (dep)
                path_note(c, ci, cl->flags, ok);
            if (!ok) {
                step(c, ACRE_EXPLAIN_CLAUSE_SKIPPED, (int)(r - rq->p->rules),
                     k + 1, *mask, *c->trace ? *c->trace + mark : NULL,
                     "by #%u: does not apply to this entry", k + 1);
                continue;
            }
        }
        *mask = acreI_mask_apply(*mask, cl->ir->mask);
        if (c->trace) {
            char buf[ACRE_MASK_BUF];
            step(c, ACRE_EXPLAIN_CLAUSE, (int)(r - rq->p->rules), k + 1, *mask,
                 NULL, "by #%u applies: mask %s%s", k + 1,
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
    step(c, ACRE_EXPLAIN_IMPLICIT_NONE, (int)(r - rq->p->rules), 0, *mask, NULL,
         "implicit by * none");
    return ACREI_STOP;
}

/* ------------------------------------------------------------------------
 * The decision
 */

/* The part of an entry context's key (vctx_key) fixed by the entry: its
 * depth (at most ACRE_DN_MAX_RDNS: 8 bits) and whether it is the
 * requester, clear of the privilege's 4 low bits and the node's 32 high
 * ones. */
static inline uint64_t
key_base(unsigned depth, int is_self)
{
    _Static_assert(ACRE_DN_MAX_RDNS < 256, "a depth has 8 bits");
    return (uint64_t)depth << 24 | (uint64_t)is_self << 4;
}

/* node_of's miss: the node of dn (a DN of depth d >= 2 with no node of
 * its own) from its parent's ancestry, top the deepest depth to probe;
 * the parent, text[0..len) with hash h, is remembered with it. */
static const struct acreP_node *
parent_miss(struct acre_request *rq, const acre_dn *dn, unsigned top,
            uint64_t h, const char *text, uint32_t len)
{
    struct acreV_parent *pa = &rq->parent;
    const struct acreP_node *n = acreP_node_below(rq->p, dn, top);

    if (len <= sizeof pa->text) {
        pa->h = h;
        pa->depth = dn->depth - 1u;
        pa->len = len;
        pa->node = n;
        memcpy(pa->text, text, len);
    }
    return n;
}

/*
 * The index node of dn, as acreP_node_for finds it, through the request's
 * memory of the last entry's parent: entries that share a parent (most of
 * a search's) share every ancestor above it, so for them only the probe
 * at the entry's own depth is made.  The parent is recognised by its
 * bytes, never by its hash alone; one longer than ACREV_PARENT_MAX is not
 * kept.
 */
static inline __attribute__((always_inline)) const struct acreP_node *
node_of(struct acre_request *rq, const acre_dn *dn)
{
    const struct acre_policy *p = rq->p;
    const struct acreV_parent *pa = &rq->parent;
    const struct acreP_node *n;

    if (acre_unlikely(!acreE_is(dn, ACRED_MAGIC)))
        return acreP_node_for(p, dn);
    unsigned d = dn->depth, top = d - 1 < p->max_depth ? d - 1 : p->max_depth;
    if (d <= p->max_depth && d && (n = acreP_node_at(p, dn, d)) != NULL)
        return n;
    if (d <= 1 || top == 0)
        return &p->nodes[0];
    /* the parent: the suffix of the last d - 1 RDNs */
    uint32_t off = acreD_nrdn(dn)[1], len = dn->norm_len - off;
    const char *text = acreD_norm(dn) + off;
    uint64_t h = acreD_h(dn)[d - 1];
    if (pa->h == h && pa->len == len && pa->depth == d - 1 &&
        memcmp(pa->text, text, len) == 0)
        return pa->node;
    return parent_miss(rq, dn, top, h, text, len);
}

/* Whether dn (a DN) is the requester's: acre_dn_equal, its depth and
 * hash compared first here. */
static inline int
is_requester(const struct acre_request *rq, const acre_dn *dn)
{
    const acre_dn *a = rq->authz;

    return a && a->depth == dn->depth &&
           acreD_h(a)[a->depth] == acreD_h(dn)[dn->depth] &&
           acre_dn_equal(dn, a);
}

/* The new epoch of a check (acreV_check_init). */
static inline void
epoch_next(struct acre_request *rq)
{
    rq->epoch++;
    if (rq->epoch == 0) { /* wrapped: forget every cached filter */
        memset(rq->test_epoch, 0, sizeof(uint32_t) * rq->p->ntests);
        memset(rq->cmemo, 0, sizeof(rq->cmemo));
        rq->epoch = 1;
    }
}

/* acreV_check_init for the walks of a kept shape of e (whose DN is an
 * acre_dn: shape_try checked it), whether it is the requester known. */
static void
check_walks(struct acreV_check *c, struct acre_request *rq,
            const acre_entry_view *e, int is_self)
{
    const acre_dn *dn = e->dn;

    c->rq = rq;
    c->e = c->fe = e;
    c->endn = acreD_norm(dn);
    c->endn_len = dn->norm_len;
    c->endn_slapd = 0;
    c->type = rq->p->id_entry;
    c->nopts = 0;
    c->opts = NULL;
    c->opt_len = NULL;
    c->val = NULL;
    c->val_len = 0;
    c->va = NULL;
    c->vi = 0;
    c->val_str = NULL;
    c->asis = 0;
    c->trace = NULL;
    c->steps = NULL;
    c->is_self = is_self;
    c->depth = dn->depth;
    c->key_base = key_base(c->depth, c->is_self);
    c->walked = 1;
    c->val_skip = -1;
    epoch_next(rq);
}

void
acreV_check_init(struct acreV_check *c, struct acre_request *rq,
                 const acre_entry_view *e, int type,
                 const struct acreS_dinfo *d, const uint8_t *val, size_t len)
{
    c->rq = rq;
    c->e = c->fe = e;
    c->endn = acre_dn_normalised(e->dn, &c->endn_len);
    c->endn_slapd = 0;
    c->walked = 0;
    c->val_skip = -1;
    c->type = d ? d->type : type;
    c->nopts = d ? d->nopts : 0;
    c->opts = d ? d->opts : NULL;
    c->opt_len = d ? d->opt_len : NULL;
    c->val = val;
    c->val_len = len;
    c->va = NULL;
    c->vi = 0;
    c->val_str = NULL;
    c->asis = 0;
    c->trace = NULL;
    c->steps = NULL;
    c->is_self = rq->authz && acre_dn_equal(e->dn, rq->authz);
    c->depth = acre_dn_depth(e->dn);
    c->key_base = key_base(c->depth, c->is_self);
    epoch_next(rq);
}

const uint8_t *
acreV_check_val(struct acreV_check *c, size_t *len)
{
    struct acre_request *rq = c->rq;
    const acre_view_attr *a = c->va;

    if (!c->val && a) {
        if (acreS_attr(rq->schema, c->type)->eq == ACREM_NONE) {
            /* no rule: the value as stored is its only form */
            c->val = a->vals[c->vi].val;
            c->val_len = a->vals[c->vi].len;
        } else if (!(c->val = acreE_value_norm(rq->schema, a, c->vi, &rq->vbuf,
                                               &c->val_len))) {
            acreV_fail(rq, ACRE_ERR_EVAL_LIMIT); /* not a valid value */
        }
    }
    *len = c->val_len;
    return c->val;
}

void
acreV_fail(struct acre_request *rq, int code)
{
    if (!rq->limit_hit || rq->limit_code == ACRE_ERR_EVAL_LIMIT)
        rq->limit_code = code;
    rq->limit_hit = 1;
    if (!rq->fail_code)
        rq->fail_code = code;
    if (code != ACRE_ERR_EVAL_LIMIT && !rq->err)
        rq->err = code;
}

/* Invariant (policy.h): a table lists rules in evaluation order, each
 * once. */
static int
slots_ordered(const struct acreP_slot *t, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        if (t[i - 1].rule >= t[i].rule)
            return 0;
    return 1;
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
    if (c->va) /* made again if a rule looks: rq->vbuf may have moved on */
        c->val = NULL;
    rq->limit_hit = 0;
    rq->limit_code = 0;
    c->valdep = 0;
    c->entrydep = 0;
    c->path_ok = 1;
    c->npath = 0;
    c->vd_rule = c->decided = c->broke = -1;
    if (n->section && rq->is_root[n->section - p->ir->dbs]) {
        step(c, ACRE_EXPLAIN_ROOTDN, -1, 0, ACREI_LVL_MANAGE, NULL,
             "requester is the rootdn of database %s", n->section->type);
        *mask = ACREI_LVL_MANAGE;
        return 1;
    }
    if (is_write(want) && c->type != p->id_entry && c->type != p->id_children &&
        (acreS_attr(p->schema, c->type)->flags & ACRES_NO_USER_MOD)) {
        step(c, ACRE_EXPLAIN_NO_USER_MOD, -1, 0, *mask, NULL,
             "no-user-modification attribute: write granted");
        return 1;
    }
    if (n->default_read) {
        step(c, ACRE_EXPLAIN_DEFAULT, -1, 0, ACREI_LVL_READ, NULL,
             "no rules: the default read access");
        *mask = ACREI_LVL_READ;
        return (ACREI_LVL_READ & priv) == priv;
    }
    const struct acreP_slot *t = n->table, *te = t + n->ntable;
    const struct acreP_slot *u = n->residual->table;
    const struct acreP_slot *ue = u + n->residual->ntable;
    acre_assert(slots_ordered(t, n->ntable) &&
                slots_ordered(u, n->residual->ntable));
    while (t < te || u < ue) { /* the two tables merged by rule number */
        /* a rule is DN-indexed or residual, never both */
        acre_assert(t == te || u == ue || t->rule != u->rule);
        int in_t = u == ue || (t < te && t->rule < u->rule);
        const struct acreP_slot *sl = in_t ? t++ : u++;
        const struct acreP_rule *r = &p->rules[sl->rule];
        if (depth < sl->lo || depth > sl->hi) {
            step(c, ACRE_EXPLAIN_RULE_SKIPPED, (int)sl->rule, 0, *mask, NULL,
                 RULE_FMT ": the entry is outside its DN scope",
                 RULE_ARGS(r, sl->rule));
            continue;
        }
        int want_m = (r->flags & ACREP_R_MATCHES) != 0, dead = DEAD_NONE;
        if (!what_matches(c, r, &m, want_m, &dead)) {
            if (rq->limit_hit) {
                step(c, ACRE_EXPLAIN_LIMIT, (int)sl->rule, 0, ACREI_PRIV_NONE,
                     NULL, RULE_FMT ": evaluation limit reached: denied",
                     RULE_ARGS(r, sl->rule));
                *mask = ACREI_PRIV_NONE;
                return 0;
            }
            if (c->trace)
                step(c, ACRE_EXPLAIN_RULE_SKIPPED, (int)sl->rule, 0, *mask,
                     NULL, RULE_FMT ": %s", RULE_ARGS(r, sl->rule),
                     skip_reason(c, r));
            else if (dead) { /* its run fails the same way */
                unsigned run =
                    dead == DEAD_ATTRS ? sl->run_attrs : sl->run_test;
                if (in_t)
                    t = te - sl > run ? sl + 1 + run : te;
                else
                    u = ue - sl > run ? sl + 1 + run : ue;
            }
            continue;
        }
        if (!want_m) { /* nothing substitutes: no submatches needed */
            m.dn_src = c->endn;
            m.dn_count = 0;
            m.val_src = NULL;
            m.val_count = 0;
        }
        step(c, ACRE_EXPLAIN_RULE, (int)sl->rule, 0, *mask, NULL,
             RULE_FMT " matches", RULE_ARGS(r, sl->rule));
        enum acreI_control ctl = clauses(c, r, &m, mask);
        if (rq->limit_hit) {
            step(c, ACRE_EXPLAIN_LIMIT, (int)sl->rule, 0, ACREI_PRIV_NONE, NULL,
                 "evaluation limit reached: denied");
            *mask = ACREI_PRIV_NONE;
            return 0;
        }
        if (ctl != ACREI_BREAK) {
            c->decided = (int32_t)sl->rule;
            return (*mask & priv) == priv;
        }
        c->broke = (int32_t)sl->rule;
    }
    step(c, ACRE_EXPLAIN_NO_MORE_RULES, -1, 0, *mask, NULL,
         "no more rules: denied");
    return 0;
}

/*
 * The decision pm keeps for c's key, when each of its clauses answers for
 * c's entry as it did then: 1 (*g, *mask and c's OUT fields as decide
 * leaves them), else 0, the set steps spent given back (the walk that
 * follows spends them).  A bound reached or a lookup failed on the way
 * denies, as in decide.
 */
static int
pmemo_replay(struct acreV_check *c, const struct acreV_pmemo *pm,
             uint32_t *mask, int *g)
{
    struct acre_request *rq = c->rq;
    struct acreV_matches m;
    size_t work = rq->set_work;

    talloc_free_children(rq->scratch); /* the previous check's */
    c->val_str = NULL;
    rq->limit_hit = 0;
    rq->limit_code = 0;
    m.dn_src = c->endn; /* the clauses kept substitute nothing */
    m.dn_count = 0;
    m.val_src = NULL;
    m.val_count = 0;
    for (unsigned i = 0; i < pm->npath; i++) {
        const struct acreP_clause *cl = &rq->p->clauses[pm->path[i] >> 1];
        int ok = acreV_clause_entry(c, cl->ir, cl->flags, &m, &m) != 0;
        if (rq->limit_hit) {
            *mask = ACREI_PRIV_NONE;
            *g = 0;
            break;
        }
        if (ok != (int)(pm->path[i] & 1)) {
            rq->set_work = work; /* the walk spends the steps again */
            return 0;
        }
    }
    if (!rq->limit_hit) {
        *mask = pm->mask;
        *g = pm->granted;
    }
    c->valdep = 0;
    c->entrydep = 1;
    c->vd_rule = c->broke = -1;
    c->decided = rq->limit_hit ? -1 : pm->decided;
    return 1;
}

/*
 * The class memo: an answer that depended on the entry holds for the
 * entry's other types of the same class (the same rules' attrs= lists
 * take them), when the value played no part; its set steps are spent
 * again.  class_slot: the slot of c's type (*cls its class), or NULL
 * when the memo does not apply (writes, types past the classes).
 */
static inline struct acreV_cmemo *
class_slot(const struct acreV_check *c, enum acreI_access want, uint32_t *cls)
{
    const struct acre_request *rq = c->rq;

    if (is_write(want) ||
        (rq->p->attr_class && (unsigned)c->type >= rq->p->attr_nclass))
        return NULL;
    *cls = rq->p->attr_class ? rq->p->attr_class[c->type] : 0;
    return &c->rq->cmemo[*cls & (ACREV_CMEMO - 1)];
}

/* The answer slot cm keeps for class cls of this entry at node n: 1 with
 * *mask and *g set and c left as decide leaves it, or 0. */
static inline int
class_hit(struct acreV_check *c, const struct acreV_cmemo *cm, uint32_t cls,
          const struct acreP_node *n, enum acreI_access want, uint32_t *mask,
          int *g)
{
    struct acre_request *rq = c->rq;

    if (cm->epoch != rq->epoch || cm->cls != cls || cm->want != want ||
        cm->node != n || rq->set_work < cm->steps)
        return 0;
    rq->set_work -= cm->steps;
    rq->limit_hit = rq->limit_code = 0;
    c->valdep = 0;
    c->entrydep = 1;
    c->vd_rule = -1;
    c->decided = -2;
    *mask = cm->mask;
    *g = cm->granted;
    return 1;
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

    _Static_assert(ACRE_DN_MAX_RDNS < 1u << 11, "a memo depth has 11 bits");
    _Static_assert(ACREI_ACCESS_MANAGE < 16, "a memo privilege has 4 bits");
    if (c->nopts || c->trace)
        return decide(c, n, want, mask);
    struct acreV_memo_key k =
        acreV_memo_key((uint32_t)(n - rq->p->nodes), c->depth, c->is_self,
                       c->type, (unsigned)want);
    uint64_t h = (k.key ^ (uint64_t)k.ctx << 40) * 0x9e3779b97f4a7c15ull;
    unsigned slot = (unsigned)(h >> 54) & (ACREV_MEMO - 1);
    struct acreV_memo *m = &rq->memo[slot];
    uint64_t bit = (uint64_t)1 << (slot & 63);
    if (!c->walked && (rq->memo_valid[slot >> 6] & bit) && m->key == k.key &&
        m->ctx == k.ctx) {
        c->valdep = c->entrydep = 0;
        c->vd_rule = -1;
        c->decided = -2;
        *mask = m->mask;
        return m->granted;
    }
    uint32_t cls = 0;
    struct acreV_cmemo *cm = class_slot(c, want, &cls);
    int g;
    if (cm && class_hit(c, cm, cls, n, want, mask, &g))
        return g;
    size_t work = rq->set_work;
    unsigned ps = (unsigned)(h >> 58) & (ACREV_PMEMO - 1);
    struct acreV_pmemo *pm = &rq->pmemo[ps];
    if (!((rq->pmemo_valid >> ps & 1) && pm->key == k.key && pm->ctx == k.ctx &&
          pmemo_replay(c, pm, mask, &g))) {
        g = decide(c, n, want, mask);
        if (c->entrydep && c->path_ok && !c->valdep && c->vd_rule < 0 &&
            !rq->limit_hit) {
            pm->key = k.key;
            pm->ctx = k.ctx;
            pm->npath = (uint8_t)c->npath;
            pm->granted = (uint8_t)g;
            pm->mask = *mask;
            pm->decided = c->decided;
            memcpy(pm->path, c->path, c->npath * sizeof *c->path);
            rq->pmemo_valid |= (uint64_t)1 << ps;
        }
    }
    if (!c->entrydep && !rq->limit_hit) {
        rq->memo_valid[slot >> 6] |= bit;
        m->key = k.key;
        m->ctx = k.ctx;
        m->mask = *mask;
        m->granted = (uint8_t)g;
    } else if (cm && !c->valdep && c->vd_rule < 0 && !rq->limit_hit) {
        *cm = (struct acreV_cmemo){rq->epoch, cls, (uint32_t)want,     n,
                                   *mask,     g,   work - rq->set_work};
    }
    return g;
}

int
acreV_decide(struct acreV_check *c, enum acreI_access want, uint32_t *mask)
{
    uint32_t m = 0;
    int granted = 0;

    if (acreI_access_priv(want)) {
        const struct acreP_node *n = node_of(c->rq, c->e->dn);
        step(c, ACRE_EXPLAIN_NODE, -1, 0, ACREI_PRIV_NONE, NULL,
             "index node \"%.*s\": %u DN-scoped rules, %u residual",
             (int)n->ndn_len, n->ndn, n->ntable, n->residual->ntable);
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

/* rq_ok -- rq is a request (internal.h: Handles). */
static inline int
rq_ok(const acre_request *rq)
{
    return acreE_is(rq, ACREE_REQUEST_MAGIC);
}

static int
valid(const acre_request *rq, const acre_entry_view *e, int right)
{
    return right >= ACRE_RIGHT_DISCLOSE && right <= ACRE_RIGHT_MANAGE &&
           acreE_view_check(rq->schema, e);
}

/* The error a denied check reports: the bound or lookup that decided. */
static int
denied(const acre_request *rq)
{
    return rq->limit_hit
               ? (rq->limit_code ? rq->limit_code : ACRE_ERR_EVAL_LIMIT)
               : 0;
}

/*
 * The description attr[0..n) names, as the schema interns descriptions
 * (options lowercased, sorted), in *d; its option text in buf.  0, or -1
 * when it is not a description of a known type.  A name without options
 * is remembered by the request: the same bytes again are not parsed.
 */
static int
desc_of(acre_request *rq, const char *attr, struct acreS_dinfo *d,
        const char **opts, uint32_t *opt_len, char *buf)
{
    struct acreS_desc x;
    size_t n = strlen(attr), at = 0;

    memset(d, 0, sizeof *d);
    d->opts = opts;
    d->opt_len = opt_len;
    if (n && n == rq->last_len && !memcmp(attr, rq->last_name, n)) {
        d->type = rq->last_type;
        return 0;
    }
    if (n >= ACRES_DESC_TEXT || acreS_desc_parse(rq->schema, attr, n, &x) ||
        x.type < 0)
        return -1;
    d->type = x.type;
    d->nopts = x.nopts;
    if (!x.nopts && n < sizeof rq->last_name) {
        memcpy(rq->last_name, attr, n);
        rq->last_len = (uint32_t)n;
        rq->last_type = x.type;
    }
    for (unsigned i = 0; i < x.nopts; i++) {
        opts[i] = buf + at;
        opt_len[i] = x.opt_len[i];
        for (unsigned k = 0; k < x.opt_len[i]; k++) {
            char ch = x.opts[i][k];
            buf[at++] = ch >= 'A' && ch <= 'Z' ? (char)(ch | 0x20) : ch;
        }
        buf[at++] = '\0';
    }
    return 0;
}

static int after_attr(struct acreV_check *c, enum acreI_access want,
                      uint32_t *mask);

/* The shared part of acre_access and acre_explain. */
static int
access_check(acre_request *rq, const acre_entry_view *e, const char *attr,
             const void *val, size_t val_len, int right, uint32_t *mask,
             char **tr, const struct acreV_steps *steps)
{
    struct acreS_dinfo d;
    const char *opts[ACRES_MAX_OPTIONS];
    uint32_t opt_len[ACRES_MAX_OPTIONS];
    char obuf[ACRES_DESC_TEXT];
    uint8_t local[512];
    struct acreE_buf b;
    struct acreV_check c;
    int granted, prepared = right & ACRE_ACCESS_PREPARED;
    int after = right & ACRE_ACCESS_AFTER_ATTR;

    right &= ~(ACRE_ACCESS_PREPARED | ACRE_ACCESS_AFTER_ATTR);
    if (mask)
        *mask = 0;
    if (!rq_ok(rq))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!valid(rq, e, right) || !attr ||
        desc_of(rq, attr, &d, opts, opt_len, obuf))
        return ACRE_ERR_INVAL;
    if (rq->p->aci) {
        int ent = d.type == rq->p->id_entry || d.type == rq->p->id_children;
        struct acreF_desc fd = {d.type, d.nopts, d.opts, d.opt_len};
        rq->err = 0;
        rq->limit_hit = 0;
        if (tr) /* explained: the same decision, told step by step (the
                 * value of a write is not explained: ACI explain takes
                 * none) */
            granted = acreV_aci_explain_check(
                rq, e, ent ? NULL : &fd, attr, acreV_aci_rights(right, ent),
                right, tr, steps ? steps->fn : NULL, steps ? steps->arg : NULL);
        else
            granted =
                acreV_aci_access(rq, e, ent ? NULL : &fd, right, val, val_len);
        if (!granted && rq->limit_hit)
            return denied(rq);
        return granted;
    }
    acreE_buf_init(&b, local, sizeof(local));
    const uint8_t *v = val;
    size_t vl = val_len;
    /* slapd checks the values of the attributes it computes as it sends
     * them (a_vals, not a_nvals: slap_send_search_entry's loop over
     * backend_operational's): a self access and val= rules compare them
     * as they are.  A stored value is in the form slapd stored it
     * (acreE_norm_stored: as written for a rule slapd has no normaliser
     * for, objectIdentifierMatch, integerMatch, ...), and a class as
     * written too: slapd checks its text (val_str), not its OID. */
    if (val && !prepared && !after && !is_class_type(rq->schema, d.type)) {
        int eq = acreS_attr(rq->schema, d.type)->eq;
        if (eq != ACREM_NONE &&
            acreE_norm_stored(rq->schema, d.type, val, val_len, &b) == 0) {
            v = b.p;
            vl = b.len;
        }
    }
    acreV_check_init(&c, rq, e, d.type, &d, v, vl);
    c.asis = val && (prepared || after);
    c.trace = tr;
    c.steps = steps;
    granted = after && val ? after_attr(&c, (enum acreI_access)right, mask)
                           : acreV_decide(&c, (enum acreI_access)right, mask);
    acreE_buf_free(&b);
    if (!granted && rq->limit_hit)
        return denied(rq);
    return granted;
}

ACRE_PUBLIC int
acre_access(acre_request *rq, const acre_entry_view *e, const char *attr,
            const void *val, size_t val_len, int right, uint32_t *mask)
{
    return access_check(rq, e, attr, val, val_len, right, mask, NULL, NULL);
}

ACRE_PUBLIC char *
acre_explain(acre_request *rq, const acre_entry_view *e, const char *attr,
             const void *val, size_t val_len, int right, int *granted)
{
    char *t, *res;
    uint32_t mask = 0;
    char buf[ACRE_MASK_BUF];

    if (granted)
        *granted = 0;
    if (!rq_ok(rq) || !(t = talloc_strdup(rq->mem, "")))
        return NULL;
    int g = access_check(rq, e, attr, val, val_len, right, &mask, &t, NULL);
    if (t && rq->p->aci) /* ACIs have rights, no mask */
        t = talloc_asprintf_append_buffer(t, "%s\n",
                                          g == 1   ? "granted"
                                          : g == 0 ? "denied"
                                                   : acre_strerror(g));
    else if (t)
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

/*
 * acre_explain_steps -- see acre.h.  The check runs with a text trace as
 * acre_explain's (under rq->mem, freed before returning) so that the
 * notes of clauses reach the steps as their detail.
 */
ACRE_PUBLIC int
acre_explain_steps(acre_request *rq, const acre_entry_view *e, const char *attr,
                   const void *val, size_t val_len, int right,
                   acre_explain_fn fn, void *arg, uint32_t *mask)
{
    struct acreV_steps st = {fn, arg};
    char *t;
    int g;

    if (mask)
        *mask = 0;
    if (!rq_ok(rq))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!fn)
        return ACRE_ERR_INVAL;
    if (!(t = talloc_strdup(rq->mem, "")))
        return ACRE_ERR_NOMEM;
    g = access_check(rq, e, attr, val, val_len, right, mask, &t, &st);
    talloc_free(t);
    return g;
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

/*
 * slapd's access-control state over the values of one attribute of a
 * search result (acl.c: AccessControlState, as slap_send_search_entry
 * carries it from value to value).  Once a check reaches a rule with a
 * value condition, or a clause whose access has "self", the checks of the
 * next values resume after the rule before it (the value condition's) or
 * the last rule that matched and broke (the clause's), which decides as
 * a walk from the start does: what comes before looked at no value.  But
 * its count of the frontend's rules, as_fe_done, is not: a check that
 * goes on to the frontend's rules sets it to 1 and adds one for each of
 * them after the first; each next check takes one off, adds one for each
 * rule it visits while it is non-zero, and goes on from the database's
 * rules to the frontend's only when it is zero.  So when the resume point
 * is among the database's rules (or before them) and a value was decided
 * past the frontend's first rule, the next values see the database's
 * rules alone: what would have been decided by the frontend's is denied
 * ("no more rules").  The walks here are acre's own, from the start;
 * struct acreV_value_state (eval.h) keeps what slapd's state would hold.
 */

/* as_fe_done after a walk that decided at rule d (-1: none did) and went
 * on to the frontend's rules if d is not the database's */
static unsigned long
fe_after(const struct acreV_value_state *vs, int32_t d)
{
    if (d >= 0 && (uint32_t)d >= vs->s0 && (uint32_t)d < vs->s0 + vs->ns)
        return 0;
    if (d >= 0 && (uint32_t)d >= vs->g0)
        return (unsigned long)((uint32_t)d - vs->g0) + 1;
    return vs->ng ? vs->ng : 1;
}

/* Start vs from the first value's walk c at node n. */
static void
value_state_start(struct acreV_value_state *vs, const struct acreV_check *c,
                  const struct acreP_node *n)
{
    const struct acre_policy *p = c->rq->p;
    const struct acreI_section *sec = n->section;

    memset(vs, 0, sizeof(*vs));
    if (c->vd_rule < 0)
        return;
    for (const struct acreI_section *d = p->ir->dbs; sec && d < sec; d++)
        vs->s0 += d->nrules;
    vs->ns = sec ? sec->nrules : 0;
    vs->ng = p->ir->frontend.nrules;
    vs->g0 = p->nrules - vs->ng;
    vs->on = 1;
    int32_t r = c->vd_self ? c->vd_prev : c->vd_rule;
    if (r < 0 || (c->vd_self ? 0 : (uint32_t)r == vs->s0 && vs->ns)) {
        /* before the database's first rule */
        vs->in_db = vs->ns > 0;
        vs->at = -1;
    } else if (vs->ns && (uint32_t)r >= vs->s0 &&
               (uint32_t)r < vs->s0 + vs->ns) {
        vs->in_db = 1;
        vs->at = (long)((uint32_t)r - vs->s0) - (c->vd_self ? 0 : 1);
    } else if (!c->vd_self && (uint32_t)r == vs->g0 && vs->ns) {
        vs->in_db = 1; /* the frontend's first: after the database's last */
        vs->at = (long)vs->ns - 1;
    }
    vs->fe = fe_after(vs, c->decided);
}

/* The next value's answer g from walk c, as slapd's state leaves it. */
static int
value_state_next(struct acreV_value_state *vs, const struct acreV_check *c,
                 int g)
{
    int32_t d = c->decided;

    if (!vs->on || !vs->in_db || d == -2)
        return g;
    unsigned long fe = vs->fe ? vs->fe - 1 : 0;
    if (!fe) {
        vs->fe = fe_after(vs, d);
        return g;
    }
    if (d >= 0 && (uint32_t)d >= vs->s0 && (uint32_t)d < vs->s0 + vs->ns) {
        vs->fe = fe + (unsigned long)((long)((uint32_t)d - vs->s0) - vs->at);
        return g;
    }
    vs->fe = fe + (unsigned long)((long)vs->ns - 1 - vs->at);
    return 0; /* the frontend's rules are not reached: no more rules */
}

/* acreV_values_begin -- see eval.h.  A value's check is the attribute's
 * answer (slapd's cached as_result) unless the attribute's reached a value
 * condition or a clause with "self" access; else it resumes after the
 * last rule that matched and broke before that (val_skip), its answer as
 * slapd's state leaves it. */
int
acreV_values_begin(struct acreV_values *it, struct acreV_check *c,
                   enum acreI_access want, uint32_t *mask)
{
    it->g = acreV_decide(c, want, mask);
    it->all = !it->g || c->vd_rule < 0 || c->rq->limit_hit;
    if (!it->all) {
        value_state_start(&it->vs, c, node_of(c->rq, c->e->dn));
        it->skip = c->vd_prev;
    }
    return it->g;
}

/* acreV_values_next -- see eval.h. */
int
acreV_values_next(struct acreV_values *it, struct acreV_check *c,
                  enum acreI_access want, uint32_t *mask)
{
    if (it->all)
        return it->g;
    c->val_skip = it->skip;
    return value_state_next(&it->vs, c, acreV_decide(c, want, mask));
}

/* The check c of a value as slapd makes it after the check of its
 * attribute without one (ACRE_ACCESS_AFTER_ATTR). */
static int
after_attr(struct acreV_check *c, enum acreI_access want, uint32_t *mask)
{
    struct acreV_check c0;
    struct acreV_values it;

    acreV_check_init(&c0, c->rq, c->e, c->type, NULL, NULL, 0);
    c0.nopts = c->nopts;
    c0.opts = c->opts;
    c0.opt_len = c->opt_len;
    c0.trace = c->trace;
    c0.steps = c->steps;
    int g = acreV_values_begin(&it, &c0, want, mask);
    return it.all ? g : acreV_values_next(&it, c, want, mask);
}

/* The values of attribute a of the checked entry: one byte each in vv;
 * returns an enum acre_attr_verdict. */
static uint8_t
attr_verdict(struct acreV_check *c, const struct acreP_node *n,
             enum acreI_access want, const acre_view_attr *a, uint8_t *vv)
{
    uint32_t mask;
    struct acreV_value_state vs;

    acreV_check_stored(c, a, 0);
    int g = decide_memo(c, n, want, &mask);
    if (!c->valdep && (c->vd_rule < 0 || a->nvals == 1)) {
        /* the walk never looked at the value: the same walk for every
         * value, and nothing recorded for the next */
        memset(vv, g, a->nvals);
        return g ? ACRE_ATTR_ALL : ACRE_ATTR_NONE;
    }
    value_state_start(&vs, c, n);
    unsigned granted = vv[0] = (uint8_t)g;
    for (uint32_t j = 1; j < a->nvals; j++) {
        acreV_check_stored(c, a, j);
        g = decide_memo(c, n, want, &mask);
        granted += vv[j] = (uint8_t)value_state_next(&vs, c, g);
    }
    return granted == 0          ? ACRE_ATTR_NONE
           : granted == a->nvals ? ACRE_ATTR_ALL
                                 : ACRE_ATTR_SOME;
}

/*
 * attr_verdict for an attribute its shape walks (its answer depended on
 * the entry): the class memo first.  When it holds the class's answer
 * for this entry, the first memo cannot hold one for this type: that
 * would be an answer that did not depend on the entry, at the same node,
 * depth and access, for a type the same rules take.
 */
static uint8_t
walked_verdict(struct acreV_check *c, const struct acreP_node *n,
               enum acreI_access want, const acre_view_attr *a, uint8_t *vv)
{
    struct acreV_cmemo *cm;
    uint32_t cls = 0, mask;
    int g;

    acreV_check_stored(c, a, 0);
    if (c->nopts || c->trace || !(cm = class_slot(c, want, &cls)) ||
        !class_hit(c, cm, cls, n, want, &mask, &g))
        return attr_verdict(c, n, want, a, vv);
    memset(vv, g, a->nvals);
    return g ? ACRE_ATTR_ALL : ACRE_ATTR_NONE;
}

/* The key of an entry context: the entry's part (kb, key_base), node n's
 * index and privilege want, each in bits of its own; never 0. */
static inline uint64_t
vctx_key(const struct acre_request *rq, uint64_t kb, const struct acreP_node *n,
         enum acreI_access want)
{
    return (kb | (uint64_t)(n - rq->p->nodes) << 32 | (uint64_t)want) + 1;
}

/* The bitmaps of the verdicts rq keeps for the context of check c (the
 * entry) at node n; a context that takes another's slot starts empty. */
static uint64_t *
vctx_bits(struct acre_request *rq, const struct acreV_check *c,
          const struct acreP_node *n, enum acreI_access want)
{
    uint64_t key = vctx_key(rq, c->key_base, n, want);
    unsigned slot = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 58);
    size_t w = rq->p->attr_words;
    uint64_t *b = rq->vctx_bits + (size_t)slot * 2 * w;

    if (rq->vctx_key[slot] != key) {
        rq->vctx_key[slot] = key;
        memset(b, 0, 2 * w * sizeof(*b));
    }
    return b;
}

/* Values vv[0..n) all g (an attribute's single answer). */
static inline void
values_fill(uint8_t *vv, uint8_t g, unsigned n)
{
    if (n == 1)
        vv[0] = g;
    else
        memset(vv, g, n);
}

/*
 * The verdicts of the visible entry of check c's attributes, each
 * attribute and value written: from the context's bitmaps when they know
 * the attribute's type, else by attr_verdict, teaching the bitmaps what
 * the walk found when it depended on nothing but the context and the
 * type.  Ids below tmax are types alone (acreS_ntypes) that the bitmaps
 * cover; the rest are always walked.  What the loop reads is in locals
 * (the byte stores could alias it).  *walk: bit i (i < 32) set when
 * attribute i's answer is not one the bitmaps hold, or it was not
 * selected.  Returns rq->err.
 */
static int
attrs_verdict(struct acreV_check *c, const struct acreP_node *n,
              enum acreI_access want,
              int (*select)(void *arg, const acre_view_attr *a), void *arg,
              const struct acreC_result *cr, uint32_t *walk)
{
    struct acre_request *rq = c->rq;
    const acre_view_attr *at = c->e->attrs;
    uint32_t na = c->e->nattrs;
    uint8_t *va = rq->v_attr, *vv = rq->v_value;
    const uint32_t *first = rq->v_first;
    size_t w = rq->p->attr_words;
    uint64_t *kb = rq->vctx_bits ? vctx_bits(rq, c, n, want) : NULL;
    unsigned tmax = 0;
    uint32_t wk = 0;

    if (kb) {
        tmax = acreS_ntypes(rq->schema);
        if (tmax > w * 64)
            tmax = (unsigned)(w * 64);
    }
    for (uint32_t i = 0; i < na; i++) {
        const acre_view_attr *a = &at[i];
        unsigned t = (unsigned)a->id;
        if ((select && !select(arg, a)) || (cr && acreC_hidden(cr, a))) {
            values_fill(vv + first[i], 0, a->nvals);
            va[i] = ACRE_ATTR_NONE;
            wk |= i < 32 ? (uint32_t)1 << i : 0;
            continue;
        }
        uint64_t bit = (uint64_t)1 << (t & 63);
        if (t < tmax && (kb[t >> 6] & bit)) {
            uint8_t g = (kb[w + (t >> 6)] & bit) != 0;
            values_fill(vv + first[i], g, a->nvals);
            va[i] = g ? ACRE_ATTR_ALL : ACRE_ATTR_NONE;
            continue;
        }
        uint8_t v = attr_verdict(c, n, want, a, vv + first[i]);
        va[i] = v;
        if (rq->err)
            return rq->err;
        if (t < tmax && !c->valdep && !c->entrydep && !rq->limit_hit) {
            kb[t >> 6] |= bit;
            if (v == ACRE_ATTR_ALL)
                kb[w + (t >> 6)] |= bit;
        } else
            wk |= i < 32 ? (uint32_t)1 << i : 0;
    }
    *walk = wk;
    return 0;
}

/* A verdict that shows nothing: what every failed decision leaves. */
static inline void
verdict_none(acre_verdict *out)
{
    memset(out, 0, sizeof *out);
}

/* An attribute's id and value count: the first 8 bytes of its view. */
static inline uint64_t
shape_idn(const acre_view_attr *a)
{
    uint64_t x;

    _Static_assert(offsetof(acre_view_attr, id) == 0 &&
                       offsetof(acre_view_attr, nvals) == 4 &&
                       sizeof(int) == 4 && sizeof(unsigned) == 4,
                   "acre_view_attr starts with id, nvals");
    memcpy(&x, a, sizeof x);
    return x;
}

/* The slots of the requests begun now (acreV_set_shape_slots), fixed;
 * 0: ACREV_SHAPES, grown by shape_keep. */
static unsigned shape_fixed;

void
acreV_set_shape_slots(unsigned n)
{
    shape_fixed = n && n <= ACREV_SHAPES_MAX && !(n & (n - 1)) ? n : 0;
}

unsigned
acreV_shape_slots(const struct acre_request *rq)
{
    return rq->shapes ? rq->shape_mask + 1 : 0;
}

int
acreV_shape_table(struct acre_request *rq)
{
    unsigned n = shape_fixed ? shape_fixed : ACREV_SHAPES;

    _Static_assert(ACREV_SHAPES_MAX % 64 == 0 &&
                       !(ACREV_SHAPES_MAX & (ACREV_SHAPES_MAX - 1)) &&
                       ACREV_SHAPES <= ACREV_SHAPES_MAX,
                   "shape slots: powers of two, whole words of bits");
    if (!(rq->shapes = talloc_array(rq, struct acreV_shape, n)))
        return ACRE_ERR_NOMEM;
    rq->shape_mask = n - 1;
    rq->shape_evict = 0;
    rq->shape_grow = !shape_fixed;
    memset(rq->shapes_valid, 0, sizeof rq->shapes_valid);
    return 0;
}

/* The slot of the shape of the nattrs attributes at, in context ctx: a
 * hash of the context, the count and three of the attributes (the slot's
 * shape is compared in full). */
static inline unsigned
shape_slot(uint64_t ctx, const acre_view_attr *at, uint32_t na, unsigned mask)
{
    uint64_t h = ctx ^ (uint64_t)na << 40;

    if (na)
        h ^= shape_idn(&at[0]) * 0xff51afd7ed558ccdull ^
             shape_idn(&at[na / 2]) << 20 ^
             shape_idn(&at[na - 1]) * 0xc4ceb9fe1a85ec53ull;
    return (unsigned)((h * 0x9e3779b97f4a7c15ull) >> 40) & mask;
}

/*
 * The shape kept for e in its context ctx, or NULL: one pass over the
 * attributes, comparing each one's id and value count with the slot's.
 * An id equal to the shape's is one the schema gave (ids are never taken
 * back), a count equal to it is not 0, so what is left of verdict_init's
 * check is that the values are there; an entry it would refuse is not
 * answered here (the long way refuses what it refuses).
 */
static inline __attribute__((always_inline)) const struct acreV_shape *
shape_find(struct acre_request *rq, const acre_entry_view *e, uint64_t ctx)
{
    const acre_view_attr *at = e->attrs;
    uint32_t na = e->nattrs;
    unsigned slot = shape_slot(ctx, at, na, rq->shape_mask);
    const struct acreV_shape *s = &rq->shapes[slot];

    if (!(rq->shapes_valid[slot >> 6] >> (slot & 63) & 1) || s->ctx != ctx ||
        s->nattrs != na)
        return NULL;
    /* without a branch per attribute: x gathers every difference, z
     * every values pointer less one, whose top bit a NULL one sets (as
     * would a pointer no process is given: that one goes the long way,
     * which decides it as before) */
    uint64_t x = 0, z = 0;
    uint32_t i = 0;
#if defined(__SSE2__) && defined(__x86_64__)
    /* two attributes a step: their first 16 bytes (id and count, values)
     * loaded whole, the two halves paired by an unpack */
    _Static_assert(offsetof(acre_view_attr, vals) == 8,
                   "acre_view_attr: vals after id, nvals");
    __m128i vx = _mm_setzero_si128(), vz = vx;
    const __m128i one = _mm_set1_epi64x(1);
    for (; i + 2 <= na; i += 2) {
        __m128i a0 = _mm_loadu_si128((const __m128i *)(const void *)&at[i]);
        __m128i a1 = _mm_loadu_si128((const __m128i *)(const void *)&at[i + 1]);
        __m128i k = _mm_loadu_si128((const __m128i *)(const void *)&s->idn[i]);
        vx = _mm_or_si128(vx, _mm_xor_si128(_mm_unpacklo_epi64(a0, a1), k));
        vz = _mm_or_si128(vz, _mm_sub_epi64(_mm_unpackhi_epi64(a0, a1), one));
    }
    vx = _mm_or_si128(vx, _mm_unpackhi_epi64(vx, vx));
    vz = _mm_or_si128(vz, _mm_unpackhi_epi64(vz, vz));
    x = (uint64_t)_mm_cvtsi128_si64(vx);
    z = (uint64_t)_mm_cvtsi128_si64(vz);
#endif
    for (; i + 2 <= na; i += 2) {
        x |= (shape_idn(&at[i]) ^ s->idn[i]) |
             (shape_idn(&at[i + 1]) ^ s->idn[i + 1]);
        z |= ((uintptr_t)at[i].vals - 1) | ((uintptr_t)at[i + 1].vals - 1);
    }
    if (i < na) {
        x |= shape_idn(&at[i]) ^ s->idn[i];
        z |= (uintptr_t)at[i].vals - 1;
    }
    return x || z >> 63 ? NULL : s;
}

/*
 * e's verdict from its shape s, which marks attributes to walk: the
 * slot's answers copied into the request's arrays, then each marked
 * attribute decided as the long way decides it (attrs_verdict: one
 * check, one epoch for the entry).  The entry itself is visible (a shape
 * of a hidden entry has nothing to walk).  Returns rq->err.
 */
static int
shape_walk(struct acre_request *rq, const acre_entry_view *e,
           const struct acreV_shape *s, const struct acreP_node *n,
           enum acreI_access want, int is_self, acre_verdict *out)
{
    uint32_t na = e->nattrs, nv = s->nvalues;
    struct acreV_check c;

    if ((na > rq->v_attr_cap || nv > rq->v_value_cap) &&
        verdict_room(rq, na, nv)) {
        verdict_none(out);
        return ACRE_ERR_NOMEM;
    }
    memcpy(rq->v_attr, s->ans, na);
    memcpy(rq->v_first, s->first, na * sizeof *s->first);
    memcpy(rq->v_value, s->value, nv);
    verdict_none(out);
    out->visible = 1;
    out->nattrs = na;
    out->attr = rq->v_attr;
    out->value = rq->v_value;
    out->first = rq->v_first;
    check_walks(&c, rq, e, is_self);
    for (uint32_t w = s->walk; w; w &= w - 1) {
        unsigned i = (unsigned)__builtin_ctz(w);
        rq->v_attr[i] = walked_verdict(&c, n, want, &e->attrs[i],
                                       rq->v_value + s->first[i]);
        if (rq->err) {
            verdict_none(out);
            return rq->err;
        }
    }
    return 0;
}

/* Keep e's verdict out, made the long way in context ctx from answers
 * that depended on nothing else, for e's shape (if it fits a slot). */
static void
shape_keep(struct acre_request *rq, const acre_entry_view *e, uint64_t ctx,
           const acre_verdict *out, uint32_t walk)
{
    const acre_view_attr *at = e->attrs;
    uint32_t na = e->nattrs;
    size_t nv = 0;

    _Static_assert(ACREV_SHAPE_MAX <= 32 && ACREV_SHAPE_VALUES <= 255,
                   "acreV_shape.walk and .nvalues");
    if (na > ACREV_SHAPE_MAX)
        return;
    for (uint32_t i = 0; i < na; i++) {
        if (!(walk >> i & 1) && out->attr[i] != ACRE_ATTR_ALL &&
            out->attr[i] != ACRE_ATTR_NONE)
            return; /* never for a kept answer: not kept either */
        nv += at[i].nvals;
    }
    if (nv > ACREV_SHAPE_VALUES)
        return;
    unsigned slot = shape_slot(ctx, at, na, rq->shape_mask);
    if (rq->shapes_valid[slot >> 6] >> (slot & 63) & 1 &&
        ++rq->shape_evict >= ACREV_SHAPES_GROW && rq->shape_grow &&
        rq->shape_mask + 1 < ACREV_SHAPES_MAX) {
        /* this operation's shapes keep replacing each other, and each
         * replaced one costs a long way again (several times what the
         * larger table costs): it gets the most slots (once; if they
         * cannot be had, the old table stays and the count starts
         * again) */
        struct acreV_shape *t =
            talloc_array(rq, struct acreV_shape, ACREV_SHAPES_MAX);
        rq->shape_evict = 0;
        if (t) {
            talloc_free(rq->shapes);
            rq->shapes = t;
            rq->shape_mask = ACREV_SHAPES_MAX - 1;
            memset(rq->shapes_valid, 0, sizeof rq->shapes_valid);
            slot = shape_slot(ctx, at, na, rq->shape_mask);
        }
    }
    struct acreV_shape *s = &rq->shapes[slot];
    s->ctx = ctx;
    s->nattrs = na;
    s->visible = (uint8_t)out->visible;
    s->nvalues = (uint8_t)nv;
    s->walk = walk;
    for (uint32_t i = 0; i < na; i++) {
        s->idn[i] = shape_idn(&at[i]);
        s->ans[i] = out->attr[i];
        s->first[i] = out->first[i];
    }
    memcpy(s->value, out->value, nv);
    rq->shapes_valid[slot >> 6] |= (uint64_t)1 << (slot & 63);
}

/* The collective part of a verdict: room, then each selected attribute
 * (collectiveAttributeSubentries only when a selection asks for it). */
static int
coll_verdict(struct acreV_check *c, const struct acreP_node *n,
             enum acreI_access want, const struct acreC_result *cr,
             int (*select)(void *arg, const acre_view_attr *a), void *arg,
             acre_verdict *out)
{
    struct acre_request *rq = c->rq;
    const struct acreC_out *o = acreC_outs(cr);
    uint32_t k, nout = acreC_nout(cr);
    size_t nvals = 0;

    for (k = 0; k < nout; k++)
        nvals += o[k].a.nvals;
    if (nout > rq->vc_attr_cap || nvals > rq->vc_value_cap) {
        size_t ca = nout * 2 + 8, cv = nvals * 2 + 32;
        uint8_t *a = talloc_realloc(rq->mem, rq->vc_attr, uint8_t, ca);
        uint32_t *f =
            a ? talloc_realloc(rq->mem, rq->vc_first, uint32_t, ca) : NULL;
        uint8_t *v =
            f ? talloc_realloc(rq->mem, rq->vc_value, uint8_t, cv) : NULL;
        if (a)
            rq->vc_attr = a;
        if (f)
            rq->vc_first = f;
        if (!v)
            return ACRE_ERR_NOMEM;
        rq->vc_value = v;
        rq->vc_attr_cap = ca;
        rq->vc_value_cap = cv;
    }
    acreC_view(cr, &out->coll);
    out->coll_attr = rq->vc_attr;
    out->coll_value = rq->vc_value;
    out->coll_first = rq->vc_first;
    if (nvals)
        memset(rq->vc_value, 0, nvals);
    for (k = 0, nvals = 0; k < nout; k++) {
        const acre_view_attr *a = &o[k].a;
        rq->vc_first[k] = (uint32_t)nvals;
        nvals += a->nvals;
        rq->vc_attr[k] = ACRE_ATTR_NONE;
        if (!out->visible || !a->nvals ||
            ((o[k].flags & ACREC_OUT_CAS) ? !select || !select(arg, a)
                                          : select && !select(arg, a)))
            continue;
        rq->vc_attr[k] =
            attr_verdict(c, n, want, a, rq->vc_value + rq->vc_first[k]);
    }
    return 0;
}

/* verdict_init -- room for e's verdict and each attribute's first value
 * (out->first); *nvals the values in all.  ACRE_ERR_INVAL for an
 * attribute with an id the schema never gave, or no value (the one pass
 * over the attributes acre_entry_decide makes before deciding:
 * acreE_view_check's, merged).  The answers are left for the caller to
 * write, every one of them (verdict_clear: everything denied). */
static int
verdict_init(struct acre_request *rq, const acre_entry_view *e,
             acre_verdict *out, size_t *nvals)
{
    unsigned limit = acreS_id_limit(rq->schema);
    const acre_view_attr *at = e->attrs;
    uint32_t na = e->nattrs;
    size_t nv = 0;

    if (na > rq->v_attr_cap && verdict_room(rq, na, 0))
        return ACRE_ERR_NOMEM;
    uint32_t *first = rq->v_first;
    for (uint32_t i = 0; i < na; i++) {
        const acre_view_attr *a = &at[i];
        if ((unsigned)a->id >= limit || !a->nvals || !a->vals)
            return ACRE_ERR_INVAL;
        first[i] = (uint32_t)nv;
        nv += a->nvals;
    }
    if (nv > rq->v_value_cap && verdict_room(rq, 0, nv))
        return ACRE_ERR_NOMEM;
    out->nattrs = na;
    out->attr = rq->v_attr;
    out->value = rq->v_value;
    out->first = rq->v_first;
    *nvals = nv;
    return 0;
}

/* Every attribute and value of the verdict verdict_init began denied. */
static void
verdict_clear(struct acre_request *rq, uint32_t nattrs, size_t nvals)
{
    if (nattrs)
        memset(rq->v_attr, ACRE_ATTR_NONE, nattrs);
    if (nvals)
        memset(rq->v_value, 0, nvals);
}

/*
 * e's verdict for want (no selection, no collective attributes) from the
 * shape its entry context keeps (one pass: shape_verdict): 1 answered;
 * else 0, with *np its index node and *ctx the context's key for the long
 * way (NULL and 0: no shape is kept for e).
 */
static inline __attribute__((always_inline)) int
shape_try(struct acre_request *rq, const acre_entry_view *e,
          enum acreI_access want, acre_verdict *out,
          const struct acreP_node **np, uint64_t *ctx, int *rc)
{
    *np = NULL;
    *ctx = 0;
    if (!rq->shapes || (rq->p->coll && !acreC_gives_nothing(rq->p->coll)) ||
        e->nattrs > ACREV_SHAPE_MAX)
        return 0;
    /* the entry's lines this path reads, asked for at once: its DN's
     * lines after the header (hashes, RDN offsets, text), before the
     * header itself is read, its attribute records, and its parent's
     * bytes (a verdict here waits mostly on the host's memory; a
     * prefetch past an object's end is harmless) */
    const char *db = (const char *)e->dn;
    __builtin_prefetch(db + 64);
    __builtin_prefetch(db + 128);
    const char *ab = (const char *)e->attrs;
    const char *ae = (const char *)(e->attrs + e->nattrs);
    for (; ab < ae; ab += 64)
        __builtin_prefetch(ab);
    __builtin_prefetch(ae - 1);
    if (!acreE_is(e->dn, ACRED_MAGIC))
        return 0;
    acre_assert(!rq->p->aci); /* ACI policies keep no shapes */
    __builtin_prefetch(acreD_norm(e->dn) + acreD_nrdn(e->dn)[1]);
    const struct acreP_node *n = *np = node_of(rq, e->dn);
    int is_self = is_requester(rq, e->dn);
    *ctx = vctx_key(rq, key_base(e->dn->depth, is_self), n, want);
    const struct acreV_shape *s = shape_find(rq, e, *ctx);
    if (!s)
        return 0;
    rq->err = 0;
    if (s->walk) {
        *rc = shape_walk(rq, e, s, n, want, is_self, out);
        return 1;
    }
    /* every field written once (a memset first would be a rep stos) */
    out->visible = s->visible;
    out->nattrs = e->nattrs;
    out->attr = s->ans;
    out->value = s->value;
    out->first = s->first;
    out->coll = (acre_collective_view){0, 0, NULL};
    out->coll_attr = out->coll_value = NULL;
    out->coll_first = NULL;
    *rc = 0;
    return 1;
}

/* acreV_entry_verdict's long way, given e's index node n (NULL: not
 * found yet) and its context's key ctx (0: keep no shape). */
static int
entry_verdict(struct acre_request *rq, const acre_entry_view *e,
              enum acreI_access want,
              int (*select)(void *arg, const acre_view_attr *a), void *arg,
              const struct acreC_result *cr, acre_verdict *out,
              const struct acreP_node *n, uint64_t ctx)
{
    struct acreV_check c;
    uint32_t mask;
    size_t nvals;
    int rc;

    rq->err = 0;
    verdict_none(out);
    if (rq->p->aci) { /* its own index (aci_index.h) */
        /* it writes every attribute and value of a visible entry */
        if ((rc = verdict_init(rq, e, out, &nvals)) != 0)
            return rc;
        if ((rc = acreV_aci_verdict(rq, e, select, arg, out)) != 0)
            verdict_none(out);
        else if (!out->visible)
            verdict_clear(rq, e->nattrs, nvals);
        return rc;
    }
    if (!n)
        n = node_of(rq, e->dn);
    /* before the entry's checks: slapo-collect sources are checked too */
    if ((!cr && rq->p->coll && (rc = acreC_compute(rq, e, n, &cr)) != 0) ||
        (rc = verdict_init(rq, e, out, &nvals)) != 0)
        return rc;
    /* one epoch for the whole entry: its filters are evaluated once, on
     * the entry as slapd checks a result for read: with its collective
     * values, slapo-collect's included (its overlay adds them first) */
    acreV_check_init(&c, rq, e, rq->p->id_entry, NULL, NULL, 0);
    if (cr && rq->p->nfilters &&
        !(c.fe = acreC_merged(rq, e, cr,
                              ACREC_MERGE_COLLECT |
                                  (rq->p->coll->flags & ACRE_COLL_NO_FILTER
                                       ? 0
                                       : ACREC_MERGE_SUBENTRY)))) {
        verdict_none(out);
        return ACRE_ERR_NOMEM;
    }
    out->visible = decide_memo(&c, n, want, &mask);
    /* the entry's own answer is the context's (the memo's kind) */
    int kept = ctx && !c.entrydep && !c.valdep && !rq->limit_hit && !rq->err;
    uint32_t walk = 0;
    if (!out->visible)
        verdict_clear(rq, e->nattrs, nvals);
    else if ((rc = attrs_verdict(&c, n, want, select, arg, cr, &walk)) != 0) {
        verdict_none(out);
        return rc;
    }
    if (kept && !rq->err)
        shape_keep(rq, e, ctx, out, walk);
    /* collective values are checked as the entry's own, on the entry */
    rc = cr && !rq->err ? coll_verdict(&c, n, want, cr, select, arg, out) : 0;
    if (!rc)
        rc = rq->err;
    if (rc)
        verdict_none(out);
    return rc;
}

int
acreV_entry_verdict(struct acre_request *rq, const acre_entry_view *e,
                    enum acreI_access want,
                    int (*select)(void *arg, const acre_view_attr *a),
                    void *arg, const struct acreC_result *cr, acre_verdict *out)
{
    const struct acreP_node *n = NULL;
    uint64_t ctx = 0;

    int rc;

    if (!select && !cr && shape_try(rq, e, want, out, &n, &ctx, &rc))
        return rc;
    return entry_verdict(rq, e, want, select, arg, cr, out, n, ctx);
}

ACRE_PUBLIC int
acre_entry_decide(acre_request *rq, const acre_entry_view *e, int right,
                  acre_verdict *out)
{
    /* the attributes are checked by verdict_init, in its one pass (or
     * found the same as a kept shape's); acreV_entry_verdict writes all
     * of *out */
    if (!rq_ok(rq) || !e || e->schema != rq->schema || !e->dn ||
        (e->nattrs && !e->attrs) || right < ACRE_RIGHT_DISCLOSE ||
        right > ACRE_RIGHT_MANAGE || !out || rq->p->id_entry < 0) {
        if (out)
            verdict_none(out);
        return !rq_ok(rq) ? (rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL)
                          : ACRE_ERR_INVAL;
    }
    const struct acreP_node *n;
    uint64_t ctx;
    int rc;
    if (shape_try(rq, e, (enum acreI_access)right, out, &n, &ctx, &rc))
        return rc;
    return entry_verdict(rq, e, (enum acreI_access)right, NULL, NULL, NULL, out,
                         n, ctx);
}
