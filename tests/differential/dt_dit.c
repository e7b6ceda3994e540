/*
 * dt_dit.c -- the seeded test-DIT generator (see dt_dit.h).
 *
 * Shape: dc=example,dc=com; under it ou=People (departments, nested teams),
 * ou=Groups (with ou=Posix), ou=Devices and ou=Roles; then people
 * (person, organizationalPerson, inetOrgPerson, some with posixAccount),
 * groups of three kinds that point at the people, devices (some placed
 * under a person, so leaves have children too) and organizational roles.
 *
 * Every value is added through add(), which refuses a second value equal
 * to an earlier one of the same attribute under a conservative version of
 * the type's equality rule (dup_key), so slapadd accepts every entry.
 */
#include "dt_dit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- attribute types ----------------------------------------------------- */

const struct dt_type dt_types[] = {
    {"objectClass", NULL, "2.5.4.0", DT_OID, NULL},
    {"cn", "commonName", "2.5.4.3", DT_CI, "name"},
    {"sn", "surname", "2.5.4.4", DT_CI, "name"},
    {"givenName", "gn", "2.5.4.42", DT_CI, "name"},
    {"name", NULL, "2.5.4.41", DT_CI, NULL},
    {"ou", "organizationalUnitName", "2.5.4.11", DT_CI, "name"},
    {"o", "organizationName", "2.5.4.10", DT_CI, "name"},
    {"l", "localityName", "2.5.4.7", DT_CI, "name"},
    {"st", "stateOrProvinceName", "2.5.4.8", DT_CI, "name"},
    {"title", NULL, "2.5.4.12", DT_CI, "name"},
    {"description", NULL, "2.5.4.13", DT_CI, NULL},
    {"postalCode", NULL, "2.5.4.17", DT_CI, NULL},
    {"businessCategory", NULL, "2.5.4.15", DT_CI, NULL},
    {"serialNumber", NULL, "2.5.4.5", DT_PRINT, NULL},
    {"telephoneNumber", NULL, "2.5.4.20", DT_TEL, NULL},
    {"mobile", "mobileTelephoneNumber", "0.9.2342.19200300.100.1.41", DT_TEL,
     NULL},
    {"x121Address", NULL, "2.5.4.24", DT_NUMSTR, NULL},
    {"postalAddress", NULL, "2.5.4.16", DT_LIST, NULL},
    {"userPassword", NULL, "2.5.4.35", DT_OCTET, NULL},
    {"distinguishedName", NULL, "2.5.4.49", DT_DN, NULL},
    {"member", NULL, "2.5.4.31", DT_DN, "distinguishedName"},
    {"owner", NULL, "2.5.4.32", DT_DN, "distinguishedName"},
    {"roleOccupant", NULL, "2.5.4.33", DT_DN, "distinguishedName"},
    {"seeAlso", NULL, "2.5.4.34", DT_DN, "distinguishedName"},
    {"uniqueMember", NULL, "2.5.4.50", DT_NAMEUID, NULL},
    {"uid", "userid", "0.9.2342.19200300.100.1.1", DT_CI, NULL},
    {"mail", "rfc822Mailbox", "0.9.2342.19200300.100.1.3", DT_IA5CI, NULL},
    {"dc", "domainComponent", "0.9.2342.19200300.100.1.25", DT_IA5CI, NULL},
    {"manager", NULL, "0.9.2342.19200300.100.1.10", DT_DN, NULL},
    {"roomNumber", NULL, "0.9.2342.19200300.100.1.6", DT_CI, NULL},
    {"labeledURI", NULL, "1.3.6.1.4.1.250.1.57", DT_CE, NULL},
    {"displayName", NULL, "2.16.840.1.113730.3.1.241", DT_CI, NULL},
    {"employeeNumber", NULL, "2.16.840.1.113730.3.1.3", DT_CI, NULL},
    {"employeeType", NULL, "2.16.840.1.113730.3.1.4", DT_CI, NULL},
    {"preferredLanguage", NULL, "2.16.840.1.113730.3.1.39", DT_CI, NULL},
    {"carLicense", NULL, "2.16.840.1.113730.3.1.1", DT_CI, NULL},
    {"departmentNumber", NULL, "2.16.840.1.113730.3.1.2", DT_CI, NULL},
    {"uidNumber", NULL, "1.3.6.1.1.1.1.0", DT_INT, NULL},
    {"gidNumber", NULL, "1.3.6.1.1.1.1.1", DT_INT, NULL},
    {"gecos", NULL, "1.3.6.1.1.1.1.2", DT_IA5CI, NULL},
    {"homeDirectory", NULL, "1.3.6.1.1.1.1.3", DT_IA5CE, NULL},
    {"loginShell", NULL, "1.3.6.1.1.1.1.4", DT_IA5CE, NULL},
    {"memberUid", NULL, "1.3.6.1.1.1.1.12", DT_IA5CE, NULL},
};

const unsigned dt_ntypes = DT_NELEM(dt_types);

const struct dt_type *
dt_type_find(const char *s, size_t n)
{
    for (unsigned i = 0; i < dt_ntypes; i++) {
        const struct dt_type *t = &dt_types[i];
        if ((strlen(t->name) == n && !strncasecmp(t->name, s, n)) ||
            (t->alias && strlen(t->alias) == n && !strncasecmp(t->alias, s, n)))
            return t;
    }
    return NULL;
}

