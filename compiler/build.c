/*
 * build.c -- the intermediate form (ir.h) into a compiled policy
 * (engine/policy.h): rules and clauses numbered in evaluation order, the
 * subtree index with one decision table per node, and the node hash.
 *
 * Evaluation order is slapd's: a database's rules, then the global rules
 * (those only, for a database without rules).  Rules of all sections are
 * numbered section by section and the global ones last, so sorting a
 * node's rules by number gives its table's order.
 *
 * Tables are built parents first: a node inherits its parent's table,
 * minus the rules whose depth window ends above it, merged with the rules
 * based exactly on it.  A node that starts another section (a suffix)
 * collects its table afresh along its ancestry.  Rules no DN indexes
 * (regex scopes, "*") are not copied into every node: each section has
 * one residual table, merged with the node's table by rule number as the
 * evaluator walks them.  All tables live in one array, and all attribute
 * bitmaps in another, to keep the per-rule cost down (a talloc chunk per
 * table would cost more than the table).
 */
#include "build.h"
#include "internal.h"

#include "eval.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#define NO_DEPTH 0xffffu
#define PREFETCH 8 /* rules ahead whose DN is fetched early */

struct builder {
    struct acre_policy *p;
    const acre_schema *s;
    /* node DN -> index, during construction */
    uint32_t *own_start; /* per node: first of its own rules in own[] */
    uint32_t *own_count;
    uint32_t *own;  /* rule numbers, grouped by node */
    int *rule_node; /* per rule: its base node, -1 residual */
    struct acreP_slot *tables;
    size_t ntables, cap_tables;
    /* parts the front end shares between rules (attrs= lists, filters)
     * get one bitmap and one filter slot: pointer -> value */
    const void **share_key;
    uintptr_t *share_val;
    uint32_t share_mask, share_used;
    const acre_dn *const *extra; /* more node DNs (subentries' needs) */
    size_t nextra;
    /* the attribute classes (acre_policy.attr_class) while they are
     * refined: per class its size, and per class touched by one list
     * its members in the list and the class they move to */
    uint32_t ncls;
    uint32_t *cls_size, *cls_hit, *cls_to, *touched;
    /* acreP_clause_flags of the clauses seen last, by what they read */
    struct flags_memo *fmemo;
};

/* What acreP_clause_flags reads of a clause (its subject, the parts behind
 * ext, the ssf: never the positions, the mask or the control), so that
 * clauses equal in these have equal flags.  Pointers stand for what they
 * point to: the IR is immutable and shares equal parts. */
struct flags_key {
    const void *dn, *pat, *dnattr, *ext;
    int level;
    unsigned ssf;
    uint8_t kind, is_expand, self;
};

#define FLAGS_MEMO 256 /* direct-mapped entries */

struct flags_memo {
    struct flags_key key;
    uint8_t flags, used;
};

/* Refine the attribute classes by one attrs= bitmap: the types of a class
 * that are in the list and those that are not part ways. */
static int
refine_classes(struct builder *b, const uint64_t *bits)
{
    struct acre_policy *p = b->p;
    unsigned n = acreS_nattrs(b->s), nt = 0;
    uint32_t *cls = (uint32_t *)p->attr_class;

    if (!cls) {
        if (!(cls = talloc_zero_array(p->mem, uint32_t, n ? n : 1)) ||
            !(b->cls_size = talloc_zero_array(b, uint32_t, n + 1)) ||
            !(b->cls_hit = talloc_zero_array(b, uint32_t, n + 1)) ||
            !(b->cls_to = talloc_zero_array(b, uint32_t, n + 1)) ||
            !(b->touched = talloc_array(b, uint32_t, n + 1)))
            return ACRE_ERR_NOMEM;
        p->attr_class = cls;
        p->attr_nclass = n;
        b->cls_size[0] = n;
        b->ncls = 1;
    }
    for (unsigned w = 0; w < p->attr_words; w++)
        for (uint64_t m = bits[w]; m; m &= m - 1) {
            unsigned t = w * 64 + (unsigned)__builtin_ctzll(m);
            if (t < n && b->cls_hit[cls[t]]++ == 0)
                b->touched[nt++] = cls[t];
        }
    for (unsigned i = 0; i < nt; i++) { /* a class wholly in stays whole */
        uint32_t c = b->touched[i];
        b->cls_to[c] = b->cls_hit[c] < b->cls_size[c] ? b->ncls++ : c;
    }
    for (unsigned w = 0; w < p->attr_words; w++)
        for (uint64_t m = bits[w]; m; m &= m - 1) {
            unsigned t = w * 64 + (unsigned)__builtin_ctzll(m);
            if (t < n && b->cls_to[cls[t]] != cls[t] && b->cls_hit[cls[t]]) {
                uint32_t c = cls[t];
                b->cls_size[c]--;
                b->cls_size[b->cls_to[c]]++;
                cls[t] = b->cls_to[c];
            }
        }
    for (unsigned i = 0; i < nt; i++)
        b->cls_hit[b->touched[i]] = 0;
    return 0;
}

