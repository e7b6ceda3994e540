/*
 * ir.h -- acre's intermediate form: what every rule language compiles to
 * and what the engine evaluates.  The compiler (compiler/) builds it from
 * rule text; the engine (engine/) never sees rule text, only this.
 *
 *   acreI_policy                the whole policy, one combining model
 *     schema                    frozen; every attribute / class id below
 *     model                     how rules combine (ACREI_MODEL_*)
 *     frontend: acreI_section   rules that apply everywhere after the
 *                               section's own (OpenLDAP's global rules)
 *     sections[0..n)            naming contexts in order: suffixes, an
 *       suffix[], rootdn,       administrator who bypasses the rules,
 *       rules[0..nrules)        and the section's rules in order
 *         acreI_rule = scope + target (acreI_what) + clauses[0..nby)
 *           acreI_what:   scope (DN + style, or a regex), filter,
 *                         attribute list, value condition
 *           acreI_clause: subject conditions (DN views, dnattr, group,
 *                         set, connection, ssf), rights (a privilege
 *                         mask with its =/+/- modifier), control
 *     notes[]                   what the front end ignored or warns about
 *     collect[]                 slapo-collect "collectinfo" lines
 *
 * Rights are masks in slapd's slap_mask_t layout (ACREI_PRIV_*), the
 * richest model among the dialects; others map onto it.  Conditions that
 * a rule text cannot give statically (substitutions from a regex scope,
 * ",expand" forms) are kept as templates and substituted per check.
 *
 * Invariants
 *   - Everything hangs off the acreI_policy talloc tree and is immutable
 *     once built; any number of threads may read it.
 *   - Compiled regexes are PCRE2 with match and depth limits; a limit hit
 *     while evaluating denies.
 */
#ifndef ACRE_IR_H
#define ACRE_IR_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>

struct acreF_filter;

#define ACREI_REGEX_MATCH_LIMIT 100000 /* PCRE2 match limit */
#define ACREI_REGEX_DEPTH_LIMIT 1000   /* PCRE2 depth limit */
#define ACREI_EXPAND_MAX                                           \
    1023                      /* bytes of an expanded pattern; its \
                                 buffer holds one more (NUL) */
#define ACREI_MAX_MATCHES 100 /* $0..$99, as slapd's MAXREMATCHES */

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
#define ACREI_PRIV_NONE     0x0001u
#define ACREI_PRIV_DISCLOSE 0x0002u
#define ACREI_PRIV_AUTH     0x0004u
#define ACREI_PRIV_COMPARE  0x0008u
#define ACREI_PRIV_SEARCH   0x0010u
#define ACREI_PRIV_READ     0x0020u
#define ACREI_PRIV_WADD     0x0140u
#define ACREI_PRIV_WDEL     0x0240u
#define ACREI_PRIV_WRITE    0x0340u
#define ACREI_PRIV_MANAGE   0x0080u
#define ACREI_PRIV_MASK     0x0fffu
#define ACREI_PRIV_LEVEL    0x1000u
#define ACREI_PRIV_ADDITIVE 0x2000u
#define ACREI_PRIV_SUBTRACT 0x4000u

/* Levels: a level grants every privilege below it, plus the LEVEL flag. */
struct acreI_level {
    const char *name; /* the keyword: "none" ... "manage" */
    uint32_t mask;    /* ACREI_LVL_* */
};

/* the level keywords, lowest first */
#define ACREI_NLEVELS 10
extern const struct acreI_level acreI_levels[ACREI_NLEVELS];

#define ACREI_LVL_NONE     (ACREI_PRIV_NONE | ACREI_PRIV_LEVEL)
#define ACREI_LVL_DISCLOSE (ACREI_PRIV_DISCLOSE | ACREI_LVL_NONE)
#define ACREI_LVL_AUTH     (ACREI_PRIV_AUTH | ACREI_LVL_DISCLOSE)
#define ACREI_LVL_COMPARE  (ACREI_PRIV_COMPARE | ACREI_LVL_AUTH)
#define ACREI_LVL_SEARCH   (ACREI_PRIV_SEARCH | ACREI_LVL_COMPARE)
#define ACREI_LVL_READ     (ACREI_PRIV_READ | ACREI_LVL_SEARCH)
#define ACREI_LVL_WADD     (ACREI_PRIV_WADD | ACREI_LVL_READ)
#define ACREI_LVL_WDEL     (ACREI_PRIV_WDEL | ACREI_LVL_READ)
#define ACREI_LVL_WRITE    (ACREI_PRIV_WRITE | ACREI_LVL_READ)
#define ACREI_LVL_MANAGE   (ACREI_PRIV_MANAGE | ACREI_LVL_WRITE)


