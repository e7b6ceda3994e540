/*
 * aci_gen.c -- the seeded generator of ACI test cases (aci_gen.h).
 *
 * A case, all of it drawn from the seed:
 *   directory  dc=example,dc=com; ou=people with ou=eng and ou=ops below
 *              it; 5 to 8 people (inetOrgPerson: uid cn sn, and at
 *              random mail, telephoneNumber, description,
 *              departmentNumber, manager, seeAlso naming a group,
 *              nsRoleDN naming the managed role, labeledURI holding an
 *              LDAP URL); ou=groups with groupOfNames g1..gN (people as
 *              members, often a chain g1 > g2 > ... that can run past
 *              389's nesting limit of 5, sometimes closed into a cycle),
 *              a groupOfUniqueNames u1 and a groupOfURLs dyn; the roles
 *              cn=mrole (managed), cn=frole (filtered), cn=srole (nested
 *              with an nsRoleScopeDN) and cn=nrole
 *              (nested) on the suffix;
 *   ACIs       3 to 8 values on the suffix, the OUs or a person: target
 *              (DN, wildcard pattern, "($dn)" macro, "!="), targetattr
 *              ("*", "a || b", "!="), targetfilter ("!="), targetscope
 *              (OpenDJ only), one or two "allow|deny (rights)" perms with
 *              bind rules of every keyword combined with and / or / not,
 *              "!=", "||" lists, URLs, patterns and macros;
 *   requesters anonymous, each person (simple bind, ssf, address, host
 *              name, time of day and week), one SASL EXTERNAL bind and
 *              the directory manager;
 *   searches   6 to 10: base (sometimes missing), scope, a filter over
 *              several attributes with & | ! (extensible items among
 *              them), requested attributes.
 */
#include "aci_gen.h"

#include "openldap_gen.h" /* the PRNG */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

#define SFX    ACREG_ACI_SUFFIX
#define PEOPLE "ou=people," SFX
#define GROUPS "ou=groups," SFX

/* Wednesday 2026-12-02 00:00 UTC */
#define BASE_TIME 1796169600

static const char *const names[] = {"alice", "bob",   "carol", "dave",
                                    "erin",  "frank", "grace", "heidi"};
static const char *const ous[] = {PEOPLE, "ou=eng," PEOPLE, "ou=ops," PEOPLE};
static const char *const attr_names[] = {
    "cn",          "sn",      "uid",     "mail",        "telephoneNumber",
    "description", "manager", "seeAlso", "objectClass", "departmentNumber",
    "member",      "ou",      "l"};
#define NATTR_NAMES (sizeof(attr_names) / sizeof(*attr_names))

struct gen {
    struct acreG_rng r;
    void *ctx;
    struct acreG_aci_case *c;
    int oom;
    unsigned npeople, ngroups;
    char *people[8];  /* DNs */
    unsigned home[8]; /* index into ous */
    int macro;        /* the ACI being built has a ($dn) target: 1 as
                         RDNs, 2 inside "ou=" */
};

#define PICK(g, arr) \
    (arr)[acreG_rng_below(&(g)->r, sizeof(arr) / sizeof(*(arr)))]

static char *fmt(struct gen *g, const char *f, ...)
    __attribute__((format(printf, 2, 3)));

static char *
fmt(struct gen *g, const char *f, ...)
{
    va_list ap;

    va_start(ap, f);
    char *s = talloc_vasprintf(g->ctx, f, ap);
    va_end(ap);
    if (!s)
        g->oom = 1;
    return s ? s : "";
}

/* ------------------------------------------------------------------------
 * The directory
 */

static struct acreG_aci_entry *
add_entry(struct gen *g, const char *dn)
{
    struct acreG_aci_case *c = g->c;
    struct acreG_aci_entry *v =
        talloc_realloc(c, c->entries, struct acreG_aci_entry, c->nentries + 1);

    if (!v) {
        g->oom = 1;
        return NULL;
    }
    c->entries = v;
    struct acreG_aci_entry *e = &v[c->nentries++];
    memset(e, 0, sizeof(*e));
    e->dn = talloc_strdup(c, dn);
    return e;
}

static void line(struct gen *g, struct acreG_aci_entry *e, const char *f, ...)
    __attribute__((format(printf, 3, 4)));

static void
line(struct gen *g, struct acreG_aci_entry *e, const char *f, ...)
{
    va_list ap;

    if (!e)
        return;
    char **v = talloc_realloc(g->c, e->lines, char *, e->nlines + 1);
    va_start(ap, f);
    char *s = v ? talloc_vasprintf(g->c, f, ap) : NULL;
    va_end(ap);
    if (!s) {
        g->oom = 1;
        return;
    }
    e->lines = v;
    v[e->nlines++] = s;
}

static const char *
group_dn(struct gen *g, unsigned i)
{
    return fmt(g, "cn=g%u," GROUPS, i + 1);
}

