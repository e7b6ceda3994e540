/*
 * acre_overlay.c -- slapo-acre: acre answering every access check of a
 * slapd 2.5 database, as an overlay loaded with `moduleload acre.so`.
 *
 *     overlay acre
 *     acre-policy /etc/ldap/acre/policy.conf
 *
 * (cn=config: objectClass olcAcreConfig, attribute olcAcrePolicy.)  The
 * policy file holds OpenLDAP access rules in slapd.conf form; acre compiles
 * it, and a file that does not compile refuses the configuration with
 * acre's file:line:col message (slapd does not start; a cn=config change
 * is refused and the policy in force stays).  Each new policy goes into
 * the instance's acre_slot: operations already running keep the one they
 * started with.
 *
 * How checks are answered: slapd's access_allowed_mask() asks the
 * bi_access_allowed of op->o_bd->bd_info for every check (the entry, each
 * attribute and value it returns, each filter item, compare, add, modify,
 * delete, rename).  While the overlay chain runs that is the overlay's
 * (backover.c); while the backend runs an operation it is the backend's
 * own BackendInfo, so while the database is open the overlay puts in the
 * chain's place a copy of it whose bi_access_allowed is acre's.  Together
 * they answer every check (never falling through to slapd's own rules),
 * on slapd's own Entry read through an acre_entry_view (no copy of a
 * value):
 *   - the rootdn gets manage, and a write to a no-user-modification
 *     attribute is granted, exactly as slap_access_allowed() does first;
 *   - one acre_request per operation, kept in a per-thread cache keyed by
 *     the operation (connection id, operation id, Operation pointer, the
 *     requester's DN and the instance's policy generation), so the
 *     requester is specialised once per operation; a cleanup callback
 *     ends it when the operation's result is sent (else the thread's next
 *     operation does);
 *   - read checks of an entry (the entry itself and each value a search
 *     returns) are answered from acre_entry_decide's whole-entry verdict,
 *     made once per entry per operation; every other check is one
 *     acre_access call;
 *   - rules that read other entries (groups, dnattr, sets) get them from
 *     slapd's backends through acre_host: be_entry_get_rw, and for set
 *     URLs an internal search as the rootdn, as slapd's own sets do.
 * Collective attributes: the database's subentries and administrative
 * points, gathered by an internal search, are attached to the policy
 * (acre_policy_attach_subentries) before the next operation whenever they
 * may have changed; search responses carry each entry's collective values
 * and filters naming collective types are tested on them (see the
 * section "Collective attributes" below).
 * Attribute ids: each AttributeDescription is resolved once per instance
 * (acre_schema_attr_id) and kept in a table keyed by its address (slapd
 * never frees an AttributeDescription while it runs), read without a lock
 * (struct id_table): every entry view looks up each of the entry's
 * attributes there, and a read lock's two atomic operations per attribute
 * were about 3% of slapd's time in a search.  Every policy of an
 * instance is compiled against the instance's one schema, so the ids stay
 * valid across swaps; a new policy may repeat the schema definitions its
 * predecessors loaded, not add new ones (acre_schema_load_file).
 *
 * Invariants: fail closed -- no policy, an unknown attribute, a DN acre
 * cannot parse, any acre error: denied.  Everything slapd-specific lives
 * in adapters/openldap/; only init_module leaves acre.so (the rest is
 * hidden, libacre is linked in statically: see openldap.mk).
 */
#include "portable.h"

#include <ac/string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "slap.h"

#include "slap-config.h"

#include "acre.h"

#include <talloc.h>

/* acre's value layout is struct berval's: arrays are handed over as they
 * are (acre.h, acre_value). */
_Static_assert(sizeof(struct berval) == sizeof(acre_value) &&
                   offsetof(struct berval, bv_len) ==
                       offsetof(acre_value, len) &&
                   offsetof(struct berval, bv_val) == offsetof(acre_value, val),
               "struct berval and acre_value differ");

/* acre's privilege bits are slapd's (acre.h): a mask goes back as it is. */
_Static_assert(ACRE_PRIV_AUTH == ACL_PRIV_AUTH &&
                   ACRE_PRIV_SEARCH == ACL_PRIV_SEARCH &&
                   ACRE_PRIV_READ == ACL_PRIV_READ &&
                   ACRE_PRIV_WRITE ==
                       (ACL_PRIV_WRITE | ACL_ACCESS2PRIV(ACL_WRITE)) &&
                   ACRE_PRIV_MANAGE == ACL_PRIV_MANAGE,
               "acre's privilege bits differ from slapd's");

/* ------------------------------------------------------------------------
 * Instances
 */

/* AttributeDescription -> acre id, open addressing on the address. */
struct id_slot {
    _Atomic(const AttributeDescription *) ad; /* stored after id */
    int id; /* >= 0, or a negative acre error: not decidable */
};

/* Open addressing, at most half full.  Readers take no lock: a slot's ad
 * is published after its id, and a full table is replaced by a larger copy
 * while the old one stays readable (kept on `older` until the instance
 * ends; a reader that missed an entry there resolves it again). */
struct id_table {
    struct id_table *older;
    size_t cap, n;
    struct id_slot s[];
};

struct acre_inst {
    /* A copy of the database's own BackendInfo whose bi_access_allowed is
     * acre's, put in the overlay chain's place of the original while the
     * database is open (see acre_db_open).  First member: a check made
     * through it finds the instance from op->o_bd->bd_info. */
    BackendInfo bi;
    BackendInfo *orig;   /* the original, while the copy is in place */
    int deleted, failed; /* during a cn=config change (acre_cf_cleanup) */
    int cleanup_pushed;
    char *path;          /* acre-policy, ch_malloc'd; NULL: none */
    acre_schema *schema; /* every policy of the instance is compiled on it */
    acre_slot *slot;
    atomic_ulong gen;         /* changes with every store into the slot */
    pthread_mutex_t ids_lock; /* writers of ids */
    _Atomic(struct id_table *) ids;
    /* Collective attributes: the compiled rules, attached to the
     * database's subentries (coll_rebuild) before the next operation
     * whenever coll_dirty is set. */
    acre_policy *rules;
    pthread_mutex_t coll_lock;
    atomic_int coll_dirty;
    struct berval *coll_dns; /* the subentries and administrative points
                                last gathered (ch_malloc'd; coll_lock) */
    unsigned coll_ndns;
    /* the attribute types subentries made collective: append-only, so a
     * reader sees a prefix of it (filters naming one are re-evaluated on
     * the entry with its collective values) */
    AttributeType *coll_types[64];
    atomic_uint coll_ntypes;
    atomic_uint coll_nsub; /* subentries attached: none, no search work */
};

static slap_overinst acre_ov;
static BI_access_allowed acre_backend_access_allowed;
static void coll_dns_free(struct acre_inst *inst);

enum { ACRE_CF_POLICY = 1 };

/* Write "file:line:col: message" of d into buf. */
static void
diag_text(char *buf, size_t size, const acre_diag *d, int rc, const char *path)
{
    if (d->message[0] && !d->line)
        snprintf(buf, size, "%s", d->message);
    else if (d->message[0])
        snprintf(buf, size, "%s:%u:%u: %s", d->file ? d->file : path, d->line,
                 d->column, d->message);
    else
        snprintf(buf, size, "%s: %s", path, acre_strerror(rc));
}

/* slapd's own definition of memberOf, when it has one, into s: its
 * memberof overlay's (DN equality, operational) or msuser.schema's, which
 * acre's built-in one is (that one gives way: acre_schema_new).  0, or an
 * acre error with d set. */
static int
schema_from_slapd(acre_schema *s, acre_diag *d)
{
    AttributeType *at = at_find("memberOf");
    char *def, *text;
    int rc;

    if (!at)
        return 0;
    if (!(def = ldap_attributetype2str(&at->sat_atype)))
        return ACRE_ERR_NOMEM;
    text = ch_malloc(strlen(def) + sizeof "attributetype \n");
    sprintf(text, "attributetype %s\n", def);
    ldap_memfree(def);
    rc = acre_schema_load_buffer(s, "slapd's memberOf", text, strlen(text), d);
    ch_free(text);
    return rc;
}