/* ---- case of letters ----------------------------------------------------- */

/* Accented letters whose case the generators change: lower, upper. */
static const char *const case_pairs[][2] = {
    {"ä", "Ä"}, {"ö", "Ö"}, {"ü", "Ü"}, {"é", "É"}, {"å", "Å"},
    {"ø", "Ø"}, {"ç", "Ç"}, {"ñ", "Ñ"}, {"ë", "Ë"}, {"ã", "Ã"},
};

/* Length of the pair letter at s (in either case), *idx its row. */
static size_t
pair_at(const char *s, unsigned *idx, int *upper)
{
    for (unsigned i = 0; i < DT_NELEM(case_pairs); i++)
        for (int u = 0; u < 2; u++) {
            size_t n = strlen(case_pairs[i][u]);
            if (!strncmp(s, case_pairs[i][u], n)) {
                *idx = i;
                *upper = u;
                return n;
            }
        }
    return 0;
}

void
dt_case_variant(struct dt_rng *r, const char *s, int mode, struct dt_str *out)
{
    while (*s) {
        int up = mode == 2 ? (int)dt_rng_below(r, 2) : mode;
        unsigned idx;
        int was;
        size_t n = pair_at(s, &idx, &was);

        if (n) {
            dt_str_puts(out, case_pairs[idx][up]);
            s += n;
        } else if (*s >= 'a' && *s <= 'z' && up) {
            dt_str_putc(out, (char)(*s++ - 32));
        } else if (*s >= 'A' && *s <= 'Z' && !up) {
            dt_str_putc(out, (char)(*s++ + 32));
        } else {
            dt_str_putc(out, *s++);
        }
    }
}

/* ---- duplicate detection ------------------------------------------------- */

/* Put in out a key such that values equal under t's equality rule have
 * equal keys, for slapd and for RFC 4518 (which folds sharp s to "ss",
 * where slapd does not); it may merge values both would keep apart. */
static void
dup_key(const struct dt_type *t, const char *v, struct dt_str *out)
{
    struct dt_str low;
    int space = 0;

    dt_str_init(&low);
    dt_case_variant(NULL, v, 0, &low);
    for (const char *p = low.p; *p; p++) {
        if (!strncmp(p, "\xef\xac\x81", 3)) { /* the fi ligature */
            dt_str_puts(out, "fi");
            p += 2;
            continue;
        }
        if (!strncmp(p, "\xc3\x9f", 2)) { /* sharp s: "ss" by full folding */
            dt_str_puts(out, "ss");
            p += 1;
            continue;
        }
        if (!strncmp(p, "\xef\xac\x83", 3)) { /* the ffi ligature */
            dt_str_puts(out, "ffi");
            p += 2;
            continue;
        }
        if (*p == ' ' || *p == '-' || *p == '$' || *p == '#') {
            space = out->len > 0;
            continue;
        }
        if (space && t->kind != DT_TEL && t->kind != DT_NUMSTR)
            dt_str_putc(out, ' ');
        space = 0;
        dt_str_putc(out, *p);
    }
    dt_str_free(&low);
}

/* ---- building entries ---------------------------------------------------- */

static struct dt_attr *
attr_get(struct dt_entry *e, const char *desc)
{
    for (unsigned i = 0; i < e->nattrs; i++)
        if (!strcasecmp(e->attrs[i].desc, desc))
            return &e->attrs[i];
    if (e->nattrs == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->attrs = dt_realloc(e->attrs, e->cap * sizeof *e->attrs);
    }
    struct dt_attr *a = &e->attrs[e->nattrs++];
    size_t tl = strcspn(desc, ";");
    memset(a, 0, sizeof *a);
    a->desc = dt_strdup(desc);
    a->type = dt_type_find(desc, tl);
    if (!a->type)
        dt_die("dt_dit: type of %s not in the table", desc);
    return a;
}

static int
has_dup(const struct dt_attr *a, const char *v)
{
    struct dt_str k1, k2;
    int dup = 0;

    dt_str_init(&k1);
    dt_str_init(&k2);
    dup_key(a->type, v, &k1);
    for (unsigned i = 0; i < a->nvals && !dup; i++) {
        dt_str_clear(&k2);
        dup_key(a->type, a->vals[i], &k2);
        dup = !strcmp(k1.p, k2.p);
    }
    dt_str_free(&k1);
    dt_str_free(&k2);
    return dup;
}

/* add -- add value v to attribute desc of e unless it would duplicate one
 * (or the type is single-valued and has one).  Returns 1 when added. */
static int
add(struct dt_entry *e, const char *desc, const char *v)
{
    static const char *const single[] = {
        "uidNumber",         "gidNumber",      "homeDirectory",
        "loginShell",        "gecos",          "displayName",
        "preferredLanguage", "employeeNumber", "dc"};
    struct dt_attr *a = attr_get(e, desc);

    for (unsigned i = 0; i < DT_NELEM(single); i++)
        if (a->nvals && !strcasecmp(desc, single[i]))
            return 0;
    if (has_dup(a, v))
        return 0;
    if (a->nvals == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 4;
        a->vals = dt_realloc(a->vals, a->cap * sizeof *a->vals);
    }
    a->vals[a->nvals++] = dt_strdup(v);
    return 1;
}

