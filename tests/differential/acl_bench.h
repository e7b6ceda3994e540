/*
 * acl_bench.h -- `make bench-slapd`: what slapd spends per returned entry
 * of a 10,000-entry subtree search under a policy of 1, 100 and 1,000
 * rules, next to what acre spends on the same policy, data and search, in
 * the same run.
 *
 * The case (acl_bench_gen) is a directory of 100 units of 100 people
 * under ou=people plus 20 groups, and a policy of N rules in the shapes
 * administrators write (subtree, one-level, base and regex targets,
 * filters, attribute lists, values; groups, dnattr, sets, self,
 * substitutions), most of them about one unit, ending with "access to *
 * by self write by users read by * none".  The search is a subtree
 * search of ou=people for (objectClass=*) and every user attribute, as a
 * user (the rootdn with proxied authorisation).
 *
 * slapd's figure is the CPU time of the slapd process (user + system,
 * /proc/PID/stat) over the searches, divided by the entries returned;
 * the same search as the rootdn (which no rule is checked for) is
 * measured too, as slapd's cost without access control.  acre's figures
 * are the CPU time of acre_search over the same search (filter, scope
 * walk, access checks, verdicts) and of acre_entry_decide alone, per
 * entry.  Each figure is the median of several samples.
 */
#ifndef ACL_BENCH_H
#define ACL_BENCH_H

#include "acl_case.h"

/* acl_bench_gen -- the benchmark case of mix "dn", "regex10" or "noacl"
 * (nrules ignored) with a policy of nrules (>= 1) rules; NULL for
 * another mix. */
struct acl_case *acl_bench_gen(void *ctx, const char *mix, unsigned nrules);

/* acl_bench_slapd -- measure the running slapd (process pid, at uri) on
 * case c; the figures go to dir/bench-slapd.txt.  Returns 0 or -1. */
int acl_bench_slapd(const struct acl_case *c, const char *dir, const char *uri,
                    const char *rootpw, long pid);

/* acl_bench_acre -- measure acre on the case in dir (slapd.conf, the
 * data); the figures go to dir/bench-acre.txt.  Returns 0 or -1. */
int acl_bench_acre(const struct acl_case *c, const char *dir);

/* acl_bench_report -- the table of the directories' figures, with the
 * ratios, on stdout, and as JSON in json when not NULL; with rows, the
 * overlay's rows in bench/results.json's form (two per case measured
 * with the overlay: slapd_overlay_MIX_N/noacl and .../native). */
int acl_bench_report(char *const *dirs, unsigned n, const char *json,
                     const char *rows);

#endif /* ACL_BENCH_H */