/* Compile path into inst's schema and store it; 0, or non-zero with the
 * message in msg (the slot is then unchanged). */
static int
policy_load(struct acre_inst *inst, const char *path, char *msg, size_t size)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, path, NULL, 0};
    acre_policy *p = NULL;
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    if (!inst->schema &&
        ((rc = acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &inst->schema, &d)) ||
         (rc = schema_from_slapd(inst->schema, &d)))) {
        diag_text(msg, size, &d, rc, path);
        if (inst->schema)
            acre_schema_free(inst->schema);
        inst->schema = NULL;
        return 1;
    }
    rc = acre_policy_compile(NULL, inst->schema, &src, 1, 0, &p, &d);
    if (rc) {
        diag_text(msg, size, &d, rc, path);
        return 1;
    }
    pthread_mutex_lock(&inst->coll_lock);
    acre_slot_store(inst->slot, p);
    acre_policy_release(inst->rules);
    inst->rules = p; /* attached to the subentries before the next op */
    atomic_store(&inst->coll_dirty, 1);
    atomic_fetch_add(&inst->gen, 1);
    pthread_mutex_unlock(&inst->coll_lock);
    return 0;
}

/* Run after a cn=config change of the entry.  A replace is a delete then
 * an add, undone (delete, add of the old value) when the add fails: the
 * delete only marks the policy, so whatever the undo does, a failed change
 * leaves the policy in force.  Only a policy deleted and not replaced
 * leaves the slot empty, and then every check is denied. */
static int
acre_cf_cleanup(ConfigArgs *c)
{
    struct acre_inst *inst = ((slap_overinst *)c->bi)->on_bi.bi_private;

    if (inst->deleted && !inst->failed) {
        ch_free(inst->path);
        inst->path = NULL;
        acre_slot_store(inst->slot, NULL);
        atomic_fetch_add(&inst->gen, 1);
    }
    inst->deleted = inst->failed = inst->cleanup_pushed = 0;
    return 0;
}

static int
acre_cf_gen(ConfigArgs *c)
{
    struct acre_inst *inst = ((slap_overinst *)c->bi)->on_bi.bi_private;
    if (c->op == SLAP_CONFIG_EMIT) {
        if (!inst->path || inst->deleted)
            return 1;
        c->value_string = ch_strdup(inst->path);
        return 0;
    }
    if (c->op != SLAP_CONFIG_ADD && !inst->cleanup_pushed) {
        config_push_cleanup(c, acre_cf_cleanup);
        inst->cleanup_pushed = 1;
    }
    if (c->op == LDAP_MOD_DELETE) {
        inst->deleted = 1; /* in force until the change is complete */
        return 0;
    }
    if (policy_load(inst, c->value_string, c->cr_msg, sizeof c->cr_msg)) {
        Debug(LDAP_DEBUG_ANY, "%s: acre-policy: %s\n", c->log, c->cr_msg);
        ch_free(c->value_string);
        c->value_string = NULL;
        inst->failed = 1;
        return ARG_BAD_CONF;
    }
    ch_free(inst->path);
    inst->path = c->value_string;
    inst->deleted = 0;
    return 0;
}

static ConfigTable acre_cfg[] = {
    {"acre-policy", "file", 2, 2, 0, ARG_STRING | ARG_MAGIC | ACRE_CF_POLICY,
     acre_cf_gen,
     "( 1.3.6.1.4.1.4203.666.11.99.1.1 NAME 'olcAcrePolicy' "
     "DESC 'acre: the file of OpenLDAP access rules acre enforces' "
     "EQUALITY caseExactMatch "
     "SYNTAX OMsDirectoryString SINGLE-VALUE )",
     NULL, NULL},
    {NULL, NULL, 0, 0, 0, ARG_IGNORED, NULL, NULL, NULL, NULL}};

static ConfigOCs acre_ocs[] = {
    {"( 1.3.6.1.4.1.4203.666.11.99.2.1 NAME 'olcAcreConfig' "
     "DESC 'acre access-control overlay configuration' "
     "SUP olcOverlayConfig "
     "MAY ( olcAcrePolicy ) )",
     Cft_Overlay, acre_cfg, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL}};

static int
acre_db_init(BackendDB *be, ConfigReply *cr)
{
    slap_overinst *on = (slap_overinst *)be->bd_info;
    struct acre_inst *inst = ch_calloc(1, sizeof *inst);

    if (acre_slot_new(&inst->slot)) {
        ch_free(inst);
        snprintf(cr->msg, sizeof cr->msg, "acre: out of memory");
        return 1;
    }
    pthread_mutex_init(&inst->ids_lock, NULL);
    pthread_mutex_init(&inst->coll_lock, NULL);
    on->on_bi.bi_private = inst;
    return 0;
}

static int
acre_db_open(BackendDB *be, ConfigReply *cr)
{
    slap_overinst *on = (slap_overinst *)be->bd_info;
    struct acre_inst *inst = on->on_bi.bi_private;

    if (!inst->path) {
        snprintf(cr->msg, sizeof cr->msg,
                 "acre: overlay acre has no acre-policy: refusing to run "
                 "the database without access control");
        Debug(LDAP_DEBUG_ANY, "%s\n", cr->msg);
        return 1;
    }
    /* While the backend runs an operation, op->o_bd->bd_info is the
     * backend's own BackendInfo (backover.c), so access_allowed_mask()
     * asks it, not the overlay chain: the database's backend is replaced
     * by a copy that asks acre.  The overlay's own hook answers the
     * checks made before the backend runs. */
    if (!inst->orig) {
        slap_overinfo *oi = on->on_info;
        inst->bi = *oi->oi_orig;
        inst->bi.bi_access_allowed = acre_backend_access_allowed;
        inst->orig = oi->oi_orig;
        oi->oi_orig = &inst->bi;
    }
    atomic_store(&inst->coll_dirty, 1); /* the subentries: at first use */
    return 0;
}

/* Put the database's own BackendInfo back. */
static void
backend_restore(slap_overinst *on, struct acre_inst *inst)
{
    if (inst->orig && on->on_info->oi_orig == &inst->bi)
        on->on_info->oi_orig = inst->orig;
    inst->orig = NULL;
}

static int
acre_db_close(BackendDB *be, ConfigReply *cr)
{
    slap_overinst *on = (slap_overinst *)be->bd_info;

    if (on->on_bi.bi_private)
        backend_restore(on, on->on_bi.bi_private);
    return 0;
}

static int
acre_db_destroy(BackendDB *be, ConfigReply *cr)
{
    slap_overinst *on = (slap_overinst *)be->bd_info;
    struct acre_inst *inst = on->on_bi.bi_private;

    if (!inst)
        return 0;
    backend_restore(on, inst);
    /* Threads' cached requests may still hold policies compiled on the
     * schema: the schema is left to the process's end. */
    acre_slot_free(inst->slot);
    acre_policy_release(inst->rules);
    coll_dns_free(inst);
    pthread_mutex_destroy(&inst->coll_lock);
    pthread_mutex_destroy(&inst->ids_lock);
    for (struct id_table *t = atomic_load(&inst->ids), *o; t; t = o) {
        o = t->older;
        ch_free(t);
    }
    ch_free(inst->path);
    ch_free(inst);
    on->on_bi.bi_private = NULL;
    return 0;
}

/* ------------------------------------------------------------------------
 * Attribute ids
 */

static size_t
ad_hash(const AttributeDescription *ad, size_t cap)
{
    uintptr_t h = (uintptr_t)ad;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 7) & (cap - 1);
}

/* The slot of ad in t, or the empty slot where it would go. */
static struct id_slot *
ids_slot(struct id_table *t, const AttributeDescription *ad, memory_order order)
{
    const AttributeDescription *a;
    size_t i = ad_hash(ad, t->cap);

    while ((a = atomic_load_explicit(&t->s[i].ad, order)) && a != ad)
        i = (i + 1) & (t->cap - 1);
    return &t->s[i];
}