/* Escape an RDN value (RFC 4514 2.4) into out. */
static void
rdn_escape(const char *v, struct dt_str *out)
{
    size_t n = strlen(v);

    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (strchr(",+\"\\<>;=", c) || (i == 0 && (c == ' ' || c == '#')) ||
            (i == n - 1 && c == ' '))
            dt_str_putc(out, '\\');
        dt_str_putc(out, c);
    }
}

/* Is the DN (compared by dup_key on the whole string) already used? */
static int
dn_taken(const struct dt_dit *d, const char *dn)
{
    static const struct dt_type any = {"", NULL, "", DT_CI, NULL};
    struct dt_str k1, k2;
    int taken = 0;

    dt_str_init(&k1);
    dt_str_init(&k2);
    dup_key(&any, dn, &k1);
    for (unsigned i = 0; i < d->n && !taken; i++) {
        dt_str_clear(&k2);
        dup_key(&any, d->v[i].dn, &k2);
        taken = !strcmp(k1.p, k2.p);
    }
    dt_str_free(&k1);
    dt_str_free(&k2);
    return taken;
}

/* new_entry -- append an entry named rdn (already escaped) under parent
 * (-1: the suffix itself is rdn).  Returns NULL when the DN is taken. */
static struct dt_entry *
new_entry(struct dt_dit *d, int parent, const char *rdn, enum dt_class cls)
{
    struct dt_str dn;

    dt_str_init(&dn);
    dt_str_puts(&dn, rdn);
    if (parent >= 0) {
        dt_str_putc(&dn, ',');
        dt_str_puts(&dn, d->v[parent].dn);
    }
    if (dn_taken(d, dn.p)) {
        dt_str_free(&dn);
        return NULL;
    }
    if (d->n == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 64;
        d->v = dt_realloc(d->v, d->cap * sizeof *d->v);
    }
    struct dt_entry *e = &d->v[d->n++];
    memset(e, 0, sizeof *e);
    e->dn = dt_str_take(&dn);
    dt_str_free(&dn);
    e->parent = parent;
    e->depth = parent >= 0 ? d->v[parent].depth + 1 : 2;
    e->cls = cls;
    return e;
}

/* named -- a new entry whose RDN is type=value (value also added). */
static struct dt_entry *
named(struct dt_dit *d, int parent, const char *type, const char *value,
      enum dt_class cls)
{
    struct dt_str rdn;
    struct dt_entry *e;

    dt_str_init(&rdn);
    dt_str_printf(&rdn, "%s=", type);
    rdn_escape(value, &rdn);
    e = new_entry(d, parent, rdn.p, cls);
    dt_str_free(&rdn);
    return e;
}

/* ---- value pools --------------------------------------------------------- */

static const char *const given[] = {
    "John", "Jane",   "Alice",        "Bob",      "Ana", "José",
    "Zoë",  "Jürgen", "Li",           "Wei",      "Sam", "Chris",
    "Pat",  "Lee",    "Kim",          "Max",      "Eve", "Ola",
    "Åsa",  "Noël",   "Marie-Claire", "Jean Paul"};
static const char *const surnames[] = {
    "Smith",  "SMITH",    "smith",      "Doe",          "Müller",
    "MÜLLER", "Garcia",   "O'Brien",    "van der Berg", "Van Der  Berg",
    "Nguyen", "Kim",      "Lee",        "Smith-Jones",  "Dupont",
    "Ng",     "Øster",    "Brown",      "Black",        "White",
    "Straße", "STRASSE",  "Strasse",    "Ångström",     "Smith, Jr.",
    "Çelik",  "Hash#Tag", "Plus+Minus", "Eq=Sign"};
static const char *const cn_de[] = {"Johann Schmidt", "Hans Müller",
                                    "Jürgen Weiß", "Anna  Schmidt",
                                    "johann schmidt"};
static const char *const cn_fr[] = {"Jean Dupont", "Noël Dupré", "Marie Curie",
                                    "JEAN DUPONT"};
static const char *const descs[] = {"Team Lead",
                                    "team lead",
                                    "TEAM  LEAD",
                                    "On call",
                                    "on-call",
                                    "Remote worker",
                                    "works  from home",
                                    "Contractor (temp)",
                                    "100% remote",
                                    "a*b star",
                                    "back\\slash",
                                    "  padded value  ",
                                    "Ümlaut Straße",
                                    "ÜMLAUT STRASSE",
                                    "Oﬃce manager",
                                    "Office manager",
                                    "first  second   third",
                                    "x",
                                    "Lead, Platform",
                                    "parens (and) stars *",
                                    "ﬁnance",
                                    "Finance",
                                    "Zürich office",
                                    "zürich OFFICE"};
static const char *const titles[] = {
    "Engineer",   "Senior Engineer", "engineer", "SENIOR  ENGINEER",
    "Manager",    "Director",        "CEO",      "Sr. Engineer",
    "Head of R&D"};
static const char *const emptypes[] = {"Employee",   "employee",  "Contractor",
                                       "Intern",     "Full Time", "full-time",
                                       "full  time", "FULL TIME"};
static const char *const empnums[] = {"00042", "42",  "0",     "7",
                                      "1000",  "999", "E-100", "e-100"};
static const char *const domains[] = {"example.com", "Example.COM",
                                      "mail.example.com"};
static const char *const shells[] = {"/bin/bash", "/bin/sh", "/BIN/BASH",
                                     "/usr/bin/zsh"};
