/*
 * explain_aci.c -- explaining checks under an ACI policy, and 389-DS's
 * get-effective-rights.
 *
 * An explained check (acre_explain, acre_explain_steps) runs the same
 * decision as acre_access (eval_aci.c: acreV_aci_explain) with a tracer
 * that turns each event into a step: every permission of the candidate
 * ACIs met and why it does not apply, the permissions that apply with
 * their bind rule's outcome and the outcome of each keyword test the
 * walk evaluated, and a last step naming what decided.  The keyword
 * tests of a permission reach the tracer before its outcome: they are
 * kept here and handed out after the permission's own step.
 *
 * Get-effective-rights asks acreV_aci_check for each right letter as
 * 389's acleffectiverights.c does: v a d n on the entry, r s c w o (or
 * W O) on each attribute, in that order.
 *
 * Nothing here runs on an ordinary check: the tracer is NULL then.
 */
#include "aci_index.h"

#include "dn.h"
#include "entry.h"
#include "eval.h"
#include "filter.h"
#include "internal.h"
#include "policy.h"
#include "schema.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Text of the IR
 */

/* A bounded string being built (truncated, never overrun). */
struct sb {
    char *p;
    size_t n, at;
};

static void sb_put(struct sb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_put(struct sb *b, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (b->at + 1 >= b->n)
        return;
    va_start(ap, fmt);
    k = vsnprintf(b->p + b->at, b->n - b->at, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->at = b->at + (size_t)k < b->n ? b->at + (size_t)k : b->n - 1;
}

/* rights_text -- ACREI_ACI_* rights in 389's words ("all" for all) */
static void
rights_text(struct sb *b, unsigned r)
{
    const char *sep = "";

    if ((r & ACREI_ACI_ALL) == ACREI_ACI_ALL) {
        sb_put(b, "all");
        r &= ~ACREI_ACI_ALL;
        sep = ",";
    }
    for (unsigned i = 0; i < ACREI_ACI_NRNAMES; i++)
        if (r & acreI_aci_rnames[i].bit) {
            sb_put(b, "%s%s", sep, acreI_aci_rnames[i].name);
            sep = ",";
        }
}

/* attr_name -- the schema name of type id, or "?" */
static const char *
attr_name(const acre_schema *s, int id)
{
    const struct acreS_dinfo *d = id >= 0 ? acreS_desc_of(s, id) : NULL;

    return d && d->text ? d->text : "?";
}

static void
subject_text(struct sb *b, const struct acreI_aci_term *t)
{
    switch (t->kind) {
    case ACREI_ACI_S_ANYONE:
        sb_put(b, "ldap:///anyone");
        break;
    case ACREI_ACI_S_ALL:
        sb_put(b, "ldap:///all");
        break;
    case ACREI_ACI_S_SELF:
        sb_put(b, "ldap:///self");
        break;
    case ACREI_ACI_S_PARENT:
        sb_put(b, "ldap:///parent");
        break;
    case ACREI_ACI_S_URL:
        sb_put(b, "ldap:///%s", t->url ? t->url : "");
        break;
    default:
        sb_put(b, "ldap:///%.*s", (int)t->pat.len,
               t->pat.text ? t->pat.text : "");
        break;
    }
}

static void
addr_text(struct sb *b, const struct acreI_aci_addr *a)
{
    char buf[INET6_ADDRSTRLEN];
    unsigned n = a->family == 4 ? 4 : 16, bits = 0;

    if (!inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, buf,
                   sizeof buf))
        snprintf(buf, sizeof buf, "?");
    for (unsigned k = 0; k < n; k++)
        for (int j = 7; j >= 0; j--)
            bits += (a->mask[k] >> j) & 1;
    if (bits == n * 8)
        sb_put(b, "%s", buf);
    else
        sb_put(b, "%s/%u", buf, bits);
}

/* bind_text -- keyword test b as acre read it: keyword, operator and the
 * operand in the ACI's own syntax (normalised: lowercased DNs, "||"
 * lists, numbers as numbers). */
static void
bind_text(const acre_schema *s, const struct acreI_bind *b, struct sb *o)
{
    static const char *const kw[] = {
        "",           "and",         "or",         "not",
        "userdn",     "groupdn",     "roledn",     "userattr",
        "userdnattr", "groupdnattr", "authmethod", "ssf",
        "ip",         "dns",         "dayofweek",  "timeofday"};
    static const char *const ops[] = {"", "=", "!=", "<", "<=", ">", ">="};
    static const char *const kinds[] = {"",       "USERDN",  "GROUPDN",
                                        "ROLEDN", "LDAPURL", "SELFDN"};
    static const char *const days[] = {"sun", "mon", "tue", "wed",
                                       "thu", "fri", "sat"};

    if (!b) {
        sb_put(o, "?");
        return;
    }
    if (b->kw == ACREI_ACI_NOT) {
        sb_put(o, "not ");
        bind_text(s, b->a, o);
        return;
    }
    if (b->kw == ACREI_ACI_AND || b->kw == ACREI_ACI_OR) {
        sb_put(o, "(");
        bind_text(s, b->a, o);
        sb_put(o, " %s ", kw[b->kw]);
        bind_text(s, b->b, o);
        sb_put(o, ")");
        return;
    }
    sb_put(o, "%s %s \"",
           b->kw > 0 && b->kw <= ACREI_ACI_TIMEOFDAY ? kw[b->kw] : "?",
           b->op > 0 && b->op <= ACREI_ACI_GE ? ops[b->op] : "?");
    switch (b->kw) {
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        for (unsigned i = 0; i < b->nterms; i++) {
            if (i)
                sb_put(o, " || ");
            subject_text(o, &b->terms[i]);
        }
        break;
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        if (b->uakind == ACREI_ACI_UA_GROUPURL) {
            sb_put(o, "ldap:///%s?%s", b->value ? b->value : "",
                   attr_name(s, b->attr));
            break;
        }
        if (b->levels > 1) {
            const char *sep = "";
            sb_put(o, "parent[");
            for (unsigned l = 0; l < 32; l++)
                if (b->levels & (1u << l)) {
                    sb_put(o, "%s%u", sep, l);
                    sep = ",";
                }
            sb_put(o, "].");
        }
        sb_put(o, "%s#", attr_name(s, b->attr));
        if (b->uakind == ACREI_ACI_UA_VALUE)
            sb_put(o, "%.*s", (int)b->value_len, b->value ? b->value : "");
        else
            sb_put(o, "%s",
                   b->uakind > 0 && b->uakind < ACREI_ACI_UA_VALUE
                       ? kinds[b->uakind]
                       : "?");
        break;
    case ACREI_ACI_AUTHMETHOD:
    case ACREI_ACI_DNS:
        sb_put(o, "%s", b->text ? b->text : "");
        break;
    case ACREI_ACI_SSF:
        sb_put(o, "%ld", b->num);
        break;
    case ACREI_ACI_IP:
        if (b->ipmode == ACREI_IP_NEVER) {
            sb_put(o, "(never evaluated: %s)", b->text ? b->text : "");
            break;
        }
        for (unsigned i = 0; i < b->naddrs; i++) {
            if (i)
                sb_put(o, ",");
            addr_text(o, &b->addrs[i]);
        }
        break;
    case ACREI_ACI_DAYOFWEEK: {
        const char *sep = "";
        for (unsigned d = 0; d < 7; d++)
            if (b->days & (1u << d)) {
                sb_put(o, "%s%s", sep, days[d]);
                sep = ",";
            }
        break;
    }
    case ACREI_ACI_TIMEOFDAY:
        if (b->tod == ACREI_TOD_RANGE)
            sb_put(o, "%04ld-%04ld", b->num, b->num_end);
        else if (b->tod == ACREI_TOD_INVALID)
            sb_put(o, "(invalid range)");
        else
            sb_put(o, "%04ld", b->num);
        break;
    default:
        break;
    }
    sb_put(o, "\"");
}

static const char *
tri_name(int r)
{
    return r == 1   ? "True"
           : r == 2 ? "False"
           : r == 3 ? "Undefined"
                    : "Invalid";
}

/* walk_words -- an ACREV_ACI_WALK_* answer, as the deny and allow phases
 * take it */
static const char *
walk_words(int w)
{
    switch (w) {
    case ACREV_ACI_WALK_ALLOW:
        return "allow (no deny; it grants)";
    case ACREV_ACI_WALK_DENY:
        return "deny";
    case ACREV_ACI_WALK_FAIL:
        return "a failure (Undefined), which denies";
    case ACREV_ACI_WALK_INVALID:
        return "Invalid, which neither denies nor grants";
    default:
        return "nothing (no deny, no grant)";
    }
}

/* ------------------------------------------------------------------------
 * Explained checks
 */

struct term_kept {
    const struct acreI_bind *b;
    int r;
};

struct xa {
    struct acre_request *rq;
    const acre_entry_view *e;
    const char *what; /* the check's right and attribute, in words */
    char **trace;     /* the text (acre_explain), or NULL */
    acre_explain_fn fn;
    void *arg;
    struct term_kept *terms; /* of the permission being evaluated */
    unsigned nterms, cap;
    int oom;
    int root;                     /* the directory manager decided */
    const struct acreI_aci *anon; /* the profile ACI that granted */
};

/* aci_of -- fill the ACI fields of step s from ACI a (perm p or NULL) */
static void
aci_of(acre_explain_step *s, const struct acreI_aci *a,
       const struct acreP_aci_perm *p)
{
    s->aci_holder = acre_dn_pretty(a->holder, NULL);
    s->aci_name = a->name ? a->name : "";
    s->aci_value = (int)a->value_index;
    s->file = a->pos.file;
    s->line = a->pos.line;
    s->column = a->pos.column;
    if (p) {
        s->aci_perm = (unsigned)(p->perm - a->perms) + 1;
        s->aci_deny = p->deny;
    }
}

/* aci_words -- `aci "NAME" (HOLDER, value #I)` and, with p, the
 * permission `allow (read,search)` */
static void
aci_words(struct sb *o, const struct acreI_aci *a,
          const struct acreP_aci_perm *p)
{
    sb_put(o, "aci \"%s\" (%s, value #%u)", a->name ? a->name : "",
           acre_dn_pretty(a->holder, NULL), a->value_index);
    if (p) {
        sb_put(o, " %s (", p->deny ? "deny" : "allow");
        rights_text(o, p->perm->rights);
        sb_put(o, ")");
    }
}

/* put -- one step: to the caller's function, and to the text */
static void
put(struct xa *x, acre_explain_step *s, int indent)
{
    if (x->fn)
        x->fn(x->arg, s);
    if (x->trace && *x->trace) {
        *x->trace = talloc_asprintf_append_buffer(*x->trace, "%s%s\n",
                                                  indent ? "  " : "", s->text);
        if (!*x->trace)
            x->oom = 1;
    }
}

static void
step_init(acre_explain_step *s, int kind, const char *text)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->rule = -1;
    s->index = -1;
    s->aci_value = -1;
    s->text = text;
    s->detail = "";
}

