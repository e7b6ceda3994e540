/*
 * aci.h -- the ACI dialect's front end (389-DS 2.3 `aci` values, with
 * OpenDJ's differences as a variant): `aci` attribute values -> the
 * intermediate form of engine/ir_aci.h.  compiler/ only: nothing here
 * evaluates an entry.
 *
 *   aci_parse.c   one value: targets "(...)" and the ACL text
 *                 "(version 3.0; acl "n"; allow|deny (rights) rule; ...)"
 *   aci_bind.c    the bind rules: and / or / not / ( ) and the keyword
 *                 operands (userdn ... timeofday)
 *   aci_dn.c      DNs and DN patterns after "ldap:///", LDAP URLs
 *   aci_ldif.c    every `aci` value of an LDIF content file -> a policy
 *
 * Errors are ACRE_ERR_RULE_SYNTAX (or ACRE_ERR_RULE_LIMIT past a cap, or
 * ACRE_ERR_NOMEM) with a diagnostic naming the holder entry and the value
 * ("entry 'DN', aci value N: ...", N counted from 1) and the column of the
 * offending byte.  Nothing half-built is ever handed back.
 */
#ifndef ACRE_ACI_H
#define ACRE_ACI_H

#include "acre.h"
#include "ir.h"
#include "ir_aci.h"

#include <stddef.h>

#define ACREA_MAX_VALUE (64u << 10) /* bytes of one aci value */
#define ACREA_MAX_DEPTH 32          /* nesting of ( ) and not in a rule */
#define ACREA_MAX_TERMS 1024 /* keyword tests + "||" terms in one value */
#define ACREA_MAX_PERMS 64   /* allow|deny pairs in one value */

/*
 * acreA_parse_value -- parse text[0..len), the value_index-th (0-based)
 * `aci` value of entry `holder`, into *out (everything allocated under
 * ctx; holder is referenced, not copied, and must outlive *out).
 *   schema:  attribute names and filters resolve against it (NULL: the
 *            built-in schema); frozen (acreS_freeze), since a targetattr
 *            description with options is interned in it.
 *   variant: ACREI_ACI_389 or ACREI_ACI_OPENDJ.
 *   at:      where text[0] is: file, line, column (column 0: unknown,
 *            then diagnostics carry no column); may be NULL.
 * Returns 0, ACRE_ERR_RULE_SYNTAX, ACRE_ERR_RULE_LIMIT or ACRE_ERR_NOMEM
 * with diag (when not NULL) filled: file and line from `at`, column =
 * at->column + offset of the offending byte, offset = that offset.  On
 * error *out is left zeroed and nothing stays allocated under ctx.
 * Thread-safe (no state outside the call).
 */
int acreA_parse_value(void *ctx, const acre_schema *schema,
                      const acre_dn *holder, unsigned value_index,
                      const char *text, size_t len, int variant,
                      const struct acreI_pos *at, struct acreI_aci *out,
                      acre_diag *diag);

/*
 * acreA_parse_ldif -- every `aci` value of every entry of the LDIF content
 * text[0..len) (named `path` in diagnostics) -> *ir, a policy IR of model
 * ACREI_MODEL_ACI with ir->aci set (variant, ACIs in file order) and
 * ir->schema = schema (NULL: the built-in one); no sections, notes or
 * hooks.  Values may be folded or base64 (`aci::`); diagnostics give the
 * physical line and column of the offending byte (column 0 inside a
 * base64 value).  Returns 0 or an ACRE_ERR_LDIF_* / ACRE_ERR_RULE_* /
 * ACRE_ERR_DN_* / ACRE_ERR_NOMEM code with diag; *ir untouched on error.
 * Thread-safe.
 */
int acreA_parse_ldif(void *ctx, acre_schema *schema, const char *path,
                     const char *text, size_t len, int variant,
                     struct acreI_policy **ir, acre_diag *diag);

