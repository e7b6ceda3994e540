/*
 * directory.c -- the in-memory directory: LDIF in, entries indexed by
 * normalised DN and linked into trees (see directory.h).
 *
 * Loading a file is a transaction.  Every record is read (ldif.c), its DN
 * parsed (and refused where slapd refuses it: check_rdns), its attribute
 * descriptions resolved through the schema, each value validated by its
 * syntax and normalised by its EQUALITY rule, its objectClass required and
 * its structuralObjectClass added (as slapadd), and the entry packed into one
 * allocation under a batch context.  Entries
 * are staged in a hash table of their own; only when the whole input has
 * been read and every parent found is the batch committed: the index
 * grown, the entries inserted and linked.  Any error frees the batch and
 * leaves the directory exactly as it was.
 *
 * Index: open addressing on the DN's own ancestry hash h[depth].  The hash
 * only ever proposes: a hit is confirmed by comparing depth and normalised
 * bytes, so a collision can never return the wrong entry.  The same probe
 * finds an ancestor of any DN by h[i] and the normalised suffix.
 *
 * One entry in memory (one talloc chunk, 8-byte aligned parts first):
 *
 *   +------------------------------------------------------------+
 *   | struct dentry (acreE_entry: the view, then directory links) |
 *   | acre_view_attr[nattrs]   acre_value vals[nvals]            |
 *   | acre_value norms[values of types with an equality rule]    |
 *   | const char *desc[nattrs]                                   |
 *   | acre_dn (acre_dn_size bytes, a memcpy of the parsed DN)    |
 *   | uint32_t desc_len[nattrs]                                  |
 *   | bytes: descriptions, values, normalised values             |
 *   +------------------------------------------------------------+
 *
 * A normalised value equal to its stored value shares its bytes.  The
 * view's attributes are in LDIF order (of the first line of each
 * description, as slapadd keeps them), each with its values in LDIF order;
 * a description's id (type and options) is interned in the schema, so an
 * entry stores no options of its own.
 *
 * Threads: loading changes the directory and must run alone; between
 * loads the directory is read-only and any number of threads may query
 * it (find, matched, walk, suffixes) without locks.
 */
#include "directory.h"

#include "buf.h"
#include "dn.h"
#include "internal.h"
#include "ldif.h"
#include "match.h"
#include "schema.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

struct dentry {
    struct acreE_entry e; /* first: a dentry is its entry */
    struct dentry *last_child;
    struct dentry *parent; /* found by the check, linked by the commit */
    int dn_done;           /* its DN text is final (settle_dns) */
    int numsubs_mark;      /* numsubs_389: to be looked at */
};

struct slot {
    uint64_t h;
    struct dentry *e;
};

/* An open-addressing hash table; cap is a power of two or 0. */
struct table {
    struct slot *s;
    size_t cap, n;
};

struct acreE_dir {
    uint32_t magic; /* ACREE_DIR_MAGIC (internal.h: Handles) */
    const acre_schema *schema;
    acre_host host; /* acreE_dir_host: arg is the directory */
    unsigned flags;
    struct table index;
    const struct acreE_entry **suffixes; /* in load order */
    size_t nsuffixes, suffixes_cap;
    size_t count;
    acreE_progress_fn progress; /* acreE_dir_set_progress */
    void *progress_arg;
    acreE_holder_fn holder; /* acreE_dir_set_holder */
    void *holder_arg;
};

/* ------------------------------------------------------------------------
 * Index
 */

/*
 * same_suffix -- is edn the suffix of dn made of its last i RDNs?  Reads
 * the DN layout directly (dn.h): depth, lengths, then the bytes.
 */
static int
same_suffix(const acre_dn *edn, const acre_dn *dn, unsigned i)
{
    uint32_t start;

    if (edn->depth != i)
        return 0;
    start = acreD_nrdn(dn)[dn->depth - i];
    if (i == 0)
        start = dn->norm_len;
    return edn->norm_len == dn->norm_len - start &&
           memcmp(acreD_norm(edn), acreD_norm(dn) + start, edn->norm_len) == 0;
}

/* table_find -- the entry named by the last i RDNs of dn (i <= depth), or
 * NULL.  The hash proposes, same_suffix decides. */
static struct dentry *
table_find(const struct table *t, const acre_dn *dn, unsigned i)
{
    uint64_t h = acreD_h(dn)[i];
    size_t mask = t->cap - 1;

    if (!t->cap)
        return NULL;
    for (size_t p = h & mask;; p = (p + 1) & mask) {
        const struct slot *s = &t->s[p];

        if (!s->e)
            return NULL;
        if (s->h == h && same_suffix(s->e->e.v.dn, dn, i))
            return s->e;
    }
}

/* table_put -- insert e (not present; room reserved). */
static void
table_put(struct table *t, struct dentry *e)
{
    uint64_t h = acreD_h(e->e.v.dn)[e->e.v.dn->depth];
    size_t mask = t->cap - 1, p = h & mask;

    while (t->s[p].e)
        p = (p + 1) & mask;
    t->s[p].h = h;
    t->s[p].e = e;
    t->n++;
}

/*
 * table_reserve -- room for `more` insertions at a load factor <= 1/2.
 * On failure the table is unchanged.
 */
static int
table_reserve(void *ctx, struct table *t, size_t more)
{
    size_t cap = t->cap ? t->cap : 16;
    struct table nt;

    if (more > SIZE_MAX / 4 - t->n)
        return ACRE_ERR_NOMEM;
    while (cap < 2 * (t->n + more))
        cap *= 2;
    if (cap == t->cap)
        return 0;
    nt.s = talloc_zero_array(ctx, struct slot, cap);
    if (!nt.s)
        return ACRE_ERR_NOMEM;
    nt.cap = cap;
    nt.n = 0;
    for (size_t i = 0; i < t->cap; i++)
        if (t->s[i].e)
            table_put(&nt, t->s[i].e);
    talloc_free(t->s);
    *t = nt;
    return 0;
}

/* ------------------------------------------------------------------------
 * Loading: state
 */

/* One attribute value of the record being built. */
struct tv {
    int type;
    int id;       /* the description's id (schema.h: acreS_desc_intern) */
    unsigned idx; /* position in the record, for a stable sort */
    unsigned line, col;
    const char *desc; /* as written */
    size_t desc_len;
    size_t key_off, key_len; /* options: lowercased, sorted, ';'-joined */
    const char *key;         /* set once every key is in `keys` */
    unsigned nopts;
    const uint8_t *val;
    size_t len;
    size_t norm_off, nlen; /* in `norms` */
    int has_norm;
};

struct load {
    struct acreE_dir *d;
    void *scratch; /* everything of this load; freed at the end */
    void *batch;   /* the new entries; stolen by the directory */
    char *chunk;   /* entry storage being carved (entry_mem) */
    size_t chunk_left, chunk_size;
    void *rtmp;       /* per-record allocations */
    const char *name; /* for diagnostics */
    struct table stage;
    struct dentry **list;
    size_t n, cap;
    struct tv *tv, *tv2; /* tv2: room to reorder tv */
    size_t ntv, tvcap;
    uint32_t *ord; /* per-group value order, parallel to tv */
    uint32_t *grp; /* the groups' first values, in LDIF order, parallel */
    struct acreE_buf norms, keys, tmp;
    uint8_t bufs[3][512]; /* their first storage */
    int *syn; /* syntax of each attribute type, -1 until looked up */
    void *dnbuf;
    unsigned nwarn;
    acre_diag *warn, *diag;
    FILE *f; /* the input, NULL for text: where progress reads offsets */
};

/* dn_schema -- the schema DNs are parsed with: the directory's own. */
static const acre_schema *
dn_schema(const struct acreE_dir *d)
{
    return acreE_dir_schema(d);
}

/* fill_diag -- a diagnostic at file:line:column. */
static void
fill_diag(const struct load *L, acre_diag *diag, int code, unsigned line,
          unsigned col, const char *fmt, va_list ap)
{
    char msg[sizeof diag->message];

    vsnprintf(msg, sizeof msg, fmt, ap);
    acreE_diag_set(diag, code, 0, "%s", msg);
    diag->file = L->name;
    diag->line = line;
    diag->column = col;
}

static int __attribute__((format(printf, 5, 6)))
err(struct load *L, int code, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;

    if (L->diag) {
        va_start(ap, fmt);
        fill_diag(L, L->diag, code, line, col, fmt, ap);
        va_end(ap);
    }
    return code;
}

static void __attribute__((format(printf, 4, 5)))
warn(struct load *L, unsigned line, unsigned col, const char *fmt, ...)
{
    va_list ap;

    if (L->nwarn++ == 0 && L->warn) {
        va_start(ap, fmt);
        fill_diag(L, L->warn, 0, line, col, fmt, ap);
        va_end(ap);
    }
}

static int
nomem(struct load *L)
{
    return err(L, ACRE_ERR_NOMEM, 0, 0, "out of memory");
}

/* ------------------------------------------------------------------------
 * Loading: one attribute value
 */
static struct tv *
new_tv(struct load *L)
{
    struct tv *t;

    if (L->ntv == L->tvcap) {
        size_t cap = L->tvcap ? 2 * L->tvcap : 64;
        struct tv *p = talloc_realloc(L->scratch, L->tv, struct tv, cap);
        struct tv *p2 = talloc_realloc(L->scratch, L->tv2, struct tv, cap);
        uint32_t *o = talloc_realloc(L->scratch, L->ord, uint32_t, cap);
        uint32_t *g = talloc_realloc(L->scratch, L->grp, uint32_t, cap);

        if (p)
            L->tv = p;
        if (p2)
            L->tv2 = p2;
        if (o)
            L->ord = o;
        if (g)
            L->grp = g;
        if (!p || !p2 || !o || !g)
            return NULL;
        L->tvcap = cap;
    }
    t = &L->tv[L->ntv];
    t->idx = (unsigned)L->ntv++;
    t->key_off = t->key_len = 0;
    t->nopts = 0;
    t->col = 0;
    t->has_norm = 0;
    t->norm_off = t->nlen = 0;
    return t;
}

static int
opt_cmp(const void *a, const void *b)
{
    const struct {
        const char *p;
        unsigned n;
    } *x = a, *y = b;

    size_t n = x->n < y->n ? x->n : y->n;
    int c = strncasecmp(x->p, y->p, n);

    return c ? c : (int)x->n - (int)y->n;
}

/* put_key -- the options of d as one lowercased, sorted, ';'-joined key. */
static int
put_key(struct load *L, const struct acreS_desc *d, struct tv *t)
{
    struct {
        const char *p;
        unsigned n;
    } o[ACRES_MAX_OPTIONS];

    t->nopts = d->nopts;
    t->key_off = L->keys.len;
    for (unsigned k = 0; k < d->nopts; k++) {
        o[k].p = d->opts[k];
        o[k].n = d->opt_len[k];
    }
    qsort(o, d->nopts, sizeof o[0], opt_cmp);
    for (unsigned k = 0; k < d->nopts; k++) {
        if (k && acreE_buf_putc(&L->keys, ';'))
            return ACRE_ERR_NOMEM;
        for (unsigned j = 0; j < o[k].n; j++) {
            uint8_t c = (uint8_t)o[k].p[j];

            if (acreE_buf_putc(&L->keys, c >= 'A' && c <= 'Z' ? c + 32 : c))
                return ACRE_ERR_NOMEM;
        }
    }
    t->key_len = L->keys.len - t->key_off;
    return 0;
}

/* syntax_of -- the syntax of attribute type id (cached per load). */
static int
syntax_of(struct load *L, const struct acreS_attr *at)
{
    if (L->syn[at->id] < 0)
        L->syn[at->id] = at->syntax
                             ? acreM_syntax_find(at->syntax, strlen(at->syntax))
                             : ACREM_SYN_UNKNOWN;
    return L->syn[at->id];
}

