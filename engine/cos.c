/*
 * cos.c -- 389-DS's Class of Service (cos.h), as its cos plugin
 * (cos_cache.c) computes it, written from that plugin's behaviour:
 *
 * Definitions: ldapSubEntry entries of class cosSuperDefinition or
 * cosDefinition, found anywhere the host holds.  Their kind is the first
 * of cosDefinition / cosClassicDefinition (classic), cosPointerDefinition
 * (pointer), cosIndirectDefinition (indirect) among their classes; none:
 * no definition.  cosTargetTree and cosTemplateDn, when one is missing,
 * are the definition's parent; cosSpecifier and cosIndirectSpecifier are
 * one list.  A cosAttribute or specifier names a type only by its schema
 * name (389 compares the names as text; an alias names nothing), and a
 * template holds the values of that very type (a subtype's are not
 * compared).  cosAttribute values end in qualifiers, each after one space
 * and in lower case (" override", " operational", " merge-schemes",
 * " default", " operational-default"; as many as are there), which hold
 * for every value naming the same type.  A classic definition needs
 * templates, specifiers and attributes; a pointer one templates and
 * attributes; an indirect one specifiers and attributes; a definition
 * whose specifier is one of its own attributes, or (classic and pointer)
 * that finds no template, is dropped.
 *
 * Templates: entries of class cosTemplate, one level below a classic
 * definition's cosTemplateDn values or at a pointer definition's, holding
 * at least one of the definition's attributes.  A template's grade is the
 * value of the first RDN of its DN as 389 stores it (quotes dropped,
 * \XX escapes undone); it is the definition's default template when the
 * grade is the definition's (first listed) specifier name followed by
 * "-default"; its priority is its cosPriority (absent: the lowest).
 *
 * The plugin keeps its lists newest first and sorts every (attribute,
 * template) pair by attribute name, then priority, with a comparison that
 * truncates the priorities' difference to an int; acreV_cos_finish builds
 * the same order with the same (stable, merging) sort.  A query for type
 * T of entry E walks T's pairs in that order (cos_cache_query_attr):
 *   - none when E's object classes allow T nowhere (the schema check),
 *     unless the first pair's attribute is operational or
 *     operational-default;
 *   - a pair is skipped when E stores T and the pair is neither override
 *     nor operational, and, once merging, when it is not merge-schemes;
 *   - E must be in one of the definition's target trees;
 *   - classic: some value of one of E's specifiers (stored values; for
 *     nsRole the roles E holds) equals the grade, case ignored; pointer:
 *     always; indirect: the entry a specifier value names (the first, or
 *     each when merging) holds T, whose values (virtual ones too) are taken;
 *   - the first hit gives the values (the template's, newest first); a
 *     merge-schemes hit goes on to the next pairs, adding values not
 *     already there; a default template met in scope is kept, and used
 *     when nothing else hit.
 * T is then operational (returned only when named) when the pair that
 * hit (the default one) is operational or operational-default.
 *
 * Specifier values and pointed values are read as 389's virtual
 * attribute service gives them (vattr_values: CoS again, nsRole, else the
 * stored ones), at most COS_DEPTH lookups deep.  Target trees are text as
 * the plugin keeps them (a cosTargetTree value as written), matched
 * against the entry's DN in 389's normalised text.
 *
 * Not modelled: 389's views, and the search candidates of 389's indexes
 * (an indexed attribute that only CoS gives is not found through its
 * index by 389).
 *
 * Cost: the index is built with memberof.c's, once per host generation;
 * a query scans T's pairs (a bitmap tells at once when CoS knows no T),
 * with one text compare per target tree.  The values returned are copies
 * in the request (rq->cos_mem, emptied at each query from outside).
 */
#include "cos.h"

#include "buf.h"
#include "dn.h"
#include "entry.h"
#include "eval.h"
#include "internal.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <unicase.h>

enum { K_CLASSIC = 1, K_POINTER, K_INDIRECT };

#define Q_OVERRIDE    0x1u
#define Q_OPERATIONAL 0x2u
#define Q_MERGE       0x4u
#define Q_OPDEFAULT   0x8u

struct cos_name {
    int type; /* -1: unknown to the schema */
    char *name;
    size_t len;
    unsigned q; /* Q_* of every value naming this type */
};

/* A target tree as the plugin keeps it: a cosTargetTree value as
 * written (the plugin never normalises a lone value), or the parent's
 * normalised DN; an entry is in it when its normalised DN ends with it
 * (case ignored) at a separator, as slapi_dn_issuffix tests. */
struct cos_tree {
    char *text;
    size_t len;
};

struct cos_def {
    int kind;
    struct cos_tree *tree; /* 389's list order: last value first */
    uint32_t ntree;
    acre_dn **tdn;
    uint32_t ntdn;
    struct cos_name *spec; /* specifiers, last value first */
    uint32_t nspec;
    struct cos_name *attr; /* cosAttribute types, last value first */
    uint32_t nattr;
};

struct cos_tattr {
    int type;
    const char *name; /* as the template entry spells it */
    size_t len;
    acre_value *vals; /* the template's values, last first */
    uint32_t nvals;
};

struct cos_tmpl {
    acre_dn *dn;
    char *grade;
    size_t grade_len;
    uint64_t priority;
    struct cos_tattr *a; /* the template's attributes, in entry order */
    uint32_t na;
};

