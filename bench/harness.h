/*
 * harness.h -- the generic part of acre-bench: timing, repetitions and
 * medians, the benchmark registry, result rows, the table and JSON output.
 *
 * A benchmark is a function that prepares its inputs, checks that every
 * implementation it times gives the expected answers (bench_fail() on a
 * mismatch), then times its implementations with bench_measure() and
 * reports one row per comparison with bench_row().  Absolute times are
 * only ever reported, never judged: machines are noisy.  A run fails on a
 * failed correctness check, and with --floors PATH (make bench-check) on a
 * ratio -- acre against its comparison, timed interleaved in the same
 * run -- below the margin of its floor in PATH (bench/floors.json).
 * Adding a benchmark: a new bench/<name>.c with a `const bench_def`,
 * declared and listed in bench/main.c (ORDER BENCH); a new ratio row gets
 * a floor in bench/floors.json.
 *
 * Single-threaded; the harness keeps its state in one bench_run.
 */
#ifndef ACRE_BENCH_HARNESS_H
#define ACRE_BENCH_HARNESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct bench_run bench_run;

/*
 * One implementation to time: pass() runs over the benchmark's whole input
 * once and returns a value derived from its results, which the harness
 * folds into bench_sink so that nothing is optimised away.
 */
typedef struct bench_impl {
    const char *name;
    uint64_t (*pass)(void *arg);
    void *arg;
} bench_impl;

/*
 * A registry entry.  `groups` lists (NULL-terminated) the row groups the
 * benchmark can produce, e.g. "dn_ascii"; the benchmark runs when a
 * command-line pattern is a substring of its name or of one of its groups.
 * run() returns 0, or -1 when it could not set itself up (reported as a
 * failure).
 */
typedef struct bench_def {
    const char *name;
    const char *const *groups;
    int (*run)(bench_run *run);
} bench_def;

/*
 * A small seeded PRNG (splitmix64), so every corpus is the same on every
 * machine and run; rand() is neither portable nor good enough.
 */
typedef struct bench_rng {
    uint64_t state;
} bench_rng;

static inline uint64_t
bench_rng_next(bench_rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A uniform integer in [0, n), n > 0 (Lemire's multiply-shift). */
static inline uint32_t
bench_rng_below(bench_rng *r, uint32_t n)
{
    return (uint32_t)(((bench_rng_next(r) >> 32) * n) >> 32);
}

/* 1 with probability percent/100. */
static inline int
bench_rng_chance(bench_rng *r, unsigned percent)
{
    return bench_rng_below(r, 100) < percent;
}

/* Sink for results that must look used. */
extern volatile uint64_t bench_sink;

/*
 * bench_main -- parse `[--smoke] [--reps N] [--json PATH] [--floors PATH]
 * [NAME-SUBSTRING | =NAME...]`, run the selected benchmarks of
 * *defs[0..n) (with --floors and no names: those the floors name; =NAME
 * selects the row group NAME alone), print the table, write
 * the JSON, apply the ratio gate.  --reps N (odd, 3 to BENCH_MAX_REPS):
 * repetitions instead of 11.  Returns the process exit status: 0, 1 when a
 * check failed or a ratio is below the gate, 2 on a usage or output error.
 */
int bench_main(int argc, char **argv, const bench_def *const *defs, size_t n);

/* bench_smoke -- 1 in a --smoke run (small inputs, one repetition). */
int bench_smoke(const bench_run *run);

/* The most repetitions a run makes (--reps). */
#define BENCH_MAX_REPS 99

/* bench_reps -- the repetitions bench_measure makes in this run (1 in a
 * smoke run, 11 by default, --reps N). */
unsigned bench_reps(const bench_run *run);

/* bench_size -- `full` items normally, `smoke` items in a smoke run. */
size_t bench_size(const bench_run *run, size_t full, size_t smoke);

/* bench_want -- 1 when row group `group` is selected on the command line. */
int bench_want(const bench_run *run, const char *group);

/* bench_now_ns -- CLOCK_MONOTONIC in nanoseconds. */
double bench_now_ns(void);

/* bench_median -- median of v[0..n) (sorts v in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/*
 * bench_measure -- time impl[0..n), each over `items` items.  One untimed
 * warm-up pass of each, then the repetitions, interleaved (the order
 * rotates every repetition so no implementation always runs first).
 *   median_ns: OUT, n values: the median time per item, in nanoseconds.
 */
void bench_measure(bench_run *run, const bench_impl *impl, size_t n,
                   size_t items, double *median_ns);

/*
 * bench_row -- record one result row: acre's `value` against the
 * baseline's `baseline_value`, both in `unit`.  Strings are copied.
 */
void bench_row(bench_run *run, const char *name, const char *unit, double value,
               const char *baseline, double baseline_value);

/* bench_fail -- record a failed check and print it to stderr. */
void bench_fail(bench_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* bench_note -- print an informative line (prefixed "# ") to stdout. */
void bench_note(bench_run *run, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif /* ACRE_BENCH_HARNESS_H */