static const char *const cities[] = {"Berlin",    "berlin",    "BERLIN",
                                     "São Paulo", "New  York", "new york",
                                     "Zürich",    "ZÜRICH"};
static const char *const states[] = {"CA", "ca", "Bavaria", "NRW"};
static const char *const zips[] = {"10115", "10 115", "94105", "SW1A 1AA",
                                   "sw1a1aa"};
static const char *const postal[] = {
    "1 Main St$Springfield$USA", "1 main st $ springfield $ usa",
    "Hauptstraße 5$10115 Berlin", "PO Box 7$Town"};
static const char *const x121[] = {"12345678", "1234 5678", "000123", "98765"};
static const char *const uris[] = {
    "http://example.com/ Home", "HTTP://EXAMPLE.COM/ Home",
    "https://example.org/~jdoe", "ldap://ldap.example.com/"};
static const char *const rooms[] = {"101", "B-12", "b-12", "Room 7", "room  7"};
static const char *const langs[] = {"en", "EN", "de-CH", "fr, en;q=0.8"};
static const char *const cars[] = {"ABC 123", "abc123", "XYZ-999"};
static const char *const depnums[] = {"42", "R&D", "r&d", "Sales 1"};
static const char *const categories[] = {"Software", "software", "Hardware",
                                         "Consulting"};
static const char *const serials[] = {"SN-0001", "sn-0001", "SN 0002",
                                      "A1B2C3"};
static const char *const passwords[] = {"secret", "Secret", "{SSHA}abc"};
static const char *const orgs[] = {"Example Corp", "example corp", "ACME",
                                   "Acme  Inc."};
static const char *const depts[] = {"Engineering", "Sales",           "Support",
                                    "Research",    "Human Resources", "Finance",
                                    "Legal",       "Operations"};
static const char *const teams[] = {"Backend", "Frontend", "Platform",
                                    "EMEA",    "APAC",     "Americas",
                                    "Team A",  "Team  B",  "team b"};
static const char *const groups[] = {
    "Admins",  "Developers", "Sales Team", "All Staff", "Board",
    "On-Call", "Project X",  "project x",  "Readers",   "Writers"};
static const char *const devnames[] = {"laptop", "Printer", "printer 2",
                                       "Router", "phone",   "Badge Reader"};
static const char *const roles[] = {"Postmaster", "Security Officer",
                                    "Help Desk", "DPO", "Webmaster"};
static const int uid_special[] = {0, 5, 99, -1, 100000, 65534, 1000, 1001};
static const int gid_special[] = {0, 20, 100, -5, 1000, 1001, 5000};

/* ---- the generator's state ----------------------------------------------- */

struct gen {
    struct dt_dit *d;
    struct dt_rng r;
    int people, groups, posix, devices, roles; /* containers */
    int *homes;                                /* containers of people */
    unsigned nhomes;
    int *persons;
    unsigned npersons;
    unsigned serial; /* numbers for names and ids */
};

static void
add_int(struct dt_entry *e, const char *desc, int v)
{
    char buf[32];

    snprintf(buf, sizeof buf, "%d", v);
    add(e, desc, buf);
}

static void
add_some(struct gen *g, struct dt_entry *e, const char *desc,
         const char *const *pool, size_t n, unsigned max)
{
    unsigned k = dt_rng_below(&g->r, max + 1);

    for (unsigned i = 0; i < k; i++)
        add(e, desc, dt_rng_pick(&g->r, pool, n));
}

#define ADD_SOME(g, e, desc, pool, max) \
    add_some((g), (e), (desc), (pool), DT_NELEM(pool), (max))

/* A telephone number in one of several spellings. */
static void
phone(struct gen *g, struct dt_str *out)
{
    static const char *const cc[] = {"+1", "+44", "+49"};
    unsigned a = 200 + dt_rng_below(&g->r, 3),
             b = 1000 + dt_rng_below(&g->r, 9);
    const char *c = DT_PICK(&g->r, cc);

    switch (dt_rng_below(&g->r, 5)) {
    case 0:
        dt_str_printf(out, "%s %u %u", c, a, b);
        break;
    case 1:
        dt_str_printf(out, "%s-%u-%u", c, a, b);
        break;
    case 2:
        dt_str_printf(out, "%s%u%u", c, a, b);
        break;
    case 3:
        dt_str_printf(out, "(%u) %u", a, b);
        break;
    default:
        dt_str_printf(out, "%s %u  %u", c, a, b);
        break;
    }
}

static void
add_phones(struct gen *g, struct dt_entry *e, const char *desc, unsigned max)
{
    unsigned k = dt_rng_below(&g->r, max + 1);
    struct dt_str s;

    dt_str_init(&s);
    for (unsigned i = 0; i < k; i++) {
        dt_str_clear(&s);
        phone(g, &s);
        add(e, desc, s.p);
    }
    dt_str_free(&s);
}

/* A DN reference to a person (the suffix when there is none yet), spelt
 * in a random way.  Returns the entry's index. */
static int
person_ref(struct gen *g, struct dt_str *out)
{
    int at = 0;

    if (g->npersons)
        at = g->persons[dt_rng_below(&g->r, g->npersons)];
    if (dt_rng_chance(&g->r, 50))
        dt_str_puts(out, g->d->v[at].dn);
    else
        dt_dn_variant(&g->r, g->d->v[at].dn, out);
    return at;
}

