/*
 * openldap.h -- the OpenLDAP access-rule dialect (slapd.access(5)) as slapd
 * 2.5 parses it: the typed syntax tree the front end produces, and the
 * parsers of slapd.conf and cn=config input that build it.
 *
 * What the tree is for
 *   The tree keeps every decision slapd makes while parsing (styles,
 *   normalised DNs, resolved attribute types and classes, compiled
 *   regexes, privilege masks with their level/add/subtract flags) so that
 *   neither the compiler nor the reference evaluator (tests/oracle/) ever
 *   looks at rule text again.  Patterns that slapd expands per check
 *   ($n substitutions, ",expand") are kept as templates.
 *
 *   acreO_config
 *     schema                    frozen; every attribute / class id below
 *     frontend: acreO_db        the global rules ("access" before the first
 *                               "database", or olcDatabase={-1}frontend)
 *     dbs[0..ndbs): acreO_db    in slapd's order (slapd.conf order, or {n})
 *       suffix[], rootdn, rules[0..nrules)
 *         acreO_rule = <what> + by[0..nby)
 *           acreO_what: dn (style + DN or regex), filter, attrs[], val
 *           acreO_by:   dn / realdn subjects, dnattr, group, set, peername,
 *                       sockname, sockurl, domain, ssf*, mask, control
 *     notes[]                   directives ignored, warnings slapd prints
 *
 * Invariants
 *   - Everything hangs off the acreO_config talloc tree and is immutable
 *     once a parser returns; any number of threads may read it.
 *   - A configuration that slapd would refuse never yields a tree: the
 *     parser fails with ACREO_ERR_SYNTAX and the file, line and column of
 *     the offending token, and nothing of the input is kept.
 *   - Input has bounded cost: ACREO_MAX_* below cap lines, tokens,
 *     regexes, set expressions and include depth; PCRE2 patterns carry
 *     match and depth limits.
 *   - Mask arithmetic is slapd's bit for bit (ACREO_PRIV_*), including
 *     its quirks (the write bit is shared by add and delete).
 */
#ifndef ACRE_OPENLDAP_H
#define ACRE_OPENLDAP_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>

struct acreF_filter;

/* Error codes of this front end (private range; see the report to add
 * them to acre.h as ACRE_ERR_RULE_*). */
#define ACREO_ERR_SYNTAX (-30810) /* a rule or directive slapd rejects */
#define ACREO_ERR_IO     (-30811) /* a configuration file cannot be read */
#define ACREO_ERR_LIMIT                            \
    (-30812) /* a line, token, regex, set, include \
                nesting or rule count past a limit */

/* Limits on hostile input. */
#define ACREO_MAX_LINE          (1u << 20) /* bytes of one logical line */
#define ACREO_MAX_TOKEN         65536      /* bytes of one token */
#define ACREO_MAX_REGEX         8192       /* bytes of a <what> or val regex */
#define ACREO_MAX_WHO_REGEX     254        /* bytes of a <who> regex (slapd) */
#define ACREO_MAX_SET           8192       /* bytes of a set expression */
#define ACREO_MAX_SET_DEPTH     32         /* nesting of ( ) in a set */
#define ACREO_MAX_INCLUDE       16         /* nesting of include files */
#define ACREO_MAX_RULES         2000000    /* access rules in one config */
#define ACREO_REGEX_MATCH_LIMIT 100000     /* PCRE2 match limit */
#define ACREO_REGEX_DEPTH_LIMIT 1000       /* PCRE2 depth limit */
#define ACREO_EXPAND_MAX                                           \
    1023                      /* bytes of an expanded pattern; its \
                                 buffer holds one more (NUL) */
#define ACREO_MAX_MATCHES 100 /* $0..$99, as slapd's MAXREMATCHES */