/* One (attribute, template) pair of the plugin's index. */
struct cos_pair {
    int type;
    const char *name;
    size_t len;
    uint32_t def;
    const acre_value *vals; /* NULL for an indirect definition */
    uint32_t nvals;
    uint64_t priority;
    const char *grade;
    size_t grade_len;
    unsigned q;
    int is_default;
};

struct acreV_cos {
    struct cos_def *d; /* in the host's order */
    uint32_t nd, capd;
    struct cos_tmpl *t; /* in the host's order */
    uint32_t nt, capt;
    struct cos_pair *p; /* sorted as 389's ppAttrIndex */
    uint32_t np;
    int *types;         /* the distinct types of p, in its order */
    const char **names; /* each one's name as its first pair spells it */
    uint32_t ntypes;
    uint64_t *known; /* bitmap over type ids */
    unsigned nwords;
};

/* ------------------------------------------------------------------------
 * Collecting
 */

static int
value_is(const acre_value *v, const char *s)
{
    size_t n = strlen(s);

    return v->len == n && !strncasecmp((const char *)v->val, s, n);
}

#define C_SUBENTRY 0x1u
#define C_SUPER    0x2u /* cosSuperDefinition or cosDefinition */
#define C_CLASSIC  0x4u /* cosDefinition or cosClassicDefinition */
#define C_POINTER  0x8u
#define C_INDIRECT 0x10u
#define C_TEMPLATE 0x20u

static unsigned
classes(const acre_schema *s, const acre_entry_view *e, int oc)
{
    unsigned bits = 0;

    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreE_attr_type(s, a) != oc)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++) {
            const acre_value *v = &a->vals[j];
            bits |= value_is(v, "ldapSubEntry")            ? C_SUBENTRY
                    : value_is(v, "cosSuperDefinition")    ? C_SUPER
                    : value_is(v, "cosDefinition")         ? C_SUPER | C_CLASSIC
                    : value_is(v, "cosClassicDefinition")  ? C_CLASSIC
                    : value_is(v, "cosPointerDefinition")  ? C_POINTER
                    : value_is(v, "cosIndirectDefinition") ? C_INDIRECT
                    : value_is(v, "cosTemplate")           ? C_TEMPLATE
                                                           : 0;
        }
    }
    return bits;
}

/* The name of attribute a as the host spells it (its description's). */
static const char *
attr_name(const acre_schema *s, const acre_view_attr *a, size_t *len)
{
    const struct acreS_dinfo *d = acreE_attr_info(s, a);
    const struct acreS_attr *at =
        d && d->type >= 0 ? acreS_attr(s, d->type) : NULL;
    const char *n = at ? (at->nnames ? at->names[0] : at->oid) : "";

    *len = strlen(n);
    return n;
}

static int
is_attr(const acre_schema *s, const acre_view_attr *a, const char *name)
{
    const struct acreS_dinfo *d = acreE_attr_info(s, a);
    int t = acreS_attr_find(s, name, strlen(name));

    return d && t >= 0 && d->type == t && !d->nopts;
}

/* Clip " q" from the end of s[0..*n) when it is there, exactly. */
static int
clip(const char *s, size_t *n, const char *q)
{
    size_t k = strlen(q);

    if (*n <= k || memcmp(s + *n - k, q, k))
        return 0;
    *n -= k;
    return 1;
}

/* Add name s[0..n) (type by the schema) with qualifiers q to a list kept
 * last value first; a name already there takes q too.  primary: the name
 * names its type only when it is the type's schema name (case aside), as
 * 389 stores the type and compares names as text (an alias in
 * cosAttribute finds no template value and no query asks for it; in a
 * specifier it reads no value of the entry). */
static int
add_name(void *ctx, const acre_schema *s, struct cos_name **list, uint32_t *n,
         const char *v, size_t len, unsigned q, int primary)
{
    int t = acreS_attr_find(s, v, len);

    if (t >= 0 && primary) {
        const struct acreS_attr *at = acreS_attr(s, t);
        const char *pn = at->nnames ? at->names[0] : at->oid;
        if (strlen(pn) != len || strncasecmp(pn, v, len))
            t = -1;
    }
    for (uint32_t i = 0; i < *n; i++)
        if ((*list)[i].len == len && !strncasecmp((*list)[i].name, v, len))
            (*list)[i].q |= q;
    struct cos_name *l = talloc_realloc(ctx, *list, struct cos_name, *n + 1);
    if (!l)
        return ACRE_ERR_NOMEM;
    *list = l;
    memmove(l + 1, l, *n * sizeof(*l));
    l[0] = (struct cos_name){t, talloc_strndup(ctx, v, len), len, q};
    for (uint32_t i = 1; i <= *n; i++)
        if (l[i].len == len && !strncasecmp(l[i].name, v, len))
            l[0].q |= l[i].q;
    (*n)++;
    return l[0].name ? 0 : ACRE_ERR_NOMEM;
}

/* A DN value parsed and pushed to the front of a list; a value that is
 * no DN is left out. */
static int
add_dn(void *ctx, const acre_schema *s, acre_dn ***list, uint32_t *n,
       const char *v, size_t len)
{
    acre_dn *dn = NULL;
    int rc = acre_dn_parse(ctx, s, v, len, 0, &dn, NULL);

    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return 0;
    acre_dn **l = talloc_realloc(ctx, *list, acre_dn *, *n + 1);
    if (!l)
        return ACRE_ERR_NOMEM;
    memmove(l + 1, l, *n * sizeof(*l));
    l[0] = dn;
    *list = l;
    (*n)++;
    return 0;
}

