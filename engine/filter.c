/*
 * filter.c -- RFC 4515 search filters: the parser and the printer.
 *
 * The parser reads the string form once and leaves a tree in which every
 * assertion value is already unescaped and prepared for the rule that
 * will compare it (filter_impl.h), so that evaluation (filter_eval.c) is
 * byte comparisons on the entries' stored normalised values.
 *
 * Grammar: RFC 4515, with RFC 4526's absolute true (&) and false (|).
 * What is accepted beyond the RFC, as OpenLDAP's libldap (whose parser
 * slapd uses for ACL filters) accepts it:
 *   - spaces after an opening parenthesis, between the filters of a list,
 *     and around the whole filter (never inside an item: "(cn= x)" asserts
 *     " x");
 *   - a bare item at the top level: "cn=x" reads as "(cn=x)";
 *   - the RFC 1960 escapes \* \( \) \\ next to RFC 4515's \XX.
 * Everything else is an error with the byte offset of the first character
 * that cannot start or continue a valid filter: ACRE_ERR_FILTER_ESCAPE for
 * a bad backslash escape, ACRE_ERR_FILTER_NESTING when & | ! nest deeper
 * than ACREF_MAX_DEPTH, ACRE_ERR_FILTER_TOO_LONG past ACREF_MAX_LEN bytes,
 * ACRE_ERR_FILTER_SYNTAX for the rest (two consecutive '*', an unescaped
 * '(' or '*' in a value, a missing ')', ...).
 *
 * What parses but is UNDEFINED, as slapd makes it (servers/slapd/filter.c
 * get_filter0, ava.c get_ava, get_ssa, mra.c get_mra, ad.c slap_bv2ad):
 *   - an attribute type the schema does not know (any item kind, presence
 *     included), or a description slapd refuses: options on an
 *     operational type, ;binary on a type whose syntax does not require
 *     binary transfer, any option but ;binary and language tags
 *     (";lang-..."), which are the only ones slapd knows unconfigured;
 *   - a type without the rule the item needs (no EQUALITY for = and ~=,
 *     no ORDERING for >= <=, no SUBSTR for substrings);
 *   - an assertion value its rule cannot prepare (invalid syntax), and a
 *     substrings part that is not a value of the EQUALITY rule's syntax;
 *   - an extensible match whose rule is unknown, not usable with the type
 *     (slapd's mr_usable_with_at: the same syntax, the type's own equality
 *     rule, or one of the rule's compatible syntaxes; objectClass and
 *     structuralObjectClass have a syntax of their own in slapd, so no
 *     named rule is usable with them), not usable in extensible match at
 *     all (substrings rules, UUID rules), or without a rule on a type
 *     whose equality rule is not usable.
 * With a 389 schema (acreS_is389) a type the schema does not know is no
 * UNDEFINED item but ACREF_UNDEF_ABSENT (FALSE on every entry), and any
 * option is taken (389 defines none and refuses none).
 * With ACREF_STRICT_RULES the rule cases are ACRE_ERR_FILTER_RULE errors
 * instead (for linting rule text).  Besides the rules of match.h, the
 * bitwise integerBitAndMatch and integerBitOrMatch of Active Directory
 * (which slapd has too) are known.
 *
 * The printer writes the canonical form: no spaces, attribute
 * descriptions and rule names as written, ":dn", and values escaped as
 * \XX (lowercase hex) for NUL ( ) * \ and the other ASCII controls, and
 * for bytes >= 0x80 unless the value is valid UTF-8.  parse(print(f))
 * prints the same string.
 *
 * Invariants: parsing builds into a scratch talloc context and steals the
 * filter to mem_ctx on success only; the scratch is freed on every path.
 * Recursion is bounded by ACREF_MAX_DEPTH, work by ACREF_MAX_LEN.  The
 * filter keeps a pointer to the schema, which must outlive it.
 */
#include "filter.h"

#include "buf.h"
#include "filter_impl.h"
#include "internal.h"
#include "match.h"
#include "prep.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* One rule's syntax and the other syntaxes slapd lets it compare
 * (schema_init.c mrule_defs, compat syntaxes). */
struct rule_syntax {
    int rule;
    const char *syntax;
    const char *const *compat;
};

#define SYN(x) "1.3.6.1.4.1.1466.115.121.1." x

static const char *const dstring_compat[] = {SYN("11"), SYN("44"), SYN("50"),
                                             NULL};
static const char *const int_first_compat[] = {SYN("27"), SYN("17"), NULL};
static const char *const oid_first_compat[] = {SYN("38"), SYN("3"),  SYN("16"),
                                               SYN("54"), SYN("30"), SYN("31"),
                                               SYN("35"), SYN("37"), NULL};

static const struct rule_syntax rule_syntaxes[] = {
    {ACREM_CASE_IGNORE, SYN("15"), dstring_compat},
    {ACREM_CASE_EXACT, SYN("15"), dstring_compat},
    {ACREM_CASE_IGNORE_ORD, SYN("15"), dstring_compat},
    {ACREM_CASE_EXACT_ORD, SYN("15"), dstring_compat},
    {ACREM_CASE_IGNORE_IA5, SYN("26"), NULL},
    {ACREM_CASE_EXACT_IA5, SYN("26"), NULL},
    {ACREM_NUMERIC_STRING, SYN("36"), NULL},
    {ACREM_NUMERIC_ORD, SYN("36"), NULL},
    {ACREM_TELEPHONE, SYN("50"), NULL},
    {ACREM_DN, SYN("12"), NULL},
    {ACREM_UNIQUE_MEMBER, SYN("34"), NULL},
    {ACREM_OID, SYN("38"), NULL},
    {ACREM_INTEGER, SYN("27"), NULL},
    {ACREM_INTEGER_ORD, SYN("27"), NULL},
    {ACREM_BOOLEAN, SYN("7"), NULL},
    {ACREM_GENTIME, SYN("24"), NULL},
    {ACREM_GENTIME_ORD, SYN("24"), NULL},
    {ACREM_OCTET, SYN("40"), NULL},
    {ACREM_OCTET_ORD, SYN("40"), NULL},
    {ACREM_BIT_STRING, SYN("6"), NULL},
    {ACREM_CASE_IGNORE_LIST, SYN("41"), NULL},
    {ACREM_OID_FIRST, SYN("38"), oid_first_compat},
    {ACREM_INTEGER_FIRST, SYN("27"), int_first_compat},
    {ACREF_RULE_BITAND, SYN("27"), NULL},
    {ACREF_RULE_BITOR, SYN("27"), NULL},
    {ACREF_RULE_DNSUBTREE, SYN("12"), NULL},
    {ACREF_RULE_DNONELEVEL, SYN("12"), NULL},
    {ACREF_RULE_DNSUBORDINATE, SYN("12"), NULL},
    {ACREF_RULE_DNSUPERIOR, SYN("12"), NULL},
};

/* Syntaxes slapd marks X-BINARY-TRANSFER-REQUIRED: only their types take
 * the ;binary option (ad.c slap_bv2ad). */
/* The rules of slapd that match.h lacks (see filter_impl.h). */
static const struct {
    int rule;
    const char *name, *oid;
} local_rules[] = {
    {ACREF_RULE_BITAND, "integerBitAndMatch", "1.2.840.113556.1.4.803"},
    {ACREF_RULE_BITOR, "integerBitOrMatch", "1.2.840.113556.1.4.804"},
    {ACREF_RULE_DNSUBTREE, "dnSubtreeMatch", "1.3.6.1.4.1.4203.666.4.9"},
    {ACREF_RULE_DNONELEVEL, "dnOneLevelMatch", "1.3.6.1.4.1.4203.666.4.8"},
    {ACREF_RULE_DNSUBORDINATE, "dnSubordinateMatch",
     "1.3.6.1.4.1.4203.666.4.10"},
    {ACREF_RULE_DNSUPERIOR, "dnSuperiorMatch", "1.3.6.1.4.1.4203.666.4.11"},
};

#define SUB_FEW 8

/* Parser state. */
struct ps {
    const char *s;
    size_t n, i;
    unsigned flags;
    int depth;
    const acre_schema *schema;
    const struct acreS_known *known;
    struct acreF_filter *f; /* owns the result */
    void *tmp;              /* scratch, freed at the end */
    /* cache: the bitmap of each type's subtypes (NULL: none), for the
     * first SUB_FEW types in a list, then by type id in arrays of
     * acreS_nattrs() entries (most filters never need those) */
    int few_type[SUB_FEW];
    const uint64_t *few_map[SUB_FEW];
    unsigned nfew;
    const uint64_t **subtypes;
    uint8_t *subtypes_done;
    const uint64_t *usable[ACREF_RULE_LAST + 1]; /* cache, by rule */
    acre_diag *diag;
};

