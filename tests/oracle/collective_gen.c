/*
 * collective_gen.c -- the seeded generator of collective-attribute cases
 * (collective_gen.h says what a case holds).
 *
 * A case is built as a list of entries, parents first: suffixes, OUs,
 * leaves, the administrative roles, OpenDJ's location entries, then the
 * subentries of every point; the LDIF is that list in order, so load
 * order (which decides union order) is creation order.  All randomness
 * comes from one splitmix64 stream seeded by the case's seed and flags.
 */
#include "collective_gen.h"

#include "acre.h"

#include <stdarg.h>
#include <string.h>
#include <talloc.h>

/* clang-format off */
const char acreG_coll_opendj_schema[] =
    "attributetype ( 1.3.6.1.4.1.26027.1.1.606 "
    "NAME 'collectiveConflictBehavior' "
    "SYNTAX 1.3.6.1.4.1.26027.1.3.6 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.26027.1.1.621 NAME 'inheritFromDNAttribute' "
    "EQUALITY objectIdentifierMatch "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.26027.1.1.622 NAME 'inheritFromBaseRDN' "
    "EQUALITY distinguishedNameMatch "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.26027.1.1.623 NAME 'inheritFromRDNType' "
    "EQUALITY objectIdentifierMatch "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.26027.1.1.624 "
    "NAME 'inheritFromRDNAttribute' EQUALITY objectIdentifierMatch "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.26027.1.1.625 NAME 'inheritAttribute' "
    "EQUALITY objectIdentifierMatch "
    "SYNTAX 1.3.6.1.4.1.1466.115.121.1.38 )\n"
    "objectclass ( 1.3.6.1.4.1.26027.1.2.238 "
    "NAME 'inheritedCollectiveAttributeSubentry' SUP subentry STRUCTURAL "
    "MUST inheritAttribute MAY collectiveConflictBehavior )\n"
    "objectclass ( 1.3.6.1.4.1.26027.1.2.239 "
    "NAME 'inheritedFromDNCollectiveAttributeSubentry' "
    "SUP inheritedCollectiveAttributeSubentry STRUCTURAL "
    "MUST inheritFromDNAttribute )\n"
    "objectclass ( 1.3.6.1.4.1.26027.1.2.240 "
    "NAME 'inheritedFromRDNCollectiveAttributeSubentry' "
    "SUP inheritedCollectiveAttributeSubentry STRUCTURAL "
    "MUST ( inheritFromRDNAttribute $ inheritFromRDNType $ "
    "inheritFromBaseRDN ) )\n";

/* clang-format on */

/* ------------------------------------------------------------------------
 * Randomness: splitmix64
 */

struct rng {
    uint64_t s;
};

static uint64_t
next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A number in [0, n); 0 when n is 0. */
static unsigned
below(struct rng *r, unsigned n)
{
    return n ? (unsigned)(next(r) % n) : 0;
}

/* 1 with probability p percent. */
static int
pct(struct rng *r, unsigned p)
{
    return below(r, 100) < p;
}

#define PICK(r, v) ((v)[below((r), sizeof(v) / sizeof((v)[0]))])

/* ------------------------------------------------------------------------
 * The entries being built
 */

enum kind { K_SUFFIX, K_OU, K_PERSON, K_LEAF, K_SUB, K_LOCS, K_LOC };

#define R_SPECIFIC 1u
#define R_INNER    2u

struct node {
    char *dn;
    int parent; /* -1 for a suffix */
    enum kind kind;
    char *text; /* the record's lines after "dn:" */
    unsigned roles;
    int locs; /* index of its ou=locations entry, -1 none */
};

struct gen {
    void *ctx;
    struct rng r;
    unsigned flags;
    struct node *v;
    unsigned n;
    unsigned counter;
    int nomem;
};

/* A new entry named rdn below parent (-1: a suffix). */
static int
add(struct gen *G, int parent, const char *rdn, enum kind kind)
{
    struct node *v = talloc_realloc(G->ctx, G->v, struct node, G->n + 1);

    if (!v) {
        G->nomem = 1;
        return 0;
    }
    G->v = v;
    v = &G->v[G->n];
    memset(v, 0, sizeof(*v));
    v->dn = parent < 0 ? talloc_strdup(G->ctx, rdn)
                       : talloc_asprintf(G->ctx, "%s,%s", rdn, G->v[parent].dn);
    v->parent = parent;
    v->kind = kind;
    v->text = talloc_strdup(G->ctx, "");
    v->locs = -1;
    if (!v->dn || !v->text)
        G->nomem = 1;
    return (int)G->n++;
}

