/*
 * openldap_oracle.h -- the reference evaluator of the OpenLDAP dialect:
 * a plain, linear walk of the parsed rules (compiler/openldap.h) that
 * decides checks the way slapd 2.5 does (servers/slapd/acl.c), against
 * entries of an in-memory directory (engine/directory.h).
 *
 * It is the yardstick the optimised engine is tested against, so it
 * favours being obviously right over being fast: every check walks every
 * rule, regexes are compiled with the C library's regcomp (REG_EXTENDED |
 * REG_ICASE, exactly slapd's) at the moment they are used, groups and sets
 * are resolved by looking entries up one by one.
 *
 * Invariants: the oracle never changes the configuration, the directory
 * or the requester it was given; a check's result depends only on them
 * and on its arguments.  An acreR_oracle is for one thread at a time.
 */
#ifndef ACRE_OPENLDAP_ORACLE_H
#define ACRE_OPENLDAP_ORACLE_H

#include "directory.h"
#include "entry.h"
#include "openldap.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Who asks.  DNs are strings (parsed and normalised by the oracle with the
 * configuration's schema); NULL or "" is anonymous.  authc_dn is the
 * authentication DN the real... clauses test (NULL: the same as authz_dn,
 * as after a plain bind).  Connection strings use slapd's forms:
 * peername "IP=127.0.0.1:40000", "IP=[::1]:40000", "PATH=/run/ldapi";
 * sockname likewise; sockurl the listener URL ("ldap:///"); domain the
 * peer's host name.  NULL means unknown (a clause on it does not match;
 * sockurl NULL is an empty listener URL, as in slapacl).
 */
struct acreR_requester {
    const char *authz_dn;
    const char *authc_dn;
    const char *peername;
    const char *sockname;
    const char *sockurl;
    const char *domain;
    unsigned ssf, transport_ssf, tls_ssf, sasl_ssf;
};

struct acreR_oracle;

/*
 * acreR_oracle_new -- an evaluator of cfg's rules for requester rq over
 * dir (whose schema must be cfg's).  The requester's strings are copied;
 * cfg and dir must outlive the oracle.
 *   out: OUT, talloc child of mem_ctx, freed with talloc_free.
 * Returns 0, ACRE_ERR_NOMEM, or an ACRE_ERR_DN_* code for a bad DN.
 */
int acreR_oracle_new(void *mem_ctx, const struct acreI_policy *cfg,
                     const struct acreE_dir *dir,
                     const struct acreR_requester *rq,
                     struct acreR_oracle **out);

/*
 * What one check is about: an attribute description of an entry (type id
 * plus lowercased, sorted options -- `entry` and `children` are attribute
 * types too) and, for a value check, the value in its normalised form
 * (as stored in acreE_value.norm, or a filter's prepared assertion).
 */
struct acreR_target {
    const acre_entry_view *entry;
    int type;
    unsigned nopts;
    const char *const *opts;
    const uint32_t *opt_len;
    const uint8_t *val; /* NULL: the whole attribute */
    size_t val_len;
};

/*
 * acreR_oracle_check -- may the requester have `want` on t?
 *   mask: OUT (may be NULL): the privilege mask slapd would report
 *         (slapacl prints it), with its LEVEL/ADD flags.
 *   trace: OUT (may be NULL): a talloc string under the oracle naming the
 *         rules and clauses visited, for failure messages.
 * Returns 1 granted, 0 denied.  Any evaluation problem denies.
 */
int acreR_oracle_check(struct acreR_oracle *o, const struct acreR_target *t,
                       enum acreI_access want, uint32_t *mask, char **trace);

/*
 * slapd's AccessControlState, as slap_send_search_entry carries it over
 * the values of one attribute (acl.c): once a check reaches a rule with a
 * value condition, or a clause whose access has "self", the next checks
 * resume after the rule before it (as_vd_acl), and as_fe_done counts the
 * frontend's rules so that the database's rules are not followed by the
 * frontend's again -- which, when the resume point is among the
 * database's rules and a check went some way into the frontend's, leaves
 * the later values to the database's rules alone.  Zero it before an
 * attribute's first value.
 */