/* Record ad's id; inst->ids_lock held. */
static void
ids_put(struct acre_inst *inst, const AttributeDescription *ad, int id)
{
    struct id_table *t = atomic_load_explicit(&inst->ids, memory_order_relaxed);
    struct id_slot *s;

    if (!t || (t->n + 1) * 2 > t->cap) {
        size_t cap = t ? t->cap * 2 : 256;
        struct id_table *nt = ch_calloc(1, sizeof *nt + cap * sizeof *nt->s);
        nt->older = t;
        nt->cap = cap;
        for (size_t i = 0; t && i < t->cap; i++) {
            const AttributeDescription *a =
                atomic_load_explicit(&t->s[i].ad, memory_order_relaxed);
            if (a) {
                s = ids_slot(nt, a, memory_order_relaxed);
                s->id = t->s[i].id;
                atomic_store_explicit(&s->ad, a, memory_order_relaxed);
                nt->n++;
            }
        }
        atomic_store_explicit(&inst->ids, nt, memory_order_release);
        t = nt;
    }
    s = ids_slot(t, ad, memory_order_relaxed);
    if (atomic_load_explicit(&s->ad, memory_order_relaxed))
        return; /* another thread resolved it first */
    s->id = id;
    atomic_store_explicit(&s->ad, ad, memory_order_release);
    t->n++;
}

/* The acre id of ad in inst's schema, or a negative error. */
static int
ad_id(struct acre_inst *inst, const AttributeDescription *ad)
{
    struct id_table *t = atomic_load_explicit(&inst->ids, memory_order_acquire);
    int id;

    if (t) {
        const struct id_slot *s = ids_slot(t, ad, memory_order_acquire);
        if (atomic_load_explicit(&s->ad, memory_order_acquire) == ad)
            return s->id;
    }
    id = acre_schema_attr_id(inst->schema, ad->ad_cname.bv_val,
                             ad->ad_cname.bv_len);
    pthread_mutex_lock(&inst->ids_lock);
    ids_put(inst, ad, id);
    pthread_mutex_unlock(&inst->ids_lock);
    return id;
}

/* ------------------------------------------------------------------------
 * Entry views of slapd's Entry
 */

/* A view of an Entry and the room it needs; map[i] is the view index of
 * the entry's i-th Attribute, -1 when acre's schema lacks its type. */
struct eview {
    acre_entry_view v;
    acre_view_attr *attrs;
    int *map;
    unsigned cap;
    const Entry *e;
    void *dnbuf;
};

static void
eview_free(struct eview *ev)
{
    ch_free(ev->attrs);
    ch_free(ev->map);
    ch_free(ev->dnbuf);
    memset(ev, 0, sizeof *ev);
}

/* Fill ev with e's view; 0, or an acre error. */
static int
eview_make(struct acre_inst *inst, const acre_schema *schema, const Entry *e,
           struct eview *ev)
{
    unsigned n = 0, k = 0;
    acre_dn *dn;
    int rc;

    for (Attribute *a = e->e_attrs; a; a = a->a_next)
        n++;
    if (n > ev->cap) {
        ev->cap = n * 2 + 8;
        ev->attrs = ch_realloc(ev->attrs, ev->cap * sizeof *ev->attrs);
        ev->map = ch_realloc(ev->map, ev->cap * sizeof *ev->map);
    }
    if (!ev->dnbuf)
        ev->dnbuf = ch_malloc(ACRE_DN_BUF_MAX);
    rc = acre_dn_parse_buf(ev->dnbuf, ACRE_DN_BUF_MAX, schema,
                           e->e_nname.bv_val, e->e_nname.bv_len, 0, &dn, NULL);
    if (rc)
        return rc;
    n = 0;
    for (Attribute *a = e->e_attrs; a; a = a->a_next, n++) {
        int id = ad_id(inst, a->a_desc);
        ev->map[n] = -1;
        if (id < 0 || !a->a_numvals)
            continue;
        ev->map[n] = (int)k;
        ev->attrs[k].id = id;
        ev->attrs[k].nvals = a->a_numvals;
        ev->attrs[k].vals = (const acre_value *)a->a_vals;
        ev->attrs[k].norms = NULL;
        k++;
    }
    ev->v.schema = schema;
    ev->v.dn = dn;
    ev->v.nattrs = k;
    ev->v.attrs = ev->attrs;
    ev->v.host_data = e;
    ev->e = e;
    return 0;
}

/* ------------------------------------------------------------------------
 * Host lookups through slapd's backends
 */

struct host_ctx {
    struct acre_inst *inst;
    const acre_schema *schema;
    Operation *op; /* the operation being checked */
};

struct got {
    struct eview ev;
    Entry *e; /* our copy */
};

/* The entry named dn, from the database that holds it.  The view is of a
 * copy: acre may keep it (the requester's own entry, for the whole
 * request), and a backend's entry held past the call that got it is not
 * safe: back-mdb counts its readers per operation and per database, and
 * an entry it gave out and got back in the middle of a search of the
 * same database (a later check of the operation ending the request)
 * leaves that database's read transaction open on the thread, which its
 * next lookup aborts slapd on (id2entry.c, mdb_opinfo_get). */
static int
host_get(void *arg, const acre_dn *dn, const acre_entry_view **out)
{
    struct host_ctx *h = arg;
    struct berval bv, ndn = BER_BVNULL;
    Entry *e = NULL, *copy;
    struct got *g;
    BackendDB *be, *save = h->op->o_bd;
    size_t len;
    int rc;

    bv.bv_val = (char *)acre_dn_pretty(dn, &len);
    bv.bv_len = len;
    if (dnNormalize(0, NULL, NULL, &bv, &ndn, h->op->o_tmpmemctx))
        return -1;
    /* from the database that holds it, which need not be the one checked
     * (slapd's backend_attribute and backend_group select it too) */
    be = select_backend(&ndn, 0);
    if (!be) {
        slap_sl_free(ndn.bv_val, h->op->o_tmpmemctx);
        return 0;
    }
    h->op->o_bd = be;
    rc = be_entry_get_rw(h->op, &ndn, NULL, NULL, 0, &e);
    copy = rc == LDAP_SUCCESS && e ? entry_dup(e) : NULL;
    if (e)
        be_entry_release_r(h->op, e);
    h->op->o_bd = save;
    slap_sl_free(ndn.bv_val, h->op->o_tmpmemctx);
    if (rc != LDAP_SUCCESS || !e)
        return rc == LDAP_NO_SUCH_OBJECT || !e ? 0 : -1;
    g = ch_calloc(1, sizeof *g);
    g->e = copy;
    if (eview_make(h->inst, h->schema, copy, &g->ev)) {
        eview_free(&g->ev);
        entry_free(copy);
        ch_free(g);
        return -1;
    }
    *out = &g->ev.v;
    return 1;
}

static void
host_release(void *arg, const acre_entry_view *v)
{
    struct got *g = (struct got *)v; /* v is g->ev.v, its first member */

    (void)arg;
    eview_free(&g->ev);
    entry_free(g->e);
    ch_free(g);
}

/* An internal search of host_search: each entry found is handed to fn. */
struct walk {
    struct host_ctx *h;
    acre_view_fn fn;
    void *fn_arg;
    int rc; /* fn's first non-zero answer, or a failure */
};

static int
walk_entry(Operation *op, SlapReply *rs)
{
    struct walk *w = op->o_callback->sc_private;
    struct eview ev;

    if (rs->sr_type != REP_SEARCH || w->rc)
        return 0;
    memset(&ev, 0, sizeof ev);
    if (eview_make(w->h->inst, w->h->schema, rs->sr_entry, &ev))
        w->rc = -1;
    else
        w->rc = w->fn(w->fn_arg, &ev.v);
    eview_free(&ev);
    return 0;
}

/* Every entry within scope of base, as slapd's own set URLs find them
 * (acl.c, acl_set_gather): an internal search as the rootdn of the
 * database holding base. */
