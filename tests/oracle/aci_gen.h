/*
 * aci_gen.h -- a seeded generator of ACI test cases, as text: a small
 * directory in LDIF (organisational units, people, static, nested and
 * dynamic groups, 389 roles) whose entries carry `aci` values drawn from
 * the whole ACI v3 dialect, requesters with their connection facts, and
 * searches.  The ACI agreement test parses each case and runs the
 * reference evaluator (aci_oracle.h) and the engine over it; the 389
 * differential harness loads the same LDIF into the real server.
 *
 * A case is kept as parts (entries made of lines and aci values) so that
 * a failing case can be shrunk by setting the `omit` flags and rendering
 * it again with acreG_aci_ldif().
 *
 * Invariants
 *   - The same seed (and variant) gives the same case on every machine:
 *     the generator draws from its own PRNG (openldap_gen.h's splitmix64).
 *   - Every generated `aci` value is meant to be one 389-DS 2.3 accepts
 *     (variant 389) -- no targetscope, no ssf or timeofday with a strict
 *     "<" or ">", no bare "*" RDN in a DN pattern, targets inside the
 *     holder's subtree, targetattr names from its schema, ($dn) subjects
 *     only with a ($dn) target; variant OpenDJ adds targetscope.  A value
 *     389 refuses is a generator bug.
 *   - The LDIF loads with acre's built-in schema (ACRE_SCHEMA_SLAPD: it
 *     has 389's aci, nsRoleDN and role classes); parents come first.
 *   - Everything of a case hangs off its talloc context.
 */
#ifndef ACRE_ACI_GEN_H
#define ACRE_ACI_GEN_H

#include <stddef.h>
#include <stdint.h>

#define ACREG_ACI_SUFFIX "dc=example,dc=com"
#define ACREG_ACI_ROOTDN "cn=Directory Manager"

/* One directory entry: its DN, its "attr: value" lines, and the `aci`
 * values it holds (rendered as "aci: VALUE" lines after the others). */
struct acreG_aci_entry {
    char *dn;
    unsigned nlines;
    char **lines;
    unsigned nacis;
    char **acis;
    uint8_t *omit_aci; /* [nacis] */
    uint8_t omit;
};

/*
 * Who asks: the facts acre_subject and acreR_aci_who take.  bind_dn NULL
 * is anonymous; auth_method "none", "simple", "ssl" or "sasl EXTERNAL";
 * ip and dns NULL when unknown; time in seconds since the Epoch (local
 * time, broken down with gmtime).
 */
struct acreG_aci_who {
    const char *label;
    const char *bind_dn;
    const char *auth_method;
    unsigned ssf;
    const char *ip, *dns;
    int64_t time;
    /* 389's proxied authorization: NULL none, else the DN assumed (the
     * checks are its own, each after bind_dn's proxy right on the entry:
     * aci_oracle.h) */
    const char *proxied_dn;
};

struct acreG_aci_search {
    const char *base;
    int scope; /* enum acre_scope: base, one or sub (389 has no children) */
    const char *filter;
    unsigned nattrs;
    const char **attrs;
};

#define ACREG_ACI_389    0
#define ACREG_ACI_OPENDJ 1

struct acreG_aci_case {
    uint64_t seed;
    int variant; /* ACREG_ACI_389 or ACREG_ACI_OPENDJ */
    unsigned nentries;
    struct acreG_aci_entry *entries; /* parents before children */
    unsigned nrq;
    struct acreG_aci_who *rq;
    unsigned nsearches;
    struct acreG_aci_search *searches;
};

/*
 * acreG_aci_case_new -- the case of `seed` for `variant`.
 *   out: OUT, talloc child of mem_ctx.
 * Returns 0 or -1 (out of memory).
 */
int acreG_aci_case_new(void *mem_ctx, uint64_t seed, int variant,
                       struct acreG_aci_case **out);

/* acreG_aci_ldif -- the LDIF of the entries, lines and aci values not
 * omitted; a talloc string under ctx, NULL when out of memory. */
char *acreG_aci_ldif(void *ctx, const struct acreG_aci_case *c);

/* acreG_aci_count -- the aci values not omitted. */
unsigned acreG_aci_count(const struct acreG_aci_case *c);

/* acreG_aci_who_text -- the requester on one line; a talloc string. */
char *acreG_aci_who_text(void *ctx, const struct acreG_aci_who *w);

/* acreG_aci_search_text -- "base=... scope=... filter=... attrs=...". */
char *acreG_aci_search_text(void *ctx, const struct acreG_aci_search *s);

#endif /* ACRE_ACI_GEN_H */