/* value_col -- the column of byte `off` of an LDIF value, 0 if unknown. */
static unsigned
value_col(unsigned col, size_t span, size_t off)
{
    return col && off < span ? col + (unsigned)off : (col ? col : 0);
}

/* slapd_checks -- does this load make slapadd's schema checks? */
static int
slapd_checks(const struct load *L)
{
    return !(L->d->flags & ACRED_DIR_389) &&
           acreS_profile(L->d->schema) == ACRE_PROFILE_SLAPD;
}

/*
 * slapd_trusts -- under slapadd's checks, is t's value taken without its
 * syntax's check?  slapadd does not validate values (str2entry): it only
 * normalises each by its type's equality rule.  slapd's normaliser of
 * caseIgnoreMatch and caseExactMatch (UTF8StringNormalize) takes any
 * UTF-8 text: the empty string (description:), or a countryName of three
 * letters; that of the IA5 rules (IA5StringNormalize) any bytes (a mail
 * with a non-ASCII letter: acreM_normalise_stored), those of
 * telephoneNumberMatch and numericStringMatch any value but the empty
 * one, and that of UUIDMatch reads 36 characters (a UUID and more).
 * integerMatch, booleanMatch, bitStringMatch, octetStringMatch and
 * objectIdentifierMatch have no normaliser, and a type without an
 * equality rule none either: any value, kept as written (a descriptor
 * too, which an OID assertion then does not match; objectClass and
 * structuralObjectClass excepted, whose values slapd looks up as classes)
 * (acreM_normalise_stored; slapd's integerMatch then orders it by sign,
 * length and bytes, as acreM_compare does, and its booleanMatch by
 * length alone).  Other rules keep their syntax's check, where acre stays
 * stricter than slapadd (a rule slapd has and acre does not, such as
 * certificateExactMatch, whose normaliser parses the certificate); so
 * does ACRE_LOAD_STRICT, the LDAP add rule.
 */
static int
slapd_trusts(const struct load *L, const struct acreS_attr *at,
             const struct tv *t)
{
    if (!slapd_checks(L) || (L->d->flags & ACRED_DIR_STRICT_VALUES))
        return 0;
    switch (at->eq) {
    case ACREM_NONE: /* no equality rule at all: nothing is checked */
        return !acreS_attr_rule(L->d->schema, at->id, 1);
    case ACREM_CASE_IGNORE_IA5:
    case ACREM_CASE_EXACT_IA5:
    case ACREM_INTEGER: /* no normaliser: the value stored as written */
    case ACREM_BOOLEAN:
    case ACREM_BIT_STRING:
    case ACREM_OCTET:
        return 1;
    case ACREM_OID: { /* objectClass values: classes slapd looks up */
        const struct acreS_known *k = acreS_known(L->d->schema);
        return at->id != k->objectClass && at->id != k->structuralObjectClass;
    }
    }
    if (at->eq == ACREM_TELEPHONE || at->eq == ACREM_NUMERIC_STRING)
        return t->len > 0;
    if (at->eq == ACREM_UUID) /* its first 36 characters decide */
        return t->len > 36;
    return (at->eq == ACREM_CASE_IGNORE || at->eq == ACREM_CASE_EXACT) &&
           acreE_utf8_valid(t->val, t->len);
}

/* check_value -- validate and normalise t's value by its type. */
static int
check_value(struct load *L, const struct acreS_attr *at, struct tv *t)
{
    const acre_schema *s = L->d->schema;
    int rc;

    if (!slapd_trusts(L, at, t) &&
        !acreM_validate(s, syntax_of(L, at), t->val, t->len))
        return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                   "invalid value for attribute \"%.*s\" (syntax %s)",
                   (int)t->desc_len, t->desc, at->syntax ? at->syntax : "?");
    if (at->eq == ACREM_NONE)
        return 0;
    t->norm_off = L->norms.len;
    rc = acreE_norm_stored(s, t->type, t->val, t->len, &L->norms);
    if (rc == ACRE_ERR_NOMEM)
        return nomem(L);
    if (rc)
        return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                   "value of \"%.*s\" cannot be normalised by %s",
                   (int)t->desc_len, t->desc, acreM_info(at->eq)->name);
    t->nlen = L->norms.len - t->norm_off;
    t->has_norm = 1;
    return 0;
}

/*
 * dn389 -- under ACRED_DIR_389, t's value as 389-DS stores it when its
 * type is of DN syntax, or of name-and-optional-UID syntax (the DN before
 * a trailing "#'bits'B" respelt, the bits kept); the new text lives until
 * the next record.  A value that is no DN is left for check_value.
 */
static int
dn389(struct load *L, const struct acreS_attr *at, struct tv *t)
{
    int syn = syntax_of(L, at);
    const char *v = (const char *)t->val;
    size_t n = t->len, dn = n;
    uint8_t local[256];
    struct acreE_buf b;

    if (!(L->d->flags & ACRED_DIR_389) ||
        (syn != ACREM_SYN_DN && syn != ACREM_SYN_NAME_UID))
        return 0;
    if (syn == ACREM_SYN_NAME_UID && n >= 3 && v[n - 1] == 'B' &&
        v[n - 2] == '\'') {
        const char *h = memchr(v, '#', n);
        for (const char *x = h; x;
             x = memchr(x + 1, '#', n - (size_t)(x + 1 - v)))
            h = x;
        if (h && h[1] == '\'' && (size_t)(h - v) + 3 <= n)
            dn = (size_t)(h - v);
    }
    acreE_buf_init(&b, local, sizeof local);
    int rc = acreD_text_389(v, dn, &b);
    if (!rc && acreE_buf_put(&b, v + dn, n - dn))
        rc = ACRE_ERR_NOMEM;
    if (!rc) {
        char *c = talloc_memdup(L->rtmp, b.p, b.len ? b.len : 1);
        if (!c)
            rc = ACRE_ERR_NOMEM;
        else {
            t->val = (const uint8_t *)c;
            t->len = b.len;
        }
    }
    acreE_buf_free(&b);
    return rc == ACRE_ERR_NOMEM ? nomem(L) : 0;
}

/* slapd_desc_ok -- does slapd define description d (acreS_slapd_desc_ok),
 * OpenDJ's "collective" option (RFC 3671 virtual attributes in its
 * subentries, which this directory serves too) aside? */
static int
slapd_desc_ok(const acre_schema *s, const struct acreS_attr *at,
              const struct acreS_desc *d)
{
    struct acreS_desc rest = *d;

    rest.nopts = 0;
    for (unsigned i = 0; i < d->nopts; i++)
        if (d->opt_len[i] != 10 || strncasecmp(d->opts[i], "collective", 10)) {
            rest.opts[rest.nopts] = d->opts[i];
            rest.opt_len[rest.nopts++] = d->opt_len[i];
        }
    return acreS_slapd_desc_ok(s, at, &rest);
}

/* add_value -- one `desc: value` line of the record. */
static int
add_value(struct load *L, const struct acreL_attrval *v)
{
    const acre_schema *s = L->d->schema;
    struct acreS_desc d;
    struct tv *t;

    if (acreS_desc_parse(s, v->desc, v->desc_len, &d) < 0)
        return err(L, ACRE_ERR_LDIF_SYNTAX, v->line, 1,
                   "invalid attribute description \"%.*s\"", (int)v->desc_len,
                   v->desc);
    if (d.type < 0) {
        if (L->d->flags & ACRED_DIR_STRICT)
            return err(L, ACRE_ERR_LDIF_UNKNOWN_ATTR, v->line, 1,
                       "attribute type \"%.*s\" is not in the schema",
                       (int)d.name_len, d.name);
        warn(L, v->line, 1, "attribute type \"%.*s\" is not in the schema",
             (int)d.name_len, d.name);
        return 0;
    }
    if (slapd_checks(L) && !slapd_desc_ok(s, acreS_attr(s, d.type), &d))
        return err(L, ACRE_ERR_LDIF_SYNTAX, v->line, 1,
                   "attribute description \"%.*s\" is undefined in slapd "
                   "(an option other than lang-..., binary on a type not "
                   "transferred in binary, or an operational type with "
                   "options)",
                   (int)v->desc_len, v->desc);
    /* slapadd's dnNormalize asserts that a DN value's text ends at its
     * length, and libldap ends a base64 value it decodes in place only
     * when the decoding succeeds: such a DN value stops slapadd */
    if (v->cut && v->len && slapd_checks(L) &&
        acreS_attr(s, d.type)->eq == ACREM_DN)
        return err(L, ACRE_ERR_LDIF_BASE64, v->line, 1,
                   "invalid base64 in the DN value of \"%.*s\" (slapadd "
                   "stops at it)",
                   (int)v->desc_len, v->desc);
    if (!(t = new_tv(L)) || put_key(L, &d, t))
        return nomem(L);
    t->type = d.type;
    if ((t->id = acreS_desc_intern(s, &d)) < 0)
        return t->id == ACRE_ERR_NOMEM
                   ? nomem(L)
                   : err(L, ACRE_ERR_LDIF_VALUE, v->line, 1,
                         "too many attribute descriptions with options");
    t->line = v->line;
    t->col = v->col;
    t->desc = v->desc;
    t->desc_len = v->desc_len;
    t->val = v->val;
    t->len = v->len;
    if (dn389(L, acreS_attr(s, d.type), t))
        return ACRE_ERR_NOMEM;
    return check_value(L, acreS_attr(s, d.type), t);
}

/* ------------------------------------------------------------------------
 * Loading: the naming attributes
 *
 * As slapadd does (entry_naming_check with add_naming): each AVA of the
 * entry's RDN must be a value of the entry; a value that is missing is
 * added, unless the attribute is single-valued and already has another
 * value.  Operational and collective naming attributes, and naming
 * attributes without an equality rule, are errors.
 */

/* ava_next -- split the next AVA off rdn[*i..n): type and (escaped) value. */
static int
ava_next(const char *rdn, size_t n, size_t *i, const char **type, size_t *tlen,
         const char **val, size_t *vlen)
{
    size_t k = *i;

    if (k >= n)
        return 0;
    *type = rdn + k;
    while (k < n && rdn[k] != '=')
        k++;
    *tlen = (size_t)(rdn + k - *type);
    *val = rdn + k + 1;
    for (k++; k < n && rdn[k] != '+'; k++)
        if (rdn[k] == '\\')
            k++;
    *vlen = (size_t)(rdn + (k < n ? k : n) - *val);
    *i = k + 1;
    return 1;
}

/* unescape -- an RFC 4514 value of acre's DN text without its escapes,
 * into L->tmp. */
static int
unescape(struct load *L, const char *v, size_t n)
{
    L->tmp.len = 0;
    return acreD_value_unescape(v, n, 0, &L->tmp);
}

/* has_naming_value -- 1 when the record holds the value in L->tmp
 * (normalised at norms[at..]), 0 when not, -1 when a single-valued
 * attribute holds another value. */
static int
has_naming_value(struct load *L, const struct acreS_attr *at, size_t at_off,
                 size_t nlen)
{
    int other = 0;

    for (size_t k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];

        if (t->type != at->id || t->nopts || !t->has_norm)
            continue;
        if (acreE_norm_cmp(L->norms.p + t->norm_off, t->nlen,
                           L->norms.p + at_off, nlen) == 0)
            return 1;
        other = 1;
    }
    return other && (at->flags & ACRES_SINGLE_VALUE) ? -1 : 0;
}

