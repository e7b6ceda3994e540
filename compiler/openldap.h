/*
 * openldap.h -- the OpenLDAP access-rule dialect (slapd.access(5)) as slapd
 * 2.5 parses it: the typed syntax tree the front end produces, and the
 * parsers of slapd.conf and cn=config input that build it.
 *
 * The front end builds the intermediate form (engine/ir.h) directly: it
 * keeps every decision slapd makes while parsing (styles, normalised DNs,
 * resolved attribute types and classes, compiled regexes, privilege masks
 * with their level/add/subtract flags) so that neither the compiler's
 * later stages, the engine nor the reference evaluator (tests/oracle/)
 * ever looks at rule text again.  Patterns that slapd expands per check
 * ($n substitutions, ",expand") are kept as templates.  In OpenLDAP terms
 * the policy's frontend section holds the global rules ("access" before
 * the first "database", or olcDatabase={-1}frontend) and its sections are
 * the databases in slapd's order (slapd.conf order, or {n}).
 *
 * Invariants
 *   - Everything hangs off the acreI_policy talloc tree and is immutable
 *     once a parser returns; any number of threads may read it.
 *   - A configuration that slapd would refuse never yields a tree: the
 *     parser fails with ACRE_ERR_RULE_SYNTAX and the file, line and column of
 *     the offending token, and nothing of the input is kept.
 *   - Input has bounded cost: ACREO_MAX_* below cap lines, tokens,
 *     regexes, set expressions and include depth; PCRE2 patterns carry
 *     match and depth limits.
 *   - Mask arithmetic is slapd's bit for bit (ACREI_PRIV_*), including
 *     its quirks (the write bit is shared by add and delete).
 */
#ifndef ACRE_OPENLDAP_H
#define ACRE_OPENLDAP_H

#include "acre.h"
#include "ir.h"

#include <stddef.h>
#include <stdint.h>

/* Limits on hostile input. */
#define ACREO_MAX_LINE      (1u << 20) /* bytes of one logical line */
#define ACREO_MAX_TOKEN     65536      /* bytes of one token */
#define ACREO_MAX_REGEX     8192       /* bytes of a <what> or val regex */
#define ACREO_MAX_WHO_REGEX 254        /* bytes of a <who> regex (slapd) */
#define ACREO_MAX_SET       8192       /* bytes of a set expression */
#define ACREO_MAX_SET_DEPTH 32         /* nesting of ( ) in a set */
#define ACREO_MAX_INCLUDE   16         /* nesting of include files */
#define ACREO_MAX_RULES     2000000    /* access rules in one config */
#define ACREO_MAX_ERRORS    100        /* errors one reading goes past */

/*
 * acreO_mask_parse -- slapd's str2accessmask: a level keyword (none,
 * disclose, auth, compare, search, read, add, delete, write, manage; any
 * case) or =/+/- followed by letters m w a z r s c x d 0.  s[0..n).
 * Returns the mask, or 0 (invalid).  Any thread.
 */
uint32_t acreO_mask_parse(const char *s, size_t n);

/* ------------------------------------------------------------------------
 * Parsers.  Common arguments:
 *   mem_ctx: talloc parent of the result, or NULL.
 *   schema:  an unfrozen schema that schema definitions met in the input
 *            (include files, attributetype lines, cn=schema entries) are
 *            loaded into before the rules are read; it is frozen and the
 *            result refers to it (keep it alive).  NULL: the built-in
 *            schema, and schema definitions are only noted.
 *   out:     OUT: the configuration; untouched on error.
 *   diag:    OUT on error: code, file, line, column (of the offending
 *            token), message.  May be NULL.
 * Returns 0, ACRE_ERR_RULE_SYNTAX, ACRE_ERR_RULE_IO, ACRE_ERR_RULE_LIMIT,
 * ACRE_ERR_NOMEM, or a schema / LDIF error code from loading definitions.
 * On error nothing is kept (the schema may hold definitions already
 * loaded).  Any thread, for distinct schemas.
 */

/*
 * acreO_parse_conf -- a slapd.conf: global "access" lines before the first
 * "database", then per database "suffix", "rootdn", "access"; "include"
 * of existing files (their schema definitions loaded, their directives
 * read in place); anything else noted.  Reads `path` when text is NULL,
 * else text[0..len) named `path` (may be NULL) in diagnostics.
 */
int acreO_parse_conf(void *mem_ctx, acre_schema *schema, const char *path,
                     const char *text, size_t len, struct acreI_policy **out,
                     acre_diag *diag);

/*
 * acreO_parse_cnconfig -- cn=config: one LDIF file (slapcat -n0 style,
 * full DNs) or a slapd.d directory (one entry per file, RDN-only DNs),
 * given by `path`; or LDIF text[0..len) when text is not NULL.  Uses
 * olcDatabase={n}type entries (olcSuffix, olcRootDN, olcAccess with {n}
 * ordering; {-1}frontend holds the global rules) and cn=schema entries.
 */
int acreO_parse_cnconfig(void *mem_ctx, acre_schema *schema, const char *path,
                         const char *text, size_t len,
                         struct acreI_policy **out, acre_diag *diag);

/*
 * Every error of an input rather than the first (acre_lint): the _all
 * readers go on after an error slapd reports for one directive or value
 * (ACRE_ERR_RULE_SYNTAX): slapd.conf at the next logical line, cn=config
 * at the next olcAccess (or olcSuffix, olcRootDN) value.  Other errors
 * (unreadable files, limits, schema and LDIF errors) still end the
 * reading.  The result is the same as the plain reader's: any error
 * fails it and nothing is kept, with diag the first error; errs->v[0..n)
 * (talloc children of errs->ctx) then holds every error met, in reading
 * order, at most ACREO_MAX_ERRORS + 1.
 */
struct acreO_errors {
    void *ctx;
    acre_diag *v;
    unsigned n;
};

int acreO_parse_conf_all(void *mem_ctx, acre_schema *schema, const char *path,
                         const char *text, size_t len,
                         struct acreI_policy **out, acre_diag *diag,
                         struct acreO_errors *errs);
int acreO_parse_cnconfig_all(void *mem_ctx, acre_schema *schema,
                             const char *path, const char *text, size_t len,
                             struct acreI_policy **out, acre_diag *diag,
                             struct acreO_errors *errs);

/*
 * acreO_config_dump -- the configuration as text in the shape of slapd's
 * acl_unparse (one "access" line per rule, sections as "database",
 * "suffix", "rootdn"), a talloc string under ctx; NULL: out of memory.
 */
char *acreO_config_dump(void *ctx, const struct acreI_policy *cfg);

/* ------------------------------------------------------------------------
 * Helpers of the front end
 */

/*
 * acreO_regex_normalise_dn -- slapd's acl_regex_normalized_dn: drop the
 * spaces after each unescaped ',' of a regex meant for DNs.  Appends the
 * result to a talloc string under ctx; returns it (NULL: out of memory).
 */
char *acreO_regex_normalise_dn(void *ctx, const char *s, size_t n);

/*
 * acreO_set_parse -- parse a set expression (sets.c grammar) against
 * schema.  Returns 0 with *out (talloc child of ctx), ACRE_ERR_RULE_SYNTAX
 * with *err_off the byte offset of the error, ACRE_ERR_RULE_LIMIT (too long
 * or too deep), or ACRE_ERR_NOMEM.
 */
int acreO_set_parse(void *ctx, const acre_schema *schema, const char *s,
                    size_t n, const struct acreI_setnode **out,
                    size_t *err_off);

#endif /* ACRE_OPENLDAP_H */