/*
 * acreI_mask_apply -- the mask after a clause with modifier `mod` applied
 * to `cur` (slapd's slap_acl_mask): ADD ors the privileges in, SUB takes
 * them out (both drop the flags), otherwise `mod` replaces `cur`.
 */
uint32_t acreI_mask_apply(uint32_t cur, uint32_t mod);

/*
 * acreI_mask_format -- slapd's accessmask2str(mask, buf, 1): "read(=rscxd)",
 * "=rsc", "=0", "+w", "none(=0)", "invalid", or "" for a mask without any
 * privilege.  buf must hold ACRE_MASK_BUF bytes (acre.h); returns buf.
 */
char *acreI_mask_format(uint32_t mask, char *buf);

/* The privilege a check asks for, as slapd's slap_access_t levels. */
enum acreI_access {
    ACREI_ACCESS_DISCLOSE = 1,
    ACREI_ACCESS_AUTH,
    ACREI_ACCESS_COMPARE,
    ACREI_ACCESS_SEARCH,
    ACREI_ACCESS_READ,
    ACREI_ACCESS_WADD,  /* add a value / an entry (a) */
    ACREI_ACCESS_WDEL,  /* delete a value / an entry (z) */
    ACREI_ACCESS_WRITE, /* both (w) */
    ACREI_ACCESS_MANAGE
};

/* acreI_access_priv -- the mask bits access `a` needs (0 when invalid). */
uint32_t acreI_access_priv(enum acreI_access a);

/* ------------------------------------------------------------------------
 * Source positions: `file` is not owned (the name the caller passed, or a
 * name inside the config tree); line and column are 1-based, 0 unknown.
 */
struct acreI_pos {
    const char *file;
    unsigned line;
    unsigned column;
};

/* A position inside one rule: its file is the rule's (acreI_rule.pos;
 * every part of a rule comes from the one file), so only the line and
 * column are kept (acreI_pos_in gives the whole position). */
struct acreI_lc {
    unsigned line;
    unsigned column;
};

static inline struct acreI_lc
acreI_lc_of(struct acreI_pos p)
{
    struct acreI_lc lc = {p.line, p.column};
    return lc;
}

/* A note: a directive that was ignored, or a warning slapd would print. */
struct acreI_note {
    struct acreI_pos pos;
    const char *text;
};

/*
 * A "# acre-lint: ..." comment line (acre_lint's silencing), kept by the
 * front end as its lexer meets it: `text` is the physical line after its
 * '#' (without CR LF, NUL-terminated), `end` the last line of the run of
 * consecutive physical lines starting with '#' that holds it (0 while the
 * file is read).  acre_lint reads nothing else of a comment.
 */
struct acreI_lintmark {
    const char *file;
    const char *text;
    size_t len;
    unsigned end;
};

/*
 * A comment line of a slapd.conf that took in the physical lines after it
 * (indented ones, or any line after a trailing '\'): slapd's fp_getline
 * joins them to the comment and ignores the whole.  Kept by the front end
 * for acre_lint: `text` is the first non-blank byte taken in, `rule` the
 * "access" directive the logical line before the comment began with
 * (line 0: it was no access directive), `by` whether the text taken in
 * starts with the word "by" (a clause cut off its rule).
 */
struct acreI_swallow {
    struct acreI_pos comment, text, rule;
    int by;
};

/* ------------------------------------------------------------------------
 * Regular expressions.  slapd compiles with regcomp(REG_EXTENDED |
 * REG_ICASE) and matches unanchored.  Here `code` is PCRE2 (8-bit, no
 * UTF: bytes, as slapd in the C locale) compiled with CASELESS, DOTALL
 * and DOLLAR_ENDONLY (POSIX '.' matches newline, '$' only at the end),
 * JIT-compiled when available, with ACREO_REGEX_* limits in `mctx`.
 * Every pattern was also accepted by the C library's regcomp with slapd's
 * flags, so the POSIX semantics stay available: where PCRE2's submatches
 * may differ from slapd's (ACREI_RE_POSIX) the engine takes them from
 * regexec, on a regex_t compiled from `pattern` (engine/eval_regex.c).
 */
