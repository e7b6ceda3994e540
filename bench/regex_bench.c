/*
 * regex_bench.c -- policy_decide_1k_regex10: acre's per-entry verdict on
 * `make bench-slapd`'s case of mix regex10 and 1,000 rules (100 of them
 * dn.regex targets) against the reference evaluator, in the same run.
 *
 * The directory and the rules are bench-slapd's (tests/differential/
 * acl_bench.c, acl_bench_gen, which links libldap and cannot be linked
 * here: the text below must stay the same as its): 100 units of 100
 * people under ou=people and 20 groups of 50; rule i is about unit
 * i % 150 and is, by i % 10, a subtree rule on phone and mail with a
 * group, a dn.regex rule with an expanded `$0` clause, a filter rule on
 * dn.children, a dn.base rule, a dn.one password rule, a dnattr rule, a
 * subtree val.regex rule, or a set rule on groups; the last is
 * `access to * by self write by users read by * none`.  The requester is
 * bench-slapd's user; the entries decided are those of its search (the
 * subtree of ou=people, 10,101 entries; a smoke run uses 5 units and 100
 * rules).  The oracle is timed over an evenly spaced sample.
 */
#include "decide_world.h"

#include <stdio.h>
#include <string.h>
#include <talloc.h>

#define MIX_BASE  "ou=people,dc=example,dc=com"
#define MIX_USER  "uid=p0-0,ou=unit0,ou=people,dc=example,dc=com"
#define MIX_UNITS 100 /* as bench-slapd's */
#define PER_UNIT  100
#define GROUPS    20

/* The directory of bench-slapd with `units` units. */
static char *
mix_ldif(void *ctx, unsigned units)
{
    char *s = talloc_strdup(ctx, "dn: dc=example,dc=com\n"
                                 "objectClass: dcObject\n"
                                 "objectClass: organization\n"
                                 "dc: example\no: Example\n\n"
                                 "dn: ou=people,dc=example,dc=com\n"
                                 "objectClass: organizationalUnit\n"
                                 "ou: people\n\n"
                                 "dn: ou=groups,dc=example,dc=com\n"
                                 "objectClass: organizationalUnit\n"
                                 "ou: groups\n\n");

    for (unsigned u = 0; s && u < units; u++) {
        s = talloc_asprintf_append(s,
                                   "dn: ou=unit%u," MIX_BASE "\n"
                                   "objectClass: organizationalUnit\n"
                                   "ou: unit%u\n\n",
                                   u, u);
        for (unsigned p = 0; s && p < PER_UNIT; p++)
            s = talloc_asprintf_append(
                s,
                "dn: uid=p%u-%u,ou=unit%u," MIX_BASE "\n"
                "objectClass: inetOrgPerson\n"
                "uid: p%u-%u\ncn: Person %u %u\nsn: Unit%u\n"
                "mail: p%u-%u@example.com\n"
                "telephoneNumber: +1 555 %04u\n"
                "title: %s\ndescription: member of unit %u\n"
                "userPassword: secret%u\n"
                "manager: uid=p%u-0,ou=unit%u," MIX_BASE "\n\n",
                u, p, u, u, p, u, p, u, u, p, (u * PER_UNIT + p) % 10000,
                p % 10 ? "engineer" : "boss", u, p, u, u);
    }
    for (unsigned g = 0; s && g < GROUPS; g++) {
        s = talloc_asprintf_append(s,
                                   "dn: cn=group%u,ou=groups,dc=example,dc=com"
                                   "\nobjectClass: groupOfNames\ncn: group%u\n",
                                   g, g);
        for (unsigned m = 0; s && m < 50; m++)
            s = talloc_asprintf_append(
                s, "member: uid=p%u-%u,ou=unit%u," MIX_BASE "\n",
                (g * 5 + m) % units, m, (g * 5 + m) % units);
        s = talloc_asprintf_append(s, "\n");
    }
    return s;
}