/* A piece of a value between stars (or the whole value). */
struct seg {
    uint8_t *p; /* unescaped, NUL-terminated copy owned by the filter */
    size_t len;
    size_t off; /* offset of the '*' or ')' that ends it */
};

static int parse_filter(struct ps *ps, struct acreF_node **out);

/* ------------------------------------------------------------------------
 * Small helpers
 */

#define fail(ps, code, off, ...) \
    acreE_diag_set((ps)->diag, code, off, __VA_ARGS__)

static int
peek(const struct ps *ps)
{
    return ps->i < ps->n ? (unsigned char)ps->s[ps->i] : -1;
}

static void
skip_spaces(struct ps *ps)
{
    while (peek(ps) == ' ')
        ps->i++;
}

static int
is_ldh(int c)
{
    return acreE_is_alpha(c) || acreE_is_digit(c) || c == '-';
}

static uint64_t *
bitmap_new(void *ctx, unsigned nbits)
{
    return talloc_zero_array(ctx, uint64_t, (nbits + 63) / 64 + 1);
}

static void
bit_set(uint64_t *map, int i)
{
    map[(unsigned)i >> 6] |= (uint64_t)1 << ((unsigned)i & 63);
}

static struct acreF_node *
node_new(struct ps *ps, enum acreF_kind kind)
{
    struct acreF_node *nd = talloc_zero(ps->f, struct acreF_node);

    if (nd) {
        nd->kind = (uint8_t)kind;
        nd->want.type = -1;
        nd->cls = -1;
    }
    return nd;
}

/* ------------------------------------------------------------------------
 * Lexical pieces: descriptions, rule names, values
 */

/*
 * Check d[0..n) (at offset off) against RFC 4512's attributedescription:
 * (descr / numericoid) *(";" option).  Returns 0 or a syntax error at the
 * first bad character.
 */
static int
check_oid(struct ps *ps, const char *d, size_t n, size_t off, const char *what)
{
    size_t k = 0;

    if (n && acreE_is_alpha((unsigned char)d[0])) {
        while (k < n && is_ldh((unsigned char)d[k]))
            k++;
    } else if (n && acreE_is_digit((unsigned char)d[0])) {
        while (k < n) {
            size_t start = k;
            while (k < n && acreE_is_digit((unsigned char)d[k]))
                k++;
            if (k == start)
                break;
            if (k == n || d[k] != '.' || k + 1 == n)
                break;
            k++;
        }
    }
    if (k == n && n)
        return 0;
    return fail(ps, ACRE_ERR_FILTER_SYNTAX, off + k, "malformed %s", what);
}

static int
check_desc(struct ps *ps, const char *d, size_t n, size_t off)
{
    size_t k = 0, start;
    int rc;

    while (k < n && d[k] != ';')
        k++;
    if ((rc = check_oid(ps, d, k, off, "attribute type")))
        return rc;
    while (k < n) {
        start = ++k; /* past ';' */
        while (k < n && is_ldh((unsigned char)d[k]))
            k++;
        if (k == start || (k < n && d[k] != ';'))
            return fail(ps, ACRE_ERR_FILTER_SYNTAX, off + k,
                        "malformed attribute option");
    }
    return 0;
}

/* Take the escape at s[i] == '\\' into b. */
static int
take_escape(struct ps *ps, struct acreE_buf *b)
{
    size_t at = ps->i;
    int h1 = at + 1 < ps->n ? acreE_hexval((unsigned char)ps->s[at + 1]) : -1;
    int h2 = at + 2 < ps->n ? acreE_hexval((unsigned char)ps->s[at + 2]) : -1;
    int c = at + 1 < ps->n ? (unsigned char)ps->s[at + 1] : -1;

    if (h1 >= 0 && h2 >= 0) {
        ps->i += 3;
        return acreE_buf_putc(b, (uint8_t)(h1 * 16 + h2));
    }
    if (h1 < 0 && (c == '*' || c == '(' || c == ')' || c == '\\')) {
        ps->i += 2; /* RFC 1960 */
        return acreE_buf_putc(b, (uint8_t)c);
    }
    return fail(ps, ACRE_ERR_FILTER_ESCAPE, at,
                "'\\' must be followed by two hexadecimal digits");
}

/* Room for one more element in arr (n used of *cap), doubling: a long
 * list costs linear time.  NULL when out of memory (arr is kept). */
static void *
grow(void *ctx, void *arr, size_t size, size_t n, size_t *cap)
{
    size_t c = *cap ? 2 * *cap : 8;
    void *p;

    if (n < *cap)
        return arr;
    if (!(p = talloc_realloc_size(ctx, arr, c * size)))
        return NULL;
    *cap = c;
    return p;
}

static int
push_seg(struct ps *ps, struct acreE_buf *b, struct seg **segs, unsigned *n,
         size_t *cap)
{
    struct seg *v = grow(ps->tmp, *segs, sizeof **segs, *n, cap);
    uint8_t *p = talloc_size(ps->f, b->len + 1);

    if (v)
        *segs = v;
    if (!v || !p)
        return ACRE_ERR_NOMEM;
    memcpy(p, b->p, b->len);
    p[b->len] = '\0';
    v[*n].p = p;
    v[*n].len = b->len;
    v[*n].off = ps->i;
    ++*n;
    b->len = 0;
    return 0;
}

static int
bad_char(struct ps *ps, int c)
{
    if (c == 0)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    "NUL in a value must be escaped as \\00");
    return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                "'%c' in a value must be escaped as \\%02x", c, c);
}

/*
 * Read a value up to ')' or the end of the input, unescaping it; with
 * `stars`, split it at each unescaped '*' (segs[k] ends at star k).
 */
