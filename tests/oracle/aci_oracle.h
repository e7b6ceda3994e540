/*
 * aci_oracle.h -- the reference evaluator of the ACI dialect (389-DS 2.3
 * `aci` values, shared/spec/aci-v3.md): a plain, linear walk of the
 * parsed ACIs (engine/ir_aci.h) that decides checks the way 389's ACL
 * plugin does (acl.c acl__resource_match_aci / acl__TestRights, acllas.c
 * bind rules, filterentry.c search filters), against the entries of an
 * in-memory directory (engine/directory.h).
 *
 * It is the yardstick the optimised engine is tested against, so it is
 * written to be obviously right, not fast: every check walks every ACI of
 * the set and tests the holder's ancestry by DN, groups and roles are
 * resolved by looking entries up one by one (nesting limit 5, cycles
 * stopped by a visited list), nothing is cached between checks.
 *
 * What it decides (aci_oracle.c banner has the details):
 *   check    one right on an entry (entry level) or on an attribute;
 *   visible  whether a search may return the entry (389
 *            acl_read_access_allowed_on_entry);
 *   filter   a search filter with the search right asked per item, with
 *            389's three-valued rules (filterentry.c);
 *   search   a whole search: filter, visibility, then each attribute.
 *
 * Invariants: the oracle never changes the set, the directory or the
 * requester it was given; a check's result depends only on them and on
 * its arguments.  An acreR_aci is for one thread at a time.
 */
#ifndef ACRE_ACI_ORACLE_H
#define ACRE_ACI_ORACLE_H

#include "directory.h"
#include "entry.h"
#include "filter.h"
#include "ir_aci.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Who asks.
 *   bind_dn:     NULL or "" is anonymous.
 *   auth_method: "none", "simple", "ssl" or "sasl MECH" ("sasl/MECH" is
 *                accepted too); NULL: "simple" when bound, else "none".
 *   ssf:         the connection's security strength factor.
 *   ip:          the peer's address, "127.0.0.1" or "::1"; NULL unknown
 *                (an ip rule is then undefined).
 *   dns:         the peer's host name; NULL unknown (dns rules undefined).
 *   time:        the operation's time, seconds since the Epoch already in
 *                local time: broken down with gmtime_r, so that a case
 *                never depends on the machine's time zone.
 */
struct acreR_aci_who {
    const char *bind_dn;
    const char *auth_method;
    unsigned ssf;
    const char *ip;
    const char *dns;
    int64_t time;
    /* 389's proxied authorization control: NULL, none; else the DN
     * assumed ("" anonymous).  Every check is then decided for it, and
     * is denied unless bind_dn, the DN bound, has the proxy right on the
     * entry (acl_access_allowed) -- not asked when bind_dn is the
     * directory manager.  OpenDJ variant: the checks are the proxied
     * DN's, no proxy right is asked. */
    const char *proxied_dn;
};

struct acreR_aci;

/*
 * acreR_aci_new -- an evaluator of set's ACIs for requester who over dir
 * (whose schema must be the one set's DNs and filters were made with).
 * The requester's strings are copied; set and dir must outlive it.
 *   out: OUT, talloc child of ctx, freed with talloc_free.
 * Returns 0, ACRE_ERR_NOMEM, or an ACRE_ERR_DN_* code for a bad bind DN.
 */
int acreR_aci_new(void *ctx, const struct acreI_aci_set *set,
                  const struct acreE_dir *dir, const struct acreR_aci_who *who,
                  struct acreR_aci **out);

/*
 * acreR_aci_check -- may the requester have `right` (one ACREI_ACI_* bit)
 * on entry e: at entry level when attr is -1, on an attribute name the
 * schema does not know ("1.1") when attr is ACRER_ACI_UNKNOWN, else on
 * the attribute description attr (an acre_schema_attr_id; its options
 * are ignored, as 389 compares targetattr names with
 * SLAPI_TYPE_CMP_SUBTYPE).  Returns 1 allowed, 0 denied.
 */
#define ACRER_ACI_UNKNOWN (-2)
int acreR_aci_check(struct acreR_aci *o, const acre_entry_view *e, int attr,
                    unsigned right);

/*
 * acreR_aci_visible -- may a search return e at all (389
 * acl_read_access_allowed_on_entry)?  1 yes, 0 no.
 */
int acreR_aci_visible(struct acreR_aci *o, const acre_entry_view *e);

/*
 * acreR_aci_filter -- f on e as 389 tests a search filter with access
 * checks (slapi_vattr_filter_test_ext): each item needs `search` on its
 * attribute.  Returns 1 true, 0 false, -1 undefined.
 */
int acreR_aci_filter(struct acreR_aci *o, const acre_entry_view *e,
                     const struct acreF_filter *f);

/* One returned entry: attrs[0..nattrs) are indexes into entry->attrs,
 * in the entry's order. */
struct acreR_aci_sentry {
    const acre_entry_view *entry;
    unsigned nattrs;
    unsigned *attrs;
};

struct acreR_aci_search {
    int rc; /* LDAP result: 0, 2 protocolError (389: children scope),
               32 noSuchObject (OpenDJ: for every missing base), 34
               invalid DN, 87 filter */
    unsigned nentries;
    struct acreR_aci_sentry *entries; /* directory walk order */
};

/*
 * acreR_aci_search -- a search as the requester: base DN text, scope
 * (enum acre_scope), RFC 4515 filter text, requested attributes (none or
 * "*": user attributes; "+": operational ones; names; "1.1": none).
 * The base itself is not access-checked (389); a missing base is 32.
 *   out: OUT, talloc child of ctx.
 * Returns 0 (the LDAP outcome in (*out)->rc) or ACRE_ERR_NOMEM.
 */
int acreR_aci_search(struct acreR_aci *o, void *ctx, const char *base,
                     int scope, const char *filter, const char *const *attrs,
                     unsigned nattrs, struct acreR_aci_search **out);

#endif /* ACRE_ACI_ORACLE_H */