static int
host_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
            void *fn_arg)
{
    struct host_ctx *h = arg;
    Operation *op = h->op, op2 = {0};
    SlapReply rs = {REP_RESULT};
    struct walk w = {h, fn, fn_arg, 0};
    slap_callback cb = {NULL, walk_entry, NULL, &w};
    struct berval bv;
    size_t len;

    bv.bv_val = (char *)acre_dn_pretty(base, &len);
    bv.bv_len = len;
    if (dnNormalize(0, NULL, NULL, &bv, &op2.o_req_ndn, op->o_tmpmemctx))
        return -1;
    op2.o_bd = select_backend(&op2.o_req_ndn, 1);
    if (!op2.o_bd || !op2.o_bd->be_search) {
        slap_sl_free(op2.o_req_ndn.bv_val, op->o_tmpmemctx);
        return 0; /* no such base: nothing */
    }
    op2.o_hdr = op->o_hdr;
    op2.o_tag = LDAP_REQ_SEARCH;
    op2.o_ndn = op2.o_bd->be_rootndn;
    op2.o_dn = op2.o_bd->be_rootdn;
    op2.o_callback = &cb;
    slap_op_time(&op2.o_time, &op2.o_tincr);
    op2.o_do_not_cache = 1;
    op2.o_req_dn = op2.o_req_ndn;
    op2.ors_scope = scope;
    op2.ors_deref = LDAP_DEREF_NEVER;
    op2.ors_filterstr = *slap_filterstr_objectClass_pres;
    op2.ors_filter = (Filter *)slap_filter_objectClass_pres;
    op2.ors_slimit = SLAP_NO_LIMIT;
    op2.ors_tlimit = SLAP_NO_LIMIT;
    op2.ors_attrs = slap_anlist_all_attributes;
    op2.o_private = op->o_private;
    op2.o_extra = op->o_extra;
    /* lookups made by fn go through op2: they find the read transaction
     * of the database being searched in op2's o_extra, where back-mdb put
     * it, rather than begin the thread's one a second time */
    h->op = &op2;
    op2.o_bd->be_search(&op2, &rs);
    h->op = op;
    slap_sl_free(op2.o_req_ndn.bv_val, op->o_tmpmemctx);
    if (w.rc)
        return w.rc;
    return rs.sr_err == LDAP_SUCCESS || rs.sr_err == LDAP_NO_SUCH_OBJECT ? 0
                                                                         : -1;
}

static int
host_has_children(void *arg, const acre_entry_view *v)
{
    struct host_ctx *h = arg;
    Entry *e = (Entry *)v->host_data;
    BackendDB *be = select_backend(&e->e_nname, 0), *save = h->op->o_bd;
    int hs = LDAP_COMPARE_FALSE, rc;

    if (!be || !be->be_has_subordinates)
        return -1;
    h->op->o_bd = be;
    rc = be->be_has_subordinates(h->op, e, &hs);
    h->op->o_bd = save;
    if (rc != LDAP_SUCCESS)
        return -1;
    return hs == LDAP_COMPARE_TRUE;
}

/* ------------------------------------------------------------------------
 * One request per operation, per thread
 */

struct opcache {
    struct acre_inst *inst;
    unsigned long gen, connid, opid;
    const Operation *op;
    struct berval ndn; /* ch_malloc'd copy */
    acre_request *rq;
    struct host_ctx host;
    int busy;
    /* the last entry decided for read, and its verdict */
    struct eview ev;
    uint64_t sig; /* entry_sig of ev.e */
    int have_verdict;
    acre_verdict verdict;
    /* the entry a search's entry-level read check has just compared in
     * full (view_for): the read checks of its attributes and values that
     * follow trust it unchanged while its id and first attribute are the
     * same, as slapd's own per-entry access state does; NULL: none */
    const Entry *trust;
    ID trust_id;
    const Attribute *trust_head;
    const Attribute *cur_a; /* the attribute last found in it, and where */
    int cur_i;
    /* the last check of an attribute without a value, and the state slapd
     * carried it in: the value checks that follow in that state resume
     * from it (ACRE_ACCESS_AFTER_ATTR), as slapd's do for the operational
     * attributes it computes; NULL: none */
    const AccessControlState *after_state;
    const Entry *after_e;
    const AttributeDescription *after_desc;
    slap_access_t after_access;
};

static __thread struct opcache *tls_cache;

static void
opcache_end(struct opcache *oc)
{
    acre_request_end(oc->rq);
    oc->rq = NULL;
    oc->have_verdict = 0;
    oc->ev.e = NULL;
    oc->trust = NULL;
    oc->cur_a = NULL;
    oc->after_state = NULL;
}

static int
same_op(const struct opcache *oc, struct acre_inst *inst, const Operation *op)
{
    return oc->rq && oc->inst == inst && oc->op == op &&
           oc->connid == op->o_connid && oc->opid == op->o_opid &&
           oc->gen == atomic_load(&inst->gen) &&
           oc->ndn.bv_len == op->o_ndn.bv_len &&
           (!op->o_ndn.bv_len ||
            !memcmp(oc->ndn.bv_val, op->o_ndn.bv_val, op->o_ndn.bv_len));
}

static void
subject_of(const Operation *op, acre_subject *s)
{
    const Connection *c = op->o_conn;

    memset(s, 0, sizeof *s);
    s->authz_dn = op->o_ndn.bv_val;
    s->ssf = op->o_ssf;
    s->transport_ssf = op->o_transport_ssf;
    s->tls_ssf = op->o_tls_ssf;
    s->sasl_ssf = op->o_sasl_ssf;
    if (!c)
        return;
    s->authc_dn = c->c_ndn.bv_val ? c->c_ndn.bv_val : "";
    s->peername = c->c_peer_name.bv_val;
    s->sockname = c->c_sock_name.bv_val;
    s->sockurl = c->c_listener_url.bv_val;
    s->domain = c->c_peer_domain.bv_val;
}

/* Begin oc's request for op under inst's current policy; 0 or -1 (no
 * policy, or acre failed: deny). */