static int
read_value(struct ps *ps, int stars, struct seg **segs, unsigned *nseg)
{
    uint8_t local[256];
    struct acreE_buf b;
    size_t cap = 0;
    int rc = 0;

    unsigned depth = 0; /* ACREF_389_PARENS: parentheses opened */

    acreE_buf_init(&b, local, sizeof local);
    *segs = NULL;
    *nseg = 0;
    for (;;) {
        int c = peek(ps);

        if ((ps->flags & ACREF_389_PARENS) &&
            (c == '(' || (c == ')' && depth))) {
            depth += c == '(' ? 1u : (unsigned)-1;
            if ((rc = acreE_buf_putc(&b, (uint8_t)c)))
                break;
            ps->i++;
        } else if (c < 0 || c == ')' || (c == '*' && stars)) {
            if ((rc = push_seg(ps, &b, segs, nseg, &cap)) || c != '*')
                break;
            ps->i++;
        } else if (c == '\\') {
            if ((rc = take_escape(ps, &b)))
                break;
        } else if (c == '*' || c == '(' || c == 0) {
            rc = bad_char(ps, c);
            break;
        } else {
            if ((rc = acreE_buf_putc(&b, (uint8_t)c)))
                break;
            ps->i++;
        }
    }
    acreE_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------------
 * Resolving descriptions against the schema
 */

/* A cached subtypes bitmap of `type`: 1 with *out, or 0. */
static int
subtypes_cached(const struct ps *ps, int type, const uint64_t **out)
{
    if (ps->subtypes) {
        *out = ps->subtypes[type];
        return ps->subtypes_done[type];
    }
    for (unsigned i = 0; i < ps->nfew; i++)
        if (ps->few_type[i] == type) {
            *out = ps->few_map[i];
            return 1;
        }
    return 0;
}

static int
subtypes_keep(struct ps *ps, int type, const uint64_t *map)
{
    unsigned n = acreS_nattrs(ps->schema);

    if (!ps->subtypes && ps->nfew < SUB_FEW) {
        ps->few_type[ps->nfew] = type;
        ps->few_map[ps->nfew++] = map;
        return 0;
    }
    if (!ps->subtypes) {
        ps->subtypes = talloc_zero_array(ps->tmp, const uint64_t *, n + 1);
        ps->subtypes_done = talloc_zero_array(ps->tmp, uint8_t, n + 1);
        if (!ps->subtypes || !ps->subtypes_done)
            return ACRE_ERR_NOMEM;
        for (unsigned i = 0; i < ps->nfew; i++) {
            ps->subtypes[ps->few_type[i]] = ps->few_map[i];
            ps->subtypes_done[ps->few_type[i]] = 1;
        }
    }
    ps->subtypes[type] = map;
    ps->subtypes_done[type] = 1;
    return 0;
}

/* The bitmap of `type` and its subtypes, or NULL when it has none. */
static int
subtypes_of(struct ps *ps, int type, const uint64_t **out)
{
    unsigned n = acreS_nattrs(ps->schema), count = 0;
    uint64_t *map;

    *out = NULL;
    if (subtypes_cached(ps, type, out))
        return 0;
    if (!(map = bitmap_new(ps->f, n)))
        return ACRE_ERR_NOMEM;
    for (unsigned id = 0; id < n; id++)
        if (acreS_is_subtype(ps->schema, (int)id, type)) {
            bit_set(map, (int)id);
            count++;
        }
    if (count <= 1) {
        talloc_free(map);
        map = NULL;
    }
    *out = map;
    return subtypes_keep(ps, type, map);
}

static void
set_special(struct ps *ps, struct acreF_node *nd)
{
    const struct acreS_known *k = ps->known;
    int t = nd->want.type;

    if (t < 0)
        return;
    if (t == k->objectClass || t == k->structuralObjectClass)
        nd->special = ACREF_SP_OBJECTCLASS; /* by type: options or not */
    else if (nd->want.nopts)
        return; /* the others only as slapd's own descriptions */
    else if (t == k->entryDN)
        nd->special = ACREF_SP_ENTRYDN;
    else if (t == k->hasSubordinates &&
             !(ps->flags & (ACREF_389_SEARCH | ACREF_NO_OPERATION)))
        nd->special = ACREF_SP_HASSUBORDINATES; /* 389: see sub_rewrite */
    else if (t == k->subschemaSubentry)
        nd->special = ACREF_SP_SUBSCHEMA;
    else if (t == k->isMemberOf)
        nd->special = ACREF_SP_ISMEMBEROF;
    else if (t == k->memberOf)
        nd->special = ACREF_SP_MEMBEROF;
    else if (t == k->nsRole)
        nd->special = ACREF_SP_NSROLE;
}

/*
 * Resolve the description s[off..off+n) of nd: keep it as written, and a
 * copy with lowercased options for the schema's lookup.
 */
static int
resolve_desc(struct ps *ps, struct acreF_node *nd, size_t off, size_t n)
{
    char *asis = talloc_strndup(ps->f, ps->s + off, n);
    char *low = talloc_strndup(ps->f, ps->s + off, n);
    const struct acreS_attr *at;
    int rc;

    if (!asis || !low)
        return ACRE_ERR_NOMEM;
    if ((rc = check_desc(ps, asis, n, off)))
        return rc;
    for (char *p = strchr(low, ';'); p && *p; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p + 32);
    nd->desc = asis;
    nd->desc_len = n;
    if (acreS_desc_parse(ps->schema, low, n, &nd->want) != 0)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, off,
                    "invalid attribute description (at most %d options)",
                    ACRES_MAX_OPTIONS);
    if (nd->want.type < 0) {
        nd->undef = acreS_is389(ps->schema) ? ACREF_UNDEF_ABSENT : 1;
        return 0;
    }
    at = acreS_attr(ps->schema, nd->want.type);
    if ((ps->flags & ACREF_389_NAMES) &&
        (strlen(at->dn.name) != nd->want.name_len ||
         strncasecmp(at->dn.name, nd->want.name, nd->want.name_len))) {
        nd->undef = 2; /* made (|) once parsed: absent_items() */
        return 0;
    }
    /* 389 takes any options on any type (an item on "cn;x-foo" or
     * "createTimestamp;binary" looks for that subtype) */
    if (!acreS_is389(ps->schema) &&
        !acreS_slapd_desc_ok(ps->schema, at, &nd->want)) {
        nd->undef = 1;
        return 0;
    }
    set_special(ps, nd);
    /* 389 computes hasSubordinates only for what it sends: an entry it
     * tests against a filter of its own holds none */
    if ((ps->flags & ACREF_389_NAMES) &&
        nd->special == ACREF_SP_HASSUBORDINATES) {
        nd->undef = 2;
        return 0;
    }
    struct acreS_rules r = acreS_rules(ps->schema, at);
    nd->trules = (struct acreF_rules){r.eq, r.ord, r.sub};
    /* 389 looks for the type itself (and its options' subtypes): an
     * item on "name" finds no cn or sn (slapi_attr_type_cmp compares
     * base names) */
    if (acreS_is389(ps->schema))
        return 0;
    return subtypes_of(ps, nd->want.type, &nd->types);
}

/* ------------------------------------------------------------------------
 * Preparing assertion values
 */

/* Normalise assertion v by equality rule eq, for an item on `type` used
 * as `use` (acreM_assertion), into talloc memory: 0, 1 (invalid value),
 * or ACRE_ERR_NOMEM. */
static int
normalise(struct ps *ps, int type, int eq, enum acreM_use use, const uint8_t *v,
          size_t n, const uint8_t **out, size_t *out_len)
{
    uint8_t local[256];
    struct acreE_buf b;
    uint8_t *p;
    int rc;

    acreE_buf_init(&b, local, sizeof local);
    rc = acreM_assertion(ps->schema, type, eq, use, v, n, &b);
    if (rc == 0) {
        p = talloc_size(ps->f, b.len + 1);
        if (p) {
            memcpy(p, b.p, b.len);
            p[b.len] = '\0';
            *out = p;
            *out_len = b.len;
        } else {
            rc = ACRE_ERR_NOMEM;
        }
    } else if (rc != ACRE_ERR_NOMEM) {
        rc = 1;
    }
    acreE_buf_free(&b);
    return rc;
}

/* nd's assertion taken as it was written (389 compares it unprepared) */
static void
as_written(struct acreF_node *nd)
{
    nd->norm = nd->raw;
    nd->norm_len = nd->raw_len;
}

/*
 * invalid389 -- an assertion value that rule eq refuses, under a 389
 * schema.  389 validates no assertion: it compares the value as its
 * syntax normalises text.  On an integer rule (=, >=, <=) that is
 * value_cmp's order of integer text: sign, then length, then bytes, the
 * text without leading blanks and zeros, its runs of blanks made one and
 * its trailing blanks gone (int389, norm that text: " 1000" equals 1000).
 * Any other equality finds no stored value (389 stores only valid ones);
 * other orderings stay UNDEFINED.
 */
static int
invalid389(struct ps *ps, struct acreF_node *nd, int eq)
{
    if (eq != ACREM_INTEGER) {
        if (nd->kind != ACREF_EQUALITY) {
            nd->undef = 1;
            return 0;
        }
        nd->never = 1;
        as_written(nd);
        return 0;
    }
    const uint8_t *v = nd->raw, *e = nd->raw + nd->raw_len;
    uint8_t *t = talloc_size(ps->f, nd->raw_len + 2);
    size_t n = 0;
    int zero = 0, blank = 0;

    if (!t)
        return ACRE_ERR_NOMEM;
    while (v < e && acreE_space389(*v))
        v++;
    if (v < e && *v == '-')
        t[n++] = '-', v++;
    while (v < e && *v == '0')
        zero = 1, v++;
    if (v == e)
        n = 0; /* no digit left: "0" after zeros, else nothing */
    if (v == e && zero)
        t[n++] = '0';
    for (; v < e; v++) {
        int sp = acreE_space389(*v);
        if (!(sp && blank))
            t[n++] = *v;
        blank = sp;
    }
    while (n > 0 && blank && acreE_space389(t[n - 1]))
        n--;
    t[n] = 0;
    nd->norm = t;
    nd->norm_len = n;
    nd->int389 = 1;
    return 0;
}

/* Set nd->norm from nd->raw under equality rule eq; undef when invalid. */
static int
prepare_value(struct ps *ps, struct acreF_node *nd, int rule, int eq)
{
    int rc;

    nd->rule = rule;
    nd->rule_eq = eq;
    if (eq == ACREM_NONE) {
        /* slapd: UNDEFINED on every entry; 389: on an entry holding the
         * attribute, FALSE on the others (ava_attr) */
        nd->undef = !acreS_syntax_match(ps->schema);
        return 0;
    }
    rc = normalise(ps, nd->want.type, eq,
                   nd->kind == ACREF_APPROX ? ACREM_USE_APPROX : ACREM_USE_EQ,
                   nd->raw, nd->raw_len, &nd->norm, &nd->norm_len);
    if (rc == 1 && (ps->flags & ACREF_389_SEARCH) &&
        nd->want.type == ps->known->hasSubordinates) {
        /* 389 stores no hasSubordinates: an item its back end left (an
         * invalid value: sub_rewrite) finds no attribute, so it is FALSE
         * once its access is checked, not UNDEFINED */
        as_written(nd);
        return 0;
    }
    if (rc == 1 && acreS_is389(ps->schema))
        return invalid389(ps, nd, eq);
    if (rc == 1)
        nd->undef = 1;
    return rc < 0 ? rc : 0;
}

/* The names and OIDs of the classes in nd->subclasses, as the schema
 * spells them (class id order, each class's names before its OID), into
 * v when not NULL; returns how many there are. */
static unsigned
sub_names(const acre_schema *s, const struct acreF_node *nd,
          struct acreF_class_name *v)
{
    unsigned nc = acreS_nclasses(s), k = 0;

