/*
 * ir_aci.h -- the intermediate form of the ACI dialect (the `aci`
 * attribute of 389-DS, Oracle DSEE and OpenDJ): what compiler/aci_*.c
 * builds from `aci` values and what engine/eval_aci.c evaluates.
 *
 *   acreI_aci_set              every ACI of a policy, model
 *     acis[0..n)               ACREI_MODEL_ACI (unordered, deny overrides
 *       acreI_aci              allow); holders in no particular order
 *         holder               the entry holding the value, its index
 *         targets              target / targetattr / targetfilter /
 *                              targetscope / targattrfilters /
 *                              target_to / target_from
 *         perms[0..nperms)     allow|deny (rights) bind-rule;
 *           acreI_bind         and / or / not tree of keyword tests
 *
 * Rights are 389's SLAPI_ACL_* bits (ACREI_ACI_*).  DNs are acre_dns of
 * the policy's schema; patterns keep their text, lowercased and
 * normalised as 389 compares them (ACREI_ACI_PAT_*).  Everything hangs
 * off the policy's talloc tree and is immutable once built.
 */
#ifndef ACRE_IR_ACI_H
#define ACRE_IR_ACI_H

#include "acre.h"
#include "ir.h"

#include <stddef.h>
#include <stdint.h>

struct acreF_filter;

/* Rights: 389's SLAPI_ACL_* bits, bit for bit. */
#define ACREI_ACI_COMPARE   0x0001u
#define ACREI_ACI_SEARCH    0x0002u
#define ACREI_ACI_READ      0x0004u
#define ACREI_ACI_WRITE     0x0008u
#define ACREI_ACI_DELETE    0x0010u
#define ACREI_ACI_ADD       0x0020u
#define ACREI_ACI_SELFWRITE 0x0040u
#define ACREI_ACI_PROXY     0x0080u
#define ACREI_ACI_IMPORT    0x0100u /* OpenDJ */
#define ACREI_ACI_EXPORT    0x0200u /* OpenDJ */
#define ACREI_ACI_MODDN     0x0800u
#define ACREI_ACI_ALL       0x087fu /* 389: everything but proxy */

/* Variants (acreI_aci_set.variant) */
#define ACREI_ACI_389    0 /* 389-DS 2.3: the default */
#define ACREI_ACI_OPENDJ 1

/*
 * A DN or DN pattern as an ACI writes it (after "ldap:///").
 *   kind DN:      dn is the parsed DN (subtree tests use it).
 *   kind PATTERN: text holds '*' wildcards (and, with MACRO, the
 *                 macros "($dn)", "[$dn]", "($attr.NAME)"); it is kept as
 *                 389 matches it: the normalised DN text, lowercased,
 *                 each '*' absorbing any run of bytes (commas too).
 */
enum acreI_aci_patkind {
    ACREI_ACI_PAT_DN = 1,
    ACREI_ACI_PAT_PATTERN,
    ACREI_ACI_PAT_NONE /* 389, a target only: text it stores as a DN
                          (an unknown macro, an RDN without '='), under
                          which no entry is */
};

/* acreI_aci_dnpat.flags */
#define ACREI_ACI_MACRO_DN    0x1u /* "($dn)" */
#define ACREI_ACI_MACRO_DN_UP 0x2u /* "[$dn]" */
#define ACREI_ACI_MACRO_ATTR  0x4u /* "($attr.NAME)" */

struct acreI_aci_dnpat {
    enum acreI_aci_patkind kind;
    const acre_dn *dn; /* PAT_DN */
    const char *text;  /* PATTERN (NUL-terminated), or the DN as written */
    size_t len;
    unsigned flags; /* ACREI_ACI_MACRO_* */
};

/* One `targattrfilters` element: attr:(filter). */
struct acreI_aci_attrfilter {
    int type;  /* attribute type id */
    int alias; /* named otherwise than by the type's first name: 389
                  compares names as strings, so it governs nothing */
    const struct acreF_filter *filter;
    const char *text;
};

