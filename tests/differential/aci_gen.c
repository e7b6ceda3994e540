/*
 * aci_gen.c -- the seeded generator of ACI cases for the 389-DS
 * differential suite (see aci_gen.h for what a case holds).
 *
 * The directory is built in memory first (struct gen: entries with their
 * LDIF bodies), so that references (manager, seeAlso, members, roles) and
 * the `aci` values of a holder can be added once every entry exists; it is
 * written parents first.  Everything is drawn from the case's own
 * dt_rng: no time, no addresses, no global state.
 */
#include "aci_gen.h"

#include "dt_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUFFIX "dc=example,dc=com"
#define MAXENT 96
#define MAXCOS 6

enum kind {
    K_ROOT,
    K_OU,
    K_PERSON,
    K_DEVICE,
    K_GROUP,
    K_DYN,
    K_ROLE,
    K_COS /* CoS definitions, templates, their containers and profiles */
};

struct ent {
    char *dn;
    char *name; /* uid of a person, cn of the others */
    int parent;
    enum kind kind;
    struct dt_str body;
    int memberof; /* a person that may store memberOf (extensibleObject) */
};

struct gen {
    struct dt_rng r;
    struct ent v[MAXENT];
    unsigned n;
    int people[12], ous[4], groups[16], roles[4];
    unsigned npeople, nous, ngroups, nroles;
    int ou_people, ou_groups;
    int ger; /* a get-effective-rights case: writes and value filters */
    /* proxied authorization: the people an ACI grants proxy, -1 none */
    int proxier[2];
    int top;    /* the entry holding the broad ACI (place_acis) */
    int who[5]; /* the requesters of the searches (write_searches) */
    unsigned nwho;
    /* Class of Service (make_cos): the attributes its definitions supply
     * and a value of each, the people of its own unit (-1: none) */
    const char *cos_attr[MAXCOS], *cos_val[MAXCOS];
    unsigned ncos;
    int cos_unit, cos_people[2];
    unsigned ncos_people;
    /* the filtered role's nsRoleFilter; CoS may supply the type it tests
     * (1), or key classic templates on nsRole (0), never both: 389 2.3
     * then recurses from nsRole to the CoS type and back until its stack
     * overflows (the filter test starts a new vattr context) */
    const char *role_filter;
    int cos_role_type;
};

static const char *const first_names[] = {"alice", "bob",   "carol", "dave",
                                          "erin",  "frank", "grace", "heidi",
                                          "ivan",  "judy"};
static const char *const surnames[] = {"Smith", "Jones", "Lee", "Brown",
                                       "Garcia"};
static const char *const depts[] = {"10", "20", "30"};
static const char *const etypes[] = {"staff", "contractor", "intern"};
/* "Straße", "Zürich": 389 lowercases a code point at a time by its own
 * table, no NFKC, no case folding ("strasse" is another value, another
 * classic CoS template) */
static const char *const places[] = {"Paris", "Berlin", "Oslo", "Straße",
                                     "Zürich"};
static const char *const titles[] = {"engineer", "manager", "clerk"};
/* "remote (eu)": 389 reads a filter's balanced parentheses as a value's
 * (slapi_str2filter), in URLs, role filters and targetfilters alike */
static const char *const descs[] = {"on call", "remote", "part time",
                                    "remote (eu)"};

/* ---- entries ------------------------------------------------------------- */

static void
put(struct ent *e, const char *name, const char *v)
{
    dt_ldif_line(&e->body, name, v, strlen(v));
}

static void
put_classes(struct ent *e, const char *classes)
{
    char buf[256];

    snprintf(buf, sizeof buf, "%s", classes);
    for (char *s = strtok(buf, " "); s; s = strtok(NULL, " "))
        put(e, "objectClass", s);
}

/* new_ent -- an entry named type=value below parent (-1: the suffix). */
static int
new_ent(struct gen *g, int parent, const char *type, const char *value,
        enum kind kind, const char *classes)
{
    struct ent *e;
    struct dt_str dn;

    if (g->n == MAXENT)
        dt_die("aci_gen: too many entries");
    e = &g->v[g->n];
    dt_str_init(&dn);
    if (parent < 0)
        dt_str_puts(&dn, SUFFIX);
    else
        dt_str_printf(&dn, "%s=%s,%s", type, value, g->v[parent].dn);
    e->dn = dt_str_take(&dn);
    e->name = dt_strdup(value);
    e->parent = parent;
    e->kind = kind;
    dt_str_init(&e->body);
    put_classes(e, classes);
    put(e, type, value);
    return (int)g->n++;
}

static int
is_below(const struct gen *g, int i, int anc)
{
    for (; i >= 0; i = g->v[i].parent)
        if (i == anc)
            return 1;
    return 0;
}

static int
pick_of(struct gen *g, const int *v, unsigned n)
{
    return v[dt_rng_below(&g->r, n)];
}

static const char *
dn_of(struct gen *g, const int *v, unsigned n)
{
    return g->v[pick_of(g, v, n)].dn;
}

/* ---- the directory ---------------------------------------------------------
 */

static void
make_tree(struct gen *g)
{
    new_ent(g, -1, "dc", "example", K_ROOT, "top domain");
    g->ou_people =
        new_ent(g, 0, "ou", "people", K_OU, "top organizationalUnit");
    g->ous[g->nous++] = g->ou_people;
    g->ous[g->nous++] =
        new_ent(g, g->ou_people, "ou", "eng", K_OU, "top organizationalUnit");
    g->ous[g->nous++] =
        new_ent(g, g->ou_people, "ou", "sales", K_OU, "top organizationalUnit");
    g->ou_groups =
        new_ent(g, 0, "ou", "groups", K_OU, "top organizationalUnit");
}

static void
person_attrs(struct gen *g, struct ent *e, const char *uid)
{
    char buf[128];
    const char *sn = DT_PICK(&g->r, surnames);

    /* types spelt as operators write them, and values with language
     * options: 389 stores each under its schema name, options in lower
     * case, and echoes a requested name as written */
    static const char *const cn_as[] = {"cn", "cn", "cn", "CN", "commonName"};
    static const char *const sn_as[] = {"sn", "sn", "sn", "SN", "surname"};

    snprintf(buf, sizeof buf, "%c%s %s", uid[0] - 32, uid + 1, sn);
    put(e, DT_PICK(&g->r, cn_as), buf);
    if (dt_rng_chance(&g->r, 30)) {
        snprintf(buf, sizeof buf, "%c%s le %s", uid[0] - 32, uid + 1, sn);
        put(e, dt_rng_chance(&g->r, 70) ? "cn;lang-fr" : "CN;Lang-FR", buf);
    }
    put(e, DT_PICK(&g->r, sn_as), sn);
    if (dt_rng_chance(&g->r, 15))
        put(e, "sn;lang-en", sn);
    if (dt_rng_chance(&g->r, 70)) {
        snprintf(buf, sizeof buf, "%c%s", uid[0] - 32, uid + 1);
        put(e, "givenName", buf);
    }
    snprintf(buf, sizeof buf, "%s@example.com", uid);
    if (dt_rng_chance(&g->r, 80))
        put(e, "mail", buf);
    snprintf(buf, sizeof buf, "+1 555 01%02u", dt_rng_below(&g->r, 100));
    if (dt_rng_chance(&g->r, 60))
        put(e, "telephoneNumber", buf);
    if (dt_rng_chance(&g->r, 50))
        put(e, "description", DT_PICK(&g->r, descs));
    if (dt_rng_chance(&g->r, 25))
        put(e, "description;lang-en", DT_PICK(&g->r, descs));
    if (dt_rng_chance(&g->r, 8)) /* an option 389 keeps as any other */
        put(e, "description;x-foo", DT_PICK(&g->r, descs));
    if (dt_rng_chance(&g->r, 40))
        put(e, "title", DT_PICK(&g->r, titles));
    if (dt_rng_chance(&g->r, 80))
        put(e, "departmentNumber", DT_PICK(&g->r, depts));
    if (dt_rng_chance(&g->r, 60))
        put(e, "employeeType", DT_PICK(&g->r, etypes));
    if (dt_rng_chance(&g->r, 50))
        put(e, "l", DT_PICK(&g->r, places));
    snprintf(buf, sizeof buf, "pw-%s", uid);
    put(e, "userPassword", buf);
    /* 389's account inactivation (an operational type of its own schema):
     * a bind as an entry whose nsAccountLock is "true" is refused (53) */
    if (dt_rng_chance(&g->r, 12)) {
        static const char *const lock[] = {"true", "false", "TRUE", "False"};
        put(e, "nsAccountLock", DT_PICK(&g->r, lock));
    }
}

static void
make_people(struct gen *g)
{
    unsigned n = (unsigned)dt_rng_range(&g->r, 5, 9);
    unsigned start = dt_rng_below(&g->r, DT_NELEM(first_names));

    for (unsigned i = 0; i < n; i++) {
        const char *uid = first_names[(start + i) % DT_NELEM(first_names)];
        int home = dt_rng_chance(&g->r, 50) ? g->ou_people
                                            : pick_of(g, g->ous, g->nous);
        /* some store memberOf, as 389's memberOf plugin writes it */
        int mo = dt_rng_chance(&g->r, 30);
        /* some name only their most specific class: 389 adds the
         * superclasses, after the classes written */
        int bare = dt_rng_chance(&g->r, 25);
        /* some are POSIX accounts: integers 389 orders by syntax */
        int posix = dt_rng_chance(&g->r, 35);
        char classes[128];
        snprintf(classes, sizeof classes, "%s%s",
                 bare ? (mo ? "top inetOrgPerson extensibleObject"
                            : "inetOrgPerson top")
                 : mo ? "top person organizationalPerson inetOrgPerson "
                        "extensibleObject"
                      : "top person organizationalPerson inetOrgPerson",
                 posix ? " posixAccount" : "");
        int p = new_ent(g, home, "uid", uid, K_PERSON, classes);
        g->v[p].memberof = mo;
        person_attrs(g, &g->v[p], uid);
        if (posix) {
            static const char *const uids[] = {"5",    "42",   "500",   "999",
                                               "1000", "1001", "10000", "-3"};
            static const char *const gids[] = {"10", "99", "100", "1000"};
            char home_dir[64];
            snprintf(home_dir, sizeof home_dir, "/home/%s", uid);
            put(&g->v[p], "uidNumber", DT_PICK(&g->r, uids));
            put(&g->v[p], "gidNumber", DT_PICK(&g->r, gids));
            put(&g->v[p], "homeDirectory", home_dir);
        }
        g->people[g->npeople++] = p;
    }
    for (unsigned i = 0, nd = dt_rng_below(&g->r, 3); i < nd; i++) {
        char name[16];
        int owner = pick_of(g, g->people, g->npeople);
        snprintf(name, sizeof name, "dev%u", i + 1);
        int d = new_ent(g, owner, "cn", name, K_DEVICE, "top device");
        put(&g->v[d], "owner", g->v[owner].dn);
        if (dt_rng_chance(&g->r, 50))
            put(&g->v[d], "l", DT_PICK(&g->r, places));
    }
}

static int
new_group(struct gen *g, const char *name, enum kind kind, const char *cls)
{
    int i = new_ent(g, g->ou_groups, "cn", name, kind, cls);
    g->groups[g->ngroups++] = i;
    if (dt_rng_chance(&g->r, 40))
        put(&g->v[i], "owner", dn_of(g, g->people, g->npeople));
    return i;
}

/* A chain c1 > c2 > ... > cD (each a member of the one before) with a
 * person at the bottom; sometimes the last contains the first. */
static void
make_chain(struct gen *g)
{
    unsigned depth = (unsigned)dt_rng_range(&g->r, 2, 7);
    int first = -1, prev = -1;

    for (unsigned i = 0; i < depth; i++) {
        char name[16];
        snprintf(name, sizeof name, "chain%u", i + 1);
        int c = new_group(g, name, K_GROUP, "top groupOfNames");
        if (prev >= 0)
            put(&g->v[prev], "member", g->v[c].dn);
        if (first < 0)
            first = c;
        prev = c;
    }
    put(&g->v[prev], "member", dn_of(g, g->people, g->npeople));
    if (dt_rng_chance(&g->r, 25))
        put(&g->v[prev], "member", g->v[first].dn);
}

