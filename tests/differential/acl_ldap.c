/*
 * acl_ldap.c -- slapd's side of the access-control suite: the case's
 * searches sent to a running slapd through libldap, answers recorded in
 * the raw form of acl_result.h.
 *
 * One connection per requester, opened at its first search and kept for
 * the others (a slapd answers a few thousand searches a second this way,
 * where one ldapsearch process per search gives about eighty):
 *   anon   an anonymous simple bind;
 *   root   a simple bind as the rootdn with the run's rootpw;
 *   proxy  the same, and every search carries the critical
 *          proxied-authorisation control (RFC 4370) "dn:AUTHZ" -- slapd
 *          lets a rootdn assume any identity inside its own database;
 *   bind   a simple bind with the requester's password; its result is
 *          recorded, and its searches are made only when it is 0.
 * Each block also records the connection as slapd sees it (peer name,
 * socket name, listener URL), for acre's requester.
 *
 * acl_ldap_ops makes a case's compares and writes the same way (its own
 * connections, after the searches), then reads every database back as
 * its rootdn.
 */
#include "acl_ldap.h"

#include <arpa/inet.h>
#include <ldap.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <talloc.h>

struct conn {
    LDAP *ld;
    int bind_rc;
    char *name; /* "PEER SOCK URL" */
};

/* "IP=a.b.c.d:port" of a socket address. */
static char *
ip_text(void *ctx, const struct sockaddr_storage *ss)
{
    char addr[INET6_ADDRSTRLEN];

    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &in->sin_addr, addr, sizeof addr);
        return talloc_asprintf(ctx, "IP=%s:%u", addr, ntohs(in->sin_port));
    }
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
    inet_ntop(AF_INET6, &in6->sin6_addr, addr, sizeof addr);
    return talloc_asprintf(ctx, "IP=[%s]:%u", addr, ntohs(in6->sin6_port));
}

static char *
conn_name(void *ctx, LDAP *ld, const char *uri)
{
    struct sockaddr_storage me, peer;
    socklen_t n1 = sizeof me, n2 = sizeof peer;
    ber_socket_t fd;

    if (ldap_get_option(ld, LDAP_OPT_DESC, &fd) != LDAP_OPT_SUCCESS ||
        getsockname(fd, (struct sockaddr *)&me, &n1) ||
        getpeername(fd, (struct sockaddr *)&peer, &n2))
        return talloc_strdup(ctx, "? ? ?");
    /* slapd's peer is our socket, its socket name our peer */
    return talloc_asprintf(ctx, "%s %s %s", ip_text(ctx, &me),
                           ip_text(ctx, &peer), uri);
}

static void
open_conn(void *ctx, struct conn *c, const struct acl_rq *r, const char *uri,
          const char *rootpw)
{
    int v3 = LDAP_VERSION3, rc;
    struct berval cred = {0, NULL};
    const char *dn = NULL, *pw = "";

    if ((rc = ldap_initialize(&c->ld, uri)) != LDAP_SUCCESS)
        dt_die("ldap_initialize(%s): %s", uri, ldap_err2string(rc));
    ldap_set_option(c->ld, LDAP_OPT_PROTOCOL_VERSION, &v3);
    ldap_set_option(c->ld, LDAP_OPT_REFERRALS, LDAP_OPT_OFF);
    switch (r->kind) {
    case ACL_ANON:
        break;
    case ACL_ROOT:
    case ACL_PROXY:
        dn = r->bind_dn, pw = rootpw;
        break;
    case ACL_BIND:
        dn = r->bind_dn, pw = r->password;
        break;
    }
    cred.bv_val = (char *)pw;
    cred.bv_len = strlen(pw);
    rc = ldap_sasl_bind_s(c->ld, dn, LDAP_SASL_SIMPLE, &cred, NULL, NULL, NULL);
    if (rc < 0)
        dt_die("cannot reach slapd at %s: %s", uri, ldap_err2string(rc));
    if (rc != LDAP_SUCCESS && r->kind != ACL_BIND)
        dt_die("bind as %s refused: %s", dn ? dn : "anonymous",
               ldap_err2string(rc));
    c->bind_rc = rc;
    c->name = conn_name(ctx, c->ld, uri);
}