static void
add_person(struct gen *g, unsigned i)
{
    const char *n = names[i];
    unsigned home = acreG_rng_below(&g->r, 3);
    char *dn = fmt(g, "uid=%s,%s", n, ous[home]);
    struct acreG_aci_entry *e = add_entry(g, dn);

    g->people[i] = dn;
    g->home[i] = home;
    line(g, e, "objectClass: top");
    line(g, e, "objectClass: person");
    line(g, e, "objectClass: organizationalPerson");
    line(g, e, "objectClass: inetOrgPerson");
    line(g, e, "uid: %s", n);
    line(g, e, "cn: %c%s", n[0] - 'a' + 'A', n + 1);
    line(g, e, "sn: %c", n[0] - 'a' + 'A');
    line(g, e, "userPassword: pw-%s", n); /* for simple binds to 389 */
    if (acreG_rng_pct(&g->r, 70))
        line(g, e, "mail: %s@example.com", n);
    if (acreG_rng_pct(&g->r, 50))
        line(g, e, "telephoneNumber: +1 555 01%02u", i);
    if (acreG_rng_pct(&g->r, 40))
        line(g, e, "description: %s",
             PICK(g, ((const char *const[]){"first", "staff", "on call",
                                            "on (call)"})));
    if (acreG_rng_pct(&g->r, 80))
        line(g, e, "departmentNumber: %s",
             PICK(g, ((const char *const[]){"42", "7", "20"})));
    if (i > 0 && acreG_rng_pct(&g->r, 40))
        line(g, e, "manager: %s", g->people[acreG_rng_below(&g->r, i)]);
    if (acreG_rng_pct(&g->r, 30))
        line(g, e, "seeAlso: %s", group_dn(g, acreG_rng_below(&g->r, 3)));
    if (acreG_rng_pct(&g->r, 25))
        line(g, e, "nsRoleDN: cn=mrole," SFX);
    if (acreG_rng_pct(&g->r, 15))
        line(g, e, "labeledURI: ldap:///" PEOPLE "??%s",
             PICK(g, ((const char *const[]){"one?(sn=B)",
                                            "sub?(departmentNumber=7)",
                                            "sub?(sn=B*)", "sub?(sn=b*)"})));
}

static void
add_groups(struct gen *g)
{
    int chain = acreG_rng_pct(&g->r, 60), cycle = acreG_rng_pct(&g->r, 20);

    g->ngroups = 3 + acreG_rng_below(&g->r, 5);
    for (unsigned i = 0; i < g->ngroups; i++) {
        struct acreG_aci_entry *e = add_entry(g, group_dn(g, i));
        line(g, e, "objectClass: top");
        line(g, e, "objectClass: groupOfNames");
        line(g, e, "cn: g%u", i + 1);
        unsigned nm = acreG_rng_below(&g->r, 3), m0 = 0;
        for (unsigned k = 0; k < nm || (k == 0 && !chain); k++) {
            /* distinct members: 389 refuses a repeated value */
            m0 = k ? (m0 + 1 + acreG_rng_below(&g->r, g->npeople - 2)) %
                         (g->npeople - 1)
                   : acreG_rng_below(&g->r, g->npeople - 1);
            line(g, e, "member: %s", g->people[m0]);
        }
        if (chain && i + 1 < g->ngroups)
            line(g, e, "member: %s", group_dn(g, i + 1));
        else if (chain && cycle)
            line(g, e, "member: %s", group_dn(g, 0));
        else if (chain)
            line(g, e, "member: %s", g->people[g->npeople - 1]);
    }
    struct acreG_aci_entry *u = add_entry(g, "cn=u1," GROUPS);
    line(g, u, "objectClass: top");
    line(g, u, "objectClass: groupOfUniqueNames");
    line(g, u, "cn: u1");
    line(g, u, "uniqueMember: %s", g->people[acreG_rng_below(&g->r, 3)]);
    if (acreG_rng_pct(&g->r, 50))
        line(g, u, "uniqueMember: %s", group_dn(g, 0));
    struct acreG_aci_entry *d = add_entry(g, "cn=dyn," GROUPS);
    line(g, d, "objectClass: top");
    line(g, d, "objectClass: groupOfURLs");
    line(g, d, "cn: dyn");
    const char *ub = PICK(g, ((const char *const[]){PEOPLE, "ou=eng," PEOPLE}));
    const char *uf =
        PICK(g, ((const char *const[]){"(departmentNumber=42)", "(sn=B)",
                                       "(mail=*)", "(sn=B*)", "(sn=b*)",
                                       "(description=on (call))"}));
    line(g, d, "memberURL: ldap:///%s??sub?%s", ub, uf);
}

/* One role entry: the classes every role has, then its own. */
static struct acreG_aci_entry *
add_role(struct gen *g, const char *cn, const char *complex, const char *kind)
{
    struct acreG_aci_entry *e = add_entry(g, fmt(g, "cn=%s," SFX, cn));

    line(g, e, "objectClass: top");
    line(g, e, "objectClass: LDAPsubentry");
    line(g, e, "objectClass: nsRoleDefinition");
    line(g, e, "objectClass: %s", complex);
    line(g, e, "objectClass: %s", kind);
    line(g, e, "cn: %s", cn);
    return e;
}

static void
add_roles(struct gen *g)
{
    add_role(g, "mrole", "nsSimpleRoleDefinition", "nsManagedRoleDefinition");
    struct acreG_aci_entry *f = add_role(g, "frole", "nsComplexRoleDefinition",
                                         "nsFilteredRoleDefinition");
    line(g, f, "nsRoleFilter: %s",
         acreG_rng_pct(&g->r, 25) ? "(description=on (call))"
                                  : "(departmentNumber=7)");
    struct acreG_aci_entry *n = add_role(g, "nrole", "nsComplexRoleDefinition",
                                         "nsNestedRoleDefinition");
    line(g, n, "nsRoleDN: cn=mrole," SFX);
    /* nested with a scope of its own: ou=eng, the suffix, or (another
     * suffix) none */
    struct acreG_aci_entry *sr = add_role(g, "srole", "nsComplexRoleDefinition",
                                          "nsNestedRoleDefinition");
    line(g, sr, "nsRoleDN: cn=mrole," SFX);
    line(g, sr, "nsRoleScopeDN: %s",
         PICK(g, ((const char *const[]){"cn=x,ou=eng," PEOPLE, PEOPLE,
                                        "dc=other,dc=org"})));
}