/* Like person_ref, but never one of used[0..*nused) (a DN value twice in
 * one attribute, however spelt, is a duplicate); records the choice.
 * Returns 0 when no new person was found. */
static int
new_person_ref(struct gen *g, int *used, unsigned *nused, struct dt_str *out)
{
    for (int tries = 0; tries < 10; tries++) {
        unsigned i;
        dt_str_clear(out);
        int at = person_ref(g, out);
        for (i = 0; i < *nused && used[i] != at; i++)
            ;
        if (i == *nused) {
            used[(*nused)++] = at;
            return 1;
        }
    }
    return 0;
}

static void
add_refs(struct gen *g, struct dt_entry *e, const char *desc, unsigned min,
         unsigned max)
{
    unsigned k = min + dt_rng_below(&g->r, max - min + 1), nused = 0;
    int used[16];
    struct dt_str s;

    dt_str_init(&s);
    for (unsigned i = 0; i < k && i < DT_NELEM(used); i++)
        if (new_person_ref(g, used, &nused, &s))
            add(e, desc, s.p);
    dt_str_free(&s);
}

/* ---- containers ---------------------------------------------------------- */

static void
add_ou_attrs(struct gen *g, struct dt_entry *e)
{
    add(e, "objectClass",
        dt_rng_chance(&g->r, 30) ? "OrganizationalUnit" : "organizationalUnit");
    if (dt_rng_chance(&g->r, 40))
        add(e, "objectClass", "top");
    ADD_SOME(g, e, "description", descs, 2);
    ADD_SOME(g, e, "l", cities, 1);
    ADD_SOME(g, e, "businessCategory", categories, 1);
    add_phones(g, e, "telephoneNumber", 1);
}

static int
make_ou(struct gen *g, int parent, const char *name)
{
    struct dt_entry *e = named(g->d, parent, "ou", name, DT_C_OU);

    if (!e)
        return -1;
    add(e, "ou", name);
    add_ou_attrs(g, e);
    return (int)(e - g->d->v);
}

static void
home(struct gen *g, int idx)
{
    if (idx < 0)
        return;
    g->homes = dt_realloc(g->homes, (g->nhomes + 1) * sizeof *g->homes);
    g->homes[g->nhomes++] = idx;
}

static void
make_root(struct gen *g)
{
    struct dt_entry *e = new_entry(g->d, -1, g->d->suffix, DT_C_ROOT);

    add(e, "objectClass", "top");
    add(e, "objectClass", "dcObject");
    add(e, "objectClass", "organization");
    add(e, "dc", "example");
    add(e, "o", "Example Corp");
    add(e, "description", "The root of the test DIT");
}

static void
make_tree(struct gen *g)
{
    make_root(g);
    g->people = make_ou(g, 0, "People");
    g->groups = make_ou(g, 0, "Groups");
    g->devices = make_ou(g, 0, "Devices");
    g->roles = make_ou(g, 0, "Roles");
    g->posix = make_ou(g, g->groups, "Posix");
    home(g, g->people);
    unsigned nd = 2 + dt_rng_below(&g->r, 4);
    for (unsigned i = 0; i < nd; i++) {
        int dept = make_ou(g, g->people, DT_PICK(&g->r, depts));
        home(g, dept);
        unsigned nt = dept < 0 ? 0 : dt_rng_below(&g->r, 3);
        for (unsigned j = 0; j < nt; j++) {
            int team = make_ou(g, dept, DT_PICK(&g->r, teams));
            home(g, team);
            if (team >= 0 && dt_rng_chance(&g->r, 30))
                home(g, make_ou(g, team, DT_PICK(&g->r, teams)));
        }
    }
}

/* ---- people -------------------------------------------------------------- */

/* An ASCII login name made from the full name. */
static void
login(struct gen *g, const char *gn, const char *sn, struct dt_str *out)
{
    dt_str_putc(out, (char)((gn[0] | 0x20) & 0x7f));
    for (const char *p = sn; *p && out->len < 8; p++)
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
            dt_str_putc(out, (char)(*p | 0x20));
    dt_str_printf(out, "%u", g->serial % 100);
    if (dt_rng_chance(&g->r, 15)) { /* some logins differ only in case */
        struct dt_str up;
        dt_str_init(&up);
        dt_case_variant(&g->r, out->p, 2, &up);
        dt_str_clear(out);
        dt_str_puts(out, up.p);
        dt_str_free(&up);
    }
}

enum pkind { P_PERSON, P_ORG, P_INET };

static struct dt_entry *
person_entry(struct gen *g, enum pkind k, const char *cn, const char *uid)
{
    int parent = g->homes[dt_rng_below(&g->r, g->nhomes)];
    unsigned form = k == P_INET ? dt_rng_below(&g->r, 10) : 0;
    struct dt_entry *e;

    if (form == 8) {
        e = named(g->d, parent, "uid", uid, DT_C_PERSON);
    } else if (form == 9) {
        struct dt_str rdn;
        dt_str_init(&rdn);
        dt_str_puts(&rdn, "cn=");
        rdn_escape(cn, &rdn);
        dt_str_puts(&rdn, "+uid=");
        rdn_escape(uid, &rdn);
        e = new_entry(g->d, parent, rdn.p, DT_C_PERSON);
        dt_str_free(&rdn);
    } else {
        e = named(g->d, parent, "cn", cn, DT_C_PERSON);
    }
    if (e && form >= 8)
        add(e, "uid", uid);
    return e;
}