static void
on_event(void *arg, const struct acreV_aci_event *ev)
{
    struct xa *x = arg;
    const acre_schema *sc = x->rq->schema;
    acre_explain_step s;
    char line[1024];
    struct sb o = {line, sizeof line, 0};

    line[0] = '\0';
    switch (ev->kind) {
    case ACREV_ACI_EV_TERM:
        if (x->nterms == x->cap) {
            unsigned cap = x->cap ? x->cap * 2 : 8;
            struct term_kept *t =
                talloc_realloc(x->rq->mem, x->terms, struct term_kept, cap);
            if (!t) {
                x->oom = 1;
                return;
            }
            x->terms = t;
            x->cap = cap;
        }
        x->terms[x->nterms++] = (struct term_kept){ev->b, ev->r};
        return;
    case ACREV_ACI_EV_ROOT:
        x->root = 1;
        step_init(&s, ACRE_EXPLAIN_ROOTDN,
                  "the requester is the directory manager: every right");
        put(x, &s, 0);
        return;
    case ACREV_ACI_EV_ANON:
        x->anon = ev->aci;
        if (ev->aci) {
            sb_put(&o, "anonymous profile: ");
            aci_words(&o, ev->aci, NULL);
            sb_put(&o, " grants %s", x->what);
        } else {
            sb_put(&o,
                   "anonymous profile: ACIs of it take the entry, none "
                   "grants %s",
                   x->what);
        }
        step_init(&s, ACRE_EXPLAIN_ACI_ANONYMOUS, line);
        if (ev->aci)
            aci_of(&s, ev->aci, NULL);
        put(x, &s, 0);
        return;
    case ACREV_ACI_EV_SKIP:
        aci_words(&o, ev->p->aci, ev->p);
        sb_put(&o, ": skipped, %s",
               ev->why == ACREV_ACI_WHY_RIGHTS ? "its rights do not include "
               : ev->why == ACREV_ACI_WHY_ATTR ? "its targetattr does not take "
                                               : "its target does not take ");
        if (ev->why == ACREV_ACI_WHY_TARGET)
            sb_put(&o, "the entry");
        else
            sb_put(&o, "%s", x->what);
        step_init(&s, ACRE_EXPLAIN_ACI_SKIPPED, line);
        aci_of(&s, ev->p->aci, ev->p);
        put(x, &s, 0);
        return;
    case ACREV_ACI_EV_PERM:
        aci_words(&o, ev->p->aci, ev->p);
        sb_put(&o, ": applies, bind rule %s%s", tri_name(ev->r),
               ev->kept ? " (the answer an earlier entry of this request "
                          "gave, which 389 keeps for the whole operation)"
                        : "");
        if (ev->why) /* ACREP_ACI_ORDERED: the ACI's walk decides */
            sb_put(&o, "; 389 walks the aci's rules for the right in order: %s",
                   walk_words(ev->why - 1));
        step_init(&s, ACRE_EXPLAIN_ACI, line);
        aci_of(&s, ev->p->aci, ev->p);
        s.outcome = ev->r;
        put(x, &s, 0);
        for (unsigned i = 0; i < x->nterms; i++) {
            char bt[768];
            struct sb ob = {bt, sizeof bt, 0};
            bt[0] = '\0';
            bind_text(sc, x->terms[i].b, &ob);
            o = (struct sb){line, sizeof line, 0};
            line[0] = '\0';
            sb_put(&o, "%s: %s", bt, tri_name(x->terms[i].r));
            step_init(&s, ACRE_EXPLAIN_ACI_BIND, line);
            aci_of(&s, ev->p->aci, ev->p);
            s.outcome = x->terms[i].r;
            s.bind = bt;
            s.file = x->terms[i].b->pos.file ? x->terms[i].b->pos.file : s.file;
            if (x->terms[i].b->pos.line) {
                s.line = x->terms[i].b->pos.line;
                s.column = x->terms[i].b->pos.column;
            }
            put(x, &s, 1);
        }
        x->nterms = 0;
        return;
    case ACREV_ACI_EV_END:
        if (ev->limit)
            sb_put(&o, "denied: a lookup or an allocation failed");
        else if (ev->p) {
            sb_put(&o, "%s by ", ev->r ? "granted" : "denied");
            aci_words(&o, ev->p->aci, ev->p);
        } else if (ev->r && x->anon) {
            sb_put(&o, "granted by the anonymous profile's ");
            aci_words(&o, x->anon, NULL);
        } else if (ev->r) {
            sb_put(&o, "granted%s", x->root ? " to the directory manager" : "");
        } else {
            sb_put(&o, "denied: no allow applies");
        }
        step_init(&s, ACRE_EXPLAIN_ACI_DECISION, line);
        if (ev->p && !ev->limit)
            aci_of(&s, ev->p->aci, ev->p);
        else if (ev->r && x->anon && !ev->limit)
            aci_of(&s, x->anon, NULL);
        put(x, &s, 0);
        return;
    case ACREV_ACI_EV_PROXY:
        if (ev->limit)
            sb_put(&o, "denied: a lookup or an allocation failed");
        else
            sb_put(&o,
                   "denied: the DN bound (%s) has no proxy right on the "
                   "entry (proxied authorization)",
                   x->rq->who.authc_dn && *x->rq->who.authc_dn
                       ? x->rq->who.authc_dn
                       : "anonymous");
        step_init(&s, ACRE_EXPLAIN_ACI_DECISION, line);
        put(x, &s, 0);
        return;
    default:
        return;
    }
}