static void
add_directory(struct gen *g)
{
    struct acreG_aci_entry *e = add_entry(g, SFX);

    line(g, e, "objectClass: top");
    line(g, e, "objectClass: domain");
    line(g, e, "dc: example");
    for (unsigned i = 0; i < 3; i++) {
        const char *name = i == 0 ? "people" : i == 1 ? "eng" : "ops";
        e = add_entry(g, ous[i]);
        line(g, e, "objectClass: top");
        line(g, e, "objectClass: organizationalUnit");
        line(g, e, "ou: %s", name);
    }
    g->npeople = 5 + acreG_rng_below(&g->r, 4);
    for (unsigned i = 0; i < g->npeople; i++)
        add_person(g, i);
    e = add_entry(g, GROUPS);
    line(g, e, "objectClass: top");
    line(g, e, "objectClass: organizationalUnit");
    line(g, e, "ou: groups");
    add_groups(g);
    add_roles(g);
}

/* ------------------------------------------------------------------------
 * ACIs
 */

static const char *
person(struct gen *g)
{
    return g->people[acreG_rng_below(&g->r, g->npeople)];
}

static const char *
userdn_term(struct gen *g)
{
    if (g->macro == 1 && acreG_rng_pct(&g->r, 30))
        return fmt(g, "ldap:///uid=%s,[$dn]," SFX,
                   names[acreG_rng_below(&g->r, g->npeople)]);
    /* OpenDJ has no macros: no "($attr.uid)" (10) nor "($dn)" terms */
    switch (acreG_rng_below(&g->r, g->macro                            ? 13
                                   : g->c->variant == ACREG_ACI_OPENDJ ? 10
                                                                       : 11)) {
    case 0:
    case 1:
        return "ldap:///anyone";
    case 2:
        return "ldap:///all";
    case 3:
        return "ldap:///self";
    case 4:
        return "ldap:///parent";
    case 5:
    case 6:
        return fmt(g, "ldap:///%s", person(g));
    case 7: {
        char c0 = names[acreG_rng_below(&g->r, g->npeople)][0];
        return fmt(g, "ldap:///uid=%c*,%s", c0, ous[acreG_rng_below(&g->r, 3)]);
    }
    case 8:
        /* 389 reads "(description=on (call))" as slapi_str2filter does;
         * OpenDJ refuses the ACI */
        if (g->c->variant == ACREG_ACI_389 && acreG_rng_pct(&g->r, 12))
            return "ldap:///" PEOPLE "??sub?(description=on (call))";
        return fmt(g, "ldap:///" PEOPLE "??%s",
                   PICK(g, ((const char *const[]){
                               "sub?(departmentNumber=42)", "one?(sn=B)",
                               "sub?(mail=*)", "base?(objectClass=*)",
                               "sub?(sn=B*)", "sub?(sn=*b)", "sub"})));
    case 9: {
        const char *p1 = person(g);
        return fmt(g, "ldap:///%s || ldap:///%s", p1, person(g));
    }
    case 10: /* the value as a DN part, or the whole DN */
        return acreG_rng_pct(&g->r, 60) ? "ldap:///uid=($attr.uid)," PEOPLE
                                        : "ldap:///($attr.manager)";
    case 11:
        if (g->macro == 2)
            break;
        return "ldap:///($dn)," SFX;
    default:
        if (g->macro == 2)
            break;
        return fmt(g, "ldap:///uid=%s,[$dn]," SFX,
                   names[acreG_rng_below(&g->r, g->npeople)]);
    }
    /* a "($dn)" inside "ou=": the subject takes it the same way */
    return fmt(g, "ldap:///uid=%s,ou=($dn)," SFX,
               names[acreG_rng_below(&g->r, g->npeople)]);
}

static const char *
group_term(struct gen *g)
{
    unsigned k = acreG_rng_below(&g->r, g->macro ? 6 : 5);

    if (k < 2)
        return fmt(g, "ldap:///%s", group_dn(g, acreG_rng_below(&g->r, 3)));
    if (k == 2)
        return "ldap:///cn=u1," GROUPS;
    if (k == 3)
        return "ldap:///cn=dyn," GROUPS;
    if (k == 4)
        return fmt(g, "ldap:///%s || ldap:///cn=u1," GROUPS,
                   group_dn(g, acreG_rng_below(&g->r, g->ngroups)));
    return g->macro == 2 ? "ldap:///cn=g1,ou=groups," SFX
                         : "ldap:///cn=g1,ou=groups,[$dn]," SFX;
}

static const char *
op(struct gen *g, unsigned ne_pct)
{
    return acreG_rng_pct(&g->r, ne_pct) ? "!=" : "=";
}

/* Values 389 stores and reads its own way: orderings on keywords that
 * take none, ip, ssf and dayofweek text as its C string code reads it,
 * userattr levels as strtok cuts them, a URL scope it cannot read. */