static void
make_static(struct gen *g)
{
    unsigned n = (unsigned)dt_rng_range(&g->r, 2, 4);

    for (unsigned i = 0; i < n; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%u", i + 1);
        int grp = new_group(g, name, K_GROUP, "top groupOfNames");
        unsigned m = (unsigned)dt_rng_range(&g->r, 1, 3);
        for (unsigned j = 0; j < m; j++)
            put(&g->v[grp], "member",
                g->v[g->people[(i * 3 + j) % g->npeople]].dn);
        if (i > 0 && dt_rng_chance(&g->r, 40))
            put(&g->v[grp], "member", g->v[g->groups[0]].dn);
    }
}

static void
make_groups(struct gen *g)
{
    static const char *const urls[] = {
        "ldap:///ou=people," SUFFIX "??sub?(departmentNumber=10)",
        "ldap:///ou=people," SUFFIX "??one?(employeeType=staff)",
        "ldap:///ou=eng,ou=people," SUFFIX "??sub?(objectClass=person)",
        "ldap:///" SUFFIX "??sub?(l=Paris)",
        "ldap:///" SUFFIX "??sub?(l=Par*)",
        "ldap:///" SUFFIX "??sub?(l=par*)",
        "ldap:///" SUFFIX "??sub?(description=remote (eu))",
        "ldap:///" SUFFIX "??sub"};

    make_static(g);
    if (dt_rng_chance(&g->r, 70))
        make_chain(g);
    int u = new_group(g, "staff", K_GROUP, "top groupOfUniqueNames");
    for (unsigned j = 0, m = (unsigned)dt_rng_range(&g->r, 1, 3); j < m; j++)
        put(&g->v[u], "uniqueMember",
            g->v[g->people[(j * 2 + 1) % g->npeople]].dn);
    int d = new_group(g, "dyn", K_DYN, "top groupOfURLs");
    put(&g->v[d], "memberURL", DT_PICK(&g->r, urls));
}

static void
make_roles(struct gen *g)
{
    static const char *const filters[] = {"(departmentNumber=20)",
                                          "(employeeType=staff)", "(l=Oslo)",
                                          "(description=remote (eu))"};
    int m = new_ent(g, 0, "cn", "managed", K_ROLE,
                    "top LDAPsubentry nsRoleDefinition "
                    "nsSimpleRoleDefinition nsManagedRoleDefinition");
    int f = new_ent(g, 0, "cn", "filtered", K_ROLE,
                    "top LDAPsubentry nsRoleDefinition "
                    "nsComplexRoleDefinition nsFilteredRoleDefinition");
    g->role_filter = DT_PICK(&g->r, filters);
    put(&g->v[f], "nsRoleFilter", g->role_filter);
    g->roles[g->nroles++] = m;
    g->roles[g->nroles++] = f;
    if (dt_rng_chance(&g->r, 50)) {
        int n = new_ent(g, 0, "cn", "nested", K_ROLE,
                        "top LDAPsubentry nsRoleDefinition "
                        "nsComplexRoleDefinition nsNestedRoleDefinition");
        put(&g->v[n], "nsRoleDN", g->v[m].dn);
        put(&g->v[n], "nsRoleDN", g->v[f].dn);
        g->roles[g->nroles++] = n;
    }
    if (dt_rng_chance(&g->r, 50)) {
        /* nested, reaching the parent of its nsRoleScopeDN: one unit
         * (through an entry that need not exist), all people, or --
         * another suffix -- its own parent's subtree */
        static const char *const scopes[] = {
            "cn=x,ou=eng,ou=people," SUFFIX, "ou=people," SUFFIX,
            "ou=sales,ou=people," SUFFIX, "dc=other,dc=org"};
        int s = new_ent(g, 0, "cn", "scoped", K_ROLE,
                        "top LDAPsubentry nsRoleDefinition "
                        "nsComplexRoleDefinition nsNestedRoleDefinition");
        put(&g->v[s], "nsRoleDN", g->v[m].dn);
        put(&g->v[s], "nsRoleScopeDN", DT_PICK(&g->r, scopes));
        g->roles[g->nroles++] = s;
    }
}

/* put a DN value, written "a=b, c=d" a quarter of the time: 389 stores
 * it without the spaces */
static void
put_dn(struct gen *g, struct ent *e, const char *name, const char *dn)
{
    char buf[512];
    size_t k = 0;

    if (!dt_rng_chance(&g->r, 25) || strlen(dn) * 2 >= sizeof buf) {
        put(e, name, dn);
        return;
    }
    for (const char *c = dn; *c; c++) {
        buf[k++] = *c;
        if (*c == ',')
            buf[k++] = ' ';
    }
    buf[k] = 0;
    put(e, name, buf);
}

/* References between people, groups and roles, once all exist. */
static void
link_people(struct gen *g)
{
    for (unsigned i = 0; i < g->npeople; i++) {
        struct ent *e = &g->v[g->people[i]];
        if (dt_rng_chance(&g->r, 50))
            put_dn(g, e, "manager", g->v[g->people[(i + 1) % g->npeople]].dn);
        if (dt_rng_chance(&g->r, 40))
            put_dn(g, e, "seeAlso", dn_of(g, g->groups, g->ngroups));
        if (dt_rng_chance(&g->r, 35))
            put(e, "nsRoleDN", g->v[g->roles[0]].dn);
        /* up to two distinct groups (389 refuses a repeated value) */
        unsigned n = e->memberof ? dt_rng_below(&g->r, 3) : 0,
                 first = dt_rng_below(&g->r, g->ngroups);
        for (unsigned k = 0; k < n && k < g->ngroups; k++)
            put(e, "memberOf", g->v[g->groups[(first + k) % g->ngroups]].dn);
    }
}

/* ---- ACI values ------------------------------------------------------------
 */

static const char *const attr_pool[] = {"cn",
                                        "sn",
                                        "givenName",
                                        "uid",
                                        "mail",
                                        "telephoneNumber",
                                        "description",
                                        "title",
                                        "departmentNumber",
                                        "employeeType",
                                        "l",
                                        "manager",
                                        "seeAlso",
                                        "member",
                                        "uniqueMember",
                                        "objectClass",
                                        "userPassword",
                                        "ou",
                                        "owner",
                                        "memberURL",
                                        "nsRoleDN",
                                        "memberOf",
                                        "nsRole",
                                        "nsAccountLock",
                                        "aci",
                                        "cn;lang-fr",
                                        "description;lang-en"};

/* What the target part chose, for the bind rules that follow it. */
struct tctx {
    int holder;
    int dn_macro; /* the target has ($dn): 1 as an RDN, 2 in "ou=" */
    int persons;  /* the target names people (for $attr macros) */
};

/* Another entry in holder's subtree (holder itself included). */
static int
below(struct gen *g, int holder)
{
    int c[MAXENT];
    unsigned n = 0;

    for (unsigned i = 0; i < g->n; i++)
        if (is_below(g, (int)i, holder))
            c[n++] = (int)i;
    return c[dt_rng_below(&g->r, n)];
}

/* A wildcard DN pattern inside holder's subtree, or NULL. */
static void
pattern(struct gen *g, struct tctx *t, struct dt_str *out)
{
    const char *h = g->v[t->holder].dn;
    int p = pick_of(g, g->people, g->npeople);
    const char *uid = g->v[p].name;

    switch (dt_rng_below(&g->r, 6)) {
    case 0: /* '*' absorbs the RDNs between uid= and the holder */
        dt_str_printf(out, "uid=*,%s", h);
        t->persons = 1;
        break;
    case 1:
        dt_str_printf(out, "uid=%c*,%s", uid[0], h);
        t->persons = 1;
        break;
    case 2:
        dt_str_printf(out, "uid=*%c,%s", uid[strlen(uid) - 1], h);
        t->persons = 1;
        break;
    case 3:
        dt_str_printf(out, "*=%s,%s", uid, g->v[g->v[p].parent].dn);
        t->persons = 1;
        break;
    case 4:
        dt_str_printf(out, "cn=*,%s", h);
        break;
    default:
        dt_str_printf(out, "ou=%c*,%s", dt_rng_chance(&g->r, 50) ? 'e' : 's',
                      h);
    }
}

static void
target(struct gen *g, struct tctx *t, struct dt_str *out)
{
    struct dt_str dn;
    const char *h = g->v[t->holder].dn;
    const char *op = dt_rng_chance(&g->r, 15) ? "!=" : "=";

    dt_str_init(&dn);
    if (t->holder == 0 && dt_rng_chance(&g->r, 20)) {
        /* whole RDNs, or inside one (389 finds "ou=" in the DN, then
         * "uid=" and ",ou=" after it: acl_match_substr_prefix) */
        static const char *const forms[] = {
            "uid=*,($dn)," SUFFIX,   "uid=*,($dn)," SUFFIX,
            "uid=*,($dn)," SUFFIX,   "($dn)," SUFFIX,
            "($dn)," SUFFIX,         "ou=($dn)," SUFFIX,
            "uid=*,ou=($dn)," SUFFIX};
        unsigned k = dt_rng_below(&g->r, sizeof forms / sizeof *forms);
        dt_str_puts(&dn, forms[k]);
        t->dn_macro = k < 5 ? 1 : 2;
        t->persons = 1;
        op = "=";
    } else if (dt_rng_chance(&g->r, 50) &&
               (is_below(g, g->people[0], t->holder) ||
                is_below(g, g->ou_groups, t->holder))) {
        pattern(g, t, &dn);
    } else {
        int e = below(g, t->holder);
        dt_str_puts(&dn, g->v[e].dn);
        t->persons = g->v[e].kind == K_PERSON;
    }
    if (dn.p && strstr(dn.p, h) == NULL && !t->dn_macro) {
        dt_str_clear(&dn); /* a pattern that left the holder */
        dt_str_puts(&dn, h);
    }
    if (!t->dn_macro && dt_rng_chance(&g->r, 5)) {
        /* a macro 389 stores as text: a DN no entry is under */
        dt_str_clear(&dn);
        dt_str_printf(&dn, "[$dn],%s", h);
        t->persons = 0;
    }
    dt_str_printf(out, "(target%s\"ldap:///%s\")", op, dn.p);
    dt_str_free(&dn);
}

static void
targetattr(struct gen *g, struct dt_str *out)
{
    unsigned n = (unsigned)dt_rng_range(&g->r, 1, 4);
    const char *sep = dt_rng_chance(&g->r, 50) ? " || " : "||";
    const char *used[4];

    /* 389 reads a word that starts with "targetattr" as targetattr
     * (FreeIPA ships "targetattrs") */
    dt_str_printf(out, "(targetattr%s%s\"", dt_rng_chance(&g->r, 5) ? "s " : "",
                  dt_rng_chance(&g->r, 15) ? "!=" : "=");
    if (dt_rng_chance(&g->r, 20)) {
        dt_str_puts(out, "*\")");
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        const char *a = DT_PICK(&g->r, attr_pool);
        int dup = 0;
        for (unsigned j = 0; j < i; j++)
            dup |= !strcmp(used[j], a);
        if (dup) {
            n--, i--;
            continue;
        }
        used[i] = a;
        dt_str_printf(out, "%s%s", i ? sep : "", a);
    }
    /* 389 stops at a "||" ending the list */
    dt_str_puts(out, dt_rng_chance(&g->r, 5) ? " ||\")" : "\")");
}

/* target_to and target_from (moddn's n right), in get-effective-rights
 * cases: DNs of OUs, each with = or != */
static void
moddn_targets(struct gen *g, struct tctx *t, struct dt_str *out)
{
    if (dt_rng_chance(&g->r, 60))
        dt_str_printf(out, "(target_to%s\"ldap:///%s\")",
                      dt_rng_chance(&g->r, 30) ? "!=" : "=",
                      g->v[below(g, t->holder)].dn);
    if (dt_rng_chance(&g->r, 60))
        dt_str_printf(out, "(target_from%s\"ldap:///%s\")",
                      dt_rng_chance(&g->r, 30) ? "!=" : "=",
                      g->v[below(g, t->holder)].dn);
}

