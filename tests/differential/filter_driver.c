/*
 * filter_driver.c -- the acre side of the differential filter suite, and
 * its generator.
 *
 *   filter_driver gen SEED N OUTDIR
 *       writes OUTDIR/data.ldif (a DIT of 100-300 entries) and
 *       OUTDIR/searches (2N lines "scope TAB base TAB filter": each of N
 *       filters from the suffix with scope sub, then from a random base)
 *       and OUTDIR/groups (how many searches each filter has).
 *   filter_driver compare OUTDIR
 *       loads OUTDIR/data.ldif into acre's in-memory directory, runs every
 *       search of OUTDIR/searches through acre's filter evaluator, compares
 *       with what slapd answered (OUTDIR/slapd.out, written by slapd.sh)
 *       and prints a reproducer for every filter on which they differ, then
 *       "differential-filter: P passed, F failed".  Exit 1 when F > 0.
 *   filter_driver eval LDIF SCOPE BASE FILTER
 *       acre's answer to one search: "rc N" then the normalised DNs.
 *
 *   filter_driver normalise SLAPD_OUT
 *       slapd's answers (a slapd.sh output file) normalised the same way.
 *
 * Both sides' DNs are normalised by acre_dn_parse / acre_dn_normalised and
 * sorted before they are compared, and result codes are compared too
 * (0 success, 32 noSuchObject, 34 invalidDNSyntax; acre's filter parse
 * errors are reported as code -1, which matches nothing slapd returns).
 * The acre side is filter_acre.c, the reproducers filter_report.c.
 */
#include "dt_dit.h"
#include "dt_results.h"
#include "dt_util.h"
#include "filter_acre.h"
#include "filter_gen.h"
#include "filter_report.h"

#include "acre.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

static const char *suite = "differential-filter";

/* ---- gen ----------------------------------------------------------------- */

static int
cmd_gen(uint64_t seed, unsigned n, const char *outdir)
{
    struct dt_dit d = {0};
    struct fg_search *s;
    unsigned ns;
    struct dt_str text;

    dt_dit_generate(&d, seed, 0);
    dt_str_init(&text);
    dt_dit_ldif(&d, &text);
    dt_write_file(outdir, "data.ldif", text.p, text.len);
    fg_generate(&d, seed, n, &s, &ns);
    dt_str_clear(&text);
    for (unsigned i = 0; i < ns; i++)
        dt_str_printf(&text, "%s\t%s\t%s\n", s[i].scope, s[i].base,
                      s[i].filter);
    dt_write_file(outdir, "searches", text.p, text.len);
    dt_str_clear(&text);
    for (unsigned i = 0; i < n; i++)
        dt_str_puts(&text, "2\n");
    dt_write_file(outdir, "groups", text.p, text.len);
    printf("%s: seed %llu: %u entries, %u filters, %u searches\n", suite,
           (unsigned long long)seed, d.n, n, ns);
    fg_free(s, ns);
    dt_str_free(&text);
    dt_dit_free(&d);
    return 0;
}

/* ---- compare ------------------------------------------------------------- */

static struct fg_search *
read_searches(const char *path, unsigned *n)
{
    char *text = dt_read_file(path, NULL), *save = NULL;
    struct fg_search *v = NULL;
    unsigned nv = 0;

    for (char *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t2)
            dt_die("%s: bad line: %s", path, line);
        v = dt_realloc(v, (nv + 1) * sizeof *v);
        *t1 = *t2 = 0;
        v[nv].scope = dt_strdup(line);
        v[nv].base = dt_strdup(t1 + 1);
        v[nv++].filter = dt_strdup(t2 + 1);
    }
    free(text);
    *n = nv;
    return v;
}

static void
free_searches(struct fg_search *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        free((char *)s[i].scope);
    fg_free(s, n);
}

struct tally {
    unsigned passed, failed, searches, nonempty, nosuch, acre_errors;
};

/* Compare search i; returns 1 when both sides agree. */
static int
compare_one(struct fr_run *run, unsigned filter_no, unsigned i,
            const struct fg_search *s, struct dt_result *sl, struct tally *t)
{
    struct dt_result ac;
    struct dt_str why;
    int ok;

    dt_str_init(&why);
    fa_search(run->dir, s->scope, s->base, s->filter, &ac, &why);
    fa_normalise(sl);
    t->searches++;
    t->nonempty += sl->ndns > 0;
    t->nosuch += sl->rc == 32;
    t->acre_errors += ac.rc == FA_RC_FILTER_ERROR;
    ok = fa_same(sl, &ac);
    if (!ok)
        fr_report(run, filter_no, i + 1, s, sl, &ac, why.p);
    dt_result_free(&ac);
    dt_str_free(&why);
    return ok;
}

/* The number of searches of each filter, from OUTDIR/groups (one number
 * a line, written by gen); without that file, one search per filter. */
