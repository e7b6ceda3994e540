/*
 * openldap_oracle.c -- the reference evaluator of the OpenLDAP dialect:
 * one check, decided as slapd 2.5's slap_access_allowed(), slap_acl_get()
 * and slap_acl_mask() do (servers/slapd/acl.c), read straight off the
 * parsed rules.
 *
 * The decision for one check (requester, entry, attribute, value, want):
 *   1. the requester (authorisation DN) is the rootdn of the entry's
 *      database: manage, granted;
 *   2. a write-level check on a no-user-modification attribute (other
 *      than entry and children) is granted, with the mask left at none;
 *   3. neither the database nor the global section has a rule: the
 *      default read for everyone, anonymous included;
 *   4. the database's rules, then the global rules (only the global ones
 *      when the database has none), in order: the first whose <what>
 *      matches scans its <by> clauses (openldap_oracle_who.c); "break"
 *      goes on to the next matching rule with the mask carried along;
 *   5. a check that runs out of rules after "break" (or matches none) is
 *      denied, whatever the mask says -- slapd returns 0 there (acl.c,
 *      "no more rules"), although it reports the mask;
 *   6. otherwise granted iff every bit of the wanted privilege is in the
 *      mask.
 * The mask starts at "0" (ACL_PRIV_NONE) and changes as slapd's does.
 */
#include "openldap_oracle_int.h"

#include "filter.h"
#include "match.h"
#include "openldap_int.h"
#include "schema.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * The oracle object
 */

static const char *
copy_or_null(void *ctx, const char *s)
{
    return s ? talloc_strdup(ctx, s) : NULL;
}

/* Parse a requester DN; NULL or "" is anonymous. */
static int
requester_dn(struct acreR_oracle *o, const char *s, const acre_dn **dn,
             const char **norm)
{
    acre_dn *d;

    *dn = NULL;
    *norm = "";
    if (!s || !*s)
        return 0;
    int rc = acre_dn_parse(o, o->schema, s, strlen(s), 0, &d, NULL);
    if (rc)
        return rc;
    *dn = d;
    *norm = acre_dn_normalised(d, NULL);
    if (!**norm) /* a DN that normalises to "" is anonymous too */
        *dn = NULL;
    return 0;
}

int
acreR_oracle_new(void *mem_ctx, const struct acreI_policy *cfg,
                 const struct acreE_dir *dir, const struct acreR_requester *rq,
                 struct acreR_oracle **out)
{
    struct acreR_oracle *o = talloc_zero(mem_ctx, struct acreR_oracle);
    int rc;

    if (!o)
        return ACRE_ERR_NOMEM;
    o->cfg = cfg;
    o->schema = cfg->schema;
    o->dir = dir;
    o->rq = *rq;
    o->rq.authz_dn = copy_or_null(o, rq->authz_dn);
    o->rq.authc_dn = copy_or_null(o, rq->authc_dn);
    o->rq.peername = copy_or_null(o, rq->peername);
    o->rq.sockname = copy_or_null(o, rq->sockname);
    o->rq.sockurl = copy_or_null(o, rq->sockurl);
    o->rq.domain = copy_or_null(o, rq->domain);
    rc = requester_dn(o, rq->authz_dn, &o->authz, &o->authz_norm);
    if (!rc)
        rc = requester_dn(o, rq->authc_dn ? rq->authc_dn : rq->authz_dn,
                          &o->authc, &o->authc_norm);
    if (rc) {
        talloc_free(o);
        return rc;
    }
    o->id_entry = acreS_attr_find(o->schema, "entry", 5);
    o->id_children = acreS_attr_find(o->schema, "children", 8);
    o->id_entrydn = acreS_attr_find(o->schema, "entryDN", 7);
    o->id_objectclass = acreS_attr_find(o->schema, "objectClass", 11);
    o->id_userpassword = acreS_attr_find(o->schema, "userPassword", 12);
    *out = o;
    return 0;
}

void
acreR_target_attr(struct acreR_target *t, const acre_schema *s,
                  const acre_entry_view *e, const acre_view_attr *a, int j)
{
    const struct acreS_dinfo *d = acreS_dinfo(s, a->id);

    memset(t, 0, sizeof(*t));
    t->entry = e;
    t->type = d->type;
    t->nopts = d->nopts;
    t->opts = d->opts;
    t->opt_len = d->opt_len;
    if (j >= 0) {
        const acre_value *v = a->norms ? &a->norms[j] : &a->vals[j];
        t->val = v->val;
        t->val_len = v->len;
    }
}