static void
targetfilter(struct gen *g, const struct tctx *t, struct dt_str *out)
{
    static const char *const f[] = {"(departmentNumber=10)",
                                    "(employeeType=staff)",
                                    "(objectClass=groupOfNames)",
                                    "(|(l=Paris)(l=Oslo))",
                                    "(!(title=*))",
                                    "(objectClass=inetOrgPerson)",
                                    "(uid=a*)",
                                    "(&(objectClass=person)(mail=*))",
                                    "(memberOf=CN=G1, OU=Groups," SUFFIX ")",
                                    "(manager=*e*)",
                                    "(description=remote (eu))"};

    const char *op = dt_rng_chance(&g->r, 25) ? "!=" : "=";

    /* under a ($dn) target, now and then a filter with its macros (389
     * expands them for each entry: aclutil_evaluate_macro) */
    if (t->dn_macro && dt_rng_chance(&g->r, 60)) {
        const char *who = g->v[pick_of(g, g->people, g->npeople)].name;
        const char *at = t->dn_macro == 2 ? "ou=($dn)" : "($dn)";
        switch (dt_rng_below(&g->r, 4)) {
        case 0:
            dt_str_printf(out,
                          "(targetfilter%s\"(manager=uid=%s,%s," SUFFIX ")\")",
                          op, who, at);
            break;
        case 1:
            dt_str_printf(
                out,
                "(targetfilter%s\"(|(l=Paris)(manager=uid=%s,%s," SUFFIX
                "))\")",
                op, who, at);
            break;
        case 2:
            dt_str_printf(
                out, "(targetfilter%s\"(manager=uid=%s,[$dn]," SUFFIX ")\")",
                op, who);
            break;
        default:
            dt_str_printf(out, "(targetfilter%s\"(!(seeAlso=*%s*))\")", op, at);
        }
        return;
    }
    dt_str_printf(out, "(targetfilter%s\"%s\")", op, DT_PICK(&g->r, f));
}

/* targattrfilters: value constraints of writes, which 389 also counts as
 * a targetattr that names no attribute for reads */
static void
targattrfilters(struct gen *g, struct dt_str *out)
{
    static const char *const f[] = {
        "add=title:(title=*engineer*)",
        "add=description:(description=*), del=description:(description=*)",
        "del=telephoneNumber:(telephoneNumber=+1*) && title:(title=*)",
        "add=l:(l=Paris) && title:(title=*)"};
    /* more for get-effective-rights: types with options in the entries
     * (cn;lang-fr), DN-valued types, several types */
    static const char *const fg[] = {
        "add=cn:(cn=a*)",
        "del=cn:(cn=*)",
        "add=cn:(cn=*), del=cn:(!(cn=*))",
        "add=seeAlso:(seeAlso=*)",
        "del=manager:(manager=*)",
        "add=member:(member=uid=*), del=member:(member=*)",
        "add=description:(description=on*) && cn:(cn=*)",
        "add=title:(!(title=*)), del=title:(title=*)",
        "add=mail:(mail=*@*) && l:(l=*) && title:(title=*)",
        "del=sn:(sn=S*)",
        "add=userPassword:(userPassword=*)",
        "add=memberOf:(memberOf=*)",
        "add=commonName:(!(commonName=*)), del=SN:(!(sn=*))",
        "del=surname:(surname=*) && CN:(cn=*)"};

    dt_str_printf(out, "(targattrfilters%s\"%s\")",
                  dt_rng_chance(&g->r, 15) ? "!=" : "=",
                  g->ger && dt_rng_chance(&g->r, 70) ? DT_PICK(&g->r, fg)
                                                     : DT_PICK(&g->r, f));
}

static void
rights(struct gen *g, struct dt_str *out)
{
    static const char *const common[] = {
        "read,search", "read, search",        "read",         "search",
        "all",         "read,search,compare", "read,compare", "search,compare"};
    static const char *const other[] = {"write",     "add",   "delete",
                                        "selfwrite", "proxy", "compare"};

    /* what get-effective-rights tells beyond read and search */
    static const char *const writes[] = {
        "write",        "add",           "delete",          "selfwrite",
        "write,add",    "add,delete",    "write,delete",    "all",
        "read,write",   "selfwrite,add", "write,selfwrite", "compare,write",
        "search,delete"};

    dt_str_putc(out, '(');
    if (g->ger && dt_rng_chance(&g->r, 60)) {
        dt_str_puts(out, DT_PICK(&g->r, writes));
    } else if (dt_rng_chance(&g->r, 80)) {
        dt_str_puts(out, DT_PICK(&g->r, common));
    } else {
        dt_str_puts(out, DT_PICK(&g->r, other));
        if (dt_rng_chance(&g->r, 50))
            dt_str_puts(out, ",read");
    }
    dt_str_putc(out, ')');
}

static const char *
eq(struct gen *g, unsigned neg_percent)
{
    return dt_rng_chance(&g->r, neg_percent) ? "!=" : "=";
}

static void
userdn(struct gen *g, const struct tctx *t, struct dt_str *out)
{
    static const char *const fixed[] = {
        "ldap:///anyone",
        "ldap:///all",
        "ldap:///self",
        "ldap:///parent",
        "ldap:///uid=*,ou=people," SUFFIX,
        "ldap:///ou=people," SUFFIX "??sub?(departmentNumber=10)",
        "ldap:///ou=people," SUFFIX "??one?(employeeType=staff)",
        "ldap:///" SUFFIX "??sub?(l=Paris)",
        "ldap:///" SUFFIX "??sub?(l=Par*)",
        "ldap:///" SUFFIX "??sub?(l=par*)",
        "ldap:///ou=people," SUFFIX "??sub?(description=remote (eu))",
        "ldap:///" SUFFIX "??sub"};
    const struct ent *p = &g->v[pick_of(g, g->people, g->npeople)];

    dt_str_printf(out, "userdn%s\"", eq(g, 15));
    switch (dt_rng_below(&g->r, 8)) {
    case 0:
    case 1:
    case 2:
        dt_str_puts(out, DT_PICK(&g->r, fixed));
        break;
    case 3:
        dt_str_printf(out, "ldap:///%s", p->dn);
        break;
    case 4: /* "|| ldap:///self" last: 389 caches it across entries */
        dt_str_printf(out, "ldap:///%s || ldap:///%s", p->dn,
                      dt_rng_chance(&g->r, 30)
                          ? "self"
                          : dn_of(g, g->people, g->npeople));
        break;
    case 5:
        dt_str_printf(out, "ldap:///uid=%c*,%s", p->name[0],
                      g->v[p->parent].dn);
        break;
    case 6:
        if (t->dn_macro) {
            dt_str_printf(out,
                          t->dn_macro == 2 ? "ldap:///uid=%s,ou=($dn)," SUFFIX
                                           : "ldap:///uid=%s,($dn)," SUFFIX,
                          p->name);
            break;
        }
        /* fall through */
    default:
        if (t->dn_macro && dt_rng_chance(&g->r, 50))
            /* a URL with macros, its filter too (389 expands the whole
             * URL, then reads it) */
            dt_str_printf(out, t->dn_macro == 2 ? "ldap:///ou=($dn)," SUFFIX
                                                  "??sub?(l=*)"
                                                : "ldap:///($dn)," SUFFIX
                                                  "??sub?(objectClass=person)");
        else if (t->persons && dt_rng_chance(&g->r, 20))
            dt_str_puts(
                out, dt_rng_chance(&g->r, 50)
                         ? "ldap:///ou=people," SUFFIX "??sub?(l=($attr.l))"
                         : "ldap:///" SUFFIX "??sub?(manager=($attr.manager))");
        else if (t->persons && dt_rng_chance(&g->r, 50))
            dt_str_puts(out, dt_rng_chance(&g->r, 60)
                                 ? "ldap:///uid=($attr.uid),ou=people," SUFFIX
                                 : "ldap:///($attr.manager)");
        else
            dt_str_puts(out, "ldap:///self");
    }
    dt_str_putc(out, '"');
}

static void
groupdn(struct gen *g, const struct tctx *t, struct dt_str *out)
{
    const struct ent *grp = &g->v[pick_of(g, g->groups, g->ngroups)];

    dt_str_printf(out, "groupdn%s\"", eq(g, 15));
    if (t->dn_macro == 1 && dt_rng_chance(&g->r, 40))
        dt_str_printf(out, "ldap:///cn=%s,ou=groups,[$dn]," SUFFIX, grp->name);
    else if (dt_rng_chance(&g->r, 20))
        dt_str_printf(out, "ldap:///%s || ldap:///%s", grp->dn,
                      dn_of(g, g->groups, g->ngroups));
    else if (dt_rng_chance(&g->r, 8)) /* everyone; anonymous only first */
        dt_str_printf(out, "%sldap:///anyone",
                      dt_rng_chance(&g->r, 50) ? "" : "ldap:///cn=x || ");
    else
        dt_str_printf(out, "ldap:///%s", grp->dn);
    dt_str_putc(out, '"');
}

static void
userattr(struct gen *g, struct dt_str *out)
{
    static const char *const forms[] = {"manager#USERDN",
                                        "owner#USERDN",
                                        "member#USERDN",
                                        "uniqueMember#USERDN",
                                        "seeAlso#GROUPDN",
                                        "nsRoleDN#ROLEDN",
                                        "departmentNumber#10",
                                        "employeeType#staff",
                                        "l#Paris",
                                        "memberURL#LDAPURL",
                                        "parent[0,1].manager#USERDN",
                                        "parent[1].seeAlso#GROUPDN",
                                        "parent[0,1,2].departmentNumber#20",
                                        "parent[1].owner#USERDN",
                                        "manager#SELFDN",
                                        "owner#SELFDN",
                                        "member#SELFDN",
                                        "parent[0,1].member#SELFDN"};

    dt_str_printf(out, "userattr%s\"%s\"", eq(g, 10), DT_PICK(&g->r, forms));
}

/* Values 389 stores and reads its own way (checked one by one on 389:
 * golden aci-odd-389-bind).  None depends on the day, nor makes 389 stop
 * reading an ip value (its first evaluation then answers Undefined). */
static void
odd_leaf(struct gen *g, struct dt_str *out)
{
    static const char *const ordered[] = {
        "userdn>=\"ldap:///anyone\"", "ip>=\"127.0.0.1\"", "dns<=\"localhost\"",
        "dayofweek>=\"sun\"", "authmethod>=\"none\"",
        "userattr>=\"manager#USERDN\"", "userattr<=\"l#Paris\"",
        "roledn>=\"ldap:///anyone\"", "timeofday>=\"0000-2359\"",
        "userdn=\"ldap:///nobody\"", "groupdn!=\"ldap:///self\"",
        /* '<' and '>' with the spaces 389's rule scanner wants; "=!" is
         * "=" (libaccess drops the '!'); "*" names no one */
        "ssf > \"0\"", "ssf < \"1\"", "timeofday > \"0000\"",
        "ip > \"127.0.0.1\"", "authmethod < \"simple\"",
        "roledn > \"ldap:///cn=r,dc=x\"", "userdn =! \"ldap:///anyone\"",
        "userdn=\"ldap:///*\""};
    static const char *const ip[] = {"127.0.0.*, 127.0.0.2",
                                     "127.0.0.2, 127.0.0.*",
                                     "*.0.0.1",
                                     "126.256.0.1",
                                     "127.0.0.1.5",
                                     "127.0.0.9+255.x",
                                     "127.0",
                                     "0.0.0.0+0.0.0.0, 10.0.0.1",
                                     " 127.0.0.1",
                                     "127.0.0.1 + 255.0.0.0",
                                     "localhost",
                                     "127.*.*.1",
                                     "*",
                                     "127.0.0.*,10.*"};
    static const char *const ssf[] = {"high", "-5",         "0x10",
                                      " 0 ",  "4294967296", "128abc"};
    static const char *const ua[] = {"manager",
                                     "parent[0, 1].manager#USERDN",
                                     "parent[1 ].manager#USERDN",
                                     "parent[].manager#USERDN",
                                     "parent[01,2].manager#USERDN",
                                     "parent[1]manager#USERDN",
                                     "nosuchattr#USERDN",
                                     "parent[0,12].seeAlso#GROUPDN",
                                     "parent[0, 2].departmentNumber#20"};

    switch (dt_rng_below(&g->r, 6)) {
    case 0:
        dt_str_puts(out, DT_PICK(&g->r, ordered));
        break;
    case 1:
    case 2:
        dt_str_printf(out, "ip%s\"%s\"", eq(g, 20), DT_PICK(&g->r, ip));
        break;
    case 3:
        dt_str_printf(
            out, "ssf%s\"%s\"",
            DT_PICK(&g->r, ((const char *const[]){">=", "<=", "=", "!="})),
            DT_PICK(&g->r, ssf));
        break;
    case 4:
        if (dt_rng_chance(&g->r, 30)) {
            dt_str_printf(out, "dayofweek%s\"%s\"", eq(g, 25),
                          dt_rng_chance(&g->r, 50)
                              ? "sunday monday tuesday wednesday thursday "
                                "friday saturday"
                              : "xyz");
            break;
        }
        dt_str_printf(out,
                      "userdn%s\"ldap:///" SUFFIX "??tree?(objectClass=*)\"",
                      eq(g, 20));
        break;
    default:
        dt_str_printf(out, "userattr%s\"%s\"", eq(g, 10), DT_PICK(&g->r, ua));
    }
}

