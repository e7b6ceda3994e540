/*
 * aci_build.c -- the ACI dialect's index (engine/aci_index.h) from its IR
 * (engine/ir_aci.h): holders hashed by their own ancestry hash, their
 * perms in one array, targetattr lists as bitmaps over attribute types,
 * and which bind rules read the entry they decide.
 *
 * Compile time only; everything is allocated under the policy and never
 * changes afterwards.  Fails only when memory runs out (nothing of the
 * index is then attached).
 */
#include "aci_index.h"
#include "dn.h"
#include "filter.h"
#include "policy.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* bind_any -- does leaf(k) hold for a keyword test k of bind rule b? */
static int
bind_any(const struct acreI_bind *b, int (*leaf)(const struct acreI_bind *))
{
    if (!b)
        return 0;
    if (b->kw == ACREI_ACI_AND || b->kw == ACREI_ACI_OR ||
        b->kw == ACREI_ACI_NOT)
        return bind_any(b->a, leaf) || bind_any(b->b, leaf);
    return leaf(b);
}

/* a macro subject term */
static int
has_macro_term(const struct acreI_bind *k)
{
    for (unsigned i = 0; i < k->nterms; i++)
        if (k->terms[i].pat.flags)
            return 1;
    return 0;
}

/* entry_dep_leaf (for bind_any) -- does the test read the entry it
 * decides (or the entry's ancestors)? */
static int
entry_dep_leaf(const struct acreI_bind *k)
{
    switch (k->kw) {
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return 1;
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        for (unsigned i = 0; i < k->nterms; i++)
            if (k->terms[i].kind == ACREI_ACI_S_SELF ||
                k->terms[i].kind == ACREI_ACI_S_PARENT)
                return 1;
        return has_macro_term(k);
    default:
        return 0;
    }
}

/* invalid_leaf (for bind_any) -- can the test answer Invalid (eval_aci.c:
 * I), 389's LAS_EVAL_INVALID, or an error libaccess takes as it?  An
 * ordering on ip, dns or dayofweek, an ip value 389 never reads, a
 * timeofday range it refuses, a typed userattr (#USERDN, #GROUPDN, ...)
 * whose kind's LAS fails (eval_aci.c: userattr_op). */
static int
invalid_leaf(const struct acreI_bind *k)
{
    int order = k->op != ACREI_ACI_EQ && k->op != ACREI_ACI_NE;

    if (order && acreI_aci_order_answer(k->kw) == ACREI_ORDER_INVALID)
        return 1;
    switch (k->kw) {
    case ACREI_ACI_USERATTR:
        return k->uakind != ACREI_ACI_UA_VALUE;
    case ACREI_ACI_IP:
        return k->ipmode == ACREI_IP_NEVER;
    case ACREI_ACI_TIMEOFDAY:
        return k->tod == ACREI_TOD_INVALID ||
               (k->tod == ACREI_TOD_RANGE && order);
    default:
        return 0;
    }
}

/* per_entry_leaf (for bind_any) -- 389's ACI_ATTR_RULES: does the test make 389
 * evaluate the ACI again for every entry? */
static int
per_entry_leaf(const struct acreI_bind *k)
{
    switch (k->kw) {
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return 1;
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        if (k->kw == ACREI_ACI_USERDN && k->nterms &&
            k->terms[0].kind == ACREI_ACI_S_SELF)
            return 1;
        return has_macro_term(k);
    default:
        return 0;
    }
}

/* level_of -- 389's aci_elevel as aclparse.c leaves it after bind rule b
 * (its keywords in text order; *lv starts at ACREP_ACI_LEVELS - 1):
 * userattr and userdnattr set 3, a userdn whose first URL is anyone sets
 * 0; all lowers it to 1, any other userdn URL but self to 2, groupdnattr
 * to 4 in its URL form,
 * to 5, groupdn to 6; other keywords leave it. */
static void
level_of(const struct acreI_bind *b, unsigned *lv)
{
    unsigned to = ACREP_ACI_LEVELS;

    if (!b)
        return;
    switch (b->kw) {
    case ACREI_ACI_AND:
    case ACREI_ACI_OR:
    case ACREI_ACI_NOT:
        level_of(b->a, lv);
        level_of(b->b, lv);
        return;
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
        *lv = 3;
        return;
    case ACREI_ACI_USERDN:
        if (!b->nterms || b->terms[0].kind == ACREI_ACI_S_SELF)
            return;
        if (b->terms[0].kind == ACREI_ACI_S_ANYONE) {
            *lv = 0;
            return;
        }
        to = b->terms[0].kind == ACREI_ACI_S_ALL ? 1 : 2;
        break;
    case ACREI_ACI_GROUPDNATTR: /* its URL form: 4 */
        to = b->uakind == ACREI_ACI_UA_GROUPURL ? 4 : 5;
        break;
    case ACREI_ACI_GROUPDN:
        to = 6;
        break;
    default:
        return;
    }
    if (*lv > to)
        *lv = to;
}