/* The value remembered for shared part k, or 0; *slot for storing one. */
static uintptr_t
share_find(struct builder *b, const void *k, uint32_t *slot)
{
    uint32_t i = (uint32_t)(((uintptr_t)k >> 4) * 0x9e3779b1u) & b->share_mask;

    while (b->share_key[i] && b->share_key[i] != k)
        i = (i + 1) & b->share_mask;
    *slot = i;
    return b->share_key[i] ? b->share_val[i] : 0;
}

/* Twice the slots, every entry moved. */
static int
share_grow(struct builder *b)
{
    uint32_t cap = 2 * (b->share_mask + 1);
    const void **key = talloc_zero_array(b, const void *, cap);
    uintptr_t *val = talloc_array(b, uintptr_t, cap);
    const void **okey = b->share_key;
    uintptr_t *oval = b->share_val;
    uint32_t omask = b->share_mask, slot;

    if (!key || !val) {
        talloc_free(key);
        talloc_free(val);
        return ACRE_ERR_NOMEM;
    }
    b->share_key = key;
    b->share_val = val;
    b->share_mask = cap - 1;
    for (uint32_t i = 0; i <= omask; i++)
        if (okey[i]) {
            (void)share_find(b, okey[i], &slot);
            key[slot] = okey[i];
            val[slot] = oval[i];
        }
    talloc_free(okey);
    talloc_free(oval);
    return 0;
}

/* Remember v for k at *slot (from share_find); the table stays at most
 * half full (the front end shares parts: a few distinct ones, usually). */
static int
share_put(struct builder *b, uint32_t slot, const void *k, uintptr_t v)
{
    b->share_key[slot] = k;
    b->share_val[slot] = v;
    b->share_used++;
    return 2 * b->share_used > b->share_mask ? share_grow(b) : 0;
}

/* ------------------------------------------------------------------------
 * Node hash
 */

static int
node_find(const struct acre_policy *p, const acre_dn *dn, unsigned depth)
{
    uint64_t h = acre_dn_ancestor_hash(dn, depth);
    size_t len;
    const char *s = acre_dn_ancestor(dn, depth, &len);

    for (uint32_t i = (uint32_t)h & p->hash_mask;; i = (i + 1) & p->hash_mask) {
        uint64_t v = p->hash[i];
        if (!v)
            return -1;
        if ((v ^ h) >> 32)
            continue;
        const struct acreP_node *n = &p->nodes[(uint32_t)v - 1];
        if (n->hash == h && n->depth == depth && n->ndn_len == len &&
            memcmp(n->ndn, s, len) == 0)
            return (int)((uint32_t)v - 1);
    }
}

int
acreP_node_index(const struct acre_policy *p, const acre_dn *dn)
{
    return node_find(p, dn, acre_dn_depth(dn));
}

static void
node_insert(struct acre_policy *p, uint32_t idx)
{
    uint32_t i = (uint32_t)p->nodes[idx].hash & p->hash_mask;

    /* Invariant: the hash stays at most half full (see build_index) */
    acre_assert(2 * ((size_t)idx + 1) <= (size_t)p->hash_mask + 1);
    while (p->hash[i])
        i = (i + 1) & p->hash_mask;
    p->hash[i] = acreP_node_slot(idx, p->nodes[idx].hash);
}

/* Add dn as a node unless present; returns its index, -1 out of memory. */
static int
node_add(struct acre_policy *p, const acre_dn *dn, uint32_t *cap)
{
    unsigned d = acre_dn_depth(dn);
    int found = node_find(p, dn, d);

    if (found >= 0)
        return found;
    if (p->nnodes == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        struct acreP_node *n =
            talloc_realloc(p->mem, p->nodes, struct acreP_node, *cap);
        if (!n)
            return -1;
        p->nodes = n;
    }
    struct acreP_node *n = &p->nodes[p->nnodes];
    memset(n, 0, sizeof(*n));
    n->dn = dn;
    n->ndn = acre_dn_normalised(dn, &n->ndn_len);
    n->depth = d;
    n->hash = acre_dn_ancestor_hash(dn, d);
    n->parent = -1;
    node_insert(p, p->nnodes);
    if (d > p->max_depth)
        p->max_depth = d;
    return (int)p->nnodes++;
}

/* ------------------------------------------------------------------------
 * Rules
 */

/* slapd's ad_inlist for a description of `type` without options. */
static int
in_list_plain(const acre_schema *s, const struct acreI_what *w, int type)
{
    struct acreI_desc d = {type, 0, NULL, NULL};

    return acreI_attrs_take(s, w, &d, ACREI_OPTS_KNOWN);
}

