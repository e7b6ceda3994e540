/*
 * openldap_oracle_who.c -- does one "by" clause apply to a check?  Read
 * straight off slapd 2.5's slap_acl_mask(), acl_mask_dn(),
 * acl_mask_dnattr() and fe_acl_group() (acl.c, backend.c): every part of
 * the clause must hold.
 *
 *   self access   "selfwrite": a value check of a DN (or NameUID)
 *                 attribute whose value is the requester
 *   dn / realdn   the authorisation / authentication DN against the
 *                 subject (styles; regex and ,expand patterns substituted
 *                 from the rule's <what> first)
 *   sockurl, domain, peername, sockname    the connection
 *   dnattr        the requester is a value of that attribute of the entry
 *   group         the requester is a member of a static group, or matches
 *                 a memberURL of a dynamic one (never nested)
 *   set           the set expression is non-empty (openldap_oracle_set.c)
 *   *ssf          the connection's security strength is at least n
 */
#include "openldap_oracle_int.h"
#include "url.h"

#include "filter.h"
#include "schema.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define DN_SYNTAX      "1.3.6.1.4.1.1466.115.121.1.12"
#define NAMEUID_SYNTAX "1.3.6.1.4.1.1466.115.121.1.34"

/* Expand a template with submatches; NULL when slapd's expansion fails. */
static char *
expand(struct check *c, const struct acreI_template *t, const struct matches *m,
       int with_val)
{
    char *out = talloc_array(c->tmp, char, ACREI_EXPAND_MAX + 1);
    size_t n;

    if (!out || acreI_expand(t->tmpl, t->len, m->dn_src, m->dn, m->dn_count,
                             with_val ? m->val_src : NULL, m->val, m->val_count,
                             out, &n))
        return NULL;
    return out;
}

/* ------------------------------------------------------------------------
 * DN subjects
 */

/* The ancestor of dn `up` levels up, or NULL at or past the root. */
static const acre_dn *
ancestor(struct check *c, const acre_dn *dn, int up)
{
    unsigned d = acre_dn_depth(dn);
    size_t n;

    if (up >= (int)d)
        return NULL;
    const char *s = acre_dn_ancestor(dn, d - (unsigned)up, &n);
    return acreR_oracle_parse_dn(c, s, n);
}

/* self, self.level{n} */
static int
subject_self(struct check *c, const struct acreI_subject *sj, const acre_dn *op)
{
    const acre_dn *e = c->t->entry->dn, *walk = op, *other = e;
    int level = sj->level;

    if (!op)
        return 0;
    if (level < 0) {
        walk = e;
        other = op;
        level = -level;
    }
    const acre_dn *up = level ? ancestor(c, walk, level) : walk;
    return up && acre_dn_depth(up) > 0 && acre_dn_equal(up, other);
}

/* A DN style against the requester (op NULL: anonymous). */
static int
subject_scope(const struct acreI_subject *sj, const acre_dn *pat,
              const acre_dn *op, const char *opnorm)
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
    case ACREI_SUBJ_SUFFIX: {
        size_t ol = strlen(opnorm);
        return ol >= pl && memcmp(opnorm + ol - pl, pn, pl) == 0;
    }
    default:
        return 0;
    }
}

/* slapd's acl_mask_dn: 1 when the subject matches. */
static int
subject_matches(struct check *c, const struct acreI_subject *sj,
                const acre_dn *op, const char *opnorm, const struct matches *tm)
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
        return subject_self(c, sj, op);
    case ACREI_SUBJ_REGEX: {
        char *pat = expand(c, &acreI_pat(sj)->re_tmpl, tm, 0);
        return pat && acreR_oracle_regex_match(
                          pat, acreI_pat(sj)->re_tmpl.expands,
                          acreR_slapd_dn(c->tmp, opnorm), NULL, 0);
    }
    default:
        break;
    }
    const acre_dn *pat = sj->dn;
    if (sj->is_expand) {
        char *s = expand(c, &acreI_pat(sj)->expand, tm, 1);
        if (!s || !(pat = acreR_oracle_parse_dn(c, s, strlen(s))))
            return 0;
    }
    return subject_scope(sj, pat, op, opnorm);
}

/* "selfwrite" and kin: a value check of a DN attribute whose value is the
 * requester. */
static int
self_access(struct check *c)
{
    const struct acreR_oracle *o = c->o;
    const struct acreS_attr *at = acreS_attr(o->schema, c->t->type);

    if (!at->syntax ||
        (strcmp(at->syntax, DN_SYNTAX) && strcmp(at->syntax, NAMEUID_SYNTAX)))
        return 0;
    if (!c->t->val || !o->authz)
        return 0;
    return acreR_oracle_value_is_dn(c, c->t->type, c->val, c->t->val_len,
                                    o->authz_norm);
}

/* ------------------------------------------------------------------------
 * dnattr
 */

/* Is ndn a value of an attribute of e covered by desc (a type and its
 * subtypes, with at least desc's options)? */
