/*
 * openldap_index.c -- back-mdb's "index" directive (olcDbIndex): which
 * attributes a database indexes, and for what.  Recorded in the
 * database's section (engine/ir.h: struct acreI_index) because a
 * search's size.unchecked limit bounds the candidates those indexes give
 * (engine/filter_cand.c); nothing here looks at an entry.
 *
 * What back-mdb 2.5 does (mdb_attr_index_config) and this reproduces:
 *   - "index ATTRS [TYPES]": ATTRS and TYPES are comma-separated lists
 *     (empty items skipped: "," names no attribute, which is no error,
 *     and no type, which is); a type is one of pres, eq, approx, sub,
 *     subinitial, subany, subfinal, notags, nosubtypes, or the old
 *     spellings substr (= sub) and nolang (= notags), any case;
 *   - without TYPES an attribute gets the "default" mask as it stands
 *     then; "default" in ATTRS adds TYPES to that mask;
 *   - no type selected, an unknown type or attribute, entryDN or a
 *     ;binary description, and a description indexed twice are errors;
 *     so are approx, eq and sub on a type whose rule for them has no
 *     indexer in slapd (approx: a type without APPROX whose equality rule
 *     has no approximate one; eq: no EQUALITY rule, or one of the rules
 *     slapd matches but cannot index; sub: no SUBSTR rule).
 */
#include "openldap_int.h"

#include "internal.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* The equality rules slapd 2.5 has without an indexer (schema_init.c). */
static const char *const no_indexer[] = {
    "presentationAddressMatch",
    "protocolInformationMatch",
    "certificateMatch",
    "certificateListMatch",
    "attributeCertificateMatch",
    "authPasswordMatch",
    "authzMatch",
    "privateKeyMatch",
};

/* The index type of mask that type `id` cannot have, or NULL. */
static const char *
disallowed(const acre_schema *s, int id, unsigned mask)
{
    const char *eq = acreS_attr_rule(s, id, 1);
    int indexable = !!eq;

    for (size_t i = 0; eq && i < sizeof no_indexer / sizeof *no_indexer; i++)
        indexable &= !!strcasecmp(eq, no_indexer[i]);
    /* slapd's approximate rules come with these equality rules only */
    if (ACREI_IDX_HAS(mask, ACREI_IDX_APPROX) &&
        !(eq && (!strcasecmp(eq, "caseIgnoreMatch") ||
                 !strcasecmp(eq, "caseExactMatch") ||
                 !strcasecmp(eq, "caseIgnoreIA5Match") ||
                 !strcasecmp(eq, "caseExactIA5Match"))))
        return "approx";
    if (ACREI_IDX_HAS(mask, ACREI_IDX_EQUALITY) && !indexable)
        return "equality";
    if (ACREI_IDX_HAS(mask, ACREI_IDX_SUBSTR) && !acreS_attr_rule(s, id, 3))
        return "substr";
    return NULL;
}

/* A type word into *mask (slap_str2index); -1 when slapd knows none. */
static int
index_type(const char *w, size_t n, unsigned *mask)
{
    static const struct {
        const char *w;
        unsigned mask;
    } words[] = {
        {"pres", ACREI_IDX_PRESENT},
        {"eq", ACREI_IDX_EQUALITY},
        {"approx", ACREI_IDX_APPROX},
        {"subinitial", ACREI_IDX_SUB_INIT},
        {"subany", ACREI_IDX_SUB_ANY},
        {"subfinal", ACREI_IDX_SUB_FINAL},
        {"sub", ACREI_IDX_SUB_INIT | ACREI_IDX_SUB_ANY | ACREI_IDX_SUB_FINAL},
        {"substr",
         ACREI_IDX_SUB_INIT | ACREI_IDX_SUB_ANY | ACREI_IDX_SUB_FINAL},
        {"notags", ACREI_IDX_NOTAGS},
        {"nolang", ACREI_IDX_NOTAGS},
        {"nosubtypes", ACREI_IDX_NOSUBTYPES},
    };

    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strlen(words[i].w) == n && !strncasecmp(w, words[i].w, n)) {
            *mask |= words[i].mask;
            return 0;
        }
    return -1;
}