/* acreI_regex.flags */
#define ACREI_RE_ALT     0x1u  /* an alternation '|' */
#define ACREI_RE_BACKREF 0x2u  /* a back-reference \1..\9 */
#define ACREI_RE_POSIX   0x4u  /* submatches from regexec: ALT, no BACKREF */
#define ACREI_RE_WORD    0x8u  /* a word anchor: \b \B \< \> */
#define ACREI_RE_EXACT   0x10u /* '^', the tail, '$': nothing else */

struct acreI_regex {
    const char *pattern; /* the pattern slapd compiles (NUL-terminated) */
    size_t len;
    void *code;        /* pcre2_code_8 *, owned via talloc destructor */
    void *mctx;        /* pcre2_match_context_8 * with the limits */
    unsigned ncapture; /* capturing groups */
    unsigned flags;    /* ACREI_RE_* */
    uint32_t cost;     /* POSIX: what regexec may pay per byte it reads,
                          in the units of ACREV_POSIX_BUDGET: NFA nodes
                          (estimated) + ACREI_POSIX_STATE, x
                          ACREI_POSIX_WORD with a word anchor */
    uint32_t tail;     /* bytes before the final '$' that every match ends
                          with: plain literal bytes, none repeated, in a
                          pattern with no '|' outside a group (0: none) */
};

/* The part of a DFA state glibc's regexec builds per byte read that does
 * not grow with the pattern: a 256-entry transition table. */
#define ACREI_POSIX_STATE 256u
/* Word anchors make glibc split its DFA states by the byte before. */
#define ACREI_POSIX_WORD  3u

/* ------------------------------------------------------------------------
 * <what>
 */
enum acreI_dnstyle {
    ACREI_DN_ANY = 0, /* no dn part, "*", dn.subtree="", dn.regex=".*" */
    ACREI_DN_BASE,    /* dn=, dn.base=, dn.exact=, dn.baseObject= */
    ACREI_DN_ONE,     /* dn.one=, dn.onelevel= */
    ACREI_DN_SUBTREE, /* dn.sub=, dn.subtree= */
    ACREI_DN_CHILDREN,
    ACREI_DN_REGEX
};

enum acreI_attr_kind {
    ACREI_ATTR_TYPE,     /* name: the type and its subtypes with at least
                            the given options */
    ACREI_ATTR_EXACT,    /* -name: exactly this description */
    ACREI_ATTR_CLASS,    /* @oc, or a bare class name: what oc (and its
                            superclasses) requires or allows */
    ACREI_ATTR_NOT_CLASS /* !oc: everything else (entry, children too) */
};

#define ACREI_MAX_OPTIONS 8

struct acreI_attrspec {
    enum acreI_attr_kind kind;
    const char *text; /* as written */
    int type;         /* TYPE/EXACT: attribute id (entry and children
                         are attribute types), else -1 */
    unsigned nopts;   /* options, lowercased and sorted */
    const char *opts[ACREI_MAX_OPTIONS];
    int oc;         /* CLASS/NOT_CLASS: class id, else -1 */
    int extensible; /* the class is extensibleObject */
};

enum acreI_valstyle {
    ACREI_VAL_NONE = 0,
    ACREI_VAL_EXACT, /* val=, val.exact=, val.base=: by `rule` */
    ACREI_VAL_ONE,   /* DN syntax only */
    ACREI_VAL_SUBTREE,
    ACREI_VAL_CHILDREN,
    ACREI_VAL_REGEX /* on the normalised value */
};

struct acreI_val {
    enum acreI_valstyle style;
    struct acreI_pos pos;
    int rule;            /* EXACT: equality rule (match.h), the type's
                            unless val/<rule> named one */
    int dn_syntax;       /* the attribute has DN syntax: EXACT and the
                            scopes compare DNs */
    const uint8_t *norm; /* EXACT (not DN): asserted value normalised by
                            `rule`; DN styles: normalised DN text */
    size_t norm_len;
    const acre_dn *dn;     /* DN syntax: the parsed pattern */
    struct acreI_regex re; /* REGEX */
};

struct acreI_what {
    struct acreI_lc pos;       /* of "to" */
    struct acreI_lc dn_pos;    /* of the dn pattern */
    struct acreI_lc attrs_pos; /* of the first attrs= value */
    enum acreI_dnstyle dn_style;
    int has_attrs;                     /* attrs= given (possibly empty list) */
    const acre_dn *dn;                 /* BASE ONE SUBTREE CHILDREN */
    struct acreI_regex *dn_re;         /* REGEX (acreI_dn_re), else NULL */
    const struct acreF_filter *filter; /* NULL: none */
    const char *filter_text;
    struct acreI_attrspec *attrs;
    unsigned nattrs;
    struct acreI_val *val; /* NULL: none (acreI_val) */
};