/* ------------------------------------------------------------------------
 * Privilege masks -- slapd's slap_mask_t layout (slap.h), bit for bit.
 *
 *   0x001 0   0x002 d   0x004 x   0x008 c   0x010 s   0x020 r
 *   0x040 the write bit, qualified by 0x100 (add, a) and 0x200 (delete, z)
 *   0x080 m
 *   0x1000 LEVEL  the mask came from a level keyword (printing only)
 *   0x2000 ADD    "+letters": add to the current mask
 *   0x4000 SUB    "-letters": remove from the current mask
 *   0             invalid
 * A privilege p is granted by mask m iff (m & p) == p.
 */
#define ACREO_PRIV_NONE     0x0001u
#define ACREO_PRIV_DISCLOSE 0x0002u
#define ACREO_PRIV_AUTH     0x0004u
#define ACREO_PRIV_COMPARE  0x0008u
#define ACREO_PRIV_SEARCH   0x0010u
#define ACREO_PRIV_READ     0x0020u
#define ACREO_PRIV_WADD     0x0140u
#define ACREO_PRIV_WDEL     0x0240u
#define ACREO_PRIV_WRITE    0x0340u
#define ACREO_PRIV_MANAGE   0x0080u
#define ACREO_PRIV_MASK     0x0fffu
#define ACREO_PRIV_LEVEL    0x1000u
#define ACREO_PRIV_ADDITIVE 0x2000u
#define ACREO_PRIV_SUBTRACT 0x4000u

/* Levels: a level grants every privilege below it, plus the LEVEL flag. */
#define ACREO_LVL_NONE     (ACREO_PRIV_NONE | ACREO_PRIV_LEVEL)
#define ACREO_LVL_DISCLOSE (ACREO_PRIV_DISCLOSE | ACREO_LVL_NONE)
#define ACREO_LVL_AUTH     (ACREO_PRIV_AUTH | ACREO_LVL_DISCLOSE)
#define ACREO_LVL_COMPARE  (ACREO_PRIV_COMPARE | ACREO_LVL_AUTH)
#define ACREO_LVL_SEARCH   (ACREO_PRIV_SEARCH | ACREO_LVL_COMPARE)
#define ACREO_LVL_READ     (ACREO_PRIV_READ | ACREO_LVL_SEARCH)
#define ACREO_LVL_WADD     (ACREO_PRIV_WADD | ACREO_LVL_READ)
#define ACREO_LVL_WDEL     (ACREO_PRIV_WDEL | ACREO_LVL_READ)
#define ACREO_LVL_WRITE    (ACREO_PRIV_WRITE | ACREO_LVL_READ)
#define ACREO_LVL_MANAGE   (ACREO_PRIV_MANAGE | ACREO_LVL_WRITE)

/*
 * acreO_mask_parse -- slapd's str2accessmask: a level keyword (none,
 * disclose, auth, compare, search, read, add, delete, write, manage; any
 * case) or =/+/- followed by letters m w a z r s c x d 0.  s[0..n).
 * Returns the mask, or 0 (invalid).  Any thread.
 */
uint32_t acreO_mask_parse(const char *s, size_t n);

/*
 * acreO_mask_apply -- the mask after a clause with modifier `mod` applied
 * to `cur` (slapd's slap_acl_mask): ADD ors the privileges in, SUB takes
 * them out (both drop the flags), otherwise `mod` replaces `cur`.
 */
uint32_t acreO_mask_apply(uint32_t cur, uint32_t mod);

/*
 * acreO_mask_format -- slapd's accessmask2str(mask, buf, 1): "read(=rscxd)",
 * "=rsc", "=0", "+w", "none(=0)", "invalid", or "" for a mask without any
 * privilege.  buf must hold ACREO_MASK_BUF bytes; returns buf.
 */
#define ACREO_MASK_BUF 32
char *acreO_mask_format(uint32_t mask, char *buf);

/* The privilege a check asks for, as slapd's slap_access_t levels. */
enum acreO_access {
    ACREO_ACCESS_DISCLOSE = 1,
    ACREO_ACCESS_AUTH,
    ACREO_ACCESS_COMPARE,
    ACREO_ACCESS_SEARCH,
    ACREO_ACCESS_READ,
    ACREO_ACCESS_WADD,  /* add a value / an entry (a) */
    ACREO_ACCESS_WDEL,  /* delete a value / an entry (z) */
    ACREO_ACCESS_WRITE, /* both (w) */
    ACREO_ACCESS_MANAGE
};