/* right_word -- the check's rights in words */
static const char *
right_word(unsigned r)
{
    switch (r) {
    case ACREI_ACI_COMPARE:
        return "compare";
    case ACREI_ACI_SEARCH:
        return "search";
    case ACREI_ACI_READ:
        return "read";
    case ACREI_ACI_WRITE:
        return "write";
    case ACREI_ACI_DELETE:
        return "delete";
    case ACREI_ACI_ADD:
        return "add";
    case ACREI_ACI_SELFWRITE:
        return "selfwrite";
    case ACREI_ACI_PROXY:
        return "proxy";
    case ACREI_ACI_MODDN:
        return "moddn";
    default:
        return "?";
    }
}

/*
 * acreV_aci_explain_check (eval.h) -- rights on attr (NULL: the entry
 * itself, named `name`) of e, explained: steps to fn (may be NULL), lines
 * appended to *trace (may be NULL).  rights 0: the right has no ACI
 * meaning (denied, said so).  Returns as acreV_aci_check; rq->err set
 * when memory ran out.
 */
int
acreV_aci_explain_check(struct acre_request *rq, const acre_entry_view *e,
                        const struct acreF_desc *attr, const char *name,
                        unsigned rights, int right, char **trace,
                        acre_explain_fn fn, void *arg)
{
    static const char *const levels[] = {
        "",     "disclose", "auth",   "compare", "search",
        "read", "add",      "delete", "write",   "manage"};
    struct xa x = {rq, e, NULL, trace, fn, arg, NULL, 0, 0, 0, 0, NULL};
    struct acreV_aci_tracer t = {on_event, &x};
    char what[300];
    int g;

    if (!rights) {
        acre_explain_step s;
        snprintf(what, sizeof what,
                 "denied: %s has no meaning under ACIs (compare, search, "
                 "read, add, delete, write)",
                 right > 0 && right <= ACRE_RIGHT_MANAGE ? levels[right]
                                                         : "the right");
        step_init(&s, ACRE_EXPLAIN_ACI_DECISION, what);
        put(&x, &s, 0);
        return 0;
    }
    snprintf(what, sizeof what, "%s on %s", right_word(rights), name);
    x.what = what;
    g = acreV_aci_explain(rq, e, attr, rights, &t);
    talloc_free(x.terms);
    if (x.oom)
        acreV_fail(rq, ACRE_ERR_NOMEM);
    return g;
}

