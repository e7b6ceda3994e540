/*
 * company_bench.c -- company_decide: acre's per-entry verdict on the demo
 * directory and policy (examples/company: slapd.conf, company.ldif)
 * against the reference evaluator, in the same run.
 *
 * The requester is the demo's costliest (cli/demo.sh has three:
 * anonymous, Linda Thomas and Fatima Miller of cn=hr-admins; Linda is
 * the one for whom `set="this/manager* & user"` is not decided by the
 * requester alone: measured with callgrind, her verdicts cost the most).
 * The entries decided are the subtree of ou=People (2,500 people, their
 * departments and the sites' subentries), every one in a smoke run too;
 * the oracle is timed over an evenly spaced sample.  The policy's
 * `include` lines are dropped (acre and the oracle have those schemas
 * built in; the files may or may not exist on the machine).
 *
 * The files are read from ACRE_BENCH_EXAMPLES (set by the Makefile to the
 * source tree's examples/).
 */
#include "decide_world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#ifndef ACRE_BENCH_EXAMPLES
#define ACRE_BENCH_EXAMPLES "examples"
#endif

#define COMPANY_BASE "ou=People,dc=example,dc=com"
#define COMPANY_USER \
    "cn=Linda Thomas,ou=Platform,ou=Engineering,ou=People,dc=example,dc=com"

/* The whole file ACRE_BENCH_EXAMPLES/company/name under ctx, or NULL. */
static char *
read_example(bench_run *run, void *ctx, const char *name, size_t *len)
{
    char path[4096];
    char *buf = NULL;
    long size;
    FILE *f;

    snprintf(path, sizeof path, "%s/company/%s", ACRE_BENCH_EXAMPLES, name);
    if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) != 0 ||
        (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = talloc_size(ctx, (size_t)size + 1)) ||
        fread(buf, 1, (size_t)size, f) != (size_t)size) {
        bench_fail(run, "company_decide: cannot read %s", path);
        buf = NULL;
    } else {
        buf[size] = 0;
        *len = (size_t)size;
    }
    if (f)
        fclose(f);
    return buf;
}

/* Blank out the `include` lines of a slapd.conf text, in place. */
static void
drop_includes(char *text)
{
    for (char *line = text; *line; line++) {
        char *end = strchr(line, '\n');

        if (strncmp(line, "include", 7) == 0 &&
            (line[7] == ' ' || line[7] == '\t'))
            memset(line, ' ', end ? (size_t)(end - line) : strlen(line));
        if (!end)
            break;
        line = end;
    }
}

static int
bench_company(bench_run *run)
{
    dworld w = {.mem = talloc_new(NULL)};
    dpolicy dp = {0};
    size_t llen = 0, clen = 0, *sample, *order;
    size_t nsample = bench_size(run, 300, 20);
    unsigned loops = (unsigned)bench_size(run, 4, 1);
    char *ldif = w.mem ? read_example(run, w.mem, "company.ldif", &llen) : 0;
    char *conf = w.mem ? read_example(run, w.mem, "slapd.conf", &clen) : 0;
    int rc = -1;

    if (!ldif || !conf)
        goto out;
    drop_includes(conf);
    if (dworld_load(run, &w, "company.ldif", ldif, llen, COMPANY_BASE, NULL) ||
        dpolicy_setup(run, &w, &dp, "company_decide", conf, clen,
                      COMPANY_USER) != 0)
        goto out;
    if (!(sample = dworld_sample(&w, nsample)) ||
        !(order = dworld_sample(&w, w.n)))
        goto out;
    bench_note(run, "company_decide: %zu entries decided, requester %s", w.n,
               COMPANY_USER);
    rc = 0;
    if (dpolicy_verify(run, &w, &dp, sample, nsample) == 0)
        dpolicy_row(run, "company_decide/oracle", &w, &dp, order, w.n, loops,
                    sample, nsample);
out:
    dpolicy_free(&dp);
    dworld_free(&w);
    return rc;
}

static const char *const company_groups[] = {"company_decide", NULL};

const bench_def bench_company_def = {"company", company_groups, bench_company};