/* ------------------------------------------------------------------------
 * Lint mode (compiler/lint_aci.c): the same parse, but
 *   - every value the compiler refuses is kept as an error and the
 *     reading goes on at the next value (an entry whose DN is refused:
 *     at the next entry; an LDIF error ends the file), at most
 *     ACREA_LINT_MAX_ERRORS errors in all;
 *   - an attribute name the schema does not know (targetattr,
 *     targetfilter, userattr / userdnattr / groupdnattr, a ($attr.NAME)
 *     macro, targattrfilters) is no error: it is kept as an acreA_unknown
 *     and the value is read as if the name were absent (a targetattr
 *     name left out of the list, a userattr or targattrfilters attribute
 *     -1), its ACI flagged ACREI_ACI_F_UNKNOWN;
 *   - the "# acre-lint:" comment lines are kept (ir->lintmarks).
 * The IR read this way is for the lint's reasoning only: it is never
 * built into a policy.
 */
#define ACREA_LINT_MAX_ERRORS 101

struct acreA_unknown {
    unsigned aci;         /* index in ir->aci->acis */
    const char *name;     /* as written, NUL-terminated */
    const char *where;    /* "targetattr", "targetfilter", ... */
    struct acreI_pos pos; /* of the name (column 0: unknown) */
    size_t off;           /* of the name, in the value */
    const char *first;    /* set: a known type's other name, which 389
                           * compares as text with this first name */
};

struct acreA_lint {
    void *ctx;       /* where the lists live */
    acre_diag *errs; /* every error, in file order */
    unsigned nerrs;
    struct acreA_unknown *unk; /* every unknown name, in file order */
    unsigned nunk;
};

/*
 * acreA_parse_value_lint -- acreA_parse_value in lint mode: unknown
 * attribute names go to lint->unk (their aci field 0, pos the value's
 * start: the caller fixes both) instead of being errors.  On error the
 * names this value added are taken back.
 */
int acreA_parse_value_lint(void *ctx, const acre_schema *schema,
                           const acre_dn *holder, unsigned value_index,
                           const char *text, size_t len, int variant,
                           const struct acreI_pos *at, struct acreI_aci *out,
                           acre_diag *diag, struct acreA_lint *lint);

/*
 * acreA_parse_ldif_lint -- acreA_parse_ldif in lint mode: *ir holds the
 * ACIs of every value that was accepted (with the lint marks), lint the
 * errors and unknown names.  Returns 0 when no value was refused, the
 * code of the first error otherwise (*ir then set all the same), or
 * ACRE_ERR_NOMEM (*ir untouched).
 */
int acreA_parse_ldif_lint(void *ctx, acre_schema *schema, const char *path,
                          const char *text, size_t len, int variant,
                          struct acreA_lint *lint, struct acreI_policy **ir);

/* ------------------------------------------------------------------------
 * Shared by the aci_*.c files (the module tag acreA_).
 */
struct acreA_p {
    void *ctx; /* where the result is built (a scratch context) */
    const acre_schema *schema;
    const acre_dn *holder;
    unsigned value_index;
    const char *s; /* the whole value */
    size_t n;
    int variant;
    const struct acreI_pos *at;
    acre_diag *diag;
    unsigned nterms;         /* keyword tests and "||" terms so far */
    int target_macro;        /* the target has ($dn) / [$dn] */
    int subject_dnmacro;     /* a subject has ($dn) / [$dn] */
    int kw_lower;            /* the keyword being read is written lowercase */
    int subject_pat;         /* a subject's or target's DN pattern is being read
                              * (389: a part with no '=' is text) */
    int filter389;           /* a targetfilter is being read (389 names) */
    int rawsubs;             /* a userdn URL's filter is being read (389:
                              * ACREF_389_RAWSUBS) */
    unsigned flags;          /* ACREI_ACI_F_* */
    struct acreA_lint *lint; /* lint mode (NULL: compile) */
};

/*
 * acreA_unknown_name -- in lint mode, keep the unknown attribute name
 * p->s[off..off+n) met in `where` and flag the ACI: 0, or
 * ACRE_ERR_NOMEM.  Only called when p->lint is set.
 */
int acreA_unknown_name(struct acreA_p *p, size_t off, size_t n,
                       const char *where);

/* acreA_alias_name -- lint mode, 389 variant: a known type id written at
 * p->s[off..off+n) by another name than its first, which 389 compares as
 * text, is kept as an acreA_unknown with `first` set.  0 or NOMEM. */
int acreA_alias_name(struct acreA_p *p, size_t off, size_t n, int id,
                     const char *where);

/*
 * acreA_filter_names -- in lint mode, the attribute descriptions of the
 * (parsed) filter text p->s[off..off+n) that the schema does not know,
 * kept as unknown names of `where`.  0 or ACRE_ERR_NOMEM.
 */