/* aci_level -- 389's aci_elevel of a: level_of over its ACL texts in
 * text order, the earlier ones (xperms) first, then the last (perms) */
static unsigned
aci_level(const struct acreI_aci *a)
{
    unsigned level = ACREP_ACI_LEVELS - 1;

    for (unsigned k = 0; k < a->nxperms; k++)
        level_of(a->xperms[k].bind, &level);
    for (unsigned k = 0; k < a->nperms; k++)
        level_of(a->perms[k].bind, &level);
    return level;
}

/* attr_bits -- the targetattr list of t as a bitmap over type ids (NULL
 * without targetattr, or when memory runs out: *nomem set). */
static const uint64_t *
attr_bits(void *ctx, const acre_schema *s, unsigned words,
          const struct acreI_aci_target *t, int *nomem)
{
    unsigned ntypes = acreS_nattrs(s);
    uint64_t *bits;

    if (!(t->has & (ACREI_ACI_T_ATTR | ACREI_ACI_T_ATTRFLT)))
        return NULL;
    if (!(bits = talloc_zero_array(ctx, uint64_t, words ? words : 1))) {
        *nomem = 1;
        return NULL;
    }
    if (t->attr_star) {
        for (unsigned id = 0; id < ntypes; id++)
            bits[id / 64] |= 1ull << (id % 64);
        return bits;
    }
    for (unsigned i = 0; i < t->nattrs; i++)
        if (t->attrs[i] >= 0 && (unsigned)t->attrs[i] < ntypes)
            bits[t->attrs[i] / 64] |= 1ull << (t->attrs[i] % 64);
    return bits;
}

static int
cmp_holder(const void *a, const void *b)
{
    const struct acreI_aci *x = *(const struct acreI_aci *const *)a;
    const struct acreI_aci *y = *(const struct acreI_aci *const *)b;
    size_t xl, yl;
    const char *xs = acre_dn_normalised(x->holder, &xl);
    const char *ys = acre_dn_normalised(y->holder, &yl);
    int c = memcmp(xs, ys, xl < yl ? xl : yl);

    if (c)
        return c;
    if (xl != yl)
        return xl < yl ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* holders -- group the perms by holder, in a stable order. */
static int
holders(struct acreP_aci *ix, const struct acreI_aci_set *set,
        const acre_schema *s)
{
    const struct acreI_aci **by =
        talloc_array(ix, const struct acreI_aci *, set->n ? set->n : 1);
    int nomem = 0;
    uint32_t np = 0;

    if (!by)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < set->n; i++) {
        by[i] = &set->acis[i];
        np += set->acis[i].nperms;
    }
    qsort(by, set->n, sizeof *by, cmp_holder);
    ix->perms = talloc_zero_array(ix, struct acreP_aci_perm, np ? np : 1);
    ix->holders =
        talloc_zero_array(ix, struct acreP_aci_holder, set->n ? set->n : 1);
    if (!ix->perms || !ix->holders)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < set->n; i++) {
        const struct acreI_aci *a = by[i];
        struct acreP_aci_holder *h = &ix->holders[ix->nholders - 1];
        if (!ix->nholders || !acre_dn_equal(h->dn, a->holder)) {
            h = &ix->holders[ix->nholders++];
            h->dn = a->holder;
            h->depth = acre_dn_depth(a->holder);
            h->hash = acreD_h(a->holder)[h->depth];
            h->first = ix->nperms;
            if (h->depth > ix->max_depth)
                ix->max_depth = h->depth;
        }
        const uint64_t *bits = attr_bits(ix, s, ix->attr_words, &a->t, &nomem);
        int pe = 0, any_deny = 0, any_allow = 0, inval = 0, edep = 0;
        uint32_t all = 0;
        unsigned level = aci_level(a);
        for (unsigned k = 0; k < a->nperms + a->nxperms; k++) {
            const struct acreI_aci_perm *pk =
                k < a->nperms ? &a->perms[k] : &a->xperms[k - a->nperms];
            pe |= bind_any(pk->bind, per_entry_leaf);
            all |= pk->rights;
            any_deny |= pk->deny != 0;
            any_allow |= pk->deny == 0;
            inval |= k < a->nperms && bind_any(pk->bind, invalid_leaf);
            edep |= k < a->nperms && bind_any(pk->bind, entry_dep_leaf);
        }
        /* 389's aci_access: selfwrite is SELF|WRITE (its ACEs still
         * answer only a selfwrite test); OpenDJ's is ACI_SELF alone
         * (EnumRight) */
        if ((all & ACREI_ACI_SELFWRITE) && set->variant != ACREI_ACI_OPENDJ)
            all |= ACREI_ACI_WRITE;
        uint32_t first = ix->nperms;
        for (unsigned k = 0; k < a->nperms; k++) {
            struct acreP_aci_perm *pp = &ix->perms[ix->nperms++];
            pp->aci = a;
            pp->aci_first = first;
            pp->perm = &a->perms[k];
            pp->aci_no = (uint32_t)(a - set->acis);
            pp->rights = a->perms[k].rights;
            pp->aci_rights = all;
            pp->aci_deny = (uint8_t)any_deny;
            pp->aci_allow = (uint8_t)any_allow;
            pp->deny = (uint8_t)(a->perms[k].deny != 0);
            pp->flags =
                (uint8_t)((bind_any(a->perms[k].bind, entry_dep_leaf)
                               ? ACREP_ACI_ENTRYDEP
                               : 0) |
                          /* 389 gives targattrfilters the type of a
                           * targetattr (with no names of its own) */
                          (a->t.has & (ACREI_ACI_T_ATTR | ACREI_ACI_T_ATTRFLT)
                               ? ACREP_ACI_HASATTR
                               : 0) |
                          (pe ? ACREP_ACI_PERENTRY : 0) |
                          (!pe && bind_any(a->perms[k].bind, entry_dep_leaf)
                               ? ACREP_ACI_FIRST
                               : 0) |
                          (inval && any_deny && set->variant != ACREI_ACI_OPENDJ
                               ? ACREP_ACI_ORDERED
                               : 0) |
                          (!pe && edep && any_deny ? ACREP_ACI_STATE : 0));
            pp->level = (uint8_t)level;
            pp->attr_in = bits;
            h->n++;
        }
    }
    talloc_free(by);
    return nomem ? ACRE_ERR_NOMEM : 0;
}

