/*
 * ir.c -- what the engine needs of the intermediate form: privilege mask
 * arithmetic and printing (slapd's slap_mask_t, bit for bit), the section
 * holding a DN (through the suffix index of ir.h), the $-substitution
 * of templates, and the attrs= list test.
 */
#include "ir.h"
#include "ir_aci.h"
#include "schema.h"

#include <limits.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

const struct acreI_clause_rare acreI_no_rare;
const struct acreI_subject_pat acreI_no_pat;
const struct acreI_regex acreI_no_regex;
const struct acreI_val acreI_no_val;

const struct acreI_level acreI_levels[ACREI_NLEVELS] = {
    {"none", ACREI_LVL_NONE},     {"disclose", ACREI_LVL_DISCLOSE},
    {"auth", ACREI_LVL_AUTH},     {"compare", ACREI_LVL_COMPARE},
    {"search", ACREI_LVL_SEARCH}, {"read", ACREI_LVL_READ},
    {"add", ACREI_LVL_WADD},      {"delete", ACREI_LVL_WDEL},
    {"write", ACREI_LVL_WRITE},   {"manage", ACREI_LVL_MANAGE},
};

uint32_t
acreI_mask_apply(uint32_t cur, uint32_t mod)
{
    if (mod & ACREI_PRIV_ADDITIVE)
        return (cur | mod) & ACREI_PRIV_MASK;
    if (mod & ACREI_PRIV_SUBTRACT)
        return (cur & ~mod) & ACREI_PRIV_MASK;
    return mod;
}

static int
has(uint32_t m, uint32_t p)
{
    return (m & p) == p;
}

/* The level name of a LEVEL mask, compared on the privilege bits. */
static const char *
level_name(uint32_t mask)
{
    uint32_t p = mask & ACREI_PRIV_MASK;

    for (size_t i = 0; i < ACREI_NLEVELS; i++)
        if ((acreI_levels[i].mask & ACREI_PRIV_MASK) == p)
            return acreI_levels[i].name;
    return "unknown";
}

/* Append the privilege letters of mask at p (slapd's order); returns the
 * new end.  '0' only when nothing else was written. */
static char *
put_letters(char *p, uint32_t mask)
{
    char *start = p;

    if (has(mask, ACREI_PRIV_MANAGE))
        *p++ = 'm';
    if (has(mask, ACREI_PRIV_WRITE))
        *p++ = 'w';
    else if (has(mask, ACREI_PRIV_WADD))
        *p++ = 'a';
    else if (has(mask, ACREI_PRIV_WDEL))
        *p++ = 'z';
    if (has(mask, ACREI_PRIV_READ))
        *p++ = 'r';
    if (has(mask, ACREI_PRIV_SEARCH))
        *p++ = 's';
    if (has(mask, ACREI_PRIV_COMPARE))
        *p++ = 'c';
    if (has(mask, ACREI_PRIV_AUTH))
        *p++ = 'x';
    if (has(mask, ACREI_PRIV_DISCLOSE))
        *p++ = 'd';
    if (p == start && has(mask, ACREI_PRIV_NONE))
        *p++ = '0';
    return p;
}

char *
acreI_mask_format(uint32_t mask, char *buf)
{
    char *p = buf, *letters;

    if (mask == 0)
        return strcpy(buf, "invalid");
    if (mask & ACREI_PRIV_LEVEL) {
        const char *name = level_name(mask);
        size_t n = strlen(name);
        memcpy(p, name, n);
        p += n;
        *p++ = '(';
    }
    if (mask & ACREI_PRIV_ADDITIVE)
        *p++ = '+';
    else if (mask & ACREI_PRIV_SUBTRACT)
        *p++ = '-';
    else
        *p++ = '=';
    letters = p;
    p = put_letters(p, mask);
    if (p == letters) /* slapd prints nothing, not even the level */
        p = buf;
    if (mask & ACREI_PRIV_LEVEL)
        *p++ = ')';
    *p = '\0';
    return buf;
}