/* Push a target tree's text to the front of the list. */
static int
add_tree(void *ctx, struct cos_def *d, const char *v, size_t len)
{
    struct cos_tree *l =
        talloc_realloc(ctx, d->tree, struct cos_tree, d->ntree + 1);
    char *t = talloc_strndup(ctx, v, len);

    if (!l || !t)
        return ACRE_ERR_NOMEM;
    memmove(l + 1, l, d->ntree * sizeof(*l));
    l[0] = (struct cos_tree){t, len};
    d->tree = l;
    d->ntree++;
    return 0;
}

/* DN text s[0..n) as 389 normalises it into *out (talloc, ctx); the text
 * itself when it is no DN. */
static int
text_389(void *ctx, const char *s, size_t n, char **out, size_t *len)
{
    struct acreE_buf b;
    int rc;

    acreE_buf_init(&b, NULL, 0);
    rc = acreD_text_389(s, n, &b);
    if (rc == ACRE_ERR_NOMEM) {
        acreE_buf_free(&b);
        return rc;
    }
    *out = rc ? talloc_strndup(ctx, s, n)
              : talloc_strndup(ctx, b.len ? (const char *)b.p : "", b.len);
    *len = rc ? n : b.len;
    acreE_buf_free(&b);
    return *out ? 0 : ACRE_ERR_NOMEM;
}

static int
add_def(void *ctx, struct acreV_cos *c, const acre_schema *s,
        const acre_entry_view *e, unsigned bits)
{
    struct cos_def d = {0};
    int rc = 0;

    d.kind = (bits & C_CLASSIC)    ? K_CLASSIC
             : (bits & C_POINTER)  ? K_POINTER
             : (bits & C_INDIRECT) ? K_INDIRECT
                                   : 0;
    if (!d.kind)
        return 0;
    for (uint32_t i = 0; i < e->nattrs && !rc; i++) {
        const acre_view_attr *a = &e->attrs[i];
        int tree = is_attr(s, a, "cosTargetTree"),
            tdn = is_attr(s, a, "cosTemplateDn"),
            spec = is_attr(s, a, "cosSpecifier") ||
                   is_attr(s, a, "cosIndirectSpecifier"),
            attr = is_attr(s, a, "cosAttribute");
        for (uint32_t j = 0; j < a->nvals && !rc; j++) {
            const char *v = (const char *)a->vals[j].val;
            size_t n = a->vals[j].len;
            unsigned q = 0, hit;
            if (tree)
                rc = add_tree(ctx, &d, v, n);
            else if (tdn)
                rc = add_dn(ctx, s, &d.tdn, &d.ntdn, v, n);
            else if (spec)
                rc = add_name(ctx, s, &d.spec, &d.nspec, v, n, 0, 1);
            else if (attr) {
                do {
                    hit = 0;
                    if (clip(v, &n, " operational"))
                        hit = 1, q |= Q_OPERATIONAL;
                    if (clip(v, &n, " merge-schemes"))
                        hit = 1, q |= Q_MERGE;
                    if (clip(v, &n, " override"))
                        hit = 1, q |= Q_OVERRIDE;
                    if (clip(v, &n, " default"))
                        hit = 1;
                    if (clip(v, &n, " operational-default"))
                        hit = 1, q |= Q_OPDEFAULT;
                } while (hit);
                rc = add_name(ctx, s, &d.attr, &d.nattr, v, n, q, 1);
            }
        }
    }
    if (rc)
        return rc;
    if (d.nattr && (!d.ntree || !d.ntdn) && acre_dn_depth(e->dn)) {
        size_t pn, tn;
        const char *p = acre_dn_ancestor(e->dn, acre_dn_depth(e->dn) - 1, &pn);
        char *t;
        if (!d.ntree && ((rc = text_389(ctx, p, pn, &t, &tn)) ||
                         (rc = add_tree(ctx, &d, t, tn))))
            return rc;
        if (!d.ntdn && (rc = add_dn(ctx, s, &d.tdn, &d.ntdn, p, pn)))
            return rc;
    }
    if (!d.nattr || (d.kind != K_POINTER && !d.nspec) ||
        (d.kind != K_INDIRECT && !d.ntdn))
        return 0;
    for (uint32_t i = 0; i < d.nspec; i++)
        for (uint32_t j = 0; j < d.nattr; j++)
            if (d.spec[i].len == d.attr[j].len &&
                !strncasecmp(d.spec[i].name, d.attr[j].name, d.spec[i].len))
                return 0; /* supplies its own specifier */
    if (c->nd == c->capd) {
        c->capd = c->capd ? 2 * c->capd : 8;
        if (!(c->d = talloc_realloc(c, c->d, struct cos_def, c->capd)))
            return ACRE_ERR_NOMEM;
    }
    c->d[c->nd++] = d;
    return 0;
}

/* The grade of a template: its DN as 389 stores it, the value of the
 * first RDN (from the first '=' to the first ',' that is neither escaped
 * nor quoted), quotes dropped and \XX pairs undone but \00. */