static void
rule_scope(struct acreP_rule *r)
{
    const struct acreI_what *w = &r->ir->what;
    unsigned d = w->dn ? acre_dn_depth(w->dn) : 0;

    r->lo = 0;
    r->hi = NO_DEPTH;
    switch (w->dn_style) {
    case ACREI_DN_REGEX:
        r->scope = ACREP_SCOPE_REGEX;
        return;
    case ACREI_DN_BASE:
        r->lo = r->hi = (uint16_t)d;
        break;
    case ACREI_DN_ONE: /* dn.one="" is the entries of depth 1 */
        r->lo = r->hi = (uint16_t)(d + 1);
        break;
    case ACREI_DN_SUBTREE:
        r->lo = (uint16_t)d;
        break;
    case ACREI_DN_CHILDREN:
        if (d == 0) {
            r->scope = ACREP_SCOPE_NEVER;
            return;
        }
        r->lo = (uint16_t)(d + 1);
        break;
    default:
        r->scope = ACREP_SCOPE_ANY;
        return;
    }
    r->scope = ACREP_SCOPE_DN;
}

/*
 * The node a dn.regex target can be indexed under, parsed in mem (*out;
 * NULL when there is none: the rule stays residual), and the depth window
 * below it.  Every DN the pattern matches ends with its literal tail
 * (acreI_regex.tail), ignoring ASCII case.  slapd's DN text escapes a ','
 * or '=' inside a value, so the part of the tail after its first ',' is
 * whole RDNs: the entry is below the DN they make, when that part is
 * already slapd's normalised text (no escapes: acre's text is the same)
 * of a DN whose values fold case (any case variant of it normalises to
 * it, so no other spelling of it can match).  With ACREI_RE_EXACT the
 * whole tail is the entry's DN.  Fails only for memory.
 */
static int
regex_base(void *mem, const acre_schema *s, const struct acreI_regex *re,
           acre_dn **out, uint16_t *lo, uint16_t *hi)
{
    const char *t = re->pattern + re->len - 1 - re->tail;
    size_t n = re->tail;
    const char *comma;
    acre_dn *dn = NULL, *up = NULL;
    int rc;

    *out = NULL;
    if (!n || re->len < n + 1 || n > ACRE_DN_MAX_LEN)
        return 0;
    if (!(re->flags & ACREI_RE_EXACT)) {
        if (!(comma = memchr(t, ',', n)))
            return 0;
        n -= (size_t)(comma + 1 - t);
        t = comma + 1;
    }
    unsigned eqs = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c < 0x20 || c >= 0x7f || strchr("\\\"+;<>#", c))
            return 0;
        eqs += c == '=';
    }
    char *low = talloc_size(NULL, 2 * n + 2), *upp = low ? low + n + 1 : NULL;
    if (!low)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        low[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        upp[i] = (char)(c >= 'a' && c <= 'z' ? c - 32 : c);
    }
    size_t nl = 0, nu = 0;
    const char *nt;
    if ((rc = acre_dn_parse(mem, s, low, n, 0, &dn, NULL)) == 0 &&
        acre_dn_depth(dn) == eqs && (nt = acre_dn_normalised(dn, &nl)) &&
        nl == n && memcmp(nt, low, n) == 0 &&
        (rc = acre_dn_parse(low, s, upp, n, 0, &up, NULL)) == 0 &&
        (nt = acre_dn_normalised(up, &nu)) && nu == n &&
        memcmp(nt, low, n) == 0) {
        unsigned d = acre_dn_depth(dn);
        *lo = (uint16_t)(re->flags & ACREI_RE_EXACT ? d : d + 1);
        *hi = re->flags & ACREI_RE_EXACT ? (uint16_t)d : NO_DEPTH;
        *out = dn;
        dn = NULL;
    }
    acre_dn_free(dn);
    talloc_free(low);
    return rc == ACRE_ERR_NOMEM ? rc : 0;
}

uint8_t
acreP_clause_flags(const struct acreI_clause *b)
{
    uint8_t f = acreV_clause_flags(b);
    struct acreI_clause without;

    if (!(f & ACREP_C_ENTRY) || (f & ACREP_C_VALDEP))
        return f;
    /* what is left of the entry part without "self", or without the
     * group: when nothing, the clause is one of the narrow kinds */
    if (b->dn.kind == ACREI_SUBJ_SELF && b->dn.level == 0) {
        without = *b;
        without.dn.kind = ACREI_SUBJ_USERS; /* self needs a DN too */
        if (!(acreV_clause_flags(&without) & ACREP_C_ENTRY))
            f |= ACREP_C_SELFONLY;
    }
    const struct acreI_group *g = acreI_group(b);
    if (g && !g->expand && !g->dynamic && g->dn) {
        struct acreI_clause_ext ext = *b->ext;
        ext.group = NULL;
        without = *b;
        without.ext = &ext;
        if (!(acreV_clause_flags(&without) & ACREP_C_ENTRY))
            f |= ACREP_C_GROUPONLY;
    }
    return f;
}

static struct flags_key
flags_key_of(const struct acreI_clause *c)
{
    struct flags_key k;

    memset(&k, 0, sizeof(k)); /* padding too: keys compare as bytes */
    k.dn = c->dn.dn;
    k.pat = c->dn.pat;
    k.dnattr = c->dn.dnattr;
    k.ext = c->ext;
    k.level = c->dn.level;
    k.ssf = c->ssf;
    k.kind = c->dn.kind;
    k.is_expand = c->dn.is_expand;
    k.self = c->dn.self;
    return k;
}