uint32_t
acreI_access_priv(enum acreI_access a)
{
    switch (a) {
    case ACREI_ACCESS_DISCLOSE:
        return ACREI_PRIV_DISCLOSE;
    case ACREI_ACCESS_AUTH:
        return ACREI_PRIV_AUTH;
    case ACREI_ACCESS_COMPARE:
        return ACREI_PRIV_COMPARE;
    case ACREI_ACCESS_SEARCH:
        return ACREI_PRIV_SEARCH;
    case ACREI_ACCESS_READ:
        return ACREI_PRIV_READ;
    case ACREI_ACCESS_WADD:
        return ACREI_PRIV_WADD;
    case ACREI_ACCESS_WDEL:
        return ACREI_PRIV_WDEL;
    case ACREI_ACCESS_WRITE:
        return ACREI_PRIV_WRITE;
    case ACREI_ACCESS_MANAGE:
        return ACREI_PRIV_MANAGE;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The suffix index (see ir.h)
 */

/* The slot of suffix dn in t, or the empty slot where it would go. */
static struct acreI_sfx_slot *
sfx_slot(const struct acreI_sfx_index *t, const acre_dn *dn)
{
    unsigned depth = acre_dn_depth(dn);
    uint64_t h = acre_dn_ancestor_hash(dn, depth);
    size_t mask = t->cap - 1, k = (size_t)h & mask;

    while (t->slot[k].dn &&
           !(t->slot[k].h == h && acre_dn_equal(t->slot[k].dn, dn)))
        k = (k + 1) & mask;
    return &t->slot[k];
}

/* Double t (or make it) under ctx; 0 or ACRE_ERR_NOMEM, t unchanged. */
static int
sfx_grow(void *ctx, struct acreI_sfx_index *t)
{
    struct acreI_sfx_index n = {NULL, t->cap ? 2 * t->cap : 16, 0};

    n.slot = talloc_zero_array(ctx, struct acreI_sfx_slot, n.cap);
    if (!n.slot)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].dn) {
            *sfx_slot(&n, t->slot[i].dn) = t->slot[i];
            n.n++;
        }
    talloc_free(t->slot);
    *t = n;
    return 0;
}

int
acreI_suffix_add(struct acreI_policy *cfg, unsigned db, const acre_dn *dn)
{
    struct acreI_sfx_index *t = &cfg->sfx;

    if (2 * (t->n + 1) > t->cap && sfx_grow(cfg, t))
        return ACRE_ERR_NOMEM;
    struct acreI_sfx_slot *s = sfx_slot(t, dn);
    if (!s->dn) {
        *s = (struct acreI_sfx_slot){
            acre_dn_ancestor_hash(dn, acre_dn_depth(dn)), dn, db};
        t->n++;
    } else if (db < s->db) {
        s->db = db;
    }
    return 0;
}

/* The lowest database having the ancestor of dn made of its last i RDNs
 * as a suffix, or `best` when that is lower or none has it. */
static unsigned
sfx_probe(const struct acreI_sfx_index *t, const acre_dn *dn, unsigned i,
          unsigned best)
{
    uint64_t h = acre_dn_ancestor_hash(dn, i);
    size_t mask = t->cap - 1;

    for (size_t k = (size_t)h & mask; t->slot[k].dn; k = (k + 1) & mask) {
        const struct acreI_sfx_slot *s = &t->slot[k];
        if (s->h == h && s->db < best && acre_dn_depth(s->dn) == i &&
            acre_dn_in_scope(dn, s->dn, ACRE_SCOPE_SUB) == 1)
            best = s->db;
    }
    return best;
}