/* acreI_aci_target.has */
#define ACREI_ACI_T_TARGET  0x01u
#define ACREI_ACI_T_ATTR    0x02u
#define ACREI_ACI_T_FILTER  0x04u
#define ACREI_ACI_T_SCOPE   0x08u
#define ACREI_ACI_T_ATTRFLT 0x10u
#define ACREI_ACI_T_TO      0x20u
#define ACREI_ACI_T_FROM    0x40u
#define ACREI_ACI_T_CONTROL 0x80u  /* OpenDJ targetcontrol */
#define ACREI_ACI_T_EXTOP   0x100u /* OpenDJ extop */

/*
 * The targets of one ACI.
 *   target:   with target_neg for "!=".
 *   attrs:    targetattr: type ids (a subtype is covered by its
 *             supertype's id: the engine compares through the schema),
 *             descriptions with options kept as ids of the description;
 *             attr_star for "*", attr_plus for OpenDJ's "+"; attr_neg
 *             for "!=".  attr_pat[0..nattr_pat): names with '*'
 *             (389 matches them as substrings of the type name);
 *             attr_unknown: OpenDJ only, see below.
 *   filter:   targetfilter, filter_neg for "!="; filter_text the text
 *             (macro forms are expanded per entry from it).
 *   scope:    targetscope: enum acre_scope (ACRE_SCOPE_SUBTREE unless
 *             given; OpenDJ's "onelevel" excludes the target itself).
 */
struct acreI_aci_target {
    unsigned has; /* ACREI_ACI_T_* */
    int target_neg, attr_neg, filter_neg;
    struct acreI_aci_dnpat target;
    struct acreI_aci_dnpat to, from; /* target_to, target_from */
    const int *attrs;
    unsigned nattrs;
    const char *const *attr_pat;
    unsigned nattr_pat;
    int attr_star, attr_plus;
    unsigned attr_unknown; /* OpenDJ: names the schema does not know
                              (placeholder user types: they match no
                              attribute but make "!=" apply) */
    const struct acreF_filter *filter;
    const char *filter_text;
    int scope;
    const struct acreI_aci_attrfilter *add_filters, *del_filters;
    unsigned nadd_filters, ndel_filters;
};

/* Bind-rule keywords */
enum acreI_aci_kw {
    ACREI_ACI_AND = 1,
    ACREI_ACI_OR,
    ACREI_ACI_NOT,
    ACREI_ACI_USERDN,
    ACREI_ACI_GROUPDN,
    ACREI_ACI_ROLEDN,
    ACREI_ACI_USERATTR,
    ACREI_ACI_USERDNATTR,  /* legacy: userattr="a#USERDN" */
    ACREI_ACI_GROUPDNATTR, /* legacy: userattr="a#GROUPDN" */
    ACREI_ACI_AUTHMETHOD,
    ACREI_ACI_SSF,
    ACREI_ACI_IP,
    ACREI_ACI_DNS,
    ACREI_ACI_DAYOFWEEK,
    ACREI_ACI_TIMEOFDAY
};

/* Comparison of a keyword test */
enum acreI_aci_op {
    ACREI_ACI_EQ = 1,
    ACREI_ACI_NE,
    ACREI_ACI_LT,
    ACREI_ACI_LE,
    ACREI_ACI_GT,
    ACREI_ACI_GE
};

/* What 389 answers for a keyword test written with an ordering (<, <=,
 * >, >=), which it stores with every keyword: ssf and timeofday evaluate
 * it (ACREI_ORDER_EVAL); DS_LASRoleDnEval says False; LASIpEval,
 * LASDnsEval and LASDayOfWeekEval say Invalid (LAS_EVAL_INVALID); the
 * other callers of __acllas_setup fail (LAS_EVAL_FAIL, Undefined).
 * Read by the compiler (which ACIs may answer Invalid, lint) and the
 * engine alike. */
enum acreI_aci_order {
    ACREI_ORDER_EVAL = 0,
    ACREI_ORDER_FALSE,
    ACREI_ORDER_INVALID,
    ACREI_ORDER_FAIL
};

