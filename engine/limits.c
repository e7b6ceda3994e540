/*
 * limits.c -- the size and time limits of a search, decided as slapd
 * 2.5's limits_check does from the limits the compiler recorded for each
 * database (engine/ir.h: struct acreI_limits, acreI_limrule).
 *
 * The database is the base's (slapd's select_backend; the frontend's
 * when none holds it).  Its rootdn gets what the client asked, 0 or
 * "max" meaning none.  Anyone else gets the limits of the database's
 * first "limits" rule whose selector matches the requester, else the
 * database's sizelimit / timelimit (slapd's defaults 500 entries and
 * 3600 s when the policy sets none), applied to what the client asked:
 * nothing asked gives the soft limit; a hard limit of "soft" caps the
 * request at the soft one; a numeric hard limit caps it at the hard one
 * ("max" asks for it); an unlimited hard limit grants the request.
 * The frontend's own "limits" rules do not reach a database (slapd reads
 * the searched database's only).  Selectors: the requester's DN (none
 * when anonymous), or with dn.this the base; dn.regex on slapd's
 * normalised text; group through the request's group memo and host
 * lookups.  size.unchecked=disabled refuses the search
 * (ACRE_ERR_ADMIN_LIMIT: adminLimitExceeded); a numeric one bounds
 * back-mdb's candidates, which the host counts (acre_search: search.c).
 */
#include "eval.h"
#include "internal.h"
#include "ir_aci.h"

/* A DN's text as slapd's regexes see it, into *s and *n; -1 out of
 * memory. */
static int
regex_subject(acre_request *rq, const acre_dn *dn, const char **s, size_t *n)
{
    size_t len;
    const char *t = acre_dn_normalised(dn, &len);

    *s = acreV_slapd_dn(rq, t, len, n);
    return *s ? 0 : -1;
}

/* Does rule r select the search of rq under base (slapd's limits_get)?
 * A dn selector looks at the requester's DN (none for an anonymous one:
 * only "anonymous" and "*" select it) or with .this at the base (the
 * root DSE's "" too).  -1: a lookup or a regex limit failed. */
static int
selects(acre_request *rq, const acre_dn *base, const struct acreI_limrule *r)
{
    const acre_dn *dn = r->on_base ? base : rq->authz;
    const char *s;
    size_t n;
    int scope, m;

    if (r->sel == ACREI_LIMSEL_ANY)
        return 1;
    if (!dn)
        return r->sel == ACREI_LIMSEL_ANON;
    switch (r->sel) {
    case ACREI_LIMSEL_USERS:
        return 1;
    case ACREI_LIMSEL_EXACT:
        scope = ACRE_SCOPE_BASE;
        break;
    case ACREI_LIMSEL_ONE:
        scope = ACRE_SCOPE_ONE;
        break;
    case ACREI_LIMSEL_SUB:
        scope = ACRE_SCOPE_SUB;
        break;
    case ACREI_LIMSEL_CHILDREN:
        scope = ACRE_SCOPE_CHILDREN;
        break;
    case ACREI_LIMSEL_REGEX:
        if (regex_subject(rq, dn, &s, &n))
            return -1;
        m = acreV_regex_match(rq, &r->re, s, n, NULL, 0);
        return rq->limit_hit ? -1 : m;
    case ACREI_LIMSEL_GROUP:
        m = acreV_limits_group(rq, r->group);
        return rq->limit_hit ? -1 : m;
    default:
        return 0; /* anonymous: the requester has a DN */
    }
    return acre_dn_in_scope(dn, r->dn, scope) == 1;
}

/* One limit in force (ACRE_LIMIT_NONE: none) from what the client asked
 * (0 none, ACRE_LIMIT_MAX the most it may have) and the soft and hard
 * limits (ir.h).  A soft limit of 0 is one (no entry), and caps nothing
 * a client asks for. */
static long
in_force(long asked, long soft, long hard)
{
    if (hard > 0 && soft > hard)
        hard = soft; /* slapd: a hard limit below the soft one is it */
    if (asked == 0)
        return soft < 0 ? ACRE_LIMIT_NONE : soft;
    if (hard == 0) {
        if (soft > 0 && asked > soft)
            return soft;
    } else if (hard > 0 && asked > hard) {
        return hard;
    }
    return asked == ACRE_LIMIT_MAX ? ACRE_LIMIT_NONE : asked;
}

