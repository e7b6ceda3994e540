/*
 * filter_report.c -- printing mismatches as self-contained reproducers,
 * and narrowing them down to filter items (see filter_report.h).
 */
#include "filter_report.h"

#include "dt_util.h"
#include "filter_acre.h"

#include "acre.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INVOLVED 3

/* ---- setup --------------------------------------------------------------- */

void
fr_open(struct fr_run *run, const char *outdir, const char *suite,
        const struct acreE_dir *dir)
{
    char path[4096];
    char *text;
    FILE *f;

    memset(run, 0, sizeof *run);
    run->outdir = outdir;
    run->suite = suite;
    run->dir = dir;
    snprintf(path, sizeof path, "%s/data.ldif", outdir);
    text = dt_read_file(path, NULL);
    run->recs = dt_ldif_records(text, &run->nrecs);
    free(text);
    run->norm = dt_alloc((run->nrecs + 1) * sizeof *run->norm);
    for (unsigned i = 0; i < run->nrecs; i++)
        run->norm[i] = fa_norm_dn(run->recs[i].dn);
    snprintf(path, sizeof path, "%s/leaves.out", outdir);
    if ((f = fopen(path, "r")) != NULL) {
        fclose(f);
        run->leaf_slapd = dt_results_read(path, &run->nleaf_slapd);
        for (unsigned i = 0; i < run->nleaf_slapd; i++)
            fa_normalise(&run->leaf_slapd[i]);
    }
}

void
fr_close(struct fr_run *run)
{
    struct dt_str text;

    dt_str_init(&text);
    for (unsigned i = 0; i < run->nleaves; i++)
        dt_str_printf(&text, "%s\t%s\t%s\n", run->leaves[i].scope,
                      run->leaves[i].base, run->leaves[i].filter);
    dt_write_file(run->outdir, "leaves", text.p, text.len);
    dt_str_free(&text);
    for (unsigned i = 0; i < run->nrecs; i++)
        free(run->norm[i]);
    free(run->norm);
    dt_records_free(run->recs, run->nrecs);
    fg_free(run->leaves, run->nleaves);
    dt_results_free(run->leaf_slapd, run->nleaf_slapd);
}

/* ---- entries and their ancestors ----------------------------------------- */

static int
record_of(const struct fr_run *run, const char *norm)
{
    for (unsigned i = 0; i < run->nrecs; i++)
        if (run->norm[i] && !strcmp(run->norm[i], norm))
            return (int)i;
    return -1;
}

/* Mark the record named norm and the records of its ancestors. */
static void
mark_with_ancestors(const struct fr_run *run, const char *norm, char *mark)
{
    acre_dn *dn;
    int at = record_of(run, norm);

    if (at >= 0)
        mark[at] = 1;
    if (acre_dn_parse(NULL, fa_schema(), norm, strlen(norm), 0, &dn, NULL))
        return;
    for (unsigned i = acre_dn_depth(dn); i-- > 1;) {
        int a = record_of(run, acre_dn_ancestor(dn, i, NULL));
        if (a >= 0)
            mark[a] = 1;
    }
    acre_dn_free(dn);
}

/* Up to MAX_INVOLVED entries that explain a difference: those in one list
 * only, else (a result-code difference) the first of either list. */
static unsigned
involved(const struct dt_result *s, const struct dt_result *a, const char **out)
{
    unsigned n = 0;

    for (unsigned i = 0; i < s->ndns && n < MAX_INVOLVED; i++)
        if (!fa_contains(a, s->dns[i]))
            out[n++] = s->dns[i];
    for (unsigned i = 0; i < a->ndns && n < MAX_INVOLVED; i++)
        if (!fa_contains(s, a->dns[i]))
            out[n++] = a->dns[i];
    for (unsigned i = 0; i < s->ndns && n < MAX_INVOLVED; i++)
        out[n++] = s->dns[i];
    for (unsigned i = 0; i < a->ndns && n < MAX_INVOLVED; i++)
        out[n++] = a->dns[i];
    return n;
}

/* ---- printing ------------------------------------------------------------ */

/* A DN list in full when short, else its length and first lines. */
static void
print_list(const char *who, const struct dt_result *r)
{
    unsigned max = r->ndns <= 15 ? r->ndns : 5;

    printf("  %s: rc %d, %u entries\n", who, r->rc, r->ndns);
    for (unsigned i = 0; i < max; i++)
        printf("    %s\n", r->dns[i]);
    if (r->ndns > max)
        printf("    ... (%u more)\n", r->ndns - max);
}