/* add_naming -- append the RDN value in L->tmp as a value of `at`. */
static int
add_naming(struct load *L, const struct acreS_attr *at, const char *type,
           size_t tlen, unsigned line, size_t norm_off)
{
    struct tv *t = new_tv(L);
    uint8_t *copy = talloc_memdup(L->rtmp, L->tmp.p, L->tmp.len + 1);

    if (!t || !copy)
        return nomem(L);
    t->type = at->id;
    t->id = at->id;
    t->line = line;
    t->desc = type;
    t->desc_len = tlen;
    t->key_off = L->keys.len;
    t->val = copy;
    t->len = L->tmp.len;
    t->norm_off = norm_off;
    t->nlen = L->norms.len - norm_off;
    t->has_norm = 1;
    return 0;
}

/* naming_attr -- the schema type of an RDN AVA, checked for naming use. */
static int
naming_attr(struct load *L, const char *type, size_t tlen, unsigned line,
            const struct acreS_attr **out)
{
    const acre_schema *s = L->d->schema;
    int id = acreS_attr_find(s, type, tlen);
    const char *why = NULL;

    *out = NULL;
    if (id < 0 && (L->d->flags & ACRED_DIR_STRICT))
        return err(L, ACRE_ERR_LDIF_UNKNOWN_ATTR, line, 0,
                   "naming attribute \"%.*s\" is not in the schema", (int)tlen,
                   type);
    if (id < 0) {
        warn(L, line, 0, "naming attribute \"%.*s\" is not in the schema",
             (int)tlen, type);
        return 0;
    }
    *out = acreS_attr(s, id);
    if ((*out)->usage != ACRES_USER)
        why = "is operational";
    else if ((*out)->flags & ACRES_COLLECTIVE)
        why = "is collective";
    else if ((*out)->eq == ACREM_NONE)
        why = "has no equality matching rule";
    if (why)
        return err(L, ACRE_ERR_LDIF_VALUE, line, 0,
                   "naming attribute \"%.*s\" %s", (int)tlen, type, why);
    return 0;
}

/* naming_ava -- check (and add if need be) one AVA of the RDN. */
static int
naming_ava(struct load *L, const char *type, size_t tlen, const char *pv,
           size_t pvlen, const char *nv, size_t nvlen, unsigned line)
{
    const struct acreS_attr *at;
    size_t off = L->norms.len;
    int rc;

    if ((rc = naming_attr(L, type, tlen, line, &at)) || !at)
        return rc;
    /* a #hex (BER) pretty value: take the value the DN parser decoded */
    if ((pvlen && pv[0] == '#' ? unescape(L, nv, nvlen)
                               : unescape(L, pv, pvlen)) ||
        acreE_buf_putc(&L->tmp, 0))
        return nomem(L);
    L->tmp.len--;
    rc = acreM_normalise(L->d->schema, at->eq, L->tmp.p, L->tmp.len, &L->norms);
    if (rc == ACRE_ERR_NOMEM)
        return nomem(L);
    if (rc)
        return err(L, ACRE_ERR_LDIF_VALUE, line, 0,
                   "naming value of \"%.*s\" cannot be normalised", (int)tlen,
                   type);
    switch (has_naming_value(L, at, off, L->norms.len - off)) {
    case 1:
        L->norms.len = off;
        return 0;
    case -1:
        return err(L, ACRE_ERR_LDIF_VALUE, line, 0,
                   "single-valued naming attribute \"%.*s\" has another "
                   "value than the RDN's",
                   (int)tlen, type);
    }
    return add_naming(L, at, type, tlen, line, off);
}

/* check_naming -- every AVA of dn's RDN is a value of the record. */
static int
check_naming(struct load *L, const acre_dn *dn, unsigned line)
{
    const char *nr, *pr, *nt, *pt, *nv, *pv;
    size_t nl, pl, ni = 0, pi = 0, ntl, ptl, nvl, pvl;
    int rc;

    if (acre_dn_rdn(dn, 0, &nr, &nl, &pr, &pl))
        return 0;
    while (ava_next(nr, nl, &ni, &nt, &ntl, &nv, &nvl) &&
           ava_next(pr, pl, &pi, &pt, &ptl, &pv, &pvl))
        if ((rc = naming_ava(L, pt, ptl, pv, pvl, nv, nvl, line)))
            return rc;
    return 0;
}

/* ------------------------------------------------------------------------
 * Loading: attributes from values
 */