/* acreP_clause_flags(c), remembered: large policies repeat a few clauses
 * ("by * none", "by users read") in most rules. */
static uint8_t
clause_flags(struct builder *b, const struct acreI_clause *c)
{
    struct flags_key k = flags_key_of(c);
    uint64_t h = (uintptr_t)k.dn ^ (uintptr_t)k.pat * 3 ^
                 (uintptr_t)k.dnattr * 5 ^ (uintptr_t)k.ext * 7 ^
                 (uint64_t)k.kind << 1 ^ (uint64_t)k.self << 5 ^
                 (uint64_t)k.is_expand << 6 ^ (uint64_t)(unsigned)k.level << 7 ^
                 (uint64_t)k.ssf << 17;
    struct flags_memo *m =
        &b->fmemo[(h * 0x9e3779b97f4a7c15u) >> 56 & (FLAGS_MEMO - 1)];

    if (m->used && memcmp(&m->key, &k, sizeof(k)) == 0)
        return m->flags;
    m->key = k;
    m->flags = acreP_clause_flags(c);
    m->used = 1;
    return m->flags;
}

static int
add_rule(struct builder *b, const struct acreI_rule *ir,
         const struct acreI_section *sec, uint32_t *ci)
{
    struct acre_policy *p = b->p;
    struct acreP_rule *r = &p->rules[p->nrules];

    r->ir = ir;
    r->section = sec;
    r->clause0 = *ci;
    r->nclauses = ir->nby;
    r->filter_slot = -1;
    r->regex_slot = -1;
    rule_scope(r);
    if (r->scope == ACREP_SCOPE_REGEX) {
        const struct acreI_regex *re = acreI_dn_re(&ir->what);
        acre_dn *base;
        if (regex_base(NULL, b->s, acreI_dn_re(&ir->what), &base, &r->lo,
                       &r->hi))
            return ACRE_ERR_NOMEM;
        if (base)
            r->flags |= ACREP_R_INDEXED;
        acre_dn_free(base); /* the index parses it again (it may be an
                               attached policy's, with rules shared) */
        /* one slot per distinct pattern: the front end compiles a pattern
         * once and every rule spelling it shares the code, whose answer
         * on the entry's DN is the same for all of them */
        uint32_t slot;
        uintptr_t v = re->code ? share_find(b, re->code, &slot) : 0;
        if (!v) {
            v = ++p->ntests;
            if (re->code && share_put(b, slot, re->code, v))
                return ACRE_ERR_NOMEM;
        }
        r->regex_slot = (int32_t)(v - 1);
    }
    if (ir->what.filter) { /* one slot per distinct filter */
        uint32_t slot;
        uintptr_t v = share_find(b, ir->what.filter, &slot);
        r->flags |= ACREP_R_FILTER;
        if (!v) {
            if (share_put(b, slot, ir->what.filter, v = ++p->ntests))
                return ACRE_ERR_NOMEM;
            p->nfilters++;
        }
        r->filter_slot = (int32_t)(v - 1);
    }
    if (acreI_val(&ir->what)->style != ACREI_VAL_NONE)
        r->flags |= ACREP_R_VAL;
    if (ir->what.has_attrs) {
        r->flags |= ACREP_R_ATTRS;
        /* one bitmap per distinct list (the front end shares lists spelled
         * the same way); an empty list has its own */
        const void *key = ir->what.nattrs ? (const void *)ir->what.attrs
                                          : (const void *)&b->share_mask;
        uint32_t slot;
        uint64_t *bits = (uint64_t *)share_find(b, key, &slot);
        if (!bits) {
            bits = talloc_zero_array(p->mem, uint64_t, p->attr_words + 1);
            if (!bits)
                return ACRE_ERR_NOMEM;
            unsigned n = acreS_nattrs(b->s);
            for (unsigned t = 0; t < n; t++)
                if (in_list_plain(b->s, &ir->what, (int)t))
                    bits[t >> 6] |= (uint64_t)1 << (t & 63);
            if (share_put(b, slot, key, (uintptr_t)bits) ||
                refine_classes(b, bits))
                return ACRE_ERR_NOMEM;
        }
        r->attr_in = bits;
    }
    for (unsigned k = 0; k < ir->nby; k++) {
        struct acreP_clause *c = &p->clauses[(*ci)++];
        c->ir = &ir->by[k];
        c->rule = p->nrules;
        c->flags = clause_flags(b, c->ir);
        if (c->flags & ACREP_C_VALDEP)
            r->flags |= ACREP_R_VALDEP;
        if (c->flags & ACREP_C_MATCHES)
            r->flags |= ACREP_R_MATCHES;
    }
    p->nrules++;
    return 0;
}

/* ------------------------------------------------------------------------
 * Tables
 */