static char *
grade_of(void *ctx, const acre_dn *dn, size_t *len)
{
    struct acreE_buf b, g;
    size_t n;
    const char *pretty = acre_dn_pretty(dn, &n);
    char *out = NULL;

    acreE_buf_init(&b, NULL, 0);
    acreE_buf_init(&g, NULL, 0);
    if (acreD_text_389(pretty, n, &b) == 0) {
        const char *s = (const char *)b.p, *eq = memchr(s, '=', b.len);
        size_t i = eq ? (size_t)(eq - s) + 1 : b.len;
        int quotes = 0, rc = 0;
        for (; i < b.len && !rc &&
               (s[i] != ',' || (i && s[i - 1] == '\\') || quotes);
             i++) {
            if (s[i] == '"') {
                quotes = !quotes;
            } else if (s[i] == '\\') {
                const char *hex = "0123456789abcdef";
                const char *h1 = i + 2 < b.len ? strchr(hex, s[i + 1] | 32)
                                               : NULL,
                           *h2 = h1 ? strchr(hex, s[i + 2] | 32) : NULL;
                if (h1 && h2 && s[i + 1] && s[i + 2]) {
                    int c = (int)((h1 - hex) * 16 + (h2 - hex));
                    rc = c ? acreE_buf_putc(&g, (uint8_t)c)
                           : acreE_buf_put(&g, s + i, 3);
                    i += 2;
                }
            } else {
                rc = acreE_buf_putc(&g, (uint8_t)s[i]);
            }
        }
        if (!rc)
            out = talloc_strndup(ctx, g.len ? (const char *)g.p : "", g.len);
        *len = g.len;
    } else {
        out = talloc_strdup(ctx, "");
        *len = 0;
    }
    acreE_buf_free(&b);
    acreE_buf_free(&g);
    return out;
}

static int
add_tmpl(void *ctx, struct acreV_cos *c, const acre_schema *s,
         const acre_entry_view *e, int oc)
{
    struct cos_tmpl t = {0};
    int prio = acreS_attr_find(s, "cosPriority", strlen("cosPriority"));

    t.priority = UINT64_MAX;
    if (acre_dn_copy(ctx, e->dn, &t.dn) ||
        !(t.grade = grade_of(ctx, e->dn, &t.grade_len)) ||
        !(t.a = talloc_array(ctx, struct cos_tattr, e->nattrs + 1)))
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        int type = acreE_attr_type(s, a);
        /* the plugin compares the stored name, options included, with
         * the definitions' cosAttribute names: a subtype gives nothing */
        if (type < 0 || type == oc || !a->nvals || acreE_attr_info(s, a)->nopts)
            continue;
        if (type == prio) { /* the plugin's list is last value first */
            char num[32];
            const acre_value *v = &a->vals[a->nvals - 1];
            size_t k = v->len < sizeof num - 1 ? v->len : sizeof num - 1;
            memcpy(num, v->val, k);
            num[k] = 0;
            t.priority = (uint64_t)(unsigned long)atol(num);
            continue;
        }
        struct cos_tattr *ta = &t.a[t.na++];
        ta->type = type;
        ta->name = attr_name(s, a, &ta->len);
        ta->nvals = a->nvals;
        if (!(ta->vals = talloc_array(ctx, acre_value, a->nvals)))
            return ACRE_ERR_NOMEM;
        for (uint32_t j = 0; j < a->nvals; j++) {
            const acre_value *v = &a->vals[a->nvals - 1 - j];
            uint8_t *copy =
                talloc_memdup(ctx, v->len ? v->val : (void *)"", v->len + 1);
            if (!copy)
                return ACRE_ERR_NOMEM;
            ta->vals[j] = (acre_value){.val = copy, .len = v->len};
        }
    }
    if (c->nt == c->capt) {
        c->capt = c->capt ? 2 * c->capt : 8;
        if (!(c->t = talloc_realloc(c, c->t, struct cos_tmpl, c->capt)))
            return ACRE_ERR_NOMEM;
    }
    c->t[c->nt++] = t;
    return 0;
}

/* acreV_cos_visit -- see cos.h. */
int
acreV_cos_visit(void *ctx, struct acreV_cos **cos, struct acre_request *rq,
                const acre_entry_view *e)
{
    const acre_schema *s = rq->schema;
    int oc = acreS_known(s)->objectClass;
    unsigned bits = classes(s, e, oc);
    int rc = 0;

    if (!(bits & C_TEMPLATE) && !((bits & C_SUBENTRY) && (bits & C_SUPER)))
        return 0;
    if (!*cos && !(*cos = talloc_zero(ctx, struct acreV_cos)))
        return ACRE_ERR_NOMEM;
    if ((bits & C_SUBENTRY) && (bits & C_SUPER))
        rc = add_def(*cos, *cos, s, e, bits);
    if (!rc && (bits & C_TEMPLATE))
        rc = add_tmpl(*cos, *cos, s, e, oc);
    return rc;
}

/* ------------------------------------------------------------------------
 * Ordering
 */

static int
name_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = strncasecmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

/* cos_cache_attr_compare: by name, then the priorities' difference as an
 * int; never 0 */
static int
pair_cmp(const struct cos_pair *x, const struct cos_pair *y)
{
    int c = name_cmp(x->name, x->len, y->name, y->len);

    if (!c)
        c = (int)(uint32_t)(x->priority - y->priority);
    return c ? c : -1;
}

