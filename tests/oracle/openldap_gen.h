/*
 * openldap_gen.h -- a seeded generator of OpenLDAP access-control test
 * cases: a small directory as LDIF, a slapd.conf policy drawn from the
 * whole slapd.access(5) dialect, requesters with connection contexts, and
 * searches.  The agreement test (tests/unit/engine_agreement_test.c) runs
 * every case through the optimised engine and the reference evaluator
 * (openldap_oracle.h) and compares the answers.
 *
 * A case is kept as parts (entries made of LDIF lines, rules made of a
 * <what> and <by> clauses) so that a failing case can be shrunk by
 * setting the `omit` flags and rendering it again; acreG_conf() and
 * acreG_ldif() render the parts that are not omitted.
 *
 * Invariants
 *   - The same seed gives the same case, on every machine: the generator
 *     has its own PRNG (splitmix64) and never calls rand().
 *   - Every generated policy is meant to be one slapd 2.5 accepts, and
 *     every LDIF one slapadd accepts with the built-in schemas (core,
 *     cosine, inetorgperson, nis, dyngroup); a case either side refuses
 *     is a generator bug unless the text really is invalid.
 *   - Everything of a case hangs off its talloc context.
 */
#ifndef ACRE_OPENLDAP_GEN_H
#define ACRE_OPENLDAP_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The PRNG: splitmix64. */
struct acreG_rng {
    uint64_t s;
};

void acreG_rng_seed(struct acreG_rng *r, uint64_t seed);
uint64_t acreG_rng_next(struct acreG_rng *r);
/* A uniform number in [0, n); 0 when n is 0. */
unsigned acreG_rng_below(struct acreG_rng *r, unsigned n);
/* 1 with probability pct percent. */
int acreG_rng_pct(struct acreG_rng *r, unsigned pct);

/* One directory entry: its DN as written and its "attr: value" lines. */
struct acreG_entry {
    char *dn;
    int parent; /* index of the parent entry, -1 for the suffix */
    unsigned nlines;
    char **lines;
    uint8_t *omit_line; /* [nlines] */
    uint8_t omit;
};

/* One "access to <what> by <who> ... " rule. */
struct acreG_rule {
    int global;  /* before "database": a global rule */
    unsigned db; /* else the database's index (ACREG_SUFFIX is 0) */
    char *what;  /* the text after "to" */
    unsigned nby;
    char **by;        /* each clause's text after "by" */
    uint8_t *omit_by; /* [nby] */
    uint8_t omit;
};

/* Who asks (the strings the engine's acre_subject and the oracle's
 * acreR_requester take).  NULL authz_dn is anonymous. */
struct acreG_requester {
    const char *label;
    const char *authz_dn, *authc_dn;
    const char *peername, *sockname, *sockurl, *domain;
    unsigned ssf, transport_ssf, tls_ssf, sasl_ssf;
};

struct acreG_search {
    const char *base;
    int scope; /* enum acre_scope */
    const char *filter;
    unsigned nattrs;
    const char **attrs;
};

struct acreG_case {
    uint64_t seed;
    unsigned ndbs; /* 1, or 2 with a second database for ACREG_SUFFIX2 */
    /* the second database has no rootdn: a set's ldap:/// search there
     * runs as no one (no "rootdn2" requester then) */
    int norootdn2;
    /* ACREG_NESTED_*: ou=staff held by a database of its own, listed
     * before the first one (slapd takes the first suffix that holds a
     * DN), its rules those of database ACREG_DB_NESTED; its rootdn is
     * ACREG_ROOTDN (glued databases should share one, slapd.conf(5);
     * and slapd lets a rootdn proxy only as DNs of its own databases) */
    unsigned nested;
    /* with a glued ou=staff, ou=people sometimes glued too, between it
     * and the first database (glue over two levels), with the rules of
     * database ACREG_DB_PEOPLE */
    unsigned nested_people;
    unsigned nentries;
    struct acreG_entry *entries; /* parents before children */
    unsigned nrules;
    struct acreG_rule *rules; /* global ones first */
    unsigned nrq;
    struct acreG_requester *rq;
    unsigned nsearches;
    struct acreG_search *searches;
};

#define ACREG_SUFFIX  "dc=example,dc=com"
#define ACREG_ROOTDN  "cn=manager,dc=example,dc=com"
#define ACREG_SUFFIX2 "o=elsewhere"
#define ACREG_ROOTDN2 "cn=admin,o=elsewhere"
#define ACREG_SUFFIX3 "ou=staff,ou=people," ACREG_SUFFIX

#define ACREG_NESTED_NONE  0
#define ACREG_NESTED_APART 1 /* searches of the superior do not enter it */
#define ACREG_NESTED_GLUED 2 /* "subordinate": they do */
#define ACREG_DB_NESTED    2 /* struct acreG_rule.db of its rules */
#define ACREG_DB_PEOPLE    3
#define ACREG_SUFFIX4      "ou=people," ACREG_SUFFIX

/*
 * acreG_case_new -- the case of `seed`.
 *   out: OUT, talloc child of mem_ctx.
 * Returns 0 or -1 (out of memory).
 */
int acreG_case_new(void *mem_ctx, uint64_t seed, struct acreG_case **out);

/* acreG_conf -- the slapd.conf text of the rules not omitted (global rules,
 * then per database "database mdb", suffix, rootdn and its rules); a
 * talloc string under ctx, NULL when out of memory. */
char *acreG_conf(void *ctx, const struct acreG_case *c);

/* acreG_ldif -- the LDIF of the entries and lines not omitted; a talloc
 * string under ctx, NULL when out of memory. */
char *acreG_ldif(void *ctx, const struct acreG_case *c);

/* acreG_requester_text -- the requester on one line, as slapacl options
 * (-D authc, -X authz, -o peername=...); a talloc string under ctx. */
char *acreG_requester_text(void *ctx, const struct acreG_requester *rq);

/* acreG_search_text -- "base=... scope=... filter=... attrs=..." */
char *acreG_search_text(void *ctx, const struct acreG_search *s);

/*
 * acreG_write_reproducer -- everything needed to replay one check: the
 * slapd.conf, the LDIF, the requester and `check` (free text saying what
 * was asked and what each side answered).  With dir not NULL, writes
 * dir/slapd.conf, dir/data.ldif and dir/check.txt (creating dir);
 * otherwise prints all of it to f.  Returns 0 or -1 (I/O error).
 */
int acreG_write_reproducer(const struct acreG_case *c,
                           const struct acreG_requester *rq, const char *check,
                           const char *dir, FILE *f);

#endif /* ACRE_OPENLDAP_GEN_H */