static inline enum acreI_aci_order
acreI_aci_order_answer(enum acreI_aci_kw kw)
{
    switch (kw) {
    case ACREI_ACI_SSF:
    case ACREI_ACI_TIMEOFDAY:
        return ACREI_ORDER_EVAL;
    case ACREI_ACI_ROLEDN:
        return ACREI_ORDER_FALSE;
    case ACREI_ACI_IP:
    case ACREI_ACI_DNS:
    case ACREI_ACI_DAYOFWEEK:
        return ACREI_ORDER_INVALID;
    default:
        return ACREI_ORDER_FAIL;
    }
}

/* A userdn / groupdn / roledn term (a URL of scope -1: 389 stores a
 * scope it cannot read, and the URL then names no one) */
enum acreI_aci_subj {
    ACREI_ACI_S_DN = 1,  /* dn (exact; groupdn / roledn: the group) */
    ACREI_ACI_S_PATTERN, /* pat: wildcards and macros, on the bind DN */
    ACREI_ACI_S_ANYONE,  /* ldap:///anyone */
    ACREI_ACI_S_ALL,     /* ldap:///all: any authenticated requester */
    ACREI_ACI_S_SELF,    /* ldap:///self */
    ACREI_ACI_S_PARENT,  /* ldap:///parent */
    ACREI_ACI_S_URL      /* ldap:///base??scope?(filter) */
};

struct acreI_aci_term {
    enum acreI_aci_subj kind;
    struct acreI_aci_dnpat pat;        /* DN, PATTERN, URL (its base) */
    int scope;                         /* URL: enum acre_scope, or -1 */
    const struct acreF_filter *filter; /* URL: NULL for none */
    const char *url;                   /* URL: the text after ldap:/// */
};

/* userattr="[parent[l,...].]attr#KIND" */
enum acreI_aci_uakind {
    ACREI_ACI_UA_USERDN = 1,
    ACREI_ACI_UA_GROUPDN,
    ACREI_ACI_UA_ROLEDN,
    ACREI_ACI_UA_LDAPURL,
    ACREI_ACI_UA_SELFDN,
    ACREI_ACI_UA_VALUE, /* the requester's entry has attr: value */
    /* 389's groupdnattr="ldap:///BASE?ATTR[?...]": terms[0] the base DN
     * (none: never), value its text, attr ATTR (-1: never) */
    ACREI_ACI_UA_GROUPURL
};

/* An IP address with its mask, or a dns pattern */
struct acreI_aci_addr {
    int family;       /* 4 or 6 */
    uint8_t addr[16]; /* network order */
    uint8_t mask[16]; /* bits that must equal addr */
};

/*
 * One node of a bind rule.
 *   AND / OR: a, b.  NOT: a.
 *   keyword tests: op (EQ or NE; SSF and TIMEOFDAY also the orderings;
 *   389 stores the orderings with any keyword, and a keyword that takes
 *   none never evaluates with one: Undefined)
 *   and their operands:
 *     USERDN, GROUPDN, ROLEDN:   terms[0..nterms) ("||" list)
 *     USERATTR (and legacy):     attr (type id), uakind, levels (bit l:
 *                                parent level l, 0..9, 389 0..31; bit 0
 *                                alone: no "parent[...]"), value (UA_VALUE:
 *                                the text after '#')
 *     AUTHMETHOD:                text ("none", "simple", "ssl",
 *                                "sasl MECH"; lowercased)
 *     SSF:                       num (389: as (int)strtol reads the
 *                                value, "high" 0)
 *     IP:                        addrs[0..naddrs) (from "," lists);
 *                                ipmode ACREI_IP_ANY: any of them
 *                                matches; 389: ACREI_IP_TREE, the
 *                                prefixes (mask: the first bits) in
 *                                the order 389's LASIpBuild adds them
 *                                to its tree, where a longer prefix
 *                                added later cuts a shorter one, or
 *                                ACREI_IP_NEVER (389 never evaluates
 *                                the value)
 *     DNS:                       text patterns, ',' separated (lower)
 *     DAYOFWEEK:                 days (bit 0 sun .. bit 6 sat; 389:
 *                                the days whose three-letter name the
 *                                lowercased value contains)
 *     TIMEOFDAY:                 num (hhmm); 389: num as atoi() reads
 *                                the value, or with tod ACREI_TOD_RANGE
 *                                the range num..num_end ("0800-1700",
 *                                wrapping past midnight), or
 *                                ACREI_TOD_INVALID (a range part of six
 *                                or more bytes: never evaluates)
 */