/* Append entry m as LDIF to *out. */
static void
entry_ldif(LDAP *ld, LDAPMessage *m, int attrsonly, struct dt_str *out)
{
    BerElement *ber = NULL;
    struct berval dn;

    /* attribute by attribute as sent (a name may come twice) */
    if (ldap_get_dn_ber(ld, m, &ber, &dn) != LDAP_SUCCESS)
        dt_die("malformed search entry from slapd");
    dt_ldif_line(out, "dn", dn.bv_val ? dn.bv_val : "", dn.bv_len);
    for (;;) {
        struct berval a, *v = NULL;
        char *name;
        if (ldap_get_attribute_ber(ld, m, ber, &a, &v) != LDAP_SUCCESS)
            dt_die("malformed search entry from slapd");
        if (!a.bv_val)
            break;
        name = dt_strndup(a.bv_val, a.bv_len);
        if (attrsonly) /* the name alone, as acl_acre.c writes it */
            dt_ldif_line(out, name, "", 0);
        for (unsigned i = 0; !attrsonly && v && v[i].bv_val; i++)
            dt_ldif_line(out, name, v[i].bv_val, v[i].bv_len);
        free(name);
        ber_memfree(v);
    }
    ber_free(ber, 0);
    dt_str_putc(out, '\n');
}

/* The request controls of r's operations: the proxied-authorisation
 * control for a proxy, else none (NULL).  authz is set to the control's
 * value (talloc, NULL when none). */
static LDAPControl **
proxy_ctrls(const struct acl_rq *r, LDAPControl *proxy, LDAPControl **ctrls,
            char **authz)
{
    *authz = NULL;
    if (r->kind != ACL_PROXY)
        return NULL;
    *authz = talloc_asprintf(NULL, "%s%s", *r->authz ? "dn:" : "", r->authz);
    proxy->ldctl_oid = (char *)LDAP_CONTROL_PROXY_AUTHZ;
    proxy->ldctl_value.bv_val = *authz;
    proxy->ldctl_value.bv_len = strlen(*authz);
    proxy->ldctl_iscritical = 1;
    ctrls[0] = proxy;
    ctrls[1] = NULL;
    return ctrls;
}

static void
search(struct conn *c, const struct acl_rq *r, const struct acl_search *s,
       struct acl_raw *out, struct dt_str *ldif)
{
    LDAPControl proxy, *cv[2], **ctrls;
    char **attrs = NULL, *authz;
    LDAPMessage *res = NULL;
    int rc, err = 0;
    char *matched = NULL, *text = NULL;

    ctrls = proxy_ctrls(r, &proxy, cv, &authz);
    if (s->nattrs) {
        attrs = talloc_zero_array(NULL, char *, s->nattrs + 1);
        for (unsigned i = 0; i < s->nattrs; i++)
            attrs[i] = s->attrs[i];
    }
    rc =
        ldap_search_ext_s(c->ld, s->base, s->scope, s->filter, attrs,
                          s->attrsonly, ctrls, NULL, NULL, LDAP_NO_LIMIT, &res);
    out->rc = rc;
    for (LDAPMessage *m = res ? ldap_first_message(c->ld, res) : NULL; m;
         m = ldap_next_message(c->ld, m)) {
        if (ldap_msgtype(m) == LDAP_RES_SEARCH_ENTRY)
            entry_ldif(c->ld, m, s->attrsonly, ldif);
        else if (ldap_msgtype(m) == LDAP_RES_SEARCH_RESULT &&
                 ldap_parse_result(c->ld, m, &err, &matched, &text, NULL, NULL,
                                   0) == LDAP_SUCCESS)
            out->rc = err;
    }
    out->matched = matched ? talloc_strdup(out, matched) : NULL;
    out->text = text ? talloc_strdup(out, text) : NULL;
    ldap_memfree(matched);
    ldap_memfree(text);
    ldap_msgfree(res);
    talloc_free(attrs);
    talloc_free(authz);
}

void
acl_ldap_run(const struct acl_case *c, const char *uri, const char *rootpw,
             struct dt_str *out)
{
    void *tmp = talloc_new(NULL);
    struct conn *conns = talloc_zero_array(tmp, struct conn, c->nrq);
    struct dt_str ldif;