static int
entry_lists(struct check *c, const acre_entry_view *e,
            const struct acreI_attrspec *desc, const char *ndn)
{
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        const struct acreS_dinfo *d = acreS_dinfo(c->o->schema, a->id);
        if (!acreS_is_subtype(c->o->schema, d->type, desc->type) ||
            d->nopts < desc->nopts)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++) {
            int has;
            const acre_value *v = acreR_norm(a, j, &has);
            if (has &&
                acreR_oracle_value_is_dn(c, d->type, v->val, v->len, ndn))
                return 1;
        }
    }
    return 0;
}

/* slapd's acl_mask_dnattr. */
static int
dnattr_matches(struct check *c, const struct acreI_subject *sj,
               const acre_dn *op, const char *opnorm)
{
    if (!op)
        return 0;
    int listed = entry_lists(c, c->t->entry, sj->dnattr, opnorm);
    if (!listed && !sj->self)
        return 0;
    if (!sj->self)
        return 1;
    return c->t->val && acreR_oracle_value_is_dn(c, sj->dnattr->type, c->val,
                                                 c->t->val_len, opnorm);
}

/* ------------------------------------------------------------------------
 * Connection
 */

static int
str_expand_eq(struct check *c, const struct acreI_strmatch *m,
              const struct matches *mm, const char *have)
{
    char *s = expand(c, &m->pat, mm, 1);
    return s && !strcasecmp(s, have);
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
    if (n >= (v6 ? 40 : 16))
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

static int
peer_matches(struct check *c, const struct acreI_strmatch *m,
             const struct matches *mm, const char *peer)
{
    switch (m->style) {
    case ACREI_STR_EXACT:
        return !strcasecmp(m->pat.tmpl, peer);
    case ACREI_STR_EXPAND:
        return str_expand_eq(c, m, mm, peer);
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
domain_matches(struct check *c, const struct acreI_strmatch *m,
               const struct matches *mm, const char *dom)
{
    const char *pat = m->pat.tmpl;

    if (m->expand && !(pat = expand(c, &m->pat, mm, 1)))
        return 0;
    if (m->style == ACREI_STR_SUBTREE) {
        long off = (long)strlen(dom) - (long)strlen(pat);
        if (off < 0 || off == 1 || (off > 1 && dom[off - 1] != '.'))
            return 0;
        dom += off;
    }
    return !strcasecmp(pat, dom);
}

/* One connection string; `have` NULL when the connection lacks it. */
static int
conn_matches(struct check *c, const struct acreI_strmatch *m,
             const struct matches *mm, const char *have, int which)
{
    if (m->style == ACREI_STR_NONE)
        return 1;
    if (!have)
        return 0;
    if (m->any)
        return 1;
    if (m->style == ACREI_STR_REGEX) {
        char *pat = expand(c, &m->pat, mm, 1);
        return pat &&
               acreR_oracle_regex_match(pat, m->pat.expands, have, NULL, 0);
    }
    switch (which) {
    case 'p':
        return peer_matches(c, m, mm, have);
    case 'd':
        return domain_matches(c, m, mm, have);
    default:
        return m->style == ACREI_STR_EXPAND ? str_expand_eq(c, m, mm, have)
                                            : !strcasecmp(m->pat.tmpl, have);
    }
}

static int
connection_matches(struct check *c, const struct acreI_clause *b,
                   const struct matches *m)
{
    const struct acreR_requester *rq = &c->o->rq;
    const struct acreI_clause_rare *x = acreI_rare(b);

    return conn_matches(c, &x->sockurl, m, rq->sockurl ? rq->sockurl : "",
                        'u') &&
           conn_matches(c, &x->domain, m, rq->domain, 'd') &&
           conn_matches(c, &x->peername, m, rq->peername, 'p') &&
           conn_matches(c, &x->sockname, m, rq->sockname, 's');
}

/* ------------------------------------------------------------------------
 * Groups
 */

/* The first attribute of e with exactly this description (attr_find). */
const acre_view_attr *
acreR_oracle_find_desc(const acre_schema *s, const acre_entry_view *e,
                       const struct acreI_attrspec *d)
{
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const struct acreS_dinfo *a = acreS_dinfo(s, e->attrs[i].id);
        if (a->type != d->type || a->nopts != d->nopts)
            continue;
        unsigned k = 0;
        while (k < d->nopts && strlen(d->opts[k]) == a->opt_len[k] &&
               !strncasecmp(d->opts[k], a->opts[k], a->opt_len[k]))
            k++;
        if (k == d->nopts)
            return &e->attrs[i];
    }
    return NULL;
}

const acre_entry_view *
acreR_oracle_find(const struct acreR_oracle *o, const acre_dn *dn)
{
    const struct acreE_entry *e = acreE_dir_find(o->dir, dn);

    return e ? &e->v : NULL;
}

const acre_value *
acreR_norm(const acre_view_attr *a, uint32_t j, int *has)
{
    *has = a->norms != NULL;
    return a->norms ? &a->norms[j] : &a->vals[j];
}

/* Does e have objectClass oc or a subclass of it? */
static int
has_class(const struct acreR_oracle *o, const acre_entry_view *e, int oc)
{
    const acre_view_attr *a = acreE_entry_attr(e, o->id_objectclass);

    for (uint32_t i = 0; a && i < a->nvals; i++) {
        int id = acreS_class_find(o->schema, (const char *)a->vals[i].val,
                                  a->vals[i].len);
        if (id >= 0 && acreS_class_is(o->schema, id, oc))
            return 1;
    }
    return 0;
}

/* The requester against the base and scope of a memberURL. */
static int
url_scope(const struct acreE_url *u, const acre_dn *base, const acre_dn *op)
{
    switch (u->scope) {
    case ACRE_SCOPE_BASE:
        return acre_dn_equal(op, base);
    default:
        return acre_dn_in_scope(op, base, u->scope) == 1;
    }
}

/* One memberURL value: 1 member, 0 not, -1 slapd gives up. */
static int
member_url(struct check *c, const acre_value *v, const acre_entry_view **user)
{
    struct acreE_url u;
    const acre_dn *base;
    struct acreF_filter *f;

    if (acreE_url_parse(c->tmp, (const char *)v->val, v->len, &u) ||
        u.host[0] || u.nattrs || u.nexts)
        return 0;
    if (!(base = acreR_oracle_parse_dn(c, u.dn, strlen(u.dn))) ||
        !url_scope(&u, base, c->o->authz))
        return 0;
    if (!u.filter || !u.filter[0])
        return 0; /* slapd 2.5 never matches a URL without a filter */
    if (acreF_parse(c->tmp, c->o->schema, u.filter, strlen(u.filter), &f, NULL))
        return -1;
    if (!*user && !(*user = acreR_oracle_find(c->o, c->o->authz)))
        return -1;
    struct acreF_hooks h = acreR_dir_hooks(c->o->dir);
    return acreF_eval(f, *user, &h) == ACREF_TRUE;
}

static int
dynamic_member(struct check *c, const acre_view_attr *a)
{
    const acre_entry_view *user = NULL;

    if (acre_dn_equal(c->t->entry->dn, c->o->authz))
        user = c->t->entry;
    for (uint32_t i = 0; i < a->nvals; i++) {
        int r = member_url(c, &a->vals[i], &user);
        if (r)
            return r > 0;
    }
    return 0;
}

/* slapd's backend_group(). */
static int
group_matches(struct check *c, const struct acreI_group *g,
              const struct matches *tm)
{
    const acre_entry_view *ge;
    const char *dn;
    size_t n;

    if (!c->o->authz)
        return 0;
    if (g->expand) {
        if (!(dn = expand(c, &g->tmpl, tm, 1)))
            return 0;
        n = strlen(dn);
    } else {
        dn = acre_dn_normalised(g->dn, &n);
    }
    const acre_dn *gdn = acreR_oracle_parse_dn(c, dn, n);
    if (!gdn)
        return 0;
    if (acre_dn_equal(gdn, c->t->entry->dn))
        ge = c->t->entry; /* slapd does not check its class then */
    else if (!(ge = acreR_oracle_find(c->o, gdn)) ||
             !has_class(c->o, ge, g->oc))
        return 0;
    const acre_view_attr *a = acreR_oracle_find_desc(c->o->schema, ge, &g->at);
    if (!a)
        return 0;
    if (g->dynamic)
        return dynamic_member(c, a);
    for (uint32_t i = 0; i < a->nvals; i++) {
        int has;
        const acre_value *v = acreR_norm(a, i, &has);
        if (has && acreR_oracle_value_is_dn(c, g->at.type, v->val, v->len,
                                            c->o->authz_norm))
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The clause
 */

static int
ssf_ok(const struct acreI_clause *b, const struct acreR_requester *rq)
{
    const struct acreI_clause_rare *x = acreI_rare(b);

    return (!b->ssf || b->ssf <= rq->ssf) &&
           (!x->transport_ssf || x->transport_ssf <= rq->transport_ssf) &&
           (!x->tls_ssf || x->tls_ssf <= rq->tls_ssf) &&
           (!x->sasl_ssf || x->sasl_ssf <= rq->sasl_ssf);
}

int
acreR_oracle_by_matches(struct check *c, const struct acreI_rule *r,
                        const struct acreI_clause *b, const struct matches *m,
                        const struct matches *tm)
{
    const struct acreR_oracle *o = c->o;
    (void)r;

    if (b->dn.self && !self_access(c))
        return 0;
    if (!subject_matches(c, &b->dn, o->authz, o->authz_norm, tm) ||
        !subject_matches(c, &acreI_rare(b)->realdn, o->authc, o->authc_norm,
                         tm))
        return 0;
    if (!connection_matches(c, b, m))
        return 0;
    if (b->dn.dnattr && !dnattr_matches(c, &b->dn, o->authz, o->authz_norm))
        return 0;
    if (acreI_rare(b)->realdn.dnattr &&
        !dnattr_matches(c, &acreI_rare(b)->realdn, o->authc, o->authc_norm))
        return 0;
    if (acreI_group(b) && !group_matches(c, acreI_group(b), tm))
        return 0;
    if (acreI_set(b) && !acreR_oracle_set_matches(c, acreI_set(b), tm))
        return 0;
    return ssf_ok(b, &o->rq);
}