/* Append one "attr: value" line to entry k. */
static void __attribute__((format(printf, 3, 4)))
line(struct gen *G, int k, const char *fmt, ...)
{
    va_list ap;
    char *t;

    va_start(ap, fmt);
    t = talloc_vasprintf(G->ctx, fmt, ap);
    va_end(ap);
    if (t)
        t = talloc_asprintf_append(G->v[k].text, "%s\n", t);
    if (!t)
        G->nomem = 1;
    else
        G->v[k].text = t;
}

/* Depth of k below its suffix. */
static unsigned
depth(const struct gen *G, int k)
{
    unsigned d = 0;

    while (G->v[k].parent >= 0) {
        k = G->v[k].parent;
        d++;
    }
    return d;
}

/* 1 when k is a (strictly, when strict) below a. */
static int
below_of(const struct gen *G, int k, int a, int strict)
{
    if (strict)
        k = G->v[k].parent;
    for (; k >= 0; k = G->v[k].parent)
        if (k == a)
            return 1;
    return 0;
}

/* A random entry of one of the kinds in mask (1 << kind) at or below a
 * (strictly below with strict; anywhere when a is -1), or -1. */
static int
random_below(struct gen *G, int a, unsigned mask, int strict)
{
    unsigned cand = 0;
    int pick = -1;

    for (unsigned k = 0; k < G->n; k++)
        if ((mask & (1u << G->v[k].kind)) &&
            (a < 0 || below_of(G, (int)k, a, strict)) &&
            below(&G->r, ++cand) == 0)
            pick = (int)k; /* reservoir sampling */
    return pick;
}

/* The name of k relative to a (k below a). */
static char *
relative(struct gen *G, int k, int a)
{
    size_t n = strlen(G->v[k].dn) - strlen(G->v[a].dn) - 1;

    return talloc_strndup(G->ctx, G->v[k].dn, n);
}

/* ------------------------------------------------------------------------
 * Value pools: members differ in case or spaces only, on purpose
 */

static const char *const cities[] = {"Paris", "paris", "PARIS",    "Oslo",
                                     "oslo",  "Rome",  "New York", "new  york"};
static const char *const units[] = {
    "Sales", "sales", "R&D", "r&d", "Support Desk", "support  desk", "Legal"};
static const char *const phones[] = {"+1 555 0100", "+15550100", "+1-555-0100",
                                     "+44 20 7946 0000", "+442079460000"};
static const char *const codes[] = {"75001", "0150", "10001", "75 001"};
static const char *const orgs[] = {"Example", "example", "EXAMPLE  Corp",
                                   "example corp"};
static const char *const states[] = {"CA", "ca", "NY", "Oslo  County"};
static const char *const streets[] = {"1 Main St", "1 main st", "2 Side Rd",
                                      "2  SIDE RD"};
static const char *const words[] = {"alpha", "Alpha", "beta", "gamma  ray",
                                    "Gamma Ray"};

/* The collective types, their OIDs and value pools. */
struct ctype {
    const char *name, *oid;
    const char *const *pool;
    unsigned npool;
};

#define CT(n, o, p)                       \
    {                                     \
        n, o, p, sizeof(p) / sizeof(p[0]) \
    }
static const struct ctype ctypes[] = {
    CT("c-l", "2.5.4.7.1", cities),
    CT("c-ou", "2.5.4.11.1", units),
    CT("c-o", "2.5.4.10.1", orgs),
    CT("c-st", "2.5.4.8.1", states),
    CT("c-street", "2.5.4.9.1", streets),
    CT("c-PostalCode", "2.5.4.17.1", codes),
    CT("c-TelephoneNumber", "2.5.4.20.1", phones),
    CT("c-FacsimileTelephoneNumber", "2.5.4.23.1", phones),
};
#define NCTYPES (sizeof(ctypes) / sizeof(ctypes[0]))