    for (unsigned id = 0; id < nc; id++) {
        const struct acreS_class *c = acreS_class(s, (int)id);

        if (!acreF_bit(nd->subclasses, (int)id))
            continue;
        for (unsigned j = 0; j <= c->nnames; j++) {
            const char *name = j < c->nnames ? c->names[j] : c->oid;

            if (name && v)
                v[k] = (struct acreF_class_name){(const uint8_t *)name,
                                                 strlen(name), (int)id};
            k += name != NULL;
        }
    }
    return k;
}

/*
 * The subclasses' names when there are few: stored objectClass values are
 * compared with them as written, ignoring ASCII case (as slapd's
 * oc_bvfind does), so matching does not depend on how the OID syntax
 * normalises.  With more, values are looked up in the schema's index of
 * every name and OID (acreF_class_lookup): no filter has a table of its
 * own.
 */
static int
subclass_names(struct ps *ps, struct acreF_node *nd)
{
    unsigned k = sub_names(ps->schema, nd, NULL);
    struct acreF_class_name *v;

    if (k > ACREF_SUBNAMES_MAX)
        return 0;
    if (!(v = talloc_array(ps->f, struct acreF_class_name, k ? k : 1)))
        return ACRE_ERR_NOMEM;
    nd->subnames = v;
    nd->nsubnames = sub_names(ps->schema, nd, v);
    return 0;
}

/* objectClass items: the asserted class and its subclasses. */
static int
prepare_class(struct ps *ps, struct acreF_node *nd)
{
    const acre_schema *s = ps->schema;
    unsigned nc = acreS_nclasses(s);
    uint64_t *map;

    const char *name = (const char *)nd->raw;
    size_t len = nd->raw_len;
    if (acreS_is389(s)) { /* 389 trims the assertion's white space */
        while (len && acreE_space389((unsigned char)*name))
            name++, len--;
        while (len && acreE_space389((unsigned char)name[len - 1]))
            len--;
    }
    nd->cls = acreS_class_find(s, name, len);
    if (nd->cls < 0 && acreS_is389(s) && nd->kind == ACREF_EQUALITY) {
        nd->never = 1; /* 389 compares it with the stored names */
        as_written(nd);
        return 0;
    }
    if (nd->cls < 0) {
        nd->undef = 1; /* slapd's objectClassPretty refuses it */
        return 0;
    }
    /* the assertion as slapd prettifies it: the class's canonical name */
    nd->norm = (const uint8_t *)acreS_class(s, nd->cls)->name;
    nd->norm_len = strlen(acreS_class(s, nd->cls)->name);
    if (!(map = bitmap_new(ps->f, nc)))
        return ACRE_ERR_NOMEM;
    for (unsigned id = 0; id < nc; id++)
        if (acreS_class_is(s, (int)id, nd->cls))
            bit_set(map, (int)id);
    nd->subclasses = map;
    return subclass_names(ps, nd);
}

/* Is nd's type one whose ~= 389 hands to its octet-string plugin (bin.c:
 * octetStringMatch, or no equality rule and a syntax of that plugin),
 * which never matches? */
static int
octet389(const struct ps *ps, const struct acreF_node *nd)
{
    static const char *const bin[] = {
        "1.3.6.1.4.1.1466.115.121.1.5",  /* Binary */
        "1.3.6.1.4.1.1466.115.121.1.23", /* Fax */
        "1.3.6.1.4.1.1466.115.121.1.28", /* JPEG */
        "1.3.6.1.4.1.1466.115.121.1.40"  /* Octet String */
    };
    const struct acreS_attr *at = acreS_attr(ps->schema, nd->want.type);

    if (at->eq != ACREM_NONE || !at->syntax)
        return at->eq == ACREM_OCTET;
    for (size_t i = 0; i < sizeof bin / sizeof *bin; i++)
        if (!strcmp(at->syntax, bin[i]))
            return 1;
    return 0;
}

/* =, ~=, >=, <= */
static int
prepare_ava(struct ps *ps, struct acreF_node *nd)
{
    const struct acreF_rules at = nd->trules; /* acreS_rules */
    int rc;

    if (nd->kind == ACREF_GE || nd->kind == ACREF_LE) {
        const struct acreM_info *mi = acreM_info(at.ord);
        return prepare_value(ps, nd, at.ord, mi ? mi->eq : ACREM_NONE);
    }
    if (nd->kind == ACREF_APPROX && acreS_is389(ps->schema)) {
        /* 389 compares phonetic words of the assertion as sent and the
         * values as stored, whatever the type's rules and syntax
         * (filter_approx389.c), but for the octet-string types */
        nd->approx389 = octet389(ps, nd) ? A389_NEVER : A389_WORDS;
        as_written(nd);
        return 0;
    }
    if (nd->special == ACREF_SP_OBJECTCLASS) {
        nd->rule = nd->rule_eq = at.eq;
        return prepare_class(ps, nd);
    }
    if ((rc = prepare_value(ps, nd, at.eq, at.eq)))
        return rc;
    if (nd->undef && nd->special == ACREF_SP_MEMBEROF &&
        nd->kind == ACREF_EQUALITY && at.eq == ACREM_NONE) {
        /* a virtual memberOf compares DNs (memberof.c) */
        rc = normalise(ps, nd->want.type, ACREM_DN, ACREM_USE_EQ, nd->raw,
                       nd->raw_len, &nd->norm, &nd->norm_len);
        nd->vdn = rc == 0;
        return rc < 0 ? rc : 0;
    }
    if (nd->undef)
        return 0;
    if (nd->special == ACREF_SP_HASSUBORDINATES) {
        const uint8_t *t;
        size_t tl;
        rc = normalise(ps, nd->want.type, at.eq, ACREM_USE_EQ,
                       (const uint8_t *)"TRUE", 4, &t, &tl);
        if (rc < 0)
            return rc;
        nd->hs_true =
            rc == 0 && acreE_norm_cmp(t, tl, nd->norm, nd->norm_len) == 0;
        return 0;
    }
    if (nd->kind == ACREF_APPROX && acreF_approx_rule(at.eq)) {
        rc = acreF_approx_codes(ps->f, nd->raw, nd->raw_len, &nd->codes,
                                &nd->ncodes);
        nd->approx_ok = rc == 0;
        return rc < 0 ? rc : 0;
    }
    return 0;
}

static int
prepare_part(struct ps *ps, int sub, enum acreM_substr_pos pos,
             const struct seg *sg, const uint8_t **out, size_t *out_len)
{
    uint8_t local[256];
    struct acreE_buf b;
    uint8_t *p;
    int rc;

    acreE_buf_init(&b, local, sizeof local);
    rc = acreM_substr_prep(ps->schema, sub, pos, sg->p, sg->len, &b);
    if (rc == 0 && !(p = talloc_size(ps->f, b.len + 1)))
        rc = ACRE_ERR_NOMEM;
    if (rc == 0) {
        memcpy(p, b.p, b.len);
        p[b.len] = '\0';
        *out = p;
        *out_len = b.len;
    }
    acreE_buf_free(&b);
    return rc == 0 ? 0 : rc == ACRE_ERR_NOMEM ? rc : 1;
}

/* The syntax rule `eq` compares, as acreM_syntax_find knows it. */
static int
rule_syntax(int eq)
{
    for (size_t i = 0; i < sizeof rule_syntaxes / sizeof *rule_syntaxes; i++)
        if (rule_syntaxes[i].rule == eq)
            return acreM_syntax_find(rule_syntaxes[i].syntax,
                                     strlen(rule_syntaxes[i].syntax));
    return ACREM_SYN_UNKNOWN;
}

/*
 * slapd validates each substrings part as a value of the type's EQUALITY
 * rule's syntax (get_ssa), so "(postalAddress=*a$*)" is UNDEFINED: "a$"
 * is no postal address.
 */
static int
parts_valid(struct ps *ps, const struct acreF_node *nd, int eq)
{
    int syn = rule_syntax(eq);

    for (unsigned i = 0; i < nd->nparts; i++)
        if (!acreM_validate(ps->schema, syn, nd->parts[i], nd->part_len[i]))
            return 0;
    return 1;
}