    dt_str_init(&ldif);
    for (unsigned i = 0; i < c->ns; i++) {
        const struct acl_search *s = &c->s[i];
        const struct acl_rq *r = &c->rq[s->rq];
        struct conn *cn = &conns[s->rq];
        struct acl_raw *raw = talloc_zero(tmp, struct acl_raw);

        if (!cn->ld)
            open_conn(tmp, cn, r, uri, rootpw);
        raw->conn = cn->name;
        raw->bind = r->kind == ACL_BIND ? cn->bind_rc : -1;
        raw->rc = 0;
        dt_str_clear(&ldif);
        if (raw->bind <= 0)
            search(cn, r, s, raw, &ldif);
        raw->ldif = ldif.p;
        acl_raw_write(out, i + 1, raw);
    }
    for (unsigned i = 0; i < c->nrq; i++)
        if (conns[i].ld)
            ldap_unbind_ext_s(conns[i].ld, NULL, NULL);
    dt_str_free(&ldif);
    talloc_free(tmp);
}

/* ---- operations (the ops file) ---------------------------------------- */

/* One berval array of a single value (or none: NULL value). */
static struct berval **
one_value(void *ctx, const char *value)
{
    struct berval **v = talloc_zero_array(ctx, struct berval *, 2);

    if (value) {
        v[0] = talloc(ctx, struct berval);
        v[0]->bv_val = (char *)value;
        v[0]->bv_len = strlen(value);
    }
    return v;
}

/* The modification of a "modify" op: add|delete|replace, ATTR, [VALUE]. */
static LDAPMod *
op_mod(void *ctx, const struct acl_op *o)
{
    LDAPMod *m = talloc_zero(ctx, LDAPMod);

    m->mod_op =
        LDAP_MOD_BVALUES | (!strcmp(o->args[0], "add")      ? LDAP_MOD_ADD
                            : !strcmp(o->args[0], "delete") ? LDAP_MOD_DELETE
                                                            : LDAP_MOD_REPLACE);
    m->mod_type = o->args[1];
    m->mod_bvalues = one_value(ctx, o->nargs > 2 ? o->args[2] : NULL);
    return m;
}

/* The attributes of an "add" op: ATTR, VALUE pairs, a type's values
 * together in the order given. */
static LDAPMod **
op_entry(void *ctx, const struct acl_op *o)
{
    LDAPMod **mods = talloc_zero_array(ctx, LDAPMod *, o->nargs / 2 + 1);
    unsigned n = 0;

    for (unsigned i = 0; i + 1 < o->nargs; i += 2) {
        unsigned k, nv;
        for (k = 0; k < n; k++)
            if (!strcasecmp(mods[k]->mod_type, o->args[i]))
                break;
        if (k == n) {
            mods[n] = talloc_zero(ctx, LDAPMod);
            mods[n]->mod_op = LDAP_MOD_ADD | LDAP_MOD_BVALUES;
            mods[n]->mod_type = o->args[i];
            mods[n++]->mod_bvalues = talloc_zero_array(ctx, struct berval *, 1);
        }
        for (nv = 0; mods[k]->mod_bvalues[nv]; nv++)
            ;
        mods[k]->mod_bvalues =
            talloc_realloc(ctx, mods[k]->mod_bvalues, struct berval *, nv + 2);
        mods[k]->mod_bvalues[nv] = one_value(ctx, o->args[i + 1])[0];
        mods[k]->mod_bvalues[nv + 1] = NULL;
    }
    return mods;
}

/* Make op o on c as r; its result code, matched DN and message into out
 * as one line "K TAB OP TAB RC TAB MATCHED TAB TEXT". */