/* acreO_access_priv -- the mask bits access `a` needs (0 when invalid). */
uint32_t acreO_access_priv(enum acreO_access a);

/* ------------------------------------------------------------------------
 * Source positions: `file` is not owned (the name the caller passed, or a
 * name inside the config tree); line and column are 1-based, 0 unknown.
 */
struct acreO_pos {
    const char *file;
    unsigned line;
    unsigned column;
};

/* A note: a directive that was ignored, or a warning slapd would print. */
struct acreO_note {
    struct acreO_pos pos;
    const char *text;
};

/* ------------------------------------------------------------------------
 * Regular expressions.  slapd compiles with regcomp(REG_EXTENDED |
 * REG_ICASE) and matches unanchored.  Here `code` is PCRE2 (8-bit, no
 * UTF: bytes, as slapd in the C locale) compiled with CASELESS, DOTALL
 * and DOLLAR_ENDONLY (POSIX '.' matches newline, '$' only at the end),
 * JIT-compiled when available, with ACREO_REGEX_* limits in `mctx`.
 * Every pattern was also accepted by the C library's regcomp with slapd's
 * flags, so the POSIX semantics stay available (the oracle uses them).
 */
struct acreO_regex {
    const char *pattern; /* the pattern slapd compiles (NUL-terminated) */
    size_t len;
    void *code;        /* pcre2_code_8 *, owned via talloc destructor */
    void *mctx;        /* pcre2_match_context_8 * with the limits */
    unsigned ncapture; /* capturing groups */
};

/* ------------------------------------------------------------------------
 * <what>
 */
enum acreO_dnstyle {
    ACREO_DN_ANY = 0, /* no dn part, "*", dn.subtree="", dn.regex=".*" */
    ACREO_DN_BASE,    /* dn=, dn.base=, dn.exact=, dn.baseObject= */
    ACREO_DN_ONE,     /* dn.one=, dn.onelevel= */
    ACREO_DN_SUBTREE, /* dn.sub=, dn.subtree= */
    ACREO_DN_CHILDREN,
    ACREO_DN_REGEX
};

enum acreO_attr_kind {
    ACREO_ATTR_TYPE,     /* name: the type and its subtypes with at least
                            the given options */
    ACREO_ATTR_EXACT,    /* -name: exactly this description */
    ACREO_ATTR_CLASS,    /* @oc, or a bare class name: what oc (and its
                            superclasses) requires or allows */
    ACREO_ATTR_NOT_CLASS /* !oc: everything else (entry, children too) */
};

#define ACREO_MAX_OPTIONS 8

struct acreO_attrspec {
    enum acreO_attr_kind kind;
    const char *text; /* as written */
    int type;         /* TYPE/EXACT: attribute id (entry and children
                         are attribute types), else -1 */
    unsigned nopts;   /* options, lowercased and sorted */
    const char *opts[ACREO_MAX_OPTIONS];
    int oc;         /* CLASS/NOT_CLASS: class id, else -1 */
    int extensible; /* the class is extensibleObject */
};

enum acreO_valstyle {
    ACREO_VAL_NONE = 0,
    ACREO_VAL_EXACT, /* val=, val.exact=, val.base=: by `rule` */
    ACREO_VAL_ONE,   /* DN syntax only */
    ACREO_VAL_SUBTREE,
    ACREO_VAL_CHILDREN,
    ACREO_VAL_REGEX /* on the normalised value */
};

struct acreO_val {
    enum acreO_valstyle style;
    struct acreO_pos pos;
    int rule;            /* EXACT: equality rule (match.h), the type's
                            unless val/<rule> named one */
    int dn_syntax;       /* the attribute has DN syntax: EXACT and the
                            scopes compare DNs */
    const uint8_t *norm; /* EXACT (not DN): asserted value normalised by
                            `rule`; DN styles: normalised DN text */
    size_t norm_len;
    const acre_dn *dn;     /* DN syntax: the parsed pattern */
    struct acreO_regex re; /* REGEX */
};