static int
table_push(struct builder *b, uint32_t rule, const struct acreP_rule *r)
{
    _Static_assert(ACRE_DN_MAX_RDNS + 1 < ACREP_SLOT_NO_DEPTH,
                   "a slot's depth window fits its bytes");
    if (b->ntables == b->cap_tables) {
        size_t cap = b->cap_tables ? b->cap_tables * 2 : 1024;
        struct acreP_slot *t =
            talloc_realloc(b->p->mem, b->tables, struct acreP_slot, cap);
        if (!t)
            return ACRE_ERR_NOMEM;
        b->tables = t;
        b->cap_tables = cap;
    }
    b->tables[b->ntables++] = (struct acreP_slot){
        .rule = rule,
        .lo = (uint8_t)r->lo,
        .hi = r->hi > ACRE_DN_MAX_RDNS ? ACREP_SLOT_NO_DEPTH : (uint8_t)r->hi};
    return 0;
}

/* Does rule r belong in the tables of nodes of section sec? */
static int
for_section(const struct acreP_rule *r, const struct acreI_section *sec)
{
    return r->section == NULL || r->section == sec;
}

/* A node whose parent is in the same section: the parent's table, less
 * what ends above, merged with the node's own rules. */
static int
table_inherit(struct builder *b, uint32_t ni, size_t *start)
{
    struct acre_policy *p = b->p;
    const struct acreP_node *n = &p->nodes[ni];
    const struct acreP_node *par = &p->nodes[n->parent];
    size_t ps = (size_t)(uintptr_t)par->table, pe = ps + par->ntable;
    uint32_t os = b->own_start[ni], oe = os + b->own_count[ni];

    /* Invariant: nodes are built parents first (by depth), so the
     * parent's table is complete */
    acre_assert(par->depth < n->depth);
    *start = b->ntables;
    while (ps < pe || os < oe) {
        uint32_t pr = ps < pe ? b->tables[ps].rule : UINT32_MAX;
        uint32_t orl = os < oe ? b->own[os] : UINT32_MAX;
        if (pr < orl) {
            struct acreP_slot sl = b->tables[ps++];
            if (sl.hi >= n->depth && table_push(b, sl.rule, &p->rules[sl.rule]))
                return ACRE_ERR_NOMEM;
        } else {
            os++;
            if (for_section(&p->rules[orl], n->section) &&
                p->rules[orl].hi >= n->depth &&
                table_push(b, orl, &p->rules[orl]))
                return ACRE_ERR_NOMEM;
        }
    }
    return 0;
}

/* Invariant (policy.h): the table from start lists its rules in
 * evaluation order, each once. */
static int
table_ordered(const struct builder *b, size_t start)
{
    for (size_t i = start + 1; i < b->ntables; i++)
        if (b->tables[i - 1].rule >= b->tables[i].rule)
            return 0;
    return 1;
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* A node starting a section (or the root): collect along its ancestry. */
static int
table_fresh(struct builder *b, uint32_t ni, size_t *start)
{
    struct acre_policy *p = b->p;
    const struct acreP_node *n = &p->nodes[ni];
    size_t cnt = 0, cap = 64;
    uint32_t *list = malloc(cap * sizeof(*list));

    if (!list)
        return ACRE_ERR_NOMEM;
    for (int a = (int)ni; a >= 0; a = p->nodes[a].parent)
        for (uint32_t k = 0; k < b->own_count[a]; k++) {
            uint32_t r = b->own[b->own_start[a] + k];
            const struct acreP_rule *pr = &p->rules[r];
            if (!for_section(pr, n->section) || pr->hi < n->depth)
                continue;
            if (cnt == cap) {
                uint32_t *l = realloc(list, (cap *= 2) * sizeof(*list));
                if (!l) {
                    free(list);
                    return ACRE_ERR_NOMEM;
                }
                list = l;
            }
            list[cnt++] = r;
        }
    qsort(list, cnt, sizeof(*list), cmp_u32);
    *start = b->ntables;
    int rc = 0;
    for (size_t i = 0; i < cnt && !rc; i++)
        rc = table_push(b, list[i], &p->rules[list[i]]);
    free(list);
    return rc;
}

int
acreP_node_cmp_depth(const void *a, const void *b, void *arg)
{
    const struct acreP_node *n = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (n[x].depth != n[y].depth)
        return n[x].depth < n[y].depth ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The residual rules (not indexed by DN) grouped by section: those of
 * dbs[d] at [start[d], start[d + 1]) of the result, the global ones at
 * [start[ndbs], start[ndbs + 1]), each group in rule order. */
static uint32_t *
residual_groups(struct builder *b, uint32_t **start)
{
    const struct acre_policy *p = b->p;
    unsigned nd = p->ir->ndbs;
    uint32_t *at = talloc_zero_array(b, uint32_t, nd + 2);
    uint32_t *v = talloc_array(b, uint32_t, p->nrules + 1);

    if (!at || !v)
        return NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < p->nrules; r++) {
            const struct acreP_rule *pr = &p->rules[r];
            if ((pr->scope != ACREP_SCOPE_ANY &&
                 pr->scope != ACREP_SCOPE_REGEX) ||
                (pr->flags & ACREP_R_INDEXED))
                continue;
            unsigned g =
                pr->section ? (unsigned)(pr->section - p->ir->dbs) : nd;
            if (pass == 0)
                at[g + 1]++;
            else
                v[at[g]++] = r;
        }
        for (unsigned g = 0; pass == 0 && g <= nd; g++) /* sizes to starts */
            at[g + 1] += at[g];
    }
    for (unsigned g = nd + 1; g > 0; g--) /* ends back to starts */
        at[g] = at[g - 1];
    at[0] = 0;
    *start = at;
    return v;
}

