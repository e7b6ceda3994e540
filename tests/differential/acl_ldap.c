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

static void
search(struct conn *c, const struct acl_rq *r, const struct acl_search *s,
       struct acl_raw *out, struct dt_str *ldif)
{
    LDAPControl proxy, *ctrls[2] = {&proxy, NULL};
    char **attrs = NULL, *authz = NULL;
    LDAPMessage *res = NULL;
    int rc, err = 0;
    char *matched = NULL, *text = NULL;

    if (r->kind == ACL_PROXY) {
        authz = talloc_asprintf(NULL, "%s%s", *r->authz ? "dn:" : "", r->authz);
        proxy.ldctl_oid = (char *)LDAP_CONTROL_PROXY_AUTHZ;
        proxy.ldctl_value.bv_val = authz;
        proxy.ldctl_value.bv_len = strlen(authz);
        proxy.ldctl_iscritical = 1;
    }
    if (s->nattrs) {
        attrs = talloc_zero_array(NULL, char *, s->nattrs + 1);
        for (unsigned i = 0; i < s->nattrs; i++)
            attrs[i] = s->attrs[i];
    }
    rc = ldap_search_ext_s(c->ld, s->base, s->scope, s->filter, attrs,
                           s->attrsonly, authz ? ctrls : NULL, NULL, NULL,
                           LDAP_NO_LIMIT, &res);
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
