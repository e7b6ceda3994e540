/*
 * slapd_case.c -- the text of bench-slapd's case (see slapd_case.h).
 */
#include "slapd_case.h"

#include <talloc.h>

char *
slapd_case_ldif(void *ctx, unsigned units)
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
                                   "dn: ou=unit%u," SLAPD_CASE_BASE "\n"
                                   "objectClass: organizationalUnit\n"
                                   "ou: unit%u\n\n",
                                   u, u);
        for (unsigned p = 0; s && p < SLAPD_CASE_PER_UNIT; p++)
            s = talloc_asprintf_append(
                s,
                "dn: uid=p%u-%u,ou=unit%u," SLAPD_CASE_BASE "\n"
                "objectClass: inetOrgPerson\n"
                "uid: p%u-%u\ncn: Person %u %u\nsn: Unit%u\n"
                "mail: p%u-%u@example.com\n"
                "telephoneNumber: +1 555 %04u\n"
                "title: %s\ndescription: member of unit %u\n"
                "userPassword: secret%u\n"
                "manager: uid=p%u-0,ou=unit%u," SLAPD_CASE_BASE "\n\n",
                u, p, u, u, p, u, p, u, u, p,
                (u * SLAPD_CASE_PER_UNIT + p) % 10000,
                p % 10 ? "engineer" : "boss", u, p, u, u);
    }
    for (unsigned g = 0; s && g < SLAPD_CASE_GROUPS; g++) {
        s = talloc_asprintf_append(s,
                                   "dn: cn=group%u,ou=groups,dc=example,dc=com"
                                   "\nobjectClass: groupOfNames\ncn: group%u\n",
                                   g, g);
        for (unsigned m = 0; s && m < 50; m++)
            s = talloc_asprintf_append(
                s, "member: uid=p%u-%u,ou=unit%u," SLAPD_CASE_BASE "\n",
                (g * 5 + m) % units, m, (g * 5 + m) % units);
        s = talloc_asprintf_append(s, "\n");
    }
    return s;
}

/* Shape 3 of mix regex10 is the dn.regex counterpart of mix dn's dn.base
 * rule. */
char *
slapd_case_rule(void *ctx, int regex, unsigned i)
{
    unsigned u = i % 150;
    const char *unit = talloc_asprintf(ctx, "ou=unit%u," SLAPD_CASE_BASE, u);

    switch (i % 10) {
    case 0:
    case 1:
    case 2:
        return talloc_asprintf(
            ctx,
            "access to dn.subtree=\"%s\" attrs=telephoneNumber,mail\n"
            "  by group.exact=\"cn=group%u,ou=groups,dc=example,dc=com\" "
            "write\n  by self write\n  by users read\n  by * none\n",
            unit, i % SLAPD_CASE_GROUPS);
    case 3:
        if (regex) /* the people of the unit whose number ends in 7 */
            return talloc_asprintf(
                ctx,
                "access to dn.regex=\"^uid=p%u-[0-9]*7,ou=unit%u,ou=people,"
                "dc=example,dc=com$\" attrs=description\n"
                "  by dn.exact,expand=\"$0\" write\n  by users read\n"
                "  by * none\n",
                u, u);
        /* one of them, by its DN */
        return talloc_asprintf(ctx,
                               "access to dn.base=\"uid=p%u-%u,%s\" "
                               "attrs=description\n"
                               "  by self write\n  by users read\n"
                               "  by * none\n",
                               u, (i / 10) % 10 * 10 + 7, unit);
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
                               u, i % SLAPD_CASE_PER_UNIT, unit);
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
                               i % SLAPD_CASE_GROUPS);
    }
}