static const char *
odd_atom_389(struct gen *g)
{
    const char *o = op(g, 20);
    const char *ord = PICK(g, ((const char *const[]){">=", "<="}));

    switch (acreG_rng_below(&g->r, 7)) {
    case 0: {
        static const char *const kw[][2] = {
            {"userdn", "ldap:///anyone"},
            {"groupdn", "ldap:///cn=staff," SFX},
            {"userattr", "manager#USERDN"},
            {"ip", "127.0.0.1"},
            {"dns", "localhost"},
            {"dayofweek", "thu"},
            {"authmethod", "none"},
            {"roledn", "ldap:///anyone"}};
        unsigned i = acreG_rng_below(&g->r, 8);
        if (acreG_rng_pct(&g->r, 15)) /* a text with no '=': no one */
            return fmt(
                g, "%s%s\"ldap:///%s\"",
                PICK(g, ((const char *const[]){"userdn", "groupdn", "roledn"})),
                o, PICK(g, ((const char *const[]){"nobody", "all"})));
        return fmt(g, "%s%s\"%s\"", kw[i][0], ord, kw[i][1]);
    }
    case 1:
    case 2:
        return fmt(
            g, "ip%s\"%s\"", o,
            PICK(g, ((const char *const[]){
                        "127.0.0.*, 127.0.0.2", "127.0.0.2, 127.0.0.*",
                        "*.0.0.1", "10.*.0.7", "126.256.0.1", "127.0.0.1.5",
                        "10.0.0.9+255.x", "127.0", "0.0.0.0+0.0.0.0, 10.0.0.1",
                        " 127.0.0.1", "10.0.0.7 + 255.0.0.0", "localhost",
                        "::/1, ::1", "fe80::/10,::1/127", "10.0.0.*,10.0.0.8",
                        "*", "127.*.*.1"})));
    case 3:
        return fmt(g, "ssf%s\"%s\"",
                   PICK(g, ((const char *const[]){">=", "<=", "=", "!="})),
                   PICK(g, ((const char *const[]){"high", "-5", "0x10", " 256 ",
                                                  "4294967552", "128abc"})));
    case 4:
        return fmt(
            g, "dayofweek%s\"%s\"", o,
            PICK(g, ((const char *const[]){"sunday", "Thursday, Friday", "xyz",
                                           "MONTUEWED", "saturday sunday"})));
    case 5:
        return fmt(
            g, "userattr%s\"%s\"", o,
            PICK(g,
                 ((const char *const[]){
                     "manager", "parent[0, 1].manager#USERDN",
                     "parent[1 ].manager#USERDN", "parent[].manager#USERDN",
                     "parent[01,2].manager#USERDN", "parent[1]manager#USERDN",
                     "nosuchattr#USERDN", "parent[0,12].seeAlso#GROUPDN"})));
    default:
        return fmt(g, "%s%s\"ldap:///" SFX "??tree?(objectClass=*)\"",
                   acreG_rng_pct(&g->r, 50) ? "userdn" : "groupdn", o);
    }
}

static const char *
bind_atom(struct gen *g)
{
    unsigned k = acreG_rng_below(&g->r, 100);
    const char *o15 = op(g, 15), *o20 = op(g, 20);
    /* '<' and '>' with the spaces 389's rule scanner wants */
    const char *cmp =
        PICK(g, ((const char *const[]){">=", "<=", "=", "!=", " > ", " < "}));

    if (g->c->variant == ACREG_ACI_389 && acreG_rng_pct(&g->r, 6))
        return odd_atom_389(g);

    if (k < 40)
        return fmt(g, "userdn%s\"%s\"", o15, userdn_term(g));
    /* 389's groupdn and roledn take "anyone" (everyone; an anonymous
     * requester only when it comes first) */
    if (k < 60 && g->c->variant == ACREG_ACI_389 && acreG_rng_pct(&g->r, 10))
        return fmt(g, "%s%s\"%s\"", k < 50 ? "groupdn" : "roledn", o15,
                   PICK(g, ((const char *const[]){
                               "ldap:///anyone",
                               "ldap:///cn=u1," GROUPS " || ldap:///anyone",
                               "ldap:///cn=mrole," SFX " || ldap:///anyone"})));
    if (k < 58)
        return fmt(g, "groupdn%s\"%s\"", o15, group_term(g));
    if (k < 65 && g->c->variant == ACREG_ACI_OPENDJ) /* no roledn */
        return fmt(g, "groupdn%s\"%s\"", o15, group_term(g));
    if (k < 65)
        return fmt(g, "roledn%s\"ldap:///cn=%s," SFX "\"", o15,
                   PICK(g, ((const char *const[]){"mrole", "frole", "nrole",
                                                  "srole"})));
    if (k < 77 && g->c->variant == ACREG_ACI_OPENDJ) /* no #ROLEDN */
        return fmt(g, "userattr%s\"%s\"", o15,
                   PICK(g, ((const char *const[]){
                               "manager#USERDN", "seeAlso#GROUPDN",
                               "departmentNumber#42", "labeledURI#LDAPURL",
                               "parent[0,1].manager#USERDN",
                               "parent[1].seeAlso#GROUPDN"})));
    if (k < 77 && acreG_rng_pct(&g->r, 15)) /* 389's groupdnattr URLs */
        return fmt(g, "groupdnattr%s\"%s\"", o15,
                   PICK(g, ((const char *const[]){
                               "ldap:///" SFX "?seeAlso?sub",
                               "ldap:///" GROUPS "?seeAlso",
                               "ldap:///" PEOPLE "?seeAlso", "ldap:///" SFX,
                               "ldap:///" SFX "?uniqueMember?sub"})));
    if (k < 77)
        return fmt(
            g, "userattr%s\"%s\"", o15,
            PICK(g,
                 ((const char *const[]){
                     "manager#USERDN", "seeAlso#GROUPDN", "nsRoleDN#ROLEDN",
                     "labeledURI#LDAPURL", "departmentNumber#42",
                     "parent[0,1].manager#USERDN", "parent[1].seeAlso#GROUPDN",
                     "member#SELFDN", "parent[0,1].manager#SELFDN"})));
    if (k < 82)
        return fmt(g, "authmethod%s\"%s\"", o15,
                   PICK(g, ((const char *const[]){"none", "simple", "ssl",
                                                  "sasl EXTERNAL"})));
    if (k < 86)
        return fmt(g, "ssf%s\"%s\"", cmp,
                   PICK(g, ((const char *const[]){"0", "56", "128", "256"})));
    if (k < 90)
        return fmt(
            g, "ip%s\"%s\"", o20,
            PICK(g, ((const char *const[]){"127.0.0.1", "127.0.0.*", "10.0.0.*",
                                           "::1", "127.*"})));
    if (k < 93)
        return fmt(g, "dns%s\"%s\"", o20,
                   PICK(g, ((const char *const[]){
                               "localhost", "*.example.com", "*", "*host",
                               "*localhost", "*.localhost", "LOCALHOST"})));
    if (k < 96)
        return fmt(g, "dayofweek%s\"%s\"", o20,
                   PICK(g, ((const char *const[]){"sun,mon,tue,wed,thu,fri,sat",
                                                  "mon,tue", "wed", "sat,sun",
                                                  "thu,fri"})));
    return fmt(g, "timeofday%s\"%s\"", cmp,
               PICK(g, ((const char *const[]){"0000", "0800", "1200", "1730",
                                              "2359"})));
}