/* acreI_dn_re, acreI_val -- the target regex and the value condition of
 * w (all zero, style ACREI_VAL_NONE, when it has none). */
extern const struct acreI_regex acreI_no_regex;
extern const struct acreI_val acreI_no_val;

static inline const struct acreI_regex *
acreI_dn_re(const struct acreI_what *w)
{
    return w->dn_re ? w->dn_re : &acreI_no_regex;
}

static inline const struct acreI_val *
acreI_val(const struct acreI_what *w)
{
    return w->val ? w->val : &acreI_no_val;
}

/*
 * The attrs= list test (slapd's ad_inlist), the one copy the evaluator,
 * the table builder and lint share so that they cannot disagree about
 * what a rule targets.  The description tested is a type and its options;
 * the mode says how much is known of the options.
 */
enum acreI_opts_mode {
    /* the options are d->opts, exactly (none when d->nopts is 0): what
     * slapd decides (evaluation; the tables, for descriptions without) */
    ACREI_OPTS_KNOWN = 0,
    /* some options, not known (d->opts unused): a list item with options
     * takes the type as if it had none -- a superset (lint, the rule that
     * may be covered) */
    ACREI_OPTS_SOME_WIDE,
    /* some options, not known: list items with options take nothing -- a
     * subset (lint, the rules that cover) */
    ACREI_OPTS_SOME_NARROW
};

struct acreI_desc {
    int type; /* attribute type id */
    unsigned nopts;
    const char *const *opts; /* lowercased, sorted (KNOWN only) */
    const uint32_t *opt_len;
};

/*
 * acreI_attrs_take -- does the attrs= list of w take description d?  An
 * item "!oc" decides at once, as in slapd; an absent list is not looked
 * at (callers test w->has_attrs).  The schema is frozen.
 */
int acreI_attrs_take(const acre_schema *s, const struct acreI_what *w,
                     const struct acreI_desc *d, enum acreI_opts_mode mode);

/* ------------------------------------------------------------------------
 * <who>: every part given in one "by" must hold.
 */
enum acreI_subject_kind {
    ACREI_SUBJ_NONE = 0,  /* no condition */
    ACREI_SUBJ_ANY,       /* *, dn.regex=.* */
    ACREI_SUBJ_ANONYMOUS, /* anonymous, dn.regex="" */
    ACREI_SUBJ_USERS,     /* users, dn, dn=*, dn.regex=.+ */
    ACREI_SUBJ_SELF,      /* self, self.level{n} */
    ACREI_SUBJ_BASE,      /* dn=, dn.exact=, dn.base= */
    ACREI_SUBJ_ONE,
    ACREI_SUBJ_SUBTREE,
    ACREI_SUBJ_CHILDREN,
    ACREI_SUBJ_LEVEL, /* dn.level{n}= */
    ACREI_SUBJ_REGEX, /* dn.regex=, $-expanded from <what>.  slapd
                         quirk: dn.regex=".+" (and kin) and dn.regex
                         without "=" are the regex "users", and
                         dn.regex="" the regex "anonymous" */
    ACREI_SUBJ_SUFFIX /* dn.expand=, dn.ip=, dn.ipv6=, dn.path=: slapd
                         normalises the DN and then only checks that
                         the requester's normalised DN ends with it */
};

/* A string pattern with $-substitutions from <what>: `tmpl` holds the
 * pattern as written; `expands` says whether expanding it substitutes
 * submatches ($n, ${n}, ${dn}, ${vn}; see acreI_expand).  One that does
 * not is expanded once at parse time where that matters ($$ -> $). */
struct acreI_template {
    const char *tmpl;
    size_t len;
    int expands;
};

/* The patterns of a subject that a regex or ",expand" subject has, apart
 * so that the common subjects (a DN, users, self...) stay small.  All
 * zero: none. */
struct acreI_subject_pat {
    struct acreI_template expand;  /* ",expand" or dn.expand: substituted,
                                      then normalised, per check */
    struct acreI_regex re;         /* REGEX: compiled when it does not
                                      expand (re.code NULL otherwise) */
    struct acreI_template re_tmpl; /* REGEX: the pattern as a template */
};

/* One DN view of the requester: `dn` tests the authorisation DN, `realdn`
 * the authentication DN (the real... forms). */