/* glibc's merge sort (msort), whose order the plugin's qsort gets */
static void
msort(struct cos_pair *b, size_t n, struct cos_pair *tmp)
{
    if (n <= 1)
        return;
    size_t n1 = n / 2, n2 = n - n1;
    struct cos_pair *b1 = b, *b2 = b + n1, *t = tmp;

    msort(b1, n1, tmp);
    msort(b2, n2, tmp);
    while (n1 > 0 && n2 > 0) {
        if (pair_cmp(b1, b2) <= 0) {
            *t++ = *b1++;
            n1--;
        } else {
            *t++ = *b2++;
            n2--;
        }
    }
    if (n1 > 0)
        memcpy(t, b1, n1 * sizeof(*t));
    memcpy(b, tmp, (n - n2) * sizeof(*b));
}

static int
in_attrs(const struct cos_def *d, const struct cos_tattr *a, unsigned *q)
{
    for (uint32_t k = 0; k < d->nattr; k++)
        if (d->attr[k].type >= 0 && d->attr[k].type == a->type) {
            *q = d->attr[k].q;
            return 1;
        }
    return 0;
}

/* Is template t one the definition's search at tdn finds? */
static int
tmpl_at(const struct cos_def *d, const struct cos_tmpl *t, const acre_dn *tdn)
{
    return acre_dn_in_scope(t->dn, tdn,
                            d->kind == K_CLASSIC ? ACRE_SCOPE_ONE
                                                 : ACRE_SCOPE_BASE) == 1;
}

static int
add_pair(struct acreV_cos *c, size_t *cap, struct cos_pair p)
{
    if (c->np == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        if (!(c->p = talloc_realloc(c, c->p, struct cos_pair, *cap)))
            return ACRE_ERR_NOMEM;
    }
    c->p[c->np++] = p;
    return 0;
}

/* The pairs of definition di, newest template first, each template's
 * attributes last first, as the plugin lists them (a classic or pointer
 * definition that found no template gives none: 389 drops it); 0 or
 * ACRE_ERR_NOMEM. */
static int
def_pairs(struct acreV_cos *c, uint32_t di, size_t *cap)
{
    const struct cos_def *d = &c->d[di];

    if (d->kind == K_INDIRECT) {
        /* one placeholder template with every attribute, in the order
         * of the values */
        for (uint32_t k = d->nattr; k-- > 0;)
            if (d->attr[k].type >= 0 &&
                add_pair(c, cap,
                         (struct cos_pair){d->attr[k].type, d->attr[k].name,
                                           d->attr[k].len, di, NULL, 0,
                                           UINT64_MAX, "", 0, d->attr[k].q, 0}))
                return ACRE_ERR_NOMEM;
        return 0;
    }
    /* the templates in the order the plugin's pushes leave them: its
     * list of template DNs (last value first) searched in turn, each
     * template found pushed to the front */
    for (uint32_t k = d->ntdn; k-- > 0;) {
        for (uint32_t ti = c->nt; ti-- > 0;) {
            const struct cos_tmpl *t = &c->t[ti];
            unsigned q;
            int any = 0;
            if (!tmpl_at(d, t, d->tdn[k]))
                continue;
            for (uint32_t a = 0; a < t->na && !any; a++)
                any = in_attrs(d, &t->a[a], &q);
            if (!any)
                continue;
            int dflt = 0;
            if (d->nspec && t->grade_len == d->spec[0].len + 8 &&
                !strncasecmp(t->grade, d->spec[0].name, d->spec[0].len) &&
                !strcasecmp(t->grade + d->spec[0].len, "-default"))
                dflt = 1;
            for (uint32_t a = t->na; a-- > 0;) {
                const struct cos_tattr *ta = &t->a[a];
                if (in_attrs(d, ta, &q) &&
                    add_pair(c, cap,
                             (struct cos_pair){ta->type, ta->name, ta->len, di,
                                               ta->vals, ta->nvals, t->priority,
                                               t->grade, t->grade_len, q,
                                               dflt}))
                    return ACRE_ERR_NOMEM;
            }
        }
    }
    return 0;
}