/* Types OpenDJ makes collective with ;collective, and inherits. */
static const char *const plain_types[] = {"description", "postalCode", "l",
                                          "telephoneNumber", "st"};

/* The pool of a plain type; *n its size. */
static const char *const *
plain_pool(const char *type, unsigned *n)
{
#define POOL(p) (*n = sizeof(p) / sizeof(p[0]), p)
    if (!strcmp(type, "postalCode"))
        return POOL(codes);
    if (!strcmp(type, "l"))
        return POOL(cities);
    if (!strcmp(type, "telephoneNumber"))
        return POOL(phones);
    if (!strcmp(type, "st"))
        return POOL(states);
    if (!strcmp(type, "street"))
        return POOL(streets);
    return POOL(words);
#undef POOL
}

/* A crude key under which values of the pools that any equality rule
 * could find equal (case, spaces, hyphens) are the same. */
static char *
crude(void *ctx, const char *v)
{
    char *t = talloc_strdup(ctx, v), *o = t;

    for (const char *p = v; t && *p; p++)
        if (*p != ' ' && *p != '-')
            *o++ = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    if (t)
        *o = '\0';
    return t;
}

/*
 * Up to m lines "desc: value" on entry k with values of pool[0..n) that
 * no equality rule finds equal (slapadd refuses duplicate values).
 */
static void
values(struct gen *G, int k, const char *desc, const char *const *pool,
       unsigned n, unsigned m)
{
    char *keys[8];
    unsigned nk = 0;

    for (unsigned j = 0; j < m && j < 8; j++) {
        const char *v = pool[below(&G->r, n)];
        char *key = crude(G->ctx, v);
        unsigned q = 0;
        if (!key) {
            G->nomem = 1;
            return;
        }
        while (q < nk && strcmp(keys[q], key))
            q++;
        if (q < nk)
            continue;
        keys[nk++] = key;
        line(G, k, "%s: %s", desc, v);
    }
}

/* ------------------------------------------------------------------------
 * The tree
 */

static void
suffixes(struct gen *G, int *other)
{
    int s = add(G, -1, "dc=example,dc=com", K_SUFFIX);

    line(G, s, "objectClass: top");
    line(G, s, "objectClass: dcObject");
    line(G, s, "objectClass: organization");
    line(G, s, "dc: example");
    line(G, s, "o: %s", PICK(&G->r, orgs));
    if (pct(&G->r, 40))
        line(G, s, "description: %s", PICK(&G->r, words));
    *other = -1;
    if (pct(&G->r, 30)) {
        *other = add(G, -1, "o=other", K_SUFFIX);
        line(G, *other, "objectClass: organization");
        line(G, *other, "o: other");
    }
}

static const char *const ou_names[] = {"sales", "eng", "ops",
                                       "hr",    "lab", "research"};

/* OUs nested 1-4 deep below the suffixes. */
static void
ous(struct gen *G, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        int p;
        do
            p = random_below(G, -1, 1u << K_SUFFIX | 1u << K_OU, 0);
        while (p > 0 && depth(G, p) >= 4);
        if (p < 0 || (!below_of(G, p, 0, 0) && pct(&G->r, 60)))
            p = 0; /* keep the second suffix small */
        char *rdn = talloc_asprintf(G->ctx, "ou=%s%u", PICK(&G->r, ou_names),
                                    ++G->counter);
        int o = add(G, p, rdn, K_OU);
        line(G, o, "objectClass: organizationalUnit");
        line(G, o, "ou: %s", rdn + 3);
        if (pct(&G->r, 40))
            line(G, o, "description: %s", PICK(&G->r, words));
        if (pct(&G->r, 30))
            line(G, o, "l: %s", PICK(&G->r, cities));
        if (pct(&G->r, 20))
            line(G, o, "telephoneNumber: %s", PICK(&G->r, phones));
        if (pct(&G->r, 15))
            line(G, o, "st: %s", PICK(&G->r, states));
    }
}

