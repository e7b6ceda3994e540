/*
 * lint.h -- the internals of acre_lint (compiler/lint*.c): the checks and
 * their ids, the findings being collected, the analysis of regular
 * expressions and the output formats.  Not a contract for other modules:
 * they use acre.h.
 *
 *   lint.c         reads each source into the IR (engine/ir.h) and walks
 *                  it: rules, clauses, coverage of targets, data lookups;
 *                  silencing; the result
 *   lint_regex.c   a POSIX ERE read into a small tree: backtracking cost,
 *                  an example string it matches, its literal tail
 *   lint_format.c  text, JSON and SARIF output
 *   lint_aci.c     the ACI dialect: its sources read in lint mode
 *                  (compiler/aci.h) and the checks on its IR
 *
 * The lint never evaluates entries as a check does: it reasons on the IR
 * and, where a question is about one DN (does this regex match this
 * base?), runs the rule's own compiled regex on that DN.
 */
#ifndef ACRE_LINT_H
#define ACRE_LINT_H

#include "acre.h"
#include "ir.h"

#include <stddef.h>
#include <stdint.h>

/* The warnings, in the order of acre_lint_checks().  ORDER LINT CHECK */
enum acreW_check {
    ACREW_SHADOWED_RULE,
    ACREW_OUTSIDE_SUFFIX,
    ACREW_UNREACHABLE_CLAUSE,
    ACREW_USELESS_CONTINUE,
    ACREW_UNANCHORED_REGEX,
    ACREW_UNKNOWN_ATTRIBUTE,
    ACREW_ROOTDN_CLAUSE,
    ACREW_PUBLIC_WRITE,
    ACREW_CATASTROPHIC_REGEX,
    ACREW_MISSING_BASE,
    ACREW_COMMENT_CONTINUATION,
    ACREW_OUTSIDE_HOLDER,
    ACREW_ODD_VALUE,
    ACREW_NCHECKS
};

/* The ids of errors (not checks: they cannot be silenced). */
#define ACREW_ID_PARSE "parse-error"
#define ACREW_ID_READ  "read-error"

/* ------------------------------------------------------------------------
 * Regular expressions (lint_regex.c)
 *
 * acreW_rx_parse reads the POSIX ERE p[0..n) as the OpenLDAP front end
 * compiles it (REG_EXTENDED | REG_ICASE; '.' matches every byte) into a
 * tree under ctx.  tmpl: p is a <who> template, whose "$n" / "${..}"
 * substitutions stand for unknown text and "$$" for '$'.  Returns NULL
 * when p uses something the tree does not model (or out of memory): the
 * callers then say nothing about the pattern.
 */
struct acreW_rx;

struct acreW_rx *acreW_rx_parse(void *ctx, const char *p, size_t n, int tmpl);

/*
 * acreW_rx_backtrack -- the worst backtracking the pattern allows on a
 * subject of n bytes that fails to match (documented in acre(1), LINT):
 *   0   nothing to report (polynomial of degree 2 at most);
 *   d   a chain of unbounded repeats costing O(n^d) steps, d >= 3;
 *   -1  a repeated group that can split the same text in many ways:
 *       exponential.
 * why: OUT, a short description of the construct (into buf, cap bytes).
 */
int acreW_rx_backtrack(const struct acreW_rx *rx, char *why, size_t cap);

/*
 * acreW_rx_example -- a short string the pattern should match (each
 * unbounded repeat taken once, optional parts left out, the first
 * alternative of each group), NUL-terminated under ctx; NULL when it
 * cannot be made.  Callers confirm it with the compiled regex.
 */
char *acreW_rx_example(void *ctx, const struct acreW_rx *rx);

/*
 * acreW_rx_end_literal -- when every match must end with a literal text
 * followed by '$' (one top-level alternative), that text lowercased into
 * buf (cap bytes); returns its length, 0 when there is none.
 */
size_t acreW_rx_end_literal(const struct acreW_rx *rx, char *buf, size_t cap);

/*
 * acreW_re_match -- does the compiled regex re match s[0..n) (unanchored,
 * as slapd)?  1 yes (*start, when not NULL: where the match begins), 0 no,
 * -1 a limit was reached or no memory.
 */
int acreW_re_match(const struct acreI_regex *re, const char *s, size_t n,
                   size_t *start);

/* ------------------------------------------------------------------------
 * Findings (lint.c), for the dialects' checks
 */
struct lint; /* lint.c's state for one call */

/*
 * acreW_warn -- a warning of check c at `at`, about the rule at `rule`
 * (its line is what a "# acre-lint: disable=" comment above silences),
 * with an optional note at `nat`.  Nothing when rule has no place, or
 * when c is disabled (counted).  0 or ACRE_ERR_NOMEM.
 */
int acreW_warn(struct lint *l, int c, const struct acreI_pos *at,
               const struct acreI_pos *rule, const struct acreI_pos *nat,
               const char *note, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* acreW_error -- an error finding for d (file: d->file, else path).
 * 0 or ACRE_ERR_NOMEM. */
int acreW_error(struct lint *l, const char *path, const acre_diag *d);

/* ------------------------------------------------------------------------
 * The ACI dialect (lint_aci.c)
 *
 * acreW_aci -- read the sources of src[0..n) whose dialect is
 * ACRE_DIALECT_ACI as one policy (as acre_policy_compile reads them, in
 * lint mode: compiler/aci.h) in `variant` (ACREI_ACI_*), under tmp.  Every
 * value refused is an error finding and nothing else is said; otherwise
 * the checks run (unknown-attribute, outside-holder, shadowed-rule,
 * public-write) and *cfg is the IR read (its lint marks for silencing).
 * 0 or ACRE_ERR_NOMEM.
 */
int acreW_aci(struct lint *l, void *tmp, const acre_source *src, size_t n,
              int variant, const struct acreI_policy **cfg);

/* ------------------------------------------------------------------------
 * Output (lint_format.c)
 */

/* acreW_check_id -- the id of check c (enum acreW_check). */
const char *acreW_check_id(int c);

/* acreW_format -- acre_lint_format: the result as a malloc'd string. */
char *acreW_format(const acre_lint_result *r, int format);

#endif /* ACRE_LINT_H */