/* The DNs of a that b lacks (at most `max` lines). */
static void
print_only(const char *label, const struct dt_result *a,
           const struct dt_result *b, unsigned max)
{
    unsigned n = 0;

    for (unsigned i = 0; i < a->ndns; i++)
        if (!fa_contains(b, a->dns[i]) && n++ < max)
            printf("%s%s\n", label, a->dns[i]);
    if (n > max)
        printf("%s... (%u in all)\n", label, n);
}

static void
put_quoted(struct dt_str *out, const char *s)
{
    dt_str_putc(out, '\'');
    for (; *s; s++)
        if (*s == '\'')
            dt_str_puts(out, "'\\''");
        else
            dt_str_putc(out, *s);
    dt_str_putc(out, '\'');
}

static void
print_rerun(const struct fr_run *run, const char *ldif, const char *scope,
            const char *base, const char *filter)
{
    struct dt_str cmd;

    dt_str_init(&cmd);
    dt_str_printf(&cmd, "tests/differential/repro.sh %s/%s %s ", run->outdir,
                  ldif, scope);
    put_quoted(&cmd, base);
    dt_str_putc(&cmd, ' ');
    put_quoted(&cmd, filter);
    printf("  rerun: %s\n", cmd.p);
    dt_str_free(&cmd);
}

/* ---- items (leaves) of a filter ------------------------------------------ */

typedef void leaf_fn(void *ctx, const char *leaf, size_t n);

/* Call fn for each item of the filter at p; returns the end of it.
 * Values never hold a raw ')' (they are escaped), so an item ends at the
 * first ')'. */
static const char *
each_leaf(const char *p, leaf_fn *fn, void *ctx)
{
    if (*p != '(')
        return p;
    if (p[1] == '&' || p[1] == '|' || p[1] == '!') {
        p += 2;
        while (*p == '(')
            p = each_leaf(p, fn, ctx);
        return *p == ')' ? p + 1 : p;
    }
    const char *q = strchr(p, ')');
    if (!q)
        return p + strlen(p);
    fn(ctx, p, (size_t)(q + 1 - p));
    return q + 1;
}

struct leaf_ctx {
    struct fr_run *run;
    const struct fg_search *s;
    unsigned *idx; /* indices into run->leaves of this filter's items */
    unsigned n;
};

static unsigned
leaf_index(struct fr_run *run, const struct fg_search *s, const char *leaf,
           size_t n)
{
    for (unsigned i = 0; i < run->nleaves; i++) {
        const struct fg_search *l = &run->leaves[i];
        if (strlen(l->filter) == n && !memcmp(l->filter, leaf, n) &&
            !strcmp(l->scope, s->scope) && !strcmp(l->base, s->base))
            return i;
    }
    run->leaves =
        dt_realloc(run->leaves, (run->nleaves + 1) * sizeof *run->leaves);
    run->leaves[run->nleaves].scope = s->scope;
    run->leaves[run->nleaves].base = dt_strdup(s->base);
    run->leaves[run->nleaves].filter = dt_strndup(leaf, n);
    return run->nleaves++;
}

/* Each item is tried alone and negated: (!item) tells an item that is
 * FALSE on one side from one that is Undefined on the other. */
static void
collect_leaf(void *ctx, const char *leaf, size_t n)
{
    struct leaf_ctx *c = ctx;
    struct dt_str neg;

    dt_str_init(&neg);
    dt_str_puts(&neg, "(!");
    dt_str_putn(&neg, leaf, n);
    dt_str_putc(&neg, ')');
    c->idx = dt_realloc(c->idx, (c->n + 2) * sizeof *c->idx);
    c->idx[c->n++] = leaf_index(c->run, c->s, leaf, n);
    c->idx[c->n++] = leaf_index(c->run, c->s, neg.p, neg.len);
    dt_str_free(&neg);
}

/* Print the items that differ by themselves; returns how many, and puts
 * into inv the entries of the first one (its index into *first, its acre
 * result, which inv points into, into keep).  -1 when slapd's answers for
 * the items are not there (first pass). */