struct acreI_subject {
    uint8_t kind;      /* enum acreI_subject_kind */
    uint8_t is_expand; /* pat->expand is the DN, substituted per check */
    uint8_t self;      /* the <access> had "self" ("realself") */
    int level;         /* LEVEL: n; SELF: the self level */
    struct acreI_lc pos;
    const acre_dn *dn;             /* BASE..LEVEL without expand: normalised */
    struct acreI_subject_pat *pat; /* NULL: none (acreI_pat) */
    const struct acreI_attrspec *dnattr; /* dnattr=<attr> (realdnattr for
                                    realdn): kind TYPE, or NULL */
};

/* acreI_pat -- the patterns of subject s (all zero when it has none). */
extern const struct acreI_subject_pat acreI_no_pat;

static inline const struct acreI_subject_pat *
acreI_pat(const struct acreI_subject *s)
{
    return s->pat ? s->pat : &acreI_no_pat;
}

/* peername, sockname, sockurl, domain */
enum acreI_str_style {
    ACREI_STR_NONE = 0,
    ACREI_STR_EXACT,  /* case-insensitive equality (path: exact bytes) */
    ACREI_STR_REGEX,  /* $-expanded, then a regex, case-insensitive */
    ACREI_STR_EXPAND, /* $-expanded, then EXACT */
    ACREI_STR_IP,     /* peername.ip=addr[%mask][{port}] */
    ACREI_STR_IPV6,   /* peername.ipv6=addr[%mask][{port}] */
    ACREI_STR_PATH,   /* peername.path= */
    ACREI_STR_SUBTREE /* domain.subtree= */
};

struct acreI_strmatch {
    enum acreI_str_style style;
    struct acreI_pos pos;
    struct acreI_template pat;  /* the pattern ("*" matches anything) */
    int any;                    /* the pattern is "*" */
    int expand;                 /* domain: ",expand" */
    struct acreI_regex re;      /* REGEX without substitutions */
    uint8_t addr[16], mask[16]; /* IP: 4 bytes used; IPV6: 16 */
    int port;                   /* IP/IPV6: -1 when not given */
};

struct acreI_group {
    struct acreI_pos pos;
    int expand;                 /* group.expand= (and legacy .regex) */
    const acre_dn *dn;          /* !expand: the group's DN */
    struct acreI_template tmpl; /* expand: substituted then normalised */
    int oc;                     /* class id (default groupOfNames) */
    struct acreI_attrspec at;   /* kind EXACT (default member) */
    int dynamic;                /* `at` is a subtype of labeledURI */
};

/* Set expressions (slapd's sets.c), evaluated left to right without
 * precedence: a | b & c is (a | b) & c. */
enum acreI_set_op {
    ACREI_SET_THIS,      /* the target entry's DN */
    ACREI_SET_USER,      /* the requester's authorisation DN */
    ACREI_SET_LITERAL,   /* [text]: a DN or an ldap:/// URL, not normalised */
    ACREI_SET_ATTR,      /* kid/attr, kid/attr* (transitive) */
    ACREI_SET_PARENT,    /* kid/-n */
    ACREI_SET_ANCESTORS, /* kid/-*: each DN and all its ancestors */
    ACREI_SET_UNION,     /* | */
    ACREI_SET_INTERSECT, /* & */
    ACREI_SET_CONCAT     /* + */
};

struct acreI_setnode {
    enum acreI_set_op op;
    const struct acreI_setnode *kid[2]; /* [0] operand / left, [1] right */
    const char *lit;                    /* LITERAL */
    size_t lit_len;
    const struct acreI_attrspec *ad; /* ATTR: kind EXACT (slapd reads
                                        that description exactly) */
    int entrydn;                     /* ATTR: ad is entryDN */
    int closure;                     /* ATTR: "*" */
    long level;                      /* PARENT */
};

struct acreI_set {
    struct acreI_pos pos;
    int expand;                       /* set.expand: substituted first and
                                         parsed per check (root NULL) */
    struct acreI_template text;       /* the expression as written */
    const struct acreI_setnode *root; /* NULL: expand, or invalid */
    int invalid;                      /* slapd accepts it but every check
                                         fails (syntax error found here) */
};

enum acreI_control { ACREI_STOP = 1, ACREI_CONTINUE, ACREI_BREAK };

/* The conditions of a "by" clause that few policies use: apart, so that
 * a clause without them stays small (100,000 rules of three clauses each
 * are common).  All zero: none of them. */