int acreA_filter_names(struct acreA_p *p, size_t off, size_t n,
                       const char *where);

/*
 * acreA_err -- fill p->diag for an error at byte `off` of the value, with
 * the holder and value index before the printf-style message.  Returns
 * code.
 */
int acreA_err(struct acreA_p *p, int code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/*
 * acreA_norm389 -- where 389's DN normaliser refuses s[0..n) read as one
 * DN: the offset of the byte it stops at (*why says why), else n.
 */
size_t acreA_norm389(const char *s, size_t n, const char **why);

/*
 * acreA_scan389 -- does 389's rule scanner (aclparse.c's
 * __aclp__normalize_acltxt and __aclp__getNextLASRule, aci_scan389.c)
 * refuse the ACL text p->s[off..off+n) that the parse accepted?  0, or
 * ACRE_ERR_RULE_SYNTAX with the error at the byte it trips on.
 */
int acreA_scan389(struct acreA_p *p, size_t off, size_t n);

/* acreA_find -- where s[a..b) holds t first (case-sensitively, as 389's
 * strstr), or (size_t)-1 (aci_scan389.c) */
size_t acreA_find(const char *s, size_t a, size_t b, const char *t);

/*
 * acreA_dnpat -- s[0..n) (at byte off of the value) is the part after
 * "ldap:///" of a target or subject: a DN, or, with '*' wildcards or
 * macros ("($dn)", "[$dn]", "($attr.NAME)": only when macros is set), a
 * pattern normalised and lowercased as 389 compares it.  Fills *out.
 * Returns 0 or an error (acreA_err).
 */
int acreA_dnpat(struct acreA_p *p, size_t off, const char *s, size_t n,
                int macros, struct acreI_aci_dnpat *out);

/*
 * acreA_url -- s[0..n) (at byte off) is "ldap:///..." or "ldaps:///..."
 * (case-insensitive scheme): the number of bytes of that prefix, or 0.
 */
size_t acreA_url_prefix(const char *s, size_t n);

/*
 * acreA_filter -- parse the filter s[0..n) (at byte off), wrapped in
 * parentheses when it has none, into *out.  Returns 0 or an error.
 */
int acreA_filter(struct acreA_p *p, size_t off, const char *s, size_t n,
                 const struct acreF_filter **out);

/*
 * acreA_acltext -- parse the ACL text s[0..n) of the value (the inside of
 * "(version ...)", starting at byte off) into the name and perms of *a.
 */
int acreA_acltext(struct acreA_p *p, size_t off, size_t n, struct acreI_aci *a);

/* The ACL text's tokens (aci_bind.c), as libaccess's aclscan.l. */
enum acreA_tkind {
    ACREA_TEOF = 0,
    ACREA_TWORD = 256, /* [*A-Za-z0-9._-]+ */
    ACREA_TQSTR,       /* "...": off/n inside the quotes */
    ACREA_TOP          /* = != < <= > >= */
    /* and the punctuation ( ) , ; { } as their own bytes */
};

struct acreA_tok {
    enum acreA_tkind kind;
    size_t off, n;
};

struct acreA_lex {
    struct acreA_p *p;
    size_t i, end; /* next byte, end of the ACL text */
    struct acreA_tok t;
    int rule; /* in a bind rule: 389's libaccess drops bytes it has no
               * token for */
};

/* acreA_next -- read the next token into L->t.  Returns 0 or an error. */
int acreA_next(struct acreA_lex *L);

/* acreA_is -- 1 when L->t is the word `word` (case-insensitive). */
int acreA_is(const struct acreA_lex *L, const char *word);

/*
 * acreA_keyword -- a keyword test "KEYWORD OP VALUE" at L->t (aci_kw.c):
 * the node in *out, L past the value.  Returns 0 or an error.
 */
int acreA_keyword(struct acreA_lex *L, const struct acreI_bind **out);

/*
 * acreA_attrfilters -- the targattrfilters value p->s[off..off+n) into
 * t->add_filters / t->del_filters (aci_kw.c).
 */
int acreA_attrfilters(struct acreA_p *p, size_t off, size_t n,
                      struct acreI_aci_target *t);

#endif /* ACRE_ACI_H */
