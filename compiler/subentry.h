/*
 * subentry.h -- RFC 3672 subtree specifications, parsed.
 *
 * A subtreeSpecification value is rule text: it is parsed here, in the
 * compiler, and never by the engine.  Names inside it (base, chop
 * exclusions) stay as the strings written; they are relative to the
 * administrative point and a consumer makes full DNs of them with
 * acre_dn_parse("LOCAL,ADMINPOINT").  An LDAP-filter refinement
 * (OpenDJ/ApacheDS: specificationFilter "(...)") stays as text too.
 *
 * Grammar accepted (RFC 3672 section 2.1, GSER, RFC 3641 spacing):
 *   { [base "DN"] [, specificExclusions { chopBefore: "DN" |
 *     chopAfter: "DN" , ... }] [, minimum N] [, maximum N]
 *     [, specificationFilter REFINEMENT | "LDAP-FILTER"] }
 *   REFINEMENT = item:OC | and:{ R, ... } | or:{ R, ... } | not:R
 * Components appear at most once and in this order; keywords are
 * case-sensitive as in GSER; N is a non-negative INTEGER without sign.
 *
 * Details of the parser (subentry.c): a quoted LDAP filter may stand
 * wherever a refinement may, inside and/or/not too (OpenDJ's grammar:
 * Refinement = item / and / or / not / Filter), so ACREU_FILTER nodes can
 * appear anywhere in the tree; spaces (U+0020 only) are accepted exactly
 * where GSER has sp or msp -- after '{' and ',', before '}', one or more
 * after a component name -- and nowhere else (not before a comma, not
 * around ':'); N has no leading zeros; strings are UTF-8 without NUL, ""
 * standing for one quote; the OC of item: is a descr or a numericoid
 * (RFC 4512).  Neither the names nor the filter are checked here.
 */
#ifndef ACRE_SUBENTRY_H
#define ACRE_SUBENTRY_H

#include <stddef.h>

/* Bounds on untrusted input (a spec over a bound fails to parse). */
#define ACREU_MAX_TEXT  65536 /* bytes of one specification */
#define ACREU_MAX_DEPTH 32    /* nesting of and/or/not refinements */
#define ACREU_MAX_ITEMS 1024  /* chops, and refinement nodes in all */

#define ACREU_NO_MAX (~0u) /* maximum absent: no bound */

/* The largest minimum or maximum accepted (a bigger number is a limit
 * error; every depth is far below it). */
#define ACREU_MAX_NUMBER 4294967294u

enum acreU_refine_kind {
    ACREU_ITEM,  /* item:OC -- the entry's objectClass has OC */
    ACREU_AND,   /* and:{...} -- all of sub (none: TRUE) */
    ACREU_OR,    /* or:{...} -- any of sub (none: FALSE) */
    ACREU_NOT,   /* not:R -- sub[0] is FALSE */
    ACREU_FILTER /* "(...)" -- an RFC 4515 filter on the entry */
};

struct acreU_refine {
    enum acreU_refine_kind kind;
    const char *text; /* ITEM: the class as written (name or OID);
                         FILTER: the filter; NULL otherwise */
    struct acreU_refine **sub;
    unsigned nsub;
};

struct acreU_chop {
    const char *local; /* the name relative to the base, as written
                          (the GSER string's content, "" not allowed) */
    int after;         /* 1 chopAfter (keep the entry), 0 chopBefore */
};

struct acreU_spec {
    const char *base; /* relative to the administrative point; "" absent */
    struct acreU_chop *chops;
    unsigned nchops;
    unsigned minimum;            /* 0 when absent */
    unsigned maximum;            /* ACREU_NO_MAX when absent */
    struct acreU_refine *refine; /* NULL when absent */
};

/*
 * acreU_spec_parse -- parse text[0..len) (not NUL-terminated).
 *   out: OUT, talloc child of mem_ctx, strings inside it.
 *   On error returns ACRE_ERR_RULE_SYNTAX or ACRE_ERR_RULE_LIMIT with
 *   *col the 1-based byte column and *msg a static message; ACRE_ERR_NOMEM.
 *   (Also: col and msg may be NULL; ACRE_ERR_INVAL when out is NULL or
 *   text is NULL with len > 0.  Cost is linear in len.)
 */
int acreU_spec_parse(void *mem_ctx, const char *text, size_t len,
                     struct acreU_spec **out, unsigned *col, const char **msg);

/*
 * acreU_spec_format -- the canonical text of spec (components in order,
 * one space after commas, absent components left out, "{}" for none):
 * parsing it again gives the same spec.  talloc string, NULL on NOMEM.
 */
char *acreU_spec_format(void *mem_ctx, const struct acreU_spec *spec);

#endif /* ACRE_SUBENTRY_H */