static const char *
bind_rule(struct gen *g, unsigned depth)
{
    unsigned k = depth ? acreG_rng_below(&g->r, 100) : 100;

    if (k >= 42)
        return bind_atom(g);
    const char *l = bind_rule(g, depth - 1);
    const char *r = k < 35 ? bind_rule(g, depth - 1) : bind_atom(g);
    return fmt(g,
               k < 20   ? "(%s and %s)"
               : k < 35 ? "(%s or %s)"
                        : "(%s and not %s)",
               l, r);
}

static const char *
rights(struct gen *g)
{
    return PICK(g, ((const char *const[]){
                       "read,search", "read,search", "read,search", "read",
                       "search", "read,search,compare", "all", "compare",
                       "write", "read,search,write", "add,delete", "selfwrite",
                       "proxy", "read,search,proxy"}));
}

static const char *
perm(struct gen *g)
{
    int deny = acreG_rng_pct(&g->r, 25);
    const char *b = acreG_rng_pct(&g->r, 8)
                        ? fmt(g, "not %s", bind_atom(g))
                        : bind_rule(g, acreG_rng_below(&g->r, 3));

    return fmt(g, "%s (%s) %s;", deny ? "deny" : "allow", rights(g), b);
}

/* Holder choices: its DN, and whether people / groups are below it. */
struct holder {
    const char *dn;
    int people, groups, suffix;
};

static struct holder
pick_holder(struct gen *g)
{
    unsigned k = acreG_rng_below(&g->r, 100);
    struct holder h = {SFX, 1, 1, 1};

    if (k < 50)
        return h;
    if (k < 70)
        return (struct holder){PEOPLE, 1, 0, 0};
    if (k < 80)
        return (struct holder){GROUPS, 0, 1, 0};
    if (k < 90)
        return (struct holder){ous[1 + acreG_rng_below(&g->r, 2)], 0, 0, 0};
    unsigned p = acreG_rng_below(&g->r, g->npeople);
    return (struct holder){g->people[p], 0, 0, 0};
}

/* A target inside h (or "" for none). */
static const char *
target(struct gen *g, const struct holder *h)
{
    unsigned k = acreG_rng_below(&g->r, 100);
    const char *neg = acreG_rng_pct(&g->r, 15) ? "!=" : "=";

    g->macro = 0;
    if (k < 60)
        return "";
    if (k < 72 && h->suffix && g->c->variant != ACREG_ACI_OPENDJ) {
        /* ($dn) as RDNs (1), or inside "ou=" (2: 389 finds the text
         * before it, with a '*' its text up to the '*' then the rest) */
        static const char *const forms[] = {
            "(target=\"ldap:///($dn)," SFX "\")",
            "(target=\"ldap:///($dn)," SFX "\")",
            "(target=\"ldap:///uid=*,($dn)," SFX "\")",
            "(target=\"ldap:///uid=*,($dn)," SFX "\")",
            "(target=\"ldap:///ou=($dn)," SFX "\")",
            "(target=\"ldap:///uid=*,ou=($dn)," SFX "\")"};
        unsigned f = acreG_rng_below(&g->r, 6);
        g->macro = f < 4 ? 1 : 2;
        return forms[f];
    }
    if (k < 82 && h->people)
        return fmt(g, "(target%s\"ldap:///uid=%s," PEOPLE "\")", neg,
                   acreG_rng_pct(&g->r, 50)
                       ? "*"
                       : fmt(g, "%c*", names[acreG_rng_below(&g->r, 8)][0]));
    if (k < 86 && h->groups)
        return fmt(g, "(target%s\"ldap:///cn=g*," GROUPS "\")", neg);
    if (k < 92)
        return fmt(g, "(target%s\"ldap:///uid=*,%s\")", neg, h->dn);
    /* a macro 389 stores as text: a DN no entry is under */
    if (k < 95 && g->c->variant == ACREG_ACI_389)
        return fmt(
            g, "(target%s\"ldap:///%s,%s\")", neg,
            PICK(g, ((const char *const[]){"($foo)", "[$dn]", "($attr.cn)"})),
            h->dn);
    /* an entry at or below the holder */
    const char *dn = h->dn;
    if (h->people)
        dn = ous[acreG_rng_below(&g->r, 3)];
    else if (h->groups)
        dn = group_dn(g, 0);
    return fmt(g, "(target%s\"ldap:///%s\")", neg, dn);
}