/* Residual tables: one per section (its own residual rules merged with
 * the global ones, in rule order), and one for entries in none (the
 * global ones); linear in their total size, whatever the sections. */
static int
build_residual(struct builder *b)
{
    struct acre_policy *p = b->p;
    unsigned nd = p->ir->ndbs;
    uint32_t *start, *v = residual_groups(b, &start);

    p->residual = talloc_zero_array(p->mem, struct acreP_residual, nd + 1);
    if (!v || !p->residual)
        return ACRE_ERR_NOMEM;
    for (unsigned d = 0; d <= nd; d++) {
        size_t first = b->ntables;
        uint32_t i = start[d], ie = d < nd ? start[d + 1] : i;
        uint32_t g = start[nd], ge = start[nd + 1];
        while (i < ie || g < ge) {
            uint32_t r = g == ge || (i < ie && v[i] < v[g]) ? v[i++] : v[g++];
            if (table_push(b, r, &p->rules[r]))
                return ACRE_ERR_NOMEM;
        }
        p->residual[d].table = (const struct acreP_slot *)(uintptr_t)first;
        p->residual[d].ntable = (uint32_t)(b->ntables - first);
    }
    return 0;
}

/*
 * What decides whether rule r may share a run of slots (struct
 * acreP_slot): the test its target needs -- its regex's for a REGEX rule
 * (asked before anything but its attribute list), its filter's for
 * another rule with a filter and no value condition (asked last; a value
 * condition asked before it notes the check's value) -- with the way
 * the walk gets there (eval.c: what_matches), its scope and its flags but
 * the attribute list (a list that refuses notes nothing).  Two rules with
 * the same nonzero signature get to the same test doing the same things,
 * so after one failed on it the other has nothing left to do or note.
 */
static uint64_t
run_sig(const struct acreP_rule *r)
{
    uint64_t kind, slot;

    if (r->scope == ACREP_SCOPE_REGEX)
        kind = 1, slot = (uint32_t)r->regex_slot;
    else if ((r->flags & (ACREP_R_FILTER | ACREP_R_VAL)) == ACREP_R_FILTER)
        kind = 2, slot = (uint32_t)r->filter_slot;
    else
        return 0;
    return slot << 24 | kind << 16 | (uint64_t)r->scope << 8 |
           (uint64_t)(r->flags & ~(ACREP_R_ATTRS | ACREP_R_INDEXED));
}

/* One more slot in a run that goes on from the next slot's. */
static uint8_t
run_on(uint8_t next)
{
    return next < ACREP_RUN_MAX ? (uint8_t)(next + 1) : next;
}

/* The runs of table t[0..n), from its end; sig[rule] is run_sig's. */
static void
table_runs(const struct acre_policy *p, const uint64_t *sig,
           struct acreP_slot *t, uint32_t n)
{
    for (uint32_t i = n; i-- > 1;) {
        const struct acreP_rule *a = &p->rules[t[i - 1].rule];
        const struct acreP_rule *b = &p->rules[t[i].rule];
        if ((a->flags & b->flags & ACREP_R_ATTRS) && a->attr_in == b->attr_in)
            t[i - 1].run_attrs = run_on(t[i].run_attrs);
        if (sig[t[i - 1].rule] && sig[t[i - 1].rule] == sig[t[i].rule])
            t[i - 1].run_test = run_on(t[i].run_test);
    }
}