/* acreI_bind.odd: 389 reads the value otherwise than it is written (the
 * lint says how; set only under the 389 variant) */
#define ACREI_ODD_ORDER \
    1 /* <= or >= where 389 takes none (acreI_aci_order_answer) */
#define ACREI_ODD_IP      2 /* prefixes other than the text's addresses */
#define ACREI_ODD_IPNEVER 3 /* an ip value 389 never evaluates */
#define ACREI_ODD_SSF     4 /* not a plain number: strtol's reading */
#define ACREI_ODD_DAYS    5 /* not a list of day names: strstr's days */
#define ACREI_ODD_LEVELS  6 /* parent[...] levels or attribute cut by strtok */
#define ACREI_ODD_NOHASH  7 /* userattr without '#': never evaluates */

#define ACREI_IP_ANY   0
#define ACREI_IP_TREE  1
#define ACREI_IP_NEVER 2

#define ACREI_TOD_VALUE   0
#define ACREI_TOD_RANGE   1
#define ACREI_TOD_INVALID 2

struct acreI_bind {
    enum acreI_aci_kw kw;
    enum acreI_aci_op op;
    const struct acreI_bind *a, *b;
    const struct acreI_aci_term *terms;
    unsigned nterms;
    int attr;
    enum acreI_aci_uakind uakind;
    unsigned levels;
    const char *value;
    size_t value_len;
    const char *text;
    const struct acreI_aci_addr *addrs;
    unsigned naddrs;
    unsigned days;
    long num;
    long num_end;         /* TIMEOFDAY ranges */
    int tod;              /* TIMEOFDAY: ACREI_TOD_* */
    int ipmode;           /* IP: ACREI_IP_* */
    unsigned odd;         /* ACREI_ODD_*, 0 */
    struct acreI_pos pos; /* of the keyword */
};

/* One "allow|deny (rights) bind-rule;" of an ACI */
struct acreI_aci_perm {
    int deny;
    unsigned rights; /* ACREI_ACI_*, as named: "selfwrite" is SELFWRITE
                        alone (no plain write), "all" ACREI_ACI_ALL */
    const struct acreI_bind *bind;
};

/* acreI_aci.flags */
#define ACREI_ACI_F_MACRO 0x1u /* a target or subject uses a macro */
#define ACREI_ACI_F_UNKNOWN                                        \
    0x2u /* acre_lint only (compiler/aci.h, lint mode): an unknown \
            attribute name was read as absent */

/*
 * One ACI: the value_index-th `aci` value of entry holder.
 */
struct acreI_aci {
    struct acreI_pos pos; /* where the value starts */
    const acre_dn *holder;
    unsigned value_index; /* 0-based, in the holder's order */
    const char *name;     /* acl "NAME" */
    const char *text;     /* the value as given (NUL-terminated) */
    size_t len;
    struct acreI_aci_target t;
    const struct acreI_aci_perm *perms;
    unsigned nperms;
    /* 389: the perms of the ACL texts before the last in the value.  389
     * evaluates the last text alone but keeps on the ACI the rights, the
     * allow / deny kinds and the bind-rule kinds of all (aci_access,
     * aci_type, aci_elevel, aci_ruleType): these count for those, never
     * for an answer. */
    const struct acreI_aci_perm *xperms;
    unsigned nxperms;
    unsigned flags; /* ACREI_ACI_F_* */
};

struct acreI_aci_set {
    int variant; /* ACREI_ACI_389 or ACREI_ACI_OPENDJ */
    const struct acreI_aci *acis;
    unsigned n;
    const acre_dn *rootdn; /* the directory manager: bypasses; NULL */
};

/* The rights bits by their names, in the order 389 writes them (the
 * printers of lint, explain and the policy dump share it); "all" is not
 * among them. */
struct acreI_aci_rname {
    unsigned bit;
    const char *name;
};

#define ACREI_ACI_NRNAMES 11
extern const struct acreI_aci_rname acreI_aci_rnames[ACREI_ACI_NRNAMES];

#endif /* ACRE_IR_ACI_H */