static void
leaf(struct gen *g, const struct tctx *t, struct dt_str *out)
{
    static const char *const auth[] = {"simple", "none", "ssl",
                                       "sasl EXTERNAL"};
    static const char *const ssf[] = {">=\"0\"",  "<=\"0\"", "=\"0\"",
                                      ">=\"56\"", "!=\"0\"", "<=\"128\""};
    static const char *const ip[] = {"127.0.0.1", "127.0.0.*", "127.*",
                                     "10.0.0.1",  "::1",       "192.168.*"};
    static const char *const dns[] = {
        "localhost", "*.example.com", "localhost.localdomain",
        "*host",     "*localhost",    "*.localhost"};
    unsigned k = dt_rng_below(&g->r, 100);

    if (dt_rng_chance(&g->r, 10)) {
        odd_leaf(g, out);
        return;
    }
    if (k < 35)
        userdn(g, t, out);
    else if (k < 52)
        groupdn(g, t, out);
    else if (k < 60)
        dt_str_printf(out, "roledn%s\"ldap:///%s\"", eq(g, 15),
                      dt_rng_chance(&g->r, 8) ? "anyone"
                                              : dn_of(g, g->roles, g->nroles));
    else if (k < 75)
        userattr(g, out);
    else if (k < 80)
        dt_str_printf(out, "authmethod%s\"%s\"", eq(g, 15),
                      DT_PICK(&g->r, auth));
    else if (k < 84)
        dt_str_printf(out, "ssf%s", DT_PICK(&g->r, ssf));
    else if (k < 90)
        dt_str_printf(out, "ip%s\"%s\"", eq(g, 20), DT_PICK(&g->r, ip));
    else if (k < 93)
        dt_str_printf(out, "%s%s\"%s\"",
                      dt_rng_chance(&g->r, 20) ? "dnsalias" : "dns", eq(g, 20),
                      DT_PICK(&g->r, dns));
    else if (k < 97) /* every day: true, or != every day: false */
        dt_str_printf(out, "dayofweek%s\"sun,mon,tue,wed,thu,fri,sat\"",
                      eq(g, 25));
    else
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? "timeofday>=\"0000\""
                                                  : "timeofday<=\"2359\"");
}

/* A bind rule: a leaf, or two joined by and/or, or "A and not B". */
static void
bindrule(struct gen *g, const struct tctx *t, unsigned depth,
         struct dt_str *out)
{
    unsigned k = depth < 2 ? dt_rng_below(&g->r, 100) : 99;

    if (k < 12) {
        dt_str_putc(out, '(');
        bindrule(g, t, depth + 1, out);
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? " and " : " or ");
        bindrule(g, t, depth + 1, out);
        dt_str_putc(out, ')');
    } else if (k < 20) {
        bindrule(g, t, depth + 1, out);
        dt_str_puts(out, " and not ");
        bindrule(g, t, depth + 1, out);
    } else if (k < 24) {
        dt_str_puts(out, "not ");
        leaf(g, t, out);
    } else {
        leaf(g, t, out);
    }
}

/* aci -- one `aci` value for holder, appended to out.  A deny that would
 * cover whole entries of the holder's whole subtree gets a target, or
 * most cases would return nothing. */
static void
aci(struct gen *g, int holder, unsigned serial, struct dt_str *out)
{
    struct tctx t = {holder, 0, 0};
    unsigned npairs = dt_rng_chance(&g->r, 20) ? 2 : 1;
    int deny[2] = {dt_rng_chance(&g->r, 15), dt_rng_chance(&g->r, 15)};
    int has_target = dt_rng_chance(&g->r, 45);
    int has_attr = dt_rng_chance(&g->r, 75);

    if ((deny[0] || (npairs == 2 && deny[1])) && !has_attr)
        has_target = 1;
    if (has_target)
        target(g, &t, out);
    if (has_attr)
        targetattr(g, out);
    if (dt_rng_chance(&g->r, t.dn_macro ? 50 : 20))
        targetfilter(g, &t, out);
    if (dt_rng_chance(&g->r, g->ger ? 30 : 8))
        targattrfilters(g, out);
    if (g->ger && dt_rng_chance(&g->r, 12))
        moddn_targets(g, &t, out);
    /* 389 evaluates the last of several ACL texts, with the rights and
     * allow / deny kinds of all */
    if (dt_rng_chance(&g->r, 4)) {
        dt_str_printf(out, "(version 3.0; acl \"r%u-first\"; %s ", serial,
                      dt_rng_chance(&g->r, 50) ? "allow" : "deny");
        rights(g, out);
        dt_str_putc(out, ' ');
        bindrule(g, &t, 0, out);
        dt_str_puts(out, ";)");
    }
    dt_str_printf(out, "(version 3.0; %s \"r%u\";",
                  dt_rng_chance(&g->r, 85) ? "acl" : "aci", serial);
    for (unsigned i = 0; i < npairs; i++) {
        dt_str_puts(out, deny[i] ? " deny " : " allow ");
        rights(g, out);
        dt_str_putc(out, ' ');
        bindrule(g, &t, 0, out);
        dt_str_putc(out, ';');
    }
    dt_str_putc(out, ')');
}

/* A broad grant on the suffix so that most searches return something. */
static void
base_aci(struct gen *g, struct dt_str *out)
{
    static const char *const attrs[] = {
        "objectClass || cn || sn || uid || ou || dc",
        "*",
        "*",
        "objectClass || uid || cn || mail || member || departmentNumber",
        "objectClass || uid || cn || l || title || description || ou",
        "objectClass || uid || cn || ou || nsRole || nsRoleDN || memberOf",
        "objectClass || uid || cn || ou || numSubordinates"};
    static const char *const who[] = {"userdn=\"ldap:///anyone\"",
                                      "userdn=\"ldap:///all\"",
                                      "authmethod=\"none\""};

    dt_str_printf(out,
                  "(targetattr=\"%s\")(version 3.0; acl \"base\"; allow "
                  "(read,search,compare) %s;)",
                  DT_PICK(&g->r, attrs), DT_PICK(&g->r, who));
}

/* Proxied authorization (searches with 389's control, write_searches):
 * in one search case of two, ACIs granting the proxy right to two people
 * (by DN, or to every bound user), now and then one denying it below. */
static void
proxy_acis(struct gen *g, int top)
{
    struct dt_str v;

    g->proxier[0] = g->proxier[1] = -1;
    if (g->ger || !dt_rng_chance(&g->r, 50))
        return;
    g->proxier[0] = pick_of(g, g->people, g->npeople);
    g->proxier[1] = pick_of(g, g->people, g->npeople);
    dt_str_init(&v);
    /* a targetattr: 389 asks proxy with the attribute of the entry's
     * first check (the first filter item's, ...) */
    if (dt_rng_chance(&g->r, 30))
        dt_str_printf(
            &v, "(targetattr%s\"%s\")", dt_rng_chance(&g->r, 25) ? "!=" : "=",
            DT_PICK(&g->r,
                    ((const char *const[]){"cn", "objectClass", "cn || sn", "*",
                                           "uid || mail", "description"})));
    if (dt_rng_chance(&g->r, 25))
        dt_str_puts(&v, "(version 3.0; acl \"proxy\"; allow (proxy) "
                        "userdn=\"ldap:///all\";)");
    else
        dt_str_printf(&v,
                      "(version 3.0; acl \"proxy\"; allow (%s) "
                      "userdn=\"ldap:///%s || ldap:///%s\";)",
                      dt_rng_chance(&g->r, 30) ? "proxy,read,search" : "proxy",
                      g->v[g->proxier[0]].dn, g->v[g->proxier[1]].dn);
    put(&g->v[top], "aci", v.p);
    if (dt_rng_chance(&g->r, 40)) {
        static const char *const deny[] = {
            "(version 3.0; acl \"no proxy\"; deny (proxy) "
            "userdn=\"ldap:///all\";)",
            "(targetfilter=\"(objectClass=groupOfNames)\")(version 3.0; acl "
            "\"no proxy to groups\"; deny (proxy) userdn=\"ldap:///anyone\";)",
            "(target=\"ldap:///uid=*," SUFFIX "\")(version 3.0; acl \"no "
            "proxy to some\"; deny (proxy) userdn=\"ldap:///self\";)"};
        dt_str_clear(&v);
        dt_str_puts(&v, DT_PICK(&g->r, deny));
        put(&g->v[dt_rng_chance(&g->r, 50) ? pick_of(g, g->ous, g->nous) : top],
            "aci", v.p);
    }
    dt_str_free(&v);
}

/* The ACIs.  One case in five holds none on the suffix (its share goes
 * to one ou): groups and role definitions then sit outside every subtree
 * holding ACIs, which 389 reads all the same. */
static void
place_acis(struct gen *g)
{
    unsigned n = (unsigned)dt_rng_range(&g->r, 3, 12);
    int top = dt_rng_chance(&g->r, 20) ? pick_of(g, g->ous, g->nous) : 0;
    struct dt_str v;

    g->top = top;
    dt_str_init(&v);
    base_aci(g, &v);
    put(&g->v[top], "aci", v.p);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = dt_rng_below(&g->r, 10);
        int holder = k < 5   ? top
                     : k < 7 ? pick_of(g, g->ous, g->nous)
                     : k < 8 ? g->ou_groups
                             : pick_of(g, g->people, g->npeople);
        dt_str_clear(&v);
        aci(g, holder, i + 1, &v);
        put(&g->v[holder], "aci", v.p);
    }
    dt_str_free(&v);
    proxy_acis(g, top);
}

/* ---- searches --------------------------------------------------------------
 */

/* dn as another spelling of the same DN: upper case, a space after each
 * comma (every DN the generator makes is plain ASCII, no escapes) */
static void
put_dn_variant(struct dt_str *out, const char *dn)
{
    for (const char *c = dn; *c; c++) {
        dt_str_putc(out, *c >= 'a' && *c <= 'z' ? (char)(*c - 32) : *c);
        if (*c == ',')
            dt_str_putc(out, ' ');
    }
}