/* ------------------------------------------------------------------------
 * Get-effective-rights (389's acleffectiverights.c)
 */

/* A description parsed for a check: options lowercased. */
struct gdesc {
    struct acreF_desc d;
    const char *opts[ACRES_MAX_OPTIONS];
    uint32_t opt_len[ACRES_MAX_OPTIONS];
    char buf[ACRES_DESC_TEXT];
};

/* gdesc_of -- name as a description (type -1 when the schema does not
 * know it: "dn", "*", anything unknown, as 389 asks about it) */
static void
gdesc_of(const acre_schema *s, const char *name, struct gdesc *g)
{
    struct acreS_desc x;
    size_t n = strlen(name), at = 0;

    memset(g, 0, sizeof *g);
    g->d.type = -1;
    g->d.opts = g->opts;
    g->d.opt_len = g->opt_len;
    if (n >= ACRES_DESC_TEXT || acreS_desc_parse(s, name, n, &x) || x.type < 0)
        return;
    g->d.type = x.type;
    g->d.nopts = x.nopts;
    for (unsigned i = 0; i < x.nopts; i++) {
        g->opts[i] = g->buf + at;
        g->opt_len[i] = x.opt_len[i];
        for (unsigned k = 0; k < x.opt_len[i]; k++) {
            char ch = x.opts[i][k];
            g->buf[at++] = ch >= 'A' && ch <= 'Z' ? (char)(ch | 0x20) : ch;
        }
        g->buf[at++] = '\0';
    }
}

