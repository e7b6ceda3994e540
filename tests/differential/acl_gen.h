/*
 * acl_gen.h -- the seeded generator of access-control cases for the
 * differential suite against slapd.
 *
 * A case starts from the agreement test's generator
 * (tests/oracle/openldap_gen.h), which draws policies from the whole
 * slapd.access(5) dialect, then
 *   - grows its directory to 30-200 entries: nested OUs (one with a
 *     multi-valued RDN), people named by uid or by cn with escaped
 *     commas, plus signs, quotes and leading '#', multi-valued RDNs,
 *     values that differ from others only in case or spaces, values
 *     with options (language tags, one or two on a value, in any case),
 *     cn values slapd writes with hex pairs in DNs (specials , + " \ < >
 *     ; = # inside, a leading '#' or space, a trailing space), entries
 *     stored with their attributes in an order of their own,
 *     cleartext passwords; static groups that contain groups,
 *     unique-member groups, dynamic groups (one of groups); devices
 *     below people; roles;
 *   - adds rules of its own about those entries, some on optioned
 *     descriptions (tags, ranges of tags such as cn;lang-en-, exact "-"
 *     lists, val on an optioned type) with compare-, search- and
 *     read-only grants;
 *   - ends half of the policies with a permissive catch-all rule, so
 *     that more searches return entries;
 *   - keeps only what a real connection can decide: every connection
 *     condition of a <who> (peername, sockname, sockurl, domain, the ssf
 *     family) becomes one that a plain TCP connection to 127.0.0.1
 *     answers (true or false), so that acre, told the same connection,
 *     must agree;
 *   - asks with its own requesters (anonymous, the rootdn, users through
 *     proxied authorisation, some with another spelling of their DN,
 *     groups, devices, a DN with no entry, proxied anonymous, users that
 *     bind with their password or a wrong one, the second database's
 *     rootdn and people) and searches (bases existing, missing under an
 *     existing entry, outside every database, invalid; every scope;
 *     filters of every kind over the directory's own values, respelt,
 *     with NOT and on attributes the requester may not search; about a
 *     third of the value items on optioned values, named by their own
 *     description, in another case, without options, by a supertype or
 *     by a range of tags; extensible items with no type, with and
 *     without :dn:;
 *     attribute lists with aliases, subtypes, options, ranges of tags,
 *     "*", "+", "1.1"), every search made by every requester.
 *
 * 40% of the cases also configure slapd's slapo-collect overlay (an OU's
 * values collected by the entries below it; see collect() in acl_gen.c):
 * ACL_COLLECT=1 in the environment puts it in every case, ACL_COLLECT=0
 * in none.
 *
 * Invariants: the same seed (and ACL_COLLECT) gives the same case;
 * entries of a second tree that no database holds are left out (slapd
 * could not load them); whatever slapd refuses is the harness's business
 * (it regenerates).
 */
#ifndef ACL_GEN_H
#define ACL_GEN_H

#include "acl_case.h"

#include <stdint.h>

/* What a generated case is made of (for the suite's summary). */
struct acl_gen_info {
    unsigned entries, rules, requesters, searches, dbs;
};

/* acl_gen -- the case of `seed`, under talloc ctx.  info may be NULL. */
struct acl_case *acl_gen(void *ctx, uint64_t seed, struct acl_gen_info *info);

/* acl_case_seed -- the seed of case k (from 0) of a run seeded `seed`. */
uint64_t acl_case_seed(uint64_t seed, unsigned k);

#endif /* ACL_GEN_H */