static void
filter_leaf(struct gen *g, struct dt_str *out)
{
    const struct ent *p = &g->v[pick_of(g, g->people, g->npeople)];
    const struct ent *grp = &g->v[pick_of(g, g->groups, g->ngroups)];

    switch (dt_rng_below(&g->r, 48)) {
    /* integers (ordered by syntax, candidates of >= and <= from the
     * equality index's keys in byte order) and assertion values a rule
     * refuses, which 389 compares all the same */
    case 46:
    case 47: {
        static const char *const iv[] = {
            "(uidNumber>=999)",
            "(uidNumber<=1000)",
            "(gidNumber>=100)",
            "(gidNumber<=99)",
            "(uidNumber=1000)",
            "(uidNumber= 42)",
            "(uidNumber>=abc)",
            "(uidNumber<=abc)",
            "(!(uidNumber=x))",
            "(uidNumber>=-5)",
            "(manager=xyz)",
            "(!(seeAlso=nodn))",
            "(objectClass=nosuchclass)",
            "(!(objectClass=nosuchclass))",
            "(&(uidNumber>=500)(uid=%s))",
            "(&(objectClass=posixAccount)(gidNumber<=100))",
            "(|(uidNumber>=1000)(uid=%s))",
            "(&(uidNumber>=500)(uidNumber<=1000))",
            "(&(gidNumber<=100)(gidNumber>=10))",
            "(telephoneNumber>=+1 555 0150)",
            "(telephoneNumber<=+1555-0120)"};
        dt_str_printf(out, DT_PICK(&g->r, iv), p->name);
        break;
    }
    /* approximate items: 389 compares phonetic words of the assertion
     * and of each value as stored, on every syntax but octet strings */
    case 44:
    case 45: {
        static const char *const ax[] = {"(cn~=%s)",
                                         "(cn~=%s jonez)",
                                         "(cn~=smyth %s)",
                                         "(givenName~=%s)",
                                         "(sn~=%s)",
                                         "(surname~=jonas)",
                                         "(uid~=%s)",
                                         "(mail~=%s)",
                                         "(cn;lang-fr~=%s le)",
                                         "(description~=remoat)",
                                         "(description~=on)",
                                         "(description~=time part)",
                                         "(title~=enjineer)",
                                         "(title~=manajer)",
                                         "(employeeType~=staf)",
                                         "(l~=berlyn)",
                                         "(departmentNumber~=20)",
                                         "(telephoneNumber~=555)",
                                         "(userPassword~=pw-%s)",
                                         "(objectClass~=person)",
                                         "(objectClass~=persen)",
                                         "(nsRole~=managed)",
                                         "(memberOf~=g1)",
                                         "(manager~=%s)",
                                         "(seeAlso~=%s)",
                                         "(nsRoleDN~=managed)",
                                         "(numSubordinates~=1)",
                                         "(entrydn~=%s)",
                                         "(entryDN~=people)"};
        dt_str_printf(out, DT_PICK(&g->r, ax), p->name);
        break;
    }
    /* items on numSubordinates and hasSubordinates, which 389's back end
     * rewrites (or, alone, refuses: unwillingToPerform) */
    case 43: {
        static const char *const sub[] = {
            "(hasSubordinates=TRUE)",
            "(hasSubordinates=FALSE)",
            "(hasSubordinates=*)",
            "(hasSubordinates=true)",
            "(numSubordinates=*)",
            "(numSubordinates>=2)",
            "(numSubordinates=1)",
            "(numSubordinates=0)",
            "(numSubordinates>=0)",
            "(numSubordinates<=3)",
            "(2.5.18.9=TRUE)",
            "(hasSubordinates=maybe)",
            "(!(hasSubordinates=TRUE))",
            "(&(numSubordinates=*)(numSubordinates>=1))"};
        dt_str_puts(out, DT_PICK(&g->r, sub));
        break;
    }
    /* attribute options */
    case 36:
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? "(cn;lang-fr=*)"
                                                  : "(CN;LANG-FR=*le*)");
        break;
    case 37:
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? "(description;lang-en=*)"
                                                  : "(commonName=*a*)");
        break;
    /* 389's roles plugin: the virtual nsRole */
    case 33:
        dt_str_puts(out, "(nsRole=");
        put_dn_variant(out, dn_of(g, g->roles, g->nroles));
        dt_str_putc(out, ')');
        break;
    case 34:
        dt_str_puts(out,
                    dt_rng_chance(&g->r, 50) ? "(nsRole=*)" : "(!(nsRole=*))");
        break;
    case 35:
        dt_str_printf(out, "(nsRole=*%s*)",
                      g->v[pick_of(g, g->roles, g->nroles)].name);
        break;
    /* extensible items as 389 reads them: a rule on any type, ordering
     * at or after the assertion, an unknown rule refusing the search;
     * three times as often as an other item (each clears 389's
     * access_check_done, which NOT and AND read) */
    case 39:
    case 41:
    case 42: {
        static const char *const ext[] = {
            "(uid:caseExactMatch:=%s)",
            "(uid:2.5.13.2:=%s)",
            "(cn:caseIgnoreOrderingMatch:=%s)",
            "(departmentNumber:integerMatch:=20)",
            "(departmentNumber:integerOrderingMatch:=20)",
            "(mail:caseExactIA5Match:=%s@example.com)",
            "(uid:dnSubtreeMatch:=%s)"};
        dt_str_printf(out, DT_PICK(&g->r, ext), p->name);
        break;
    }
    /* now and then an empty set, which 389 refuses (protocolError) */
    case 40:
        dt_str_puts(out, !dt_rng_chance(&g->r, 30)  ? "(uid=*)"
                         : dt_rng_chance(&g->r, 50) ? "(&)"
                                                    : "(|)");
        break;
    /* 389's operational nsAccountLock (Directory String: caseIgnore) */
    case 38:
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? "(nsAccountLock=true)"
                                                  : "(nsAccountLock=*)");
        break;
    /* matched by syntax in 389 (types without a rule, DN substrings) */
    case 26:
        dt_str_puts(out, "(memberOf=");
        put_dn_variant(out, grp->dn);
        dt_str_putc(out, ')');
        break;
    case 27:
        dt_str_printf(out, "(memberOf=*%s*)", grp->name);
        break;
    case 28:
        dt_str_puts(out, "(nsRoleDN=");
        put_dn_variant(out, g->v[g->roles[0]].dn);
        dt_str_putc(out, ')');
        break;
    case 29:
        dt_str_printf(out, "(manager=*%s*)", p->name);
        break;
    case 30:
        dt_str_printf(out, "(|(uniqueMember=*%s*)(member=*%c*))", p->name,
                      p->name[0]);
        break;
    case 31:
        dt_str_puts(out, dt_rng_chance(&g->r, 50) ? "(sn>=M)" : "(l<=Oslo)");
        break;
    case 32:
        dt_str_puts(out, "(manager=");
        put_dn_variant(out, p->dn);
        dt_str_putc(out, ')');
        break;
    case 24:
        dt_str_puts(out, "(objectClass=ldapSubEntry)");
        break;
    case 25:
        dt_str_puts(out, "(objectClass=nsRoleDefinition)");
        break;
    case 20:
    case 0:
        dt_str_puts(out, "(objectClass=*)");
        break;
    case 21:
        dt_str_puts(out, "(uid=*)");
        break;
    case 22:
        dt_str_puts(out, "(objectClass=person)");
        break;
    case 23:
        dt_str_puts(out, "(|(cn=*)(ou=*))");
        break;
    case 1:
        dt_str_puts(out, "(objectClass=inetOrgPerson)");
        break;
    case 2:
        dt_str_puts(out, "(objectClass=groupOfNames)");
        break;
    case 3:
        dt_str_printf(out, "(uid=%s)", p->name);
        break;
    case 4:
        dt_str_printf(out, "(uid=%c*)", p->name[0]);
        break;
    case 5:
        dt_str_puts(out, "(cn=*)");
        break;
    case 6:
        dt_str_printf(out, "(cn=*%c*)", p->name[1]);
        break;
    case 7:
        dt_str_puts(out, "(mail=*)");
        break;
    case 8:
        dt_str_puts(out, "(telephoneNumber=*)");
        break;
    case 9:
        dt_str_printf(out, "(departmentNumber=%s)", DT_PICK(&g->r, depts));
        break;
    case 10:
        dt_str_printf(out, "(employeeType=%s)", DT_PICK(&g->r, etypes));
        break;
    case 11:
        if (dt_rng_chance(&g->r, 70))
            dt_str_printf(out, "(l=%s)", DT_PICK(&g->r, places));
        else
            dt_str_puts(out,
                        DT_PICK(&g->r, ((const char *const[]){
                                           "(l=strasse)", "(l=STRASSE)",
                                           "(l=*ße)", "(l=*SSE)", "(l=ZÜRICH)",
                                           "(l=zü*)", "(l>=straße)"})));
        break;
    case 12: /* and a name 389's schema does not know, an option it
              * has no definition of: found in no entry (for the first),
              * once the requester may search the name */
        dt_str_puts(
            out,
            DT_PICK(
                &g->r,
                ((const char *const[]){
                    "(description=*)", "(description=*)", "(description=*)",
                    "(nosuchattr=x)", "(nosuchattr=*)", "(1.2.3.4=*)",
                    "(nosuchattr:caseExactMatch:=x)", "(nosuchattr>=a)",
                    "(cn;x-foo=*)", "(description;x-foo=*)",
                    "(description;X-FOO=*call*)", "(name=*)", "(!(name=*))"})));
        break;
    case 13:
        dt_str_printf(out, "(title=%s)", DT_PICK(&g->r, titles));
        break;
    case 14:
        dt_str_printf(out, "(manager=%s)", p->dn);
        break;
    case 15:
        dt_str_printf(out, "(member=%s)", p->dn);
        break;
    case 16:
        dt_str_printf(out, "(seeAlso=%s)", grp->dn);
        break;
    case 17:
        dt_str_puts(out, "(ou=*)");
        break;
    case 18:
        dt_str_puts(out, "(userPassword=*)");
        break;
    case 19:
        dt_str_printf(out, "(sn=%s)", DT_PICK(&g->r, surnames));
        break;
    default:
        dt_die("aci_gen: filter_leaf");
    }
}

static void
filter(struct gen *g, unsigned depth, struct dt_str *out)
{
    unsigned k = depth < 2 ? dt_rng_below(&g->r, 100) : 99;

    if (k < 25) {
        unsigned n = (unsigned)dt_rng_range(&g->r, 2, 3);
        dt_str_puts(out, k < 15 ? "(&" : "(|");
        for (unsigned i = 0; i < n; i++)
            filter(g, depth + 1, out);
        dt_str_putc(out, ')');
    } else if (k < 35) {
        dt_str_puts(out, "(!");
        filter(g, depth + 1, out);
        dt_str_putc(out, ')');
    } else {
        filter_leaf(g, out);
    }
}

static const char *
search_base(struct gen *g)
{
    unsigned k = dt_rng_below(&g->r, 20);

    if (k < 8)
        return SUFFIX;
    if (k < 11)
        return g->v[g->ou_people].dn;
    if (k < 13)
        return dn_of(g, g->ous, g->nous);
    if (k < 15)
        return g->v[g->ou_groups].dn;
    if (k < 17)
        return dn_of(g, g->people, g->npeople);
    if (k < 18)
        return dn_of(g, g->groups, g->ngroups);
    if (k < 19)
        return dn_of(g, g->roles, g->nroles);
    return "uid=nobody,ou=people," SUFFIX;
}

static void
search_attrs(struct gen *g, struct dt_str *out)
{
    static const char *const fixed[] = {
        "-", "-", "-", "1.1", "*", "* aci", "aci uid", "uid nsRole memberOf"};
    /* names as spelt, options, and lists that name a type "*" also gives:
     * 389 sends those attributes after the others, under the name
     * written, and can send one twice or not at all */
    static const char *const spelt[] = {
        "CN", "commonName uid", "cn;lang-fr", "CN;LANG-FR sn", "surname SN",
        "Description MAIL", "description;lang-en description", "objectclass",
        "* cn", "* description;lang-en", "cn;lang-fr cn", "* sn;lang-en",
        "Uid * Mail", "description;x-foo", "Description;X-Foo cn",
        "nosuchattr uid",
        /* what 389 computes when named */
        "numSubordinates hasSubordinates", "EntryDN NumSubordinates uid",
        "* hasSubordinates", "+"};
    unsigned n;

    if (dt_rng_chance(&g->r, 20)) {
        dt_str_puts(out, DT_PICK(&g->r, spelt));
        return;
    }
    if (dt_rng_chance(&g->r, 50)) {
        dt_str_puts(out, DT_PICK(&g->r, fixed));
        return;
    }
    n = (unsigned)dt_rng_range(&g->r, 1, 3);
    for (unsigned i = 0; i < n; i++)
        dt_str_printf(out, "%s%s", i ? " " : "",
                      attr_pool[dt_rng_below(&g->r, DT_NELEM(attr_pool) - 1)]);
}

