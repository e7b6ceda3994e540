/*
 * openldap_oracle_int.h -- what the files of the OpenLDAP reference
 * evaluator share: the oracle object, the state of one check, and the
 * submatches a rule's <what> leaves for its <who> clauses.
 *
 * Invariant: a struct check lives for one acreR_oracle_check call; all
 * its temporary memory hangs off `tmp` and is freed when the call ends.
 */
#ifndef ACRE_OPENLDAP_ORACLE_INT_H
#define ACRE_OPENLDAP_ORACLE_INT_H

#include "openldap_oracle.h"

#include <regex.h>

struct acreR_oracle {
    const struct acreI_policy *cfg;
    const acre_schema *schema;
    const struct acreE_dir *dir;
    struct acreR_requester rq;
    const acre_dn *authz, *authc; /* NULL: anonymous */
    const char *authz_norm;       /* "" when anonymous */
    const char *authc_norm;
    int id_entry, id_children, id_entrydn, id_objectclass, id_userpassword;
    /* slapd's identity for a set's ldap:/// search in a database with no
     * rootdn: none, on the requester's connection (made at first use) */
    struct acreR_oracle *anon;
    unsigned anon_depth; /* oracles above this one made so */
};

/* Submatches for $-expansion (slapd's AclRegexMatches). */
struct matches {
    const char *dn_src; /* the entry's normalised DN, or NULL */
    int dn_count;
    int dn[ACREI_MAX_MATCHES][2];
    const char *val_src; /* the normalised value, or NULL */
    int val_count;
    int val[ACREI_MAX_MATCHES][2];
};

struct check {
    struct acreR_oracle *o;
    const struct acreR_target *t;
    const char *endn; /* the entry's normalised DN */
    size_t endn_len;
    char *val; /* the value, NUL-terminated (NULL: none) */
    void *tmp;
    char **trace;
    /* the DN and a DN value as slapd's normalised text, which its regexes
     * and substitutions see (acreR_slapd_dn) */
    const char *sdn;
    const char *sval;
};

/* acreR_oracle_trace -- append to the check's trace (when one is asked). */
void acreR_oracle_trace(struct check *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * acreR_oracle_by_matches -- does clause b of rule r apply to this check?  m
 * holds the submatches of r's <what> (slapd's "matches") and tm the ones
 * its dn style gives ($0, $1) for DN patterns.  1 yes, 0 no.
 */
int acreR_oracle_by_matches(struct check *c, const struct acreI_rule *r,
                            const struct acreI_clause *b,
                            const struct matches *m, const struct matches *tm);

/*
 * acreR_oracle_regex_rule -- compiled pattern re on s as slapd matches it,
 * POSIX regcomp(REG_EXTENDED | REG_ICASE) of its text and regexec, except
 * that a pattern with a back-reference is matched by its PCRE2 code (as
 * acre does: glibc's regexec has no bound on those); with nsub > 0, fills
 * off[0..nsub) (unset: -1).  1 match, 0 none.
 */
int acreR_oracle_regex_rule(const struct acreI_regex *re, const char *s,
                            int (*off)[2], int nsub);

/*
 * acreR_oracle_regex_match -- pattern text pat (from a <who> template;
 * expanded: it substituted submatches) compiled as acre's front end
 * compiles it, then acreR_oracle_regex_rule.  0 for a pattern slapd's
 * regcomp refuses -- and for one acre finds too costly (past its estimate
 * the engine denies the check with ACRE_ERR_EVAL_LIMIT, which no
 * comparison takes as an answer).
 */
int acreR_oracle_regex_match(const char *pat, int expanded, const char *s,
                             int (*off)[2], int nsub);

/*
 * acreR_slapd_dn -- acre's normalised DN text ndn written as slapd writes
 * normalised DNs (libldap's strval2str with LDAP_DN_PRETTY): a special
 * character of a value escaped "\XX" in uppercase hex where acre writes
 * "\c", and '=' inside a value as "\3D".  A talloc string under ctx.
 */
char *acreR_slapd_dn(void *ctx, const char *ndn);

/*
 * acreR_oracle_set_matches -- is set's value non-empty for this check
 * (openldap_oracle_set.c)?  tm: the submatches set.expand substitutes.
 */
int acreR_oracle_set_matches(struct check *c, const struct acreI_set *set,
                             const struct matches *tm);

/* acreR_oracle_parse_dn -- normalise s[0..n) as slapd's dnNormalize (strict);
 * NULL when it is not a DN. */
const acre_dn *acreR_oracle_parse_dn(struct check *c, const char *s, size_t n);

/* acreR_oracle_section -- slapd's select_backend as it reads: the first
 * database, in order, with a suffix at or above dn (a scan of every
 * suffix, independent of the engine's suffix index); NULL when none. */
const struct acreI_section *acreR_oracle_section(const struct acreI_policy *cfg,
                                                 const acre_dn *dn);

/* acreR_oracle_search_base -- may o's requester search entry e (a
 * search's base)?  acreR_oracle_search_match -- does f take e, each
 * item's attribute searchable by o's requester?  1 yes, 0 no. */
int acreR_oracle_search_base(struct acreR_oracle *o, const acre_entry_view *e);
int acreR_oracle_search_match(struct acreR_oracle *o,
                              const struct acreF_filter *f,
                              const acre_entry_view *e);

/* acreR_oracle_superior -- the database the glued subordinate s hangs
 * from: the first one after it in configuration order that is no
 * subordinate and whose first suffix holds s's, or NULL. */
const struct acreI_section *
acreR_oracle_superior(const struct acreI_policy *cfg,
                      const struct acreI_section *s);

/* acreR_oracle_find_desc -- the first attribute of e with exactly the
 * description d (slapd's attr_find), or NULL. */
const acre_view_attr *acreR_oracle_find_desc(const acre_schema *s,
                                             const acre_entry_view *e,
                                             const struct acreI_attrspec *d);

/* acreR_oracle_find -- the directory's entry named dn, as a view, or
 * NULL. */
const acre_entry_view *acreR_oracle_find(const struct acreR_oracle *o,
                                         const acre_dn *dn);

/* acreR_norm -- the normalised form of value j of a (its stored form when
 * the type has no equality rule: then *has 0). */
const acre_value *acreR_norm(const acre_view_attr *a, uint32_t j, int *has);

/*
 * acreR_oracle_tag_covers -- slapd's is_ad_subtags for one pair of tags:
 * does the attribute's tag h[0..hn) satisfy the wanted tag w[0..wn)
 * (compared without case; slapd lowercases both)?  A wanted tag ending
 * in '-' is a language range, satisfied by itself without the '-' and
 * by every tag it begins.
 */
int acreR_oracle_tag_covers(const char *w, size_t wn, const char *h, size_t hn);

/* acreR_oracle_value_is_dn -- does normalised value v of attribute type `type`
 * equal the normalised DN text `ndn` under the type's equality rule? */
int acreR_oracle_value_is_dn(struct check *c, int type, const char *v,
                             size_t vn, const char *ndn);

#endif /* ACRE_OPENLDAP_ORACLE_INT_H */