/* Substrings: the pattern, each part prepared by the type's SUBSTR rule. */
static int
prepare_subs(struct ps *ps, struct acreF_node *nd)
{
    const struct acreF_rules at = nd->trules; /* acreS_rules */
    const uint8_t **any;
    size_t *any_len;
    unsigned k = 0, last = nd->nparts;
    int rc = 0;
    struct seg sg;

    nd->rule = at.sub;
    nd->rule_eq = at.sub ? acreM_info(at.sub)->eq : ACREM_NONE;
    /* 389's DN substrings take any text as a component */
    if (at.sub == ACREM_NONE && acreS_syntax_match(ps->schema))
        return 0; /* as prepare_value: subs_attr answers per entry */
    if (at.sub == ACREM_NONE ||
        !parts_valid(ps, nd,
                     at.sub == ACREM_DN_SUB ? ACREM_CASE_IGNORE : at.eq)) {
        nd->undef = 1;
        return 0;
    }
    any = talloc_zero_array(ps->f, const uint8_t *, nd->nparts + 1);
    any_len = talloc_zero_array(ps->f, size_t, nd->nparts + 1);
    if (!any || !any_len)
        return ACRE_ERR_NOMEM;
    if (nd->has_final)
        last--;
    for (unsigned i = 0; i < nd->nparts && rc == 0; i++) {
        enum acreM_substr_pos pos = ACREM_ANY;
        const uint8_t **o = &any[k];
        size_t *ol = &any_len[k];

        sg.p = (uint8_t *)nd->parts[i];
        sg.len = nd->part_len[i];
        if (i == 0 && nd->has_initial) {
            pos = ACREM_INITIAL;
            o = &nd->pat.initial;
            ol = &nd->pat.initial_len;
        } else if (i == last) {
            pos = ACREM_FINAL;
            o = &nd->pat.final;
            ol = &nd->pat.final_len;
        } else {
            k++;
        }
        rc = prepare_part(ps, at.sub, pos, &sg, o, ol);
    }
    nd->pat.any = any;
    nd->pat.any_len = any_len;
    nd->pat.nany = k;
    if (rc == 1)
        nd->undef = 1;
    return rc < 0 ? rc : 0;
}

/* slapd's SLAP_MR_EXT: equality and ordering rules, less the UUID ones. */
static int
ext_capable(int rule)
{
    const struct acreM_info *mi = acreM_info(rule);

    if (rule > ACREM_COUNT)
        return 1;
    return mi && (mi->usage == ACREM_EQ || mi->usage == ACREM_ORD) &&
           rule != ACREM_UUID && rule != ACREM_UUID_ORD;
}

/* slapd's mr_usable_with_at for the rules acre knows; under a 389
 * schema (any) every rule is usable with every type, as 389 applies a
 * named rule to any values. */
static int
ext_usable(int rule, const struct acreS_attr *at, int any)
{
    const struct rule_syntax *rs = NULL;

    if (!ext_capable(rule))
        return 0;
    if (rule == at->eq || any)
        return 1;
    for (size_t i = 0; i < sizeof rule_syntaxes / sizeof *rule_syntaxes; i++)
        if (rule_syntaxes[i].rule == rule)
            rs = &rule_syntaxes[i];
    if (!rs || !at->syntax)
        return 0;
    if (strcmp(at->syntax, rs->syntax) == 0)
        return 1;
    for (const char *const *c = rs->compat; c && *c; c++)
        if (strcmp(at->syntax, *c) == 0)
            return 1;
    return 0;
}

/*
 * slapd gives objectClass and structuralObjectClass a syntax of their own
 * (schema_prep.c), so no named matching rule is usable with them in an
 * extensible match: only their equality rule, used when none is named.
 */
static int
private_syntax(const struct ps *ps, int type)
{
    return type >= 0 && (type == ps->known->objectClass ||
                         type == ps->known->structuralObjectClass);
}

/* The extensible item's rule is unusable: UNDEFINED, or an error. */
static int
rule_unusable(struct ps *ps, struct acreF_node *nd, size_t off, const char *why)
{
    nd->undef = 1;
    if (ps->flags & ACREF_STRICT_RULES)
        return fail(ps, ACRE_ERR_FILTER_RULE, off, "%s", why);
    return 0;
}

/* A rule by name or OID: match.h's, or one of local_rules. */
static int
find_rule(const char *name, size_t n)
{
    int r = acreM_find(name, n);

    for (size_t i = 0;
         r == ACREM_NONE && i < sizeof local_rules / sizeof *local_rules; i++) {
        const char *k = acreE_is_digit((unsigned char)name[0])
                            ? local_rules[i].oid
                            : local_rules[i].name;
        if (strlen(k) == n && strncasecmp(k, name, n) == 0)
            r = local_rules[i].rule;
    }
    return r;
}

/* Is s[0..n) one of the collation rules of 389's internationalization
 * plugin (slapd-collations.conf: a language tag such as en or de-AT,
 * "default", or an OID under 2.16.840.1.113730.3.3.2)?  389 serves
 * those: filter_collate.c compares by the ones its default
 * configuration has; any other such item is UNDEFINED. */
static int
collation_rule(const char *s, size_t n)
{
    static const char arc[] = "2.16.840.1.113730.3.3.2.";
    size_t i = 0, k;

    if (n > sizeof arc - 1 && !memcmp(s, arc, sizeof arc - 1))
        return 1;
    if (n == 7 && !strncasecmp(s, "default", 7))
        return 1;
    for (k = 0; i < n && acreE_is_alpha((unsigned char)s[i]); i++, k++)
        ;
    if (k < 2 || k > 3)
        return 0;
    if (i < n && s[i] == '-') {
        for (k = 0, i++; i < n && acreE_is_alpha((unsigned char)s[i]); i++)
            k++;
        if (k < 2 || k > 4)
            return 0;
    }
    return i == n;
}

static int
prepare_ext_rule(struct ps *ps, struct acreF_node *nd, size_t rule_off)
{
    const acre_schema *s = ps->schema;
    const struct acreS_attr *at =
        nd->want.type >= 0 ? acreS_attr(s, nd->want.type) : NULL;
    int r;

    if (nd->rule_text) {
        r = find_rule(nd->rule_text, nd->rule_len);
        if (ACREF_RULE_IS_DN(r) && acreS_syntax_match(s))
            r = ACREM_NONE; /* slapd's own: 389 has no such rule */
        if (r == ACREM_NONE && nd->desc && !nd->dnattrs &&
            (ps->flags & (ACREF_389_SEARCH | ACREF_389_NAMES |
                          ACREF_389_RAWSUBS | ACREF_389_PARENS)) &&
            collation_rule(nd->rule_text, nd->rule_len)) {
            /* 389's collation plugin (filter_collate.c) */
            struct acreF_coll *c = NULL;
            int rc = acreF_coll_prepare(ps->f, nd->rule_text, nd->rule_len,
                                        nd->raw, nd->raw_len, &c);
            if (rc)
                return rc;
            if ((nd->coll = c))
                return 0;
        }
        if (r == ACREM_NONE && (ps->flags & ACREF_389_SEARCH) &&
            !collation_rule(nd->rule_text, nd->rule_len))
            return fail(ps, ACRE_ERR_FILTER_RULE, rule_off,
                        "unknown matching rule: 389 refuses the search");
        if (r == ACREM_NONE)
            return rule_unusable(ps, nd, rule_off, "unknown matching rule");
        /* 389 has no extensible filter for a substrings rule either */
        if ((ps->flags & ACREF_389_SEARCH) && r > ACREM_NONE &&
            r < ACREM_COUNT && acreM_info(r)->usage == ACREM_SUB)
            return fail(ps, ACRE_ERR_FILTER_RULE, rule_off,
                        "substrings rule in extensible match: 389 refuses "
                        "the search");
    } else {
        r = at ? at->eq : ACREM_NONE;
        if (!ext_capable(r))
            return rule_unusable(ps, nd, rule_off,
                                 "no equality rule usable in extensible "
                                 "match for this type");
    }
    if (at && (!ext_usable(r, at, acreS_syntax_match(s)) ||
               (nd->rule_text && private_syntax(ps, nd->want.type) &&
                !acreS_syntax_match(s))))
        return rule_unusable(ps, nd, rule_off,
                             "matching rule not usable with this type");
    if (!at && !ext_capable(r))
        return rule_unusable(ps, nd, rule_off,
                             "matching rule not usable in extensible match");
    nd->rule = r;
    nd->ord_ge = acreS_syntax_match(s) != 0;
    nd->rule_eq = ACREF_RULE_IS_DN(r) ? ACREM_DN
                  : r > ACREM_COUNT   ? ACREM_INTEGER
                                      : acreM_info(r)->eq;
    return 0;
}

static int
prepare_ext(struct ps *ps, struct acreF_node *nd, size_t rule_off)
{
    const acre_schema *s = ps->schema;
    unsigned n = acreS_nattrs(s);
    uint64_t *map;
    int rc;

    if (!nd->desc && (ps->flags & ACREF_389_SEARCH))
        return fail(ps, ACRE_ERR_FILTER_RULE, rule_off,
                    "an extensible match without a type: 389 refuses the "
                    "search");
    if (nd->desc && nd->want.type < 0) {
        /* an unknown type (parse_desc set undef): the rule is not
         * looked at */
        return 0;
    }
    if ((rc = prepare_ext_rule(ps, nd, rule_off)) || nd->undef || nd->coll)
        return rc;
    /* no rule named (slapd names none: see private_syntax); 389 applies
     * a named rule to objectClass's values as to any others */
    if (nd->desc && nd->special == ACREF_SP_OBJECTCLASS &&
        !(nd->rule_text && acreS_syntax_match(s)))
        return prepare_class(ps, nd);
    if ((rc = prepare_value(ps, nd, nd->rule, nd->rule_eq)) || nd->undef)
        return rc;
    if (nd->rule == ACREF_RULE_BITAND || nd->rule == ACREF_RULE_BITOR)
        nd->bits_range = acreF_int64(nd->norm, nd->norm_len, &nd->bits) != 0;
    if (nd->desc)
        return 0;
    if ((nd->usable = ps->usable[nd->rule]))
        return 0;
    if (!(map = bitmap_new(ps->f, n)))
        return ACRE_ERR_NOMEM;
    for (unsigned id = 0; id < n; id++)
        if (ext_usable(nd->rule, acreS_attr(s, (int)id),
                       acreS_syntax_match(s)) &&
            !private_syntax(ps, (int)id))
            bit_set(map, (int)id);
    nd->usable = ps->usable[nd->rule] = map;
    return 0;
}