/* Rule i of bench-slapd's policy of mix regex10. */
static char *
mix_rule(void *ctx, unsigned i)
{
    unsigned u = i % 150;
    const char *unit = talloc_asprintf(ctx, "ou=unit%u," MIX_BASE, u);

    switch (i % 10) {
    case 0:
    case 1:
    case 2:
        return talloc_asprintf(
            ctx,
            "access to dn.subtree=\"%s\" attrs=telephoneNumber,mail\n"
            "  by group.exact=\"cn=group%u,ou=groups,dc=example,dc=com\" "
            "write\n  by self write\n  by users read\n  by * none\n",
            unit, i % GROUPS);
    case 3:
        return talloc_asprintf(
            ctx,
            "access to dn.regex=\"^uid=p%u-[0-9]*7,ou=unit%u,ou=people,"
            "dc=example,dc=com$\" attrs=description\n"
            "  by dn.exact,expand=\"$0\" write\n  by users read\n"
            "  by * none\n",
            u, u);
    case 4:
        return talloc_asprintf(ctx,
                               "access to dn.children=\"%s\" "
                               "filter=\"(title=boss)\" attrs=title\n"
                               "  by users read\n  by * break\n",
                               unit);
    case 5:
        return talloc_asprintf(ctx,
                               "access to dn.base=\"uid=p%u-%u,%s\"\n"
                               "  by self write\n  by users read\n"
                               "  by * none\n",
                               u, i % PER_UNIT, unit);
    case 6:
        return talloc_asprintf(ctx,
                               "access to dn.one=\"%s\" attrs=userPassword\n"
                               "  by self =wx\n  by anonymous auth\n"
                               "  by * none\n",
                               unit);
    case 7:
        return talloc_asprintf(ctx,
                               "access to dn.subtree=\"%s\" attrs=manager\n"
                               "  by dnattr=manager write\n  by users read\n"
                               "  by * none\n",
                               unit);
    case 8:
        return talloc_asprintf(ctx,
                               "access to dn.subtree=\"%s\" attrs=carLicense "
                               "val.regex=\"^X%u$\"\n  by users read\n",
                               unit, i);
    default:
        return talloc_asprintf(ctx,
                               "access to dn.subtree=\"ou=groups,dc=example,"
                               "dc=com\" attrs=member filter=\"(cn=group%u)\"\n"
                               "  by set=\"this/member & user\" write\n"
                               "  by users read\n",
                               i % GROUPS);
    }
}

/* bench-slapd's policy of nrules rules. */
static char *
mix_rules(void *ctx, unsigned nrules)
{
    char *s =
        talloc_asprintf(ctx, "database mdb\nsuffix \"dc=example,dc=com\"\n"
                             "rootdn \"cn=manager,dc=example,dc=com\"\n");

    for (unsigned i = 0; s && i + 1 < nrules; i++) {
        char *r = mix_rule(s, i);

        s = r ? talloc_strdup_append(s, r) : NULL;
    }
    if (s)
        s = talloc_strdup_append(s, "access to *\n  by self write\n"
                                    "  by users read\n  by * none\n");
    return s;
}

static int
bench_regex(bench_run *run)
{
    unsigned units = (unsigned)bench_size(run, MIX_UNITS, 5);
    unsigned nrules = (unsigned)bench_size(run, 1000, 100);
    dworld w = {.mem = talloc_new(NULL)};
    dpolicy dp = {0};
    char *ldif = w.mem ? mix_ldif(w.mem, units) : NULL;
    char *rules = w.mem ? mix_rules(w.mem, nrules) : NULL;
    size_t nsample = bench_size(run, 50, 10), *sample, *order;
    int rc = -1;

    if (!ldif || !rules ||
        dworld_load(run, &w, "regex10.ldif", ldif, strlen(ldif), MIX_BASE,
                    NULL) != 0 ||
        dpolicy_setup(run, &w, &dp, "policy_decide_1k_regex10", rules,
                      strlen(rules), MIX_USER) != 0)
        goto out;
    if (!(sample = dworld_sample(&w, nsample)) ||
        !(order = dworld_sample(&w, w.n)))
        goto out;
    bench_note(run, "policy_decide_1k_regex10: %u rules, %zu entries decided",
               nrules, w.n);
    rc = 0;
    if (dpolicy_verify(run, &w, &dp, sample, nsample) == 0)
        dpolicy_row(run, "policy_decide_1k_regex10/oracle", &w, &dp, order, w.n,
                    1, sample, nsample);
out:
    dpolicy_free(&dp);
    dworld_free(&w);
    return rc;
}

static const char *const regex_groups[] = {"policy_decide_1k_regex10", NULL};

const bench_def bench_regex_def = {"regex10", regex_groups, bench_regex};