static const char *
targetattr(struct gen *g)
{
    unsigned k = acreG_rng_below(&g->r, 100);
    const char *neg = acreG_rng_pct(&g->r, 15) ? "!=" : "=";

    if (k < 25)
        return "";
    /* OpenDJ: "+" (operational attributes), names it does not know */
    if (g->c->variant == ACREG_ACI_OPENDJ && acreG_rng_pct(&g->r, 25))
        return fmt(g, "(targetattr%s\"%s\")", neg,
                   PICK(g, ((const char *const[]){"+", "* || +", "aci || cn",
                                                  "cn || +", "noSuchAttr",
                                                  "noSuchAttr || mail"})));
    if (k < 50)
        return fmt(g, "(targetattr%s\"*\")", neg);
    unsigned n = 1 + acreG_rng_below(&g->r, 3);
    unsigned first = acreG_rng_below(&g->r, NATTR_NAMES);
    unsigned step = 1 + acreG_rng_below(&g->r, NATTR_NAMES - 1);
    char *list = fmt(g, "%s", attr_names[first]);
    for (unsigned i = 1; i < n; i++) /* distinct: NATTR_NAMES is prime */
        list = fmt(g, "%s || %s", list,
                   attr_names[(first + i * step) % NATTR_NAMES]);
    return fmt(g, "(targetattr%s\"%s\")", neg, list);
}

static const char *
targetfilter(struct gen *g)
{
    if (!acreG_rng_pct(&g->r, 20))
        return "";
    const char *neg = acreG_rng_pct(&g->r, 20) ? "!=" : "=";
    return fmt(
        g, "(targetfilter%s\"%s\")", neg,
        PICK(g, ((const char *const[]){
                    "(departmentNumber=42)", "(objectClass=groupOfNames)",
                    "(|(sn=A)(mail=*))", "(!(description=*))",
                    "(&(objectClass=inetOrgPerson)(telephoneNumber=*))",
                    "(uid=b*)"})));
}

static const char *
targetscope(struct gen *g)
{
    if (g->c->variant != ACREG_ACI_OPENDJ || !acreG_rng_pct(&g->r, 15))
        return "";
    return fmt(g, "(targetscope=\"%s\")",
               PICK(g, ((const char *const[]){"base", "onelevel", "subtree",
                                              "subordinate"})));
}

static void
add_aci(struct gen *g, unsigned idx)
{
    struct holder h = pick_holder(g);
    struct acreG_aci_entry *e = NULL;

    for (unsigned i = 0; i < g->c->nentries; i++)
        if (!strcmp(g->c->entries[i].dn, h.dn))
            e = &g->c->entries[i];
    if (!e)
        return;
    const char *t = target(g, &h);
    const char *ta = targetattr(g);
    const char *tf = targetfilter(g);
    const char *ts = targetscope(g);
    /* targattrfilters: write constraints, a name-less targetattr to reads */
    const char *taf =
        acreG_rng_pct(&g->r, 8)
            ? PICK(g, ((const char *const[]){
                          "(targattrfilters=\"add=title:(title=*eng*)\")",
                          "(targattrfilters=\"add=description:(description=*)"
                          ", del=description:(description=*)\")",
                          "(targattrfilters=\"del=sn:(sn=A) && cn:(cn=*)\")"}))
            : "";
    const char *p1 = perm(g);
    if (idx == 1 && acreG_rng_pct(&g->r, 75)) { /* a broad read rule */
        h = (struct holder){SFX, 1, 1, 1};
        e = &g->c->entries[0];
        t = tf = ts = taf = "";
        g->macro = 0;
        ta = PICK(g, ((const char *const[]){
                         "(targetattr=\"*\")",
                         "(targetattr!=\"telephoneNumber || mail\")",
                         "(targetattr=\"cn || sn || uid || objectClass || "
                         "mail || description\")"}));
        p1 = fmt(
            g, "allow (read,search,compare) %s;",
            PICK(g, ((const char *const[]){
                        "userdn=\"ldap:///anyone\"", "userdn=\"ldap:///all\"",
                        "(userdn=\"ldap:///all\" or ip=\"127.0.0.1\")",
                        "groupdn=\"ldap:///cn=dyn," GROUPS "\""})));
    }
    /* 389 evaluates the last of several ACL texts, with the rights and
     * allow / deny kinds of all */
    const char *first =
        g->c->variant == ACREG_ACI_389 && idx != 1 && acreG_rng_pct(&g->r, 6)
            ? fmt(g, "(version 3.0; acl \"aci-%u-first\"; %s)", idx, perm(g))
            : "";
    const char *v = fmt(g, "%s%s%s%s%s%s(version 3.0; acl \"aci-%u\"; %s", t,
                        ta, tf, ts, taf, first, idx, p1);
    if (acreG_rng_pct(&g->r, 20))
        v = fmt(g, "%s %s", v, perm(g));
    v = fmt(g, "%s)", v);
    char **a = talloc_realloc(g->c, e->acis, char *, e->nacis + 1);
    uint8_t *o = talloc_realloc(g->c, e->omit_aci, uint8_t, e->nacis + 1);
    if (!a || !o) {
        g->oom = 1;
        return;
    }
    e->acis = a;
    e->omit_aci = o;
    a[e->nacis] = talloc_strdup(g->c, v);
    o[e->nacis++] = 0;
}