static void
person_base(struct gen *g, struct dt_entry *e, enum pkind k, const char *cn,
            const char *gn, const char *sn)
{
    static const char *const cls[] = {"person", "organizationalPerson",
                                      "inetOrgPerson"};
    struct dt_str s;

    dt_str_init(&s);
    if (dt_rng_chance(&g->r, 20))
        dt_case_variant(&g->r, cls[k], 2, &s);
    else
        dt_str_puts(&s, cls[k]);
    add(e, "objectClass", s.p);
    if (dt_rng_chance(&g->r, 30))
        add(e, "objectClass", "top");
    if (k >= P_ORG && dt_rng_chance(&g->r, 30))
        add(e, "objectClass", "person");
    add(e, "cn", cn);
    if (dt_rng_chance(&g->r, 25))
        add(e, "cn", gn);
    add(e, "sn", sn);
    if (dt_rng_chance(&g->r, 15))
        add(e, "cn;lang-de", DT_PICK(&g->r, cn_de));
    if (dt_rng_chance(&g->r, 10))
        add(e, "cn;lang-fr", DT_PICK(&g->r, cn_fr));
    if (dt_rng_chance(&g->r, 5))
        add(e, "cn;lang-de-ch", DT_PICK(&g->r, cn_de));
    if (dt_rng_chance(&g->r, 10))
        add(e, "sn;lang-de", DT_PICK(&g->r, cn_de));
    add_phones(g, e, "telephoneNumber", 3);
    ADD_SOME(g, e, "description", descs, 2);
    if (dt_rng_chance(&g->r, 10))
        add(e, "description;lang-en", DT_PICK(&g->r, descs));
    if (dt_rng_chance(&g->r, 15)) {
        dt_str_clear(&s);
        person_ref(g, &s);
        add(e, "seeAlso", s.p);
    }
    if (dt_rng_chance(&g->r, 5))
        add(e, "userPassword", DT_PICK(&g->r, passwords));
    dt_str_free(&s);
}

static void
person_org(struct gen *g, struct dt_entry *e)
{
    ADD_SOME(g, e, "title", titles, 2);
    ADD_SOME(g, e, "l", cities, 1);
    ADD_SOME(g, e, "st", states, 1);
    ADD_SOME(g, e, "postalCode", zips, 1);
    ADD_SOME(g, e, "postalAddress", postal, 1);
    ADD_SOME(g, e, "x121Address", x121, 1);
    ADD_SOME(g, e, "ou", depts, 1);
}

static void
person_inet(struct gen *g, struct dt_entry *e, const char *cn, const char *gn,
            const char *uid)
{
    struct dt_str s;

    dt_str_init(&s);
    add(e, "givenName", gn);
    if (dt_rng_chance(&g->r, 60))
        add(e, "uid", uid);
    for (unsigned i = dt_rng_below(&g->r, 3); i > 0; i--) {
        dt_str_clear(&s);
        dt_str_printf(&s, "%s%s@%s", uid, i > 1 ? ".alt" : "",
                      DT_PICK(&g->r, domains));
        add(e, "mail", s.p);
    }
    ADD_SOME(g, e, "employeeType", emptypes, 2);
    ADD_SOME(g, e, "employeeNumber", empnums, 1);
    if (dt_rng_chance(&g->r, 30)) {
        dt_str_clear(&s);
        dt_case_variant(&g->r, cn, 1, &s);
        add(e, "displayName", s.p);
    }
    ADD_SOME(g, e, "preferredLanguage", langs, 1);
    ADD_SOME(g, e, "labeledURI", uris, 1);
    ADD_SOME(g, e, "roomNumber", rooms, 2);
    ADD_SOME(g, e, "carLicense", cars, 1);
    ADD_SOME(g, e, "departmentNumber", depnums, 1);
    ADD_SOME(g, e, "o", orgs, 1);
    add_phones(g, e, "mobile", 1);
    if (dt_rng_chance(&g->r, 30))
        add_refs(g, e, "manager", 1, 1);
    dt_str_free(&s);
}

static void
person_posix(struct gen *g, struct dt_entry *e, const char *uid)
{
    struct dt_str s;

    dt_str_init(&s);
    add(e, "objectClass", "posixAccount");
    add(e, "uid", uid);
    if (dt_rng_chance(&g->r, 20))
        add_int(e, "uidNumber",
                uid_special[dt_rng_below(&g->r, DT_NELEM(uid_special))]);
    else
        add_int(e, "uidNumber", 1000 + (int)g->serial);
    add_int(e, "gidNumber",
            dt_rng_chance(&g->r, 50)
                ? gid_special[dt_rng_below(&g->r, DT_NELEM(gid_special))]
                : 1000 + (int)dt_rng_below(&g->r, 5));
    dt_str_printf(&s, "/%s/%s", dt_rng_chance(&g->r, 10) ? "Home" : "home",
                  uid);
    add(e, "homeDirectory", s.p);
    ADD_SOME(g, e, "loginShell", shells, 1);
    if (dt_rng_chance(&g->r, 30))
        add(e, "gecos", uid);
    dt_str_free(&s);
}

