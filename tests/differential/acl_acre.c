/*
 * acl_acre.c -- acre's side of the access-control suite (see
 * acl_acre.h): only the public API of include/acre.h, as a server
 * embedding acre would use it, and DNs in slapd's text as acre search
 * prints them (cli/dn_slapd.c), so that they are compared as text.
 */
#include "acl_acre.h"

#include "ldif_out.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

int
acl_acre_open(struct acl_acre *a, const char *name, const char *conf,
              const char *ldif, struct dt_str *why)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, name, conf, strlen(conf)};

    return acl_acre_open_source(a, &src, ldif, why);
}

int
acl_acre_open_source(struct acl_acre *a, const acre_source *src,
                     const char *ldif, struct dt_str *why)
{
    acre_diag d;
    int rc;

    memset(a, 0, sizeof *a);
    if ((rc = acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &a->schema, &d)))
        dt_die("acre_schema_new: %s", acre_strerror(rc));
    memset(&d, 0, sizeof d);
    if ((rc = acre_policy_compile(NULL, a->schema, src, 1, 0, &a->rules, &d))) {
        dt_str_printf(why, "acre refused the policy: %s:%u:%u: %s (%s)",
                      d.file ? d.file : src->path, d.line, d.column, d.message,
                      acre_strerror(rc));
        acl_acre_close(a);
        return -1;
    }
    memset(&d, 0, sizeof d);
    /* under the policy's databases, as acre search loads it */
    const char *name = "data.ldif";
    acre_load_options opt = {0, NULL, NULL, a->rules, ldif, strlen(ldif)};
    if ((rc = acre_directory_load_opt(NULL, acre_policy_schema(a->rules), &name,
                                      1, &opt, &a->dir, &d))) {
        dt_str_printf(why, "acre refused the data: data.ldif:%u:%u: %s (%s)",
                      d.line, d.column, d.message, acre_strerror(rc));
        acl_acre_close(a);
        return -1;
    }
    memset(&d, 0, sizeof d);
    if ((rc = acre_policy_attach_subentries(NULL, a->rules, a->dir, 0,
                                            &a->policy, &d))) {
        dt_str_printf(why, "acre_policy_attach_subentries: %s (%s)", d.message,
                      acre_strerror(rc));
        acl_acre_close(a);
        return -1;
    }
    return 0;
}

void
acl_acre_close(struct acl_acre *a)
{
    if (a->policy)
        acre_policy_release(a->policy);
    acre_directory_free(a->dir);
    if (a->rules)
        acre_policy_release(a->rules);
    acre_schema_free(a->schema);
    memset(a, 0, sizeof *a);
}

/* ---- requesters -------------------------------------------------------- */

/* The connection fields of a "PEER SOCK URL" text (in place). */
static void
set_conn(acre_subject *who, char *conn)
{
    char *save = NULL;

    who->domain = "unknown";
    if (!conn)
        return;
    who->peername = strtok_r(conn, " ", &save);
    who->sockname = strtok_r(NULL, " ", &save);
    who->sockurl = strtok_r(NULL, " ", &save);
}

/* slapd's simple bind of r->bind_dn: 0 or 49 (invalidCredentials). */
static int
bind_result(struct acl_acre *a, const struct acl_rq *r,
            const acre_subject *conn)
{
    acre_subject anon = *conn;
    acre_request *rq;
    acre_dn *dn;
    const acre_entry *e;
    int ok = 0;

    anon.authz_dn = anon.authc_dn = NULL;
    if (acre_dn_parse(NULL, acre_policy_schema(a->policy), r->bind_dn,
                      strlen(r->bind_dn), 0, &dn, NULL))
        return 34;
    e = acre_directory_find(a->dir, dn);
    acre_dn_free(dn);
    if (!e ||
        acre_request_begin(a->policy, &anon, acre_directory_host(a->dir), &rq))
        return 49;
    for (unsigned i = 0; !ok && i < acre_entry_nattrs(e); i++) {
        unsigned nv;
        size_t dl;
        const char *d = acre_entry_attr(e, i, &dl, &nv);
        if (dl != 12 || strncasecmp(d, "userPassword", 12))
            continue;
        for (unsigned j = 0; !ok && j < nv; j++) {
            size_t vl;
            const char *v = acre_entry_value(e, i, j, &vl);
            ok = acre_access(rq, acre_entry_view_of(e), "userPassword", v, vl,
                             ACRE_RIGHT_AUTH, NULL) == 1 &&
                 vl == strlen(r->password) && !memcmp(v, r->password, vl);
        }
    }
    acre_request_end(rq);
    return ok ? 0 : 49;
}

/* ---- searches ---------------------------------------------------------- */