static int
build_tables(struct builder *b)
{
    struct acre_policy *p = b->p;
    uint32_t *order = talloc_array(b, uint32_t, p->nnodes);

    if (!order)
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < p->nnodes; i++)
        order[i] = i;
    qsort_r(order, p->nnodes, sizeof(*order), acreP_node_cmp_depth, p->nodes);
    for (uint32_t k = 0; k < p->nnodes; k++) {
        uint32_t ni = order[k];
        struct acreP_node *n = &p->nodes[ni];
        for (int d = (int)n->depth - 1; d >= 0 && n->parent < 0; d--)
            n->parent = node_find(p, n->dn, (unsigned)d);
        n->section = acreI_section_for(p->ir, n->dn);
        n->default_read = (!n->section || n->section->nrules == 0) &&
                          p->ir->frontend.nrules == 0;
        size_t start;
        int rc = n->parent >= 0 && p->nodes[n->parent].section == n->section
                     ? table_inherit(b, ni, &start)
                     : table_fresh(b, ni, &start);
        if (rc)
            return rc;
        acre_assert(table_ordered(b, start));
        /* offsets for now; pointers once the array stops moving */
        n->table = (const struct acreP_slot *)(uintptr_t)start;
        n->ntable = (uint32_t)(b->ntables - start);
    }
    int rc = build_residual(b);
    if (rc)
        return rc;
    struct acreP_slot *fit; /* at its size (it grew by doubling) */
    if (b->ntables && b->ntables < b->cap_tables &&
        (fit = talloc_realloc(p->mem, b->tables, struct acreP_slot,
                              b->ntables))) {
        b->tables = fit;
        b->cap_tables = b->ntables;
    }
    uint64_t *sig = talloc_array(b, uint64_t, p->nrules + 1);
    if (!sig)
        return ACRE_ERR_NOMEM;
    for (uint32_t r = 0; r < p->nrules; r++)
        sig[r] = run_sig(&p->rules[r]);
    for (unsigned d = 0; d <= p->ir->ndbs; d++) {
        struct acreP_slot *t =
            b->tables + (size_t)(uintptr_t)p->residual[d].table;
        table_runs(p, sig, t, p->residual[d].ntable);
        p->residual[d].table = t;
    }
    for (uint32_t i = 0; i < p->nnodes; i++) {
        struct acreP_node *n = &p->nodes[i];
        struct acreP_slot *t = b->tables + (size_t)(uintptr_t)n->table;
        table_runs(p, sig, t, n->ntable);
        n->table = t;
        n->residual =
            &p->residual[n->section ? (unsigned)(n->section - p->ir->dbs)
                                    : p->ir->ndbs];
    }
    p->ntable_entries = b->ntables;
    return 0;
}

/* ------------------------------------------------------------------------
 * The whole policy
 */

static int
count(const struct acreI_policy *ir, uint32_t *nrules, uint32_t *nclauses)
{
    const struct acreI_section *secs[2] = {NULL, &ir->frontend};

    *nrules = *nclauses = 0;
    for (unsigned d = 0; d <= ir->ndbs; d++) {
        const struct acreI_section *s = d < ir->ndbs ? &ir->dbs[d] : secs[1];
        *nrules += s->nrules;
        for (unsigned i = 0; i < s->nrules; i++)
            *nclauses += s->rules[i].nby;
    }
    return 0;
}

/* The rules and clauses, numbered in evaluation order. */
static int
build_rules(struct builder *b)
{
    struct acre_policy *p = b->p;
    const struct acreI_policy *ir = p->ir;
    uint32_t nrules, nclauses, ci = 0;

    count(ir, &nrules, &nclauses);
    p->attr_words = (acreS_nattrs(b->s) + 63) / 64;
    p->rules = talloc_zero_array(p->mem, struct acreP_rule, nrules + 1);
    p->clauses = talloc_zero_array(p->mem, struct acreP_clause, nclauses + 1);
    b->share_key = talloc_zero_array(b, const void *, 64);
    b->share_val = talloc_array(b, uintptr_t, 64);
    b->share_mask = 63;
    b->fmemo = talloc_zero_array(b, struct flags_memo, FLAGS_MEMO);
    if (!p->rules || !p->clauses || !b->share_key || !b->share_val || !b->fmemo)
        return ACRE_ERR_NOMEM;
    for (unsigned d = 0; d <= ir->ndbs; d++) {
        const struct acreI_section *s =
            d < ir->ndbs ? &ir->dbs[d] : &ir->frontend;
        for (unsigned i = 0; i < s->nrules; i++) {
            /* the target DN a few rules ahead: most are a cache miss */
            if (i + PREFETCH < s->nrules)
                __builtin_prefetch(s->rules[i + PREFETCH].what.dn);
            if (add_rule(b, &s->rules[i], d < ir->ndbs ? s : NULL, &ci))
                return ACRE_ERR_NOMEM;
        }
    }
    p->nclauses = ci;
    return 0;
}

/* The node array at its size (it grew by doubling), and the node hash at
 * twice the nodes rather than twice the nodes there could have been (every
 * rule base): distinct bases are often far fewer than rules. */
static int
fit_nodes(struct acre_policy *p, uint32_t cap)
{
    struct acreP_node *n;
    uint32_t hcap = 64;

    if (p->nnodes < cap &&
        (n = talloc_realloc(p->mem, p->nodes, struct acreP_node, p->nnodes)))
        p->nodes = n;
    while (hcap < 2 * (size_t)p->nnodes)
        hcap *= 2;
    if (hcap >= p->hash_mask + 1)
        return 0;
    uint64_t *h = talloc_zero_array(p->mem, uint64_t, hcap);
    if (!h)
        return ACRE_ERR_NOMEM;
    talloc_free(p->hash);
    p->hash = h;
    p->hash_mask = hcap - 1;
    for (uint32_t i = 0; i < p->nnodes; i++)
        node_insert(p, i);
    return 0;
}

/* The nodes (the root, every suffix, every rule base, then the extra DNs
 * b holds), the node hash and the tables, over p's rules. */