const struct acreI_section *
acreI_section_for(const struct acreI_policy *cfg, const acre_dn *dn)
{
    unsigned best = UINT_MAX, depth = acre_dn_depth(dn);

    if (!cfg->sfx.n)
        return NULL;
    for (unsigned i = 0; i <= depth; i++)
        best = sfx_probe(&cfg->sfx, dn, i, best);
    return best < cfg->ndbs ? &cfg->dbs[best] : NULL;
}

/* acreI_superior -- see ir.h. */
const struct acreI_section *
acreI_superior(const struct acreI_policy *cfg, const struct acreI_section *s)
{
    for (size_t d = (size_t)(s - cfg->dbs) + 1; s->nsuffix && d < cfg->ndbs;
         d++) {
        const struct acreI_section *t = &cfg->dbs[d];
        if (!t->subordinate && t->nsuffix &&
            acre_dn_in_scope(s->suffix[0], t->suffix[0], ACRE_SCOPE_SUB) == 1)
            return t;
    }
    return NULL;
}

/* acreI_select_db -- see ir.h. */
const struct acreI_section *
acreI_select_db(const struct acreI_policy *cfg, const acre_dn *dn)
{
    const struct acreI_section *db = acreI_section_for(cfg, dn);

    if (!db || !db->subordinate)
        return db;
    for (unsigned d = 0; d < cfg->ndbs; d++) {
        const struct acreI_section *s = &cfg->dbs[d];
        for (unsigned i = 0; !s->subordinate && i < s->nsuffix; i++)
            if (acre_dn_in_scope(dn, s->suffix[i], ACRE_SCOPE_SUB) == 1)
                return s;
    }
    return NULL;
}

/* acreI_in_glue -- see ir.h. */
int
acreI_in_glue(const struct acreI_policy *cfg, const struct acreI_section *s,
              const struct acreI_section *top)
{
    return s && (s == top || (s->subordinate && acreI_superior(cfg, s) == top));
}

/* Substitution state of acreI_expand (slapd's flag / tflag). */
struct exp {
    const char *dn_src, *val_src;
    const int (*dn_off)[2], (*val_off)[2];
    int dn_count, val_count;
    char *out;
    size_t size, max;
};

/* Copy submatch n of the DN (val == 0) or of the value. */
static int
put_match(struct exp *x, int n, int val)
{
    int count = val ? x->val_count : x->dn_count;
    const char *src = val ? x->val_src : x->dn_src;
    const int(*off)[2] = val ? x->val_off : x->dn_off;

    if (n >= count || !src)
        return -1;
    int i = off ? off[n][0] : 0, l = off ? off[n][1] : 0;
    for (; x->size < x->max && i < l; i++)
        x->out[x->size++] = src[i];
    return 0;
}

/* After "${": the digits up to '}' (non-digits ignored, as slapd). */
static int
braced_number(const char *s, size_t len, size_t *k, int first)
{
    int n = first;

    for ((*k)++; *k < len && s[*k] != '}'; (*k)++)
        if (s[*k] >= '0' && s[*k] <= '9' && n < 1000000) /* past any count */
            n = 10 * n + (s[*k] - '0');
    return *k < len ? n : -1;
}

int
acreI_expand(const char *s, size_t len, const char *dn_src,
             const int (*dn_off)[2], int dn_count, const char *val_src,
             const int (*val_off)[2], int val_count, char *out, size_t *out_len)
{
    struct exp x = {dn_src,  val_src,  dn_off,
                    val_off, dn_count, val_count,
                    out,     0,        ACREI_EXPAND_MAX - 1};
    int flag = 0, val = 0;

    for (size_t k = 0; x.size < x.max && k < len; k++) {
        char c = s[k];
        if (!flag) {
            if (c == '$')
                flag = 1;
            else
                out[x.size++] = c;
        } else if (flag == 1 && c == '$') {
            out[x.size++] = '$';
            flag = 0;
            val = 0;
        } else if (flag == 2 && (c == 'v' || c == 'd')) {
            val = c == 'v';
        } else if (flag == 1 && c == '{') {
            flag = 2;
        } else if (c >= '0' && c <= '9') {
            int n = c - '0';
            if (flag == 2 && (n = braced_number(s, len, &k, n)) < 0)
                return -1;
            if (put_match(&x, n, val))
                return -1;
            flag = 0;
            val = 0;
        }
    }
    if (flag)
        out[x.size++] = '$';
    out[x.size] = '\0';
    *out_len = x.size;
    return 0;
}