/* The readable values of collective attribute i, under name d. */
static void
coll_values(struct dt_str *ldif, const acre_verdict *v, unsigned i,
            const char *d, int attrsonly)
{
    unsigned nv;

    if (attrsonly) { /* one readable value or more: the name (-A) */
        dt_ldif_line(ldif, d, "", 0);
        return;
    }

    acre_collective_attr(&v->coll, i, NULL, &nv, NULL);
    for (unsigned j = 0; j < nv; j++) {
        size_t vl;
        const char *val = acre_collective_value(&v->coll, i, j, &vl);
        if (v->coll_attr[i] == ACRE_ATTR_ALL ||
            v->coll_value[v->coll_first[i] + j])
            dt_ldif_line(ldif, d, val, vl);
    }
}

/* Is collective attribute i one to print (readable, not operational)
 * and, when name is not NULL, slapo-collect's values of that attribute
 * (which slapd adds to the entry's own, after its values)? */
static const char *
coll_pick(const acre_schema *schema, const acre_verdict *v, unsigned i,
          const char *name)
{
    unsigned flags;
    const char *d = acre_collective_attr(&v->coll, i, NULL, NULL, &flags);
    int id = acre_schema_attr_id(schema, d, strlen(d));
    const char *c = id >= 0 ? acre_schema_attr_desc(schema, id, NULL) : d;

    if (v->coll_attr[i] == ACRE_ATTR_NONE || (flags & ACRE_COLLATTR_OPER))
        return NULL;
    if (name && (!(flags & ACRE_COLLATTR_COLLECT) || strcasecmp(c, name)))
        return NULL;
    return d;
}

/* What found prints to, under which schema's names, for which search. */
struct out {
    struct dt_str *ldif;
    const acre_schema *schema;
    acre_request *rq;
    const acre_host *host;
    const struct acl_search *s;
};

/* slapd_name -- d[0..n) as slapd (and acre search) prints an attribute
 * description: the type's first name, options lowercased and sorted; as
 * written when the schema does not know it.  Malloc'd. */
static char *
slapd_name(const acre_schema *schema, const char *d, size_t n)
{
    int id = acre_schema_attr_id(schema, d, n);
    const char *c = id >= 0 ? acre_schema_attr_desc(schema, id, NULL) : NULL;

    return c ? dt_strdup(c) : dt_strndup(d, n);
}

/* asked -- does the search name attribute type `name` or ask for "+"? */
static int
asked(const struct out *o, const char *name)
{
    for (unsigned i = 0; i < o->s->nattrs; i++) {
        const char *a = o->s->attrs[i];
        const char *t = acre_schema_attr_name(o->schema, a, strlen(a));
        if (!strcmp(a, "+") || (t && !strchr(a, ';') && !strcmp(t, name)))
            return 1;
    }
    return 0;
}

/* computed -- entryDN, subschemaSubentry and hasSubordinates, which slapd
 * computes and sends after the entry's attributes when asked for, decided
 * by a check of the attribute, then of its value in the state that check
 * left (acre search's print_computed); -A: the name, by the first. */
static void
computed(const struct out *o, const acre_entry_view *view, const char *dn)
{
    static const char *const names[] = {"entryDN", "subschemaSubentry",
                                        "hasSubordinates"};

    for (unsigned k = 0; k < 3; k++) {
        const char *val = k == 0 ? dn : "cn=Subschema";
        if (!asked(o, names[k]))
            continue;
        if (k == 2) {
            int has = o->host->has_children(o->host->arg, view);
            if (has < 0)
                continue;
            val = has ? "TRUE" : "FALSE";
        }
        if (o->s->attrsonly
                ? acre_access(o->rq, view, names[k], NULL, 0, ACRE_RIGHT_READ,
                              NULL) == 1
                : acre_access(o->rq, view, names[k], val, strlen(val),
                              ACRE_RIGHT_READ | ACRE_ACCESS_AFTER_ATTR,
                              NULL) == 1)
            dt_ldif_line(o->ldif, names[k], o->s->attrsonly ? "" : val,
                         o->s->attrsonly ? 0 : strlen(val));
    }
}

