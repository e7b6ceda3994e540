/*
 * request.c -- requests: fixing the requester once per operation and
 * sharing its specialisation through the policy's cache.  (Policy lifetime,
 * the swap slot and the subtree index lookup are in policy.c.)
 *
 * The spec cache: a requester identity (authorisation and authentication
 * DNs, connection strings, ssf values) maps to one spec whose clause
 * states fill in lazily as checks meet clauses.  The cache holds at most
 * ACREP_SPEC_CACHE specs; when it is full the least recently used one is
 * dropped (a request still holding it keeps it alive until it ends).  A spec
 * belongs to one policy: a new policy (a new generation) starts with an empty
 * cache.
 */
#include "aci_index.h"
#include "cos.h"
#include "eval.h"
#include "internal.h"
#include "schema.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>

#define ACREP_SPEC_CACHE 256
#define SCRATCH_POOL     (64 * 1024)

/* ------------------------------------------------------------------------
 * The spec cache
 */

static void
spec_release(struct acreP_spec *s)
{
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        pthread_mutex_destroy(&s->lock);
        talloc_free(s);
    }
}

void
acreP_specs_drop(struct acre_policy *p)
{
    for (unsigned i = 0; i < p->nspecs; i++)
        spec_release(p->specs[i]);
    p->nspecs = 0;
}

/* ------------------------------------------------------------------------
 * Requests
 */

/* A copy of s in ctx (NULL stays NULL); 0, or -1 when memory ran out. */
static int
copy(void *ctx, const char **s)
{
    if (*s && !(*s = talloc_strdup(ctx, *s)))
        return -1;
    return 0;
}

/* A requester DN: NULL or "" (or one normalising to "") is anonymous. */
static int
requester_dn(struct acre_request *rq, const char *s, const acre_dn **dn,
             const char **norm, size_t *len)
{
    acre_dn *d;

    *dn = NULL;
    *norm = "";
    *len = 0;
    if (!s || !*s)
        return 0;
    int rc = acre_dn_parse(rq->mem, rq->schema, s, strlen(s), 0, &d, NULL);
    if (rc)
        return rc;
    *norm = acre_dn_normalised(d, len);
    *dn = *len ? d : NULL;
    return 0;
}

/* The identity a spec is shared by: the requester's DNs, connection
 * strings (absent ones marked apart from empty ones) and ssf values, as
 * bytes; *key is their FNV-1a hash.  Clause states never read the
 * directory, so requests over different directories share a spec. */
static char *
identity(struct acre_request *rq, size_t *len, uint64_t *key)
{
    const acre_subject *w = &rq->who;
    /* no authz DN at all is apart from "" (eval_set.c: user) */
    const char *str[6] = {w->authz_dn ? rq->authz_norm : NULL,
                          rq->authc_norm,
                          w->peername,
                          w->sockname,
                          w->sockurl,
                          w->domain};
    size_t sl[6], n = 4 * sizeof(unsigned);

    for (int i = 0; i < 6; i++)
        n += (sl[i] = str[i] ? strlen(str[i]) : 0) + 2;
    char *id = talloc_size(rq->mem, n), *p = id;
    if (!id)
        return NULL;
    for (int i = 0; i < 6; i++) {
        *p++ = str[i] ? 1 : 0;
        memcpy(p, str[i] ? str[i] : "", sl[i]);
        p += sl[i];
        *p++ = 0;
    }
    unsigned ssf[4] = {w->ssf, w->transport_ssf, w->tls_ssf, w->sasl_ssf};
    memcpy(p, ssf, sizeof(ssf));
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)id[i]) * 0x100000001b3ull;
    *len = n;
    *key = h;
    return id;
}