struct ger {
    struct acre_request *rq;
    const acre_entry_view *e;
    char *out; /* talloc, under rq->mem */
    int first; /* no attribute printed yet */
    int err;
};

static void ger_put(struct ger *g, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
ger_put(struct ger *g, const char *fmt, ...)
{
    va_list ap;

    if (!g->out)
        return;
    va_start(ap, fmt);
    g->out = talloc_vasprintf_append_buffer(g->out, fmt, ap);
    va_end(ap);
    if (!g->out)
        g->err = ACRE_ERR_NOMEM;
}

/* ask -- one acl_access_allowed of 389's GER: rights on d (NULL: the
 * entry); a failed lookup is kept in g->err */
static int
ask(struct ger *g, const struct acreF_desc *d, unsigned rights)
{
    struct acre_request *rq = g->rq;
    int r;

    rq->err = 0;
    rq->limit_hit = 0;
    r = acreV_aci_check(rq, g->e, d, rights);
    if (rq->limit_hit && !g->err)
        g->err = rq->limit_code ? rq->limit_code : ACRE_ERR_LOOKUP;
    if (rq->err && !g->err)
        g->err = rq->err;
    return r;
}

/* ask_write -- 389's acl_access_allowed for a write of GER: right
 * ACRE_RIGHT_ADD or ACRE_RIGHT_DELETE (ACLPB_SLAPI_ACL_WRITE_ADD / _DEL
 * on an attribute, SLAPI_ACL_ADD / _DELETE on the entry, its
 * targattrfilters tested on the entry's own values), with value val
 * (NULL: none, which 389 tests targattrfilters with as an empty entry);
 * a failed lookup is kept in g->err */
static int
ask_write(struct ger *g, const struct acreF_desc *d, int right, const char *val,
          size_t len)
{
    struct acre_request *rq = g->rq;
    int r;

    rq->err = 0;
    rq->limit_hit = 0;
    r = acreV_aci_access(rq, g->e, d, right, val, len);
    if (rq->limit_hit && !g->err)
        g->err = rq->limit_code ? rq->limit_code : ACRE_ERR_LOOKUP;
    if (rq->err && !g->err)
        g->err = rq->err;
    return r;
}

/* shown -- name as 389 prints an attribute asked for (its search
 * normalises them): a known type by its schema name, its options in
 * lower case, "dn" as distinguishedName, anything else as written */
static const char *
shown(const acre_schema *s, const char *name, char *buf, size_t size)
{
    struct acreS_desc x;
    size_t n = strlen(name);

    if (!strcasecmp(name, "dn") &&
        acreS_attr_find(s, "distinguishedName", 17) >= 0)
        return "distinguishedName";
    if (acreS_desc_parse(s, name, n, &x) || x.type < 0)
        return name;
    int k = snprintf(buf, size, "%s", attr_name(s, x.type));
    for (size_t i = x.name_len; i < n && k >= 0 && (size_t)k + 1 < size; i++) {
        char ch = name[i];
        buf[k++] = ch >= 'A' && ch <= 'Z' ? (char)(ch | 0x20) : ch;
    }
    if (k >= 0 && (size_t)k < size)
        buf[k] = '\0';
    return buf;
}

/* attr_rights_as -- 389's _ger_get_attr_rights: "NAME:rscwo", NAME as
 * given (a name 389 takes from its own schema lists) */
static void
attr_rights_as(struct ger *g, const char *name)
{
    const acre_schema *s = g->rq->schema;
    struct gdesc gd;
    char l[8];
    unsigned n = 0;

    gdesc_of(s, name, &gd);
    if (ask(g, &gd.d, ACREI_ACI_READ))
        l[n++] = 'r';
    if (ask(g, &gd.d, ACREI_ACI_SEARCH))
        l[n++] = 's';
    if (ask(g, &gd.d, ACREI_ACI_COMPARE))
        l[n++] = 'c';
    /* w and o: adding and deleting a value, none given (their
     * targattrfilters tested on an empty entry) */
    int w = ask_write(g, &gd.d, ACRE_RIGHT_ADD, NULL, 0);
    int o = ask_write(g, &gd.d, ACRE_RIGHT_DELETE, NULL, 0);
    if (w)
        l[n++] = 'w';
    if (o)
        l[n++] = 'o';
    if (!w && !o) {
        /* W and O: adding and deleting the requester's own normalised
         * DN ("" when anonymous), on any attribute: selfwrite where the
         * syntax holds DNs, and the value goes through targattrfilters */
        const char *me = g->rq->authz_norm ? g->rq->authz_norm : "";
        size_t ml = g->rq->authz_norm ? g->rq->authz_len : 0;
        if (ask_write(g, &gd.d, ACRE_RIGHT_ADD, me, ml))
            l[n++] = 'W';
        if (ask_write(g, &gd.d, ACRE_RIGHT_DELETE, me, ml))
            l[n++] = 'O';
    }
    l[n] = '\0';
    ger_put(g, "%s%s:%s", g->first ? "" : ", ", name, n ? l : "none");
    g->first = 0;
}

/* attr_rights -- the same for a name asked for, printed as 389's search
 * normalises it */
static void
attr_rights(struct ger *g, const char *asked)
{
    char nbuf[ACRES_DESC_TEXT + 64];

    attr_rights_as(g, shown(g->rq->schema, asked, nbuf, sizeof nbuf));
}

/* Which attributes 389 lists for a "*" or a "+" */
struct lists {
    uint64_t *all; /* allowed by the entry's object classes, and aci */
    uint64_t *op;  /* operational */
    int *all_order, *op_order;
    unsigned nall, nop;
    int extensible;
};

static int
in_set(const uint64_t *set, int id)
{
    return id >= 0 && ((set[id / 64] >> (id % 64)) & 1);
}

static void
add_to(uint64_t *set, int *order, unsigned *n, int id)
{
    if (id < 0 || in_set(set, id))
        return;
    set[id / 64] |= 1ull << (id % 64);
    order[(*n)++] = id;
}

/* lists_of -- the entry's allowed attributes (389: each object class in
 * the entry's order, its MUST then MAY with inherited ones; "aci" after
 * the first class) and the schema's operational attributes */
static int
lists_of(struct ger *g, void *tmp, struct lists *ls)
{
    const acre_schema *s = g->rq->schema;
    unsigned na = acreS_nattrs(s), words = na / 64 + 1;
    const struct acre_policy *p = g->rq->p;
    const acre_view_attr *oc = acreE_entry_attr(g->e, p->id_objectclass);

    memset(ls, 0, sizeof *ls);
    if (!(ls->all = talloc_zero_array(tmp, uint64_t, words)) ||
        !(ls->op = talloc_zero_array(tmp, uint64_t, words)) ||
        !(ls->all_order = talloc_array(tmp, int, na + 1)) ||
        !(ls->op_order = talloc_array(tmp, int, na + 1)))
        return ACRE_ERR_NOMEM;
    for (unsigned j = 0; oc && j < oc->nvals; j++) {
        int c = acreS_class_find(s, oc->vals[j].val, oc->vals[j].len);
        if (oc->vals[j].len == 16 &&
            !strncasecmp(oc->vals[j].val, "extensibleObject", 16))
            ls->extensible = 1;
        if (c >= 0) {
            const struct acreS_class *k = acreS_class(s, c);
            /* its own MUST and MAY in the order the schema lists them,
             * then what it inherits */
            for (unsigned i = 0; i < k->nmust; i++)
                add_to(ls->all, ls->all_order, &ls->nall, k->must[i]);
            for (unsigned i = 0; i < k->nmay; i++)
                add_to(ls->all, ls->all_order, &ls->nall, k->may[i]);
            for (unsigned pass = 0; pass < 2; pass++) {
                const uint64_t *bits = pass ? k->all_may : k->all_must;
                for (unsigned id = 0; bits && id < na; id++)
                    if ((bits[id / 64] >> (id % 64)) & 1)
                        add_to(ls->all, ls->all_order, &ls->nall, (int)id);
            }
        }
        if (j == 0)
            add_to(ls->all, ls->all_order, &ls->nall,
                   acreS_attr_find(s, "aci", 3));
    }
    for (unsigned id = 0; id < na; id++) /* acre's entry and children
                                              are no attributes */
        if (acreS_attr(s, (int)id)->usage != ACRES_USER &&
            (int)id != p->id_entry && (int)id != p->id_children)
            add_to(ls->op, ls->op_order, &ls->nop, (int)id);
    return 0;
}

static int
listed(const char *const *attrs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(attrs[i], name))
            return 1;
    return 0;
}

