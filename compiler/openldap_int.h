/*
 * openldap_int.h -- internals shared by the files of the OpenLDAP front
 * end (compiler/openldap_*.c): the positioned text the lexers produce and
 * the entry points between the configuration readers and the rule parser.
 * Not a contract for other modules: they use openldap.h.
 *
 * Invariant: every byte of a token carries the line and column of the
 * input byte it came from (quotes and escapes removed), so an error deep
 * inside a token is still reported where it is in the file.
 */
#ifndef ACRE_OPENLDAP_INT_H
#define ACRE_OPENLDAP_INT_H

#include "openldap.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

/*
 * Keywords of the rule text are compared ignoring ASCII case, as slapd's
 * strcasecmp / strncasecmp do in the C locale it runs in (only A-Z fold):
 * acreO_word_is -- s[0..n) is the word w;
 * acreO_prefix_is -- s[0..n) starts with w;
 * acreO_cstr_is -- the NUL-terminated s is w (strcasecmp(s, w) == 0).
 */
static inline unsigned char
acreO_lower(unsigned char c)
{
    return (unsigned char)(c - 'A') < 26u ? (unsigned char)(c | 0x20) : c;
}

static inline __attribute__((always_inline)) int
acreO_word_is(const char *s, size_t n, const char *w)
{
    /* inlined with a literal w, its length is a constant: most words
     * are told apart by it */
    if (__builtin_constant_p(strlen(w)) && strlen(w) != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!w[i] || acreO_lower((unsigned char)s[i]) !=
                         acreO_lower((unsigned char)w[i]))
            return 0;
    return w[n] == '\0';
}

static inline int
acreO_prefix_is(const char *s, size_t n, const char *w)
{
    for (size_t i = 0; w[i]; i++)
        if (i >= n || acreO_lower((unsigned char)s[i]) !=
                          acreO_lower((unsigned char)w[i]))
            return 0;
    return 1;
}

static inline int
acreO_cstr_is(const char *s, const char *w)
{
    for (size_t i = 0;; i++) {
        if (acreO_lower((unsigned char)s[i]) !=
            acreO_lower((unsigned char)w[i]))
            return 0;
        if (!w[i])
            return 1;
    }
}

/* A string whose bytes carry positions; line[len]/col[len] is the
 * position just after the last byte. */
struct acreO_ptext {
    char *s; /* NUL-terminated */
    size_t len;
    unsigned *line;
    unsigned *col;
};

/* The run of consecutive '#' physical lines of a file being read (see
 * acreO_comment): zero-initialised before the file's first line. */
struct acreO_comment_run {
    unsigned first; /* index of the run's first mark in cfg->lintmarks */
    unsigned prev;  /* line of the last '#' line seen (0: none) */
};

/* A whole input file (or buffer) and where reading stands. */
struct acreO_reader {
    const char *name;
    const char *p;
    size_t len;
    size_t off;      /* next byte to read */
    unsigned lineno; /* physical line of p[off], 1-based */
    int have_look;   /* a physical line was read ahead (fp_getline's buf) */
    size_t look_off, look_len;
    unsigned look_line;
    /* where "# acre-lint:" comments go (NULL: not kept), and the run of
     * comment lines being read */
    struct acreO_build *marks;
    struct acreO_comment_run run;
};

/*
 * The storage the lexers reuse from one line to the next: the logical
 * line, the bytes of its tokens (each NUL-terminated, with positions) and
 * the token array.  Each grows geometrically under `ctx` and is never
 * shrunk, so reading a file costs a few allocations, not a few per token.
 * What acreO_read_line and the tokenisers hand out lives here, valid
 * until the next call of the same function on the same buffer (a line
 * stays valid while it is tokenised).  One buffer per thread of reading.
 */
struct acreO_lexbuf {
    void *ctx;
    struct acreO_ptext line; /* the logical line */
    size_t line_cap;
    struct acreO_ptext bytes; /* token bytes */
    size_t bytes_cap;
    struct acreO_ptext *toks;
    unsigned toks_cap;
};

/* acreO_lexbuf_init -- an empty buffer growing under ctx.
 * acreO_lexbuf_free -- release what it holds (it may be used again). */
void acreO_lexbuf_init(struct acreO_lexbuf *lb, void *ctx);
void acreO_lexbuf_free(struct acreO_lexbuf *lb);