/* ------------------------------------------------------------------------
 * The attrs= list
 */

/* Every option of item a is covered by one of d's (a language range
 * "lang-en-" by lang-en and lang-en-*: slapd's is_ad_subtags). */
static int
opts_cover(const struct acreI_desc *d, const struct acreI_attrspec *a)
{
    for (unsigned i = 0; i < a->nopts; i++) {
        size_t wl = strlen(a->opts[i]);
        unsigned j = 0;
        while (j < d->nopts &&
               !acreS_opt_covers(a->opts[i], wl, d->opts[j], d->opt_len[j]))
            j++;
        if (j == d->nopts)
            return 0;
    }
    return 1;
}

static int
opts_equal(const struct acreI_desc *d, const struct acreI_attrspec *a)
{
    if (d->nopts != a->nopts)
        return 0;
    for (unsigned i = 0; i < a->nopts; i++)
        if (strlen(a->opts[i]) != d->opt_len[i] ||
            strncasecmp(d->opts[i], a->opts[i], d->opt_len[i]))
            return 0;
    return 1;
}

/* Does item a (a type, or "-type") take d? */
static int
type_takes(const acre_schema *s, const struct acreI_attrspec *a,
           const struct acreI_desc *d, enum acreI_opts_mode mode)
{
    int sub =
        a->kind == ACREI_ATTR_TYPE && acreS_is_subtype(s, d->type, a->type);

    if (mode == ACREI_OPTS_KNOWN)
        return (d->type == a->type && opts_equal(d, a)) ||
               (sub && opts_cover(d, a));
    if (a->nopts) /* options on both sides, d's unknown */
        return mode == ACREI_OPTS_SOME_WIDE && (d->type == a->type || sub);
    /* an item without options: a type takes its subtypes whatever their
     * options; "-type" only the description without any */
    return sub;
}

int
acreI_attrs_take(const acre_schema *s, const struct acreI_what *w,
                 const struct acreI_desc *d, enum acreI_opts_mode mode)
{
    for (unsigned i = 0; i < w->nattrs; i++) {
        const struct acreI_attrspec *a = &w->attrs[i];
        switch (a->kind) {
        case ACREI_ATTR_EXACT:
        case ACREI_ATTR_TYPE:
            if (type_takes(s, a, d, mode))
                return 1;
            break;
        case ACREI_ATTR_CLASS:
            if (a->extensible || acreS_class_allows(s, a->oc, d->type))
                return 1;
            break;
        case ACREI_ATTR_NOT_CLASS:
            return !a->extensible && !acreS_class_allows(s, a->oc, d->type);
        }
    }
    return 0;
}

/* acreI_aci_rnames -- see ir_aci.h. */
const struct acreI_aci_rname acreI_aci_rnames[ACREI_ACI_NRNAMES] = {
    {ACREI_ACI_READ, "read"},
    {ACREI_ACI_WRITE, "write"},
    {ACREI_ACI_ADD, "add"},
    {ACREI_ACI_DELETE, "delete"},
    {ACREI_ACI_SEARCH, "search"},
    {ACREI_ACI_COMPARE, "compare"},
    {ACREI_ACI_SELFWRITE, "selfwrite"},
    {ACREI_ACI_PROXY, "proxy"},
    {ACREI_ACI_MODDN, "moddn"},
    {ACREI_ACI_IMPORT, "import"},
    {ACREI_ACI_EXPORT, "export"}};