/* requested -- 389's GER_GET_ATTR_RIGHTA_EXT: the attributes asked for
 * (not starting with skip) that are in `in` and not in `ex` */
static void
requested(struct ger *g, const char *const *attrs, size_t n, char skip,
          const uint64_t *in, const uint64_t *ex)
{
    for (size_t i = 0; i < n; i++) {
        int id = acreS_attr_find(g->rq->schema, attrs[i], strlen(attrs[i]));
        if (attrs[i][0] != skip && in_set(in, id) && !in_set(ex, id))
            attr_rights(g, attrs[i]);
    }
}

static void
each(struct ger *g, const int *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        attr_rights(g, attr_name(g->rq->schema, order[i]));
}

/* each_named -- the operational types, each under every one of its names
 * (389's slapi_schema_list_attribute_names lists a type's aliases after
 * its name) */
static void
each_named(struct ger *g, const int *order, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        const struct acreS_attr *a = acreS_attr(g->rq->schema, order[i]);
        attr_rights(g, attr_name(g->rq->schema, order[i]));
        for (unsigned k = 1; k < a->nnames; k++)
            attr_rights_as(g, a->names[k]);
    }
}

/* attrs_rights -- 389's _ger_get_attrs_rights */
static void
attrs_rights(struct ger *g, const char *const *attrs, size_t n)
{
    const acre_schema *s = g->rq->schema;
    void *tmp;
    struct lists ls;

    if (n == 0 || !attrs[0][0]) { /* the entry's own, not operational */
        for (unsigned i = 0; i < g->e->nattrs; i++) {
            const struct acreS_dinfo *d = acreS_desc_of(s, g->e->attrs[i].id);
            if (d && acreS_attr(s, d->type)->usage == ACRES_USER)
                attr_rights(g, d->text);
        }
        return;
    }
    if (!(tmp = talloc_new(NULL)) || lists_of(g, tmp, &ls)) {
        g->err = ACRE_ERR_NOMEM;
        talloc_free(tmp);
        return;
    }
    int star = listed(attrs, n, "*"), plus = listed(attrs, n, "+");
    if (ls.extensible) {
        for (size_t i = 0; i < n; i++)
            if (attrs[i][0])
                attr_rights(g, attrs[i]);
        /* 389's search adds aci to a list with "*" */
        if (star && !listed(attrs, n, "aci"))
            attr_rights(g, "aci");
    } else if (star && plus) {
        each(g, ls.all_order, ls.nall);
        each_named(g, ls.op_order, ls.nop);
    } else if (star) {
        each(g, ls.all_order, ls.nall);
        requested(g, attrs, n, '*', ls.op, ls.all);
    } else if (plus) {
        each_named(g, ls.op_order, ls.nop);
        requested(g, attrs, n, '+', ls.all, ls.op);
    } else {
        for (size_t i = 0; i < n; i++) {
            int id = acreS_attr_find(s, attrs[i], strlen(attrs[i]));
            if (!attrs[i][0])
                continue;
            if (in_set(ls.all, id) || in_set(ls.op, id) ||
                !strcasecmp(attrs[i], "dn") ||
                !strcasecmp(attrs[i], "distinguishedName")) {
                attr_rights(g, attrs[i]);
            } else { /* not an attribute of the entry */
                char nbuf[ACRES_DESC_TEXT + 64];
                ger_put(g, "%s%s:none", g->first ? "" : ", ",
                        shown(s, attrs[i], nbuf, sizeof nbuf));
                g->first = 0;
            }
        }
    }
    talloc_free(tmp);
}