static void
person_attrs(struct gen *G, int k)
{
    if (pct(&G->r, 40))
        line(G, k, "l: %s", PICK(&G->r, cities));
    if (pct(&G->r, 30))
        line(G, k, "telephoneNumber: %s", PICK(&G->r, phones));
    if (pct(&G->r, 25))
        line(G, k, "description: %s", PICK(&G->r, words));
    if (pct(&G->r, 15))
        line(G, k, "postalCode: %s", PICK(&G->r, codes));
    if (pct(&G->r, 20))
        line(G, k, "ou: %s", PICK(&G->r, units));
    if (pct(&G->r, 10))
        line(G, k, "st: %s", PICK(&G->r, states));
}

/* One leaf below a container (or, sometimes, below a person). */
static void
leaf(struct gen *G)
{
    unsigned mask = 1u << K_SUFFIX | 1u << K_OU;
    int p = random_below(G, -1, pct(&G->r, 15) ? 1u << K_PERSON : mask, 0);
    unsigned what = below(&G->r, 10), id = ++G->counter;
    char *rdn;
    int k;

    if (p < 0)
        p = random_below(G, -1, mask, 0);
    if (what < 6) {
        rdn = talloc_asprintf(G->ctx, "cn=%s%u", PICK(&G->r, words), id);
        for (char *c = rdn; *c; c++)
            if (*c == ' ')
                *c = '-';
        k = add(G, p, rdn, K_PERSON);
        switch (below(&G->r, 4)) {
        case 0:
            line(G, k, "objectClass: person");
            break;
        case 1:
            line(G, k, "objectClass: top");
            line(G, k, "objectClass: person");
            line(G, k, "objectClass: organizationalPerson");
            break;
        case 2:
            line(G, k, "objectClass: inetOrgPerson");
            break;
        default:
            line(G, k, "objectClass: person");
            line(G, k, "objectClass: organizationalPerson");
            line(G, k, "objectClass: inetOrgPerson");
        }
        line(G, k, "cn: %s", rdn + 3);
        line(G, k, "sn: S%u", id);
        person_attrs(G, k);
        return;
    }
    static const char *const kinds[] = {
        "device", "groupOfNames", "organizationalRole", "applicationProcess"};
    const char *oc = kinds[what - 6];
    rdn = talloc_asprintf(G->ctx, "cn=%.3s%u", oc, id);
    k = add(G, p, rdn, K_LEAF);
    line(G, k, "objectClass: %s", oc);
    line(G, k, "cn: %s", rdn + 3);
    if (!strcmp(oc, "groupOfNames"))
        line(G, k, "member: %s", G->v[0].dn);
    if (!strcmp(oc, "device") && pct(&G->r, 50))
        line(G, k, "l: %s", PICK(&G->r, cities));
    if (pct(&G->r, 30))
        line(G, k, "description: %s", PICK(&G->r, words));
}

/* Exclusions on ordinary entries, OpenDJ references on persons. */
static void
entry_extras(struct gen *G)
{
    for (unsigned k = 0; k < G->n; k++) {
        struct node *e = &G->v[k];
        if (e->kind == K_SUB || e->kind == K_LOCS || e->kind == K_LOC)
            continue;
        if (pct(&G->r, 12)) {
            unsigned t = below(&G->r, NCTYPES);
            line(G, (int)k, "collectiveExclusions: %s",
                 pct(&G->r, 30) ? ctypes[t].oid : ctypes[t].name);
            if (pct(&G->r, 25)) /* another type */
                line(
                    G, (int)k, "collectiveExclusions: %s",
                    ctypes[(t + 1 + below(&G->r, NCTYPES - 1)) % NCTYPES].name);
        } else if (pct(&G->r, 4)) {
            line(G, (int)k, "collectiveExclusions: %s",
                 pct(&G->r, 50) ? "excludeAllCollectiveAttributes"
                                : "2.5.18.0");
        }
        if (!(G->flags & ACREG_GEN_OPENDJ) || e->kind != K_PERSON)
            continue;
        if (pct(&G->r, 45)) {
            int m = random_below(G, -1, 1u << K_PERSON, 0);
            if (m < 0 || pct(&G->r, 8))
                line(G, (int)k, "manager: cn=ghost,dc=example,dc=com");
            else
                line(G, (int)k, "manager: %s", G->v[m].dn);
        }
        if (pct(&G->r, 15)) {
            int m = random_below(G, -1, 1u << K_OU | 1u << K_PERSON, 0);
            if (m >= 0)
                line(G, (int)k, "seeAlso: %s", G->v[m].dn);
        }
    }
}