static int
tv_cmp(const struct tv *x, const struct tv *y)
{
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c;

    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (n && (c = memcmp(x->key, y->key, n)) != 0)
        return c;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int
tv_idx_cmp(const void *a, const void *b, void *arg)
{
    const struct tv *tv = arg;

    return tv_cmp(&tv[*(const uint32_t *)a], &tv[*(const uint32_t *)b]);
}

/*
 * sort_idx -- sort the indexes a[0..n) by cmp: insertion sort for the
 * short arrays of a typical record (no allocation, few compares on the
 * mostly ordered input), qsort_r beyond.
 */
static void
sort_idx(uint32_t *a, size_t n, int (*cmp)(const void *, const void *, void *),
         void *ctx)
{
    if (n > 24) {
        qsort_r(a, n, sizeof *a, cmp, ctx);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint32_t v = a[i];
        size_t j = i;

        while (j > 0 && cmp(&a[j - 1], &v, ctx) > 0) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
}

/* group_end -- one past the last value of the attribute starting at g. */
static size_t
group_end(const struct load *L, size_t g)
{
    size_t k = g + 1;

    while (k < L->ntv && L->tv[k].type == L->tv[g].type &&
           L->tv[k].key_len == L->tv[g].key_len &&
           (!L->tv[g].key_len ||
            memcmp(L->tv[k].key, L->tv[g].key, L->tv[g].key_len) == 0))
        k++;
    return k;
}

/* Comparison of two values of one group by normalised (or stored) form. */
struct ordctx {
    const struct tv *g;
    const uint8_t *norms;
};

static int
ord_cmp(const void *a, const void *b, void *arg)
{
    const struct ordctx *c = arg;
    const struct tv *x = &c->g[*(const uint32_t *)a];
    const struct tv *y = &c->g[*(const uint32_t *)b];

    if (x->has_norm)
        return acreE_norm_cmp(c->norms + x->norm_off, x->nlen,
                              c->norms + y->norm_off, y->nlen);
    return acreE_norm_cmp(x->val, x->len, y->val, y->len);
}

/*
 * check_group -- the values tv[g..e) of one attribute: refuse several
 * values of a single-valued type; under ACRED_DIR_STRICT_VALUES also sort
 * them into ord[g..e) and refuse duplicates (equal normalised forms, or
 * equal bytes without an equality rule).  Otherwise duplicates stay, as
 * slapadd 2.5 keeps them (with or without -q, byte-identical or equal by
 * the matching rule; only `sortvals` attributes refuse them there).
 */
static int
check_group(struct load *L, size_t g, size_t e)
{
    const struct acreS_attr *at = acreS_attr(L->d->schema, L->tv[g].type);
    struct ordctx c = {&L->tv[g], L->norms.p};
    uint32_t *o = L->ord + g;
    size_t n = e - g;

    if (n > 1 && (at->flags & ACRES_SINGLE_VALUE))
        return err(L, ACRE_ERR_LDIF_VALUE, L->tv[g + 1].line, 0,
                   "attribute \"%.*s\" is single-valued",
                   (int)L->tv[g].desc_len, L->tv[g].desc);
    if (!(L->d->flags & ACRED_DIR_STRICT_VALUES))
        return 0;
    for (size_t k = 0; k < n; k++)
        o[k] = (uint32_t)k;
    sort_idx(o, n, ord_cmp, &c);
    for (size_t k = 1; k < n; k++)
        if (ord_cmp(&o[k - 1], &o[k], &c) == 0) {
            const struct tv *t = &c.g[o[k] > o[k - 1] ? o[k] : o[k - 1]];

            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                       "duplicate value of attribute \"%.*s\"",
                       (int)t->desc_len, t->desc);
        }
    return 0;
}

/* grp_cmp -- LDIF order of two groups: their first values' positions. */
static int
grp_cmp(const void *a, const void *b, void *arg)
{
    const struct tv *tv = arg;
    unsigned x = tv[*(const uint32_t *)a].idx, y = tv[*(const uint32_t *)b].idx;

    return (x > y) - (x < y);
}

/*
 * sort_values -- order tv by (type, options, position), check each group
 * (one attribute), and list the groups' starts in L->grp in LDIF order.
 * Sets *nattrs.
 */
static int
sort_values(struct load *L, size_t *nattrs)
{
    int rc;

    for (size_t k = 0; k < L->ntv; k++)
        L->tv[k].key =
            L->keys.p ? (const char *)L->keys.p + L->tv[k].key_off : "";
    if (L->ntv) {
        struct tv *t = L->tv2;

        for (size_t k = 0; k < L->ntv; k++)
            L->ord[k] = (uint32_t)k;
        sort_idx(L->ord, L->ntv, tv_idx_cmp, L->tv);
        for (size_t k = 0; k < L->ntv; k++)
            t[k] = L->tv[L->ord[k]];
        L->tv2 = L->tv;
        L->tv = t;
    }
    *nattrs = 0;
    for (size_t g = 0, e; g < L->ntv; g = e) {
        e = group_end(L, g);
        if ((rc = check_group(L, g, e)))
            return rc;
        L->grp[(*nattrs)++] = (uint32_t)g;
    }
    sort_idx(L->grp, *nattrs, grp_cmp, L->tv);
    return 0;
}

/* ------------------------------------------------------------------------
 * Loading: packing an entry into one allocation
 */
struct sizes {
    size_t nnorms, bytes;
};

static int
shares(const struct load *L, const struct tv *t)
{
    return t->has_norm && t->nlen == t->len &&
           memcmp(L->norms.p + t->norm_off, t->val, t->len) == 0;
}

static void
measure(const struct load *L, struct sizes *z)
{
    z->nnorms = z->bytes = 0;
    for (size_t g = 0, e; g < L->ntv; g = e) {
        const struct tv *t = &L->tv[g];

        e = group_end(L, g);
        z->bytes += t->desc_len + 1;
        if (t->has_norm)
            z->nnorms += e - g;
        for (size_t k = g; k < e; k++)
            z->bytes += L->tv[k].len + 1 +
                        (shares(L, &L->tv[k]) ? 0 : L->tv[k].nlen + 1);
    }
}

/* Cursors over the parts of an entry being filled. */
struct packer {
    acre_view_attr *attrs;
    acre_value *vals, *norms;
    const char **desc;
    uint32_t *desc_len;
    char *bytes;
};

static const char *
put_bytes(struct packer *p, const void *src, size_t n)
{
    char *dst = p->bytes;

    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
    p->bytes += n + 1;
    return dst;
}

/* pack_group -- the attribute made of tv[g..e) (values of one type with
 * an equality rule all have their normalised form, or none has). */
static void
pack_group(const struct load *L, struct packer *p, size_t g, size_t e)
{
    const struct tv *t = &L->tv[g];
    acre_view_attr *a = p->attrs++;

    *p->desc++ = put_bytes(p, t->desc, t->desc_len);
    *p->desc_len++ = (uint32_t)t->desc_len;
    a->id = t->id;
    a->nvals = (unsigned)(e - g);
    a->vals = p->vals;
    a->norms = t->has_norm ? p->norms : NULL;
    for (size_t k = g; k < e; k++) {
        const struct tv *v = &L->tv[k];
        acre_value *o = p->vals++;

        o->val = put_bytes(p, v->val, v->len);
        o->len = v->len;
        if (a->norms) {
            acre_value *n = p->norms++;
            n->val = shares(L, v)
                         ? o->val
                         : put_bytes(p, L->norms.p + v->norm_off, v->nlen);
            n->len = v->nlen;
        }
    }
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/* Entry storage: chunks of the batch, from 16 KiB doubling to 1 MiB; an
 * entry bigger than a quarter of the largest chunk is a block of its own. */
#define ENTRY_CHUNK_MIN ((size_t)16 << 10)
#define ENTRY_CHUNK_MAX ((size_t)1 << 20)

/* Under AddressSanitizer the rest of a chunk is poisoned and each entry is
 * followed by a poisoned gap, so that an overflow from one entry into the
 * next is still caught, as it was when each was a block of its own. */
#if defined(__SANITIZE_ADDRESS__)
#define ENTRY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENTRY_ASAN 1
#endif
#endif
#ifdef ENTRY_ASAN
#include <sanitizer/asan_interface.h>
#define ENTRY_GAP            16
#define ENTRY_POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define ENTRY_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define ENTRY_GAP            0
#define ENTRY_POISON(p, n)   ((void)(p), (void)(n))
#define ENTRY_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/*
 * entry_mem -- n bytes (8-aligned) for an entry of this load.  Entries
 * are never freed one by one: a failed load frees the batch, a committed
 * one hands it to the directory, so they are carved from large chunks
 * rather than made one talloc block each (one header, one allocator call
 * and, on a large load, one first touch of a fresh page per entry: the
 * cost of loading was the allocator's).
 */
static void *
entry_mem(struct load *L, size_t n)
{
    void *p;

    if (n > ENTRY_CHUNK_MAX / 4)
        return talloc_size(L->batch, n);
    if (n + ENTRY_GAP > L->chunk_left) {
        size_t size = L->chunk_size ? L->chunk_size * 2 : ENTRY_CHUNK_MIN;

        if (size > ENTRY_CHUNK_MAX)
            size = ENTRY_CHUNK_MAX;
        while (size < n + ENTRY_GAP)
            size *= 2;
        if (!(L->chunk = talloc_size(L->batch, size)))
            return NULL;
        talloc_set_name_const(L->chunk, "acreE_entries");
        L->chunk_size = size;
        L->chunk_left = size;
        ENTRY_POISON(L->chunk, size);
    }
    p = L->chunk;
    ENTRY_UNPOISON(p, n);
    L->chunk += n + ENTRY_GAP;
    L->chunk_left -= n + ENTRY_GAP;
    return p;
}

/* pack -- the entry named dn, made of the grouped values, under batch. */
static struct dentry *
pack(struct load *L, const acre_dn *dn, size_t nattrs, unsigned line)
{
    struct sizes z;
    struct packer p;
    size_t o_attrs, o_vals, o_norms, o_desc, o_dn, o_u32, o_bytes, total;
    struct dentry *d;
    char *base;

    measure(L, &z);
    o_attrs = ALIGN8(sizeof *d);
    o_vals = o_attrs + nattrs * sizeof(acre_view_attr);
    o_norms = o_vals + L->ntv * sizeof(acre_value);
    o_desc = o_norms + z.nnorms * sizeof(acre_value);
    o_dn = ALIGN8(o_desc + nattrs * sizeof(char *));
    o_u32 = ALIGN8(o_dn + acre_dn_size(dn));
    o_bytes = o_u32 + nattrs * sizeof(uint32_t);
    /* whole cache lines: an entry's header and attribute array then
     * start one, as they did when each entry was an allocation of its
     * own; packed at 8 bytes, a filter walk over a directory larger than
     * the cache met one more line per entry (filter_ordering: 300-320 ns
     * an entry before the chunks, 500-550 after, 360-380 rounded) */
    total = (o_bytes + z.bytes + 63) & ~(size_t)63;
    if (!(base = entry_mem(L, total)))
        return NULL;
    d = (struct dentry *)base;
    memset(d, 0, sizeof *d);
    memcpy(base + o_dn, dn, acre_dn_size(dn));
    p.attrs = (acre_view_attr *)(base + o_attrs);
    p.vals = (acre_value *)(base + o_vals);
    p.norms = (acre_value *)(base + o_norms);
    p.desc = (const char **)(base + o_desc);
    p.desc_len = (uint32_t *)(base + o_u32);
    p.bytes = base + o_bytes;
    for (size_t k = 0; k < nattrs; k++)
        pack_group(L, &p, L->grp[k], group_end(L, L->grp[k]));
    d->e.v.schema = L->d->schema;
    d->e.v.dn = (const acre_dn *)(base + o_dn);
    d->e.v.nattrs = (unsigned)nattrs;
    d->e.v.attrs = (const acre_view_attr *)(base + o_attrs);
    d->e.v.host_data = &d->e;
    d->e.desc = (const char *const *)(base + o_desc);
    d->e.desc_len = (const uint32_t *)(base + o_u32);
    d->e.line = line;
    return d;
}

/* ------------------------------------------------------------------------
 * Loading: records
 */

/* find_any -- the entry named by the last i RDNs of dn, loaded or staged. */
static struct dentry *
find_any(const struct load *L, const acre_dn *dn, unsigned i)
{
    struct dentry *e = table_find(&L->d->index, dn, i);

    return e ? e : table_find(&L->stage, dn, i);
}

/* parse_dn -- the record's DN, parsed into L->dnbuf. */
static int
parse_dn(struct load *L, const struct acreL_record *rec, acre_dn **dn)
{
    unsigned flags = L->d->flags & ACRED_DIR_STRICT ? ACRE_DN_STRICT : 0;
    acre_diag dd;
    int rc = acre_dn_parse_buf(L->dnbuf, ACRE_DN_BUF_MAX, dn_schema(L->d),
                               rec->dn, rec->dn_len, flags, dn, &dd);

    if (rc == ACRE_ERR_NOMEM)
        return nomem(L);
    if (rc)
        return err(L, ACRE_ERR_LDIF_DN, rec->line,
                   value_col(rec->dn_col, rec->dn_span, dd.offset),
                   "invalid DN \"%.*s\": %s",
                   (int)(rec->dn_len < 200 ? rec->dn_len : 200), rec->dn,
                   dd.message);
    if (acre_dn_depth(*dn) == 0)
        return err(L, ACRE_ERR_LDIF_DN, rec->line, rec->dn_col,
                   "the empty DN (root DSE) cannot be an entry");
    return 0;
}

/*
 * check_rdns -- refuse what slapd's DN normalisation refuses although the
 * RFC 4514 grammar allows it (checked with slapadd 2.5.13): one attribute
 * type twice in an RDN (cn=b+cn=a, cn=a+commonName=b, cn=a+2.5.4.3=b) and
 * any #-BER value (cn=#0403616263, dc=#16..., whatever its tag).  The
 * normalised RDN has its AVAs sorted by canonical type, so a repeated
 * type is two neighbours; a BER value keeps its '#' in the pretty form
 * (an escaped "\#" starts with the backslash).
 */
static int
check_rdns(struct load *L, const struct acreL_record *rec, const acre_dn *dn)
{
    const char *nr, *pr, *t, *v, *pt = NULL;
    size_t nl, pl, i, tl, vl, ptl = 0;

    for (unsigned r = 0; !acre_dn_rdn(dn, r, &nr, &nl, &pr, &pl); r++) {
        for (i = 0, pt = NULL; ava_next(nr, nl, &i, &t, &tl, &v, &vl);
             pt = t, ptl = tl)
            if (pt && tl == ptl && memcmp(t, pt, tl) == 0)
                return err(L, ACRE_ERR_LDIF_DN, rec->line, rec->dn_col,
                           "invalid DN \"%.*s\": attribute type \"%.*s\" "
                           "twice in one RDN",
                           (int)(rec->dn_len < 200 ? rec->dn_len : 200),
                           rec->dn, (int)tl, t);
        for (i = 0; ava_next(pr, pl, &i, &t, &tl, &v, &vl);)
            if (vl && v[0] == '#')
                return err(L, ACRE_ERR_LDIF_DN, rec->line, rec->dn_col,
                           "invalid DN \"%.*s\": #-BER value of \"%.*s\" "
                           "(slapd takes string values only)",
                           (int)(rec->dn_len < 200 ? rec->dn_len : 200),
                           rec->dn, (int)tl, t);
    }
    return 0;
}

/* stage -- keep e (not yet in the directory nor staged) for the commit. */
static int
stage(struct load *L, struct dentry *e)
{
    if (L->n == L->cap) {
        size_t cap = L->cap ? 2 * L->cap : 256;
        struct dentry **p =
            talloc_realloc(L->scratch, L->list, struct dentry *, cap);

        if (!p)
            return nomem(L);
        L->list = p;
        L->cap = cap;
    }
    if (table_reserve(L->scratch, &L->stage, 1))
        return nomem(L);
    table_put(&L->stage, e);
    L->list[L->n++] = e;
    return 0;
}

/* check_new -- refuse a DN already in the directory or in this input. */
static int
check_new(struct load *L, const acre_dn *dn, unsigned line)
{
    unsigned depth = dn->depth;
    struct dentry *old;

    if (table_find(&L->d->index, dn, depth))
        return err(L, ACRE_ERR_LDIF_DUP_ENTRY, line, 0,
                   "entry \"%s\" is already in the directory",
                   acre_dn_pretty(dn, NULL));
    if ((old = table_find(&L->stage, dn, depth)))
        return err(L, ACRE_ERR_LDIF_DUP_ENTRY, line, 0,
                   "duplicate entry \"%s\" (first at line %u)",
                   acre_dn_pretty(dn, NULL), old->e.line);
    return 0;
}

/* record_is -- does a value of the record's objectClass name class
 * `name` or a subclass of it? */
static int
record_is(const struct load *L, const char *name)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_class_find(s, name, strlen(name));
    int at = acreS_attr_find(s, "objectClass", 11);

    for (size_t k = 0; oc >= 0 && at >= 0 && k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        int id = t->type == at
                     ? acreS_class_find(s, (const char *)t->val, t->len)
                     : -1;
        if (id >= 0 && acreS_class_is(s, id, oc))
            return 1;
    }
    return 0;
}

/*
 * check_collective -- as slapd's entry_schema_check: values of a
 * COLLECTIVE type only in an entry that is a subentry and a
 * collectiveAttributeSubentry (RFC 3671: they live in subentries, and the
 * entries in their reach show them).
 */
static int
check_collective(struct load *L)
{
    const acre_schema *s = L->d->schema;

    for (size_t k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        if (!(acreS_attr(s, t->type)->flags & ACRES_COLLECTIVE))
            continue;
        if (record_is(L, "subentry") &&
            record_is(L, "collectiveAttributeSubentry"))
            return 0;
        return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col ? t->col : 1,
                   "'%.*s' can only appear in collectiveAttributeSubentry",
                   (int)t->desc_len, t->desc);
    }
    return 0;
}

/* check_objectclass -- as slapadd (with or without -s): an entry needs
 * objectClass values, the type itself with no option.  Under slapadd's
 * checks, once the values are read and before the schema checks
 * (slapadd makes it before entry_schema_check, so it reports it first);
 * else after the record's other checks, which report their errors
 * first. */
static int
check_objectclass(struct load *L, unsigned line)
{
    int at = acreS_attr_find(L->d->schema, "objectClass", 11);

    for (size_t k = 0; k < L->ntv; k++)
        if (L->tv[k].type == at && L->tv[k].nopts == 0)
            return 0;
    return err(L, ACRE_ERR_LDIF_SYNTAX, line, 1, "no objectClass attribute");
}

/* ------------------------------------------------------------------------
 * Loading: structuralObjectClass
 *
 * As slapadd 2.5: the entry's structural class is the most specific of the
 * structural classes its objectClass values name (each other one is a
 * superclass of it); two structural classes on different chains are an
 * error.  It is stored under its canonical name as a last attribute,
 * structuralObjectClass, unless the record gives a value naming that
 * class (kept as written); a value naming another class is an error.
 * Under a slapd schema, class names the schema does not know and a
 * record naming no structural class are refused, as slapadd refuses them
 * (check_classes before, check_required after); elsewhere unknown names
 * are skipped, and such a record gets none.
 */

/* structural_of -- the id of the record's structural class in *out, -1
 * for none. */
static int
structural_of(struct load *L, int *out)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_attr_find(s, "objectClass", 11);

    *out = -1;
    for (size_t k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        int id = t->type == oc && !t->nopts
                     ? acreS_class_find(s, (const char *)t->val, t->len)
                     : -1;

        if (id < 0 || acreS_class(s, id)->kind != ACRES_STRUCTURAL ||
            (*out >= 0 && acreS_class_is(s, *out, id)))
            continue;
        if (*out >= 0 && !acreS_class_is(s, id, *out))
            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                       "invalid structural object class chain (%s/%s)",
                       acreS_class(s, *out)->name, acreS_class(s, id)->name);
        *out = id;
    }
    return 0;
}