static void
make_person(struct gen *g)
{
    const char *gn = DT_PICK(&g->r, given), *sn = DT_PICK(&g->r, surnames);
    unsigned roll = dt_rng_below(&g->r, 100);
    enum pkind k = roll < 15 ? P_PERSON : roll < 30 ? P_ORG : P_INET;
    struct dt_str cn, uid;
    struct dt_entry *e;

    dt_str_init(&cn);
    dt_str_init(&uid);
    g->serial++;
    dt_str_printf(&cn, "%s %s", gn, sn);
    if (dt_rng_chance(&g->r, 10))
        dt_str_printf(&cn, " %u", g->serial);
    login(g, gn, sn, &uid);
    e = person_entry(g, k, cn.p, uid.p);
    if (e) {
        person_base(g, e, k, cn.p, gn, sn);
        if (k >= P_ORG)
            person_org(g, e);
        if (k == P_INET)
            person_inet(g, e, cn.p, gn, uid.p);
        if (k == P_INET && dt_rng_chance(&g->r, 35))
            person_posix(g, e, uid.p);
        g->persons =
            dt_realloc(g->persons, (g->npersons + 1) * sizeof *g->persons);
        g->persons[g->npersons++] = (int)(e - g->d->v);
    }
    dt_str_free(&cn);
    dt_str_free(&uid);
}

/* ---- groups, devices, roles ---------------------------------------------- */

/* A fresh group-ish name: a pool name, sometimes numbered. */
static void
group_name(struct gen *g, const char *const *pool, size_t n, struct dt_str *out)
{
    dt_str_puts(out, dt_rng_pick(&g->r, pool, n));
    if (dt_rng_chance(&g->r, 60))
        dt_str_printf(out, " %u", ++g->serial);
}

static void
group_common(struct gen *g, struct dt_entry *e)
{
    ADD_SOME(g, e, "description", descs, 2);
    ADD_SOME(g, e, "businessCategory", categories, 1);
    ADD_SOME(g, e, "o", orgs, 1);
    if (dt_rng_chance(&g->r, 30))
        add_refs(g, e, "owner", 1, 2);
}

static void
make_group(struct gen *g)
{
    struct dt_str name;
    struct dt_entry *e;

    dt_str_init(&name);
    group_name(g, groups, DT_NELEM(groups), &name);
    e = named(g->d, g->groups, "cn", name.p, DT_C_GROUP);
    if (e) {
        add(e, "objectClass", "groupOfNames");
        add(e, "cn", name.p);
        add_refs(g, e, "member", 1, 8);
        group_common(g, e);
    }
    dt_str_free(&name);
}

/* A uniqueMember value: a DN, sometimes with a #'bits'B UID. */
static void
make_ugroup(struct gen *g)
{
    struct dt_str name, v;
    struct dt_entry *e;

    dt_str_init(&name);
    dt_str_init(&v);
    group_name(g, groups, DT_NELEM(groups), &name);
    e = named(g->d, g->groups, "cn", name.p, DT_C_UGROUP);
    int used[8];
    unsigned nused = 0;
    for (unsigned i = 1 + dt_rng_below(&g->r, 6); e && i > 0; i--) {
        if (!new_person_ref(g, used, &nused, &v))
            continue;
        if (dt_rng_chance(&g->r, 20))
            dt_str_puts(&v, dt_rng_chance(&g->r, 50) ? "#'0101'B" : "#'1'B");
        add(e, "uniqueMember", v.p);
    }
    if (e) {
        add(e, "objectClass", "groupOfUniqueNames");
        add(e, "cn", name.p);
        group_common(g, e);
    }
    dt_str_free(&name);
    dt_str_free(&v);
}

static void
make_pgroup(struct gen *g)
{
    struct dt_str name;
    struct dt_entry *e;

    dt_str_init(&name);
    group_name(g, groups, DT_NELEM(groups), &name);
    e = named(g->d, g->posix, "cn", name.p, DT_C_PGROUP);
    if (e) {
        add(e, "objectClass", "posixGroup");
        add(e, "cn", name.p);
        add_int(e, "gidNumber",
                dt_rng_chance(&g->r, 50)
                    ? gid_special[dt_rng_below(&g->r, DT_NELEM(gid_special))]
                    : 1000 + (int)dt_rng_below(&g->r, 5));
        for (unsigned i = dt_rng_below(&g->r, 6); i > 0 && g->npersons; i--) {
            const struct dt_entry *p =
                &g->d->v[g->persons[dt_rng_below(&g->r, g->npersons)]];
            const struct dt_attr *a = NULL;
            for (unsigned j = 0; j < p->nattrs && !a; j++)
                if (!strcmp(p->attrs[j].desc, "uid"))
                    a = &p->attrs[j];
            if (a)
                add(e, "memberUid", a->vals[0]);
        }
        ADD_SOME(g, e, "description", descs, 1);
    }
    dt_str_free(&name);
}