static int
print_leaves(struct fr_run *run, const struct leaf_ctx *c, const char **inv,
             unsigned *ninv, struct dt_result *keep, int *first)
{
    int ndiff = 0;

    for (unsigned i = 0; i < c->n; i++) {
        const struct fg_search *l = &run->leaves[c->idx[i]];
        struct dt_result ac;
        struct dt_str why;
        if (c->idx[i] >= run->nleaf_slapd)
            return -1;
        const struct dt_result *sl = &run->leaf_slapd[c->idx[i]];
        dt_str_init(&why);
        fa_search(run->dir, l->scope, l->base, l->filter, &ac, &why);
        if (!fa_same(sl, &ac)) {
            printf("  item %s: slapd rc %d, %u entries; acre rc %d, %u "
                   "entries%s%s\n",
                   l->filter, sl->rc, sl->ndns, ac.rc, ac.ndns,
                   why.len ? "; acre: " : "", why.p);
            print_only("    only slapd: ", sl, &ac, 3);
            print_only("    only acre:  ", &ac, sl, 3);
            if (!ndiff++) {
                *first = (int)c->idx[i];
                *keep = ac;
                *ninv = involved(sl, keep, inv);
                ac.dns = NULL, ac.ndns = 0;
            }
        }
        dt_result_free(&ac);
        dt_str_free(&why);
    }
    return ndiff;
}

/* ---- the report ---------------------------------------------------------- */

/* Write the marked records to OUTDIR/mismatch-K.ldif; print the LDIF of
 * the involved ones. */
static void
write_repro(struct fr_run *run, const char **inv, unsigned ninv,
            const char *base, char *name, size_t name_size)
{
    char *mark = dt_alloc(run->nrecs + 1);
    char *bnorm = fa_norm_dn(base);
    struct dt_str text;

    for (unsigned i = 0; i < ninv; i++)
        mark_with_ancestors(run, inv[i], mark);
    if (bnorm)
        mark_with_ancestors(run, bnorm, mark);
    dt_str_init(&text);
    for (unsigned i = 0; i < run->nrecs; i++)
        if (mark[i])
            dt_str_printf(&text, "%s\n", run->recs[i].text);
    snprintf(name, name_size, "mismatch-%u.ldif", run->nmismatch);
    dt_write_file(run->outdir, name, text.p, text.len);
    printf("  entries involved:\n");
    for (unsigned i = 0; i < ninv; i++) {
        int at = record_of(run, inv[i]), seen = 0;
        for (unsigned j = 0; j < i; j++)
            seen |= !strcmp(inv[j], inv[i]);
        if (at >= 0 && !seen)
            printf("%s\n", run->recs[at].text);
    }
    dt_str_free(&text);
    free(bnorm);
    free(mark);
}

void
fr_report(struct fr_run *run, unsigned filter_no, unsigned search_no,
          const struct fg_search *s, const struct dt_result *sl,
          const struct dt_result *ac, const char *why)
{
    const char *inv[2 * MAX_INVOLVED];
    unsigned ninv = involved(sl, ac, inv), nleaf = 0;
    struct leaf_ctx c = {run, s, NULL, 0};
    struct dt_result keep = {0};
    char name[64];

    run->nmismatch++;
    printf("---- mismatch %u: filter %u, search %u\n", run->nmismatch,
           filter_no, search_no);
    printf("  filter: %s\n  base:   %s\n  scope:  %s\n", s->filter, s->base,
           s->scope);
    if (sl->rc == FA_RC_LDAPSEARCH_FILTER)
        printf("  HARNESS: ldapsearch rejected this filter (generator bug)\n");
    if (why && *why)
        printf("  acre: %s\n", why);
    print_list("slapd", sl);
    print_list("acre", ac);
    print_only("  only slapd: ", sl, ac, 20);
    print_only("  only acre:  ", ac, sl, 20);
    each_leaf(s->filter, collect_leaf, &c);
    int first = -1;
    int nd = print_leaves(run, &c, inv + ninv, &nleaf, &keep, &first);
    if (nd == 0)
        printf("  every item and its negation agree by themselves: the "
               "difference is in how &, |, ! combine them\n");
    write_repro(run, inv, ninv + nleaf, s->base, name, sizeof name);
    print_rerun(run, name, s->scope, s->base, s->filter);
    if (first >= 0 && strcmp(run->leaves[first].filter, s->filter))
        print_rerun(run, name, s->scope, s->base, run->leaves[first].filter);
    dt_result_free(&keep);
    free(c.idx);
}