/* acreV_cos_finish -- see cos.h. */
int
acreV_cos_finish(struct acreV_cos *c, struct acre_request *rq)
{
    size_t cap = 0;
    unsigned ntypes = acreS_nattrs(rq->schema);

    if (!c)
        return 0;
    /* the definitions newest first, as the plugin's list */
    for (uint32_t di = c->nd; di-- > 0;) {
        if (def_pairs(c, di, &cap))
            return ACRE_ERR_NOMEM;
    }
    if (c->np) {
        struct cos_pair *tmp = talloc_array(c, struct cos_pair, c->np);
        if (!tmp)
            return ACRE_ERR_NOMEM;
        msort(c->p, c->np, tmp);
        talloc_free(tmp);
    }
    c->nwords = (ntypes + 63) / 64;
    c->known = talloc_zero_array(c, uint64_t, c->nwords + 1);
    c->types = talloc_array(c, int, c->np + 1);
    c->names = talloc_array(c, const char *, c->np + 1);
    if (!c->known || !c->types || !c->names)
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < c->np; i++) {
        int t = c->p[i].type;
        if (t < 0 || (unsigned)t >= ntypes)
            continue;
        if (!(c->known[t / 64] & (UINT64_C(1) << (t % 64)))) {
            c->names[c->ntypes] = c->p[i].name;
            c->types[c->ntypes++] = t;
        }
        c->known[t / 64] |= UINT64_C(1) << (t % 64);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Queries
 */

/* 389's virtual attribute service nests its lookups at most this deep
 * (vattr.c, VATTR_LOOP_COUNT_MAX): a deeper one finds nothing */
#define COS_DEPTH 50

/* Lookups one query may make before the check fails (ACRE_ERR_EVAL_LIMIT):
 * specifiers and pointers that are CoS attributes themselves branch */
#define COS_STEPS 4096

/* A query's values: copies in rq->cos_mem, which lives until the request's
 * next query from outside (acreV_cos_values). */
struct out {
    acre_value *v;
    uint32_t n, cap;
};

struct qy {
    struct acre_request *rq;
    const struct acreV_cos *c;
    unsigned steps;
};

static int
knows(const struct acreV_cos *c, int t)
{
    return c && t >= 0 && (unsigned)t / 64 < c->nwords &&
           (c->known[t / 64] & (UINT64_C(1) << (t % 64)));
}

/* slapi_utf8casecmp's equality: case ignored (ASCII at once, else
 * libunistring's folding) */
static int
same_ci(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int r = 1;
    size_t i;

    for (i = 0; i < an && i < bn && a[i] < 0x80 && b[i] < 0x80; i++)
        if ((a[i] | (a[i] >= 'A' && a[i] <= 'Z' ? 32 : 0)) !=
            (b[i] | (b[i] >= 'A' && b[i] <= 'Z' ? 32 : 0)))
            return 0;
    if (i == an || i == bn)
        return an == bn;
    if (u8_casecmp(a, an, b, bn, NULL, NULL, &r) < 0)
        return 0;
    return r == 0;
}

/* Append copies of v[0..n) to o, those already there (case ignored) left
 * out when adding. */
static int
out_add(struct qy *q, struct out *o, const acre_value *v, uint32_t n,
        int adding)
{
    void *mem = q->rq->cos_mem;

    for (uint32_t i = 0; i < n; i++) {
        int dup = 0;
        for (uint32_t k = 0; adding && k < o->n && !dup; k++)
            dup = same_ci(o->v[k].val, o->v[k].len, v[i].val, v[i].len);
        if (dup)
            continue;
        if (o->n == o->cap) {
            uint32_t cap = o->cap ? 2 * o->cap : 8;
            acre_value *a = talloc_realloc(mem, o->v, acre_value, cap);
            if (!a)
                return ACRE_ERR_NOMEM;
            o->v = a;
            o->cap = cap;
        }
        void *b = talloc_memdup(mem, v[i].len ? v[i].val : (const void *)"",
                                v[i].len + 1);
        if (!b)
            return ACRE_ERR_NOMEM;
        o->v[o->n++] = (acre_value){.val = b, .len = v[i].len};
    }
    return 0;
}

/* Does entry e's object classes allow type t (389's cos schema check:
 * the classes whose required or allowed types, inherited ones included,
 * name t)? */
static int
schema_allows(const acre_schema *s, const acre_entry_view *e, int t)
{
    const acre_view_attr *a = acreE_entry_attr(e, acreS_known(s)->objectClass);

    for (uint32_t j = 0; a && j < a->nvals; j++) {
        int oc =
            acreS_class_find(s, (const char *)a->vals[j].val, a->vals[j].len);
        const struct acreS_class *c = oc >= 0 ? acreS_class(s, oc) : NULL;
        if (c &&
            ((c->all_must &&
              (c->all_must[t / 64] & (UINT64_C(1) << (t % 64)))) ||
             (c->all_may && (c->all_may[t / 64] & (UINT64_C(1) << (t % 64))))))
            return 1;
    }
    return 0;
}

static int query(struct qy *q, const acre_entry_view *e, int t, unsigned depth,
                 struct out *o, int *op);

/*
 * The values of type t of e as 389's virtual attribute service gives
 * them at nesting depth `depth`: what CoS gives, else the roles e holds
 * for nsRole, else the stored values; none past COS_DEPTH.  Copies, in
 * *o.
 */
static int
vattr_values(struct qy *q, const acre_entry_view *e, int t, unsigned depth,
             struct out *o)
{
    struct acre_request *rq = q->rq;
    int op, rc;

    o->n = 0;
    if (t < 0 || depth > COS_DEPTH)
        return 0;
    if (++q->steps > COS_STEPS)
        return ACRE_ERR_EVAL_LIMIT;
    if (knows(q->c, t) && (rc = query(q, e, t, depth, o, &op)))
        return rc < 0 ? rc : 0;
    if (t == acreS_known(rq->schema)->nsRole) {
        const acre_value *v;
        uint32_t n;
        /* a filtered role's nsRoleFilter sees CoS: one level deeper */
        unsigned was = rq->cos_depth;
        rq->cos_depth = depth;
        rc = acreV_nsrole_values(rq, e, &v, &n);
        rq->cos_depth = was;
        return rc ? rc : out_add(q, o, v, n, 0);
    }
    const acre_view_attr *a = acreE_entry_attr(e, t);
    return a ? out_add(q, o, a->vals, a->nvals, 0) : 0;
}

/* An indirect definition's pointer: the values of type t (virtual ones
 * included) of the entry DN text v names; 1 when it has some. */
static int
follow(struct qy *q, const acre_value *v, int t, unsigned depth, struct out *o,
       int adding)
{
    struct acre_request *rq = q->rq;
    acre_dn *dn = NULL;
    const acre_entry_view *pe = NULL;
    struct out got = {0};
    int rc = acre_dn_parse(rq->cos_mem, rq->schema, (const char *)v->val,
                           v->len, 0, &dn, NULL);

    if (rc)
        return rc == ACRE_ERR_NOMEM ? rc : 0;
    if (acreV_host_get(rq, dn, &pe) != 1 || !pe)
        return 0; /* none (a failed lookup has failed the check) */
    rc = vattr_values(q, pe, t, depth + 1, &got);
    acreV_host_release(rq, pe);
    if (rc < 0)
        return rc;
    if (!got.n)
        return 0;
    rc = out_add(q, o, got.v, got.n, adding);
    return rc ? rc : 1;
}

/* Is e (its normalised DN text dn[0..n)) in target tree tr? */
static int
in_tree(const char *dn, size_t n, const struct cos_tree *tr)
{
    if (tr->len > n)
        return 0;
    if (!same_ci((const uint8_t *)dn + n - tr->len, tr->len,
                 (const uint8_t *)tr->text, tr->len))
        return 0;
    return !tr->len || tr->len == n || dn[n - tr->len - 1] == ',' ||
           dn[n - tr->len - 1] == ';';
}

/* One pair whose definition takes e into a target tree: 1 hit (values
 * added), 0 not, or an error.  *merging is set by a merge-schemes hit. */
static int
pair_hit(struct qy *q, const struct cos_pair *p, const acre_entry_view *e,
         unsigned depth, struct out *o, int *merging)
{
    const struct cos_def *d = &q->c->d[p->def];
    int hit = 0, rc;

    if (d->kind == K_POINTER) {
        if ((rc = out_add(q, o, p->vals, p->nvals, *merging || o->n)))
            return rc;
        if (p->q & Q_MERGE)
            *merging = 1;
        return 1;
    }
    for (uint32_t s = 0; s < d->nspec && !hit; s++) {
        struct out sv = {0};
        if ((rc = vattr_values(q, e, d->spec[s].type, depth + 1, &sv)))
            return rc;
        if (!sv.n)
            continue;
        if (d->kind == K_INDIRECT) {
            for (uint32_t k = 0; k < sv.n; k++) {
                rc = follow(q, &sv.v[k], p->type, depth, o, *merging || o->n);
                if (rc < 0)
                    return rc;
                if (rc)
                    hit = 1;
                if (!(p->q & Q_MERGE))
                    break;
            }
            if (p->q & Q_MERGE)
                *merging = 1;
            continue;
        }
        for (uint32_t k = 0; k < sv.n && !hit; k++) {
            if (!same_ci((const uint8_t *)p->grade, p->grade_len, sv.v[k].val,
                         sv.v[k].len))
                continue;
            if ((rc = out_add(q, o, p->vals, p->nvals, *merging || o->n)))
                return rc;
            hit = 1;
            if (p->q & Q_MERGE)
                *merging = 1;
        }
    }
    return hit;
}

/* cos_cache_query_attr for type t of e: 1 (values in *o), 0, or an
 * error. */
static int
query(struct qy *q, const acre_entry_view *e, int t, unsigned depth,
      struct out *o, int *op)
{
    const struct acreV_cos *c = q->c;
    uint32_t i = 0, matched;
    const struct cos_pair *dflt = NULL;
    int hit = 0, merging = 0, rc;
    char *dn = NULL;
    size_t dn_len = 0;

    o->n = 0;
    while (i < c->np && c->p[i].type != t)
        i++;
    if (i == c->np)
        return 0;
    int stored = acreE_entry_attr(e, t) != NULL;
    if (!(c->p[i].q & (Q_OPERATIONAL | Q_OPDEFAULT)) &&
        !schema_allows(q->rq->schema, e, t))
        return 0;
    size_t pn;
    const char *pretty = acre_dn_pretty(e->dn, &pn);
    if ((rc = text_389(q->rq->cos_mem, pretty, pn, &dn, &dn_len)))
        return rc;
    matched = i;
    for (; i < c->np && c->p[i].type == t && (!hit || merging); i++) {
        const struct cos_pair *p = &c->p[i];
        const struct cos_def *d = &c->d[p->def];
        if (stored && !(p->q & (Q_OVERRIDE | Q_OPERATIONAL)))
            continue;
        if (merging && !(p->q & Q_MERGE))
            continue;
        for (uint32_t k = 0; k < d->ntree && (!hit || merging); k++) {
            if (!in_tree(dn, dn_len, &d->tree[k]))
                continue;
            if ((rc = pair_hit(q, p, e, depth, o, &merging)) < 0)
                return rc;
            if (rc) {
                hit = 1;
                matched = i; /* the last pair that hit */
            } else if (p->is_default && !dflt) {
                dflt = p;
            }
        }
    }
    if (!hit && dflt) {
        if ((rc = out_add(q, o, dflt->vals, dflt->nvals, 0)))
            return rc;
        *op = !!(dflt->q & (Q_OPERATIONAL | Q_OPDEFAULT));
        return 1;
    }
    if (!hit)
        return 0;
    *op = !!(c->p[matched].q & (Q_OPERATIONAL | Q_OPDEFAULT));
    return 1;
}

/* acreV_cos_values -- see cos.h. */
int
acreV_cos_values(struct acre_request *rq, const acre_entry_view *e, int type,
                 const acre_value **vals, uint32_t *n, int *op)
{
    struct qy q = {rq, NULL, 0};
    struct out o = {0};
    int rc = 0, o_op = 0;

    *vals = NULL;
    *n = 0;
    if (op)
        *op = 0;
    if (!(rq->flags & ACRE_REQ_COS))
        return 0;
    if (rq->cos_busy) {
        /* asked from inside a query (a role filter while CoS reads
         * nsRole): one lookup deeper, in the running query's memory */
        struct qy *outer = rq->cos_q;
        unsigned depth = rq->cos_depth + 1;
        if (!outer || depth > COS_DEPTH || !knows(outer->c, type))
            return 0;
        rc = query(outer, e, type, depth, &o, &o_op);
        if (rc < 0) {
            /* the filter asking sees only Undefined: fail the check here,
             * or the role it decides would be taken as not held */
            acreV_fail(rq, rc == ACRE_ERR_NOMEM || rc == ACRE_ERR_EVAL_LIMIT
                               ? rc
                               : ACRE_ERR_LOOKUP);
            return rc;
        }
    } else {
        if (!(q.c = acreV_cos_of(rq, &rc)))
            return rc;
        if (!knows(q.c, type))
            return 0;
        if (rq->cos_mem)
            talloc_free_children(rq->cos_mem);
        else if (!(rq->cos_mem = talloc_new(rq)))
            rc = ACRE_ERR_NOMEM;
        rq->cos_busy = 1;
        rq->cos_q = &q;
        rq->cos_depth = 1;
        if (!rc)
            rc = query(&q, e, type, 1, &o, &o_op);
        rq->cos_busy = 0;
        rq->cos_q = NULL;
        if (rc < 0) {
            acreV_fail(rq, rc == ACRE_ERR_NOMEM || rc == ACRE_ERR_EVAL_LIMIT
                               ? rc
                               : ACRE_ERR_LOOKUP);
            return rc;
        }
    }
    if (rc) {
        *vals = o.v;
        *n = o.n;
        if (op)
            *op = o_op;
    }
    return rc;
}

/* acreV_cos_hook -- see cos.h. */
int
acreV_cos_hook(void *arg, const acre_entry_view *e, int type,
               const acre_value **vals, uint32_t *n)
{
    return acreV_cos_values(arg, e, type, vals, n, NULL);
}

/* acreV_cos_types -- see cos.h. */
int
acreV_cos_types(struct acre_request *rq, const int **types,
                const char *const **names, uint32_t *n)
{
    const struct acreV_cos *c;
    int rc = 0;

    *types = NULL;
    *names = NULL;
    *n = 0;
    if (!(rq->flags & ACRE_REQ_COS))
        return 0;
    if (!(c = acreV_cos_of(rq, &rc)))
        return rc;
    *types = c->types;
    *names = c->names;
    *n = c->ntypes;
    return 0;
}

/* acre_entry_cos -- see acre.h. */
ACRE_PUBLIC int
acre_entry_cos(acre_request *rq, const acre_entry_view *e, const char *name,
               const acre_value **vals, uint32_t *n, int *operational)
{
    int rc, op = 0;

    if (vals)
        *vals = NULL;
    if (n)
        *n = 0;
    if (operational)
        *operational = 0;
    if ((rc = acreE_handle(rq, ACREE_REQUEST_MAGIC)))
        return rc;
    if (!vals || !n || !name || !acreE_view_check(rq->schema, e))
        return ACRE_ERR_INVAL;
    int t = acreS_attr_find(rq->schema, name, strlen(name));
    if (t < 0)
        return 0;
    rq->err = 0;
    rc = acreV_cos_values(rq, e, t, vals, n, &op);
    if (rc > 0 && operational)
        *operational = op;
    return rc < 0 ? rc : rc > 0;
}

/* acre_entry_cos_names -- see acre.h. */
ACRE_PUBLIC int
acre_entry_cos_names(acre_request *rq, const char *const **names, uint32_t *n)
{
    const int *types;
    const char *const *spelt;
    uint32_t k;
    int rc;

    if (names)
        *names = NULL;
    if (n)
        *n = 0;
    if ((rc = acreE_handle(rq, ACREE_REQUEST_MAGIC)))
        return rc;
    if (!names || !n)
        return ACRE_ERR_INVAL;
    rq->err = 0;
    if ((rc = acreV_cos_types(rq, &types, &spelt, &k)) || !k)
        return rc;
    /* copies: the index may be replaced before the request ends */
    talloc_free(rq->cos_names);
    if (!(rq->cos_names = talloc_array(rq, const char *, k)))
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < k; i++)
        if (!(rq->cos_names[i] = talloc_strdup(rq->cos_names, spelt[i])))
            return ACRE_ERR_NOMEM;
    *names = rq->cos_names;
    *n = k;
    return 0;
}

/* acreV_cos_active -- see cos.h. */
int
acreV_cos_active(struct acre_request *rq)
{
    const struct acreV_cos *c;
    int rc = 0;

    if (!(rq->flags & ACRE_REQ_COS))
        return 0;
    c = acreV_cos_of(rq, &rc);
    return rc || (c && c->ntypes);
}