static void
make_device(struct gen *g)
{
    int parent = g->devices;
    struct dt_str name, s;
    struct dt_entry *e;

    if (g->npersons && dt_rng_chance(&g->r, 35))
        parent = g->persons[dt_rng_below(&g->r, g->npersons)];
    dt_str_init(&name);
    dt_str_init(&s);
    group_name(g, devnames, DT_NELEM(devnames), &name);
    e = named(g->d, parent, "cn", name.p, DT_C_DEVICE);
    if (e) {
        add(e, "objectClass", "device");
        add(e, "cn", name.p);
        ADD_SOME(g, e, "serialNumber", serials, 2);
        ADD_SOME(g, e, "l", cities, 1);
        ADD_SOME(g, e, "description", descs, 1);
        if (dt_rng_chance(&g->r, 50))
            add_refs(g, e, "owner", 1, 1);
    }
    dt_str_free(&name);
    dt_str_free(&s);
}

static void
make_role(struct gen *g)
{
    struct dt_str name;
    struct dt_entry *e;

    dt_str_init(&name);
    group_name(g, roles, DT_NELEM(roles), &name);
    e = named(g->d, g->roles, "cn", name.p, DT_C_ROLE);
    if (e) {
        add(e, "objectClass", "organizationalRole");
        add(e, "cn", name.p);
        add_refs(g, e, "roleOccupant", 0, 3);
        add_phones(g, e, "telephoneNumber", 2);
        ADD_SOME(g, e, "description", descs, 1);
        ADD_SOME(g, e, "ou", depts, 1);
    }
    dt_str_free(&name);
}

/* ---- the whole DIT ------------------------------------------------------- */

void
dt_dit_generate(struct dt_dit *d, uint64_t seed, unsigned want)
{
    struct gen g;
    unsigned guard = 0;

    memset(&g, 0, sizeof g);
    g.d = d;
    dt_rng_seed(&g.r, seed);
    d->suffix = "dc=example,dc=com";
    if (!want)
        want = 100 + dt_rng_below(&g.r, 201);
    make_tree(&g);
    for (unsigned i = 0; i < 8; i++)
        make_person(&g);
    while (d->n < want && guard++ < 20 * want) {
        unsigned roll = dt_rng_below(&g.r, 100);
        if (roll < 68)
            make_person(&g);
        else if (roll < 75)
            make_group(&g);
        else if (roll < 80)
            make_ugroup(&g);
        else if (roll < 85)
            make_pgroup(&g);
        else if (roll < 93)
            make_device(&g);
        else
            make_role(&g);
    }
    free(g.homes);
    free(g.persons);
}

void
dt_dit_free(struct dt_dit *d)
{
    for (unsigned i = 0; i < d->n; i++) {
        struct dt_entry *e = &d->v[i];
        for (unsigned j = 0; j < e->nattrs; j++) {
            for (unsigned k = 0; k < e->attrs[j].nvals; k++)
                free(e->attrs[j].vals[k]);
            free(e->attrs[j].vals);
            free(e->attrs[j].desc);
        }
        free(e->attrs);
        free(e->dn);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}

void
dt_entry_ldif(const struct dt_entry *e, struct dt_str *out)
{
    dt_ldif_line(out, "dn", e->dn, strlen(e->dn));
    for (unsigned i = 0; i < e->nattrs; i++)
        for (unsigned j = 0; j < e->attrs[i].nvals; j++)
            dt_ldif_line(out, e->attrs[i].desc, e->attrs[i].vals[j],
                         strlen(e->attrs[i].vals[j]));
    dt_str_putc(out, '\n');
}

void
dt_dit_ldif(const struct dt_dit *d, struct dt_str *out)
{
    for (unsigned i = 0; i < d->n; i++)
        dt_entry_ldif(&d->v[i], out);
}

/* ---- DN spellings -------------------------------------------------------- */

/* Append type t (t[0..n)) spelt as written, by alias or OID, in any case. */
static void
type_variant(struct dt_rng *r, const char *t, size_t n, struct dt_str *out)
{
    const struct dt_type *ty = dt_type_find(t, n);
    unsigned how = dt_rng_below(r, 6);
    struct dt_str tmp;

    dt_str_init(&tmp);
    if (ty && how == 0)
        dt_str_puts(&tmp, ty->oid);
    else if (ty && ty->alias && how == 1)
        dt_str_puts(&tmp, ty->alias);
    else
        dt_str_putn(&tmp, t, n);
    if (how >= 4)
        dt_case_variant(r, tmp.p, 2, out);
    else
        dt_str_puts(out, tmp.p);
    dt_str_free(&tmp);
}

/* One AVA "type=value" of dn at s[0..n), respelt. */
static void
ava_variant(struct dt_rng *r, const char *s, size_t n, struct dt_str *out)
{
    const char *eq = memchr(s, '=', n);
    struct dt_str val;

    if (!eq) {
        dt_str_putn(out, s, n);
        return;
    }
    type_variant(r, s, (size_t)(eq - s), out);
    dt_str_putc(out, '=');
    dt_str_init(&val);
    dt_str_putn(&val, eq + 1, n - (size_t)(eq + 1 - s));
    if (dt_rng_chance(r, 40))
        dt_case_variant(r, val.p, 2, out);
    else
        dt_str_puts(out, val.p);
    dt_str_free(&val);
}

void
dt_dn_variant(struct dt_rng *r, const char *dn, struct dt_str *out)
{
    const char *start = dn, *p = dn;

    for (;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p && *p != ',' && *p != '+')
            continue;
        ava_variant(r, start, (size_t)(p - start), out);
        if (!*p)
            break;
        dt_str_putc(out, *p);
        if (*p == ',' && dt_rng_chance(r, 20))
            dt_str_putc(out, ' ');
        start = p + 1;
    }
}