/* One search line without its requester: SCOPE TAB BASE TAB FILTER TAB
 * ATTRS. */
static void
search(struct gen *g, struct dt_str *out)
{
    static const char *const scopes[] = {
        "base", "one", "sub", "sub", "sub", "sub", "one", "base",
        "sub",  "sub", "one", "sub", "sub", "sub", "sub", "children"};

    dt_str_printf(out, "%s\t%s\t", DT_PICK(&g->r, scopes), search_base(g));
    filter(g, 0, out);
    dt_str_putc(out, '\t');
    search_attrs(g, out);
}

static unsigned
write_searches(struct gen *g, struct dt_str *out)
{
    unsigned nq = (unsigned)dt_rng_range(&g->r, 8, 12);
    unsigned nr = (unsigned)dt_rng_range(&g->r, 3, 4);
    char *q[12];
    int who[5];

    for (unsigned i = 0; i < nq; i++) {
        struct dt_str s;
        dt_str_init(&s);
        search(g, &s);
        q[i] = dt_str_take(&s);
    }
    who[0] = -1;
    for (unsigned i = 0; i < nr; i++)
        who[i + 1] = g->people[(i * 2 + dt_rng_below(&g->r, 2)) % g->npeople];
    for (g->nwho = 0; g->nwho <= nr; g->nwho++)
        g->who[g->nwho] = who[g->nwho];
    for (unsigned r = 0; r <= nr; r++)
        for (unsigned i = 0; i < nq; i++) {
            if (who[r] < 0)
                dt_str_puts(out, "-\t-\t");
            else
                dt_str_printf(out, "%s\tpw-%s\t", g->v[who[r]].dn,
                              g->v[who[r]].name);
            dt_str_printf(out, "%s\n", q[i]);
        }
    /* now and then the Directory Manager too: access is granted, the
     * filter still goes through 389's access-checked test */
    unsigned nroot = dt_rng_chance(&g->r, 25) ? nq : 0;
    for (unsigned i = 0; i < nroot; i++)
        dt_str_printf(out, "cn=Directory Manager\tROOTPW\t%s\n", q[i]);
    /* proxied authorization (the control, critical): a person the ACIs
     * let proxy, another who may not, the Directory Manager or an
     * anonymous connection, as a person (or a DN with no entry, the
     * Directory Manager, which 389 refuses, or anonymous: "-") */
    unsigned nproxy = g->proxier[0] >= 0 ? nq : 0;
    for (unsigned i = 0; i < nproxy; i++) {
        unsigned k = dt_rng_below(&g->r, 12);
        int as = pick_of(g, g->people, g->npeople);
        const char *pdn = k == 9    ? "cn=Directory Manager"
                          : k == 8  ? "uid=nobody,ou=people," SUFFIX
                          : k == 11 ? "-"
                                    : g->v[as].dn;
        if (k < 6 || k == 11)
            dt_str_printf(out, "%s\tpw-%s\t", g->v[g->proxier[k & 1]].dn,
                          g->v[g->proxier[k & 1]].name);
        else if (k == 6)
            dt_str_puts(out, "cn=Directory Manager\tROOTPW\t");
        else if (k == 10)
            dt_str_puts(out, "-\t-\t");
        else {
            int b = pick_of(g, g->people, g->npeople);
            dt_str_printf(out, "%s\tpw-%s\t", g->v[b].dn, g->v[b].name);
        }
        dt_str_printf(out, "%s\t%s\n", q[i], pdn);
    }
    for (unsigned i = 0; i < nq; i++)
        free(q[i]);
    return nq * (nr + 1) + nroot + nproxy;
}

/* ---- Class of Service ------------------------------------------------------
 *
 * 389's CoS plugin supplies virtual attributes from templates: pointer
 * definitions name one template, classic ones a container whose children
 * cn=<value of the cosSpecifier>,<container> are templates (a child
 * cn=<specifier>-default applying when none matches), indirect ones a
 * DN-valued type of the entry whose target holds the values.  Everything
 * here is drawn from an RNG of its own (gen): the entries and ACIs come
 * after the others, the searches after the others, so that a seed keeps
 * every entry, ACI and search it had before CoS was generated.
 */

/* What a template may supply: types people store (description,
 * employeeType, l, title) and types they do not, three
 * values each, no two equal under the type's equality rule. */
static const struct cos_type {
    const char *name;
    const char *v[3];
} cos_types[] = {
    {"description", {"on call", "cos standard", "cos premium"}},
    {"employeeType", {"staff", "cos-gold", "cos-silver"}},
    {"l", {"Paris", "Lyon", "Oslo"}},
    {"postalCode", {"75001", "10115", "0150"}},
    {"street", {"1 Main Street", "2 Rue de la Paix", "3 Karl Johans gate"}},
    /* two types 389 indexes, whose search candidates come from the stored
     * values alone (filter_cand389.c) */
    {"telephoneNumber", {"+1 555 0160", "+1 555 0161", "+44 20 7946 0000"}},
    {"mail", {"cos@example.com", "desk@example.com", "team@example.com"}},
    {"homePhone", {"+1 555 0100", "+1 555 0199", "+33 1 42 00 00 00"}},
    {"roomNumber", {"101", "202", "B-3"}},
    {"carLicense", {"COS-1", "COS-2", "cos-3"}},
    {"businessCategory", {"gold", "silver", "bronze"}},
    {"title", {"engineer", "cos title", "manager"}}};

/* new_ent_rdn -- an entry named by rdn, written as is (a quoted or
 * escaped value), below parent; its naming value is the caller's. */
static int
new_ent_rdn(struct gen *g, int parent, const char *rdn, const char *classes)
{
    struct ent *e;
    struct dt_str dn;

    if (g->n == MAXENT)
        dt_die("aci_gen: too many entries");
    e = &g->v[g->n];
    dt_str_init(&dn);
    dt_str_printf(&dn, "%s,%s", rdn, g->v[parent].dn);
    e->dn = dt_str_take(&dn);
    e->name = dt_strdup(rdn);
    e->parent = parent;
    e->kind = K_COS;
    dt_str_init(&e->body);
    put_classes(e, classes);
    return (int)g->n++;
}

/* cos_note -- remember that a definition supplies type (a value it may
 * take), for the ACIs and searches that name it. */
static void
cos_note(struct gen *g, const struct cos_type *t, const char *v)
{
    for (unsigned i = 0; i < g->ncos; i++)
        if (!strcmp(g->cos_attr[i], t->name))
            return;
    if (g->ncos < MAXCOS) {
        g->cos_attr[g->ncos] = t->name;
        g->cos_val[g->ncos++] = v;
    }
}

/* cos_pick -- the types a definition supplies: 1-2 distinct ones, none
 * named avoid (its specifier), into t; their number. */
static unsigned
cos_pick(struct gen *g, const char *avoid, const struct cos_type **t)
{
    unsigned n = dt_rng_chance(&g->r, 65) ? 1 : 2, k = 0;
    size_t rl = strcspn(g->role_filter + 1, "=");

    while (k < n) {
        const struct cos_type *c =
            &cos_types[dt_rng_below(&g->r, DT_NELEM(cos_types))];
        if ((avoid && !strcmp(c->name, avoid)) || (k && c == t[0]))
            continue;
        if (!g->cos_role_type && strlen(c->name) == rl &&
            !strncmp(c->name, g->role_filter + 1, rl))
            continue;
        t[k++] = c;
    }
    return n;
}

/* cos_attribute -- the cosAttribute values of definition d: each type,
 * now and then in another case or as an alias, with qualifiers (389
 * strips them from the end of the value, several included, in any
 * case). */
static void
cos_attribute(struct gen *g, int d, const struct cos_type *const *t, unsigned n)
{
    static const char *const quals[] = {"",
                                        "",
                                        "",
                                        " default",
                                        " override",
                                        " override",
                                        " operational",
                                        " operational-default",
                                        " merge-schemes",
                                        " override merge-schemes",
                                        " default operational",
                                        " OVERRIDE"};
    /* aliases, which 389 compares as text: such a name gives nothing */
    static const char *const alias[][2] = {
        {"l", "localityName"},
        {"street", "streetAddress"},
        {"mail", "rfc822mailbox"},
        {"homePhone", "homeTelephoneNumber"}};
    char buf[96];

    for (unsigned i = 0; i < n; i++) {
        const char *q = DT_PICK(&g->r, quals);
        const char *al = NULL;
        for (size_t k = 0; k < DT_NELEM(alias); k++)
            if (!strcmp(alias[k][0], t[i]->name))
                al = alias[k][1];
        if (al && dt_rng_chance(&g->r, 10)) {
            snprintf(buf, sizeof buf, "%s%s", al, q);
        } else if (dt_rng_chance(&g->r, 15)) {
            size_t k = 0;
            for (const char *c = t[i]->name; *c && k < 40; c++)
                buf[k++] = *c >= 'A' && *c <= 'Z' ? (char)(*c + 32) : *c;
            snprintf(buf + k, sizeof buf - k, "%s", q);
        } else {
            snprintf(buf, sizeof buf, "%s%s", t[i]->name, q);
        }
        put(&g->v[d], "cosAttribute", buf);
    }
}

/* cos_values -- what template e holds of the types t: mostly one value,
 * now and then two or none; the first value given is noted. */
static void
cos_values(struct gen *g, int e, const struct cos_type *const *t, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (dt_rng_chance(&g->r, 12))
            continue;
        unsigned k = dt_rng_below(&g->r, 3);
        put(&g->v[e], t[i]->name, t[i]->v[k]);
        cos_note(g, t[i], t[i]->v[k]);
        if (dt_rng_chance(&g->r, 20))
            put(&g->v[e], t[i]->name, t[i]->v[(k + 1) % 3]);
        if (dt_rng_chance(&g->r, 10)) { /* a subtype, which CoS ignores */
            char sub[64];
            snprintf(sub, sizeof sub, "%s;lang-en", t[i]->name);
            put(&g->v[e], sub, t[i]->v[(k + 2) % 3]);
        }
    }
}

static void
cos_priority(struct gen *g, int e)
{
    static const char *const prio[] = {"0", "1", "5"};

    if (dt_rng_chance(&g->r, 50))
        put(&g->v[e], "cosPriority", DT_PICK(&g->r, prio));
}

/* cos_home -- where a definition lives: the suffix, ou=people or a unit
 * below it (the definition's parent's subtree is its scope). */
static int
cos_home(struct gen *g)
{
    unsigned k = dt_rng_below(&g->r, 10);

    if (k < 3)
        return 0;
    if (k < 6)
        return g->ou_people;
    if (k < 8 || g->cos_unit < 0)
        return g->ous[1 + dt_rng_below(&g->r, 2)];
    return g->cos_unit;
}

/* cos_definition -- the definition entry cn=cosN below home, of class
 * cls, with now and then a cosTargetTree (which replaces the parent's
 * subtree as its scope).  Only the old cosDefinition class allows that
 * type: a definition holding it is also an extensibleObject, or, for a
 * classic one, a cosDefinition (which 389 reads as classic). */
static int
cos_definition(struct gen *g, int home, unsigned serial, const char *cls)
{
    static const char *const trees[] = {
        SUFFIX,
        "ou=people," SUFFIX,
        "ou=eng,ou=people," SUFFIX,
        "ou=Sales, ou=People, dc=example, dc=com",
        "ou=cos,ou=people," SUFFIX,
        "ou=nowhere," SUFFIX};
    char name[16], classes[128];
    int tree = dt_rng_chance(&g->r, 15);

    snprintf(name, sizeof name, "cos%u", serial);
    if (tree && !strcmp(cls, "cosClassicDefinition") &&
        dt_rng_chance(&g->r, 50))
        snprintf(classes, sizeof classes, "top LDAPsubentry cosDefinition");
    else
        snprintf(classes, sizeof classes,
                 "top LDAPsubentry cosSuperDefinition %s%s", cls,
                 tree ? " extensibleObject" : "");
    int d = new_ent(g, home, "cn", name, K_COS, classes);
    if (tree)
        put(&g->v[d], "cosTargetTree", DT_PICK(&g->r, trees));
    return d;
}