/*
 * Loading: slapadd's schema check
 *
 * As slapd's entry_schema_check when slapadd runs it (without -s), under
 * a slapd schema and not for 389 loads: every objectClass value names a
 * class the schema knows (checked before the structural class), the
 * record names a structural class, an abstract class other than top is
 * a superclass of the structural class or of an auxiliary one, and each
 * MUST of the structural class and of each auxiliary class (inherited
 * ones included) is present.  Not checked: that a class allows each
 * attribute (slapd's "not allowed"): data exported from OpenDJ, with
 * user attributes in its collective subentries, and 389 data with
 * memberOf would be refused.
 */

/* class_at -- the class a plain objectClass value t names, or -1 */
static int
class_at(const struct load *L, int oc, const struct tv *t)
{
    return t->type == oc && !t->nopts
               ? acreS_class_find(L->d->schema, (const char *)t->val, t->len)
               : -1;
}

/* check_classes -- every objectClass value a known class */
static int
check_classes(struct load *L)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_attr_find(s, "objectClass", 11);

    for (size_t k = 0; slapd_checks(L) && k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        if (t->type == oc && !t->nopts && class_at(L, oc, t) < 0)
            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                       "unrecognized objectClass '%.*s'",
                       (int)(t->len < 200 ? t->len : 200), t->val);
    }
    return 0;
}

/* has_type -- does the record hold a value of type a? */
static int
has_type(const struct load *L, int a)
{
    for (size_t j = 0; j < L->ntv; j++)
        if (L->tv[j].type == a)
            return 1;
    return 0;
}

/* first_missing -- the first MUST of class id the record lacks, in
 * slapd's order (each superclass's, depth first, then the class's own),
 * or -1 */
static int
first_missing(const struct load *L, int id)
{
    const struct acreS_class *c = acreS_class(L->d->schema, id);
    int a;

    for (unsigned i = 0; i < c->nsup; i++)
        if ((a = first_missing(L, c->sup[i])) >= 0)
            return a;
    for (unsigned i = 0; i < c->nmust; i++)
        if (!has_type(L, c->must[i]))
            return c->must[i];
    return -1;
}

/* check_required -- the structural class, abstract classes, MUSTs */
static int
check_required(struct load *L, unsigned line)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_attr_find(s, "objectClass", 11), sc = -1, any = 0;
    int top = acreS_class_find(s, "top", 3);
    size_t k, j;

    if (!slapd_checks(L) || oc < 0)
        return 0;
    for (k = 0; k < L->ntv; k++) { /* the most specific structural class */
        int id = class_at(L, oc, &L->tv[k]);
        any |= L->tv[k].type == oc && !L->tv[k].nopts;
        if (id >= 0 && acreS_class(s, id)->kind == ACRES_STRUCTURAL &&
            (sc < 0 || acreS_class_is(s, id, sc)))
            sc = id;
    }
    if (!any) /* check_objectclass says so */
        return 0;
    if (sc < 0)
        return err(L, ACRE_ERR_LDIF_VALUE, line, 1,
                   "no structural object class provided");
    for (k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        int id = class_at(L, oc, t);
        const struct acreS_class *c = id >= 0 ? acreS_class(s, id) : NULL;
        if (!c || (c->kind == ACRES_STRUCTURAL && id != sc))
            continue;
        if (c->kind == ACRES_ABSTRACT) {
            int ok = id == top || acreS_class_is(s, sc, id);
            for (j = 0; !ok && j < L->ntv; j++) {
                int x = j != k ? class_at(L, oc, &L->tv[j]) : -1;
                ok = x >= 0 && acreS_class(s, x)->kind == ACRES_AUXILIARY &&
                     acreS_class_is(s, x, id);
            }
            if (!ok)
                return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                           "instantiation of abstract objectClass '%.*s' "
                           "not allowed",
                           (int)(t->len < 200 ? t->len : 200), t->val);
            continue;
        }
        int a = first_missing(L, id);
        if (a >= 0) {
            const struct acreS_attr *at = acreS_attr(s, a);
            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                       "object class '%.*s' requires attribute '%s'",
                       (int)(t->len < 200 ? t->len : 200), t->val,
                       at->nnames ? at->names[0] : at->oid);
        }
    }
    return 0;
}

/*
 * check_allowed -- as slapadd (schema_check.c oc_check_allowed), for data
 * loaded under an OpenLDAP policy's databases (acreE_dir_set_holder):
 * each attribute is a MUST or MAY of the entry's structural class or of
 * one of its auxiliary classes (inherited ones included; the type itself,
 * not a supertype), unless a class is extensibleObject; objectClass,
 * operational types and memberOf (operational as slapo-memberof defines
 * it) are always allowed.  Subentries (RFC 3672, OpenDJ's
 * ldapSubEntry), which acre takes beyond what slapd 2.5 loads, are not
 * checked.
 */
static int
check_allowed(struct load *L)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_attr_find(s, "objectClass", 11), cls[64], sc = -1;
    /* slapd knows memberOf only from slapo-memberof, as operational */
    int memberof = acreS_attr_find(s, "memberOf", 8);
    unsigned n = 0;

    if (!slapd_checks(L) || !L->d->holder || oc < 0 ||
        record_is(L, "extensibleObject") || record_is(L, "subentry") ||
        record_is(L, "ldapSubEntry"))
        return 0;
    for (size_t k = 0; k < L->ntv; k++) {
        int id = class_at(L, oc, &L->tv[k]);
        const struct acreS_class *c = id >= 0 ? acreS_class(s, id) : NULL;
        if (c && c->kind == ACRES_STRUCTURAL &&
            (sc < 0 || acreS_class_is(s, id, sc)))
            sc = id;
        else if (c && c->kind == ACRES_AUXILIARY && n < 63)
            cls[n++] = id;
    }
    if (sc >= 0)
        cls[n++] = sc;
    for (size_t k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];
        unsigned w = (unsigned)t->type >> 6, i;
        uint64_t bit = (uint64_t)1 << ((unsigned)t->type & 63);

        if (t->type == oc || t->type == memberof ||
            acreS_attr(s, t->type)->usage != ACRES_USER)
            continue;
        for (i = 0; i < n; i++) {
            const struct acreS_class *c = acreS_class(s, cls[i]);
            if ((c->all_must[w] | c->all_may[w]) & bit)
                break;
        }
        if (i == n)
            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col ? t->col : 1,
                       "attribute '%.*s' not allowed", (int)t->desc_len,
                       t->desc);
    }
    return 0;
}

/* add_made -- a value the loader adds to the record, as a server adds
 * it: of type `at` (no options), named desc, line the record's. */
static int
add_made(struct load *L, int at, const char *desc, const char *val,
         unsigned line)
{
    struct tv *t = new_tv(L);

    if (!t)
        return nomem(L);
    t->type = t->id = at;
    t->line = line;
    t->desc = desc;
    t->desc_len = strlen(desc);
    t->key_off = L->keys.len;
    t->val = (const uint8_t *)val;
    t->len = strlen(val);
    return check_value(L, acreS_attr(L->d->schema, at), t);
}

/* add_structural -- check or add the record's structuralObjectClass. */
static int
add_structural(struct load *L, unsigned line)
{
    const acre_schema *s = L->d->schema;
    int at = acreS_attr_find(s, "structuralObjectClass", 21), id, rc;
    const char *name;
    struct tv *t;

    if (L->d->flags & ACRED_DIR_389)
        return 0; /* 389 keeps none */
    if (at < 0 || (rc = structural_of(L, &id)) || id < 0)
        return at < 0 ? 0 : rc;
    name = acreS_class(s, id)->name;
    for (size_t k = 0; k < L->ntv; k++)
        if (L->tv[k].type == at && !L->tv[k].nopts) {
            t = &L->tv[k];
            if (acreS_class_find(s, (const char *)t->val, t->len) == id)
                return 0;
            return err(L, ACRE_ERR_LDIF_VALUE, t->line, t->col,
                       "structuralObjectClass \"%.*s\" is not the entry's "
                       "structural object class, %s",
                       (int)(t->len < 200 ? t->len : 200), t->val, name);
        }
    return add_made(L, at, "structuralObjectClass", name, line);
}

/* ------------------------------------------------------------------------
 * Loading: objectClass values as 389 adds them
 *
 * 389-DS completes an added entry's objectClass values with their
 * superclasses: each value in turn, those it appended included, that
 * names a class it knows appends the class's superior (its first SUP)
 * under the superior's canonical name, unless a value already is that
 * name or OID (compared without case).  Each appended class is a
 * distinct class of the schema, so the values stay bounded.
 */

/* class_present -- does a plain objectClass value name c by its canonical
 * name or OID? */
static int
class_present(const struct load *L, int oc, const struct acreS_class *c)
{
    size_t nl = strlen(c->name), ol = c->oid ? strlen(c->oid) : 0;

    for (size_t k = 0; k < L->ntv; k++) {
        const struct tv *t = &L->tv[k];

        if (t->type != oc || t->nopts)
            continue;
        if ((t->len == nl && !strncasecmp((const char *)t->val, c->name, nl)) ||
            (ol && t->len == ol && !memcmp(t->val, c->oid, ol)))
            return 1;
    }
    return 0;
}

/* add_superclasses -- under ACRED_DIR_389, the superclasses 389 adds. */
static int
add_superclasses(struct load *L, unsigned line)
{
    const acre_schema *s = L->d->schema;
    int oc = acreS_attr_find(s, "objectClass", 11);

    if (!(L->d->flags & ACRED_DIR_389) || oc < 0)
        return 0;
    for (size_t k = 0; k < L->ntv; k++) { /* L->ntv grows as we append */
        const struct tv *t = &L->tv[k];
        int id = t->type == oc && !t->nopts
                     ? acreS_class_find(s, (const char *)t->val, t->len)
                     : -1;
        const struct acreS_class *sup;
        int rc;

        if (id < 0 || !acreS_class(s, id)->nsup)
            continue;
        sup = acreS_class(s, acreS_class(s, id)->sup[0]);
        if (class_present(L, oc, sup))
            continue;
        if ((rc = add_made(L, oc, "objectClass", sup->name, line)))
            return rc;
    }
    return 0;
}

/* password_last -- under ACRED_DIR_389, userPassword after the record's
 * other attributes: 389 replaces it with its stored form during the add
 * (add.c), and a replaced attribute goes to the end of the entry. */