/* ------------------------------------------------------------------------
 * Items
 */

/* Keep the non-empty segments of a substrings value as its parts. */
static int
take_parts(struct ps *ps, struct acreF_node *nd, const struct seg *segs,
           unsigned n)
{
    const uint8_t **parts = talloc_array(ps->f, const uint8_t *, n);
    size_t *lens = talloc_array(ps->f, size_t, n);
    unsigned k = 0;

    if (!parts || !lens)
        return ACRE_ERR_NOMEM;
    nd->has_initial = segs[0].len > 0;
    nd->has_final = segs[n - 1].len > 0;
    for (unsigned i = 0; i < n; i++)
        if (segs[i].len) {
            parts[k] = segs[i].p;
            lens[k++] = segs[i].len;
        }
    nd->parts = parts;
    nd->part_len = lens;
    nd->nparts = k;
    return 0;
}

static int
parse_substrings(struct ps *ps, struct acreF_node *nd)
{
    struct seg *segs;
    unsigned n;
    int rc;

    if ((rc = read_value(ps, 1, &segs, &n)))
        return rc;
    if (n == 1) {
        nd->raw = segs[0].p;
        nd->raw_len = segs[0].len;
        return nd->undef ? 0 : prepare_ava(ps, nd);
    }
    if (n == 2 && segs[0].len == 0 && segs[1].len == 0) {
        nd->kind = ACREF_PRESENT;
        return 0;
    }
    for (unsigned k = 1; k + 1 < n; k++)
        if (segs[k].len == 0)
            return fail(ps, ACRE_ERR_FILTER_SYNTAX, segs[k].off,
                        "empty substring between two '*'");
    nd->kind = ACREF_SUBSTRINGS;
    nd->raw389 = (ps->flags & ACREF_389_RAWSUBS) != 0;
    if ((rc = take_parts(ps, nd, segs, n)))
        return rc;
    return nd->undef ? 0 : prepare_subs(ps, nd);
}

/* A value without stars (>=, <=, ~=, :=). */
static int
parse_plain_value(struct ps *ps, struct acreF_node *nd)
{
    struct seg *segs;
    unsigned n;
    int rc;

    if ((rc = read_value(ps, 0, &segs, &n)))
        return rc;
    nd->raw = segs[0].p;
    nd->raw_len = segs[0].len;
    return 0;
}

/* One ":token" of an extensible item; s[i] is the ':'.  Returns 0 with
 * the token in tok and tn, or 1 at ":=". */
static int
ext_token(struct ps *ps, size_t *tok, size_t *tn)
{
    size_t start;

    ps->i++; /* ':' */
    if (peek(ps) == '=') {
        ps->i++;
        return 1;
    }
    start = ps->i;
    while (is_ldh(peek(ps)) || peek(ps) == '.')
        ps->i++;
    if (ps->i == start)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    "expected 'dn', a matching rule or '=' after ':'");
    if (peek(ps) != ':')
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i, "expected ':'");
    *tok = start;
    *tn = ps->i - start;
    return 0;
}

/* attr [":dn"] [":" rule] ":=" value, or [":dn"] ":" rule ":=" value;
 * s[i] is the first ':'. */
static int
parse_extensible(struct ps *ps, struct acreF_node *nd)
{
    size_t tok = 0, tn = 0, rule_off = ps->i, colon;
    int rc;

    nd->kind = ACREF_EXTENSIBLE;
    for (;;) {
        colon = ps->i;
        if ((rc = ext_token(ps, &tok, &tn)) == 1)
            break;
        if (rc)
            return rc;
        if (!nd->dnattrs && !nd->rule_text && tn == 2 &&
            strncasecmp(ps->s + tok, "dn", 2) == 0) {
            nd->dnattrs = 1;
        } else if (!nd->rule_text) {
            if ((rc = check_oid(ps, ps->s + tok, tn, tok, "matching rule")))
                return rc;
            nd->rule_text = talloc_strndup(ps->f, ps->s + tok, tn);
            if (!nd->rule_text)
                return ACRE_ERR_NOMEM;
            nd->rule_len = tn;
            rule_off = tok;
        } else {
            return fail(ps, ACRE_ERR_FILTER_SYNTAX, tok,
                        "expected ':=' after the matching rule");
        }
    }
    if (!nd->desc && !nd->rule_text)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, colon,
                    "extensible match needs an attribute type or a "
                    "matching rule");
    if ((rc = parse_plain_value(ps, nd)))
        return rc;
    return prepare_ext(ps, nd, rule_off);
}

/* The operator after a description: kind, or an error. */
static int
parse_op(struct ps *ps, int *kind)
{
    int c = peek(ps);

    switch (c) {
    case '=':
        ps->i++;
        *kind = ACREF_EQUALITY;
        return 0;
    case ':':
        *kind = ACREF_EXTENSIBLE;
        return 0;
    case '~':
    case '>':
    case '<':
        ps->i++;
        if (peek(ps) != '=')
            return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                        "expected '=' after '%c'", c);
        ps->i++;
        *kind = c == '~' ? ACREF_APPROX : c == '>' ? ACREF_GE : ACREF_LE;
        return 0;
    default:
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    "expected '=', '~=', '>=', '<=' or ':' after the "
                    "attribute description");
    }
}

/* An item, up to (not including) its closing ')' or the end. */
static int
parse_item(struct ps *ps, struct acreF_node **out)
{
    struct acreF_node *nd = node_new(ps, ACREF_EQUALITY);
    size_t start = ps->i;
    int rc, kind;

    if (!nd)
        return ACRE_ERR_NOMEM;
    while (is_ldh(peek(ps)) || peek(ps) == '.' || peek(ps) == ';')
        ps->i++;
    if (ps->i == start && peek(ps) != ':')
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    "expected an attribute description");
    if (ps->i > start && (rc = resolve_desc(ps, nd, start, ps->i - start)))
        return rc;
    if ((rc = parse_op(ps, &kind)))
        return rc;
    nd->kind = (uint8_t)kind;
    if (kind == ACREF_EXTENSIBLE)
        rc = parse_extensible(ps, nd);
    else if (kind == ACREF_EQUALITY)
        rc = parse_substrings(ps, nd);
    else if (!(rc = parse_plain_value(ps, nd)) && !nd->undef)
        rc = prepare_ava(ps, nd);
    *out = nd;
    return rc;
}

/* ------------------------------------------------------------------------
 * Filters and lists
 */

static int
add_kid(struct ps *ps, struct acreF_node *nd, struct acreF_node *kid,
        size_t *cap)
{
    struct acreF_node **k =
        grow(ps->f, nd->kids, sizeof *nd->kids, nd->nkids, cap);

    if (!k)
        return ACRE_ERR_NOMEM;
    k[nd->nkids++] = kid;
    nd->kids = k;
    if (kid->kind == ACREF_EXTENSIBLE || kid->ext_below)
        nd->ext_below = 1;
    return 0;
}

/* After "(&", "(|" or "(!": the list, up to the closing ')'. */
static int
parse_set(struct ps *ps, struct acreF_node *nd, size_t open)
{
    struct acreF_node *kid;
    size_t cap = 0;
    int rc;

    if (++ps->depth > ACREF_MAX_DEPTH)
        return fail(ps, ACRE_ERR_FILTER_NESTING, open,
                    "filter nested deeper than %d", ACREF_MAX_DEPTH);
    ps->i++; /* the operator */
    for (;;) {
        skip_spaces(ps);
        if (peek(ps) != '(')
            break;
        if (nd->kind == ACREF_NOT && nd->nkids == 1)
            return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                        "'!' takes exactly one filter");
        if ((rc = parse_filter(ps, &kid)) || (rc = add_kid(ps, nd, kid, &cap)))
            return rc;
    }
    if (peek(ps) != ')')
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    peek(ps) < 0 ? "missing ')'" : "expected '(' or ')'");
    if (nd->kind == ACREF_NOT && nd->nkids == 0)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i, "'!' needs a filter");
    if (nd->nkids == 0)
        nd->kind =
            nd->kind == ACREF_AND ? ACREF_ABSOLUTE_TRUE : ACREF_ABSOLUTE_FALSE;
    ps->depth--;
    return 0;
}