static void
cos_pointer(struct gen *g, unsigned serial)
{
    const struct cos_type *t[2];
    unsigned n = cos_pick(g, NULL, t);
    int home = cos_home(g);
    int at = dt_rng_chance(&g->r, 50)   ? home
             : dt_rng_chance(&g->r, 50) ? g->ou_people
                                        : 0;
    char name[32];

    snprintf(name, sizeof name, "cos%u-template", serial);
    int tp = new_ent(g, at, "cn", name, K_COS,
                     dt_rng_chance(&g->r, 30)
                         ? "top LDAPsubentry extensibleObject cosTemplate"
                         : "top cosTemplate extensibleObject");
    cos_priority(g, tp);
    cos_values(g, tp, t, n);
    int d = cos_definition(g, home, serial, "cosPointerDefinition");
    put_dn(g, &g->v[d], "cosTemplateDn", g->v[tp].dn);
    cos_attribute(g, d, t, n);
}

static void
cos_classic(struct gen *g, unsigned serial)
{
    static const char *const specs[] = {
        "employeeType", "departmentNumber", "l", "title", "nsRole", "nsrole"};
    const char *spec = specs[dt_rng_below(
        &g->r, DT_NELEM(specs) - (g->cos_role_type ? 2 : 0))];
    const char *const *vals = !strcmp(spec, "employeeType")       ? etypes
                              : !strcmp(spec, "departmentNumber") ? depts
                              : !strcmp(spec, "l")                ? places
                              : !strcmp(spec, "title")            ? titles
                                                                  : NULL;
    const struct cos_type *t[2];
    unsigned n = cos_pick(g, spec, t);
    int home = cos_home(g);
    int at = dt_rng_chance(&g->r, 60) ? home : g->ou_people;
    char name[96];

    snprintf(name, sizeof name, "cos%uTemplates", serial);
    int cont = new_ent(g, at, "cn", name, K_COS, "top nsContainer");
    unsigned nv = vals ? 3 : g->nroles;
    for (unsigned i = 0; i < nv; i++) {
        int tp;
        if (!dt_rng_chance(&g->r, 75))
            continue;
        if (vals) {
            /* the grade is compared without case */
            snprintf(name, sizeof name, "%s", vals[i]);
            if (dt_rng_chance(&g->r, 15))
                name[0] = name[0] >= 'a' && name[0] <= 'z'
                              ? (char)(name[0] - 32)
                              : (char)(name[0] | 32);
            tp = new_ent(g, cont, "cn", name, K_COS,
                         "top cosTemplate extensibleObject");
        } else {
            /* a role's DN as the value: quoted, as 389's acivattr test
             * writes it, or escaped */
            const char *rdn = g->v[g->roles[i]].dn;
            struct dt_str r;
            dt_str_init(&r);
            if (dt_rng_chance(&g->r, 75)) {
                dt_str_printf(&r, "cn=\"%s\"", rdn);
            } else {
                dt_str_puts(&r, "cn=");
                for (const char *c = rdn; *c; c++) {
                    if (*c == ',' || *c == '=')
                        dt_str_putc(&r, '\\');
                    dt_str_putc(&r, *c);
                }
            }
            tp = new_ent_rdn(g, cont, r.p, "top cosTemplate extensibleObject");
            put(&g->v[tp], "cn", rdn);
            dt_str_free(&r);
        }
        cos_priority(g, tp);
        cos_values(g, tp, t, n);
    }
    if (dt_rng_chance(&g->r, 40)) {
        /* the default template: the specifier's name, "-default" */
        snprintf(name, sizeof name, "%s-default",
                 dt_rng_chance(&g->r, 80) ? spec : "EmployeeType");
        int tp = new_ent(g, cont, "cn", name, K_COS,
                         "top cosTemplate extensibleObject");
        cos_priority(g, tp);
        cos_values(g, tp, t, n);
    }
    int d = cos_definition(g, home, serial, "cosClassicDefinition");
    put_dn(g, &g->v[d], "cosTemplateDn", g->v[cont].dn);
    put(&g->v[d], "cosSpecifier", spec);
    cos_attribute(g, d, t, n);
}

static void
cos_indirect(struct gen *g, unsigned serial)
{
    static const char *const specs[] = {"manager", "manager", "seeAlso",
                                        "secretary"};
    const char *spec = DT_PICK(&g->r, specs);
    const struct cos_type *t[2];
    unsigned n = cos_pick(g, NULL, t);
    int d = cos_definition(g, cos_home(g), serial, "cosIndirectDefinition");

    put(&g->v[d], "cosIndirectSpecifier", spec);
    cos_attribute(g, d, t, n);
    for (unsigned i = 0; i < n; i++)
        cos_note(g, t[i], t[i]->v[dt_rng_below(&g->r, 3)]);
}

/* cos_unit -- ou=cos,ou=people: profiles holding values of the CoS
 * types, people pointing at them (seeAlso, secretary) and at people
 * (manager), with specifier values of their own. */
static void
cos_unit(struct gen *g)
{
    int prof[2];
    char buf[64];

    g->cos_unit =
        new_ent(g, g->ou_people, "ou", "cos", K_OU, "top organizationalUnit");
    for (unsigned i = 0; i < 2; i++) {
        int x = dt_rng_chance(&g->r, 40);
        snprintf(buf, sizeof buf, "profile%u", i + 1);
        prof[i] = new_ent(g, g->cos_unit, "cn", buf, K_COS,
                          x ? "top organizationalRole extensibleObject"
                            : "top organizationalRole");
        for (unsigned k = 0; k < DT_NELEM(cos_types); k++) {
            const struct cos_type *c = &cos_types[k];
            int allowed =
                x || !strcmp(c->name, "description") || !strcmp(c->name, "l") ||
                !strcmp(c->name, "postalCode") || !strcmp(c->name, "street");
            if (allowed && dt_rng_chance(&g->r, 60))
                put(&g->v[prof[i]], c->name, DT_PICK(&g->r, c->v));
        }
    }
    for (unsigned i = 0, n = (unsigned)dt_rng_range(&g->r, 1, 2); i < n; i++) {
        const char *uid = i ? "cosb" : "cosa";
        int p = new_ent(g, g->cos_unit, "uid", uid, K_PERSON,
                        "top person organizationalPerson inetOrgPerson");
        struct ent *e = &g->v[p];
        snprintf(buf, sizeof buf, "Cos%c %s", uid[3] - 32,
                 DT_PICK(&g->r, surnames));
        put(e, "cn", buf);
        put(e, "sn", buf + 5);
        snprintf(buf, sizeof buf, "pw-%s", uid);
        put(e, "userPassword", buf);
        if (dt_rng_chance(&g->r, 60))
            put(e, "employeeType", DT_PICK(&g->r, etypes));
        if (dt_rng_chance(&g->r, 60))
            put(e, "departmentNumber", DT_PICK(&g->r, depts));
        if (dt_rng_chance(&g->r, 50))
            put(e, "l", DT_PICK(&g->r, places));
        if (dt_rng_chance(&g->r, 30))
            put(e, "description", DT_PICK(&g->r, descs));
        if (dt_rng_chance(&g->r, 30))
            put(e, "postalCode", "99999");
        if (dt_rng_chance(&g->r, 60))
            put_dn(g, e, "secretary", g->v[prof[dt_rng_below(&g->r, 2)]].dn);
        if (dt_rng_chance(&g->r, 60))
            put_dn(g, e, "seeAlso", g->v[prof[dt_rng_below(&g->r, 2)]].dn);
        if (dt_rng_chance(&g->r, 50))
            put_dn(g, e, "manager", dn_of(g, g->people, g->npeople));
        if (dt_rng_chance(&g->r, 30))
            put(e, "nsRoleDN", g->v[g->roles[0]].dn);
        g->cos_people[g->ncos_people++] = p;
    }
}

/* cos_acis -- one or two ACIs naming a CoS type in a targetfilter, a
 * targetattr or a bind rule's URL filter. */
static void
cos_acis(struct gen *g)
{
    unsigned n = dt_rng_chance(&g->r, 70) ? 1 : 2;
    struct dt_str v;

    dt_str_init(&v);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = dt_rng_below(&g->r, g->ncos);
        const char *a = g->cos_attr[k], *x = g->cos_val[k];
        const char *b = g->cos_attr[(k + 1) % g->ncos];
        int holder = dt_rng_chance(&g->r, 50)   ? g->top
                     : dt_rng_chance(&g->r, 60) ? g->ou_people
                                                : 0;
        dt_str_clear(&v);
        switch (dt_rng_below(&g->r, 6)) {
        case 0:
            dt_str_printf(&v,
                          "(targetfilter=\"(%s=%s)\")(targetattr=\"*\")"
                          "(version 3.0; acl \"cos%u\"; allow "
                          "(read,search,compare) userdn=\"ldap:///all\";)",
                          a, x, i + 1);
            break;
        case 1:
            dt_str_printf(&v,
                          "(targetattr=\"%s || %s\")(version 3.0; acl "
                          "\"cos%u\"; allow (read,search) "
                          "userdn=\"ldap:///anyone\";)",
                          a, b, i + 1);
            break;
        case 2:
            dt_str_printf(&v,
                          "(targetfilter=\"(%s=*)\")(targetattr=\"%s || "
                          "telephoneNumber\")(version 3.0; acl \"cos%u\"; "
                          "deny (read,search) userdn=\"ldap:///anyone\";)",
                          a, b, i + 1);
            break;
        case 3:
            dt_str_printf(&v,
                          "(targetfilter=\"(!(%s=%s))\")(targetattr=\"%s || "
                          "uid || cn\")(version 3.0; acl \"cos%u\"; allow "
                          "(read,search) userdn=\"ldap:///" SUFFIX
                          "??sub?(%s=%s)\";)",
                          a, x, b, i + 1, a, x);
            break;
        case 4:
            dt_str_printf(&v,
                          "(targetattr=\"%s || objectClass || uid\")"
                          "(targetfilter=\"(%s=%.2s*)\")(version 3.0; acl "
                          "\"cos%u\"; allow (read,search) "
                          "userdn=\"ldap:///all\";)",
                          a, a, x, i + 1);
            break;
        default:
            dt_str_printf(&v,
                          "(targetfilter=\"(|(%s=%s)(%s=*))\")(targetattr!="
                          "\"userPassword\")(version 3.0; acl \"cos%u\"; "
                          "%s (read,search) userdn=\"ldap:///self\";)",
                          a, x, b, i + 1,
                          dt_rng_chance(&g->r, 30) ? "deny" : "allow");
        }
        put(&g->v[holder], "aci", v.p);
    }
    dt_str_free(&v);
}

/* make_cos -- in three cases of five, 1-3 CoS definitions with their
 * templates (and now and then a unit of their own), then ACIs naming
 * what they supply. */
static void
make_cos(struct gen *g)
{
    g->cos_unit = -1;
    if (!dt_rng_chance(&g->r, 60))
        return;
    g->cos_role_type = dt_rng_chance(&g->r, 50);
    if (dt_rng_chance(&g->r, 50))
        cos_unit(g);
    for (unsigned i = 0, n = (unsigned)dt_rng_range(&g->r, 1, 3); i < n; i++)
        switch (dt_rng_below(&g->r, 3)) {
        case 0:
            cos_pointer(g, i + 1);
            break;
        case 1:
            cos_classic(g, i + 1);
            break;
        default:
            cos_indirect(g, i + 1);
        }
    if (g->ncos)
        cos_acis(g);
}

