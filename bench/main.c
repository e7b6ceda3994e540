/*
 * main.c -- acre-bench: the table of benchmarks and the entry point.
 *
 * usage: acre-bench [--smoke] [--reps N] [--json PATH] [--floors PATH]
 *                   [NAME-SUBSTRING | =NAME...]
 *
 * A pattern selects the row groups whose name contains it; =NAME only the
 * one named exactly (=policy_decide_1k, without _regex10 and _cold).
 *
 * --floors bench/floors.json is the CI's ratio gate (make bench-check).
 *
 * To add a benchmark, write bench/<name>.c defining a `const bench_def`
 * and add one declaration and one line to the table below (ORDER BENCH).
 * Every .c file in bench/ is linked into the one program.
 */
#include "harness.h"

/*
 * jemalloc's options for the whole run (it reads this symbol at start):
 * freed pages stay with the process instead of going back to the kernel
 * after a decay time.  On the virtual machines this runs on, the kernel
 * hands free pages back to the host (kdamond, free page reporting), and
 * touching them again costs a fault in the host whose price changes two-
 * to threefold from hour to hour; a row whose passes free and allocate
 * tens of megabytes (ldif_load: the whole directory) measured that price
 * instead of its code.  Both sides of every row run under the same
 * allocator and options.
 */
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";

/* ORDER BENCH: the benchmarks, each defined in its own file */
extern const bench_def bench_dn_def;         /* dn_bench.c */
extern const bench_def bench_filter_def;     /* filter_bench.c */
extern const bench_def bench_ldif_def;       /* ldif_bench.c */
extern const bench_def bench_policy_def;     /* policy_bench.c */
extern const bench_def bench_collective_def; /* collective_bench.c */
extern const bench_def bench_regex_def;      /* regex_bench.c */
extern const bench_def bench_company_def;    /* company_bench.c */
extern const bench_def bench_cold_def;       /* cold_bench.c */
extern const bench_def bench_aci_def;        /* aci_bench.c */

/* ORDER BENCH: the registry, run in this order.  collective before
 * policy: policy_compile_100k leaves a heap of about a gigabyte kept by
 * the options above, in which collective_attach_10k's many small blocks
 * measured a third slower than in a fresh process (0.30 against 0.41 of
 * acre_directory_load's time, 2026-12-04); its comparison, one large
 * load, was not slowed. */
static const bench_def *const benches[] = {
    &bench_dn_def,         &bench_filter_def, &bench_ldif_def,
    &bench_collective_def, &bench_policy_def, &bench_regex_def,
    &bench_company_def,    &bench_cold_def,   &bench_aci_def,
};

int
main(int argc, char **argv)
{
    return bench_main(argc, argv, benches, sizeof benches / sizeof *benches);
}