struct acreO_what {
    struct acreO_pos pos; /* of "to" */
    enum acreO_dnstyle dn_style;
    struct acreO_pos dn_pos;
    const acre_dn *dn;                 /* BASE ONE SUBTREE CHILDREN */
    struct acreO_regex dn_re;          /* REGEX */
    const struct acreF_filter *filter; /* NULL: none */
    const char *filter_text;
    int has_attrs; /* attrs= given (possibly empty list) */
    struct acreO_attrspec *attrs;
    unsigned nattrs;
    struct acreO_val val;
};

/* ------------------------------------------------------------------------
 * <who>: every part given in one "by" must hold.
 */
enum acreO_subject_kind {
    ACREO_SUBJ_NONE = 0,  /* no condition */
    ACREO_SUBJ_ANY,       /* *, dn.regex=.* */
    ACREO_SUBJ_ANONYMOUS, /* anonymous, dn.regex="" */
    ACREO_SUBJ_USERS,     /* users, dn, dn=*, dn.regex=.+ */
    ACREO_SUBJ_SELF,      /* self, self.level{n} */
    ACREO_SUBJ_BASE,      /* dn=, dn.exact=, dn.base= */
    ACREO_SUBJ_ONE,
    ACREO_SUBJ_SUBTREE,
    ACREO_SUBJ_CHILDREN,
    ACREO_SUBJ_LEVEL, /* dn.level{n}= */
    ACREO_SUBJ_REGEX, /* dn.regex=, $-expanded from <what>.  slapd
                         quirk: dn.regex=".+" (and kin) and dn.regex
                         without "=" are the regex "users", and
                         dn.regex="" the regex "anonymous" */
    ACREO_SUBJ_SUFFIX /* dn.expand=, dn.ip=, dn.ipv6=, dn.path=: slapd
                         normalises the DN and then only checks that
                         the requester's normalised DN ends with it */
};

/* A string pattern with $-substitutions from <what>: `tmpl` holds the
 * pattern as written; `expands` says whether expanding it substitutes
 * submatches ($n, ${n}, ${dn}, ${vn}; see acreO_expand).  One that does
 * not is expanded once at parse time where that matters ($$ -> $). */
struct acreO_template {
    const char *tmpl;
    size_t len;
    int expands;
};

/* One DN view of the requester: `dn` tests the authorisation DN, `realdn`
 * the authentication DN (the real... forms). */
struct acreO_subject {
    enum acreO_subject_kind kind;
    struct acreO_pos pos;
    const acre_dn *dn;            /* BASE..LEVEL without expand: normalised */
    struct acreO_template expand; /* ",expand" or dn.expand: substituted,
                                     then normalised, per check */
    int is_expand;
    struct acreO_regex re;               /* REGEX: compiled when it does not
                                            expand (re.code NULL otherwise) */
    struct acreO_template re_tmpl;       /* REGEX: the pattern as a template */
    int level;                           /* LEVEL: n; SELF: the self level */
    const struct acreO_attrspec *dnattr; /* dnattr=<attr> (realdnattr for
                                    realdn): kind TYPE, or NULL */
    int self; /* the <access> had "self" ("realself") */
};

/* peername, sockname, sockurl, domain */
enum acreO_str_style {
    ACREO_STR_NONE = 0,
    ACREO_STR_EXACT,  /* case-insensitive equality (path: exact bytes) */
    ACREO_STR_REGEX,  /* $-expanded, then a regex, case-insensitive */
    ACREO_STR_EXPAND, /* $-expanded, then EXACT */
    ACREO_STR_IP,     /* peername.ip=addr[%mask][{port}] */
    ACREO_STR_IPV6,   /* peername.ipv6=addr[%mask][{port}] */
    ACREO_STR_PATH,   /* peername.path= */
    ACREO_STR_SUBTREE /* domain.subtree= */
};