/* What the rootdn gets: what it asked, 0 and "max" meaning none. */
static long
asked_only(long asked)
{
    return asked == 0 || asked == ACRE_LIMIT_MAX ? ACRE_LIMIT_NONE : asked;
}

/* 389-DS's defaults (nsslapd-sizelimit, nsslapd-timelimit): what a
 * client asks, up to these; the Directory Manager is not limited. */
#define ACI_SIZE_LIMIT 2000L
#define ACI_TIME_LIMIT 3600L

static int
aci_limits(acre_request *rq, const acre_limits *asked, acre_limits *out)
{
    const acre_dn *root = rq->p->ir->aci->rootdn;

    if (rq->authz && root && acre_dn_equal(rq->authz, root)) {
        out->size = asked_only(asked->size);
        out->time = asked_only(asked->time);
        return 0;
    }
    out->size = in_force(asked->size, ACI_SIZE_LIMIT, ACI_SIZE_LIMIT);
    out->time = in_force(asked->time, ACI_TIME_LIMIT, ACI_TIME_LIMIT);
    return 0;
}

/* The limits slapd applies to rq's search under base (limits_get, on
 * the database acreI_select_db selects): *l NULL for that database's rootdn,
 * who has none.  0, or a negative ACRE_ERR_* when a selector's lookup or
 * regex failed. */
static int
limits_for(acre_request *rq, const acre_dn *base, const struct acreI_limits **l)
{
    const struct acreI_policy *ir = rq->p->ir;
    const struct acreI_section *db = acreI_select_db(ir, base);

    *l = NULL;
    if (!db)
        db = &ir->frontend;
    else if (rq->is_root[db - ir->dbs])
        return 0;
    *l = &db->limits;
    int hit = rq->limit_hit, code = rq->limit_code, m = 0;
    rq->limit_hit = 0;
    for (unsigned i = 0; i < db->nlimrules && !m; i++)
        if ((m = selects(rq, base, &db->limrules[i])) > 0)
            *l = &db->limrules[i].lim;
    if (m < 0) {
        int rc = rq->limit_hit ? rq->limit_code : ACRE_ERR_NOMEM;
        rq->limit_hit = hit, rq->limit_code = code;
        return rc ? rc : ACRE_ERR_EVAL_LIMIT;
    }
    rq->limit_hit = hit, rq->limit_code = code;
    return 0;
}

/* acre_search_limits -- see acre.h. */
ACRE_PUBLIC int
acre_search_limits(acre_request *rq, const acre_dn *base,
                   const acre_limits *asked, acre_limits *out)
{
    if (!acreE_is(rq, ACREE_REQUEST_MAGIC))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!base || !asked || !out || asked->size < 0 ||
        asked->size > ACRE_LIMIT_MAX || asked->time < 0 ||
        asked->time > ACRE_LIMIT_MAX)
        return ACRE_ERR_INVAL;

    if (rq->p->ir->model == ACREI_MODEL_ACI) {
        out->unchecked = ACRE_LIMIT_NONE;
        return aci_limits(rq, asked, out);
    }
    const struct acreI_limits *l;
    int rc = limits_for(rq, base, &l);
    if (rc)
        return rc;
    if (!l) {
        out->size = asked_only(asked->size);
        out->time = asked_only(asked->time);
        out->unchecked = ACRE_LIMIT_NONE;
        return 0;
    }
    if (l->size_unchecked == 0)
        return ACRE_ERR_ADMIN_LIMIT; /* "disabled": slapd refuses at once */
    out->size = in_force(asked->size, l->size_soft, l->size_hard);
    out->time = in_force(asked->time, l->time_soft, l->time_hard);
    out->unchecked =
        l->size_unchecked > 0 ? l->size_unchecked : ACRE_LIMIT_NONE;
    return 0;
}

/* acreV_unchecked -- see eval.h. */
int
acreV_unchecked(acre_request *rq, const acre_dn *base, long *out)
{
    const struct acreI_limits *l = NULL;
    int rc = rq->p->ir->model == ACREI_MODEL_ACI ? 0 : limits_for(rq, base, &l);

    *out = l && l->size_unchecked >= 0 ? l->size_unchecked : ACRE_LIMIT_NONE;
    return rc;
}
