/*
 * harness.c -- the generic part of acre-bench (see harness.h).
 *
 * Invariants: every time is read from CLOCK_MONOTONIC; every reported
 * number is a median over repetitions; absolute times never decide the
 * exit status: failed checks do, and with --floors (the CI gate, make
 * bench-check) ratios below margin * floor of bench/floors.json, after
 * the failing rows were measured again up to GATE_RETRIES times (a row
 * measured more than once keeps its best ratio).  Rows are kept in the
 * order they were made and printed both as a table (stdout) and, with
 * --json, as a JSON array of {"name","unit","value","baseline",
 * "baseline_value","ratio"} where ratio is baseline_value / value (bigger
 * is better for acre).
 */
#include "harness.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FULL_REPS      11 /* repetitions of a full run (at least 7) */
#define SMOKE_REPS     1  /* repetitions of a --smoke run */
#define MAX_FAIL_PRINT 25 /* failed checks printed in full */
#define MIN_REPS       3  /* --reps: a median needs three */
#define GATE_RETRIES   2  /* --floors: measures again of failing rows */
#define MAX_REPS       BENCH_MAX_REPS

typedef struct bench_result {
    char *name;
    char *unit;
    double value;
    char *baseline;
    double baseline_value;
} bench_result;

struct bench_run {
    int smoke;
    unsigned reps;
    const char *json_path;
    const char *floors_path;
    char **patterns;
    size_t npatterns;
    size_t owned; /* the last `owned` patterns are the run's copies */
    const bench_def *current;
    bench_result *rows;
    size_t nrows, cap;
    unsigned long failures;
};

volatile uint64_t bench_sink;

static void
die_nomem(void)
{
    fputs("acre-bench: out of memory\n", stderr);
    exit(2);
}

static char *
dup_str(const char *s)
{
    char *d = strdup(s ? s : "");

    if (d == NULL)
        die_nomem();
    return d;
}

int
bench_smoke(const bench_run *run)
{
    return run->smoke;
}

unsigned
bench_reps(const bench_run *run)
{
    return run->reps;
}

size_t
bench_size(const bench_run *run, size_t full, size_t smoke)
{
    return run->smoke ? smoke : full;
}

static int
matches(const bench_run *run, const char *name)
{
    for (size_t i = 0; i < run->npatterns; i++) {
        const char *pat = run->patterns[i];
        if (pat[0] == '=' ? strcmp(name, pat + 1) == 0
                          : strstr(name, pat) != NULL)
            return 1;
    }
    return 0;
}

int
bench_want(const bench_run *run, const char *group)
{
    if (run->npatterns == 0)
        return 1;
    if (run->current != NULL && matches(run, run->current->name))
        return 1;
    return matches(run, group);
}

static int
def_wanted(bench_run *run, const bench_def *def)
{
    run->current = def;
    if (bench_want(run, def->name))
        return 1;
    for (const char *const *g = def->groups; g && *g; g++)
        if (bench_want(run, *g))
            return 1;
    return 0;
}

double
bench_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

double
bench_median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    if (n % 2)
        return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
time_pass(const bench_impl *impl, size_t items)
{
    double t0 = bench_now_ns();
    uint64_t r = impl->pass(impl->arg);
    double t1 = bench_now_ns();

    bench_sink += r;
    return (t1 - t0) / (double)(items ? items : 1);
}

void
bench_measure(bench_run *run, const bench_impl *impl, size_t n, size_t items,
              double *median_ns)
{
    unsigned reps = run->reps;
    double *t = calloc(n * reps + 1, sizeof *t);

    if (t == NULL)
        die_nomem();
    for (size_t k = 0; k < n; k++)
        bench_sink += impl[k].pass(impl[k].arg);
    for (unsigned r = 0; r < reps; r++)
        for (size_t j = 0; j < n; j++) {
            size_t k = (r + j) % n;
            t[k * reps + r] = time_pass(&impl[k], items);
        }
    for (size_t k = 0; k < n; k++)
        median_ns[k] = bench_median(t + k * reps, reps);
    free(t);
}