struct acreO_strmatch {
    enum acreO_str_style style;
    struct acreO_pos pos;
    struct acreO_template pat;  /* the pattern ("*" matches anything) */
    int any;                    /* the pattern is "*" */
    int expand;                 /* domain: ",expand" */
    struct acreO_regex re;      /* REGEX without substitutions */
    uint8_t addr[16], mask[16]; /* IP: 4 bytes used; IPV6: 16 */
    int port;                   /* IP/IPV6: -1 when not given */
};

struct acreO_group {
    struct acreO_pos pos;
    int expand;                 /* group.expand= (and legacy .regex) */
    const acre_dn *dn;          /* !expand: the group's DN */
    struct acreO_template tmpl; /* expand: substituted then normalised */
    int oc;                     /* class id (default groupOfNames) */
    struct acreO_attrspec at;   /* kind EXACT (default member) */
    int dynamic;                /* `at` is a subtype of labeledURI */
};

/* Set expressions (slapd's sets.c), evaluated left to right without
 * precedence: a | b & c is (a | b) & c. */
enum acreO_set_op {
    ACREO_SET_THIS,      /* the target entry's DN */
    ACREO_SET_USER,      /* the requester's authorisation DN */
    ACREO_SET_LITERAL,   /* [text]: a DN or an ldap:/// URL, not normalised */
    ACREO_SET_ATTR,      /* kid/attr, kid/attr* (transitive) */
    ACREO_SET_PARENT,    /* kid/-n */
    ACREO_SET_ANCESTORS, /* kid/-*: each DN and all its ancestors */
    ACREO_SET_UNION,     /* | */
    ACREO_SET_INTERSECT, /* & */
    ACREO_SET_CONCAT     /* + */
};

struct acreO_setnode {
    enum acreO_set_op op;
    const struct acreO_setnode *kid[2]; /* [0] operand / left, [1] right */
    const char *lit;                    /* LITERAL */
    size_t lit_len;
    const struct acreO_attrspec *ad; /* ATTR: kind EXACT (slapd reads
                                        that description exactly) */
    int entrydn;                     /* ATTR: ad is entryDN */
    int closure;                     /* ATTR: "*" */
    long level;                      /* PARENT */
};

struct acreO_set {
    struct acreO_pos pos;
    int expand;                       /* set.expand: substituted first and
                                         parsed per check (root NULL) */
    struct acreO_template text;       /* the expression as written */
    const struct acreO_setnode *root; /* NULL: expand, or invalid */
    int invalid;                      /* slapd accepts it but every check
                                         fails (syntax error found here) */
};

enum acreO_control { ACREO_STOP = 1, ACREO_CONTINUE, ACREO_BREAK };

struct acreO_by {
    struct acreO_pos pos; /* of "by" */
    struct acreO_subject dn, realdn;
    struct acreO_strmatch sockurl, domain, peername, sockname;
    struct acreO_group *group;                      /* NULL: none */
    struct acreO_set *set;                          /* NULL: none */
    unsigned ssf, transport_ssf, tls_ssf, sasl_ssf; /* 0: none */
    uint32_t mask; /* ACREO_PRIV_* with its flags */
    struct acreO_pos mask_pos;
    enum acreO_control control;
};

struct acreO_rule {
    struct acreO_pos pos; /* of the "access" directive or olcAccess value */
    unsigned index;       /* position in its list, from 0 */
    struct acreO_what what;
    struct acreO_by *by;
    unsigned nby;
};

/* ------------------------------------------------------------------------
 * Databases and the whole configuration
 */
struct acreO_db {
    struct acreO_pos pos; /* of "database" / the olcDatabase entry */
    const char *type;     /* "frontend", "mdb", "config", ... */
    int index;            /* {n} in cn=config, -1 frontend; else order */
    const acre_dn **suffix;
    unsigned nsuffix;
    const acre_dn *rootdn; /* NULL: none */
    struct acreO_rule *rules;
    unsigned nrules;
    int add_content_acl; /* add_content_acl on (recorded, unused) */
};