struct acreR_astate {
    int present;      /* as_vd_acl_present */
    int vd_front;     /* as_vd_acl is in the frontend's list */
    int vd_at;        /* its index there; -1: NULL */
    uint32_t vd_mask; /* as_vd_mask */
    unsigned fe_done; /* as_fe_done */
};

/* acreR_oracle_check for the next value of a sequence (st: its state). */
int acreR_oracle_check_seq(struct acreR_oracle *o, const struct acreR_target *t,
                           enum acreI_access want, uint32_t *mask, char **trace,
                           struct acreR_astate *st);

/* acreR_target_attr -- fill t for stored attribute a of e (under schema
 * s) and its value j (j < 0: attribute level). */
void acreR_target_attr(struct acreR_target *t, const acre_schema *s,
                       const acre_entry_view *e, const acre_view_attr *a,
                       int j);

/* acreR_dir_children -- acreF_hooks' children over the directory arg
 * (a struct acreE_dir): whether e's entry there has children;
 * acreR_dir_hooks -- hooks with it and no access hook. */
int acreR_dir_children(void *arg, const acre_entry_view *e);
struct acreF_hooks acreR_dir_hooks(const struct acreE_dir *dir);

/* acreR_target_type -- fill t for the attribute type named type_name (no
 * options) of e, e.g. "entry" and "children"; returns the type id, -1
 * when the schema lacks it. */
int acreR_target_type(const struct acreR_oracle *o, struct acreR_target *t,
                      const acre_entry_view *e, const char *type_name);

/* ------------------------------------------------------------------------
 * Searches, as slapd's back-mdb and send_search_entry check them
 */
struct acreR_sattr {
    const acre_view_attr *attr;
    unsigned nvals;
    const acre_value **vals; /* the readable values, stored order */
};

struct acreR_sentry {
    const acre_entry_view *entry;
    unsigned nattrs;
    struct acreR_sattr *attrs; /* entry order */
};

struct acreR_search {
    int rc;              /* LDAP result: 0, 32 noSuchObject, 34 invalid
                            DN syntax, 50 insufficientAccess, 87 filter */
    const char *matched; /* matched DN (pretty form) disclosed, or NULL */
    unsigned nentries;
    struct acreR_sentry *entries; /* directory walk order */
};

/*
 * acreR_oracle_search -- a search as the requester: base DN, scope
 * (enum acre_scope), RFC 4515 filter, requested attributes (none: all user
 * attributes; "*", "+", names, "1.1").
 *   out: OUT, talloc child of ctx.
 * Returns 0 (the LDAP outcome is in (*out)->rc) or ACRE_ERR_NOMEM.
 */
int acreR_oracle_search(struct acreR_oracle *o, void *ctx, const char *base,
                        int scope, const char *filter, const char *const *attrs,
                        unsigned nattrs, struct acreR_search **out);

/*
 * acreR_oracle_slapacl -- what slapacl prints for entry e with no
 * attribute arguments: "entry: <mask>", "children: <mask>", then
 * "<attr>=<value>: <mask>" for every value (userPassword shown as ****),
 * attribute names as the schema spells them; one line each.  The masks
 * are those of checks for `auth`, as slapacl asks.  A talloc string under
 * ctx, NULL when out of memory.
 */
char *acreR_oracle_slapacl(struct acreR_oracle *o, void *ctx,
                           const acre_entry_view *e);

/*
 * acreR_sentry_text -- se as text: "dn: <DN>" (pretty or normalised form)
 * and its "attr: value" / "attr:: base64" lines sorted, names lowercased;
 * a talloc string under ctx (openldap_oracle_text.c).
 */
char *acreR_sentry_text(void *ctx, const acre_schema *s,
                        const struct acreR_sentry *se, int pretty);

/* acreR_cmp_str -- qsort comparison of char * by strcmp. */
int acreR_cmp_str(const void *a, const void *b);

#endif /* ACRE_OPENLDAP_ORACLE_H */