/* cos_filter -- a filter naming a CoS type. */
static void
cos_filter(struct gen *g, struct dt_str *out)
{
    unsigned k = dt_rng_below(&g->r, g->ncos);
    const char *a = g->cos_attr[k], *v = g->cos_val[k];
    const struct ent *p = &g->v[pick_of(g, g->people, g->npeople)];

    switch (dt_rng_below(&g->r, 9)) {
    case 0:
    case 1:
        dt_str_printf(out, "(%s=*)", a);
        break;
    case 2:
    case 3:
        dt_str_printf(out, "(%s=%s)", a, v);
        break;
    case 4:
        dt_str_printf(out, "(!(%s=%s))", a, v);
        break;
    case 5:
        dt_str_printf(out, "(&(objectClass=person)(%s=%.2s*))", a, v);
        break;
    case 6:
        dt_str_printf(out, "(|(%s=%s)(uid=%s))", a, v, p->name);
        break;
    case 7:
        dt_str_printf(out, "(%s~=%s)", a, v);
        break;
    default:
        dt_str_printf(out, "(&(%s=*)(!(%s=*)))", a,
                      g->cos_attr[(k + 1) % g->ncos]);
    }
}

/* cos_attrs -- a list of requested attributes naming CoS types. */
static void
cos_attrs(struct gen *g, struct dt_str *out)
{
    unsigned k = dt_rng_below(&g->r, g->ncos);
    const char *a = g->cos_attr[k], *b = g->cos_attr[(k + 1) % g->ncos];

    switch (dt_rng_below(&g->r, 9)) {
    case 0:
        dt_str_puts(out, "-");
        break;
    case 1:
        dt_str_puts(out, "*");
        break;
    case 2:
        dt_str_puts(out, a);
        break;
    case 3:
        dt_str_printf(out, "uid %s", a);
        break;
    case 4:
        dt_str_printf(out, "* %s", a);
        break;
    case 5:
        dt_str_puts(out, "+");
        break;
    case 6:
        dt_str_printf(out, "%s %s cn", a, b);
        break;
    case 7:
        dt_str_puts(out, "1.1");
        break;
    default:
        dt_str_printf(out, "* + %s", b);
    }
}

/* cos_searches -- 2-4 searches naming CoS types, made by the requesters
 * of the others, now and then by the Directory Manager and by a person
 * of the CoS unit; appended after the others.  Their number. */
static unsigned
cos_searches(struct gen *g, struct dt_str *out)
{
    static const char *const scopes[] = {"sub", "sub", "sub", "one", "base"};
    unsigned nq = g->ncos ? (unsigned)dt_rng_range(&g->r, 2, 4) : 0, nl = 0;
    char *q[4];

    for (unsigned i = 0; i < nq; i++) {
        struct dt_str s;
        unsigned k = dt_rng_below(&g->r, 10);
        const char *base =
            k < 5   ? SUFFIX
            : k < 7 ? g->v[g->ou_people].dn
            : k < 8 ? g->v[g->cos_unit >= 0 ? g->cos_unit
                                            : pick_of(g, g->ous, g->nous)]
                          .dn
                    : dn_of(g, g->people, g->npeople);
        dt_str_init(&s);
        dt_str_printf(&s, "%s\t%s\t", DT_PICK(&g->r, scopes), base);
        cos_filter(g, &s);
        dt_str_putc(&s, '\t');
        cos_attrs(g, &s);
        q[i] = dt_str_take(&s);
    }
    int root = dt_rng_chance(&g->r, 30);
    int mine = g->ncos_people && dt_rng_chance(&g->r, 50)
                   ? g->cos_people[dt_rng_below(&g->r, g->ncos_people)]
                   : -1;
    for (unsigned i = 0; i < nq; i++) {
        for (unsigned r = 0; r < g->nwho; r++, nl++)
            if (g->who[r] < 0)
                dt_str_printf(out, "-\t-\t%s\n", q[i]);
            else
                dt_str_printf(out, "%s\tpw-%s\t%s\n", g->v[g->who[r]].dn,
                              g->v[g->who[r]].name, q[i]);
        if (root && ++nl)
            dt_str_printf(out, "cn=Directory Manager\tROOTPW\t%s\n", q[i]);
        if (mine >= 0 && ++nl)
            dt_str_printf(out, "%s\tpw-%s\t%s\n", g->v[mine].dn,
                          g->v[mine].name, q[i]);
        free(q[i]);
    }
    return nl;
}

/* coll_searches -- in two cases of five, 1-2 searches with 389's
 * collation rules (an OID with an operator suffix, or a rule named alone
 * with the operator as the value's first byte), made by the requesters
 * of the others; appended after every other search, from an RNG of their
 * own.  Their number. */
static unsigned
coll_searches(struct gen *g, struct dt_str *out)
{
    static const char *const oids[] = {
        "2.16.840.1.113730.3.3.2.18.1", "2.16.840.1.113730.3.3.2.11.1",
        "2.16.840.1.113730.3.3.2.7.1", "2.16.840.1.113730.3.3.2.15.1",
        "2.16.840.1.113730.3.3.2.0.3"};
    static const char *const tags[] = {"fr", "en", "de-AT", "es", "default"};
    static const char *const types[] = {
        "uid", "cn", "sn", "description", "l", "givenName", "mail"};
    static const char *const vals[] = {"m",
                                       "Mary",
                                       "user20",
                                       "e",
                                       "\\c3\\89L\\c3\\88VE",
                                       "paris",
                                       "smith",
                                       "Alice Lee",
                                       "remote \\28eu\\29",
                                       "z",
                                       " bob  ",
                                       "carol\\2a",
                                       "\\2ae\\2a",
                                       "\\2aLee",
                                       "a\\2a\\2ae"};
    static const char *const ops[] = {"<", "<=", ">", ">=", "=", "\\2a"};
    unsigned nq = dt_rng_chance(&g->r, 40) ? (unsigned)dt_rng_range(&g->r, 1, 2)
                                           : 0,
             nl = 0;

    for (unsigned i = 0; i < nq; i++) {
        struct dt_str f;
        const char *type = DT_PICK(&g->r, types);
        dt_str_init(&f);
        if (dt_rng_chance(&g->r, 60))
            dt_str_printf(&f, "(%s:%s.%u:=%s)", type, DT_PICK(&g->r, oids),
                          (unsigned)dt_rng_range(&g->r, 1, 6),
                          DT_PICK(&g->r, vals));
        else
            dt_str_printf(&f, "(%s:%s:=%s%s)", type, DT_PICK(&g->r, tags),
                          DT_PICK(&g->r, ops), DT_PICK(&g->r, vals));
        if (dt_rng_chance(&g->r, 30)) { /* under AND, OR or NOT */
            char *item = dt_str_take(&f);
            dt_str_init(&f);
            unsigned k = dt_rng_below(&g->r, 3);
            dt_str_printf(&f,
                          k == 0   ? "(&(objectClass=person)%s)"
                          : k == 1 ? "(|(uid=nobody)%s)"
                                   : "(!%s)",
                          item);
            free(item);
        }
        for (unsigned r = 0; r < g->nwho; r++, nl++)
            if (g->who[r] < 0)
                dt_str_printf(out, "-\t-\tsub\t%s\t%s\tuid %s\n", SUFFIX, f.p,
                              type);
            else
                dt_str_printf(out, "%s\tpw-%s\tsub\t%s\t%s\tuid %s\n",
                              g->v[g->who[r]].dn, g->v[g->who[r]].name, SUFFIX,
                              f.p, type);
        dt_str_free(&f);
    }
    return nl;
}

/* cos_gers -- one more get-effective-rights question naming CoS types
 * (a person asking about every entry).  Its number of pairs. */
static unsigned
cos_gers(struct gen *g, struct dt_str *out)
{
    if (!g->ncos)
        return 0;
    int who = g->ncos_people && dt_rng_chance(&g->r, 30)
                  ? g->cos_people[0]
                  : pick_of(g, g->people, g->npeople);
    dt_str_printf(out, "%s\t", g->v[who].dn);
    cos_attrs(g, out);
    dt_str_putc(out, '\n');
    return g->n;
}

/* ---- the case --------------------------------------------------------------
 */

static void
gen_free(struct gen *g)
{
    for (unsigned i = 0; i < g->n; i++) {
        free(g->v[i].dn);
        free(g->v[i].name);
        dt_str_free(&g->v[i].body);
    }
}

/* The get-effective-rights questions of a case: one line per requester
 * (REQUESTER TAB ATTRS: "-" for anonymous, for no attribute list), each
 * asked about every entry. */
static unsigned
write_gers(struct gen *g, struct dt_str *out)
{
    static const char *const sets[] = {
        "-",
        "*",
        "* aci",
        "* member memberOf nsRoleDN owner seeAlso userPassword",
        "cn cn;lang-fr CN;LANG-FR sn description title",
        "uniqueMember member memberOf manager seeAlso nsRoleDN owner",
        "* cn;lang-fr telephoneNumber l mail",
        "aci uid objectClass userPassword mail",
        "+",
        "* +"};
    unsigned nr = 0;
    int who[8];

    who[nr++] = -1;
    for (unsigned i = 0, k = (unsigned)dt_rng_range(&g->r, 3, 4); i < k; i++)
        who[nr++] = g->people[(i * 2 + dt_rng_below(&g->r, 2)) % g->npeople];
    who[nr++] = g->groups[dt_rng_below(&g->r, g->ngroups)];
    who[nr++] = -2;
    for (unsigned r = 0; r < nr; r++) {
        const char *dn = who[r] == -1   ? "-"
                         : who[r] == -2 ? "uid=nobody,ou=people," SUFFIX
                                        : g->v[who[r]].dn;
        dt_str_printf(out, "%s\t%s\n", dn, DT_PICK(&g->r, sets));
    }
    return nr * g->n;
}

/* gen -- case seed into dir: data.ldif, seed, and the searches (gers 0)
 * or the get-effective-rights questions (gers 1); the number of
 * searches or of (requester, entry) pairs */
static unsigned
gen(uint64_t seed, const char *dir, int gers)
{
    struct gen g;
    struct dt_rng main_r, cos_r;
    struct dt_str ldif, q;
    char buf[64];
    unsigned n;

    memset(&g, 0, sizeof g);
    g.ger = gers;
    dt_rng_seed(&g.r, seed);
    make_tree(&g);
    make_people(&g);
    make_groups(&g);
    make_roles(&g);
    link_people(&g);
    place_acis(&g);
    /* Class of Service from an RNG of its own (the searches below draw
     * from g.r as they did before it existed) */
    main_r = g.r;
    dt_rng_seed(&g.r, seed ^ 0x436c617373206f66ull);
    make_cos(&g);
    cos_r = g.r;
    g.r = main_r;
    dt_str_init(&ldif);
    for (unsigned i = 0; i < g.n; i++) {
        dt_ldif_line(&ldif, "dn", g.v[i].dn, strlen(g.v[i].dn));
        dt_str_printf(&ldif, "%s\n", g.v[i].body.p);
    }
    dt_write_file(dir, "data.ldif", ldif.p, ldif.len);
    dt_str_init(&q);
    n = gers ? write_gers(&g, &q) : write_searches(&g, &q);
    g.r = cos_r;
    n += gers ? cos_gers(&g, &q) : cos_searches(&g, &q);
    if (!gers) { /* collation rules, from an RNG of their own too */
        dt_rng_seed(&g.r, seed ^ 0x436f6c6c6174696full);
        n += coll_searches(&g, &q);
    }
    dt_write_file(dir, gers ? "gers" : "searches", q.p, q.len);
    snprintf(buf, sizeof buf, "%llu\n", (unsigned long long)seed);
    dt_write_file(dir, "seed", buf, strlen(buf));
    dt_str_free(&ldif);
    dt_str_free(&q);
    gen_free(&g);
    return n;
}

/* aci_gen_case -- see aci_gen.h. */
unsigned
aci_gen_case(uint64_t seed, const char *dir)
{
    return gen(seed, dir, 0);
}

/* aci_gen_ger -- see aci_gen.h. */
unsigned
aci_gen_ger(uint64_t seed, const char *dir)
{
    return gen(seed, dir, 1);
}