static void
password_last(struct load *L)
{
    int pw = acreS_attr_find(L->d->schema, "userPassword", 12);

    if (!(L->d->flags & ACRED_DIR_389) || pw < 0)
        return;
    for (size_t k = 0; k < L->ntv; k++)
        if (L->tv[k].type == pw && !L->tv[k].nopts)
            L->tv[k].idx += 1u << 30; /* records hold fewer values */
}

/* dn_stored -- under ACRED_DIR_389, e's DN as 389 stores it: the record's
 * text in 389's form (types as written), under the entry. */
static int
dn_stored(struct load *L, struct dentry *e, const struct acreL_record *rec)
{
    uint8_t local[256];
    struct acreE_buf b;

    if (!(L->d->flags & ACRED_DIR_389))
        return 0;
    acreE_buf_init(&b, local, sizeof local);
    int rc = acreD_text_389(rec->dn, rec->dn_len, &b);
    size_t n = b.len;
    char *c = rc ? NULL : talloc_size(L->batch, n + 1); /* (may hold a NUL) */
    if (c) {
        memcpy(c, b.p, n);
        c[n] = 0;
    }
    acreE_buf_free(&b);
    if (rc == ACRE_ERR_NOMEM || (!rc && !c))
        return nomem(L);
    e->e.dn_stored = c; /* NULL when 389's form cannot be made: pretty */
    e->e.dn_stored_len = c ? (uint32_t)n : 0;
    return 0;
}

/* record -- build and stage the entry of one LDIF record. */
static int
record(struct load *L, const struct acreL_record *rec)
{
    acre_dn *dn;
    struct dentry *e;
    size_t nattrs;
    int rc;

    L->ntv = 0;
    L->norms.len = L->keys.len = 0;
    talloc_free_children(L->rtmp);
    if ((rc = parse_dn(L, rec, &dn)) || (rc = check_rdns(L, rec, dn)))
        return rc;
    int db = L->d->holder ? L->d->holder(L->d->holder_arg, dn) : 0;
    if (L->d->holder && !db)
        return err(L, ACRE_ERR_LDIF_DN, rec->line, rec->dn_col,
                   "no database of the policy holds entry \"%.*s\"",
                   (int)(rec->dn_len < 200 ? rec->dn_len : 200), rec->dn);
    if ((rc = check_new(L, dn, rec->line)))
        return rc;
    for (size_t k = 0; k < rec->nvals; k++)
        if ((rc = add_value(L, &rec->vals[k])))
            return rc;
    if ((slapd_checks(L) && (rc = check_objectclass(L, rec->line))) ||
        (rc = check_naming(L, dn, rec->line)) || (rc = check_collective(L)) ||
        (rc = check_classes(L)) || (rc = add_structural(L, rec->line)) ||
        (rc = check_required(L, rec->line)) || (rc = check_allowed(L)) ||
        (rc = add_superclasses(L, rec->line)) ||
        (password_last(L), rc = sort_values(L, &nattrs)) ||
        (rc = check_objectclass(L, rec->line)))
        return rc;
    if (!(e = pack(L, dn, nattrs, rec->line)))
        return nomem(L);
    e->e.db = (uint32_t)db;
    if ((rc = dn_stored(L, e, rec)))
        return rc;
    return stage(L, e);
}

/*
 * check_old_suffixes -- a suffix already in the directory becomes the
 * child of a staged entry that is its parent (see adopt_suffixes); a
 * staged entry that would be a more distant ancestor, leaving the suffix
 * without its parent, is an error.
 */
static int
check_old_suffixes(struct load *L)
{
    const struct acreE_dir *d = L->d;

    for (size_t k = 0; k < d->nsuffixes; k++) {
        const acre_dn *dn = d->suffixes[k]->v.dn;

        if (dn->depth < 2 || table_find(&L->stage, dn, dn->depth - 1))
            continue;
        for (unsigned i = dn->depth - 2; i >= 1; i--) {
            const struct dentry *a = table_find(&L->stage, dn, i);

            if (a)
                return err(L, ACRE_ERR_LDIF_NO_PARENT, a->e.line, 0,
                           "\"%s\" would be an ancestor of \"%s\", loaded "
                           "earlier, whose parent is missing",
                           acre_dn_pretty(a->e.v.dn, NULL),
                           acre_dn_pretty(dn, NULL));
        }
    }
    return 0;
}

/*
 * find_parents -- the parent of every staged entry.  An entry none of whose
 * ancestors exists is a suffix; one with an ancestor but no parent is an
 * error.  The earliest such entry in the input is reported.
 */
static int
find_parents(struct load *L)
{
    for (size_t k = 0; k < L->n; k++) {
        struct dentry *e = L->list[k];
        unsigned depth = e->e.v.dn->depth;

        e->parent = depth > 1 ? find_any(L, e->e.v.dn, depth - 1) : NULL;
        if (e->parent)
            continue;
        for (unsigned i = depth - 1; i >= 1 && depth > 1; i--)
            if (find_any(L, e->e.v.dn, i))
                return err(L, ACRE_ERR_LDIF_NO_PARENT, e->e.line, 0,
                           "the parent of \"%s\" does not exist",
                           acre_dn_pretty(e->e.v.dn, NULL));
    }
    return check_old_suffixes(L);
}

/*
 * settle_dn -- under a slapd schema, e's DN as back-mdb gives it back:
 * its own RDN in acre's pretty form under its parent's DN as the parent
 * has it (slapd keeps an entry's RDN and rebuilds the rest from the
 * parent: a child written "uid=x,OU=people,DC=Example,dc=com" under
 * "ou=People,dc=example,dc=com" is printed "uid=x,ou=People,dc=example,
 * dc=com").  The same DN, so its normalised form and hashes stay; a new
 * text is allocated under the entry.  Parents are settled first.  An
 * entry whose parent is another database's (the suffix entry of a
 * database below another) is a root to its back-mdb: its DN stays as
 * written.
 */
static int
settle_dn(struct load *L, struct dentry *e)
{
    struct dentry *p = e->parent;
    const char *pp, *own, *rdn;
    size_t ppn, ownn, rdnn;

    if (e->dn_done)
        return 0;
    e->dn_done = 1;
    if (!p || p->e.db != e->e.db)
        return 0;
    if (!p->dn_done) {
        int rc = settle_dn(L, p);
        if (rc)
            return rc;
    }
    pp = acre_dn_pretty(p->e.v.dn, &ppn);
    own = acre_dn_pretty(e->e.v.dn, &ownn);
    if (acre_dn_rdn(e->e.v.dn, 0, NULL, NULL, &rdn, &rdnn) || rdnn >= ownn)
        return 0;
    if (ownn == rdnn + 1 + ppn && !memcmp(own + rdnn + 1, pp, ppn))
        return 0;
    char *text = talloc_asprintf(NULL, "%.*s,%s", (int)rdnn, rdn, pp);
    acre_dn *dn = NULL;
    if (!text)
        return nomem(L);
    int rc = acre_dn_parse(L->batch, dn_schema(L->d), text, strlen(text), 0,
                           &dn, NULL);
    talloc_free(text);
    if (rc == ACRE_ERR_NOMEM)
        return nomem(L);
    if (rc == 0 && acre_dn_equal(dn, e->e.v.dn))
        e->e.v.dn = dn;
    else
        talloc_free(dn);
    return 0;
}

/* settle_dns -- settle_dn for every staged entry (slapd schemas only). */
static int
settle_dns(struct load *L)
{
    int rc = 0;

    if (acreS_profile(L->d->schema) != ACRE_PROFILE_SLAPD)
        return 0;
    for (size_t k = 0; k < L->n && !rc; k++)
        rc = settle_dn(L, L->list[k]);
    return rc;
}

/* ------------------------------------------------------------------------
 * Loading: the commit (nothing here can fail once room is reserved)
 */
static int
reserve_suffixes(struct acreE_dir *d, size_t more)
{
    size_t cap = d->suffixes_cap ? d->suffixes_cap : 8;
    const struct acreE_entry **p;

    while (cap < d->nsuffixes + more)
        cap *= 2;
    if (cap == d->suffixes_cap)
        return 0;
    p = talloc_realloc(d, d->suffixes, const struct acreE_entry *, cap);
    if (!p)
        return ACRE_ERR_NOMEM;
    d->suffixes = p;
    d->suffixes_cap = cap;
    return 0;
}

static void
link_child(struct dentry *parent, struct dentry *e)
{
    if (parent->last_child)
        parent->last_child->e.next_sibling = &e->e;
    else
        parent->e.first_child = &e->e;
    parent->last_child = e;
    parent->e.nchildren++;
}

/*
 * adopt_suffixes -- link each suffix of an earlier load whose parent is
 * staged under it (before the staged children: it was loaded first), and
 * drop it from the suffixes.
 */
static void
adopt_suffixes(struct load *L)
{
    struct acreE_dir *d = L->d;
    size_t kept = 0;

    for (size_t k = 0; k < d->nsuffixes; k++) {
        /* a dentry starts with its entry */
        struct dentry *s = (struct dentry *)d->suffixes[k];
        const acre_dn *dn = s->e.v.dn;
        struct dentry *p =
            dn->depth > 1 ? table_find(&L->stage, dn, dn->depth - 1) : NULL;

        if (p) {
            s->parent = p;
            s->e.parent = &p->e;
            link_child(p, s);
        } else {
            d->suffixes[kept++] = &s->e;
        }
    }
    d->nsuffixes = kept;
}

/*
 * The order back-mdb returns a search in (2.5, back-mdb/search.c): by
 * entry ID only when the filter's index candidates are no more than the
 * entries in scope.  Without an index on the filter's attributes every
 * candidate list is the whole database, so that is a subtree search from
 * the database's root; any other one-level, subtree or children search
 * walks the dn2id tree (mdb_dn2id_walk): the base's children in dn2id's
 * order (slapd's normalised RDN text, acreD_cmp_slapd: its length, then
 * its bytes), then, in that
 * order, the same walk below each child that has children.  Each entry
 * keeps its children in that order (first_sorted, next_sorted) and its
 * subtree size (nsubs), set after every load (order_tree).
 */

/* A sibling being ordered: its normalised RDN, and whether that already
 * is its slapd text (no escape, no '=' inside a value). */
struct sib {
    const char *rdn;
    uint32_t len;
    uint32_t plain;
    const struct acreE_entry *e;
};

/* rdn_cmp -- dn2id's order of two siblings. */
static int
rdn_cmp(const void *a, const void *b)
{
    const struct sib *x = a, *y = b;
    int c;

    if (x->plain && y->plain)
        c = x->len != y->len ? (x->len < y->len ? -1 : 1)
                             : memcmp(x->rdn, y->rdn, x->len);
    else
        c = acreD_cmp_slapd(x->rdn, x->len, y->rdn, y->len);
    return c ? c : (x->e->id > y->e->id) - (x->e->id < y->e->id);
}

/* sib_of -- e as a sibling to order. */
static struct sib
sib_of(const struct acreE_entry *e)
{
    struct sib k = {"", 0, 1, e};
    size_t n = 0, eq = 0, plus = 0;

    acre_dn_rdn(e->v.dn, 0, &k.rdn, &n, NULL, NULL);
    for (size_t i = 0; i < n && k.plain; i++) {
        eq += k.rdn[i] == '=';
        plus += k.rdn[i] == '+';
        k.plain = k.rdn[i] != '\\';
    }
    k.plain = k.plain && eq == plus + 1;
    k.len = (uint32_t)n;
    return k;
}

/* order_tree -- every entry's nsubs and sorted children, the tree being
 * final; all and kids have room for every entry of d. */