/* "(" filtercomp ")" at s[i]. */
static int
parse_filter(struct ps *ps, struct acreF_node **out)
{
    size_t open = ps->i;
    int c, rc;

    if (peek(ps) != '(')
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i, "expected '('");
    ps->i++;
    skip_spaces(ps);
    c = peek(ps);
    if (c == '&' || c == '|' || c == '!') {
        struct acreF_node *nd = node_new(ps, c == '&'   ? ACREF_AND
                                             : c == '|' ? ACREF_OR
                                                        : ACREF_NOT);
        if (!nd)
            return ACRE_ERR_NOMEM;
        *out = nd;
        rc = parse_set(ps, nd, open);
    } else {
        rc = parse_item(ps, out);
        if (!rc && peek(ps) != ')')
            rc = fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i, "missing ')'");
    }
    if (!rc)
        ps->i++; /* ')' */
    return rc;
}

/* The whole input: one filter (or a bare item), spaces around it. */
static int
parse_top(struct ps *ps)
{
    int rc;

    skip_spaces(ps);
    if (peek(ps) == '(') {
        rc = parse_filter(ps, &ps->f->root);
    } else {
        rc = parse_item(ps, &ps->f->root);
        if (!rc && peek(ps) == ')')
            rc = fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i, "unbalanced ')'");
    }
    if (rc)
        return rc;
    skip_spaces(ps);
    if (ps->i < ps->n)
        return fail(ps, ACRE_ERR_FILTER_SYNTAX, ps->i,
                    "unexpected text after the filter");
    return 0;
}

static int
ps_init(struct ps *ps, const acre_schema *schema, const char *str, size_t len,
        unsigned flags, acre_diag *diag)
{
    unsigned n = acreS_nattrs(schema);

    memset(ps, 0, sizeof *ps);
    ps->s = str;
    ps->n = len;
    ps->flags = flags;
    ps->schema = schema;
    ps->known = acreS_known(schema);
    ps->diag = diag;
    ps->tmp = talloc_new(NULL);
    if (!ps->tmp)
        return ACRE_ERR_NOMEM;
    ps->f = talloc_zero(ps->tmp, struct acreF_filter);
    if (!ps->f)
        return ACRE_ERR_NOMEM;
    ps->f->magic = ACREF_MAGIC;
    ps->f->schema = schema;
    ps->f->nattrs = n;
    return 0;
}

/* ------------------------------------------------------------------------
 * 389's rewrite of numSubordinates and hasSubordinates items
 *
 * Before its back end tests a search filter, 389 (2.3, back-ldbm
 * ldbm_attr.c: ldbm_compute_rewriter, grok_and_rewrite_filter) rewrites
 * the items on numSubordinates, which it stores on every entry with
 * children, and hasSubordinates, which it stores nowhere; its filter
 * decoder has already named each type by its schema's first name, so an
 * OID or alias counts, a type with options does not:
 *   hasSubordinates=TRUE          (&(numsubordinates=*)(numsubordinates>=1))
 *   hasSubordinates=FALSE         (&(objectclass=*)(!(numsubordinates=*)))
 *   numSubordinates=v, atoi(v)>0  (&(numsubordinates=*)(numsubordinates=v))
 *   numSubordinates=v, atoi(v)=0  (&(objectclass=*)(!(numsubordinates=*)))
 *   numSubordinates>=v, atoi(v)=0 (objectclass=*)
 *   numSubordinates>=v, otherwise (&(numsubordinates=*)(numsubordinates>=v))
 *   either type =*                (objectclass=*)
 * (TRUE and FALSE in any case; v as written).  Any other item on them
 * (hasSubordinates=v, numSubordinates=v with atoi(v) < 0, <=, >=
 * on hasSubordinates, ~=, substrings) cannot be rewritten: the whole
 * filter being that item, 389 refuses the search (unwillingToPerform);
 * inside a list it stays as it is.  Extensible items stay too.  The one
 * filter (&(numSubordinates=*)(numSubordinates>=1)) is left alone, by a
 * comparison of its text.
 */

static int put_str(struct acreE_buf *b, const char *s, size_t n);
static int put_value(struct acreE_buf *b, const uint8_t *v, size_t n);

/* subordinate_type -- 1: nd is on hasSubordinates, 2: numSubordinates,
 * 0: neither (or with options). */
static int
subordinate_type(const struct ps *ps, const struct acreF_node *nd)
{
    int t = nd->want.type;

    if (!nd->desc || t < 0 || nd->want.nopts)
        return 0;
    if (t == ps->known->hasSubordinates)
        return 1;
    return t == acreS_attr_find(ps->schema, "numSubordinates", 15) ? 2 : 0;
}

/* c_atoi -- atoi() of the value as 389 holds it (NUL-terminated: it
 * stops at a NUL inside). */
static long
c_atoi(const struct acreF_node *nd)
{
    char buf[64]; /* (more digits than any int has, and some zeros) */
    size_t n = nd->raw_len < sizeof buf - 1 ? nd->raw_len : sizeof buf - 1;

    memcpy(buf, nd->raw, n);
    buf[n] = '\0';
    return (int)strtol(buf, NULL, 10);
}

/* c_streq -- strcasecmp(value, s) == 0, the value read up to a NUL. */
static int
c_streq(const struct acreF_node *nd, const char *s)
{
    size_t n = strnlen((const char *)nd->raw, nd->raw_len);

    return n == strlen(s) && strncasecmp((const char *)nd->raw, s, n) == 0;
}

/* graft -- replace *slot by the filter text head+value+tail (value
 * escaped), parsed as the rest was. */
static int
graft(struct ps *ps, struct acreF_node **slot, const char *head,
      const struct acreF_node *v, const char *tail)
{
    struct acreE_buf b;
    struct acreF_filter *f = NULL;
    uint8_t local[256];
    int rc;

    acreE_buf_init(&b, local, sizeof local);
    rc = put_str(&b, head, strlen(head));
    if (!rc && v)
        rc = put_value(&b, v->raw, v->raw_len);
    if (!rc)
        rc = put_str(&b, tail, strlen(tail));
    if (!rc)
        rc = acreF_parse_flags(ps->f, ps->schema, (const char *)b.p, b.len,
                               ps->flags & ~ACREF_389_SEARCH, &f, NULL);
    acreE_buf_free(&b);
    if (rc)
        return rc;
    *slot = f->root;
    return 0;
}

/* sub_rewrite -- grok_and_rewrite_filter on *slot, replacing it when it
 * rewrites it: 0 (or an error), *cannot set where it returns 1 (an item
 * it cannot rewrite). */
static int
sub_rewrite(struct ps *ps, struct acreF_node **slot, int *cannot)
{
    struct acreF_node *nd = *slot;
    int which = subordinate_type(ps, nd), rc;
    long v = which == 2 && nd->raw ? c_atoi(nd) : 0;

    *cannot = 0;
    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR:
    case ACREF_NOT:
        for (unsigned i = 0; i < nd->nkids; i++) {
            int ignored;
            if ((rc = sub_rewrite(ps, &nd->kids[i], &ignored)))
                return rc;
        }
        return 0;
    case ACREF_EQUALITY:
        if (which == 1 && c_streq(nd, "TRUE"))
            return graft(ps, slot, "(&(numsubordinates=*)(numsubordinates>=1))",
                         NULL, "");
        if (which == 1 && c_streq(nd, "FALSE"))
            return graft(ps, slot, "(&(objectclass=*)(!(numsubordinates=*)))",
                         NULL, "");
        if (which == 2 && v > 0)
            return graft(ps, slot, "(&(numsubordinates=*)(numsubordinates=", nd,
                         "))");
        if (which == 2 && v == 0)
            return graft(ps, slot, "(&(objectclass=*)(!(numsubordinates=*)))",
                         NULL, "");
        *cannot = which != 0;
        return 0;
    case ACREF_GE:
        if (which == 2)
            return v == 0 ? graft(ps, slot, "(objectclass=*)", NULL, "")
                          : graft(ps, slot,
                                  "(&(numsubordinates=*)(numsubordinates>=", nd,
                                  "))");
        *cannot = which != 0;
        return 0;
    case ACREF_PRESENT:
        return which ? graft(ps, slot, "(objectclass=*)", NULL, "") : 0;
    case ACREF_LE:
    case ACREF_APPROX:
    case ACREF_SUBSTRINGS:
        *cannot = which != 0;
        return 0;
    default:
        return 0;
    }
}

/* left_alone -- the one filter 389 does not rewrite: its text (types by
 * their first name) is (&(numsubordinates=*)(numsubordinates>=1)). */