ACRE_PUBLIC int
acre_effective_rights(acre_request *rq, const acre_entry_view *e,
                      const char *const *attrs, size_t nattrs, char **out)
{
    static const struct acreF_desc star = {-1, 0, NULL, NULL};
    struct ger g = {rq, e, NULL, 1, 0};
    char l[8];
    unsigned n = 0;

    if (out)
        *out = NULL;
    if (!rq || !acreE_is(rq, ACREE_REQUEST_MAGIC))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!e || !out || (nattrs && !attrs) || !acreE_view_check(rq->schema, e))
        return ACRE_ERR_INVAL;
    for (size_t i = 0; i < nattrs; i++)
        if (!attrs[i])
            return ACRE_ERR_INVAL;
    if (!rq->p->aci || rq->p->aci->set->variant != ACREI_ACI_389)
        return ACRE_ERR_UNSUPPORTED; /* 389's control, 389's rules */
    if (!(g.out = talloc_strdup(rq->mem, "entryLevelRights: ")))
        return ACRE_ERR_NOMEM;
    /* 389 answers a GER in an operation of its own (_ger_new_gerpb): ACI
     * state made afresh, and URL filters tested without the search's
     * FILTER_NORMALIZED (rq->ger) */
    struct acreV_aci_rq *search_state = rq->aci;
    rq->aci = NULL;
    rq->ger = 1;
    /* v: read on "*" (389 asks for the attribute named "*") */
    if (ask(&g, &star, ACREI_ACI_READ))
        l[n++] = 'v';
    /* a and d: their targattrfilters tested on the entry's own values */
    if (ask_write(&g, NULL, ACRE_RIGHT_ADD, NULL, 0))
        l[n++] = 'a';
    if (ask_write(&g, NULL, ACRE_RIGHT_DELETE, NULL, 0))
        l[n++] = 'd';
    if (ask(&g, NULL, ACREI_ACI_MODDN)) /* nsslapd-moddn-aci: on */
        l[n++] = 'n';
    l[n] = '\0';
    ger_put(&g, "%s\nattributeLevelRights: ", n ? l : "none");
    attrs_rights(&g, attrs, nattrs);
    if (g.first)
        ger_put(&g, "*:none");
    ger_put(&g, "\n");
    acreV_aci_end(rq);
    rq->aci = search_state;
    rq->ger = 0;
    rq->err = 0;
    rq->limit_hit = 0;
    if (!g.err && !(*out = strdup(g.out)))
        g.err = ACRE_ERR_NOMEM;
    talloc_free(g.out);
    return g.err;
}