/* Administrative roles on the suffixes and OUs. */
static void
roles(struct gen *G, int other)
{
    for (unsigned k = 0; k < G->n; k++) {
        struct node *e = &G->v[k];
        unsigned r = 0;
        if ((int)k == other)
            r = R_INNER; /* inner with no specific above */
        else if (e->kind == K_SUFFIX)
            r = pct(&G->r, 65) ? R_SPECIFIC : pct(&G->r, 25) ? R_INNER : 0;
        else if (e->kind == K_OU)
            r = pct(&G->r, 15) ? R_SPECIFIC : pct(&G->r, 25) ? R_INNER : 0;
        if (r && pct(&G->r, 3))
            r = R_SPECIFIC | R_INNER;
        e->roles = r;
        if (r & R_SPECIFIC) {
            static const char *const v[] = {
                "collectiveAttributeSpecificArea", "2.5.23.5", "autonomousArea",
                "2.5.23.1", "collectiveattributespecificarea"};
            line(G, (int)k, "administrativeRole: %s", PICK(&G->r, v));
        }
        if (r & R_INNER)
            line(G, (int)k, "administrativeRole: %s",
                 pct(&G->r, 70) ? "collectiveAttributeInnerArea" : "2.5.23.6");
        if (!r && pct(&G->r, 5)) /* a role of another aspect only */
            line(G, (int)k, "administrativeRole: accessControlSpecificArea");
    }
}

/* OpenDJ: ou=locations below some points, with one locality per city. */
static void
locations(struct gen *G)
{
    static const char *const names[] = {"Paris", "Oslo", "New York"};
    unsigned n = G->n;

    for (unsigned k = 0; k < n; k++) {
        if (!G->v[k].roles || !pct(&G->r, 50))
            continue;
        int l = add(G, (int)k, "ou=locations", K_LOCS);
        line(G, l, "objectClass: organizationalUnit");
        line(G, l, "ou: locations");
        G->v[k].locs = l;
        for (unsigned j = 0; j < 3; j++) {
            if (pct(&G->r, 25))
                continue;
            char *rdn = talloc_asprintf(G->ctx, "l=%s", names[j]);
            int c = add(G, l, rdn, K_LOC);
            line(G, c, "objectClass: locality");
            line(G, c, "l: %s", names[j]);
            if (pct(&G->r, 70))
                line(G, c, "postalCode: %s", PICK(&G->r, codes));
            if (pct(&G->r, 50))
                line(G, c, "street: %s", PICK(&G->r, streets));
            if (pct(&G->r, 50))
                line(G, c, "description: %s", PICK(&G->r, words));
            if (pct(&G->r, 30))
                line(G, c, "telephoneNumber: %s", PICK(&G->r, phones));
        }
    }
}

/* ------------------------------------------------------------------------
 * Subtree specifications
 */

static const char *const classes[] = {"person",
                                      "organizationalPerson",
                                      "inetOrgPerson",
                                      "device",
                                      "organizationalUnit",
                                      "groupOfNames",
                                      "top",
                                      "2.5.6.6",
                                      "2.5.6.14",
                                      "unknownClass",
                                      "applicationProcess",
                                      "locality"};

static const char *const filters[] = {"(objectClass=device)",
                                      "(l=paris)",
                                      "(|(ou=sales*)(description=*))",
                                      "(!(telephoneNumber=*))",
                                      "(sn=*)",
                                      "(description=gamma ray)",
                                      "(cn>=m)",
                                      "(undefinedAttr=x)"};

static char *
refinement(struct gen *G, unsigned level)
{
    unsigned w = level >= 3 ? 0 : below(&G->r, 10);
    char *t;

    if (w < 4)
        return talloc_asprintf(G->ctx, "item:%s", PICK(&G->r, classes));
    if (w == 4)
        return talloc_asprintf(G->ctx, "\"%s\"", PICK(&G->r, filters));
    if (w == 5)
        return talloc_asprintf(G->ctx, "not:%s", refinement(G, level + 1));
    t = talloc_strdup(G->ctx, w < 8 ? "and:{" : "or:{");
    for (unsigned k = 0, n = below(&G->r, 4); t && k < n; k++)
        t = talloc_asprintf_append(t, "%s%s", k ? ", " : " ",
                                   refinement(G, level + 1));
    return talloc_strdup_append(t, " }");
}