static void
order_tree(struct acreE_dir *d, struct acreE_entry **all, struct sib *kids)
{
    size_t n = 0;

    for (size_t k = 0; k < d->nsuffixes; k++) { /* preorder, no stack */
        const struct acreE_entry *root = d->suffixes[k], *e = root;

        for (;;) {
            all[n++] = (struct acreE_entry *)e;
            if (e->first_child) {
                e = e->first_child;
                continue;
            }
            while (e != root && !e->next_sibling)
                e = e->parent;
            if (e == root)
                break;
            e = e->next_sibling;
        }
    }
    for (size_t k = 0; k < n; k++)
        all[k]->nsubs = 0;
    for (size_t k = n; k-- > 0;) { /* children before their parents */
        struct acreE_entry *e = all[k];

        e->nsubs++;
        if (e->parent)
            ((struct acreE_entry *)e->parent)->nsubs += e->nsubs;
        if (!e->nchildren)
            continue;
        size_t m = 0;
        for (const struct acreE_entry *c = e->first_child; c;
             c = c->next_sibling)
            kids[m++] = sib_of(c);
        qsort(kids, m, sizeof *kids, rdn_cmp);
        e->first_sorted = kids[0].e;
        for (size_t i = 0; i < m; i++)
            ((struct acreE_entry *)kids[i].e)->next_sorted =
                i + 1 < m ? kids[i + 1].e : NULL;
    }
}

/*
 * numSubordinates under ACRED_DIR_389, as 389's back end keeps it: on
 * every entry with children, their number, after the entry's own
 * attributes (389 adds it to the parent when the first child comes); on
 * no other entry (a value the LDIF gives is not kept: 389 takes none in
 * an add).  A load looks at its own entries and their parents: the
 * memory for their new attribute lists is reserved before the commit
 * changes anything (numsubs_reserve), so a failed allocation leaves the
 * directory as it was, and used after the entries are linked
 * (numsubs_apply).
 */

/* numsubs_at -- the index of e's numSubordinates, or e's nattrs. */
static unsigned
numsubs_at(const struct dentry *e, int t)
{
    unsigned i = 0;

    while (i < e->e.v.nattrs && e->e.v.attrs[i].id != t)
        i++;
    return i;
}

/* numsubs_size -- the most memory e's new attribute lists can take. */
static size_t
numsubs_size(const struct dentry *e)
{
    size_t n = e->e.v.nattrs + 1u;

    return ALIGN8(n * sizeof(acre_view_attr)) + ALIGN8(n * sizeof(char *)) +
           ALIGN8(n * sizeof(uint32_t)) + sizeof(acre_value) + 16;
}

static void
numsubs_mark(struct dentry *e, size_t *need)
{
    if (e && !e->numsubs_mark) {
        e->numsubs_mark = 1;
        *need += numsubs_size(e);
    }
}

/* numsubs_reserve -- mark the entries to look at; *mem for them. */
static int
numsubs_reserve(struct load *L, char **mem)
{
    size_t need = 0;

    *mem = NULL;
    if (!(L->d->flags & ACRED_DIR_389) ||
        acreS_attr_find(L->d->schema, "numSubordinates", 15) < 0)
        return 0;
    for (size_t k = 0; k < L->n; k++) {
        numsubs_mark(L->list[k], &need);
        numsubs_mark(L->list[k]->parent, &need);
    }
    if (need && !(*mem = talloc_size(L->batch, need))) {
        for (size_t k = 0; k < L->n; k++) { /* the marks outlive a load */
            L->list[k]->numsubs_mark = 0;
            if (L->list[k]->parent)
                L->list[k]->parent->numsubs_mark = 0;
        }
        return -1;
    }
    return 0;
}

/* numsubs_set -- e's numSubordinates right, new lists carved from *mem. */
static void
numsubs_set(struct dentry *e, int t, char **mem)
{
    acre_entry_view *v = &e->e.v;
    unsigned n = v->nattrs, at = numsubs_at(e, t), kids = e->e.nchildren;
    char num[16];
    int len = snprintf(num, sizeof num, "%u", kids);

    e->numsubs_mark = 0;
    if (kids == 0 && at == n)
        return;
    if (kids && at < n && v->attrs[at].nvals == 1 &&
        v->attrs[at].vals[0].len == (size_t)len &&
        !memcmp(v->attrs[at].vals[0].val, num, (size_t)len))
        return;
    unsigned m = n - (at < n) + (kids > 0), j = 0;
    size_t cap = n + 1u;
    acre_view_attr *attrs = (acre_view_attr *)*mem;
    const char **desc =
        (const char **)(*mem + ALIGN8(cap * sizeof(acre_view_attr)));
    uint32_t *desc_len =
        (uint32_t *)((char *)desc + ALIGN8(cap * sizeof(char *)));
    acre_value *val =
        (acre_value *)((char *)desc_len + ALIGN8(cap * sizeof(uint32_t)));
    char *text = (char *)(val + 1);

    *mem += numsubs_size(e);
    for (unsigned i = 0; i < n; i++) {
        if (i == at)
            continue;
        attrs[j] = v->attrs[i];
        desc[j] = e->e.desc[i];
        desc_len[j++] = e->e.desc_len[i];
    }
    if (kids) {
        memcpy(text, num, (size_t)len + 1);
        val->val = text;
        val->len = (size_t)len;
        attrs[j] = (acre_view_attr){t, 1, val, val};
        desc[j] = "numSubordinates";
        desc_len[j++] = 15;
    }
    v->attrs = attrs;
    v->nattrs = m;
    e->e.desc = desc;
    e->e.desc_len = desc_len;
}

/* numsubs_apply -- numsubs_set on every marked entry. */
static void
numsubs_apply(struct load *L, char *mem)
{
    int t = acreS_attr_find(L->d->schema, "numSubordinates", 15);

    if (!mem)
        return; /* nothing marked */
    for (size_t k = 0; k < L->n; k++) {
        struct dentry *e = L->list[k];

        if (e->numsubs_mark)
            numsubs_set(e, t, &mem);
        if (e->parent && e->parent->numsubs_mark)
            numsubs_set(e->parent, t, &mem);
    }
}

static int
commit(struct load *L)
{
    struct acreE_dir *d = L->d;
    size_t nsuf = 0, total = d->count + L->n;
    struct acreE_entry **all =
        talloc_array(L->scratch, struct acreE_entry *, total ? total : 1);
    struct sib *kids = talloc_array(L->scratch, struct sib, total ? total : 1);

    for (size_t k = 0; k < L->n; k++)
        nsuf += L->list[k]->parent == NULL;
    char *numsubs;

    if (!all || !kids || reserve_suffixes(d, nsuf) ||
        (d->index.n && table_reserve(d, &d->index, L->n)) ||
        numsubs_reserve(L, &numsubs))
        return nomem(L);
    adopt_suffixes(L);
    if (d->index.n == 0 && L->stage.n == L->n) {
        /* the first load: the staging table already is the index */
        talloc_free(d->index.s);
        d->index = L->stage;
        talloc_steal(d, d->index.s);
        memset(&L->stage, 0, sizeof L->stage);
    }
    talloc_steal(d, L->batch);
    for (size_t k = 0; k < L->n; k++) {
        struct dentry *e = L->list[k];

        e->e.id = (uint32_t)(d->count + k);
        e->dn_done = 1;
        e->e.parent = e->parent ? &e->parent->e : NULL;
        if (L->stage.s)
            table_put(&d->index, e);
        if (e->parent)
            link_child(e->parent, e);
        else
            d->suffixes[d->nsuffixes++] = &e->e;
    }
    d->count += L->n;
    numsubs_apply(L, numsubs);
    order_tree(d, all, kids);
    return 0;
}

/* ------------------------------------------------------------------------
 * Loading: set-up and the read loop
 */
static int
load_init(struct load *L, struct acreE_dir *d)
{
    unsigned n = acreS_nattrs(d->schema);

    L->d = d;
    L->scratch = talloc_new(NULL);
    if (!L->scratch)
        return ACRE_ERR_NOMEM;
    L->batch = talloc_new(L->scratch);
    L->rtmp = talloc_new(L->scratch);
    L->dnbuf = talloc_size(L->scratch, ACRE_DN_BUF_MAX);
    L->syn = talloc_array(L->scratch, int, n ? n : 1);
    if (!L->batch || !L->rtmp || !L->dnbuf || !L->syn)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++)
        L->syn[i] = -1;
    /* start on scratch storage: p is never NULL, so a zero-length append
     * to an empty buffer stays defined behaviour */
    acreE_buf_init(&L->norms, L->bufs[0], sizeof L->bufs[0]);
    acreE_buf_init(&L->keys, L->bufs[1], sizeof L->bufs[1]);
    acreE_buf_init(&L->tmp, L->bufs[2], sizeof L->bufs[2]);
    return 0;
}

static void
load_free(struct load *L)
{
    acreE_buf_free(&L->norms);
    acreE_buf_free(&L->keys);
    acreE_buf_free(&L->tmp);
    talloc_free(L->scratch);
}

/* progress -- tell the directory's progress function how far the load
 * is: records staged, and the input's offset (0 when it has none). */
static void
progress(const struct load *L)
{
    long off = L->f ? ftell(L->f) : -1;

    L->d->progress(L->d->progress_arg, L->name, L->n,
                   off > 0 ? (uint64_t)off : 0);
}

/* read_all -- stage every record of the reader, then commit. */
static int
read_all(struct load *L, struct acreL_reader *r)
{
    struct acreL_record rec;
    int rc;

    while ((rc = acreL_next(r, &rec, L->diag)) == 1) {
        if ((rc = record(L, &rec)))
            return rc;
        if (L->d->progress && L->n % ACRED_PROGRESS_EVERY == 0)
            progress(L);
    }
    if (rc < 0)
        return rc;
    if ((rc = find_parents(L)) || (rc = settle_dns(L)))
        return rc;
    return commit(L);
}

/* open_input -- the FILE of path ("-": stdin), or NULL for text input. */
static int
open_input(struct load *L, const char *path, FILE **f)
{
    *f = NULL;
    if (!path)
        return 0;
    if (strcmp(path, "-") == 0) {
        *f = stdin;
        return 0;
    }
    const char *kind; /* a FIFO or device is refused, never waited on */
    if (!(*f = acreE_fopen_regular(path, &kind)) && !kind && errno == ENOMEM)
        return err(L, ACRE_ERR_NOMEM, 0, 0, "out of memory");
    if (!*f)
        return err(L, ACRE_ERR_LDIF_IO, 0, 0, "cannot open: %s",
                   kind ? kind : strerror(errno));
    return 0;
}

/* ------------------------------------------------------------------------
 * The directory as a host (acre.h: acre_host)
 */

/* dir_get -- the host's get: the entry named dn. */
static int
dir_get(void *arg, const acre_dn *dn, const acre_entry_view **out)
{
    const struct acreE_entry *e = acreE_dir_find(arg, dn);

    if (!e)
        return 0;
    *out = &e->v;
    return 1;
}

struct view_walk {
    acre_view_fn fn;
    void *arg;
};

static int
view_visit(void *ctx, const struct acreE_entry *e)
{
    const struct view_walk *w = ctx;

    return w->fn(w->arg, &e->v);
}

/* dn2id_below -- the dn2id walk below e (order_tree's comment): its
 * children, then below each that has children; only the children with
 * `one`.  Recursion as deep as the tree, at most ACRE_DN_MAX_RDNS. */
static int
dn2id_below(const struct acreE_entry *e, int one, acreE_visit_fn fn, void *ctx)
{
    int rc;

    for (const struct acreE_entry *c = e->first_sorted; c; c = c->next_sorted)
        if ((rc = fn(ctx, c)))
            return rc;
    for (const struct acreE_entry *c = e->first_sorted; c && !one;
         c = c->next_sorted)
        if (c->first_sorted && (rc = dn2id_below(c, 0, fn, ctx)))
            return rc;
    return 0;
}