static int
found(void *arg, const acre_entry_view *view, const acre_verdict *v)
{
    const struct out *o = arg;
    struct dt_str *ldif = o->ldif;
    const acre_entry *e = view->host_data; /* the directory's entry */
    char *dn = cli_dn_slapd(acre_dn_pretty(acre_entry_dn(e), NULL));
    unsigned char *done = calloc(v->coll.nattrs + 1, 1);
    const char *d;

    if (!dn || !done)
        dt_die("out of memory");
    dt_ldif_line(ldif, "dn", dn, strlen(dn));  /* as acre search prints it */
    for (unsigned i = 0; i < v->nattrs; i++) { /* in stored order */
        unsigned nv;
        size_t dl;
        const char *ed = acre_entry_attr(e, i, &dl, &nv);
        char *name = slapd_name(o->schema, ed, dl);
        int own = v->attr[i] != ACRE_ATTR_NONE;
        if (!own && o->s->attrsonly) {
            free(name);
            continue;
        }
        if (o->s->attrsonly) /* the verdict is the attribute's check */
            dt_ldif_line(ldif, name, "", 0);
        for (unsigned j = 0; own && !o->s->attrsonly && j < nv; j++) {
            size_t vl;
            const char *val = acre_entry_value(e, i, j, &vl);
            if (v->attr[i] == ACRE_ATTR_ALL || v->value[v->first[i] + j])
                dt_ldif_line(ldif, name, val, vl);
        }
        /* merged into it: where it stands, the entry's own values
         * readable or not (acre search prints them so) */
        for (unsigned k = 0; k < v->coll.nattrs; k++)
            if (!done[k] && (d = coll_pick(o->schema, v, k, name))) {
                done[k] = 1;
                if (!o->s->attrsonly) /* -A: the entry's one name */
                    coll_values(ldif, v, k, name, 0);
            }
        free(name);
    }
    for (unsigned k = 0; k < v->coll.nattrs; k++) /* the other ones */
        if (!done[k] && (d = coll_pick(o->schema, v, k, NULL))) {
            char *cn = slapd_name(o->schema, d, strlen(d));
            coll_values(ldif, v, k, cn, o->s->attrsonly);
            free(cn);
        }
    computed(o, view, dn);
    free(dn);
    free(done);
    dt_str_putc(ldif, '\n');
    return 0;
}

static void
subject_of(const struct acl_rq *r, acre_subject *who)
{
    switch (r->kind) {
    case ACL_ANON:
        break;
    case ACL_ROOT:
    case ACL_BIND:
        who->authz_dn = who->authc_dn = r->bind_dn;
        break;
    case ACL_PROXY:
        who->authz_dn = r->authz;
        who->authc_dn = r->bind_dn;
        break;
    }
}

static void
one_search(struct acl_acre *a, const struct acl_case *c,
           const struct acl_search *s, char *conn, struct acl_raw *raw,
           struct dt_str *ldif)
{
    const struct acl_rq *r = &c->rq[s->rq];
    acre_subject who;
    acre_request *rq;
    const char *matched = NULL;
    int rc, ldap_rc = 0;

    memset(&who, 0, sizeof who);
    set_conn(&who, conn);
    raw->bind = -1;
    if (r->kind == ACL_BIND && (raw->bind = bind_result(a, r, &who)))
        return;
    subject_of(r, &who);
    if ((rc = acre_request_begin(a->policy, &who, acre_directory_host(a->dir),
                                 &rq))) {
        raw->rc = -2000;
        raw->text =
            talloc_asprintf(raw, "acre_request_begin: %s", acre_strerror(rc));
        return;
    }
    struct out o = {ldif, acre_policy_schema(a->policy), rq,
                    acre_directory_host(a->dir), s};
    if (s->attrsonly)
        acre_request_set_flags(rq, ACRE_REQ_ATTRSONLY);
    rc = acre_search(rq, s->base, s->scope, s->filter,
                     (const char *const *)s->attrs, s->nattrs, found, &o,
                     &ldap_rc, &matched);
    raw->rc = rc ? -2000 : ldap_rc;
    if (rc)
        raw->text = talloc_asprintf(raw, "acre_search: %s", acre_strerror(rc));
    if (matched) { /* as acre search prints it */
        char *m = cli_dn_slapd(matched);
        if (!m)
            dt_die("out of memory");
        raw->matched = talloc_strdup(raw, m);
        free(m);
    } else {
        raw->matched = NULL;
    }
    acre_request_end(rq);
}

void
acl_acre_run(struct acl_acre *a, const struct acl_case *c, char *const *conn,
             struct dt_str *out)
{
    struct dt_str ldif;

    dt_str_init(&ldif);
    for (unsigned i = 0; i < c->ns; i++) {
        struct acl_raw *raw = talloc_zero(NULL, struct acl_raw);
        char *cn = conn && conn[i] ? talloc_strdup(raw, conn[i]) : NULL;

        dt_str_clear(&ldif);
        one_search(a, c, &c->s[i], cn, raw, &ldif);
        raw->ldif = ldif.p;
        acl_raw_write(out, i + 1, raw);
        talloc_free(raw);
    }
    dt_str_free(&ldif);
}