void
bench_row(bench_run *run, const char *name, const char *unit, double value,
          const char *baseline, double baseline_value)
{
    bench_result *r;

    if (run->nrows == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 16;
        bench_result *rows = realloc(run->rows, cap * sizeof *rows);

        if (rows == NULL)
            die_nomem();
        run->rows = rows;
        run->cap = cap;
    }
    r = &run->rows[run->nrows++];
    r->name = dup_str(name);
    r->unit = dup_str(unit);
    r->value = value;
    r->baseline = dup_str(baseline);
    r->baseline_value = baseline_value;
}

void
bench_fail(bench_run *run, const char *fmt, ...)
{
    va_list ap;

    if (++run->failures > MAX_FAIL_PRINT)
        return;
    fputs("acre-bench: FAIL: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void
bench_note(bench_run *run, const char *fmt, ...)
{
    va_list ap;

    fputs("# ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/* ---- output -------------------------------------------------------------- */

static double
ratio(const bench_result *r)
{
    return r->value > 0 ? r->baseline_value / r->value : NAN;
}

static void
print_table(const bench_run *run)
{
    printf("%-28s %-6s %10s  %-20s %10s %8s\n", "name", "unit", "acre",
           "baseline", "baseline", "ratio");
    for (size_t i = 0; i < run->nrows; i++) {
        const bench_result *r = &run->rows[i];

        printf("%-28s %-6s %10.1f  %-20s %10.1f %7.2fx\n", r->name, r->unit,
               r->value, r->baseline, r->baseline_value, ratio(r));
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void
json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* A JSON number; NaN and infinities have no JSON form and become null. */
static void
json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.3f", v);
    else
        fputs("null", f);
}

static void
json_row(FILE *f, const bench_result *r)
{
    fputs("  {\"name\": ", f);
    json_string(f, r->name);
    fputs(", \"unit\": ", f);
    json_string(f, r->unit);
    fputs(", \"value\": ", f);
    json_number(f, r->value);
    fputs(", \"baseline\": ", f);
    json_string(f, r->baseline);
    fputs(", \"baseline_value\": ", f);
    json_number(f, r->baseline_value);
    fputs(", \"ratio\": ", f);
    json_number(f, ratio(r));
    fputc('}', f);
}

/* Write the rows to PATH.tmp, then rename it over PATH. */
static int
write_json(const bench_run *run, const char *path)
{
    char tmp[4096];
    FILE *f;
    int ok;

    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "acre-bench: %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < run->nrows; i++) {
        json_row(f, &run->rows[i]);
        fputs(i + 1 < run->nrows ? ",\n" : "\n", f);
    }
    fputs("]\n", f);
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok && rename(tmp, path) == 0;
    if (!ok) {
        fprintf(stderr, "acre-bench: %s: %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* ---- the ratio gate (--floors) ------------------------------------------ */

/*
 * bench/floors.json: {"margin": M, "rows": [{"name": ROW, "floor": F,
 * "goal": G, ...}, ...]}.  A row fails when its ratio (baseline / acre,
 * in this run) is below M * F, or when the run did not produce it.  The
 * reader below knows only this shape: strings without escapes, numbers,
 * and the keys it looks for in that order within each row.
 */
typedef struct floor_row {
    char name[96];
    double floor, goal;
} floor_row;

/* The number after "key": at or after p (before `end` when not NULL). */
static int
json_key_number(const char *p, const char *end, const char *key, double *out,
                const char **after)
{
    char pat[64];
    const char *k;
    char *e;

    snprintf(pat, sizeof pat, "\"%s\"", key);
    if (!(k = strstr(p, pat)) || (end && k > end))
        return -1;
    k += strlen(pat);
    while (*k == ' ' || *k == ':' || *k == '\t' || *k == '\n')
        k++;
    *out = strtod(k, &e);
    if (e == k)
        return -1;
    if (after)
        *after = e;
    return 0;
}

/* Read the rows of PATH; NULL (and a message) when it is not readable. */
static floor_row *
read_floors(const char *path, double *margin, size_t *n)
{
    FILE *f = fopen(path, "r");
    static char text[1 << 16];
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    floor_row *rows = NULL;
    const char *p = text, *q, *next;

    if (f)
        fclose(f);
    text[len] = 0;
    *n = 0;
    if (!f || len == sizeof text - 1 ||
        json_key_number(text, NULL, "margin", margin, NULL) != 0 ||
        !(*margin > 0 && *margin <= 1))
        goto bad;
    while ((p = strstr(p, "\"name\"")) != NULL) {
        floor_row *r;

        if (!(rows = realloc(rows, (*n + 1) * sizeof *rows)))
            die_nomem();
        r = &rows[(*n)++];
        if (!(p = strchr(p + 6, '"')) || !(q = strchr(p + 1, '"')) ||
            (size_t)(q - p - 1) >= sizeof r->name)
            goto bad;
        memcpy(r->name, p + 1, (size_t)(q - p - 1));
        r->name[q - p - 1] = 0;
        next = strstr(q, "\"name\"");
        if (json_key_number(q, next, "floor", &r->floor, NULL) != 0 ||
            !(r->floor > 0))
            goto bad;
        if (json_key_number(q, next, "goal", &r->goal, NULL) != 0)
            r->goal = NAN;
        p = q;
    }
    if (*n > 0)
        return rows;
bad:
    fprintf(stderr, "acre-bench: %s: not a floors file (bench/floors.json)\n",
            path);
    free(rows);
    return NULL;
}

/* The row `name` with the best ratio (a retried row appears again). */
static const bench_result *
find_row(const bench_run *run, const char *name)
{
    const bench_result *best = NULL;

    for (size_t i = 0; i < run->nrows; i++)
        if (strcmp(run->rows[i].name, name) == 0 &&
            (!best || ratio(&run->rows[i]) > ratio(best)))
            best = &run->rows[i];
    return best;
}

/* 1 when row r of the floors is missing or below its limit. */
static int
below_floor(const bench_run *run, const floor_row *r, double margin)
{
    const bench_result *x = find_row(run, r->name);
    double v = x ? ratio(x) : NAN;

    return !(isfinite(v) && v >= margin * r->floor);
}

/* 1 when row r of the floors was measured and is below its limit (what
 * is measured again: a row not made, e.g. not selected, stays missing). */
static int
measured_below(const bench_run *run, const floor_row *r, double margin)
{
    return find_row(run, r->name) != NULL && below_floor(run, r, margin);
}

/* Select the row groups (names up to '/') of the floors rows[0..n) for
 * which bad() holds (NULL: all of them) as the run's patterns, in place
 * of the ones it had; the number selected. */
static size_t
select_floors(bench_run *run, const floor_row *rows, size_t n, double margin,
              int (*bad)(const bench_run *, const floor_row *, double))
{
    char **p = calloc(n + 1, sizeof *p);
    size_t k = 0;

    if (p == NULL)
        die_nomem();
    for (size_t i = 0; i < n; i++) {
        char *slash;

        if (bad && !bad(run, &rows[i], margin))
            continue;
        p[k] = dup_str(rows[i].name);
        if ((slash = strchr(p[k], '/')) != NULL)
            *slash = 0;
        k++;
    }
    for (size_t i = run->npatterns - run->owned; i < run->npatterns; i++)
        free(run->patterns[i]);
    free(run->patterns);
    run->patterns = p;
    run->npatterns = run->owned = k;
    return k;
}

/* Print the gate's table; the number of rows that fail it. */
static unsigned
check_floors(const bench_run *run, const floor_row *rows, size_t n,
             double margin)
{
    unsigned bad = 0;

    printf("\nratio gate (fails below %.0f%% of the floor; bench/floors.json)"
           "\n%-32s %9s %9s %9s %9s  %s\n",
           margin * 100, "row", "ratio", "floor", "limit", "goal", "");
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = find_row(run, rows[i].name);
        double x = r ? ratio(r) : NAN, limit = margin * rows[i].floor;
        int ok = !below_floor(run, &rows[i], margin);

        bad += !ok;
        char goal[16] = "-";

        if (isfinite(rows[i].goal))
            snprintf(goal, sizeof goal, "%.2f", rows[i].goal);
        printf("%-32s %9.2f %9.2f %9.2f %9s  %s\n", rows[i].name, x,
               rows[i].floor, limit, goal,
               !r    ? "FAIL (no such row)"
               : !ok ? "FAIL"
               : isfinite(rows[i].goal) && x >= rows[i].goal ? "ok (goal met)"
                                                             : "ok");
    }
    return bad;
}

/* ---- command line -------------------------------------------------------- */

static void
usage(FILE *f)
{
    fputs("usage: acre-bench [--smoke] [--reps N] [--json PATH] "
          "[--floors PATH] [NAME-SUBSTRING | =NAME...]\n",
          f);
}

/* --reps N: a count from MIN_REPS to MAX_REPS, odd; 0 when not. */
static unsigned
parse_reps(const char *s)
{
    char *end;
    unsigned long n = strtoul(s, &end, 10);

    if (*s == 0 || *end != 0 || n < MIN_REPS || n > MAX_REPS || n % 2 == 0)
        return 0;
    return (unsigned)n;
}

static int
parse_args(bench_run *run, int argc, char **argv)
{
    unsigned reps = 0;

    run->patterns = calloc((size_t)argc + 1, sizeof *run->patterns);
    if (run->patterns == NULL)
        die_nomem();
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            run->smoke = 1;
        else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
            run->json_path = argv[++i];
        else if (strcmp(argv[i], "--floors") == 0 && i + 1 < argc)
            run->floors_path = argv[++i];
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if ((reps = parse_reps(argv[++i])) == 0)
                return -1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
        else if (argv[i][0] == '-')
            return -1;
        else
            run->patterns[run->npatterns++] = argv[i];
    }
    run->reps = reps ? reps : run->smoke ? SMOKE_REPS : FULL_REPS;
    return 0;
}

static size_t
run_all(bench_run *run, const bench_def *const *defs, size_t n)
{
    size_t ran = 0;

    for (size_t i = 0; i < n; i++) {
        if (!def_wanted(run, defs[i]))
            continue;
        double t0 = bench_now_ns();

        ran++;
        fprintf(stderr, "acre-bench: running %s%s\n", defs[i]->name,
                run->smoke ? " (smoke)" : "");
        if (defs[i]->run(run) != 0)
            bench_fail(run, "%s: could not set up", defs[i]->name);
        fprintf(stderr, "acre-bench: %s took %.1f s\n", defs[i]->name,
                (bench_now_ns() - t0) / 1e9);
    }
    run->current = NULL;
    return ran;
}

static void
free_run(bench_run *run)
{
    for (size_t i = 0; i < run->nrows; i++) {
        free(run->rows[i].name);
        free(run->rows[i].unit);
        free(run->rows[i].baseline);
    }
    free(run->rows);
    for (size_t i = run->npatterns - run->owned; i < run->npatterns; i++)
        free(run->patterns[i]);
    free(run->patterns);
}

int
bench_main(int argc, char **argv, const bench_def *const *defs, size_t n)
{
    bench_run run = {0};
    int status = 0, rc = parse_args(&run, argc, argv);
    floor_row *floors = NULL;
    size_t nfloors = 0;
    double margin = 1;
    unsigned below;

    if (rc != 0) {
        usage(rc > 0 ? stdout : stderr);
        free_run(&run);
        return rc > 0 ? 0 : 2;
    }
    if (run.floors_path != NULL) {
        if (!(floors = read_floors(run.floors_path, &margin, &nfloors))) {
            free_run(&run);
            return 2;
        }
        if (run.npatterns == 0) /* run what the floors name */
            select_floors(&run, floors, nfloors, margin, NULL);
    }
    if (run_all(&run, defs, n) == 0) {
        fputs("acre-bench: no benchmark matches\n", stderr);
        status = 2;
    }
    /* a neighbour's burst of load can sink one run's median, a
     * regression sinks every one: rows below the gate are measured again */
    for (unsigned a = 0;
         floors && status == 0 && run.failures == 0 && a < GATE_RETRIES &&
         select_floors(&run, floors, nfloors, margin, measured_below) > 0;
         a++) {
        fprintf(stderr,
                "acre-bench: %zu row group(s) below the gate, "
                "measured again (%u of %u)\n",
                run.npatterns, a + 1, GATE_RETRIES);
        run_all(&run, defs, n);
    }
    if (run.nrows > 0)
        print_table(&run);
    if (run.json_path != NULL && write_json(&run, run.json_path) != 0)
        status = 2;
    if (floors != NULL &&
        (below = check_floors(&run, floors, nfloors, margin)) > 0) {
        fprintf(stderr, "acre-bench: %u ratio(s) below the gate\n", below);
        if (status == 0)
            status = 1;
    }
    if (run.failures > 0) {
        fprintf(stderr, "acre-bench: %lu check(s) failed\n", run.failures);
        if (status == 0)
            status = 1;
    }
    free(floors);
    free_run(&run);
    return status;
}
