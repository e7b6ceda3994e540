/*
 * policy.c -- acre_policy_compile: rule text through its dialect's front
 * end into the intermediate form, then into the compiled policy; and the
 * policy's descriptive calls (stats, dump).
 *
 * Fail closed: the policy exists only when every source compiled; on any
 * error nothing is returned and nothing leaks.
 */
#include "aci.h"
#include "aci_index.h"
#include "build.h"
#include "internal.h"
#include "openldap.h"
#include "openldap_int.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <talloc.h>

static uint64_t generation_counter;

uint64_t
acreP_generation_next(void)
{
    return __atomic_add_fetch(&generation_counter, 1, __ATOMIC_RELAXED);
}

static int
policy_destructor(struct acre_policy *p)
{
    acreP_specs_drop(p);
    acreV_memberof_drop(p);
    pthread_mutex_destroy(&p->lock);
    return 0;
}

static int
parse(void *ctx, acre_schema *schema, const acre_source *src,
      struct acreI_policy **ir, acre_diag *diag)
{
    switch (src->dialect) {
    case ACRE_DIALECT_SLAPD_CONF:
        return acreO_parse_conf(ctx, schema, src->path, src->text, src->len, ir,
                                diag);
    case ACRE_DIALECT_SLAPD_CNCONFIG:
        return acreO_parse_cnconfig(ctx, schema, src->path, src->text, src->len,
                                    ir, diag);
    default:
        return ACRE_ERR_INVAL;
    }
}

static int
fail(acre_diag *diag, int code, const char *msg)
{
    if (diag) {
        memset(diag, 0, sizeof(*diag));
        diag->code = code;
        strncpy(diag->message, msg, sizeof(diag->message) - 1);
    }
    return code;
}

/* The root DN of an ACI policy: 389's Directory Manager */
#define ACI_ROOTDN "cn=Directory Manager"

/*
 * parse_aci -- the ACIs of every source (LDIF, read from its path when
 * it has no text) in one IR, in source order.
 */
static int
parse_aci(void *ctx, acre_schema *schema, const acre_source *src, size_t n,
          unsigned flags, struct acreI_policy **out, acre_diag *diag)
{
    int variant =
        flags & ACRE_COMPILE_ACI_OPENDJ ? ACREI_ACI_OPENDJ : ACREI_ACI_389;
    struct acreI_policy *ir = NULL;
    struct acreI_aci_set *set;
    struct acreI_aci *all = NULL;
    unsigned nall = 0;
    acre_dn *root;
    int rc;

    for (size_t i = 0; i < n; i++) {
        struct acreI_policy *one;
        const char *text = src[i].text;
        size_t len = src[i].len;
        char *buf = NULL;
        if (src[i].dialect != ACRE_DIALECT_ACI)
            return fail(diag, ACRE_ERR_INVAL,
                        "an ACI policy takes ACI sources only");
        if (!text &&
            (rc = acreO_read_file(ctx, src[i].path, &buf, &len, diag)) != 0)
            return rc;
        if ((rc = acreA_parse_ldif(ctx, schema, src[i].path, text ? text : buf,
                                   len, variant, &one, diag)) != 0)
            return rc;
        talloc_free(buf);
        if (!ir) {
            ir = one;
            schema = (acre_schema *)ir->schema;
        }
        const struct acreI_aci_set *os = one->aci;
        struct acreI_aci *grown =
            talloc_realloc(ctx, all, struct acreI_aci, nall + os->n + 1);
        if (!grown)
            return ACRE_ERR_NOMEM;
        all = grown;
        if (os->n) /* a source without ACIs has no array */
            memcpy(all + nall, os->acis, os->n * sizeof *all);
        nall += os->n;
    }
    if (!ir)
        return fail(diag, ACRE_ERR_INVAL, "no source");
    if (!(set = talloc_zero(ir, struct acreI_aci_set)) ||
        acre_dn_parse(set, ir->schema, ACI_ROOTDN, strlen(ACI_ROOTDN), 0, &root,
                      NULL))
        return ACRE_ERR_NOMEM;
    talloc_steal(ir, all);
    set->variant = variant;
    set->acis = all;
    set->n = nall;
    set->rootdn = root;
    ir->aci = set;
    ir->model = ACREI_MODEL_ACI;
    *out = ir;
    return 0;
}

/* policy_schema_flags -- the schema a policy makes for itself: slapd's for
 * OpenLDAP rules, 389's for its ACIs, the built-in one matched by syntax
 * for OpenDJ's. */
static unsigned
policy_schema_flags(int aci, unsigned flags)
{
    if (!aci)
        return ACRE_SCHEMA_SLAPD;
    if (flags & ACRE_COMPILE_ACI_OPENDJ)
        return ACRE_SCHEMA_SYNTAX_MATCH;
    return ACRE_SCHEMA_SYNTAX_MATCH | ACRE_SCHEMA_389;
}