struct acreI_clause_rare {
    struct acreI_subject realdn;
    struct acreI_strmatch sockurl, domain, peername, sockname;
    unsigned transport_ssf, tls_ssf, sasl_ssf; /* 0: none */
};

/* A clause's group, set and rare conditions: apart, so that a clause
 * with none of them (most) holds one NULL pointer for the three. */
struct acreI_clause_ext {
    struct acreI_clause_rare *rare; /* NULL: none of them (acreI_rare) */
    struct acreI_group *group;      /* NULL: none */
    struct acreI_set *set;          /* NULL: none */
};

struct acreI_clause {
    struct acreI_lc pos;      /* of "by" */
    struct acreI_lc mask_pos; /* of the access */
    struct acreI_subject dn;
    struct acreI_clause_ext *ext; /* NULL: no group, set or rare part */
    unsigned ssf;                 /* 0: none */
    uint32_t mask;                /* ACREI_PRIV_* with its flags */
    enum acreI_control control;
};

/* acreI_rare -- the rare conditions of clause c (all zero when it has
 * none). */
extern const struct acreI_clause_rare acreI_no_rare;

static inline const struct acreI_clause_rare *
acreI_rare(const struct acreI_clause *c)
{
    return c->ext && c->ext->rare ? c->ext->rare : &acreI_no_rare;
}

/* acreI_group, acreI_set -- the group and the set of clause c, NULL when
 * it has none. */
static inline const struct acreI_group *
acreI_group(const struct acreI_clause *c)
{
    return c->ext ? c->ext->group : NULL;
}

static inline const struct acreI_set *
acreI_set(const struct acreI_clause *c)
{
    return c->ext ? c->ext->set : NULL;
}

struct acreI_rule {
    struct acreI_pos pos; /* of the "access" directive or olcAccess value */
    unsigned index;       /* position in its list, from 0 */
    unsigned nby;
    struct acreI_what what;
    struct acreI_clause *by;
};

/* acreI_pos_in -- the whole position of lc, a position inside rule r. */
static inline struct acreI_pos
acreI_pos_in(const struct acreI_rule *r, struct acreI_lc lc)
{
    struct acreI_pos p = {r->pos.file, lc.line, lc.column};
    return p;
}

/* ------------------------------------------------------------------------
 * Search limits (slapd's sizelimit, timelimit, limits; olcSizeLimit,
 * olcTimeLimit, olcLimits): entries and seconds.  ACREI_UNLIMITED (or any
 * negative value) is none; a hard limit of 0 is "the soft one".  Recorded
 * by the compiler, applied by acre_search_limits (engine/limits.c).
 */
#define ACREI_UNLIMITED         (-1L)
#define ACREI_DEFAULT_SIZELIMIT 500L  /* slapd's SLAPD_DEFAULT_SIZELIMIT */
#define ACREI_DEFAULT_TIMELIMIT 3600L /* slapd's SLAPD_DEFAULT_TIMELIMIT */

struct acreI_limits {
    long size_soft, size_hard, time_soft, time_hard;
    long size_unchecked; /* size.unchecked: none unless negative; 0
                            "disabled"; else a bound on back-mdb's index
                            candidates (acre_search: engine/filter_cand.c) */
};

/* One "index ATTRS [TYPES]" attribute of a back-mdb database (olcDbIndex):
 * what back-mdb's mdb_attr_index_config records.  The index types are
 * slapd's SLAP_INDEX_* bits; a search's candidate count, which
 * size.unchecked bounds, depends on them (engine/filter_cand.c). */
#define ACREI_IDX_PRESENT      0x0002u
#define ACREI_IDX_EQUALITY     0x0004u
#define ACREI_IDX_APPROX       0x0008u
#define ACREI_IDX_SUBSTR       0x0010u
#define ACREI_IDX_SUB_INIT     0x0110u
#define ACREI_IDX_SUB_ANY      0x0210u
#define ACREI_IDX_SUB_FINAL    0x0410u
#define ACREI_IDX_NOSUBTYPES   0x1000u
#define ACREI_IDX_NOTAGS       0x2000u
#define ACREI_IDX_HAS(mask, t) (((mask) & (t)) == (t))

struct acreI_index {
    int type;         /* attribute id */
    const char *opts; /* its options, lower-cased, sorted, ';'-joined ("") */
    unsigned mask;    /* ACREI_IDX_* */
};