/* Specifications that do not parse, or whose names or filter are bad:
 * the subentry applies to nothing. */
static const char *const broken[] = {
    "{ base \"ou=x\" minimum 1 }",
    "{ minimum 01 }",
    "{ Base \"ou=x\" }",
    "{ specificationFilter item person }",
    "{ base \"ou=x\"",
    "{ specificExclusions { chopBefore:\"\" } }",
    "{ base \"no dn here\" }",
    "{ specificExclusions { chopAfter:\"=x\" } }",
    "{ specificationFilter \"(cn=\" }",
    "{ specificationFilter and:{ item:person, \"cn=x\" } }",
};

/* A specification for a subentry of point a. */
static char *
spec(struct gen *G, int a)
{
    int compact = pct(&G->r, 30), base = a;
    const char *sep = compact ? "," : ", ";
    char *t = talloc_strdup(G->ctx, compact ? "{" : "{ ");
    int first = 1;

    if (pct(&G->r, 5))
        return talloc_strdup(G->ctx, PICK(&G->r, broken));
#define SEP() (first ? (first = 0, "") : sep)
    if (pct(&G->r, 30)) {
        int b = random_below(G, a, 1u << K_OU | 1u << K_PERSON, 1);
        if (b >= 0 && !pct(&G->r, 10)) {
            t = talloc_asprintf_append(t, "%sbase \"%s\"", SEP(),
                                       relative(G, b, a));
            base = b;
        } else {
            t = talloc_asprintf_append(t, "%sbase \"ou=nowhere\"", SEP());
            base = -1;
        }
    }
    if (pct(&G->r, 35)) {
        unsigned n = 1 + below(&G->r, 2);
        t = talloc_asprintf_append(t, "%sspecificExclusions {%s", SEP(),
                                   compact ? "" : " ");
        for (unsigned k = 0; k < n; k++) {
            int c = base >= 0
                        ? random_below(
                              G, base,
                              1u << K_OU | 1u << K_PERSON | 1u << K_LEAF, 1)
                        : -1;
            t = talloc_asprintf_append(
                t, "%s%s:\"%s\"", k ? sep : "",
                pct(&G->r, 50) ? "chopBefore" : "chopAfter",
                c >= 0 ? relative(G, c, base) : "ou=none");
        }
        t = talloc_strdup_append(t, compact ? "}" : " }");
    }
    if (pct(&G->r, 20))
        t = talloc_asprintf_append(t, "%sminimum %u", SEP(),
                                   1 + below(&G->r, 2));
    if (pct(&G->r, 25))
        t = talloc_asprintf_append(t, "%smaximum %u", SEP(), below(&G->r, 4));
    if (pct(&G->r, 35))
        t = talloc_asprintf_append(t, "%sspecificationFilter %s", SEP(),
                                   refinement(G, 0));
#undef SEP
    return talloc_strdup_append(t, first || compact ? "}" : " }");
}

/* ------------------------------------------------------------------------
 * Subentries
 */

static int
subentry(struct gen *G, int a, const char *const *classes_v, unsigned ncls)
{
    char *rdn = talloc_asprintf(G->ctx, "cn=sub%u", ++G->counter);
    int s = add(G, a, rdn, K_SUB);

    line(G, s, "objectClass: top");
    line(G, s, "objectClass: subentry");
    for (unsigned k = 0; k < ncls; k++)
        line(G, s, "objectClass: %s", classes_v[k]);
    line(G, s, "cn: %s", rdn + 3);
    line(G, s, "subtreeSpecification: %s", spec(G, a));
    return s;
}

static void
conflict(struct gen *G, int s)
{
    static const char *const v[] = {"real-overrides-virtual",
                                    "virtual-overrides-real",
                                    "merge-real-and-virtual"};
    static const char *const odd[] = {"Virtual-Overrides-Real",
                                      "MERGE-REAL-AND-VIRTUAL"};

    if (pct(&G->r, 5))
        line(G, s, "collectiveConflictBehavior: %s", PICK(&G->r, odd));
    else
        line(G, s, "collectiveConflictBehavior: %s", PICK(&G->r, v));
}