/*
 * acreO_lone_cr -- refuse a slapd.conf text holding a CR that is not
 * followed by LF (a file saved with CR-only line ends): slapd's
 * fp_getline ends lines at LF only, so such a file is one long line to it
 * whose meaning is never what its author saw.  0, or ACRE_ERR_RULE_SYNTAX
 * with diag at the CR (name: the file, for messages).
 */
int acreO_lone_cr(const char *name, const char *text, size_t len,
                  acre_diag *diag);

/*
 * acreO_read_line -- the next logical line of a slapd.conf (fp_getline):
 * physical lines joined when the next starts with white space (its first
 * character becomes a space) or the current ends with a single '\'
 * (removed); an "include" line is never continued; the CR of a CR LF is
 * dropped, any other CR is a byte of the line.  Each physical line
 * starting with '#' is given to acreO_comment when r->marks is set.
 * Returns 1 with *out (in lb's line buffer), 0 at the end,
 * ACRE_ERR_RULE_LIMIT or ACRE_ERR_NOMEM with diag.
 */
int acreO_read_line(struct acreO_lexbuf *lb, struct acreO_reader *r,
                    struct acreO_ptext *out, acre_diag *diag);

/*
 * acreO_read_plain -- the next logical line of r, without building it,
 * when it is plain: one physical line (no continuation follows it) of at
 * most ACREO_MAX_TOKEN bytes with no '\' and an even number of '"',
 * whose first token is `word` (case-insensitively; it starts the line).
 * Then none of its tokens leaves a quote open or is too long, and the
 * first one is at column 1 of line *line.  Returns 1 with r past the line
 * exactly as acreO_read_line leaves it (the next line read ahead,
 * comments marked), 0 with r unchanged when the line is not plain (or at
 * the end), ACRE_ERR_NOMEM with diag as acreO_read_line.
 */
int acreO_read_plain(struct acreO_reader *r, const char *word, unsigned *line,
                     acre_diag *diag);

/*
 * acreO_tokenize_conf -- split a logical line as slapd's strtok_quote:
 * tokens separated by spaces and tabs; '"' toggles quoting and is dropped;
 * '\' makes the next character literal and is dropped.  *unterminated is
 * set when a quote is left open.  Only the first `max` tokens are kept
 * (the others are checked all the same: their length, their quotes).
 * Returns 0 with toks[0..*n) in lb (ln may be lb's line: a token with
 * no quote or backslash is then that line's own bytes, the blank after it
 * overwritten with its NUL), ACRE_ERR_RULE_LIMIT (token too long) or
 * ACRE_ERR_NOMEM.
 */
int acreO_tokenize_conf(struct acreO_lexbuf *lb, const struct acreO_ptext *ln,
                        unsigned max, struct acreO_ptext **toks, unsigned *n,
                        int *unterminated, const char *file, acre_diag *diag);

/*
 * acreO_tokenize_ldif -- split an olcAccess value as slapd's
 * strtok_quote_ldif: white-space separated; a token that starts with '"'
 * (or holds one) runs to a '"' followed by white space or the end, and one
 * quote is dropped; backslashes are ordinary.  Returns as
 * acreO_tokenize_conf, the tokens in toks[1..*n): toks[0] is a free slot
 * for the caller (cn=config puts the directive's name there).
 */
int acreO_tokenize_ldif(struct acreO_lexbuf *lb, const struct acreO_ptext *v,
                        struct acreO_ptext **toks, unsigned *n,
                        const char *file, acre_diag *diag);

/* A scratch state shared while one configuration is parsed. */
struct acreO_build {
    void *ctx;                 /* the result's talloc context (== cfg) */
    struct acreI_policy *cfg;  /* being built */
    const acre_schema *schema; /* frozen */
    unsigned nrules;           /* across all databases, for the limit */
    unsigned notes_cap;
    void *scratch; /* temporaries and the memo; freed by
                      acreO_build_finish (NULL until needed) */
    struct acreO_memo_table *memo;
    /* how many rules each section will get, when a reader knows it
     * beforehand (the frontend's, then the databases' in order; 0:
     * unknown): their arrays are then allocated once, at that size */
    unsigned front_hint;
    const unsigned *db_hint;
    unsigned ndb_hint;
    struct acreO_errors *errs; /* errors gone past; NULL: stop at one */
    /* the bump arena of acreO_alloc: the chunk being filled */
    char *arena;
    size_t arena_left, arena_chunk;
};