ACRE_PUBLIC int
acre_policy_compile(void *mem_ctx, acre_schema *schema, const acre_source *src,
                    size_t n, unsigned flags, acre_policy **out,
                    acre_diag *diag)
{
    struct acre_policy *p;
    struct acreI_policy *ir = NULL;
    int rc;

    if (acreS_check(schema))
        return fail(diag, ACRE_ERR_BADOBJ, "not a schema");
    int aci = src && src->dialect == ACRE_DIALECT_ACI;
    if (!src || !out || (flags & ~(aci ? ACRE_COMPILE_ACI_OPENDJ : 0u)))
        return fail(diag, ACRE_ERR_INVAL, "invalid argument");
    if (n != 1 && !(aci && n > 0))
        return fail(diag, ACRE_ERR_INVAL,
                    "an OpenLDAP policy has exactly one source");
    if (src->dialect != ACRE_DIALECT_SLAPD_CONF &&
        src->dialect != ACRE_DIALECT_SLAPD_CNCONFIG && !aci)
        return fail(diag, ACRE_ERR_INVAL, "unknown rule dialect");
    if (!(p = talloc_zero(mem_ctx, struct acre_policy)))
        return fail(diag, ACRE_ERR_NOMEM, "out of memory");
    p->mem = p;
    pthread_mutex_init(&p->lock, NULL);
    talloc_set_destructor(p, policy_destructor);
    if (!schema && (rc = acre_schema_new(p, policy_schema_flags(aci, flags),
                                         &schema, diag)) != 0)
        goto fail;
    if ((rc = aci ? parse_aci(p, schema, src, n, flags, &ir, diag)
                  : parse(p, schema, src, &ir, diag)) != 0)
        goto fail;
    p->magic = ACREP_POLICY_MAGIC;
    p->refs = 1;
    p->generation = acreP_generation_next();
    p->ir = ir;
    p->schema = ir->schema;
    p->id_entry = acreS_attr_find(p->schema, "entry", 5);
    p->id_children = acreS_attr_find(p->schema, "children", 8);
    p->id_objectclass = acreS_attr_find(p->schema, "objectClass", 11);
    p->id_entrydn = acreS_attr_find(p->schema, "entryDN", 7);
    p->id_userpassword = acreS_attr_find(p->schema, "userPassword", 12);
    acreP_subentry_class(p);
    if ((rc = acreP_build(p)) != 0 || (rc = acreP_aci_build(p)) != 0) {
        fail(diag, rc, "out of memory");
        goto fail;
    }
    p->bytes = talloc_total_size(p);
    *out = p;
    return 0;
fail:
    talloc_free(p);
    return rc;
}

ACRE_PUBLIC void
acre_policy_stats_get(const acre_policy *p, acre_policy_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof(*out));
    if (!acreE_is(p, ACREP_POLICY_MAGIC))
        return;
    if (p->aci) { /* ACIs, their perms, the holders that index them */
        out->rules = p->aci->set->n;
        out->clauses = p->aci->nperms;
        out->nodes = p->aci->nholders;
        out->table_entries = p->aci->nperms;
        out->bytes = p->bytes;
        return;
    }
    out->rules = p->nrules;
    out->clauses = p->nclauses;
    out->nodes = p->nnodes;
    for (uint32_t i = 0; i < p->nrules; i++)
        out->residual += (p->rules[i].scope == ACREP_SCOPE_ANY ||
                          p->rules[i].scope == ACREP_SCOPE_REGEX) &&
                         !(p->rules[i].flags & ACREP_R_INDEXED);
    out->table_entries = p->ntable_entries;
    /* measured once when compiled (walking a talloc tree writes to it,
     * so it is not done while threads may use the policy), plus the spec
     * cache as it is now */
    pthread_mutex_lock((pthread_mutex_t *)&p->lock);
    out->bytes = p->bytes + (size_t)p->nspecs * (p->nclauses + 1);
    pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
}

static const char *
scope_name(const struct acreP_rule *r)
{
    static const char *const dn[] = {"any",     "base",     "one",
                                     "subtree", "children", "regex"};
    switch (r->scope) {
    case ACREP_SCOPE_ANY:
        return "any";
    case ACREP_SCOPE_REGEX:
        return "regex";
    case ACREP_SCOPE_NEVER:
        return "never";
    default:
        return dn[r->ir->what.dn_style];
    }
}

/* rights_text -- the rights bits of an ACI perm by their 389 names
 * (selfwrite carries write's bit too, as in 389) */
static char *
rights_text(void *ctx, unsigned r)
{
    char *s = talloc_strdup(ctx, "");

    for (unsigned i = 0; s && i < ACREI_ACI_NRNAMES; i++) {
        if (!(r & acreI_aci_rnames[i].bit))
            continue;
        s = talloc_asprintf_append_buffer(s, "%s%s", *s ? "," : "",
                                          acreI_aci_rnames[i].name);
    }
    return s;
}

/* aci_dump -- the ACIs as given, then the holders of the index with the
 * perms each one holds, in evaluation order. */