/* A collective subentry of point a with c-* values (and OpenDJ's
 * ;collective ones). */
static void
collective_subentry(struct gen *G, int a)
{
    static const char *const cls[] = {"collectiveAttributeSubentry"};
    int s = subentry(G, a, cls, 1);
    unsigned first = below(&G->r, NCTYPES), step = 1 + below(&G->r, 3);

    /* one to three distinct types, one or two values each */
    for (unsigned k = 0, n = 1 + below(&G->r, 3); k < n; k++) {
        const struct ctype *t = &ctypes[(first + k * step) % NCTYPES];
        values(G, s, t->name, t->pool, t->npool, 1 + below(&G->r, 2));
    }
    if (!(G->flags & ACREG_GEN_OPENDJ))
        return;
    if (pct(&G->r, 55)) {
        const char *type = PICK(&G->r, plain_types);
        char *desc = talloc_asprintf(G->ctx, "%s%s;collective", type,
                                     pct(&G->r, 15) ? ";lang-en" : "");
        unsigned n;
        const char *const *pool = plain_pool(type, &n);
        if (!desc)
            G->nomem = 1;
        else
            values(G, s, desc, pool, n, pct(&G->r, 30) ? 2 : 1);
    }
    if (pct(&G->r, 60))
        conflict(G, s);
}

/* OpenDJ: inherited collective attributes from a DN or an RDN. */
static void
inherited_subentry(struct gen *G, int a)
{
    static const char *const dn_cls[] = {
        "inheritedCollectiveAttributeSubentry",
        "inheritedFromDNCollectiveAttributeSubentry",
        "collectiveAttributeSubentry"};
    static const char *const rdn_cls[] = {
        "inheritedCollectiveAttributeSubentry",
        "inheritedFromRDNCollectiveAttributeSubentry"};
    static const char *const inh[] = {"telephoneNumber", "postalCode",
                                      "description", "l", "street"};
    int by_rdn = G->v[a].locs >= 0 && pct(&G->r, 50), s, also = 0;

    if (by_rdn) {
        s = subentry(G, a, rdn_cls, 2);
        line(G, s, "inheritFromRDNAttribute: l");
        line(G, s, "inheritFromRDNType: %s", pct(&G->r, 85) ? "l" : "cn");
        line(G, s, "inheritFromBaseRDN: %s",
             pct(&G->r, 90) ? "ou=locations" : "ou=nowhere");
    } else {
        also = pct(&G->r, 10);
        s = subentry(G, a, dn_cls, also ? 3 : 2);
        line(G, s, "inheritFromDNAttribute: %s",
             pct(&G->r, 80) ? "manager" : "seeAlso");
        if (also) /* its own value is replaced by the inherited one */
            line(G, s, "c-l: %s", PICK(&G->r, cities));
    }
    for (unsigned k = 0, n = 1 + below(&G->r, 2), j = below(&G->r, 5); k < n;
         k++)
        line(G, s, "inheritAttribute: %s", inh[(j + k) % 5]);
    if (pct(&G->r, 40))
        conflict(G, s);
}

static void
subentries(struct gen *G)
{
    unsigned n = G->n;

    for (unsigned k = 0; k < n; k++) {
        int point = G->v[k].roles != 0;
        int loose = !point &&
                    (G->v[k].kind == K_OU || G->v[k].kind == K_SUFFIX) &&
                    pct(&G->r, 12);
        if (!point && !loose)
            continue;
        for (unsigned j = 0, m = 1 + below(&G->r, point ? 3 : 1); j < m; j++)
            collective_subentry(G, (int)k);
        if ((G->flags & ACREG_GEN_OPENDJ) && pct(&G->r, 45))
            inherited_subentry(G, (int)k);
        if (pct(&G->r, 5)) { /* a subentry of no collective kind */
            int s = subentry(G, (int)k, NULL, 0);
            if (G->flags & ACREG_GEN_OPENDJ)
                line(G, s, "description;collective: %s", PICK(&G->r, words));
        }
    }
}