enum acreI_limsel {
    ACREI_LIMSEL_ANY = 1,  /* * (also dn=*, dn.regex=.*) */
    ACREI_LIMSEL_ANON,     /* anonymous */
    ACREI_LIMSEL_USERS,    /* users: any bound requester */
    ACREI_LIMSEL_EXACT,    /* dn[.self|.this][.exact|.base]=DN */
    ACREI_LIMSEL_ONE,      /* dn[.self|.this].onelevel=DN */
    ACREI_LIMSEL_SUB,      /* dn[.self|.this].subtree=DN */
    ACREI_LIMSEL_CHILDREN, /* dn[.self|.this].children=DN */
    ACREI_LIMSEL_REGEX,    /* dn[.self|.this].regex=P */
    ACREI_LIMSEL_GROUP     /* group[/oc[/at]]=DN: the requester a member */
};

/* One "limits SELECTOR LIMIT..." rule: the first whose selector matches
 * gives its limits (slapd's limits_get).  A dn selector looks at the
 * requester's DN, or with .this at the search's base. */
struct acreI_limrule {
    struct acreI_pos pos;
    enum acreI_limsel sel;
    int on_base;                     /* dn.this: the base, not the requester */
    const acre_dn *dn;               /* the DN selectors' pattern, else NULL */
    struct acreI_regex re;           /* REGEX: slapd's pattern, as written */
    const struct acreI_group *group; /* GROUP (never .expand), else NULL */
    struct acreI_limits lim;
};

/* ------------------------------------------------------------------------
 * Sections and the whole policy
 */
struct acreI_section {
    struct acreI_pos pos; /* of "database" / the olcDatabase entry */
    const char *type;     /* "frontend", "mdb", "config", ... */
    int index;            /* {n} in cn=config, -1 frontend; else order */
    const acre_dn **suffix;
    unsigned nsuffix;
    const acre_dn *rootdn; /* NULL: none */
    struct acreI_rule *rules;
    unsigned nrules;
    int add_content_acl;        /* add_content_acl on (recorded, unused) */
    int subordinate;            /* "subordinate" (olcSubordinate): glued to the
                                   database above it, whose searches reach it */
    struct acreI_limits limits; /* sizelimit, timelimit (defaults) */
    struct acreI_limrule *limrules; /* "limits" rules, in order */
    unsigned nlimrules;
    struct acreI_index *idx; /* "index" attributes (back-mdb), in order */
    unsigned nidx;
    unsigned idx_default; /* "index default": the mask of a bare name */
};

/*
 * Patterns that a check substitutes ($n, ",expand") become rule text only
 * then; the engine hands that text back to the dialect's own compiler
 * through these hooks (slapd too compiles them per check), so no parser
 * lives in the engine.  Both allocate under ctx.
 */
struct acreI_hooks {
    /* compile regex p[0..n) with the dialect's semantics into *re */
    int (*regex_compile)(void *ctx, const char *p, size_t n,
                         struct acreI_regex *re, const char **why);
    /* parse set expression p[0..n) */
    int (*set_parse)(void *ctx, const acre_schema *schema, const char *p,
                     size_t n, const struct acreI_setnode **out,
                     size_t *err_off);
};

/*
 * slapo-collect (OpenLDAP's collect overlay): "collectinfo DN attrs" under
 * "overlay collect".  The attributes of entry `dn` appear in every entry
 * strictly below it that the overlay's database returns, each one read
 * on the source entry first (slapd's backend_attribute with read).  Kept
 * in the order slapd walks them: by normalised DN length, longest first,
 * ties in configuration order (collect.c's insert_ordered), each
 * database's list before the global one.
 */
struct acreI_collect {
    struct acreI_pos pos;
    int db;            /* index in dbs[] of its database; -1: global */
    const acre_dn *dn; /* the source entry */
    struct acreI_attrspec *attrs; /* kind EXACT: descriptions, in order */
    unsigned nattrs;
};

enum acreI_model {
    ACREI_MODEL_FIRST_MATCH = 1, /* ordered, first matching rule decides,
                                    with stop / continue / break
                                    (OpenLDAP) */
    ACREI_MODEL_ACI              /* unordered, deny overrides allow (ACI
                                    v3: ir_aci.h, in acreI_policy.aci) */
};

struct acreI_aci_set;

#define ACREI_POLICY_MAGIC 0x6163726fu /* "acro" */