/*
 * The memo of one parse (openldap_memo.c): texts already made into an
 * immutable object of the configuration, by kind, so that rules spelling
 * the same part share one object.  Only successes are remembered.
 *   STR     p: an interned NUL-terminated copy (acreO_intern)
 *   DN      p: the acre_dn of acreO_parse_dn, n: its own hash
 *   FILTER  p: the acreF_filter, q: its text (a <what> filter=)
 *   ATTRS   p: an acreI_attrspec array of n items (a whole attrs= list)
 *   DNATTR  p: the acreI_attrspec of a <who> dnattr=
 *   REGEX   p: an acreI_regex (acreO_build_regex)
 */
enum acreO_memo_kind {
    ACREO_MEMO_STR = 1,
    ACREO_MEMO_DN,
    ACREO_MEMO_FILTER,
    ACREO_MEMO_ATTRS,
    ACREO_MEMO_DNATTR,
    ACREO_MEMO_REGEX
};

struct acreO_memo {
    const void *p;
    const void *q;
    size_t n;
};

/* acreO_memo_hash, acreO_memo_prefetch -- the hash of (kind, s[0..n)),
 * and a hint that it will be looked up: stage 0 fetches its slot into the
 * cache, stage 1 (the slot fetched before) the record the slot holds.
 * Neither changes anything. */
uint64_t acreO_memo_hash(int kind, const char *s, size_t n);
void acreO_memo_prefetch(const struct acreO_build *b, uint64_t h, int stage);

/* acreO_memo_find -- what (kind, s[0..n)) was made into, or NULL. */
const struct acreO_memo *acreO_memo_find(struct acreO_build *b, int kind,
                                         const char *s, size_t n);

/* acreO_memo_put -- remember *v for (kind, s[0..n)) (a first entry is
 * kept).  0, or ACRE_ERR_NOMEM: then nothing is remembered, which callers
 * may ignore (the memo only saves work and memory). */
int acreO_memo_put(struct acreO_build *b, int kind, const char *s, size_t n,
                   const struct acreO_memo *v);

/* acreO_intern -- one shared NUL-terminated copy of s[0..n) under b->ctx
 * per distinct text; NULL out of memory. */
const char *acreO_intern(struct acreO_build *b, const char *s, size_t n);

/* acreO_alloc -- size zeroed bytes, 16-aligned, that live as long as
 * b->ctx and are never freed or resized on their own: carved from chunks
 * of the configuration (1 KiB at first, doubling to 64 KiB; a larger
 * request has a chunk of its own), so that the many small arrays of a
 * large policy (each rule's clauses) are not a talloc block each.  NULL
 * when out of memory. */
void *acreO_alloc(struct acreO_build *b, size_t size);

/* acreO_build_scratch -- b's scratch context (made on first use); NULL
 * out of memory. */
void *acreO_build_scratch(struct acreO_build *b);

/* acreO_build_regex -- acreO_regex_compile under b->ctx, once per
 * distinct pattern (later ones share the compiled code). */
int acreO_build_regex(struct acreO_build *b, const char *p, size_t n,
                      struct acreI_regex *re, const char **why);

/*
 * acreO_directive_find -- word's entry among the directives of slapd
 * 2.5.13's configuration tables (global, database, any backend's or
 * overlay's), or NULL when none holds it (openldap_directives.c).
 */
struct acreO_directive {
    const char *name;
    unsigned length;   /* 0: the whole name matches; else its first length
                          characters, as slapd's config_find_keyword */
    unsigned min, max; /* argument counts, the directive included; 0: no
                          bound */
    const char *what;  /* the arguments, for the messages */
};
const struct acreO_directive *acreO_directive_find(const char *word);