static void
run_op(struct conn *c, const struct acl_rq *r, const struct acl_op *o,
       unsigned k, struct dt_str *out)
{
    void *tmp = talloc_new(NULL);
    LDAPControl proxy, *cv[2], **ctrls;
    LDAPMessage *res = NULL;
    char *authz, *matched = NULL, *text = NULL, *line;
    int rc, msgid = -1, err;

    ctrls = proxy_ctrls(r, &proxy, cv, &authz);
    if (!strcmp(o->op, "compare")) {
        struct berval v = {strlen(o->args[1]), o->args[1]};
        rc =
            ldap_compare_ext(c->ld, o->dn, o->args[0], &v, ctrls, NULL, &msgid);
    } else if (!strcmp(o->op, "modify")) {
        LDAPMod *mods[2] = {op_mod(tmp, o), NULL};
        rc = ldap_modify_ext(c->ld, o->dn, mods, ctrls, NULL, &msgid);
    } else if (!strcmp(o->op, "add")) {
        rc = ldap_add_ext(c->ld, o->dn, op_entry(tmp, o), ctrls, NULL, &msgid);
    } else if (!strcmp(o->op, "delete")) {
        rc = ldap_delete_ext(c->ld, o->dn, ctrls, NULL, &msgid);
    } else { /* modrdn */
        rc = ldap_rename(c->ld, o->dn, o->args[0],
                         o->nargs > 2 ? o->args[2] : NULL, atoi(o->args[1]),
                         ctrls, NULL, &msgid);
    }
    if (rc == LDAP_SUCCESS &&
        ldap_result(c->ld, msgid, LDAP_MSG_ALL, NULL, &res) > 0 &&
        ldap_parse_result(c->ld, res, &err, &matched, &text, NULL, NULL, 1) ==
            LDAP_SUCCESS)
        rc = err;
    else if (rc == LDAP_SUCCESS)
        dt_die("no result from slapd for op %u (%s %s)", k + 1, o->op, o->dn);
    if (rc < 0)
        dt_die("lost slapd at op %u (%s %s): %s", k + 1, o->op, o->dn,
               ldap_err2string(rc));
    line = talloc_asprintf(tmp, "%u\t%s\t%d\t%s\t%s\n", k + 1, o->op, rc,
                           matched ? matched : "", text ? text : "");
    dt_str_puts(out, line);
    ldap_memfree(matched);
    ldap_memfree(text);
    talloc_free(authz);
    talloc_free(tmp);
}

/* Every entry of the database with suffix and rootdn, as its rootdn sees
 * them (all user attributes, in slapd's order), as LDIF into out. */
static void
dump_db(const char *uri, const char *suffix, const char *rootdn,
        const char *rootpw, struct dt_str *out)
{
    struct acl_rq r = {ACL_ROOT, NULL, NULL, (char *)rootdn, NULL};
    struct conn c = {0};
    LDAPMessage *res = NULL;
    int rc;

    open_conn(NULL, &c, &r, uri, rootpw);
    talloc_free(c.name);
    rc = ldap_search_ext_s(c.ld, suffix, LDAP_SCOPE_SUBTREE, "(objectClass=*)",
                           NULL, 0, NULL, NULL, NULL, LDAP_NO_LIMIT, &res);
    dt_str_printf(out, "# %s: %d\n", suffix, rc);
    for (LDAPMessage *m = res ? ldap_first_entry(c.ld, res) : NULL; m;
         m = ldap_next_entry(c.ld, m))
        entry_ldif(c.ld, m, 0, out);
    ldap_msgfree(res);
    ldap_unbind_ext_s(c.ld, NULL, NULL);
}

void
acl_ldap_ops(const struct acl_case *c, const char *uri, const char *rootpw,
             struct dt_str *out)
{
    void *tmp = talloc_new(NULL);
    struct conn *conns = talloc_zero_array(tmp, struct conn, c->nrq);
    struct acl_db *dbs;
    unsigned ndbs;

    for (unsigned i = 0; i < c->nops; i++) {
        const struct acl_op *o = &c->ops[i];
        const struct acl_rq *r = &c->rq[o->rq];
        struct conn *cn = &conns[o->rq];

        if (!cn->ld)
            open_conn(tmp, cn, r, uri, rootpw);
        if (r->kind == ACL_BIND && cn->bind_rc)
            dt_str_printf(out, "%u\t%s\tbind %d\n", i + 1, o->op, cn->bind_rc);
        else
            run_op(cn, r, o, i, out);
    }
    for (unsigned i = 0; i < c->nrq; i++)
        if (conns[i].ld)
            ldap_unbind_ext_s(conns[i].ld, NULL, NULL);
    dbs = acl_case_dbs(tmp, c, &ndbs);
    for (unsigned i = 0; i < ndbs; i++)
        if (dbs[i].suffix && dbs[i].rootdn)
            dump_db(uri, dbs[i].suffix, dbs[i].rootdn, rootpw, out);
    talloc_free(tmp);
}