static int
left_alone(const struct ps *ps, const struct acreF_node *nd)
{
    return nd->kind == ACREF_AND && nd->nkids == 2 &&
           nd->kids[0]->kind == ACREF_PRESENT &&
           subordinate_type(ps, nd->kids[0]) == 2 &&
           nd->kids[1]->kind == ACREF_GE &&
           subordinate_type(ps, nd->kids[1]) == 2 &&
           nd->kids[1]->raw_len == 1 && nd->kids[1]->raw[0] == '1';
}

/* acreF_parse_flags -- see filter.h. */
/* absent_items -- ACREF_389_NAMES: an item on a type written by another
 * name finds no attribute, so it is FALSE, and TRUE under a NOT: (|). */
static void
absent_items(struct acreF_node *nd)
{
    if (nd->undef == 2) {
        nd->kind = ACREF_ABSOLUTE_FALSE;
        nd->undef = 0;
        nd->nkids = 0;
        return;
    }
    if (nd->kind == ACREF_AND || nd->kind == ACREF_OR || nd->kind == ACREF_NOT)
        for (unsigned i = 0; i < nd->nkids; i++)
            absent_items(nd->kids[i]);
}

int
acreF_parse_flags(void *mem_ctx, const acre_schema *schema, const char *str,
                  size_t len, unsigned flags, struct acreF_filter **out,
                  acre_diag *diag)
{
    struct ps ps;
    int rc;

    if (!out || (!str && len))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    if (len > ACREF_MAX_LEN)
        return acreE_diag_set(diag, ACRE_ERR_FILTER_TOO_LONG, ACREF_MAX_LEN,
                              "filter longer than %d bytes", ACREF_MAX_LEN);
    if (!(schema = acreS_freeze(schema)))
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    rc = ps_init(&ps, schema, str ? str : "", len, flags, diag);
    if (rc == 0)
        rc = parse_top(&ps);
    if (rc == 0 && (flags & ACREF_389_NAMES))
        absent_items(ps.f->root);
    if (rc == 0 && (flags & ACREF_389_SEARCH) && !left_alone(&ps, ps.f->root)) {
        int cannot = 0;
        rc = sub_rewrite(&ps, &ps.f->root, &cannot);
        ps.f->unwilling = (uint8_t)cannot;
    }
    if (rc == ACRE_ERR_NOMEM)
        acreE_diag_set(diag, rc, ps.i, "out of memory");
    if (rc == 0)
        *out = talloc_steal(mem_ctx, ps.f);
    talloc_free(ps.tmp);
    return rc;
}

/* acreF_unwilling -- see filter.h. */
int
acreF_unwilling(const struct acreF_filter *f)
{
    return f && f->unwilling;
}

/* acreF_parse -- see filter.h. */
int
acreF_parse(void *mem_ctx, const acre_schema *schema, const char *str,
            size_t len, struct acreF_filter **out, acre_diag *diag)
{
    return acreF_parse_flags(mem_ctx, schema, str, len, 0, out, diag);
}

/* ------------------------------------------------------------------------
 * Printing
 */

static int
put_str(struct acreE_buf *b, const char *s, size_t n)
{
    return acreE_buf_put(b, s, n);
}

static int
put_value(struct acreE_buf *b, const uint8_t *v, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    int utf8 = acreE_utf8_valid(v, n);
    int rc = 0;

    for (size_t k = 0; k < n && !rc; k++) {
        uint8_t c = v[k];

        if (c < 0x20 || c == 0x7f || c == '(' || c == ')' || c == '*' ||
            c == '\\' || (c >= 0x80 && !utf8)) {
            char e[3] = {'\\', hx[c >> 4], hx[c & 15]};
            rc = acreE_buf_put(b, e, 3);
        } else {
            rc = acreE_buf_putc(b, c);
        }
    }
    return rc;
}

static int print_node(const struct acreF_node *nd, struct acreE_buf *b);

static int
print_ext(const struct acreF_node *nd, struct acreE_buf *b)
{
    int rc = 0;

    if (nd->desc)
        rc = put_str(b, nd->desc, nd->desc_len);
    if (!rc && nd->dnattrs)
        rc = put_str(b, ":dn", 3);
    if (!rc && nd->rule_text && !(rc = acreE_buf_putc(b, ':')))
        rc = put_str(b, nd->rule_text, nd->rule_len);
    if (!rc)
        rc = put_str(b, ":=", 2);
    return rc ? rc : put_value(b, nd->raw, nd->raw_len);
}

static int
print_subs(const struct acreF_node *nd, struct acreE_buf *b)
{
    unsigned i = 0;
    int rc = 0;

    if (nd->has_initial)
        rc = put_value(b, nd->parts[i++], nd->part_len[0]);
    for (; !rc && i < nd->nparts; i++) {
        if (!(rc = acreE_buf_putc(b, '*')))
            rc = put_value(b, nd->parts[i], nd->part_len[i]);
    }
    if (!rc && !nd->has_final)
        rc = acreE_buf_putc(b, '*');
    return rc;
}

static int
print_item(const struct acreF_node *nd, struct acreE_buf *b)
{
    static const char *const ops[] = {
        [ACREF_EQUALITY] = "=", [ACREF_GE] = ">=",
        [ACREF_LE] = "<=",      [ACREF_APPROX] = "~=",
        [ACREF_PRESENT] = "=*", [ACREF_SUBSTRINGS] = "=",
    };
    int rc;

    if (nd->kind == ACREF_EXTENSIBLE)
        return print_ext(nd, b);
    if ((rc = put_str(b, nd->desc, nd->desc_len)) ||
        (rc = put_str(b, ops[nd->kind], strlen(ops[nd->kind]))))
        return rc;
    if (nd->kind == ACREF_SUBSTRINGS)
        return print_subs(nd, b);
    if (nd->kind == ACREF_PRESENT)
        return 0;
    return put_value(b, nd->raw, nd->raw_len);
}

static int
print_node(const struct acreF_node *nd, struct acreE_buf *b)
{
    static const char ops[] = {
        [ACREF_AND] = '&', [ACREF_OR] = '|', [ACREF_NOT] = '!'};
    int rc = acreE_buf_putc(b, '(');

    if (rc)
        return rc;
    switch (nd->kind) {
    case ACREF_ABSOLUTE_TRUE:
        rc = acreE_buf_putc(b, '&');
        break;
    case ACREF_ABSOLUTE_FALSE:
        rc = acreE_buf_putc(b, '|');
        break;
    case ACREF_AND:
    case ACREF_OR:
    case ACREF_NOT:
        rc = acreE_buf_putc(b, (uint8_t)ops[nd->kind]);
        for (unsigned i = 0; !rc && i < nd->nkids; i++)
            rc = print_node(nd->kids[i], b);
        break;
    default:
        rc = print_item(nd, b);
    }
    return rc ? rc : acreE_buf_putc(b, ')');
}

/* acreF_to_string -- see filter.h. */
int
acreF_to_string(const struct acreF_filter *f, struct acreE_buf *out)
{
    if (!f || f->magic != ACREF_MAGIC || !out)
        return ACRE_ERR_INVAL;
    return print_node(f->root, out);
}

/* names -- does nd or a node below hold an equality item on `type` (as
 * written) with value `value` (as written), both without case? */
static int
names(const struct acreF_node *nd, const char *type, const char *value)
{
    size_t tl = strlen(type), vl = strlen(value);

    if (nd->kind == ACREF_EQUALITY)
        return nd->desc && nd->desc_len == tl &&
               !strncasecmp(nd->desc, type, tl) && nd->raw &&
               nd->raw_len == vl &&
               !strncasecmp((const char *)nd->raw, value, vl);
    for (unsigned i = 0; i < nd->nkids; i++)
        if (names(nd->kids[i], type, value))
            return 1;
    return 0;
}

/* acreF_names_value -- see filter.h. */
int
acreF_names_value(const struct acreF_filter *f, const char *type,
                  const char *value)
{
    return f && f->root && names(f->root, type, value);
}

/* acreF_parse_389_text -- see filter.h. */
int
acreF_parse_389_text(void *mem_ctx, const acre_schema *schema, const char *s,
                     size_t n, unsigned flags, struct acreF_filter **out)
{
    char *t = n && s[0] == '('
                  ? talloc_strndup(mem_ctx, s, acreF_paren_end(s, n))
                  : talloc_asprintf(mem_ctx, "(%.*s)", (int)n, s);
    int rc;

    if (!t)
        return ACRE_ERR_NOMEM;
    rc = acreF_parse_flags(mem_ctx, schema, t, strlen(t), flags, out, NULL);
    talloc_free(t);
    return rc;
}

/* acreF_paren_end -- see filter.h. */
size_t
acreF_paren_end(const char *s, size_t n)
{
    int depth = 0, esc = 0;

    if (!n || s[0] != '(')
        return n;
    for (size_t i = 0; i < n; i++) {
        if (!esc)
            depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (!depth)
            return i + 1;
        esc = s[i] == '\\' && !esc;
    }
    return n;
}