/*
 * The suffix index: every distinct suffix DN of the databases, with the
 * first database (lowest index in dbs[]) that has it, in an open-addressing
 * table keyed by the suffix's own ancestry hash h[depth].  A DN's database
 * is found with one probe per ancestor (acreI_section_for), so compiling
 * n databases is not quadratic.  A hash only proposes: a hit is confirmed
 * by comparing the normalised bytes.
 *
 *   slot[cap]: { h, suffix, db }   cap a power of two (or 0), n <= cap / 2
 */
struct acreI_sfx_slot {
    uint64_t h;
    const acre_dn *dn; /* NULL: empty slot */
    unsigned db;       /* index in dbs[] */
};

struct acreI_sfx_index {
    struct acreI_sfx_slot *slot;
    size_t cap, n;
};

struct acreI_policy {
    uint32_t magic;
    enum acreI_model model;
    const struct acreI_hooks *hooks;
    const acre_schema *schema;     /* frozen */
    struct acreI_section frontend; /* global rules; no suffix, no rootdn */
    struct acreI_section *dbs;
    unsigned ndbs;
    struct acreI_note *notes;
    unsigned nnotes;
    struct acreI_lintmark *lintmarks; /* in the order read, per file */
    unsigned nlintmarks;
    struct acreI_swallow *swallowed; /* in the order read */
    unsigned nswallowed;
    struct acreI_collect *collect; /* slapo-collect, in slapd's order */
    unsigned ncollect;
    struct acreI_sfx_index sfx;      /* suffixes of dbs[] (acreI_suffix_add) */
    const struct acreI_aci_set *aci; /* ACREI_MODEL_ACI: the ACIs (and no
                                        section has rules) */
};


/*
 * acreI_section_for -- the database holding `dn`: the first, in order, one of
 * whose suffixes is dn or an ancestor of it (slapd's select_backend); NULL
 * when none.  At most depth(dn) + 1 probes of cfg->sfx, whatever the number
 * of databases.  Any thread (reads cfg only).
 */
const struct acreI_section *acreI_section_for(const struct acreI_policy *cfg,
                                              const acre_dn *dn);

/*
 * acreI_superior -- the database the glued subordinate s hangs from
 * (slapd's glue_sub_attach): the first one after s in configuration order
 * that is no subordinate itself and whose first suffix holds s's first
 * suffix; NULL when none does (slapd refuses to start: the compiler
 * refuses such a policy).  Any thread (reads cfg only).
 */
const struct acreI_section *acreI_superior(const struct acreI_policy *cfg,
                                           const struct acreI_section *s);

/*
 * acreI_select_db -- the database slapd selects for an operation on dn
 * that glue runs (select_backend with noSubs: a search's limits, a set's
 * ldap:/// search): the first configured that holds dn and is no glued
 * subordinate (its glue overlay then reaches the subordinates), or NULL.
 */
const struct acreI_section *acreI_select_db(const struct acreI_policy *cfg,
                                            const acre_dn *dn);

/*
 * acreI_in_glue -- is s the database top, or a subordinate glued below it
 * (top: acreI_select_db's)?  What a search that top runs reaches.
 */
int acreI_in_glue(const struct acreI_policy *cfg, const struct acreI_section *s,
                  const struct acreI_section *top);

/*
 * acreI_suffix_add -- record that database dbs[db] has suffix `dn` (which
 * must outlive cfg), in cfg->sfx, allocated under cfg.  Every suffix of
 * every database must be added, or acreI_section_for does not see it.
 * Returns 0 or ACRE_ERR_NOMEM (the index unchanged).  Compile time only.
 */
int acreI_suffix_add(struct acreI_policy *cfg, unsigned db, const acre_dn *dn);


/*
 * acreI_expand -- slapd's acl_string_expand: copy tmpl[0..len) to out
 * (NUL-terminated, at most ACREI_EXPAND_MAX bytes: out holds
 * ACREI_EXPAND_MAX + 1; truncated like slapd),
 * replacing $$ by $, $n and ${n} / ${dn} by DN submatch n, ${vn} by value
 * submatch n.  dn_off/val_off hold (start, end) pairs, -1 when unset;
 * dn_count/val_count say how many exist (slapd's nmatch).  A lone '$'
 * drops the characters after it up to the next digit, '$' or '{', and is
 * kept when it ends the pattern.  Returns 0, or -1 when a submatch number
 * is out of range or its source is NULL (slapd then fails the clause).
 */
int acreI_expand(const char *tmpl, size_t len, const char *dn_src,
                 const int (*dn_off)[2], int dn_count, const char *val_src,
                 const int (*val_off)[2], int val_count, char *out,
                 size_t *out_len);

#endif /* ACRE_IR_H */