/* The next comma-separated item of *s (skipping empty ones): its start
 * and length, *s moved past it; NULL at the end. */
static const char *
next_item(const char **s, size_t *n)
{
    while (**s == ',')
        (*s)++;
    if (!**s)
        return NULL;
    const char *start = *s;
    *n = strcspn(start, ",");
    *s += *n;
    return start;
}

static int
by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* d's options lower-cased, sorted and joined by ';' ("" for none), the
 * form a filter's description has (filter_cand.c compares the two). */
static char *
joined_options(void *ctx, const struct acreS_desc *d)
{
    char *opt[ACRES_MAX_OPTIONS], *out;

    for (unsigned i = 0; i < d->nopts; i++) {
        if (!(opt[i] = talloc_strndup(ctx, d->opts[i], d->opt_len[i])))
            return NULL;
        for (char *c = opt[i]; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
    }
    qsort(opt, d->nopts, sizeof *opt, by_text);
    out = talloc_strdup(ctx, "");
    for (unsigned i = 0; out && i < d->nopts; i++)
        out = talloc_asprintf_append(out, "%s%s", i ? ";" : "", opt[i]);
    return out;
}

/* acreO_index_directive -- see openldap_int.h. */
int
acreO_index_directive(struct acreO_build *b, struct acreI_section *db,
                      const struct acreO_ptext *toks, unsigned n,
                      const char *file, acre_diag *diag)
{
    const char *s, *w;
    unsigned mask = 0;
    size_t wn;

    if (n < 2 || n > 3)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[0],
                           toks[0].len,
                           "index: attributes and at most one "
                           "list of index types are taken");
    if (n == 3) {
        for (s = toks[2].s; (w = next_item(&s, &wn));)
            if (index_type(w, wn, &mask))
                return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[2],
                                   (size_t)(w - toks[2].s),
                                   "index type \"%.*s\" undefined", (int)wn, w);
    } else {
        mask = db->idx_default;
    }
    if (!mask)
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[n - 1], 0,
                           "no indexes selected");
    for (s = toks[1].s; (w = next_item(&s, &wn));) {
        size_t at = (size_t)(w - toks[1].s);
        struct acreS_desc d;
        if (wn == 7 && !strncasecmp(w, "default", 7)) {
            db->idx_default |= mask;
            continue;
        }
        if (acreS_desc_parse(b->schema, w, wn, &d) || d.type < 0 ||
            !acreS_slapd_desc_ok(b->schema, acreS_attr(b->schema, d.type), &d))
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1], at,
                               "index attribute \"%.*s\" undefined", (int)wn,
                               w);
        int binary = 0;
        for (unsigned i = 0; i < d.nopts; i++)
            binary |= d.opt_len[i] == 6 && !strncasecmp(d.opts[i], "binary", 6);
        if (binary || d.type == acreS_attr_find(b->schema, "entryDN", 7))
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1], at,
                               "index of attribute \"%.*s\" disallowed",
                               (int)wn, w);
        const char *no = disallowed(b->schema, d.type, mask);
        if (no)
            return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1], at,
                               "%s index of attribute \"%.*s\" disallowed", no,
                               (int)wn, w);
        char *opts = joined_options(b->cfg, &d);
        if (!opts)
            return ACRE_ERR_NOMEM;
        for (unsigned i = 0; i < db->nidx; i++)
            if (db->idx[i].type == d.type && !strcmp(db->idx[i].opts, opts))
                return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &toks[1],
                                   at,
                                   "duplicate index definition for attr "
                                   "\"%.*s\"",
                                   (int)wn, w);
        struct acreI_index *v =
            talloc_realloc(b->cfg, db->idx, struct acreI_index, db->nidx + 1);
        if (!v)
            return ACRE_ERR_NOMEM;
        db->idx = v;
        v[db->nidx++] = (struct acreI_index){d.type, opts, mask};
    }
    return 0;
}