#define ACREO_CONFIG_MAGIC 0x6163726fu /* "acro" */

struct acreO_config {
    uint32_t magic;
    const acre_schema *schema; /* frozen */
    struct acreO_db frontend;  /* global rules; no suffix, no rootdn */
    struct acreO_db *dbs;
    unsigned ndbs;
    struct acreO_note *notes;
    unsigned nnotes;
};

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
 * Returns 0, ACREO_ERR_SYNTAX, ACREO_ERR_IO, ACREO_ERR_LIMIT,
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
                     const char *text, size_t len, struct acreO_config **out,
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
                         struct acreO_config **out, acre_diag *diag);

/*
 * acreO_db_for -- the database holding `dn`: the first, in order, one of
 * whose suffixes is dn or an ancestor of it; NULL when none.
 */
const struct acreO_db *acreO_db_for(const struct acreO_config *cfg,
                                    const acre_dn *dn);

/*
 * acreO_config_dump -- the configuration as text in the shape of slapd's
 * acl_unparse (one "access" line per rule, sections as "database",
 * "suffix", "rootdn"), a talloc string under ctx; NULL: out of memory.
 */
char *acreO_config_dump(void *ctx, const struct acreO_config *cfg);

/* ------------------------------------------------------------------------
 * Helpers shared by the front end and its evaluators
 */

/*
 * acreO_expand -- slapd's acl_string_expand: copy tmpl[0..len) to out
 * (NUL-terminated, at most ACREO_EXPAND_MAX bytes: out holds
 * ACREO_EXPAND_MAX + 1; truncated like slapd),
 * replacing $$ by $, $n and ${n} / ${dn} by DN submatch n, ${vn} by value
 * submatch n.  dn_off/val_off hold (start, end) pairs, -1 when unset;
 * dn_count/val_count say how many exist (slapd's nmatch).  A lone '$'
 * drops the characters after it up to the next digit, '$' or '{', and is
 * kept when it ends the pattern.  Returns 0, or -1 when a submatch number
 * is out of range or its source is NULL (slapd then fails the clause).
 */
int acreO_expand(const char *tmpl, size_t len, const char *dn_src,
                 const int (*dn_off)[2], int dn_count, const char *val_src,
                 const int (*val_off)[2], int val_count, char *out,
                 size_t *out_len);

/*
 * acreO_regex_normalise_dn -- slapd's acl_regex_normalized_dn: drop the
 * spaces after each unescaped ',' of a regex meant for DNs.  Appends the
 * result to a talloc string under ctx; returns it (NULL: out of memory).
 */
char *acreO_regex_normalise_dn(void *ctx, const char *s, size_t n);

/*
 * acreO_set_parse -- parse a set expression (sets.c grammar) against
 * schema.  Returns 0 with *out (talloc child of ctx), ACREO_ERR_SYNTAX
 * with *err_off the byte offset of the error, ACREO_ERR_LIMIT (too long
 * or too deep), or ACRE_ERR_NOMEM.
 */
int acreO_set_parse(void *ctx, const acre_schema *schema, const char *s,
                    size_t n, const struct acreO_setnode **out,
                    size_t *err_off);

/* An LDAP URL (RFC 4516) as libldap's ldap_url_parse() splits it. */
struct acreO_url {
    const char *host; /* "" when empty */
    const char *dn;   /* unescaped */
    const char **attrs;
    unsigned nattrs;
    int scope;          /* enum acre_scope; ACRE_SCOPE_BASE when absent */
    const char *filter; /* NULL when absent */
    unsigned nexts;
};

/*
 * acreO_url_parse -- split s[0..n) (ldap://, ldaps://, ldapi://, cldap://,
 * optionally "<...>" or "URL:"-prefixed).  Returns 0 with *out under ctx,
 * -1 when malformed, ACRE_ERR_NOMEM.
 */
int acreO_url_parse(void *ctx, const char *s, size_t n, struct acreO_url *out);

#endif /* ACRE_OPENLDAP_H */