/*
 * The configuration builder (openldap_conf.c), shared by the slapd.conf
 * and cn=config readers.
 *
 * acreO_build_start -- a new, empty configuration under mem_ctx in *b.
 * acreO_build_schema -- freeze `schema` (NULL: built-in) and use it.
 * acreO_build_finish -- on rc == 0 hand the configuration to *out, else
 *   free it; returns rc.
 * acreO_db_new -- append a database section (pointer valid until the
 *   next acreO_db_new); NULL when out of memory.
 * acreO_db_add_rule -- parse tokens (toks[0] is the "access" keyword or
 *   stands for it) into the next rule of db.
 * acreO_db_add_suffix / acreO_db_set_rootdn -- a DN s[0..n) of token
 *   `tok` starting at byte `at`, for messages.
 * acreO_read_file -- a whole file under ctx, NUL-terminated; only a
 *   regular file, never opened in a way that blocks (a FIFO is refused
 *   with ACRE_ERR_RULE_IO, not waited on).
 * All return 0, ACRE_ERR_RULE_* with diag, or ACRE_ERR_NOMEM.
 */
int acreO_build_start(void *mem_ctx, struct acreO_build *b);
void acreO_build_schema(struct acreO_build *b, acre_schema *schema);
int acreO_build_finish(struct acreO_build *b, int rc,
                       struct acreI_policy **out);
struct acreI_section *acreO_db_new(struct acreO_build *b, const char *type,
                                   struct acreI_pos pos, int index);
int acreO_db_add_rule(struct acreO_build *b, struct acreI_section *db,
                      const struct acreO_ptext *toks, unsigned ntoks,
                      const char *file, acre_diag *diag);
int acreO_db_add_suffix(struct acreO_build *b, struct acreI_section *db,
                        const char *s, size_t n, const char *file,
                        const struct acreO_ptext *tok, size_t at,
                        acre_diag *diag);
int acreO_db_set_rootdn(struct acreO_build *b, struct acreI_section *db,
                        const char *s, size_t n, const char *file,
                        const struct acreO_ptext *tok, size_t at,
                        acre_diag *diag);
int acreO_read_file(void *ctx, const char *path, char **text, size_t *len,
                    acre_diag *diag);

/*
 * acreO_collect_add -- slapo-collect's "collectinfo <DN> <attrs>" (toks[0]
 * the directive, toks[1] the DN, toks[2] the comma-separated attribute
 * descriptions) for database index db (-1: the global overlay), refused as
 * collect_cf refuses: a bad DN, an unknown description, a DN already
 * configured for that database.  Same returns as above.
 */
int acreO_collect_add(struct acreO_build *b, int db,
                      const struct acreO_ptext *toks, unsigned ntoks,
                      const char *file, acre_diag *diag);

/*
 * acreO_parse_access -- parse one access rule from its tokens (after the
 * "access" keyword, starting with "to"), as slapd's parse_acl(), into
 * *rule.  db: the database it goes to (its rootdn may draw a note).
 * file: the name for positions.  Returns 0, ACRE_ERR_RULE_SYNTAX or
 * ACRE_ERR_RULE_LIMIT with diag (position of the offending token), or
 * ACRE_ERR_NOMEM.
 */
int acreO_parse_access(struct acreO_build *b, const struct acreI_section *db,
                       const struct acreO_ptext *toks, unsigned ntoks,
                       const char *file, struct acreI_rule *rule,
                       acre_diag *diag);

/* acreO_parse_by -- one "by" clause from toks[*i] (just after "by");
 * advances *i past it.  Same returns as acreO_parse_access. */
int acreO_parse_by(struct acreO_build *b, const struct acreI_section *db,
                   const struct acreO_ptext *toks, unsigned ntoks, unsigned *i,
                   const char *file, struct acreI_clause *by, acre_diag *diag);

/*
 * acreO_error -- fill diag with code, file and the position of byte `at`
 * of token t (t may be NULL: line/column 0), and a printf-style message.
 * Returns code.
 */
