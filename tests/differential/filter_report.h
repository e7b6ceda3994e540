/*
 * filter_report.h -- reproducers for the differential filter suite.
 *
 * For every search on which slapd and acre differ it prints the filter,
 * base and scope, both result codes and DN lists, the LDIF of the entries
 * that differ, and a command that reruns the search on just those entries
 * (written to OUTDIR/mismatch-K.ldif with their ancestors).
 *
 * It also narrows a difference down to the filter's items: the items
 * (leaves) of every mismatching filter, each alone and negated (so that
 * FALSE on one side and Undefined on the other shows), are listed in
 * OUTDIR/leaves (one search per line, same base and scope) when the run is
 * closed; once the harness has had slapd answer them (OUTDIR/leaves.out),
 * a second compare pass prints, under each mismatch, the items on which
 * slapd and acre differ by themselves.  Both passes see the same mismatches in
 * the same order, so OUTDIR/leaves and OUTDIR/leaves.out stay aligned.
 */
#ifndef FILTER_REPORT_H
#define FILTER_REPORT_H

#include "dt_results.h"
#include "filter_gen.h"

#include "directory.h"

struct fr_run {
    const char *outdir, *suite;
    const struct acreE_dir *dir;
    struct dt_record *recs; /* OUTDIR/data.ldif */
    unsigned nrecs;
    char **norm; /* normalised DN of each record (NULL: unparsable) */
    unsigned nmismatch;
    struct fg_search *leaves; /* items of the mismatching filters */
    unsigned nleaves;
    struct dt_result *leaf_slapd; /* OUTDIR/leaves.out, normalised */
    unsigned nleaf_slapd;
};

/* fr_open -- index OUTDIR/data.ldif, read OUTDIR/leaves.out if present. */
void fr_open(struct fr_run *run, const char *outdir, const char *suite,
             const struct acreE_dir *dir);

/* fr_report -- print one mismatch (sl: slapd's result, ac: acre's, both
 * normalised and sorted; why: acre's error text or ""). */
void fr_report(struct fr_run *run, unsigned filter_no, unsigned search_no,
               const struct fg_search *s, const struct dt_result *sl,
               const struct dt_result *ac, const char *why);

/* fr_close -- write OUTDIR/leaves and free everything. */
void fr_close(struct fr_run *run);

#endif /* FILTER_REPORT_H */
