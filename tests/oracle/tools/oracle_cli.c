/*
 * oracle_cli.c -- a command-line front to the OpenLDAP reference
 * evaluator, for comparing it with the real slapd (slapd_diff.sh).  Not
 * part of the test binary: slapd_diff.sh compiles it on its own.
 *
 *   oracle_cli slapacl CONF LDIF ENTRYDN [-D authcDN] [-X dn:authzDN]
 *                      [-o peername=...|sockname=|sockurl=|domain=|ssf=|
 *                       transport_ssf=|tls_ssf=|sasl_ssf=]...
 *       prints what slapacl prints (entry, children, each value)
 *   oracle_cli search CONF LDIF BASE base|one|sub FILTER [-D authzDN]
 *                      [-A authcDN] [ATTR...]
 *       prints "# rc=N", then the entries as ldapsearch -LLL would, in
 *       the normal form of the conformance data (DN lowercased, entries
 *       and attribute lines sorted, names lowercased, base64 only where
 *       ldapsearch needs it)
 *
 * CONF is a slapd.conf, LDIF the directory.  Exit 2 on bad input, with
 * "PARSE ERROR file:line:col: message" when the rules are refused.
 */
#include "directory.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

struct world {
    void *ctx;
    acre_schema *schema;
    struct acreI_policy *cfg;
    struct acreE_dir *dir;
};

static int
load(struct world *w, const char *conf, const char *ldif)
{
    acre_diag d = {0};

    w->ctx = talloc_new(NULL);
    if (acre_schema_new(w->ctx, 0, &w->schema, &d))
        return 2;
    if (acreO_parse_conf(w->ctx, w->schema, conf, NULL, 0, &w->cfg, &d)) {
        printf("PARSE ERROR %s:%u:%u: %s\n", d.file, d.line, d.column,
               d.message);
        return 2;
    }
    if (acreE_dir_new(w->ctx, w->schema, 0, &w->dir) ||
        acreE_dir_load_ldif(w->dir, ldif, NULL, 0, NULL, NULL, NULL, &d)) {
        printf("LDIF ERROR %s:%u: %s\n", d.file, d.line, d.message);
        return 2;
    }
    return 0;
}

/* -o key=value of slapacl. */
static void
option(struct acreR_requester *rq, char *kv)
{
    char *eq = strchr(kv, '=');
    if (!eq)
        return;
    *eq++ = '\0';
    if (!strcmp(kv, "peername"))
        rq->peername = eq;
    else if (!strcmp(kv, "sockname"))
        rq->sockname = eq;
    else if (!strcmp(kv, "sockurl"))
        rq->sockurl = eq;
    else if (!strcmp(kv, "domain"))
        rq->domain = eq;
    else if (!strcmp(kv, "ssf"))
        rq->ssf = (unsigned)atoi(eq);
    else if (!strcmp(kv, "transport_ssf"))
        rq->transport_ssf = (unsigned)atoi(eq);
    else if (!strcmp(kv, "tls_ssf"))
        rq->tls_ssf = (unsigned)atoi(eq);
    else if (!strcmp(kv, "sasl_ssf"))
        rq->sasl_ssf = (unsigned)atoi(eq);
}

static int
cmd_slapacl(int argc, char **argv)
{
    struct world w;
    struct acreR_requester rq = {0};
    const char *authc = NULL, *authz = NULL;
    int rc = load(&w, argv[0], argv[1]);

    if (rc)
        return rc;
    for (int i = 3; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "-D"))
            authc = argv[++i];
        else if (!strcmp(argv[i], "-X")) {
            const char *x = argv[++i];
            authz = x + (strncmp(x, "dn:", 3) ? 0 : 3);
        } else if (!strcmp(argv[i], "-o"))
            option(&rq, argv[++i]);
    }
    rq.authz_dn = authz ? authz : authc;
    rq.authc_dn = authc;
    struct acreR_oracle *o;
    acre_dn *dn;
    const struct acreE_entry *e = NULL;
    if (!acreR_oracle_new(w.ctx, w.cfg, w.dir, &rq, &o) &&
        !acre_dn_parse(w.ctx, w.schema, argv[2], strlen(argv[2]), 0, &dn, NULL))
        e = acreE_dir_find(w.dir, dn);
    if (!e) {
        printf("no entry %s\n", argv[2]);
        return 2;
    }
    fputs(acreR_oracle_slapacl(o, w.ctx,
                               acre_entry_view_of((const acre_entry *)e)),
          stdout);
    talloc_free(w.ctx);
    return 0;
}

static int
cmd_search(int argc, char **argv)
{
    struct world w;
    struct acreR_requester rq = {0};
    const char *attrs[64];
    unsigned na = 0;
    int rc = load(&w, argv[0], argv[1]);

    if (rc)
        return rc;
    for (int i = 5; i < argc; i++) {
        if (!strcmp(argv[i], "-D") && i + 1 < argc)
            rq.authz_dn = argv[++i];
        else if (!strcmp(argv[i], "-A") && i + 1 < argc)
            rq.authc_dn = argv[++i];
        else if (na < 64)
            attrs[na++] = argv[i];
    }
    rq.sockurl = "ldap://127.0.0.1/";
    rq.peername = "IP=127.0.0.1:40000";
    rq.sockname = "IP=127.0.0.1:389";
    struct acreR_oracle *o;
    struct acreR_search *r;
    int scope = !strcmp(argv[3], "base")  ? ACRE_SCOPE_BASE
                : !strcmp(argv[3], "one") ? ACRE_SCOPE_ONE
                                          : ACRE_SCOPE_SUB;
    if (acreR_oracle_new(w.ctx, w.cfg, w.dir, &rq, &o) ||
        acreR_oracle_search(o, w.ctx, argv[2], scope, argv[4], attrs, na, &r))
        return 2;
    printf("# rc=%d\n", r->rc);
    char **ents = talloc_array(w.ctx, char *, r->nentries + 1);
    for (unsigned e = 0; e < r->nentries; e++)
        ents[e] = acreR_sentry_text(w.ctx, w.schema, &r->entries[e], 0);
    qsort(ents, r->nentries, sizeof(*ents), acreR_cmp_str);
    for (unsigned e = 0; e < r->nentries; e++)
        printf("%s\n", ents[e]);
    talloc_free(w.ctx);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "slapacl"))
        return cmd_slapacl(argc - 2, argv + 2);
    if (argc >= 7 && !strcmp(argv[1], "search"))
        return cmd_search(argc - 2, argv + 2);
    fprintf(stderr, "usage: oracle_cli slapacl CONF LDIF ENTRYDN [opts]\n"
                    "       oracle_cli search CONF LDIF BASE SCOPE FILTER "
                    "[-D dn] [-A dn] [ATTR...]\n");
    return 2;
}