static unsigned *
read_groups(const char *outdir, unsigned ns, unsigned *ng)
{
    char path[4096];
    unsigned *g = dt_alloc((ns + 1) * sizeof *g), n = 0, sum = 0;
    FILE *f;

    snprintf(path, sizeof path, "%s/groups", outdir);
    if (!(f = fopen(path, "r"))) {
        for (n = 0; n < ns; n++)
            g[n] = 1;
        *ng = ns;
        return g;
    }
    while (n < ns && fscanf(f, "%u", &g[n]) == 1 && g[n] > 0)
        sum += g[n++];
    fclose(f);
    if (sum != ns)
        dt_die("%s: %u searches in groups, %u in searches", path, sum, ns);
    *ng = n;
    return g;
}

static void
compare_all(struct fr_run *run, struct fg_search *s, struct dt_result *sl,
            const unsigned *groups, unsigned ng, struct tally *t)
{
    unsigned i = 0;

    for (unsigned k = 0; k < ng; k++) {
        unsigned bad = 0;
        for (unsigned j = 0; j < groups[k]; j++, i++)
            bad += !compare_one(run, k + 1, i, &s[i], &sl[i], t);
        if (bad)
            t->failed++;
        else
            t->passed++;
    }
}

static int
cmd_compare(const char *outdir)
{
    char path[4096];
    struct fr_run run;
    struct tally t = {0};
    struct fg_search *s;
    struct dt_result *sl;
    unsigned ns, nsl, nfilters, *groups;
    void *ctx = talloc_new(NULL);
    const struct acreE_dir *dir;

    snprintf(path, sizeof path, "%s/searches", outdir);
    s = read_searches(path, &ns);
    groups = read_groups(outdir, ns, &nfilters);
    snprintf(path, sizeof path, "%s/slapd.out", outdir);
    sl = dt_results_read(path, &nsl);
    if (nsl != ns)
        dt_die("%s: %u results for %u searches", path, nsl, ns);
    snprintf(path, sizeof path, "%s/data.ldif", outdir);
    if (!(dir = fa_load_dir(ctx, path, suite))) {
        printf("%s: 0 passed, %u failed\n", suite, nfilters);
        return 1;
    }
    fr_open(&run, outdir, suite, dir);
    compare_all(&run, s, sl, groups, nfilters, &t);
    fr_close(&run);
    printf("%s: %u searches: %u with entries (slapd), %u noSuchObject, "
           "%u acre filter errors\n",
           suite, t.searches, t.nonempty, t.nosuch, t.acre_errors);
    printf("%s: %u passed, %u failed\n", suite, t.passed, t.failed);
    dt_results_free(sl, nsl);
    free_searches(s, ns);
    free(groups);
    talloc_free(ctx);
    return t.failed ? 1 : 0;
}

/* ---- eval and normalise (for repro.sh) ----------------------------------- */

static int
cmd_eval(const char *ldif, const char *scope, const char *base,
         const char *filter)
{
    void *ctx = talloc_new(NULL);
    const struct acreE_dir *dir = fa_load_dir(ctx, ldif, suite);
    struct dt_result r;
    struct dt_str why;

    if (!dir)
        return 2;
    dt_str_init(&why);
    fa_search(dir, scope, base, filter, &r, &why);
    if (why.len)
        printf("# %s\n", why.p);
    printf("rc %d\n", r.rc);
    for (unsigned i = 0; i < r.ndns; i++)
        printf("%s\n", r.dns[i]);
    dt_result_free(&r);
    dt_str_free(&why);
    talloc_free(ctx);
    return 0;
}

static int
cmd_normalise(const char *path)
{
    struct dt_result *v;
    unsigned n;

    v = dt_results_read(path, &n);
    for (unsigned i = 0; i < n; i++) {
        fa_normalise(&v[i]);
        printf("rc %d\n", v[i].rc);
        for (unsigned j = 0; j < v[i].ndns; j++)
            printf("%s\n", v[i].dns[j]);
    }
    dt_results_free(v, n);
    return 0;
}

static int
usage(void)
{
    fprintf(stderr, "usage: filter_driver gen SEED N OUTDIR\n"
                    "       filter_driver compare OUTDIR\n"
                    "       filter_driver eval LDIF SCOPE BASE FILTER\n"
                    "       filter_driver normalise SLAPD_OUT\n");
    return 2;
}

int
main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 5 && !strcmp(argv[1], "gen"))
        return cmd_gen(strtoull(argv[2], NULL, 10),
                       (unsigned)strtoul(argv[3], NULL, 10), argv[4]);
    if (argc == 3 && !strcmp(argv[1], "compare"))
        return cmd_compare(argv[2]);
    if (argc == 6 && !strcmp(argv[1], "eval"))
        return cmd_eval(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 3 && !strcmp(argv[1], "normalise"))
        return cmd_normalise(argv[2]);
    return usage();
}
