/*
 * aci_oracle_int.h -- what the files of the ACI reference evaluator
 * share: the oracle object, the state of one ACI's evaluation for one
 * entry, three-valued results, and the lookups bind rules make.
 *
 * Invariant: a struct acreR_ctx lives for one check; its temporary memory
 * hangs off `tmp`, freed when the check ends.
 */
#ifndef ACRE_ACI_ORACLE_INT_H
#define ACRE_ACI_ORACLE_INT_H

#include "aci_oracle.h"

/* Three-valued results (389's ACL_TRUE / ACL_FALSE / ACL_DONT_KNOW). */
/* False, True, and 389's two failures: Undefined (LAS_EVAL_FAIL) and
 * Invalid (LAS_EVAL_INVALID), which its deny phase tells apart */
enum acreR_tv { ACRER_F = 0, ACRER_T = 1, ACRER_U = 2, ACRER_I = 3 };

/* 389's group nesting limit: members are looked for in the named group
 * and in groups up to this many levels below it. */
#define ACRER_GROUP_NEST 5
/* Nested roles: the same bound (389 has its own; never reached here). */
#define ACRER_ROLE_NEST  5

struct acreR_aci {
    const struct acreI_aci_set *set;
    const acre_schema *schema;
    const struct acreE_dir *dir;
    struct acreR_aci_who who;
    const acre_dn *bind;   /* NULL: anonymous */
    const char *bind_norm; /* "" when anonymous */
    char auth[64];         /* lowercased, "sasl mech" with a space */
    int wday, hhmm;        /* from who.time */
    int ip_family;         /* 0 unknown, 4, 6 */
    uint8_t ip[16];
    int id_member, id_unique, id_url, id_roledn, id_rolefilter, id_oc, id_aci,
        id_rolescope;
    int oc_managed, oc_filtered, oc_nested;
    int bound_anon; /* the DN bound is anonymous (under a proxied
                       authorization too: 389's clientDn) */
    int has_anon;   /* bound_anon, and 389 would have an anonymous profile */
    unsigned *anon; /* its ACIs: indexes into set->acis */
    unsigned nanon;
    /* a search's missing base is being judged (findentry.c, before the
     * search sets FILTER_NORMALIZED): URL filters' substrings are
     * normalised */
    int normal_subs;
    /* proxied authorization: the evaluator of the DN bound, whose proxy
     * right each entry needs; NULL when there is none or it is the
     * directory manager */
    struct acreR_aci *px;
    char *px_granted; /* the entry the proxy right was last granted on
                         (normalised DN), or NULL */
    int proxied;      /* the proxied authorization control is there */
    int bound_root;   /* the DN bound is the directory manager */
};

/* One ACI being evaluated for one entry. */
struct acreR_ctx {
    struct acreR_aci *o;
    const acre_entry_view *e;
    const struct acreI_aci *a;
    const char *macro; /* the part of e's DN ($dn) matched, or NULL */
    void *tmp;
};

/* acreR_aci_bind -- bind rule b for this ACI and entry (aci_oracle_bind.c). */
enum acreR_tv acreR_aci_bind(struct acreR_ctx *c, const struct acreI_bind *b);

/* acreR_aci_find -- the directory's entry named dn, as a view, or NULL. */
const acre_entry_view *acreR_aci_find(const struct acreR_aci *o,
                                      const acre_dn *dn);

/* acreR_aci_parse_dn -- s[0..n) as a DN under tmp, NULL when it is not
 * one. */
const acre_dn *acreR_aci_parse_dn(const struct acreR_aci *o, void *tmp,
                                  const char *s, size_t n);

/* acreR_aci_type_of -- the attribute type of description id d. */
int acreR_aci_type_of(const struct acreR_aci *o, int d);

/*
 * acreR_aci_substr -- 389's acl_match_substring of pattern pat (its '*'
 * separating initial, any and final parts) on str, without case: the
 * initial part anchored at the start only when exact; the final part
 * always anchored at the end.  1 match, 0 none.
 */
int acreR_aci_substr(const char *pat, const char *str, int exact);

/* acreR_aci_filter_plain -- f on e without access checks: ACREF_*. */
enum acreF_result acreR_aci_filter_plain(const struct acreR_aci *o,
                                         const struct acreF_filter *f,
                                         const acre_entry_view *e);

/*
 * The OpenDJ variant (aci_oracle_dj.c), which acreR_aci_check, _visible
 * and _filter hand over to when the set's variant is ACREI_ACI_OPENDJ:
 * the same arguments and results.
 */
int acreR_dj_check(struct acreR_aci *o, const acre_entry_view *e, int attr,
                   unsigned right);
int acreR_dj_visible(struct acreR_aci *o, const acre_entry_view *e);
int acreR_dj_filter(struct acreR_aci *o, const acre_entry_view *e,
                    const struct acreF_filter *f);

#endif /* ACRE_ACI_ORACLE_INT_H */