static int walk_lists(const struct acreE_entry *first,
                      const struct acreE_entry *const *tops, size_t ntops,
                      int one, acreE_visit_fn fn, void *ctx);

/* from_root -- acreE_dir_search from the root DN, which no entry has:
 * every naming context (acre_host).  One level: the tree roots in load
 * order.  Subtree or children: every entry by ID, as back-mdb returns a
 * search from the root of a database whose suffix is "" (ID 0 keeps no
 * subtree count, so mdb_search walks its candidates, not the tree); under
 * ACRED_DIR_389 tree after tree, as 389 searches one back end after
 * another. */
static int
from_root(const struct acreE_dir *d, int scope, acreE_visit_fn fn, void *ctx)
{
    int rc = 0;

    if (scope == ACRE_SCOPE_BASE)
        return 0;
    if (scope != ACRE_SCOPE_ONE && !(d->flags & ACRED_DIR_389))
        return walk_lists(NULL, d->suffixes, d->nsuffixes, 0, fn, ctx);
    for (size_t i = 0; !rc && i < d->nsuffixes; i++)
        rc = scope == ACRE_SCOPE_ONE ? fn(ctx, d->suffixes[i])
                                     : acreE_dir_walk(d, d->suffixes[i]->v.dn,
                                                      ACRE_SCOPE_SUB, fn, ctx);
    return rc;
}

/* acreE_dir_search -- see directory.h: by entry ID for 389
 * (ACRED_DIR_389) and for a subtree search from a database's root (the
 * top of the base's database when the directory was loaded under a
 * policy's databases, else of its tree: back-mdb walks its candidates
 * when the base's subtree holds as many entries as the database), else
 * back-mdb's dn2id walk (order_tree's comment); from the root DN,
 * from_root. */
int
acreE_dir_search(const struct acreE_dir *d, const acre_dn *base, int scope,
                 acreE_visit_fn fn, void *ctx)
{
    const struct acreE_entry *b, *root;
    int rc;

    if (d && base && fn && !(d->flags & ACRED_DIR_389) &&
        (scope == ACRE_SCOPE_ONE || scope == ACRE_SCOPE_SUB ||
         scope == ACRE_SCOPE_CHILDREN) &&
        (b = acreE_dir_find(d, base)) != NULL) {
        /* the root of b's database (of its tree without databases) */
        for (root = b; root->parent && root->parent->db == b->db;
             root = root->parent)
            ;
        if (scope == ACRE_SCOPE_ONE || b->nsubs < root->nsubs) {
            if (scope == ACRE_SCOPE_SUB && (rc = fn(ctx, b)))
                return rc;
            return dn2id_below(b, scope == ACRE_SCOPE_ONE, fn, ctx);
        }
    }
    rc = acreE_dir_walk(d, base, scope, fn, ctx);
    if (rc == ACRE_ERR_NO_SUCH_OBJECT && !acre_dn_depth(base))
        return from_root(d, scope, fn, ctx);
    return rc;
}

/* dir_search -- the host's search: acreE_dir_search over views; a missing
 * base is an empty result. */
static int
dir_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
           void *fn_arg)
{
    struct view_walk w = {fn, fn_arg};
    int rc = acreE_dir_search(arg, base, scope, view_visit, &w);

    return rc == ACRE_ERR_NO_SUCH_OBJECT ? 0 : rc;
}

/* dir_children -- the host's has_children, found by DN: the view may be
 * another host's. */
static int
dir_children(void *arg, const acre_entry_view *v)
{
    const struct acreE_entry *e = acreE_dir_find(arg, v->dn);

    if (!e)
        return 0;
    if (!e->db)
        return e->nchildren > 0 || e->first_child != NULL;
    /* back-mdb counts the children in its own database only */
    for (const struct acreE_entry *c = e->first_child; c; c = c->next_sibling)
        if (c->db == e->db)
            return 1;
    return 0;
}

/* acreE_dir_host -- see directory.h. */
const acre_host *
acreE_dir_host(const struct acreE_dir *d)
{
    return &d->host;
}

/* acreE_dir_is_host -- see directory.h. */
int
acreE_dir_is_host(const acre_host *h)
{
    return h && h->search == dir_search;
}

/* ------------------------------------------------------------------------
 * API
 */

/* acreE_dir_new -- see directory.h. */
int
acreE_dir_new(void *mem_ctx, const acre_schema *schema, unsigned flags,
              struct acreE_dir **out)
{
    struct acreE_dir *d;

    if (!out ||
        (flags & ~(ACRED_DIR_STRICT | ACRED_DIR_STRICT_VALUES | ACRED_DIR_389)))
        return ACRE_ERR_INVAL;
    if (acreS_check(schema))
        return ACRE_ERR_BADOBJ;
    d = talloc_zero(mem_ctx, struct acreE_dir);
    if (!d)
        return ACRE_ERR_NOMEM;
    d->schema = acreS_freeze(schema);
    if (!d->schema) {
        talloc_free(d);
        return ACRE_ERR_NOMEM;
    }
    d->magic = ACREE_DIR_MAGIC;
    d->flags = flags;
    d->host.arg = d;
    d->host.get = dir_get;
    d->host.search = dir_search;
    d->host.has_children = dir_children;
    *out = d;
    return 0;
}

/* acreE_dir_load_ldif -- see directory.h. */
int
acreE_dir_load_ldif(struct acreE_dir *d, const char *path, const char *text,
                    size_t len, const char *name, unsigned *nwarnings,
                    acre_diag *warn_diag, acre_diag *diag)
{
    struct load L = {0};
    struct acreL_reader *r;
    FILE *f = NULL;
    int rc;

    L.name = path && strcmp(path, "-") ? path : name;
    L.warn = warn_diag;
    L.diag = diag;
    if (!d || (!path && !text && len))
        return err(&L, ACRE_ERR_INVAL, 0, 0, "invalid argument");
    if ((rc = load_init(&L, d)))
        rc = nomem(&L);
    else if (!(rc = open_input(&L, path, &f))) {
        L.f = f;
        rc = acreL_open(L.scratch, f, text, len, L.name, &r);
        if (!rc && slapd_checks(&L) && !(d->flags & ACRED_DIR_STRICT_VALUES))
            acreL_set_slapd(r); /* slapadd's LDIF reader */
        rc = rc ? nomem(&L) : read_all(&L, r);
    }
    if (f && f != stdin)
        fclose(f);
    load_free(&L);
    if (nwarnings)
        *nwarnings = L.nwarn;
    return rc;
}

/* acreE_dir_set_progress -- see directory.h. */
void
acreE_dir_set_progress(struct acreE_dir *d, acreE_progress_fn fn, void *arg)
{
    d->progress = fn;
    d->progress_arg = arg;
}

/* acreE_dir_set_holder -- see directory.h. */
void
acreE_dir_set_holder(struct acreE_dir *d, acreE_holder_fn fn, void *arg)
{
    d->holder = fn;
    d->holder_arg = arg;
}

/* acreE_dir_schema -- see directory.h. */
const acre_schema *
acreE_dir_schema(const struct acreE_dir *d)
{
    return d->schema;
}

/* acreE_dir_count -- see directory.h. */
size_t
acreE_dir_count(const struct acreE_dir *d)
{
    return d->count;
}

/* acreE_dir_find -- see directory.h.  One probe sequence. */
const struct acreE_entry *
acreE_dir_find(const struct acreE_dir *d, const acre_dn *dn)
{
    struct dentry *e = table_find(&d->index, dn, acre_dn_depth(dn));

    return e ? &e->e : NULL;
}

/* acreE_dir_matched -- see directory.h.  At most depth probe sequences. */
const struct acreE_entry *
acreE_dir_matched(const struct acreE_dir *d, const acre_dn *dn)
{
    for (unsigned i = acre_dn_depth(dn); i >= 1; i--) {
        struct dentry *e = table_find(&d->index, dn, i);

        if (e)
            return &e->e;
    }
    return NULL;
}

/*
 * walk_below -- the entries below root (its children only when `one`), in
 * load order, as back-mdb and 389's back-ldbm return them (by entry ID):
 * a parent is loaded before its children and siblings are linked in load
 * order, so a heap of the next candidate of each open sibling list gives
 * the order.  The heap lives on the stack for ordinary trees and grows on
 * the heap past that (ACRE_ERR_NOMEM when it cannot).
 */
#define WALK_HEAP 256

static void
heap_push(const struct acreE_entry **h, size_t *n, const struct acreE_entry *e)
{
    size_t i = (*n)++;

    while (i > 0 && h[(i - 1) / 2]->id > e->id) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = e;
}

static const struct acreE_entry *
heap_pop(const struct acreE_entry **h, size_t *n)
{
    const struct acreE_entry *top = h[0], *last = h[--*n];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1]->id < h[c]->id)
            c++;
        if (h[c]->id >= last->id)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = last;
    return top;
}

/* walk_lists -- walk_below's merge: the sibling list `first` and every
 * list below it (only `first` with `one`), and the entries of
 * tops[0..ntops) (in load order) with everything below them, by entry
 * ID. */
static int
walk_lists(const struct acreE_entry *first,
           const struct acreE_entry *const *tops, size_t ntops, int one,
           acreE_visit_fn fn, void *ctx)
{
    const struct acreE_entry *local[WALK_HEAP], **h = local, **g;
    size_t n = 0, cap = WALK_HEAP, k = 0;
    int rc = 0;

    if (first)
        heap_push(h, &n, first);
    while ((n || k < ntops) && !rc) {
        const struct acreE_entry *e =
            k < ntops && (!n || tops[k]->id < h[0]->id) ? tops[k++]
                                                        : heap_pop(h, &n);
        if (n + 2 > cap) {
            if (!(g = malloc(2 * cap * sizeof *g))) {
                rc = ACRE_ERR_NOMEM;
                break;
            }
            memcpy(g, h, n * sizeof *g);
            if (h != local)
                free(h);
            h = g;
            cap *= 2;
        }
        if (e->next_sibling)
            heap_push(h, &n, e->next_sibling);
        if (!one && e->first_child)
            heap_push(h, &n, e->first_child);
        rc = fn(ctx, e);
    }
    if (h != local)
        free(h);
    return rc;
}

static int
walk_below(const struct acreE_entry *root, int one, acreE_visit_fn fn,
           void *ctx)
{
    return walk_lists(root->first_child, NULL, 0, one, fn, ctx);
}

/* acreE_dir_walk -- see directory.h. */
int
acreE_dir_walk(const struct acreE_dir *d, const acre_dn *base, int scope,
               acreE_visit_fn fn, void *ctx)
{
    const struct acreE_entry *b;
    int rc;

    if (!d || !base || !fn || scope < ACRE_SCOPE_BASE ||
        scope > ACRE_SCOPE_CHILDREN)
        return ACRE_ERR_INVAL;
    if (!(b = acreE_dir_find(d, base)))
        return ACRE_ERR_NO_SUCH_OBJECT;
    if (scope == ACRE_SCOPE_BASE || scope == ACRE_SCOPE_SUB)
        if ((rc = fn(ctx, b)))
            return rc;
    if (scope == ACRE_SCOPE_BASE)
        return 0;
    return walk_below(b, scope == ACRE_SCOPE_ONE, fn, ctx);
}

/* acreE_dir_suffixes -- see directory.h.  In load order. */
const struct acreE_entry *const *
acreE_dir_suffixes(const struct acreE_dir *d, size_t *n)
{
    *n = d->nsuffixes;
    return d->suffixes;
}