static int
build_index(struct builder *b)
{
    struct acre_policy *p = b->p;
    const struct acreI_policy *ir = p->ir;
    uint32_t nrules = p->nrules, cap = 0;
    acre_dn *root;

    b->rule_node = talloc_array(b, int, nrules + 1);
    /* tables never empty of storage: offsets become pointers into it */
    b->cap_tables = 64;
    b->tables = talloc_array(p->mem, struct acreP_slot, b->cap_tables);
    if (!b->rule_node || !b->tables)
        return ACRE_ERR_NOMEM;
    size_t want = 2 * ((size_t)nrules + 1) + 2 * b->nextra;
    for (unsigned d = 0; d < ir->ndbs; d++)
        want += 2 * (size_t)ir->dbs[d].nsuffix;
    uint32_t hcap = 64;
    while (hcap < want)
        hcap *= 2;
    p->hash = talloc_zero_array(p->mem, uint64_t, hcap);
    p->hash_mask = hcap - 1;
    if (!p->hash || acre_dn_parse(p->mem, b->s, "", 0, 0, &root, NULL) != 0 ||
        node_add(p, root, &cap) < 0)
        return ACRE_ERR_NOMEM;
    for (unsigned d = 0; d < ir->ndbs; d++)
        for (unsigned i = 0; i < ir->dbs[d].nsuffix; i++)
            if (node_add(p, ir->dbs[d].suffix[i], &cap) < 0)
                return ACRE_ERR_NOMEM;
    for (uint32_t r = 0; r < p->nrules; r++) {
        const struct acreP_rule *pr = &p->rules[r];
        acre_dn *tail;
        uint16_t lo, hi;
        b->rule_node[r] = -1;
        if (r + PREFETCH < p->nrules) /* its DN, likely a cache miss */
            __builtin_prefetch(p->rules[r + PREFETCH].ir->what.dn);
        if (pr->scope == ACREP_SCOPE_DN) {
            if ((b->rule_node[r] = node_add(p, pr->ir->what.dn, &cap)) < 0)
                return ACRE_ERR_NOMEM;
        } else if (pr->flags & ACREP_R_INDEXED) {
            /* found once already: failing now is only memory */
            if (regex_base(p->mem, b->s, acreI_dn_re(&pr->ir->what), &tail, &lo,
                           &hi) ||
                !tail || (b->rule_node[r] = node_add(p, tail, &cap)) < 0)
                return ACRE_ERR_NOMEM;
            if (p->nodes[b->rule_node[r]].dn != tail) /* the node was there */
                acre_dn_free(tail);
        }
    }
    for (size_t k = 0; k < b->nextra; k++)
        if (node_add(p, b->extra[k], &cap) < 0)
            return ACRE_ERR_NOMEM;
    if (fit_nodes(p, cap))
        return ACRE_ERR_NOMEM;
    /* each node's own rules, in order */
    b->own_start = talloc_zero_array(b, uint32_t, p->nnodes + 1);
    b->own_count = talloc_zero_array(b, uint32_t, p->nnodes + 1);
    b->own = talloc_array(b, uint32_t, p->nrules + 1);
    if (!b->own_start || !b->own_count || !b->own)
        return ACRE_ERR_NOMEM;
    for (uint32_t r = 0; r < p->nrules; r++)
        if (b->rule_node[r] >= 0)
            b->own_count[b->rule_node[r]]++;
    for (uint32_t i = 1; i < p->nnodes; i++)
        b->own_start[i] = b->own_start[i - 1] + b->own_count[i - 1];
    memset(b->own_count, 0, sizeof(uint32_t) * p->nnodes);
    for (uint32_t r = 0; r < p->nrules; r++) {
        int n = b->rule_node[r];
        if (n >= 0)
            b->own[b->own_start[n] + b->own_count[n]++] = r;
    }
    return build_tables(b);
}

/* rules: build them too; extra[0..nextra): more node DNs. */
static int
run(struct acre_policy *p, int rules, const acre_dn *const *extra,
    size_t nextra)
{
    struct builder *b = talloc_zero(NULL, struct builder);
    int rc = 0;

    if (!b)
        return ACRE_ERR_NOMEM;
    b->p = p;
    b->s = p->schema;
    b->extra = extra;
    b->nextra = nextra;
    if (rules)
        rc = build_rules(b);
    if (!rc)
        rc = build_index(b);
    if (!rc && b->tables)
        talloc_steal(p->mem, b->tables);
    talloc_free(b);
    return rc;
}

int
acreP_build(struct acre_policy *p)
{
    const struct acreI_policy *ir = p->ir;
    const acre_dn **dns = NULL;
    int rc;

    /* slapo-collect's source DNs are nodes too: an attached directory
     * fills in what they give (collective_build.c) */
    if (ir->ncollect &&
        !(dns = talloc_array(NULL, const acre_dn *, ir->ncollect)))
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < ir->ncollect; i++)
        dns[i] = ir->collect[i].dn;
    rc = run(p, 1, dns, ir->ncollect);
    talloc_free(dns);
    return rc;
}

int
acreP_build_index(struct acre_policy *p, const acre_dn *const *extra,
                  size_t nextra)
{
    return run(p, 0, extra, nextra);
}