/* ------------------------------------------------------------------------
 * Requesters and searches
 */

static void
add_who(struct gen *g, const char *label, const char *dn, const char *method)
{
    struct acreG_aci_case *c = g->c;
    struct acreG_aci_who *v =
        talloc_realloc(c, c->rq, struct acreG_aci_who, c->nrq + 1);

    if (!v) {
        g->oom = 1;
        return;
    }
    c->rq = v;
    struct acreG_aci_who *w = &v[c->nrq++];
    w->label = talloc_strdup(c, label);
    w->bind_dn = dn ? talloc_strdup(c, dn) : NULL;
    w->auth_method = method;
    w->ssf = acreG_rng_pct(&g->r, 80) ? 0 : 256;
    w->ip = PICK(g, ((const char *const[]){"127.0.0.1", "127.0.0.1",
                                           "127.0.0.1", "10.0.0.7", "::1"}));
    w->dns = !acreG_rng_pct(&g->r, 85)  ? NULL
             : acreG_rng_pct(&g->r, 90) ? "localhost"
                                        : "a.localhost";
    w->time = BASE_TIME + (int64_t)acreG_rng_below(&g->r, 7) * 86400 +
              (int64_t)acreG_rng_below(&g->r, 24 * 60) * 60;
    w->proxied_dn = NULL;
}

static void
add_requesters(struct gen *g)
{
    add_who(g, "anonymous", NULL, "none");
    for (unsigned i = 0; i < g->npeople; i++)
        add_who(g, names[i], g->people[i], "simple");
    unsigned p = acreG_rng_below(&g->r, g->npeople);
    add_who(g, fmt(g, "%s-sasl", names[p]), g->people[p], "sasl EXTERNAL");
    g->c->rq[g->c->nrq - 1].ssf = 256;
    add_who(g, "rootdn", ACREG_ACI_ROOTDN, "simple");
    /* proxied authorization: a person as another, the directory manager
     * as a person, an anonymous connection as a person, a person as
     * anonymous ("") */
    unsigned q = acreG_rng_below(&g->r, g->npeople);
    p = (q + 1 + acreG_rng_below(&g->r, g->npeople - 1)) % g->npeople;
    add_who(g, fmt(g, "%s-as-%s", names[p], names[q]), g->people[p], "simple");
    g->c->rq[g->c->nrq - 1].proxied_dn = talloc_strdup(g->c, g->people[q]);
    add_who(g, fmt(g, "rootdn-as-%s", names[q]), ACREG_ACI_ROOTDN, "simple");
    g->c->rq[g->c->nrq - 1].proxied_dn = talloc_strdup(g->c, g->people[q]);
    add_who(g, fmt(g, "anonymous-as-%s", names[q]), NULL, "none");
    g->c->rq[g->c->nrq - 1].proxied_dn = talloc_strdup(g->c, g->people[q]);
    add_who(g, fmt(g, "%s-as-anonymous", names[p]), g->people[p], "simple");
    g->c->rq[g->c->nrq - 1].proxied_dn = "";
}

static const char *
filter_item(struct gen *g)
{
    const char *n = names[acreG_rng_below(&g->r, g->npeople)];

    switch (acreG_rng_below(&g->r, 16)) {
    case 0:
        return "(cn=*)";
    case 14: /* items 389's back end rewrites, or refuses alone */
    case 15:
        return PICK(g, ((const char *const[]){
                           "(hasSubordinates=TRUE)", "(hasSubordinates=false)",
                           "(hasSubordinates=*)", "(numSubordinates=*)",
                           "(numSubordinates>=1)", "(numSubordinates>=0)",
                           "(numSubordinates=2)", "(numSubordinates=0)",
                           "(numSubordinates<=2)", "(hasSubordinates=yes)",
                           "(2.5.18.9=TRUE)", "(numSubordinates=-1)",
                           "(&(numSubordinates=*)(numSubordinates>=1))"}));
    case 12: /* extensible items: 389 threads access_check_done */
        return fmt(g, "(cn:caseIgnoreMatch:=%s)", n);
    case 13:
        return fmt(g, "(sn:caseIgnoreOrderingMatch:=%c)", n[0] - 'a' + 'A');
    case 1:
        return fmt(g, "(uid=%s)", n);
    case 2:
        return fmt(g, "(sn=%c)", n[0] - 'a' + 'A');
    case 3:
        return "(mail=*)";
    case 4:
        return "(objectClass=inetOrgPerson)";
    case 5:
        return "(objectClass=groupOfNames)";
    case 6:
        return "(departmentNumber=42)";
    case 7:
        return "(telephoneNumber=*)";
    case 8: /* and names 389's schema does not know, options it has none
             * of: no attribute, once searchable */
        return PICK(g,
                    ((const char *const[]){
                        "(description=*)", "(description=*)", "(description=*)",
                        "(nosuchattr=x)", "(nosuchattr=*)", "(1.2.3.4=*)",
                        "(nosuchattr:caseExactMatch:=x)", "(cn;x-foo=*)",
                        "(description;x-foo=*)"}));
    case 9:
        return fmt(g, "(cn=%c*)", n[0]);
    case 10:
        return fmt(g, "(mail=%s@example.com)", n);
    default:
        return "(objectClass=*)";
    }
}

