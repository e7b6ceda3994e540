/*
 * acl_bench.h -- `make bench-slapd` (and bench-slapd-module): what slapd
 * spends per returned entry of a 10,000-entry subtree search as a user
 * with no access control, with N rules as its own ACLs and with overlay
 * acre deciding on the same N rules, next to what acre spends on the same
 * policy, data and search (issue 14).
 *
 * The case (acl_bench_gen) is a directory of 100 units of 100 people
 * under ou=people plus 20 groups, and a policy of one of three mixes:
 *   noacl    the one rule `access to * by * read` (slapd without access
 *            control, as the issue defines it);
 *   dn       N rules in the shapes administrators write (targets
 *            dn.subtree, dn.one, dn.base and dn.children; filters,
 *            attribute lists, a val.regex value; groups, dnattr, sets,
 *            self), each about one unit (i % 150: units past 99 do not
 *            exist, as in a policy that outlived its data), ending with
 *            "access to * by self write by users read by * none";
 *   regex10  the same with rule i a dn.regex rule whenever i % 10 == 3
 *            (in place of mix dn's dn.base rule on one of the people it
 *            matches): exactly one rule in ten when N is a multiple of 10.
 * The search is a subtree search of ou=people for (objectClass=*) and
 * every user attribute, as a user (the rootdn with proxied
 * authorisation), 10,101 entries returned.
 *
 * slapd's figure is the CPU time of the slapd process (all threads, user
 * + system: its CPU-time clock) over the searches, divided by the entries
 * returned.  bench_slapd.sh keeps the no-ACL slapd up for the whole run
 * and, with the overlay, native slapd up beside the overlay's: the
 * figures of one case (overlay, native, no-ACL as the user, no-ACL as
 * the rootdn) are sampled in turn, so that their ratios compare the same
 * seconds of a shared machine.  acre's figures are the CPU time of
 * acre_search over the same search (filter, scope walk, access checks,
 * verdicts) and of acre_entry_decide alone, per entry.  Each figure is
 * the median of 9 samples of 0.25 s or more; a slapd taking over 2 s a
 * search (native slapd under 1,000 rules and more) is sampled in every
 * third round only: 3 samples of one search.
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