int
acreR_dir_children(void *arg, const acre_entry_view *e)
{
    const struct acreE_entry *d = acreE_dir_find(arg, e->dn);

    return d && (d->nchildren > 0 || d->first_child != NULL);
}

struct acreF_hooks
acreR_dir_hooks(const struct acreE_dir *dir)
{
    struct acreF_hooks h = {
        NULL, NULL, acreR_dir_children, (void *)dir, NULL, NULL, NULL, 0, NULL};

    return h;
}

int
acreR_target_type(const struct acreR_oracle *o, struct acreR_target *t,
                  const acre_entry_view *e, const char *type_name)
{
    memset(t, 0, sizeof(*t));
    t->entry = e;
    t->type = acreS_attr_find(o->schema, type_name, strlen(type_name));
    return t->type;
}

void
acreR_oracle_trace(struct check *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->trace || !*c->trace)
        return;
    va_start(ap, fmt);
    *c->trace = talloc_vasprintf_append_buffer(*c->trace, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * Shared helpers
 */

/* PCRE2's match and submatches of compiled pattern re on s (patterns
 * with back-references: acre does not run glibc's regexec on them). */
static int
pcre_match(const struct acreI_regex *re, const char *s, int (*off)[2], int nsub)
{
    pcre2_match_data *md = pcre2_match_data_create(ACREI_MAX_MATCHES, NULL);

    if (!md)
        return 0;
    int rc =
        pcre2_match(re->code, (PCRE2_SPTR)s, strlen(s), 0, 0, md, re->mctx);
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    for (int i = 0; rc >= 0 && i < nsub; i++) {
        int unset = (rc > 0 && i >= rc) || ov[2 * i] == PCRE2_UNSET;
        off[i][0] = unset ? -1 : (int)ov[2 * i];
        off[i][1] = unset ? -1 : (int)ov[2 * i + 1];
    }
    pcre2_match_data_free(md);
    return rc >= 0;
}

int
acreR_oracle_regex_rule(const struct acreI_regex *re, const char *s,
                        int (*off)[2], int nsub)
{
    regex_t px;
    regmatch_t m[ACREI_MAX_MATCHES];

    if (nsub > ACREI_MAX_MATCHES)
        nsub = ACREI_MAX_MATCHES;
    if (re->flags & ACREI_RE_BACKREF)
        return re->code && pcre_match(re, s, off, nsub);
    if (regcomp(&px, re->pattern, REG_EXTENDED | REG_ICASE))
        return 0;
    int rc = regexec(&px, s, (size_t)nsub, nsub ? m : NULL, 0);
    regfree(&px);
    for (int i = 0; rc == 0 && i < nsub; i++) {
        off[i][0] = (int)m[i].rm_so;
        off[i][1] = (int)m[i].rm_eo;
    }
    return rc == 0;
}

int
acreR_oracle_regex_match(const char *pat, int expanded, const char *s,
                         int (*off)[2], int nsub)
{
    void *tmp = talloc_new(NULL);
    struct acreI_regex re = {0};
    const char *why = NULL;
    size_t n = strlen(pat);

    int rc = expanded ? acreO_regex_compile_expanded(tmp, pat, n, &re, &why)
                      : acreO_regex_compile(tmp, pat, n, &re, &why);
    int m = !rc && acreR_oracle_regex_rule(&re, s, off, nsub);
    talloc_free(tmp);
    return m;
}

char *
acreR_slapd_dn(void *ctx, const char *ndn)
{
    char *out = talloc_strdup(ctx, "");
    int in_value = 0;

    for (const char *p = ndn; out && *p; p++) {
        if (!in_value) {
            out = talloc_asprintf_append(out, "%c", *p);
            in_value = *p == '=';
        } else if (*p == '\\' && isxdigit((unsigned char)p[1]) &&
                   isxdigit((unsigned char)p[2])) { /* "\00": a hex pair */
            out = talloc_asprintf_append(out, "\\%c%c",
                                         toupper((unsigned char)p[1]),
                                         toupper((unsigned char)p[2]));
            p += 2;
        } else if (*p == '\\' && p[1]) { /* "\," and the like */
            out = talloc_asprintf_append(out, "\\%02X", (unsigned char)*++p);
        } else if (*p == '=') {
            out = talloc_asprintf_append(out, "\\3D");
        } else {
            out = talloc_asprintf_append(out, "%c", *p);
            in_value = *p != ',' && *p != '+';
        }
    }
    return out;
}

const acre_dn *
acreR_oracle_parse_dn(struct check *c, const char *s, size_t n)
{
    acre_dn *dn;
    size_t i = 0;

    while (i < n && s[i] == ' ')
        i++;
    if (n > 0 && i == n)
        return NULL;
    if (acre_dn_parse(c->tmp, c->o->schema, s, n, ACRE_DN_STRICT, &dn, NULL))
        return NULL;
    return dn;
}

int
acreR_oracle_value_is_dn(struct check *c, int type, const char *v, size_t vn,
                         const char *ndn)
{
    const struct acreS_attr *at = acreS_attr(c->o->schema, type);
    uint8_t local[512];
    struct acreE_buf b;

    if (at->eq == ACREM_NONE)
        return 0;
    acreE_buf_init(&b, local, sizeof(local));
    int ok = acreM_normalise(c->o->schema, at->eq, (const uint8_t *)ndn,
                             strlen(ndn), &b) == 0 &&
             b.len == vn && memcmp(b.p, v, vn) == 0;
    acreE_buf_free(&b);
    return ok;
}

/* ------------------------------------------------------------------------
 * <what>
 */

/* The entry against a non-regex dn part (slapd's string checks, done on
 * the DN structure, with their outcome for an empty pattern). */
static int
what_dn(const acre_entry_view *e, const struct acreI_what *w)
{
    unsigned pd = w->dn ? acre_dn_depth(w->dn) : 0;

    switch (w->dn_style) {
    case ACREI_DN_BASE:
        return acre_dn_equal(e->dn, w->dn);
    case ACREI_DN_ONE:
        return pd == 0 ? acre_dn_depth(e->dn) == 1
                       : acre_dn_in_scope(e->dn, w->dn, ACRE_SCOPE_ONE) == 1;
    case ACREI_DN_SUBTREE:
        return acre_dn_in_scope(e->dn, w->dn, ACRE_SCOPE_SUB) == 1;
    case ACREI_DN_CHILDREN:
        return pd > 0 &&
               acre_dn_in_scope(e->dn, w->dn, ACRE_SCOPE_CHILDREN) == 1;
    default:
        return 1;
    }
}

int
acreR_oracle_tag_covers(const char *w, size_t wn, const char *h, size_t hn)
{
    if (wn == 0)
        return hn == 0;
    if (wn > hn) /* "lang-en-" against lang-en */
        return wn - 1 == hn && w[wn - 1] == '-' && !strncasecmp(w, h, hn);
    return (wn == hn || w[wn - 1] == '-') && !strncasecmp(w, h, wn);
}

/* Tag compatibility of ad_inlist: each wanted tag is satisfied by one of
 * the attribute's (is_ad_subtags). */
static int
opts_cover(const struct acreR_target *t, const struct acreI_attrspec *a)
{
    for (unsigned i = 0; i < a->nopts; i++) {
        size_t wl = strlen(a->opts[i]);
        int found = 0;
        for (unsigned j = 0; j < t->nopts && !found; j++)
            found = acreR_oracle_tag_covers(a->opts[i], wl, t->opts[j],
                                            t->opt_len[j]);
        if (!found)
            return 0;
    }
    return 1;
}

static int
opts_equal(const struct acreR_target *t, const struct acreI_attrspec *a)
{
    if (t->nopts != a->nopts)
        return 0;
    for (unsigned i = 0; i < a->nopts; i++)
        if (strlen(a->opts[i]) != t->opt_len[i] ||
            strncasecmp(t->opts[i], a->opts[i], t->opt_len[i]))
            return 0;
    return 1;
}

/* Does class oc require or allow type (or one of its supertypes)? */
static int
class_has(const acre_schema *s, int oc, int type)
{
    const struct acreS_class *c = acreS_class(s, oc);

    for (int a = type; a >= 0; a = acreS_attr(s, a)->sup) {
        unsigned w = (unsigned)a >> 6;
        uint64_t bit = (uint64_t)1 << ((unsigned)a & 63);
        if ((c->all_must[w] | c->all_may[w]) & bit)
            return 1;
    }
    return 0;
}

/* slapd's ad_inlist(desc, attrs): 1 in the list, 0 not. */
static int
attr_in_list(const struct acreR_oracle *o, const struct acreR_target *t,
             const struct acreI_what *w)
{
    for (unsigned i = 0; i < w->nattrs; i++) {
        const struct acreI_attrspec *a = &w->attrs[i];
        switch (a->kind) {
        case ACREI_ATTR_EXACT:
            if (t->type == a->type && opts_equal(t, a))
                return 1;
            break;
        case ACREI_ATTR_TYPE:
            if (t->type == a->type && opts_equal(t, a))
                return 1;
            if (acreS_is_subtype(o->schema, t->type, a->type) &&
                opts_cover(t, a))
                return 1;
            break;
        case ACREI_ATTR_CLASS:
            if (a->extensible || class_has(o->schema, a->oc, t->type))
                return 1;
            break;
        case ACREI_ATTR_NOT_CLASS: /* decides at once, as slapd */
            return !a->extensible && !class_has(o->schema, a->oc, t->type);
        }
    }
    return 0;
}

/* A DN-syntax val with a scope: the value as a DN against the pattern. */
static int
val_dn_scope(struct check *c, const struct acreI_val *v)
{
    const acre_dn *dn = acreR_oracle_parse_dn(c, c->val, c->t->val_len);
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

static int
what_val(struct check *c, const struct acreI_val *v, struct matches *m)
{
    const struct acreR_target *t = c->t;

    if (!t->val)
        return 0;
    if (v->style == ACREI_VAL_REGEX)
        return acreR_oracle_regex_rule(&v->re, c->sval, m->val,
                                       ACREI_MAX_MATCHES);
    /* (objectClass values, whose regex sees their spelling and whose
     * val= is objectSubClassMatch, are not generated: golden
     * search-val-objectclass holds slapd's answers) */
    if (v->style == ACREI_VAL_EXACT) /* normalised forms, byte for byte */
        return t->val_len == v->norm_len &&
               memcmp(t->val, v->norm, v->norm_len) == 0;
    return val_dn_scope(c, v);
}

/* The submatches a non-regex <what> gives its <who>: $0 the entry's DN,
 * and $1 the part matching the pattern for one/subtree/children. */
static void
style_matches(struct check *c, const struct acreI_what *w, struct matches *tm)
{
    int len = (int)strlen(c->sdn);

    memset(tm, 0, sizeof(*tm));
    tm->dn_src = c->sdn;
    tm->val_src = c->sval;
    tm->val_count = ACREI_MAX_MATCHES;
    tm->dn[0][1] = len;
    tm->dn_count = 1;
    if (w->dn_style == ACREI_DN_ONE || w->dn_style == ACREI_DN_SUBTREE ||
        w->dn_style == ACREI_DN_CHILDREN) {
        size_t pl =
            strlen(acreR_slapd_dn(c->tmp, acre_dn_normalised(w->dn, NULL)));
        tm->dn[1][0] = len - (int)pl;
        tm->dn[1][1] = len;
        tm->dn_count = 2;
    }
}

/* Where slapd's rule walk is: a rule of the database's list (front 0) or
 * the frontend's, at index at; at -1 is NULL. */
struct acl_ptr {
    int front, at;
};

/* ACL_RECORD_VALUE_STATE (and its twin in slap_acl_get): the first rule
 * or clause that looks at the value sets the resume point. */
static void
record(struct acreR_astate *st, struct acl_ptr prev, uint32_t mask)
{
    if (st->present)
        return;
    st->present = 1;
    st->vd_front = prev.front;
    st->vd_at = prev.at;
    st->vd_mask = mask;
}

/* slapd's slap_acl_get for one rule: 1 when its <what> covers the check;
 * m receives the regex submatches, tm those <who> DN patterns see.  A
 * value condition reached records prev (the rule before) in st. */
static int
what_matches(struct check *c, const struct acreI_rule *r, struct matches *m,
             struct matches *tm, struct acreR_astate *st, struct acl_ptr prev,
             uint32_t mask)
{
    const struct acreI_what *w = &r->what;

    memset(m, 0, sizeof(*m));
    m->dn_src = c->sdn;
    m->dn_count = ACREI_MAX_MATCHES;
    m->val_src = c->sval;
    m->val_count = ACREI_MAX_MATCHES;
    if (w->dn_style == ACREI_DN_REGEX) {
        if (!acreR_oracle_regex_rule(acreI_dn_re(w), c->sdn, m->dn,
                                     ACREI_MAX_MATCHES))
            return 0;
    } else if (!what_dn(c->t->entry, w)) {
        return 0;
    }
    if (w->has_attrs && !attr_in_list(c->o, c->t, w))
        return 0;
    if (acreI_val(w)->style != ACREI_VAL_NONE) {
        if (!c->t->val)
            return 0;
        record(st, prev, mask);
        if (!what_val(c, acreI_val(w), m))
            return 0;
    }
    struct acreF_hooks h = acreR_dir_hooks(c->o->dir);
    if (w->filter && acreF_eval(w->filter, c->t->entry, &h) != ACREF_TRUE)
        return 0;
    if (acreI_val(w)->style == ACREI_VAL_REGEX || w->dn_style == ACREI_DN_REGEX)
        *tm = *m;
    else
        style_matches(c, w, tm);
    return 1;
}

/* ------------------------------------------------------------------------
 * The decision
 */

/* The <by> clauses of a matched rule (slapd's slap_acl_mask); a clause
 * whose access has "self" records prev, the last rule that matched and
 * broke (or where the walk began), in st as soon as it is reached. */
static enum acreI_control
by_clauses(struct check *c, const struct acreI_rule *r, const struct matches *m,
           const struct matches *tm, uint32_t *mask, struct acreR_astate *st,
           struct acl_ptr prev)
{
    for (unsigned i = 0; i < r->nby; i++) {
        const struct acreI_clause *b = &r->by[i];
        if (b->dn.self)
            record(st, prev, *mask);
        if (!acreR_oracle_by_matches(c, r, b, m, tm))
            continue;
        *mask = acreI_mask_apply(*mask, b->mask);
        char buf[ACRE_MASK_BUF];
        acreR_oracle_trace(c, "  by #%u applies: mask %s\n", i + 1,
                           acreI_mask_format(*mask, buf));
        if (b->control == ACREI_CONTINUE)
            continue;
        return b->control;
    }
    *mask = ACREI_PRIV_NONE; /* the implicit "by * none" */
    acreR_oracle_trace(c, "  implicit by * none\n");
    return ACREI_STOP;
}

/* The two lists of rules a check walks: the entry's database's (none:
 * NULL, as slapd's be_acl) and the frontend's. */
struct lists {
    const struct acreI_section *l[2];
};

static unsigned
list_len(const struct lists *L, int front)
{
    return L->l[front] ? L->l[front]->nrules : 0;
}

/* slapd's slap_acl_get: from the rule after *a (the first one when *a is
 * NULL), the next rule whose <what> covers the check, into *a; 0 when
 * none is left.  as_fe_done goes up by one for each rule visited other
 * than the frontend's first while it is non-zero, and the frontend's
 * rules follow the database's only while it is zero. */
static int
acl_get(struct check *c, const struct lists *L, struct acl_ptr *a,
        struct acreR_astate *st, uint32_t mask, struct matches *m,
        struct matches *tm)
{
    struct acl_ptr prev = {0, -1};

    if (a->at < 0) {
        a->front = list_len(L, 0) == 0;
        a->at = 0;
        if (a->front)
            st->fe_done = 1;
    } else {
        prev = *a;
        a->at++;
    }
    for (;;) {
        for (; a->at < (int)list_len(L, a->front); prev = *a, a->at++) {
            if (!(a->front && a->at == 0) && st->fe_done)
                st->fe_done++;
            const struct acreI_section *s = L->l[a->front];
            const struct acreI_rule *r = &s->rules[a->at];
            if (!what_matches(c, r, m, tm, st, prev, mask))
                continue;
            acreR_oracle_trace(c, "rule %s#%d (line %u) matches\n", s->type,
                               a->at, r->pos.line);
            return 1;
        }
        if (st->fe_done)
            return 0;
        st->fe_done = 1; /* the frontend's rules, from the first */
        a->front = 1;
        a->at = 0;
    }
}

static int
is_write(enum acreI_access want)
{
    return want == ACREI_ACCESS_WADD || want == ACREI_ACCESS_WDEL ||
           want == ACREI_ACCESS_WRITE;
}

/* acreR_oracle_section -- see openldap_oracle_int.h. */
const struct acreI_section *
acreR_oracle_section(const struct acreI_policy *cfg, const acre_dn *dn)
{
    for (unsigned d = 0; d < cfg->ndbs; d++)
        for (unsigned i = 0; i < cfg->dbs[d].nsuffix; i++)
            if (acre_dn_in_scope(dn, cfg->dbs[d].suffix[i], ACRE_SCOPE_SUB) ==
                1)
                return &cfg->dbs[d];
    return NULL;
}

static int
decide(struct check *c, enum acreI_access want, uint32_t *mask,
       struct acreR_astate *st)
{
    const struct acreR_oracle *o = c->o;
    const struct acreI_section *db =
        acreR_oracle_section(o->cfg, c->t->entry->dn);
    const struct acreI_section *front = &o->cfg->frontend;
    uint32_t p = acreI_access_priv(want);

    *mask = ACREI_PRIV_NONE;
    if (db && db->rootdn && o->authz && acre_dn_equal(o->authz, db->rootdn)) {
        *mask = ACREI_LVL_MANAGE;
        return 1;
    }
    if (is_write(want) && c->t->type != o->id_entry &&
        c->t->type != o->id_children &&
        (acreS_attr(o->schema, c->t->type)->flags & ACRES_NO_USER_MOD))
        return 1;
    if ((!db || db->nrules == 0) && front->nrules == 0) {
        *mask = ACREI_LVL_READ;
        return (ACREI_LVL_READ & p) == p;
    }
    /* slap_access_allowed: resume where the state says, or start afresh */
    struct lists L = {{db && db->nrules ? db : NULL, front}};
    struct acl_ptr a = {0, -1};
    if (st->present) {
        a.front = st->vd_front;
        a.at = st->vd_at;
        if (st->fe_done)
            st->fe_done--;
        *mask = st->vd_mask;
    } else {
        memset(st, 0, sizeof(*st));
    }
    struct acl_ptr prev = a;
    struct matches m, tm;
    enum acreI_control ctl = ACREI_BREAK;
    while (acl_get(c, &L, &a, st, *mask, &m, &tm)) {
        const struct acreI_rule *r = &L.l[a.front]->rules[a.at];
        ctl = by_clauses(c, r, &m, &tm, mask, st, prev);
        if (ctl != ACREI_BREAK)
            break;
        prev = a;
    }
    if (ctl == ACREI_BREAK) {
        acreR_oracle_trace(c, "no more rules: denied\n");
        return 0;
    }
    return (*mask & p) == p;
}

int
acreR_oracle_check(struct acreR_oracle *o, const struct acreR_target *t,
                   enum acreI_access want, uint32_t *mask, char **trace)
{
    struct acreR_astate st = {0};

    return acreR_oracle_check_seq(o, t, want, mask, trace, &st);
}

int
acreR_oracle_check_seq(struct acreR_oracle *o, const struct acreR_target *t,
                       enum acreI_access want, uint32_t *mask, char **trace,
                       struct acreR_astate *st)
{
    struct check c = {o, t, NULL, 0, NULL, talloc_new(o), trace, NULL, NULL};
    uint32_t m = 0;
    int granted = 0;

    if (trace)
        *trace = talloc_strdup(o, "");
    if (!c.tmp || !acreI_access_priv(want))
        goto out;
    c.endn = acre_dn_normalised(t->entry->dn, &c.endn_len);
    if (t->val &&
        !(c.val = talloc_strndup(c.tmp, (const char *)t->val, t->val_len)))
        goto out;
    if (!(c.sdn = acreR_slapd_dn(c.tmp, c.endn)))
        goto out;
    c.sval = c.val;
    int eq = acreS_attr(o->schema, t->type)->eq;
    if (c.val && (eq == ACREM_DN || eq == ACREM_UNIQUE_MEMBER) &&
        !(c.sval = acreR_slapd_dn(c.tmp, c.val)))
        goto out;
    granted = decide(&c, want, &m, st);
out:
    talloc_free(c.tmp);
    if (mask)
        *mask = m;
    return granted;
}