int acreO_error(acre_diag *diag, int code, const char *file,
                const struct acreO_ptext *t, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/*
 * acreO_recover -- rc, the result of reading one directive or value with
 * diag filled on error: when b collects errors (b->errs) and rc is
 * ACRE_ERR_RULE_SYNTAX, keep *diag and return 0 so that the reader goes
 * on (past ACREO_MAX_ERRORS, rc).  Otherwise rc.  ACRE_ERR_NOMEM.
 */
int acreO_recover(struct acreO_build *b, int rc, const acre_diag *diag);

/*
 * acreO_errors_end -- rc, the result of a whole reading: when b collects
 * errors, a final error joins the list, and the reading fails with the
 * list's first error (in diag) if it has any.  Returns the reading's
 * result.
 */
int acreO_errors_end(struct acreO_build *b, int rc, acre_diag *diag);

/*
 * acreO_check_glue -- every glued subordinate ("subordinate",
 * olcSubordinate) of the policy b builds has a superior, as slapd's
 * startup requires (glue_sub_attach: "no superior found for sub"): a
 * database after it that is no subordinate and whose first suffix holds
 * its own.  0, or ACRE_ERR_RULE_SYNTAX at the first database without
 * one (each through acreO_recover when b collects errors).
 */
int acreO_check_glue(struct acreO_build *b, acre_diag *diag);

/* acreO_error_pos -- acreO_error at a position already taken. */
int acreO_error_pos(acre_diag *diag, int code, struct acreI_pos pos,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * acreO_file_name -- path interned for the life of the process (a stable
 * pointer for positions and diagnostics, whatever is freed); NULL for
 * NULL or out of memory.  Any thread.
 */
const char *acreO_file_name(const char *path);

/* acreO_limits_default -- slapd's search limits when nothing sets them
 * (openldap_limits.c): 500 entries, 3600 s, hard limits "soft". */
void acreO_limits_default(struct acreI_limits *l);

/*
 * acreO_limits_directive -- a "sizelimit" or "timelimit" directive
 * (olcSizeLimit, olcTimeLimit: toks[0] names which), its words
 * toks[1..n), into *l.  Returns 0, or ACRE_ERR_RULE_SYNTAX with diag at
 * the word slapd refuses (*l then partly set: the caller fails).
 */
int acreO_limits_directive(struct acreI_limits *l,
                           const struct acreO_ptext *toks, unsigned n,
                           const char *file, acre_diag *diag);

/*
 * acreO_limits_rule -- a "limits" rule (olcLimits value without its {n}),
 * toks[1] its selector, toks[2..n) its limits, appended to db's rules,
 * starting from db's limits as they are now.  Returns 0,
 * ACRE_ERR_RULE_SYNTAX (diag filled) or ACRE_ERR_NOMEM.
 */
int acreO_limits_rule(struct acreO_build *b, struct acreI_section *db,
                      const struct acreO_ptext *toks, unsigned n,
                      const char *file, acre_diag *diag);

/*
 * acreO_index_directive -- back-mdb's "index" directive (an olcDbIndex
 * value: toks[0] its name), toks[1] the attributes and toks[2], when
 * n is 3, the index types, recorded in db (openldap_index.c).  Returns 0,
 * ACRE_ERR_RULE_SYNTAX (diag filled) or ACRE_ERR_NOMEM.
 */
int acreO_index_directive(struct acreO_build *b, struct acreI_section *db,
                          const struct acreO_ptext *toks, unsigned n,
                          const char *file, acre_diag *diag);

/* acreO_pos_of -- the position of byte `at` of t. */
struct acreI_pos acreO_pos_of(const char *file, const struct acreO_ptext *t,
                              size_t at);

/*
 * acreO_comment -- physical line `line` of `file`, s[0..n) without its CR
 * LF, starts with '#': extend the file's run of such lines (a line that is
 * not line run->prev + 1 ends the run and starts a new one), and when the
 * comment is an "acre-lint:" one keep it in b->cfg->lintmarks for
 * acre_lint (struct acreI_lintmark).  Every '#' line of a file must be
 * given, in order, and line 0 (s unused) once the run is over: at the
 * end of the file at the latest, and before any other file is read (an
 * include) while a run is open.  0 or ACRE_ERR_NOMEM.
 */
int acreO_comment(struct acreO_build *b, struct acreO_comment_run *run,
                  const char *file, unsigned line, const char *s, size_t n);

/* acreO_note_add -- record a note at pos (printf-style).  0 or NOMEM. */
int acreO_note_add(struct acreO_build *b, struct acreI_pos pos, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

/*
 * acreO_regex_compile -- check pattern p[0..n) as slapd would (the C
 * library's regcomp with REG_EXTENDED | REG_ICASE) and compile it for
 * PCRE2 into *re under ctx.  Returns 0, ACRE_ERR_RULE_SYNTAX with *why set to
 * a static or ctx-owned message, ACRE_ERR_RULE_LIMIT, or ACRE_ERR_NOMEM.
 */
int acreO_regex_compile(void *ctx, const char *p, size_t n,
                        struct acreI_regex *re, const char **why);

/*
 * acreO_regex_compile_expanded -- acreO_regex_compile for a pattern a
 * check has substituted (the regex_compile hook): held to a lower cost
 * estimate (ACRE_ERR_RULE_LIMIT past it), not JIT-compiled.
 */
int acreO_regex_compile_expanded(void *ctx, const char *p, size_t n,
                                 struct acreI_regex *re, const char **why);

/*
 * acreO_regex_check -- only the regcomp check (for templates: slapd's
 * regtest strips $ escapes first, see acreO_regex_test_template).
 */
int acreO_regex_check(const char *p, const char **why, char *errbuf,
                      size_t errlen);

/*
 * acreO_regex_cost -- what glibc's regcomp would build from the ERE p
 * (NUL-terminated), estimated (openldap_regex.c says how): its NFA
 * nodes, the entries of their epsilon closures (both saturate at 2^40),
 * how deeply repetition operators nest, and the weight of anchors in
 * the heaviest epsilon region.  Linear in the pattern; any thread.
 */
struct acreO_regex_cost {
    size_t nodes, closure;
    int depth;
    size_t anchors;
};

void acreO_regex_cost(const char *p, struct acreO_regex_cost *out);

/*
 * acreO_regex_test_template -- slapd's regtest() of a <who> regex
 * template: $$ becomes $, $<digit> the digit, other $x drop both; then
 * regcomp.  Returns 0, ACRE_ERR_RULE_LIMIT (254 bytes or more, "too large"),
 * ACRE_ERR_RULE_SYNTAX with the message in errbuf.
 */
int acreO_regex_test_template(const char *p, size_t n, char *errbuf,
                              size_t errlen);

/*
 * acreO_attr_desc -- slapd's slap_bv2ad: s[0..n) names a known attribute
 * type with only options slapd accepts (lang- tags; binary on
 * binary-transfer syntaxes).  Fills a->type, nopts, opts (lowercased,
 * under b->ctx).  Returns 1 when it does, 0 when not, -1 out of memory.
 */
int acreO_attr_desc(struct acreO_build *b, const char *s, size_t n,
                    struct acreI_attrspec *a);

/*
 * acreO_parse_dn -- normalise a DN of the rule text as slapd's
 * dnNormalize: acre_dn_parse with ACRE_DN_STRICT under b->ctx, and a
 * non-empty blank string refused.  Returns 0 or an ACRE_ERR_DN_* code
 * with d->offset and d->message.
 */
int acreO_parse_dn(struct acreO_build *b, const char *s, size_t n,
                   acre_dn **out, acre_diag *d);

/* acreO_parse_dn_hash -- acreO_parse_dn, and on success *hash the DN's
 * own hash (acre_dn_ancestor_hash at its depth, cut to a size_t), read
 * from the memo without touching a DN made before: two DNs whose hashes
 * differ are not equal. */
int acreO_parse_dn_hash(struct acreO_build *b, const char *s, size_t n,
                        acre_dn **out, size_t *hash, acre_diag *d);

/* acreO_template_init -- fill t from s[0..n) (copied under ctx) and say
 * whether expanding it needs submatches (a substitution slapd would
 * perform; see acreI_expand). */
int acreO_template_init(void *ctx, const char *s, size_t n,
                        struct acreI_template *t);

/*
 * slapd's memberof overlay registers memberOf when its module is loaded
 * (moduleload in slapd.conf, olcModuleLoad in cn=config), unless a
 * schema file defined it before: as a DN with distinguishedNameMatch,
 * operational (dSAOperation).
 * acreO_is_memberof_module -- does a moduleload argument name it (a
 * path's last part "memberof", with or without ".la", ".so" and a
 * version)?
 * acreO_memberof_schema -- define memberOf as the overlay does, at that
 * point of the configuration (acreS_load_dupok).
 */
int acreO_is_memberof_module(const char *arg);
int acreO_memberof_schema(acre_schema *schema, const char *file,
                          acre_diag *diag);

#endif /* ACRE_OPENLDAP_INT_H */