static int
opcache_begin(struct opcache *oc, struct acre_inst *inst, Operation *op)
{
    acre_host host = {0};
    acre_subject who;
    acre_policy *p;
    int rc;

    opcache_end(oc);
    oc->gen = atomic_load(&inst->gen);
    if (!(p = acre_slot_acquire(inst->slot)))
        return -1;
    oc->inst = inst;
    oc->op = op;
    oc->connid = op->o_connid;
    oc->opid = op->o_opid;
    ch_free(oc->ndn.bv_val);
    oc->ndn.bv_len = op->o_ndn.bv_len;
    oc->ndn.bv_val = ch_malloc(op->o_ndn.bv_len + 1);
    memcpy(oc->ndn.bv_val, op->o_ndn.bv_val ? op->o_ndn.bv_val : "",
           op->o_ndn.bv_len);
    oc->ndn.bv_val[op->o_ndn.bv_len] = '\0';
    oc->host.inst = inst;
    oc->host.schema = acre_policy_schema(p);
    oc->host.op = op;
    host.arg = &oc->host;
    host.get = host_get;
    host.release = host_release;
    host.search = host_search;
    host.has_children = host_has_children;
    subject_of(op, &who);
    rc = acre_request_begin(p, &who, &host, &oc->rq);
    acre_policy_release(p); /* the request holds its own */
    return rc ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * Checks
 */

static int
acre_right_of(slap_access_t access)
{
    switch (ACL_LEVEL(access)) {
    case ACL_DISCLOSE:
        return ACRE_RIGHT_DISCLOSE;
    case ACL_AUTH:
        return ACRE_RIGHT_AUTH;
    case ACL_COMPARE:
        return ACRE_RIGHT_COMPARE;
    case ACL_SEARCH:
        return ACRE_RIGHT_SEARCH;
    case ACL_READ:
        return ACRE_RIGHT_READ;
    case ACL_WRITE_:
        if ((access & ACL_QUALIFIER_MASK) == ACL_QUALIFIER1)
            return ACRE_RIGHT_ADD;
        if ((access & ACL_QUALIFIER_MASK) == ACL_QUALIFIER2)
            return ACRE_RIGHT_DELETE;
        return ACRE_RIGHT_WRITE;
    case ACL_MANAGE:
        return ACRE_RIGHT_MANAGE;
    }
    return -1;
}

/* The index of ad's Attribute in e, and the Attribute; -1 when absent. */
static int
attr_index(const Entry *e, const AttributeDescription *ad, Attribute **out)
{
    int i = 0;

    for (Attribute *a = e->e_attrs; a; a = a->a_next, i++)
        if (a->a_desc == ad) {
            *out = a;
            return i;
        }
    return -1;
}

/* A fingerprint of e's attribute list: which Attributes, which value
 * arrays, how many values.  A view is reused only for the same Entry with
 * the same fingerprint (slapd may change an entry between checks). */
static uint64_t
entry_sig(const Entry *e)
{
    uint64_t h = (uint64_t)e->e_id * 0x9E3779B97F4A7C15ull;

    /* each attribute's word mixed on its own, then chained by a rotation
     * (by its place in the list): the multiplies do not wait on each
     * other, so the walk costs about what following a_next costs */
    for (const Attribute *a = e->e_attrs; a; a = a->a_next) {
        uint64_t x = (uint64_t)(uintptr_t)a * 0xC2B2AE3D27D4EB4Full ^
                     (uint64_t)(uintptr_t)a->a_vals * 0x165667B19E3779F9ull ^
                     a->a_numvals;
        h = (h << 7 | h >> 57) ^ x;
    }
    return h * 0x100000001B3ull;
}

/* Is e the entry oc trusts unchanged (struct opcache)? */
static int
trusted(const struct opcache *oc, const Entry *e)
{
    return oc->trust == e && oc->ev.e == e && e->e_id == oc->trust_id &&
           e->e_attrs == oc->trust_head;
}

/* Make sure oc->ev is e's view; 0, or -1 (acre failed).  The attribute
 * list is compared in full (entry_sig) unless trust allows and oc trusts
 * e; with make_trust, e is trusted from then on. */
static int
view_for(struct opcache *oc, Entry *e, int trust, int make_trust)
{
    uint64_t sig;

    if (trust && trusted(oc, e))
        return 0;
    sig = entry_sig(e);
    oc->trust = NULL;
    oc->cur_a = NULL;
    if (oc->ev.e != e || oc->sig != sig) {
        oc->have_verdict = 0;
        oc->ev.e = NULL;
        if (eview_make(oc->inst, oc->host.schema, e, &oc->ev))
            return -1;
        oc->sig = sig;
    }
    if (make_trust) {
        oc->trust = e;
        oc->trust_id = e->e_id;
        oc->trust_head = e->e_attrs;
    }
    return 0;
}

/* attr_index, from where the last call left off in a trusted entry (its
 * attributes are checked in list order). */
static int
attr_at(struct opcache *oc, const Entry *e, const AttributeDescription *ad,
        Attribute **out)
{
    int i;

    if (oc->cur_a && trusted(oc, e)) {
        if (oc->cur_a->a_desc == ad) {
            *out = (Attribute *)oc->cur_a;
            return oc->cur_i;
        }
        if (oc->cur_a->a_next && oc->cur_a->a_next->a_desc == ad) {
            oc->cur_a = *out = oc->cur_a->a_next;
            return ++oc->cur_i;
        }
    }
    i = attr_index(e, ad, out);
    if (i >= 0 && trusted(oc, e)) {
        oc->cur_a = *out;
        oc->cur_i = i;
    }
    return i;
}

/* Make sure oc holds e's read verdict; 0, or -1 (acre failed). */
static int
verdict_for(struct opcache *oc, Entry *e, int trust, int make_trust)
{
    if (view_for(oc, e, trust, make_trust))
        return -1;
    if (oc->have_verdict)
        return 0;
    if (acre_entry_decide(oc->rq, &oc->ev.v, ACRE_RIGHT_READ, &oc->verdict))
        return -1;
    oc->have_verdict = 1;
    return 0;
}

/* The index of val among a's values when it is one of them (an element of
 * a_nvals or of a_vals, as slapd passes them), else -1: by its address,
 * so that checking every value of a large attribute stays linear. */
static long
value_index(const Attribute *a, const struct berval *val)
{
    uintptr_t v = (uintptr_t)val, n = a->a_numvals;
    uintptr_t nv = (uintptr_t)a->a_nvals, sv = (uintptr_t)a->a_vals;

    if (a->a_nvals && v >= nv && v < nv + n * sizeof *val &&
        (v - nv) % sizeof *val == 0)
        return (long)((v - nv) / sizeof *val);
    if (a->a_vals && v >= sv && v < sv + n * sizeof *val &&
        (v - sv) % sizeof *val == 0)
        return (long)((v - sv) / sizeof *val);
    return -1;
}

/* A read check answered from the entry's verdict: 1, 0, or -1 when the
 * verdict does not cover it (then acre_access answers).  *uniform: set
 * when the check is of a value and every value of its attribute has the
 * same answer. */
static int
from_verdict(struct opcache *oc, Entry *e, AttributeDescription *desc,
             struct berval *val, int trust, int make_trust, int *uniform)
{
    Attribute *a = NULL;
    int i, k;

    if (verdict_for(oc, e, trust, make_trust))
        return 0;
    if (desc == slap_schema.si_ad_entry && !val)
        return oc->verdict.visible != 0;
    if (!val || !oc->verdict.visible || (i = attr_at(oc, e, desc, &a)) < 0 ||
        (k = oc->ev.map[i]) < 0 ||
        oc->ev.attrs[k].vals != (const acre_value *)a->a_vals ||
        oc->ev.attrs[k].nvals != a->a_numvals)
        return -1;
    if (oc->verdict.attr[k] == ACRE_ATTR_ALL)
        return *uniform = 1;
    if (oc->verdict.attr[k] == ACRE_ATTR_NONE) {
        *uniform = 1;
        return 0;
    }
    long j = value_index(a, val);
    return j < 0 ? -1 : oc->verdict.value[oc->verdict.first[k] + j] != 0;
}

/* Is val one of e's values of desc (stored or normalised)? */
static int
entry_value(struct opcache *oc, Entry *e, AttributeDescription *desc,
            struct berval *val)
{
    Attribute *a = NULL;

    return attr_at(oc, e, desc, &a) >= 0 && value_index(a, val) >= 0;
}

/* The stored form of val when it is one of e's values of desc. */
static struct berval *
stored_value(struct opcache *oc, Entry *e, AttributeDescription *desc,
             struct berval *val)
{
    Attribute *a = NULL;
    long j;

    if (!val || attr_at(oc, e, desc, &a) < 0 || (j = value_index(a, val)) < 0)
        return val;
    return &a->a_vals[j];
}

static int
check(struct opcache *oc, Operation *op, Entry *e, AttributeDescription *desc,
      struct berval *val, slap_access_t access, slap_mask_t *maskp, int after,
      int *uniform)
{
    int right = acre_right_of(access), rc;
    uint32_t mask = ACRE_PRIV_NONE;
    /* a search's read checks: the entry-level one compares the entry in
     * full and trusts it; those of its attributes and values that follow
     * (slap_send_search_entry, nothing changing the entry in between)
     * rely on that */
    int reading = right == ACRE_RIGHT_READ && op->o_tag == LDAP_REQ_SEARCH;
    int whole = desc == slap_schema.si_ad_entry && !val;

    if (right < 0)
        return 0;
    if (right == ACRE_RIGHT_READ && !after &&
        (rc = from_verdict(oc, e, desc, val, reading && !whole,
                           reading && whole, uniform)) >= 0)
        return rc;
    if (view_for(oc, e, reading && !whole, 0))
        return 0;
    /* a search check's value that is none of the entry's is a filter's
     * assertion, which slapd normalised by the item's rule (an
     * extensible item's own): acre compares it as it is, as slapd's
     * val= clauses do */
    int prepared =
        val && right == ACRE_RIGHT_SEARCH && !entry_value(oc, e, desc, val);
    val = stored_value(oc, e, desc, val);
    rc = acre_access(oc->rq, &oc->ev.v, desc->ad_cname.bv_val,
                     val ? val->bv_val : NULL, val ? val->bv_len : 0,
                     right | (prepared ? ACRE_ACCESS_PREPARED : 0) |
                         (after ? ACRE_ACCESS_AFTER_ATTR : 0),
                     &mask);
    *maskp = mask;
    return rc == 1;
}

static int
decide(struct acre_inst *inst, Operation *op, Entry *e,
       AttributeDescription *desc, struct berval *val, slap_access_t access,
       AccessControlState *state, slap_mask_t *maskp)
{
    struct opcache *oc = tls_cache, tmp;
    int granted, uniform = 0;

    /* slapd keeps a result for the next checks of the same attribute
     * (access_allowed_mask: state's desc and access) unless told the rules
     * looked at values; acre's may, on any check: only a value's check
     * answered from a verdict that gives every value of its attribute the
     * same answer lets slapd keep it (below) */
    if (state)
        state->as_vd_acl_present = 1;
    ACL_INIT(*maskp);
    /* what slap_access_allowed decides before any rule */
    if (be_isroot(op)) {
        *maskp = ACL_LVL_MANAGE;
        return 1;
    }
    if (ACL_LEVEL(access) == ACL_WRITE_ && is_at_no_user_mod(desc->ad_type) &&
        desc != slap_schema.si_ad_entry && desc != slap_schema.si_ad_children)
        return 1;
    if (!oc)
        oc = tls_cache = ch_calloc(1, sizeof *oc);
    if (oc->busy) { /* a check made while one of ours runs: its own */
        memset(&tmp, 0, sizeof tmp);
        oc = &tmp;
    }
    if (!same_op(oc, inst, op) && opcache_begin(oc, inst, op)) {
        granted = 0;
    } else {
        /* a value's check in the state of the check of its attribute
         * without one (slap_send_search_entry's operational attributes) */
        int after = val && state && state == oc->after_state &&
                    e == oc->after_e && desc == oc->after_desc &&
                    access == oc->after_access;
        oc->busy = 1;
        oc->host.op = op;
        granted = check(oc, op, e, desc, val, access, maskp, after, &uniform);
        oc->busy = 0;
        if (!val) {
            oc->after_state = state;
            oc->after_e = e;
            oc->after_desc = desc;
            oc->after_access = access;
        } else if (!after) {
            oc->after_state = NULL;
        }
    }
    if (state && uniform)
        state->as_vd_acl_present = 0;
    if (oc == &tmp) {
        opcache_end(&tmp);
        eview_free(&tmp.ev);
        ch_free(tmp.ndn.bv_val);
    }
    return granted;
}

/* oc_for -- the thread's cached request, for op under inst's policy;
 * NULL when a check of ours is running or no request can be made. */
static struct opcache *
oc_for(struct acre_inst *inst, Operation *op)
{
    struct opcache *oc = tls_cache;

    if (!oc)
        oc = tls_cache = ch_calloc(1, sizeof *oc);
    if (oc->busy || (!same_op(oc, inst, op) && opcache_begin(oc, inst, op)))
        return NULL;
    oc->host.op = op;
    return oc;
}

/* bi_access_allowed of the overlay: checks made while the overlay chain
 * runs (op->o_bd->bd_info is the overlay). */
static int
acre_access_allowed(Operation *op, Entry *e, AttributeDescription *desc,
                    struct berval *val, slap_access_t access,
                    AccessControlState *state, slap_mask_t *maskp)
{
    slap_overinst *on = (slap_overinst *)op->o_bd->bd_info;

    return decide(on->on_bi.bi_private, op, e, desc, val, access, state, maskp);
}

/* bi_access_allowed of the backend's copy: checks made while the backend
 * runs an operation (op->o_bd->bd_info is the copy, inst->bi). */
static int
acre_backend_access_allowed(Operation *op, Entry *e, AttributeDescription *desc,
                            struct berval *val, slap_access_t access,
                            AccessControlState *state, slap_mask_t *maskp)
{
    return decide((struct acre_inst *)op->o_bd->bd_info, op, e, desc, val,
                  access, state, maskp);
}

/* ------------------------------------------------------------------------
 * Collective attributes
 *
 * The database's subentries and administrative points are gathered by an
 * internal search as the rootdn (coll_gather), loaded into an
 * acre_directory and attached to the rules (acre_policy_attach_subentries);
 * the attached policy owns the directory (talloc) and goes into the slot.
 * This happens before the first operation after the database opens, a
 * policy is loaded, or a write touched a subentry or an administrative
 * point (coll_write_done): the next operation sees the change.
 *
 * A search response gets the collective values of each entry
 * (acre_entry_collective) added to a modifiable copy of it, before slapd
 * checks the entry and each value (answered by acre, as for the entry's
 * own values) and applies the requested attribute list.  Filters: the
 * backend tests its filter on the stored entry, before the response; a
 * search whose filter names a collective type is run with a filter that
 * is always true (SLAPD_FILTER_COMPUTED: no index, no access check), and
 * the response tests the original filter with test_filter on the entry
 * with its collective values, dropping the entries it does not match.
 */

static __thread int tls_gathering; /* an internal search of coll_gather */

static void
coll_dns_free(struct acre_inst *inst)
{
    for (unsigned i = 0; i < inst->coll_ndns; i++)
        ch_free(inst->coll_dns[i].bv_val);
    ch_free(inst->coll_dns);
    inst->coll_dns = NULL;
    inst->coll_ndns = 0;
}

static void
coll_type_add(struct acre_inst *inst, AttributeType *at)
{
    unsigned n = atomic_load(&inst->coll_ntypes);

    for (unsigned i = 0; i < n; i++)
        if (inst->coll_types[i] == at)
            return;
    if (n < sizeof inst->coll_types / sizeof inst->coll_types[0]) {
        inst->coll_types[n] = at;
        atomic_store(&inst->coll_ntypes, n + 1);
    }
}

/* The entries gathered: LDIF text with each entry's depth, for sorting. */
struct gathered {
    struct acre_inst *inst;

    struct {
        int depth;
        char *ldif;
        size_t len;
        struct berval ndn;
    } * e;

    unsigned n, cap;
    unsigned nsub; /* of them subentries */
};

static int
gather_entry(Operation *op, SlapReply *rs)
{
    struct gathered *g = op->o_callback->sc_private;
    Entry *e = rs->sr_entry;
    char *text;
    int len, depth = 1;

    if (rs->sr_type != REP_SEARCH)
        return 0;
    for (ber_len_t i = 0; i < e->e_nname.bv_len; i++)
        depth += e->e_nname.bv_val[i] == ',';
    if (g->n == g->cap) {
        g->cap = g->cap * 2 + 8;
        g->e = ch_realloc(g->e, g->cap * sizeof *g->e);
    }
    ldap_pvt_thread_mutex_lock(&entry2str_mutex);
    text = entry2str(e, &len);
    g->e[g->n].ldif = ch_malloc(len + 2);
    memcpy(g->e[g->n].ldif, text, len);
    ldap_pvt_thread_mutex_unlock(&entry2str_mutex);
    g->e[g->n].ldif[len] = '\n';
    g->e[g->n].len = len + 1;
    g->e[g->n].depth = depth;
    ber_dupbv(&g->e[g->n].ndn, &e->e_nname);
    g->n++;
    g->nsub += is_entry_subentry(e) != 0;
    if (is_entry_subentry(e))
        for (Attribute *a = e->e_attrs; a; a = a->a_next)
            if (is_at_collective(a->a_desc->ad_type) ||
                (a->a_desc->ad_tags.bv_len &&
                 strstr(a->a_desc->ad_tags.bv_val, "collective")))
                coll_type_add(g->inst, a->a_desc->ad_type);
    return 0;
}

/* One internal search of op's database as its rootdn: subentries when
 * subentries is set, else the administrative points. */
static void
gather_search(Operation *op, struct gathered *g, int subentries)
{
    Operation op2 = *op;
    SlapReply rs = {REP_RESULT};
    slap_callback cb = {NULL, gather_entry, NULL, g};
    AttributeAssertion ava = ATTRIBUTEASSERTION_INIT;
    Filter f = {0};
    static struct berval role = BER_BVC("(administrativeRole=*)"),
                         sub = BER_BVC("(objectClass=subentry)");

    if (subentries) {
        f.f_choice = LDAP_FILTER_EQUALITY;
        f.f_ava = &ava;
        ava.aa_desc = slap_schema.si_ad_objectClass;
        ava.aa_value = slap_schema.si_oc_subentry->soc_cname;
        op2.ors_filterstr = sub;
        op2.o_subentries = SLAP_CONTROL_NONCRITICAL;
        set_subentries_visibility(&op2);
    } else {
        f.f_choice = LDAP_FILTER_PRESENT;
        f.f_desc = slap_schema.si_ad_administrativeRole;
        op2.ors_filterstr = role;
        op2.o_subentries = SLAP_CONTROL_NONE;
    }
    op2.o_tag = LDAP_REQ_SEARCH;
    op2.o_ndn = op->o_bd->be_rootndn;
    op2.o_dn = op->o_bd->be_rootdn;
    op2.o_req_dn = op->o_bd->be_suffix[0];
    op2.o_req_ndn = op->o_bd->be_nsuffix[0];
    op2.o_callback = &cb;
    op2.o_do_not_cache = 1;
    op2.o_managedsait = SLAP_CONTROL_CRITICAL;
    op2.ors_scope = LDAP_SCOPE_SUBTREE;
    op2.ors_deref = LDAP_DEREF_NEVER;
    op2.ors_filter = &f;
    op2.ors_slimit = SLAP_NO_LIMIT;
    op2.ors_tlimit = SLAP_NO_LIMIT;
    op2.ors_limit = NULL;
    op2.ors_attrs = slap_anlist_all_attributes;
    op2.ors_attrsonly = 0;
    /* op->o_bd is the overlay chain's copy of the database, whose
     * be_search is this overlay's: the database itself, from the top */
    op2.o_bd = select_backend(&op->o_bd->be_nsuffix[0], 0);
    if (op2.o_bd && op2.o_bd->be_search)
        op2.o_bd->be_search(&op2, &rs);
}

static int
by_depth(const void *a, const void *b)
{
    const int *x = a, *y = b; /* depth is the first member */

    return (*x > *y) - (*x < *y);
}

/* Gather op's database's subentries into inst's attached policy; 0, or
 * -1 (the slot is left empty: everything is denied). */
static int
coll_rebuild(struct acre_inst *inst, Operation *op)
{
    struct gathered g = {inst, NULL, 0, 0, 0};
    acre_directory *dir = NULL;
    acre_policy *p = NULL;
    acre_diag d;
    char *text;
    size_t len = 0;
    int rc;

    tls_gathering = 1;
    gather_search(op, &g, 0);
    gather_search(op, &g, 1);
    tls_gathering = 0;
    qsort(g.e, g.n, sizeof *g.e, by_depth);
    for (unsigned i = 0; i < g.n; i++)
        len += g.e[i].len;
    text = ch_malloc(len + 1);
    coll_dns_free(inst);
    inst->coll_dns = ch_calloc(g.n + 1, sizeof *inst->coll_dns);
    len = 0;
    for (unsigned i = 0; i < g.n; i++) {
        memcpy(text + len, g.e[i].ldif, g.e[i].len);
        len += g.e[i].len;
        ch_free(g.e[i].ldif);
        inst->coll_dns[i] = g.e[i].ndn;
    }
    inst->coll_ndns = g.n;
    ch_free(g.e);
    memset(&d, 0, sizeof d);
    rc = acre_directory_load(NULL, inst->schema, "subentries", text, len, &dir,
                             &d);
    ch_free(text);
    if (!rc)
        rc = acre_policy_attach_subentries(NULL, inst->rules, dir, 0, &p, &d);
    if (rc) {
        Debug(LDAP_DEBUG_ANY, "acre: subentries: %s\n",
              d.message[0] ? d.message : acre_strerror(rc));
        acre_directory_free(dir);
        acre_slot_store(inst->slot, NULL);
        atomic_fetch_add(&inst->gen, 1);
        return -1;
    }
    talloc_steal(p, dir); /* the directory lives as long as the policy */
    atomic_store(&inst->coll_nsub, g.nsub);
    acre_slot_store(inst->slot, p);
    acre_policy_release(p);
    atomic_fetch_add(&inst->gen, 1);
    return 0;
}

/* Before an operation: the attached policy, when something changed. */
static void
coll_refresh(struct acre_inst *inst, Operation *op)
{
    if (tls_gathering || !atomic_load(&inst->coll_dirty))
        return;
    pthread_mutex_lock(&inst->coll_lock);
    if (atomic_load(&inst->coll_dirty) && inst->rules) {
        atomic_store(&inst->coll_dirty, 0);
        coll_rebuild(inst, op);
    }
    pthread_mutex_unlock(&inst->coll_lock);
}

/* Does a write of op (done) touch what coll_rebuild gathered: a
 * subentry or an administrative point added, or one of them (or an
 * ancestor) modified, renamed or deleted? */
static int
coll_touched(struct acre_inst *inst, Operation *op)
{
    int hit = 0;

    if (op->o_tag == LDAP_REQ_ADD)
        return is_entry_subentry(op->ora_e) ||
               attr_find(op->ora_e->e_attrs,
                         slap_schema.si_ad_administrativeRole) != NULL;
    if (op->o_tag == LDAP_REQ_MODIFY)
        for (Modifications *m = op->orm_modlist; m; m = m->sml_next)
            if (m->sml_desc == slap_schema.si_ad_administrativeRole)
                return 1;
    pthread_mutex_lock(&inst->coll_lock);
    for (unsigned i = 0; i < inst->coll_ndns && !hit; i++)
        hit = dnIsSuffix(&inst->coll_dns[i], &op->o_req_ndn);
    pthread_mutex_unlock(&inst->coll_lock);
    return hit;
}

/* Does f name a type subentries made collective (or
 * collectiveAttributeSubentries, 2.5.18.12: slap_schema has it only in a
 * slapd built with LDAP_COLLECTIVE_ATTRIBUTES)? */
static int
filter_collective(struct acre_inst *inst, Filter *f)
{
    AttributeDescription *ad = NULL;
    unsigned n = atomic_load(&inst->coll_ntypes);

    for (; f; f = f->f_next) {
        switch (f->f_choice) {
        case LDAP_FILTER_AND:
        case LDAP_FILTER_OR:
            if (filter_collective(inst, f->f_list))
                return 1;
            continue;
        case LDAP_FILTER_NOT:
            if (filter_collective(inst, f->f_not))
                return 1;
            continue;
        case LDAP_FILTER_EQUALITY:
        case LDAP_FILTER_GE:
        case LDAP_FILTER_LE:
        case LDAP_FILTER_APPROX:
            ad = f->f_av_desc;
            break;
        case LDAP_FILTER_SUBSTRINGS:
            ad = f->f_sub_desc;
            break;
        case LDAP_FILTER_PRESENT:
            ad = f->f_desc;
            break;
        case LDAP_FILTER_EXT:
            ad = f->f_mr_desc;
            break;
        default:
            continue;
        }
        if (!ad)
            continue;
        if (is_at_collective(ad->ad_type) ||
            !strcmp(ad->ad_type->sat_oid, "2.5.18.12"))
            return 1;
        for (unsigned i = 0; i < n; i++)
            if (inst->coll_types[i] == ad->ad_type)
                return 1;
    }
    return 0;
}

/* Add the collective attributes of cv to rs's entry (made modifiable). */
static void
coll_merge(Operation *op, SlapReply *rs, slap_overinst *on,
           const acre_collective_view *cv)
{
    rs_entry2modifiable(op, rs, on);
    for (unsigned i = 0; i < cv->nattrs; i++) {
        unsigned nvals = 0, flags = 0, k = 0;
        const char *name = acre_collective_attr(cv, i, NULL, &nvals, &flags);
        AttributeDescription *ad = NULL;
        const char *text;
        BerVarray vals;

        /* a type slapd does not know is not returned: Debian's slapd,
         * built without LDAP_COLLECTIVE_ATTRIBUTES, knows
         * collectiveAttributeSubentries only from a schema file */
        if (!name || slap_str2ad(name, &ad, &text) != LDAP_SUCCESS)
            continue;
        if (flags & ACRE_COLLATTR_REPLACES)
            attr_delete(&rs->sr_entry->e_attrs, ad);
        vals = ch_calloc(nvals + 1, sizeof *vals);
        for (unsigned j = 0; j < nvals; j++) {
            size_t len;
            const void *v = acre_collective_value(cv, i, j, &len);
            if (!v)
                continue;
            vals[k].bv_val = ch_malloc(len + 1);
            memcpy(vals[k].bv_val, v, len);
            vals[k].bv_val[len] = '\0';
            vals[k++].bv_len = len;
        }
        if (k)
            attr_merge_normalize(rs->sr_entry, ad, vals, NULL);
        ber_bvarray_free(vals);
    }
}

/* The state of one search of the database. */
struct coll_search {
    slap_callback sc;
    slap_overinst *on;
    Filter *orig; /* the search's filter, when replaced by always-true */
};

static struct opcache *oc_for(struct acre_inst *inst, Operation *op);

static int
coll_search_response(Operation *op, SlapReply *rs)
{
    struct coll_search *cs = op->o_callback->sc_private;
    struct acre_inst *inst = cs->on->on_bi.bi_private;
    struct opcache *oc;
    acre_collective_view cv = {0};

    if (rs->sr_type != REP_SEARCH || !rs->sr_entry)
        return SLAP_CB_CONTINUE;
    if (!(oc = oc_for(inst, op)) || view_for(oc, rs->sr_entry, 0, 0) ||
        acre_entry_collective(oc->rq, &oc->ev.v, &cv))
        cv.nattrs = 0; /* fail closed: no collective value */
    if (cv.nattrs) {
        coll_merge(op, rs, cs->on, &cv);
        oc->ev.e = NULL; /* the entry it viewed may be gone */
        oc->have_verdict = 0;
        oc->trust = NULL;
        oc->cur_a = NULL;
    }
    if (cs->orig &&
        test_filter(op, rs->sr_entry, cs->orig) != LDAP_COMPARE_TRUE)
        return 0; /* not sent */
    return SLAP_CB_CONTINUE;
}

/* ------------------------------------------------------------------------
 * The end of an operation
 *
 * A thread's cached request holds its policy: ending it when its
 * operation's result is sent lets a replaced policy go as soon as the
 * operations that used it are done, not when each thread next works.
 */

static int
acre_op_cleanup(Operation *op, SlapReply *rs)
{
    struct opcache *oc = tls_cache;
    struct coll_search *cs = op->o_callback->sc_private;

    if (rs->sr_type != REP_RESULT && rs->sr_err != SLAPD_ABANDON)
        return SLAP_CB_CONTINUE;
    if (oc && !oc->busy && oc->rq && oc->op == op &&
        oc->connid == op->o_connid && oc->opid == op->o_opid)
        opcache_end(oc);
    if (cs->orig && op->o_tag == LDAP_REQ_SEARCH) {
        op->o_tmpfree(op->ors_filter, op->o_tmpmemctx);
        op->ors_filter = cs->orig; /* slapd frees its own */
    }
    op->o_tmpfree(op->o_callback, op->o_tmpmemctx);
    op->o_callback = NULL; /* removed from the list (result.c) */
    return SLAP_CB_CONTINUE;
}

/* The response of a write: a subentry or an administrative point changed
 * means the next operation re-attaches them. */
static int
coll_write_response(Operation *op, SlapReply *rs)
{
    struct coll_search *cs = op->o_callback->sc_private;
    struct acre_inst *inst = cs->on->on_bi.bi_private;

    if (rs->sr_type == REP_RESULT && rs->sr_err == LDAP_SUCCESS &&
        coll_touched(inst, op))
        atomic_store(&inst->coll_dirty, 1);
    return SLAP_CB_CONTINUE;
}

/* Every operation of the database: the subentries re-attached when they
 * changed, then a callback after the overlay chain's own (which
 * over_op_func removes when the chain returns): the collective values of
 * a search's entries, the subentries a write changes, and the end of the
 * operation's request. */
static int
acre_op_any(Operation *op, SlapReply *rs)
{
    slap_overinst *on = (slap_overinst *)op->o_bd->bd_info;
    struct acre_inst *inst = on->on_bi.bi_private;
    struct coll_search *cs;

    /* internal searches of coll_gather, and of the host lookups made
     * while one of our checks runs, are the database's own */
    if (!op->o_callback || tls_gathering || (tls_cache && tls_cache->busy))
        return SLAP_CB_CONTINUE;
    coll_refresh(inst, op);
    cs = op->o_tmpcalloc(1, sizeof *cs, op->o_tmpmemctx);
    cs->on = on;
    cs->sc.sc_private = cs;
    cs->sc.sc_cleanup = acre_op_cleanup;
    switch (op->o_tag) {
    case LDAP_REQ_SEARCH:
        if (!atomic_load(&inst->coll_nsub))
            break; /* no subentry: no collective value */
        cs->sc.sc_response = coll_search_response;
        if (filter_collective(inst, op->ors_filter)) {
            cs->orig = op->ors_filter;
            op->ors_filter =
                op->o_tmpcalloc(1, sizeof(Filter), op->o_tmpmemctx);
            op->ors_filter->f_choice = SLAPD_FILTER_COMPUTED;
            op->ors_filter->f_result = LDAP_COMPARE_TRUE;
        }
        break;
    case LDAP_REQ_ADD:
    case LDAP_REQ_MODIFY:
    case LDAP_REQ_MODRDN:
    case LDAP_REQ_DELETE:
        cs->sc.sc_response = coll_write_response;
        break;
    }
    cs->sc.sc_next = op->o_callback->sc_next;
    op->o_callback->sc_next = &cs->sc;
    return SLAP_CB_CONTINUE;
}

/* ------------------------------------------------------------------------
 * Registration
 */

static int
acre_ov_init(void)
{
    int rc;

    acre_ov.on_bi.bi_type = "acre";
    acre_ov.on_bi.bi_db_init = acre_db_init;
    acre_ov.on_bi.bi_db_open = acre_db_open;
    acre_ov.on_bi.bi_db_close = acre_db_close;
    acre_ov.on_bi.bi_db_destroy = acre_db_destroy;
    acre_ov.on_bi.bi_access_allowed = acre_access_allowed;
    acre_ov.on_bi.bi_op_bind = acre_op_any;
    acre_ov.on_bi.bi_op_search = acre_op_any;
    acre_ov.on_bi.bi_op_compare = acre_op_any;
    acre_ov.on_bi.bi_op_modify = acre_op_any;
    acre_ov.on_bi.bi_op_modrdn = acre_op_any;
    acre_ov.on_bi.bi_op_add = acre_op_any;
    acre_ov.on_bi.bi_op_delete = acre_op_any;
    acre_ov.on_bi.bi_extended = acre_op_any;
    acre_ov.on_bi.bi_cf_ocs = acre_ocs;
    if ((rc = config_register_schema(acre_cfg, acre_ocs)))
        return rc;
    return overlay_register(&acre_ov);
}

/* init_module -- slapd's entry point of a dynamically loaded module
 * (moduleload): registers the overlay "acre".  The only symbol acre.so
 * exports. */
__attribute__((visibility("default"))) int
init_module(int argc, char *argv[])
{
    (void)argc, (void)argv;
    return acre_ov_init();
}