/* hash -- the open-addressing table over the holders' hashes. */
static int
hash(struct acreP_aci *ix)
{
    uint32_t cap = 8;

    while (cap < ix->nholders * 2u)
        cap *= 2;
    if (!(ix->hash = talloc_zero_array(ix, uint32_t, cap)))
        return ACRE_ERR_NOMEM;
    ix->hash_mask = cap - 1;
    for (uint32_t i = 0; i < ix->nholders; i++) {
        uint32_t k = (uint32_t)ix->holders[i].hash & ix->hash_mask;
        while (ix->hash[k])
            k = (k + 1) & ix->hash_mask;
        ix->hash[k] = i + 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The anonymous profile (aci_index.h): which ACIs qualify, as 389's
 * aclanom_gen_anomProfile decides from its parse flags.
 */

struct bflags {
    int not_dn; /* a userdn, groupdn or roledn "!=" */
    int other;  /* a keyword other than a plain userdn (self first in a
                   userdn, macros, groupdn, ip, ...) */
};

static void
bind_flags(const struct acreI_bind *b, struct bflags *f)
{
    if (!b)
        return;
    switch (b->kw) {
    case ACREI_ACI_AND:
    case ACREI_ACI_OR:
    case ACREI_ACI_NOT:
        bind_flags(b->a, f);
        bind_flags(b->b, f);
        return;
    case ACREI_ACI_USERDN:
        if (b->op == ACREI_ACI_NE)
            f->not_dn = 1;
        /* 389 (aclparse.c) looks for self right after the value's first
         * ldap:///, for macros in the whole value */
        if (b->nterms && b->terms[0].kind == ACREI_ACI_S_SELF)
            f->other = 1;
        for (unsigned i = 0; i < b->nterms; i++)
            if (b->terms[i].pat.flags)
                f->other = 1;
        return;
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        if (b->op == ACREI_ACI_NE)
            f->not_dn = 1;
        f->other = 1;
        return;
    default:
        f->other = 1;
        return;
    }
}

/* anon_profile -- ix->anon from the ACIs of the set */
static int
anon_profile(struct acreP_aci *ix, const struct acreI_aci_set *set,
             const acre_schema *schema)
{
    ix->anon_valid = 1;
    for (unsigned i = 0; i < set->n; i++) {
        const struct acreI_aci *a = &set->acis[i];
        struct bflags f = {0, 0};
        uint32_t rights = 0;
        int deny = 0;
        for (unsigned k = 0; k < a->nperms + a->nxperms; k++) {
            const struct acreI_aci_perm *pk =
                k < a->nperms ? &a->perms[k] : &a->xperms[k - a->nperms];
            bind_flags(pk->bind, &f);
            rights |= pk->rights;
            deny |= pk->deny;
        }
        if (deny && f.not_dn)
            goto none;
        /* an "anyone" ACI is one of aci_elevel USERDN_ANYONE: a userdn
         * whose first URL is anyone, with no userattr or userdnattr
         * after it in the text (each sets the level back to 3) */
        if (aci_level(a) != 0 ||
            !(rights & (ACREI_ACI_READ | ACREI_ACI_SEARCH)))
            continue;
        /* a "($dn)" target is no pattern to 389 here: its aci->target
         * stays empty and the holder stands for it */
        int macro = (a->t.has & ACREI_ACI_T_TARGET) &&
                    (a->t.target.flags & ACREI_ACI_MACRO_DN);
        /* a macro targetfilter: 389 reads its text unexpanded
         * (slapi_str2filter of targetFilterStr: "($dn)" and "[$dn]" are
         * a value's text, its parentheses balanced), and the profile
         * tests that filter; a text it cannot read keeps no profile
         * (seen on 389-ds-base 2.3.1 with ($dn) and [$dn] in an OR) */
        struct acreF_filter *raw = NULL;
        if ((a->t.has & ACREI_ACI_T_FILTER) && !a->t.filter) {
            const char *ft = a->t.filter_text ? a->t.filter_text : "";
            int frc =
                acreF_parse_389_text(ix, schema, ft, strlen(ft),
                                     ACREF_389_NAMES | ACREF_389_PARENS, &raw);
            if (frc == ACRE_ERR_NOMEM)
                return frc;
            if (frc)
                goto none;
        }
        if (f.other || deny || a->t.target_neg || a->t.filter_neg ||
            a->t.nattr_pat ||
            ((a->t.has & ACREI_ACI_T_TARGET) && !macro &&
             a->t.target.kind == ACREI_ACI_PAT_PATTERN))
            goto none;
        if (ix->nanon + 1 == ACREP_ACI_ANON_MAX)
            goto none;
        if (!ix->anon && !(ix->anon = talloc_zero_array(
                               ix, struct acreP_aci_anon, ACREP_ACI_ANON_MAX)))
            return ACRE_ERR_NOMEM;
        /* a target 389 stores but no entry is under: NULL, takes none */
        ix->anon[ix->nanon++] = (struct acreP_aci_anon){
            a, i,
            (a->t.has & ACREI_ACI_T_TARGET) && !macro ? a->t.target.dn
                                                      : a->holder,
            rights, raw};
    }
    return 0;
none:
    ix->anon_valid = 0;
    ix->nanon = 0;
    return 0;
}

/* fids -- number the distinct targetfilter texts (ix->fid): open
 * addressing on the text, each slot the first ACI with it + 1 */
static int
fids(struct acreP_aci *ix, const struct acreI_aci_set *set)
{
    uint32_t cap = 16, *slot;

    while (cap < 2 * (uint64_t)set->n)
        cap *= 2;
    if (!(ix->fid = talloc_array(ix, uint32_t, set->n ? set->n : 1)) ||
        !(slot = talloc_zero_array(ix, uint32_t, cap)))
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < set->n; i++) {
        const struct acreI_aci_target *t = &set->acis[i].t;
        uint64_t h = 0xcbf29ce484222325ull;
        uint32_t k;
        ix->fid[i] = UINT32_MAX;
        if (!(t->has & ACREI_ACI_T_FILTER) || !t->filter || !t->filter_text)
            continue;
        for (const char *c = t->filter_text; *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
        for (k = (uint32_t)(h ^ (h >> 32)) & (cap - 1); slot[k];
             k = (k + 1) & (cap - 1))
            if (!strcmp(set->acis[slot[k] - 1].t.filter_text, t->filter_text))
                break;
        if (slot[k]) {
            ix->fid[i] = ix->fid[slot[k] - 1];
        } else {
            slot[k] = i + 1;
            ix->fid[i] = ix->nfids++;
        }
    }
    talloc_free(slot);
    return 0;
}

int
acreP_aci_build(struct acre_policy *p)
{
    const struct acreI_aci_set *set = p->ir->aci;
    struct acreP_aci *ix;
    int rc;

    if (!set)
        return 0;
    if (!(ix = talloc_zero(p, struct acreP_aci)))
        return ACRE_ERR_NOMEM;
    ix->set = set;
    ix->rootdn = set->rootdn;
    ix->attr_words = (acreS_nattrs(p->schema) + 63) / 64;
    if ((rc = holders(ix, set, p->schema)) != 0 || (rc = hash(ix)) != 0 ||
        (rc = fids(ix, set)) != 0 ||
        /* the anonymous profile is 389's (aclanom.c); OpenDJ has none */
        (set->variant == ACREI_ACI_389 &&
         (rc = anon_profile(ix, set, p->schema)) != 0)) {
        talloc_free(ix);
        return rc;
    }
    p->aci = ix;
    return 0;
}
