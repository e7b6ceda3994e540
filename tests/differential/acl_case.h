/*
 * acl_case.h -- one case of the differential access-control suite: the
 * rules, the directory, who asks and what, as files in a case directory,
 * so that slapd's side (a separate process talking LDAP), acre's side and
 * the shrinker all read the same thing.
 *
 * A case directory holds
 *   rules.conf   slapd.conf text without schema includes or storage
 *                directives: global "access" lines, then per database
 *                "database mdb", "suffix", "rootdn" and its own lines;
 *   data.ldif    every entry, parents first, of every database;
 *   schemas      (optional) the schema files slapd includes, names of
 *                /etc/ldap/schema without ".schema", on one line;
 *   requesters   one a line: KIND TAB LABEL TAB AUTHZ TAB BINDDN TAB PW
 *                  anon   an anonymous connection (no other field used)
 *                  root   a simple bind as BINDDN, a rootdn (PW is
 *                         ignored: the run's rootpw is used)
 *                  proxy  a simple bind as BINDDN (a rootdn) and every
 *                         search with the proxied-authorisation control
 *                         (RFC 4370) for "dn:AUTHZ" ("" is anonymous)
 *                  bind   a simple bind as BINDDN with password PW;
 *   searches     one a line: RQ TAB SCOPE TAB BASE TAB FILTER TAB ATTRS
 *                (RQ the requester's line number from 0, SCOPE base,
 *                one, sub or children, ATTRS space-separated, may be
 *                empty: all user attributes).
 *   ops          (optional) operations made after the searches, one a
 *                line: RQ TAB OP TAB DN [TAB ARG]... (RQ as in
 *                searches), OP one of
 *                  compare  ARGs ATTR, VALUE
 *                  modify   ARGs add|delete|replace, ATTR[, VALUE]
 *                  add      ARGs ATTR, VALUE, ATTR, VALUE, ... (the entry)
 *                  delete   no ARG
 *                  modrdn   ARGs NEWRDN, 0|1 (delete the old RDN)[,
 *                           NEWSUPERIOR];
 *                made only in module mode (slapd's own rules against
 *                slapo-acre's: every access check of a compare or a write
 *                goes through the module), their results and then every
 *                database's content compared (acl_ldap_ops);
 *   seed         (generated cases) the case's seed.
 * The harness adds slapd.conf (rules.conf with the includes and storage
 * directives: what slapd runs and what acre compiles), slapd.out and
 * acre.out (acl_result.h).
 *
 * Invariant: the files are the whole case; nothing else (no environment,
 * no clock) changes what either side is asked.
 */
#ifndef ACL_CASE_H
#define ACL_CASE_H

#include "dt_util.h"
#include <acre.h>

enum acl_kind { ACL_ANON, ACL_ROOT, ACL_PROXY, ACL_BIND };

struct acl_rq {
    enum acl_kind kind;
    char *label;
    char *authz;    /* ACL_PROXY: the DN asked for ("" anonymous) */
    char *bind_dn;  /* ACL_ROOT, ACL_PROXY, ACL_BIND */
    char *password; /* ACL_BIND */
};

struct acl_search {
    unsigned rq;
    int scope; /* enum acre_scope */
    char *base;
    char *filter;
    unsigned nattrs;
    char **attrs;
    int attrsonly; /* types only (ldapsearch -A; "-A" first in ATTRS) */
};

/* One line of the ops file. */
struct acl_op {
    unsigned rq;
    char *op; /* compare, modify, add, delete, modrdn */
    char *dn;
    unsigned nargs;
    char **args;
};

struct acl_case {
    char *rules;
    char *ldif;
    char *schemas; /* NULL: ACL_DEFAULT_SCHEMAS */
    unsigned nrq;
    struct acl_rq *rq;
    unsigned ns;
    struct acl_search *s;
    unsigned nops;
    struct acl_op *ops;
};

#define ACL_DEFAULT_SCHEMAS "core cosine inetorgperson nis dyngroup"

/* acl_case_read -- the case in directory dir, under talloc ctx; dies on a
 * malformed or missing file. */
struct acl_case *acl_case_read(void *ctx, const char *dir);

/* acl_case_write -- write c's files into dir (which must exist). */
void acl_case_write(const struct acl_case *c, const char *dir);

/* Names of scopes and kinds, and back; the parsers die on an unknown
 * name. */
const char *acl_scope_name(int scope);
int acl_scope_parse(const char *s);
const char *acl_kind_name(enum acl_kind k);

/* acl_search_text -- one line saying who asks what (for reports); a talloc
 * string under ctx. */
char *acl_search_text(void *ctx, const struct acl_case *c,
                      const struct acl_search *s);

/* acl_slapd_schema -- acre's schema of slapd's profile, made once: DNs
 * read as slapd reads them (quoted values, its escapes). */
const acre_schema *acl_slapd_schema(void);

/* acl_ldif_dn -- the DN of the LDIF record starting at rec ("dn:" or
 * "dn::" line, folded lines joined, base64 undone), a talloc string
 * under ctx; NULL when rec does not start with a dn line. */
char *acl_ldif_dn(void *ctx, const char *rec);

/* acl_ldif_uncomment -- text without its comment lines (and their
 * folded continuations), a talloc string under ctx. */
char *acl_ldif_uncomment(void *ctx, const char *text);

/* ---- slapd.conf -------------------------------------------------------- */

/* One database section of rules.conf. */
struct acl_db {
    char *suffix;
    char *rootdn;
};

/* acl_case_dbs -- the database sections of c->rules, in order; *n of them.
 * A talloc array under ctx. */
struct acl_db *acl_case_dbs(void *ctx, const struct acl_case *c, unsigned *n);

/*
 * acl_case_conf -- the slapd.conf slapd runs for c: the schema includes,
 * the module and pid directives for the work directory `work` (and the
 * collect module when the rules use "overlay collect"), then
 * c->rules with, after every "database" line, the database's storage
 * (work/db-K), "maxsize", "dbnosync" (a throw-away database need not
 * reach the disk) and "sizelimit unlimited", and after every
 * "rootdn" line "rootpw".  A talloc string under ctx.
 */
char *acl_case_conf(void *ctx, const struct acl_case *c, const char *work,
                    const char *rootpw);

/*
 * acl_case_conf_module -- the same configuration for slapd with slapo-acre
 * (adapters/openldap) deciding instead of slapd's own rules: the module
 * `so` loaded, every "access" rule (and its continuation lines) left out,
 * and each database section (frontend and config ones excepted) ended by
 * "access to * by * manage", "overlay acre" and "acre-policy policy",
 * where `policy` holds acl_case_conf's text.  A talloc string under ctx.
 */
char *acl_case_conf_module(void *ctx, const struct acl_case *c,
                           const char *work, const char *rootpw, const char *so,
                           const char *policy);

#endif /* ACL_CASE_H */