/* ------------------------------------------------------------------------
 * slapo-collect settings
 */

static void
collectinfo(struct gen *G, struct acreG_coll_case *c)
{
    static const char *const attrs[] = {
        "ou", "l", "description", "telephoneNumber", "o", "st"};
    unsigned n = 1 + below(&G->r, 3);

    c->ci = talloc_zero_array(c, struct acreR_collectinfo, n);
    if (!c->ci) {
        G->nomem = 1;
        return;
    }
    for (unsigned k = 0; k < n; k++) {
        struct acreR_collectinfo *ci = &c->ci[c->nci];
        int e = random_below(G, -1, 1u << K_SUFFIX | 1u << K_OU, 0);
        const char *dn =
            e < 0 || pct(&G->r, 10) ? "ou=ghost,dc=example,dc=com" : G->v[e].dn;
        unsigned j;
        for (j = 0; j < c->nci; j++)
            if (!strcmp(c->ci[j].dn, dn))
                break;
        if (j < c->nci)
            continue; /* slapd refuses a DN configured twice */
        const char **v = talloc_array(c->ci, const char *, 3);
        if (!v) {
            G->nomem = 1;
            return;
        }
        ci->dn = talloc_strdup(c->ci, dn);
        ci->nattrs = 1 + below(&G->r, 3);
        for (j = 0; j < ci->nattrs; j++)
            v[j] = PICK(&G->r, attrs);
        ci->attrs = v;
        c->nci++;
    }
}

/* ------------------------------------------------------------------------
 * The case
 */

static char *
ldif(struct gen *G, void *ctx)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned k = 0; t && k < G->n; k++)
        t = talloc_asprintf_append(t, "%sdn: %s\n%s", k ? "\n" : "", G->v[k].dn,
                                   G->v[k].text);
    return t;
}

int
acreG_coll_gen(void *mem_ctx, uint64_t seed, unsigned flags,
               struct acreG_coll_case **out)
{
    const unsigned known =
        ACREG_GEN_OPENDJ | ACREG_GEN_COLLECT | ACREG_GEN_STACK | ACREG_GEN_X501;
    struct gen G = {0};
    struct acreG_coll_case *c;
    unsigned nleaves, nous;
    int other;

    if (!out || (flags & ~known) ||
        (flags & (ACREG_GEN_STACK | ACREG_GEN_X501)) ==
            (ACREG_GEN_STACK | ACREG_GEN_X501))
        return ACRE_ERR_INVAL;
    if (!(c = talloc_zero(mem_ctx, struct acreG_coll_case)))
        return ACRE_ERR_NOMEM;
    G.ctx = talloc_new(NULL);
    G.r.s = seed ^ ((uint64_t)flags << 40);
    G.flags = flags;
    c->seed = seed;
    /* sizes: mostly small, sometimes up to 300 entries in all */
    nous = 3 + below(&G.r, pct(&G.r, 20) ? 30 : 12);
    nleaves = 20 + below(&G.r, pct(&G.r, 20) ? 220 : 70);
    suffixes(&G, &other);
    ous(&G, nous);
    for (unsigned k = 0; k < nleaves; k++)
        leaf(&G);
    roles(&G, other);
    entry_extras(&G);
    if (flags & ACREG_GEN_OPENDJ)
        locations(&G);
    subentries(&G);
    if (flags & ACREG_GEN_COLLECT)
        collectinfo(&G, c);
    c->flags = flags & ACREG_GEN_STACK  ? ACRER_COLL_STACK
               : flags & ACREG_GEN_X501 ? 0
               : pct(&G.r, 50)          ? ACRER_COLL_STACK
                                        : 0;
    c->ldif = ldif(&G, c);
    if (flags & ACREG_GEN_OPENDJ)
        c->schema_text = talloc_strdup(c, acreG_coll_opendj_schema);
    if (G.nomem || !c->ldif ||
        ((flags & ACREG_GEN_OPENDJ) && !c->schema_text)) {
        talloc_free(G.ctx);
        talloc_free(c);
        return ACRE_ERR_NOMEM;
    }
    talloc_free(G.ctx);
    *out = c;
    return 0;
}