static char *
aci_dump(void *tmp, const struct acreP_aci *ix)
{
    const struct acreI_aci_set *set = ix->set;
    char *s =
        talloc_asprintf(tmp, "# aci set: %u values, variant %s\n", set->n,
                        set->variant == ACREI_ACI_OPENDJ ? "opendj" : "389");

    for (unsigned i = 0; s && i < set->n; i++) {
        const struct acreI_aci *a = &set->acis[i];
        s = talloc_asprintf_append_buffer(
            s, "# aci %u: \"%s\" value %u, line %u: acl \"%s\"\naci: %s\n", i,
            acre_dn_pretty(a->holder, NULL), a->value_index, a->pos.line,
            a->name ? a->name : "", a->text);
    }
    if (s)
        s = talloc_asprintf_append_buffer(
            s, "\n# compiled: %u acis, %u perms, %u holders%s\n", set->n,
            ix->nperms, ix->nholders,
            ix->anon_valid ? ", anonymous profile" : "");
    for (uint32_t h = 0; s && h < ix->nholders; h++) {
        const struct acreP_aci_holder *ho = &ix->holders[h];
        s = talloc_asprintf_append_buffer(s, "# holder %u \"%s\" depth %u:\n",
                                          h, acre_dn_normalised(ho->dn, NULL),
                                          ho->depth);
        for (uint32_t k = 0; s && k < ho->n; k++) {
            const struct acreP_aci_perm *pm = &ix->perms[ho->first + k];
            char *r = rights_text(tmp, pm->rights);
            s = r ? talloc_asprintf_append_buffer(
                        s, "#   perm %u: aci %u %s (%s)%s\n", ho->first + k,
                        pm->aci_no, pm->deny ? "deny" : "allow", r,
                        pm->flags & ACREP_ACI_HASATTR ? " targetattr" : "")
                  : NULL;
        }
    }
    for (unsigned k = 0; s && k < ix->nanon; k++)
        s = talloc_asprintf_append_buffer(
            s, "# anonymous profile %u: aci %u, target \"%s\"\n", k,
            ix->anon[k].aci_no, acre_dn_normalised(ix->anon[k].target, NULL));
    return s;
}

ACRE_PUBLIC char *
acre_policy_dump(const acre_policy *p)
{
    if (!acreE_is(p, ACREP_POLICY_MAGIC))
        return NULL;
    if (p->aci) {
        void *tmp = talloc_new(NULL);
        char *s = tmp ? aci_dump(tmp, p->aci) : NULL;
        char *res = s ? strdup(s) : NULL;
        talloc_free(tmp);
        return res;
    }
    void *tmp = talloc_new(NULL);
    char *s = acreO_config_dump(tmp, p->ir);

    if (s)
        s = talloc_asprintf_append_buffer(
            s, "\n# compiled: %u rules, %u clauses, %u index nodes\n",
            p->nrules, p->nclauses, p->nnodes);
    for (uint32_t i = 0; s && i < p->nrules; i++) {
        const struct acreP_rule *r = &p->rules[i];
        s = talloc_asprintf_append_buffer(
            s, "# rule %u: %s#%u line %u, scope %s", i,
            r->section ? r->section->type : "frontend", r->ir->index,
            r->ir->pos.line, scope_name(r));
        if (s && (r->flags & ACREP_R_INDEXED))
            s = talloc_strdup_append_buffer(s, " indexed");
        if (s && (r->scope == ACREP_SCOPE_DN || (r->flags & ACREP_R_INDEXED)))
            s = r->hi == 0xffff
                    ? talloc_asprintf_append_buffer(s, " depth >= %u", r->lo)
                    : talloc_asprintf_append_buffer(s, " depth %u", r->lo);
        if (s)
            s = talloc_asprintf_append_buffer(
                s, "%s%s%s%s\n", r->flags & ACREP_R_FILTER ? " filter" : "",
                r->flags & ACREP_R_ATTRS ? " attrs" : "",
                r->flags & ACREP_R_VAL ? " val" : "",
                r->flags & ACREP_R_VALDEP ? " value-dependent" : "");
    }
    for (uint32_t i = 0; s && i < p->nnodes; i++) {
        const struct acreP_node *n = &p->nodes[i];
        s = talloc_asprintf_append_buffer(
            s, "# node %u \"%.*s\" depth %u parent %d section %s%s:", i,
            (int)n->ndn_len, n->ndn, n->depth, n->parent,
            n->section ? n->section->type : "-",
            n->default_read ? " default-read" : "");
        for (uint32_t k = 0; s && k < n->ntable; k++)
            s = talloc_asprintf_append_buffer(s, " %u", n->table[k].rule);
        if (s)
            s = talloc_strdup_append_buffer(s, "\n");
    }
    for (unsigned d = 0; s && d <= p->ir->ndbs; d++) {
        const struct acreP_residual *r = &p->residual[d];
        s = talloc_asprintf_append_buffer(
            s, "# residual %s:", d < p->ir->ndbs ? p->ir->dbs[d].type : "-");
        for (uint32_t k = 0; s && k < r->ntable; k++)
            s = talloc_asprintf_append_buffer(s, " %u", r->table[k].rule);
        if (s)
            s = talloc_strdup_append_buffer(s, "\n");
    }
    char *res = s ? strdup(s) : NULL;
    talloc_free(tmp);
    return res;
}