static const char *
filter(struct gen *g, unsigned depth)
{
    unsigned k = depth ? acreG_rng_below(&g->r, 100) : 100;

    if (k >= 50)
        return filter_item(g);
    const char *l = filter(g, depth - 1);
    if (k >= 40)
        return fmt(g, "(!%s)", l);
    const char *r = filter(g, depth - 1);
    return fmt(g, k < 20 ? "(&%s%s)" : "(|%s%s)", l, r);
}

static void
add_search(struct gen *g)
{
    struct acreG_aci_case *c = g->c;
    struct acreG_aci_search *v = talloc_realloc(
        c, c->searches, struct acreG_aci_search, c->nsearches + 1);

    if (!v) {
        g->oom = 1;
        return;
    }
    c->searches = v;
    struct acreG_aci_search *s = &v[c->nsearches++];
    memset(s, 0, sizeof(*s));
    unsigned k = acreG_rng_below(&g->r, 100);
    s->base = k < 50   ? SFX
              : k < 70 ? PEOPLE
              : k < 80 ? GROUPS
              : k < 95 ? person(g)
                       : "uid=nobody," PEOPLE;
    k = acreG_rng_below(&g->r, 100);
    s->base = talloc_strdup(c, s->base);
    s->scope = k < 60 ? 2 : k < 85 ? 1 : 0;
    s->filter = talloc_strdup(c, filter(g, acreG_rng_below(&g->r, 3)));
    s->attrs = talloc_array(c, const char *, 4);
    if (!s->attrs || !s->filter) {
        g->oom = 1;
        return;
    }
    k = acreG_rng_below(&g->r, 100);
    if (k < 30)
        return;
    if (k < 40)
        s->attrs[s->nattrs++] = "*";
    else if (k < 45) /* OpenDJ: "+" half of the time */
        s->attrs[s->nattrs++] =
            g->c->variant == ACREG_ACI_OPENDJ && (k & 1) ? "+" : "1.1";
    else
        for (unsigned i = 1 + acreG_rng_below(&g->r, 3); i > 0; i--)
            s->attrs[s->nattrs++] =
                acreG_rng_pct(&g->r, 5)
                    ? "aci"
                    : attr_names[acreG_rng_below(&g->r, NATTR_NAMES)];
}

/* ------------------------------------------------------------------------
 * The case
 */

int
acreG_aci_case_new(void *mem_ctx, uint64_t seed, int variant,
                   struct acreG_aci_case **out)
{
    struct acreG_aci_case *c = talloc_zero(mem_ctx, struct acreG_aci_case);
    struct gen g;

    if (!c)
        return -1;
    memset(&g, 0, sizeof(g));
    g.c = c;
    g.ctx = talloc_new(c);
    c->seed = seed;
    c->variant = variant;
    acreG_rng_seed(&g.r, seed ^ 0xac1ac1ac1ull);
    add_directory(&g);
    unsigned n = 3 + acreG_rng_below(&g.r, 6);
    for (unsigned i = 0; i < n; i++)
        add_aci(&g, i + 1);
    add_requesters(&g);
    for (unsigned i = 6 + acreG_rng_below(&g.r, 5); i > 0; i--)
        add_search(&g);
    talloc_free(g.ctx);
    if (g.oom) {
        talloc_free(c);
        return -1;
    }
    *out = c;
    return 0;
}

char *
acreG_aci_ldif(void *ctx, const struct acreG_aci_case *c)
{
    char *s = talloc_strdup(ctx, "");

    for (unsigned i = 0; s && i < c->nentries; i++) {
        const struct acreG_aci_entry *e = &c->entries[i];
        if (e->omit)
            continue;
        s = talloc_asprintf_append_buffer(s, "dn: %s\n", e->dn);
        for (unsigned j = 0; s && j < e->nlines; j++)
            s = talloc_asprintf_append_buffer(s, "%s\n", e->lines[j]);
        for (unsigned j = 0; s && j < e->nacis; j++)
            if (!e->omit_aci[j])
                s = talloc_asprintf_append_buffer(s, "aci: %s\n", e->acis[j]);
        if (s)
            s = talloc_asprintf_append_buffer(s, "\n");
    }
    return s;
}

unsigned
acreG_aci_count(const struct acreG_aci_case *c)
{
    unsigned n = 0;

    for (unsigned i = 0; i < c->nentries; i++)
        for (unsigned j = 0; !c->entries[i].omit && j < c->entries[i].nacis;
             j++)
            n += !c->entries[i].omit_aci[j];
    return n;
}

char *
acreG_aci_who_text(void *ctx, const struct acreG_aci_who *w)
{
    return talloc_asprintf(
        ctx, "%s: dn=%s auth=%s ssf=%u ip=%s dns=%s time=%lld%s%s", w->label,
        w->bind_dn ? w->bind_dn : "(anonymous)",
        w->auth_method ? w->auth_method : "-", w->ssf, w->ip ? w->ip : "-",
        w->dns ? w->dns : "-", (long long)w->time,
        w->proxied_dn ? " proxied=" : "", w->proxied_dn ? w->proxied_dn : "");
}

char *
acreG_aci_search_text(void *ctx, const struct acreG_aci_search *s)
{
    static const char *const scopes[] = {"base", "one", "sub", "children"};
    char *t = talloc_asprintf(ctx, "base=%s scope=%s filter=%s attrs=", s->base,
                              scopes[s->scope & 3], s->filter);

    for (unsigned i = 0; t && i < s->nattrs; i++)
        t = talloc_asprintf_append(t, "%s%s", i ? "," : "", s->attrs[i]);
    return t;
}