static struct acreP_spec *
spec_new(struct acre_policy *p, const char *id, size_t len, uint64_t key)
{
    struct acreP_spec *s = talloc_zero(NULL, struct acreP_spec);

    if (!s)
        return NULL;
    s->refs = 1; /* the cache's */
    s->key = key;
    s->id = talloc_memdup(s, id, len);
    s->id_len = len;
    s->state = talloc_zero_array(s, uint8_t, p->nclauses + 1);
    if (!s->id || !s->state) {
        talloc_free(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

/* The spec for this identity, with a reference for the request. */
static struct acreP_spec *
spec_get(struct acre_policy *p, const char *id, size_t len, uint64_t key)
{
    struct acreP_spec *s = NULL;

    pthread_mutex_lock(&p->lock);
    for (unsigned i = 0; i < p->nspecs; i++)
        if (p->specs[i]->key == key && p->specs[i]->id_len == len &&
            memcmp(p->specs[i]->id, id, len) == 0) {
            s = p->specs[i];
            break;
        }
    if (!s && (s = spec_new(p, id, len, key))) {
        if (p->nspecs == ACREP_SPEC_CACHE) { /* drop the least recent */
            unsigned old = 0;
            for (unsigned i = 1; i < p->nspecs; i++)
                if (p->specs[i]->last_use < p->specs[old]->last_use)
                    old = i;
            spec_release(p->specs[old]);
            p->specs[old] = p->specs[--p->nspecs];
        }
        if (p->nspecs == p->spec_cap) {
            unsigned cap = p->spec_cap ? p->spec_cap * 2 : 16;
            struct acreP_spec **v =
                talloc_realloc(p->mem, p->specs, struct acreP_spec *, cap);
            if (!v) {
                talloc_free(s);
                pthread_mutex_unlock(&p->lock);
                return NULL;
            }
            p->specs = v;
            p->spec_cap = cap;
        }
        p->specs[p->nspecs++] = s;
    }
    if (s) {
        s->last_use = ++p->spec_clock;
        __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&p->lock);
    return s;
}

static int
request_destructor(struct acre_request *rq)
{
    if (rq->authz_entry)
        acreV_host_release(rq, rq->authz_entry);
    acreE_buf_free(&rq->vbuf);
    if (rq->md)
        pcre2_match_data_free(rq->md);
    spec_release(rq->spec);
    acreV_memberof_end(rq);
    acreV_aci_end(rq);
    if (rq->anon)
        acre_request_end(rq->anon);
    acre_policy_release(rq->p);
    return 0;
}

/* The requester's strings, copied into the request. */
static int
copy_subject(struct acre_request *rq, const acre_subject *who)
{
    rq->who = *who;
    if (copy(rq, &rq->who.authz_dn) || copy(rq, &rq->who.authc_dn) ||
        copy(rq, &rq->who.peername) || copy(rq, &rq->who.sockname) ||
        copy(rq, &rq->who.sockurl) || copy(rq, &rq->who.domain) ||
        copy(rq, &rq->who.auth_method))
        return ACRE_ERR_NOMEM;
    /* one time for the whole operation, as a server takes it */
    if (!rq->who.time)
        rq->who.time = (int64_t)time(NULL);
    return 0;
}

ACRE_PUBLIC int
acre_request_begin(acre_policy *p, const acre_subject *who,
                   const acre_host *host, acre_request **out)
{
    static const acre_subject anonymous;
    struct acre_request *rq;
    int rc;

    if ((rc = acreE_handle(p, ACREP_POLICY_MAGIC)) || !out)
        return rc ? rc : ACRE_ERR_INVAL;
    if (!who)
        who = &anonymous;
    if (!(rq = talloc_zero(NULL, struct acre_request)))
        return ACRE_ERR_NOMEM;
    rq->mem = rq;
    rq->p = acre_policy_ref(p);
    talloc_set_destructor(rq, request_destructor);
    rq->schema = p->schema;
    if (host)
        rq->host = *host;
    acreE_buf_init(&rq->vbuf, NULL, 0);
    rq->set_work = ACREV_SET_REQUEST_WORK;
    rc = copy_subject(rq, who);
    if (!rc)
        rc = requester_dn(rq, who->authz_dn, &rq->authz, &rq->authz_norm,
                          &rq->authz_len);
    if (!rc)
        rc = requester_dn(rq, who->authc_dn ? who->authc_dn : who->authz_dn,
                          &rq->authc, &rq->authc_norm, &rq->authc_len);
    if (rc) {
        talloc_free(rq);
        return rc;
    }
    rq->is_root = talloc_zero_array(rq, int, p->ir->ndbs + 1);
    rq->scratch = talloc_pool(rq, SCRATCH_POOL);
    rq->md = pcre2_match_data_create(ACREI_MAX_MATCHES, NULL);
    rq->test_state = talloc_zero_array(rq, uint8_t, p->ntests + 1);
    rq->test_epoch = talloc_zero_array(rq, uint32_t, p->ntests + 1);
    rq->memo = talloc_array(rq, struct acreV_memo, ACREV_MEMO);
    size_t nbits = p->aci ? 0 : (size_t)ACREV_VCTX * 2 * p->attr_words;
    if (nbits)
        rq->vctx_bits = talloc_array(rq, uint64_t, nbits);
    int shapes_rc = nbits ? acreV_shape_table(rq) : 0;
    size_t idlen = 0;
    uint64_t key = 0;
    char *id = identity(rq, &idlen, &key);
    if (!rq->is_root || !rq->scratch || !rq->md || !rq->test_state ||
        !rq->memo || !rq->test_epoch || (nbits && !rq->vctx_bits) ||
        shapes_rc || !id || !(rq->spec = spec_get(p, id, idlen, key))) {
        talloc_free(rq);
        return ACRE_ERR_NOMEM;
    }
    talloc_free(id);
    for (unsigned d = 0; rq->authz && d < p->ir->ndbs; d++)
        rq->is_root[d] = p->ir->dbs[d].rootdn &&
                         acre_dn_equal(rq->authz, p->ir->dbs[d].rootdn);
    rq->magic = ACREE_REQUEST_MAGIC;
    *out = rq;
    return 0;
}

/* acreV_anon_request -- see eval.h. */
struct acre_request *
acreV_anon_request(struct acre_request *rq)
{
    if (rq->anon)
        return rq->anon;
    if (rq->anon_depth >= ACREV_ANON_DEPTH) {
        acreV_fail(rq, ACRE_ERR_EVAL_LIMIT);
        return NULL;
    }
    acre_subject who = rq->who;
    who.authc_dn = rq->who.authc_dn ? rq->who.authc_dn : rq->who.authz_dn;
    who.authz_dn = NULL;
    if (acre_request_begin(rq->p, &who, &rq->host, &rq->anon)) {
        rq->anon = NULL;
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    rq->anon->anon_depth = rq->anon_depth + 1;
    return rq->anon;
}

ACRE_PUBLIC void
acre_request_end(acre_request *rq)
{
    if (acreE_is(rq, ACREE_REQUEST_MAGIC)) {
        rq->magic = 0;
        talloc_free(rq);
    }
}

ACRE_PUBLIC void
acre_request_set_flags(acre_request *rq, unsigned flags)
{
    if (acreE_is(rq, ACREE_REQUEST_MAGIC))
        rq->flags = flags;
}

/* ------------------------------------------------------------------------
 * Host lookups (acre.h: acre_host)
 */

int
acreV_host_get(struct acre_request *rq, const acre_dn *dn,
               const acre_entry_view **out)
{
    const acre_entry_view *v = NULL;
    int rc;

    *out = NULL;
    if (!rq->host.get) {
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return 0;
    }
    rc = rq->host.get(rq->host.arg, dn, &v);
    if (rc < 0 || (rc > 0 && (!v || !acreE_view_check(rq->schema, v)))) {
        if (rc > 0 && v)
            acreV_host_release(rq, v);
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return 0;
    }
    *out = rc > 0 ? v : NULL;
    return rc > 0;
}

void
acreV_host_release(struct acre_request *rq, const acre_entry_view *e)
{
    if (e && rq->host.release)
        rq->host.release(rq->host.arg, e);
}

const acre_entry_view *
acreV_authz_entry(struct acre_request *rq)
{
    if (!rq->authz)
        return NULL;
    if (rq->authz_state == 0) {
        const acre_entry_view *v;
        int found = acreV_host_get(rq, rq->authz, &v);
        if (rq->limit_hit && !found)
            return NULL; /* failed: asked again at the next need */
        rq->authz_entry = found ? v : NULL;
        rq->authz_state = 1;
    }
    return rq->authz_entry;
}

/* The host's has_children, as the filter hook wants it. */
static int
host_children(void *arg, const acre_entry_view *e)
{
    struct acre_request *rq = arg;
    int r = rq->host.has_children(rq->host.arg, e);

    if (r < 0)
        acreV_fail(rq, ACRE_ERR_LOOKUP);
    return r;
}

struct acreF_hooks
acreV_filter_hooks(struct acre_request *rq, acreF_access_fn access, void *ctx)
{
    struct acreF_hooks h = {access,
                            ctx,
                            NULL,
                            NULL,
                            acreV_memberof,
                            rq,
                            acreV_virtual_values,
                            rq->ger,
                            rq->flags & ACRE_REQ_COS ? acreV_cos_hook : NULL};

    if (rq->host.has_children) {
        h.children = host_children;
        h.children_arg = rq;
    }
    return h;
}

enum acreF_result
acreV_filter_eval(struct acre_request *rq, const struct acreF_filter *f,
                  const acre_entry_view *e, const struct acreF_hooks *h)
{
    unsigned long before = acreE_nomem;
    enum acreF_result r = acreF_eval(f, e, h);

    if (acreE_nomem == before)
        return r;
    acreV_fail(rq, ACRE_ERR_NOMEM);
    return ACREF_UNDEFINED;
}

enum acreF_result
acreV_filter_eval_389(struct acre_request *rq, const struct acreF_filter *f,
                      const acre_entry_view *e, const struct acreF_hooks *h,
                      int may_ldapsubentry)
{
    unsigned long before = acreE_nomem;
    enum acreF_result r = acreF_eval_389(f, e, h, may_ldapsubentry);

    if (acreE_nomem == before)
        return r;
    acreV_fail(rq, ACRE_ERR_NOMEM);
    return ACREF_UNDEFINED;
}

/* ------------------------------------------------------------------------
 * Group answers kept in a spec across requests
 */

int
acreV_group_memo_get(struct acre_request *rq, const struct acreI_group *g,
                     int *member)
{
    struct acreP_spec *s = rq->spec;
    int found = 0;

    if (!rq->host.generation)
        return 0;
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < s->ngroups && !found; i++) {
        const struct acreV_gmemo *m = &s->groups[i];
        if (m->g == g && m->host == rq->host.arg &&
            m->gen == rq->host.generation) {
            *member = m->member;
            found = 1;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

void
acreV_group_memo_put(struct acre_request *rq, const struct acreI_group *g,
                     int member)
{
    struct acreP_spec *s = rq->spec;
    struct acreV_gmemo *m = NULL;

    if (!rq->host.generation)
        return;
    pthread_mutex_lock(&s->lock);
    for (unsigned i = 0; i < s->ngroups && !m; i++)
        if (s->groups[i].g == g && s->groups[i].host == rq->host.arg)
            m = &s->groups[i]; /* an older generation's: replaced */
    if (!m && !s->groups)
        s->groups = talloc_array(s, struct acreV_gmemo, ACREV_SPEC_GROUPS);
    if (!m && s->groups) {
        m = &s->groups[s->gnext];
        s->gnext = (s->gnext + 1) % ACREV_SPEC_GROUPS;
        if (s->ngroups < ACREV_SPEC_GROUPS)
            s->ngroups++;
    }
    if (m) {
        m->g = g;
        m->host = rq->host.arg;
        m->gen = rq->host.generation;
        m->member = member;
    }
    pthread_mutex_unlock(&s->lock);
}
