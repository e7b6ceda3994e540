/*
 * acl_gen.c -- the seeded access-control case generator (see acl_gen.h).
 *
 * The agreement test's generator makes the policy and a small directory
 * (openldap_gen.c); this file adds entries to that directory (appending
 * to its entry list, parents first, so its LDIF renderer writes them,
 * some values with options), rewrites the connection conditions of its
 * <who> clauses, adds rules of its own (some on optioned descriptions),
 * and makes the requesters and searches.  All randomness comes from dt_rng
 * seeded with the case seed, after the agreement generator has run on the same
 * seed.
 */
#include "acl_gen.h"

#include "dt_dit.h"
#include "openldap_gen.h"

#include "acre.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* A growable array of strings (talloc, under the case). */
struct pool {
    const char **v;
    unsigned n;
};

struct gen {
    struct dt_rng r;
    struct acreG_case *g;
    struct pool people;  /* inetOrgPerson entries of the first database */
    struct pool mine;    /* the people this file added */
    struct pool pwd;     /* "DN\tpassword" of people with a password */
    struct pool gon;     /* groupOfNames */
    struct pool guniq;   /* groupOfUniqueNames */
    struct pool dyn;     /* groupOfURLs */
    struct pool homes;   /* containers of people */
    struct pool teams;   /* the OUs this file added */
    struct pool others;  /* devices, roles */
    struct pool all;     /* every entry's DN */
    struct pool values;  /* "attr\tvalue" of every entry */
    struct pool optvals; /* those whose description has options */
    char *collect;       /* slapo-collect lines, or NULL */
    unsigned serial;
};

#define B(x, n)      dt_rng_below(&(x)->r, (n))
#define P(x, pct)    dt_rng_chance(&(x)->r, (pct))
#define PICK(x, arr) DT_PICK(&(x)->r, arr)
#define ANY(x, pool) ((pool)->n ? (pool)->v[B(x, (pool)->n)] : NULL)

static void
push(struct gen *x, struct pool *p, const char *s)
{
    p->v = talloc_realloc(x->g, p->v, const char *, p->n + 1);
    if (!p->v)
        dt_die("out of memory");
    p->v[p->n++] = s;
}

static char *fmt(struct gen *x, const char *f, ...)
    __attribute__((format(printf, 2, 3)));

static char *
fmt(struct gen *x, const char *f, ...)
{
    va_list ap;
    char *s;

    va_start(ap, f);
    s = talloc_vasprintf(x->g, f, ap);
    va_end(ap);
    if (!s)
        dt_die("out of memory");
    return s;
}

uint64_t
acl_case_seed(uint64_t seed, unsigned k)
{
    struct dt_rng r;

    dt_rng_seed(&r, seed ^ (0x9e3779b97f4a7c15ull * (k + 1)));
    return dt_rng_next(&r) % 1000000000000ull;
}

/* ---- entries ----------------------------------------------------------- */

static int
new_entry(struct gen *x, const char *dn, int parent)
{
    struct acreG_case *g = x->g;

    g->entries =
        talloc_realloc(g, g->entries, struct acreG_entry, g->nentries + 1);
    if (!g->entries)
        dt_die("out of memory");
    memset(&g->entries[g->nentries], 0, sizeof g->entries[0]);
    g->entries[g->nentries].dn = talloc_strdup(g, dn);
    g->entries[g->nentries].parent = parent;
    push(x, &x->all, g->entries[g->nentries].dn);
    return (int)g->nentries++;
}

/* Add "attr: v" (base64 when LDIF needs it) to entry e. */
static void
add(struct gen *x, int e, const char *attr, const char *v)
{
    struct acreG_entry *en = &x->g->entries[e];
    struct dt_str l;

    dt_str_init(&l);
    dt_ldif_line(&l, attr, v, strlen(v));
    l.p[--l.len] = 0;
    en->lines = talloc_realloc(x->g, en->lines, char *, en->nlines + 1);
    en->omit_line =
        talloc_realloc(x->g, en->omit_line, uint8_t, en->nlines + 1);
    if (!en->lines || !en->omit_line)
        dt_die("out of memory");
    en->lines[en->nlines] = talloc_strdup(x->g, l.p);
    en->omit_line[en->nlines++] = 0;
    dt_str_free(&l);
}

static int
find_entry(struct gen *x, const char *dn)
{
    for (unsigned i = 0; i < x->g->nentries; i++)
        if (!strcmp(x->g->entries[i].dn, dn))
            return (int)i;
    return -1;
}

static int
in_second(const char *dn)
{
    size_t n = strlen(dn), k = strlen(ACREG_SUFFIX2);
    return n >= k && !strcasecmp(dn + n - k, ACREG_SUFFIX2);
}

static int
omitted(const struct acreG_case *g, unsigned i)
{
    for (int k = (int)i; k >= 0; k = g->entries[k].parent)
        if (g->entries[k].omit)
            return 1;
    return 0;
}

static int
has_line(const struct acreG_entry *e, const char *line)
{
    for (unsigned j = 0; j < e->nlines; j++)
        if (!strcasecmp(e->lines[j], line))
            return 1;
    return 0;
}

/* Sort the agreement generator's entries into the pools. */
static void
scan(struct gen *x)
{
    struct acreG_case *g = x->g;

    for (unsigned i = 0; i < g->nentries; i++) {
        struct acreG_entry *e = &g->entries[i];
        if (g->ndbs < 2 && e->parent < 0 && in_second(e->dn))
            e->omit = 1; /* no database holds that tree */
        if (omitted(g, i))
            continue;
        push(x, &x->all, e->dn);
        if (has_line(e, "objectClass: inetOrgPerson") && !in_second(e->dn))
            push(x, &x->people, e->dn);
        else if (has_line(e, "objectClass: groupOfNames"))
            push(x, &x->gon, e->dn);
        else if (has_line(e, "objectClass: groupOfUniqueNames"))
            push(x, &x->guniq, e->dn);
        else if (has_line(e, "objectClass: groupOfURLs"))
            push(x, &x->dyn, e->dn);
        else if (has_line(e, "objectClass: organizationalUnit") &&
                 strstr(e->dn, "ou=people," ACREG_SUFFIX))
            push(x, &x->homes, e->dn);
        for (unsigned j = 0; j < e->nlines; j++)
            if (!strncmp(e->lines[j], "userPassword: ", 14))
                push(x, &x->pwd, fmt(x, "%s\t%s", e->dn, e->lines[j] + 14));
    }
}

/* ---- values ------------------------------------------------------------ */

static const char *const firsts[] = {
    "Ann", "Bob", "Chlo\xc3\xa9", "Dan", "Eve", "Fay", "Gus", "Hal",
    "Ida", "Jon", "Kim",          "Lou", "Mia", "Ned", "Ola", "Ray"};
static const char *const lasts[] = {"Lee",   "Smith",  "Jones", "M\xc3\xbcller",
                                    "Brown", "O'Hara", "Wu",    "Garcia"};
static const char *const titles[] = {"boss",           "Boss",
                                     "BOSS",           "engineer",
                                     "Engineer",       "senior  engineer",
                                     "Senior Engineer"};
static const char *const descs[] = {"on call",    "On  Call",    "team lead",
                                    "Team Lead ", "likes regex", "x"};
static const char *const emptypes[] = {"staff", "Staff", "contractor",
                                       "CONTRACTOR"};

/* v respelt without changing it under caseIgnoreMatch: another case, or
 * doubled inner spaces, or spaces around it. */
static char *
respell(struct gen *x, const char *v)
{
    struct dt_str s;
    char *t;

    dt_str_init(&s);
    switch (B(x, 6)) {
    case 0:
        dt_case_variant(&x->r, v, 1, &s);
        break;
    case 1:
        dt_case_variant(&x->r, v, 0, &s);
        break;
    case 2:
        for (const char *p = v; *p; p++) {
            dt_str_putc(&s, *p);
            if (*p == ' ')
                dt_str_putc(&s, ' ');
        }
        break;
    case 3:
        dt_str_printf(&s, " %s ", v);
        break;
    default:
        dt_str_puts(&s, v);
    }
    t = talloc_strdup(x->g, s.p);
    dt_str_free(&s);
    return t;
}

static char *
dn_variant(struct gen *x, const char *dn)
{
    struct dt_str s;
    char *t;

    dt_str_init(&s);
    dt_dn_variant(&x->r, dn, &s);
    t = talloc_strdup(x->g, s.p);
    dt_str_free(&s);
    return t;
}

/* A description spelt another way: letters in random case (options
 * and types are case-insensitive), sometimes upper case. */
static char *
desc_case(struct gen *x, const char *d)
{
    struct dt_str s;
    char *t;

    dt_str_init(&s);
    if (P(x, 35))
        dt_case_variant(&x->r, d, P(x, 30) ? 1 : 2, &s);
    else
        dt_str_puts(&s, d);
    t = talloc_strdup(x->g, s.p);
    dt_str_free(&s);
    if (!t)
        dt_die("out of memory");
    return t;
}

/* ---- the added directory ----------------------------------------------- */

static int
make_ou(struct gen *x, int parent, const char *rdn, const char *ou)
{
    int e =
        new_entry(x, fmt(x, "%s,%s", rdn, x->g->entries[parent].dn), parent);
    add(x, e, "objectClass", "organizationalUnit");
    add(x, e, "ou", ou);
    if (P(x, 30))
        add(x, e, "description", PICK(x, descs));
    return e;
}

/* Nested OUs under ou=people (teams and squads) and one named by a
 * multi-valued RDN. */
static void
make_ous(struct gen *x)
{
    int people = find_entry(x, "ou=people," ACREG_SUFFIX);
    int top = find_entry(x, ACREG_SUFFIX);
    unsigned nteams = 1 + B(x, 4);

    for (unsigned t = 1; t <= nteams; t++) {
        int e = make_ou(x, people, fmt(x, "ou=team%u", t), fmt(x, "team%u", t));
        push(x, &x->homes, x->g->entries[e].dn);
        push(x, &x->teams, x->g->entries[e].dn);
        for (unsigned s = 1, n = B(x, 3); s <= n; s++) {
            int q =
                make_ou(x, e, fmt(x, "ou=squad%u", s), fmt(x, "squad%u", s));
            push(x, &x->homes, x->g->entries[q].dn);
            if (P(x, 30)) {
                int d = make_ou(x, q, "ou=deep", "deep");
                push(x, &x->homes, x->g->entries[d].dn);
            }
        }
    }
    if (P(x, 50)) {
        int e = new_entry(x, "ou=lab+l=Berlin," ACREG_SUFFIX, top);
        add(x, e, "objectClass", "organizationalUnit");
        add(x, e, "ou", "lab");
        add(x, e, "l", "Berlin");
        push(x, &x->homes, x->g->entries[e].dn);
        push(x, &x->teams, x->g->entries[e].dn);
    }
}

/* ---- issue 17: DN specials and stored attribute orders ----------------- */

/* v as an RDN value: the characters RFC 4514 makes one escape (and '=')
 * escaped as "\c" or, at random, as the hex pair slapd itself writes;
 * now and then quoted instead (RFC 1779, which slapd reads: inside the
 * quotes only '"' and '\' are escaped, '\' taking the next byte as it
 * is). */
static char *
rdn_escape(struct gen *x, const char *v)
{
    size_t n = strlen(v);
    char *s = talloc_strdup(x->g, "");

    if (P(x, 15)) {
        s = talloc_strdup(x->g, "\"");
        for (size_t i = 0; s && i < n; i++)
            s = talloc_asprintf_append(
                s, "%s%c", strchr("\"\\", v[i]) || P(x, 10) ? "\\" : "", v[i]);
        if (!s || !(s = talloc_strdup_append(s, "\"")))
            dt_die("out of memory");
        return s;
    }
    for (size_t i = 0; s && i < n; i++) {
        char c = v[i];
        int must = strchr(",+\"\\<>;=", c) || (i == 0 && c == '#') ||
                   (c == ' ' && (i == 0 || i == n - 1));
        s = !must      ? talloc_asprintf_append(s, "%c", c)
            : P(x, 50) ? talloc_asprintf_append(s, "\\%02X", (unsigned char)c)
                       : talloc_asprintf_append(s, "\\%c", c);
    }
    if (!s)
        dt_die("out of memory");
    return s;
}

/*
 * A cn RDN slapd prints with hex pairs: a value with one of , + " \ < >
 * ; = # inside, a leading '#' or space, a trailing space.  *cn gets the
 * value.
 */
static char *
special_rdn(struct gen *x, unsigned n, const char *first, const char *last,
            const char **cn)
{
    static const char *const mids[] = {",", "+", "\"", "\\", "<",
                                       ">", ";", "=",  "#"};

    switch (B(x, 5)) {
    case 0:
        *cn = fmt(x, " %s %s %u", first, last, n);
        break;
    case 1:
        *cn = fmt(x, "%s %s %u ", first, last, n);
        break;
    case 2:
        *cn = fmt(x, "#%s%s%s %u ", first, PICK(x, mids), last, n);
        break;
    default:
        *cn = fmt(x, "%s%s%s %u", first, PICK(x, mids), last, n);
        break;
    }
    return fmt(x, "cn=%s", rdn_escape(x, *cn));
}

/* The attribute name of an LDIF line, lowercased, into buf. */
static const char *
line_attr(const char *line, char *buf, size_t size)
{
    size_t n = strcspn(line, ":");

    n = n < size - 1 ? n : size - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)tolower((unsigned char)line[i]);
    buf[n] = 0;
    return buf;
}

/*
 * Entries whose attributes are stored in an order of their own (not the
 * schema's, objectClass not always first): the lines of an attribute
 * stay together and in order, the attributes are shuffled.  slapd and
 * acre return them in that stored order.
 */
static void
store_order(struct gen *x, struct acreG_entry *e)
{
    char **lines = talloc_array(x->g, char *, e->nlines);
    uint8_t *omit = talloc_array(x->g, uint8_t, e->nlines);
    char **names = talloc_array(x->g, char *, e->nlines);
    unsigned nf = 0, k = 0;
    char a[128], b[128];

    if (!lines || !omit || !names)
        dt_die("out of memory");
    for (unsigned i = 0; i < e->nlines; i++) { /* distinct names, in order */
        unsigned j = 0;
        line_attr(e->lines[i], a, sizeof a);
        while (j < nf && strcmp(names[j], a))
            j++;
        if (j == nf)
            names[nf++] = talloc_strdup(x->g, a);
    }
    for (unsigned i = nf; i > 1; i--) { /* Fisher-Yates */
        unsigned j = B(x, i);
        char *t = names[i - 1];
        names[i - 1] = names[j];
        names[j] = t;
    }
    for (unsigned f = 0; f < nf; f++)
        for (unsigned i = 0; i < e->nlines; i++)
            if (!strcmp(line_attr(e->lines[i], b, sizeof b), names[f])) {
                lines[k] = e->lines[i];
                omit[k++] = e->omit_line[i];
            }
    memcpy(e->lines, lines, k * sizeof *lines);
    memcpy(e->omit_line, omit, k);
}

static void
store_orders(struct gen *x)
{
    for (unsigned i = 0; i < x->g->nentries; i++)
        if (x->g->entries[i].nlines > 1 && P(x, 40))
            store_order(x, &x->g->entries[i]);
}

/* An RDN for person number n whose full name is name; *cn gets the cn
 * value the RDN holds, or NULL when it names the uid. */
static char *
person_rdn(struct gen *x, unsigned n, const char *first, const char *last,
           const char **cn)
{
    unsigned k = B(x, 100);

    *cn = NULL;
    if (P(x, 15))
        return special_rdn(x, n, first, last, cn);
    if (k < 55)
        return fmt(x, "uid=x%u", n);
    if (k < 67) {
        *cn = fmt(x, "%s %s %u", first, last, n);
        return fmt(x, "cn=%s", *cn);
    }
    if (k < 75) {
        *cn = fmt(x, "%s, %s %u", last, first, n);
        return fmt(x, "cn=%s\\, %s %u", last, first, n);
    }
    if (k < 83) {
        *cn = fmt(x, "%s %s", first, last);
        return fmt(x, "cn=%s+uid=x%u", *cn, n);
    }
    if (k < 88) {
        *cn = fmt(x, "#%s %u", first, n);
        return fmt(x, "cn=\\#%s %u", first, n);
    }
    if (k < 93) {
        *cn = fmt(x, "%s \"Q\" %s %u", first, last, n);
        return fmt(x, "cn=%s \\\"Q\\\" %s %u", first, last, n);
    }
    *cn = fmt(x, "%s O+%s %u", first, last, n);
    return fmt(x, "cn=%s O\\+%s %u", first, last, n);
}

/*
 * Values with options: language tags on cn, sn, description and title,
 * one or two on a value, the description spelt in any case; a French cn
 * that is sometimes the plain cn's value (so that (cn=...) covers both).
 * Rules, filters and attribute lists name them with tags, ranges of tags
 * ("lang-en-"), supertypes and exact ("-") lists.
 */
static void
optioned_attrs(struct gen *x, int e, unsigned n, const char *first,
               const char *last, const char *cn)
{
    static const char *const two[] = {"cn;lang-de;lang-en-gb",
                                      "cn;lang-en-gb;lang-de",
                                      "cn;lang-fr;lang-en-us"};
    static const char *const descs_opt[] = {
        "description;lang-en", "description;lang-en-us", "description;lang-fr"};
    static const char *const fr_titles[] = {"patron", "Patron",
                                            "ing\xc3\xa9nieur"};
    const char *d;

    if (P(x, 15)) {
        d = desc_case(x, "cn;lang-en");
        add(x, e, d, fmt(x, "%s the %s", first, PICK(x, titles)));
    }
    if (P(x, 20)) {
        d = desc_case(x, "cn;lang-fr");
        add(x, e, d, P(x, 30) ? cn : fmt(x, "%s %u fr", last, n));
    }
    if (P(x, 8)) {
        d = desc_case(x, "sn;lang-de");
        add(x, e, d, last);
    }
    if (P(x, 8)) {
        d = desc_case(x, PICK(x, two));
        add(x, e, d, fmt(x, "%s %s", first, last));
    }
    if (P(x, 12)) {
        d = desc_case(x, PICK(x, descs_opt));
        add(x, e, d, PICK(x, descs));
    }
    if (P(x, 8)) {
        d = desc_case(x, "title;lang-fr");
        add(x, e, d, PICK(x, fr_titles));
    }
}

static void
person_attrs(struct gen *x, int e, unsigned n, const char *first,
             const char *last)
{
    if (P(x, 70))
        add(x, e, "mail",
            fmt(x, "x%u@%s", n, P(x, 30) ? "Example.COM" : "example.com"));
    if (P(x, 40))
        add(x, e, "title", PICK(x, titles));
    if (P(x, 30))
        add(x, e, "description", PICK(x, descs));
    if (P(x, 40))
        add(x, e, "telephoneNumber",
            fmt(x, P(x, 50) ? "+1 555 01%02u" : "+1-555-01%02u", n % 100));
    if (P(x, 30))
        add(x, e, "givenName", respell(x, first));
    if (P(x, 15))
        add(x, e, "displayName", fmt(x, "%s %s", first, last));
    if (P(x, 25))
        add(x, e, "employeeType", PICK(x, emptypes));
    if (P(x, 10))
        add(x, e, "l", P(x, 50) ? "Berlin" : "berlin");
    if (P(x, 60)) {
        const char *pw = fmt(x, "secret%u", n);
        add(x, e, "userPassword", pw);
        push(x, &x->pwd, fmt(x, "%s\t%s", x->g->entries[e].dn, pw));
        if (P(x, 10))
            add(x, e, "userPassword", fmt(x, "old%u", n));
    }
    if (P(x, 35) && x->people.n)
        add(x, e, "manager",
            P(x, 20) ? dn_variant(x, ANY(x, &x->people)) : ANY(x, &x->people));
    if (P(x, 20))
        add(x, e, "seeAlso",
            P(x, 20) ? "uid=ghost,ou=people," ACREG_SUFFIX : ANY(x, &x->all));
}

/*
 * dup_values -- values slapadd keeps although they are equal under the
 * attribute's equality rule: a second spelling differing in case or
 * spaces (l: Berlin, l: berlin), or the same bytes twice.  Matching,
 * filter= and val= rules and what a search returns must see both.
 * (Its own draws: another widening of the person may come before it.)
 */
static void
dup_values(struct gen *x, int e, unsigned n, const char *last)
{
    static const char *const pairs[][2] = {{"l", "Berlin"},
                                           {"l", "berlin"},
                                           {"description", "on call"},
                                           {"description", "On  Call"},
                                           {"title", "boss"},
                                           {"title", "Boss"},
                                           {"employeeType", "staff"},
                                           {"employeeType", "STAFF"}};
    unsigned i;

    if (!P(x, 15))
        return;
    i = 2 * (unsigned)B(x, DT_NELEM(pairs) / 2);
    add(x, e, pairs[i][0], pairs[i][1]);
    add(x, e, pairs[i][0], pairs[P(x, 25) ? i : i + 1][1]);
    if (P(x, 30))
        add(x, e, "sn", P(x, 50) ? last : respell(x, last));
    if (P(x, 20))
        add(x, e, "mail", fmt(x, "X%u@EXAMPLE.com", n));
}

static void
make_person(struct gen *x)
{
    unsigned n = ++x->serial;
    const char *first = PICK(x, firsts), *last = PICK(x, lasts), *cn;
    const char *home = ANY(x, &x->homes);
    int parent = find_entry(x, home);
    char *rdn = person_rdn(x, n, first, last, &cn);
    int e = new_entry(x, fmt(x, "%s,%s", rdn, home), parent);

    add(x, e, "objectClass", "inetOrgPerson");
    if (P(x, 20))
        add(x, e, "objectClass", "organizationalPerson");
    const char *cnv = cn ? cn : respell(x, fmt(x, "%s %s", first, last));
    add(x, e, "cn", cnv);
    if (P(x, 15))
        add(x, e, "cn", fmt(x, "%s%u", first, n));
    add(x, e, "sn", respell(x, last));
    if (!cn || strstr(rdn, "+uid=") || P(x, 60))
        add(x, e, "uid", fmt(x, "x%u", n));
    person_attrs(x, e, n, first, last);
    dup_values(x, e, n, last);
    optioned_attrs(x, e, n, first, last, cnv);
    push(x, &x->people, x->g->entries[e].dn);
    push(x, &x->mine, x->g->entries[e].dn);
}

static void
make_device(struct gen *x)
{
    const char *owner = ANY(x, &x->mine);
    unsigned n = ++x->serial;
    int e;

    if (!owner)
        return;
    e = new_entry(x, fmt(x, "cn=dev%u,%s", n, owner), find_entry(x, owner));
    add(x, e, "objectClass", "device");
    add(x, e, "cn", fmt(x, "dev%u", n));
    add(x, e, "serialNumber", fmt(x, "SN-%u", n));
    add(x, e, "owner", owner);
    if (P(x, 30))
        add(x, e, "description", PICK(x, descs));
    push(x, &x->others, x->g->entries[e].dn);
}

/* 1..max distinct DNs of pool p as attr values of e (or with the optional
 * uid of uniqueMember). */
static void
add_members(struct gen *x, int e, const char *attr, const struct pool *p,
            unsigned max)
{
    unsigned want = 1 + B(x, max), done = 0;
    const char *used[16];

    for (unsigned k = 0; k < 4 * want && done < want && done < 16; k++) {
        const char *m = ANY(x, p);
        int dup = 0;
        for (unsigned i = 0; i < done; i++)
            dup |= !strcmp(used[i], m);
        if (dup)
            continue;
        used[done++] = m;
        if (!strcmp(attr, "uniqueMember") && P(x, 15))
            add(x, e, attr, fmt(x, "%s#'0101'B", m));
        else
            add(x, e, attr, m);
    }
}

static void
make_groups(struct gen *x)
{
    int top = find_entry(x, "ou=groups," ACREG_SUFFIX);
    unsigned n = 2 + B(x, 5);

    for (unsigned i = 0; i < n; i++) {
        const char *dn = fmt(x, "cn=staff %u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = new_entry(x, dn, top);
        add(x, e, "objectClass", "groupOfNames");
        add(x, e, "cn", fmt(x, "staff %u", i + 1));
        add_members(x, e, "member", &x->people, 8);
        if (P(x, 40) && x->gon.n) /* a group of groups */
            add(x, e, "member", ANY(x, &x->gon));
        if (P(x, 15))
            add(x, e, "member", "uid=ghost,ou=people," ACREG_SUFFIX);
        if (P(x, 30))
            add(x, e, "owner", ANY(x, &x->people));
        push(x, &x->gon, dn);
    }
    for (unsigned i = 0, k = B(x, 3); i < k; i++) {
        const char *dn = fmt(x, "cn=unique %u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = new_entry(x, dn, top);
        add(x, e, "objectClass", "groupOfUniqueNames");
        add(x, e, "cn", fmt(x, "unique %u", i + 1));
        add_members(x, e, "uniqueMember", &x->people, 5);
        push(x, &x->guniq, dn);
    }
}

static void
make_dynamic(struct gen *x)
{
    int top = find_entry(x, "ou=groups," ACREG_SUFFIX);

    for (unsigned i = 0, n = 1 + B(x, 3); i < n; i++) {
        const char *dn = fmt(x, "cn=dynamic %u,ou=groups," ACREG_SUFFIX, i + 1);
        int e = new_entry(x, dn, top);
        const char *team = ANY(x, &x->teams);
        add(x, e, "objectClass", "groupOfURLs");
        add(x, e, "cn", fmt(x, "dynamic %u", i + 1));
        switch (B(x, 6)) {
        case 0:
            add(x, e, "memberURL",
                fmt(x, "ldap:///%s??sub?(objectClass=inetOrgPerson)", team));
            break;
        case 1:
            add(x, e, "memberURL",
                "ldap:///ou=people," ACREG_SUFFIX "??sub?(title=boss)");
            break;
        case 2: /* a dynamic group of groups */
            add(x, e, "memberURL",
                "ldap:///ou=groups," ACREG_SUFFIX
                "??one?(objectClass=groupOfNames)");
            break;
        case 3:
            add(x, e, "memberURL",
                "ldap:///" ACREG_SUFFIX "??sub?(employeeType=contractor)");
            break;
        case 4:
            add(x, e, "memberURL",
                fmt(x, "ldap:///%s??base", ANY(x, &x->people)));
            break;
        default:
            add(x, e, "memberURL", fmt(x, "ldap:///%s??one", team));
            add(x, e, "memberURL",
                "ldap:///ou=people," ACREG_SUFFIX "??sub?(mail=x1*)");
        }
        push(x, &x->dyn, dn);
    }
}

static void
make_roles(struct gen *x)
{
    static const char *const roles[] = {"Postmaster", "Security Officer",
                                        "postmaster 2"};
    int top = find_entry(x, ACREG_SUFFIX);
    int ou = make_ou(x, top, "ou=roles", "roles");

    for (unsigned i = 0, n = 1 + B(x, 3); i < n; i++) {
        int e = new_entry(x, fmt(x, "cn=%s,%s", roles[i], x->g->entries[ou].dn),
                          ou);
        add(x, e, "objectClass", "organizationalRole");
        add(x, e, "cn", roles[i]);
        add(x, e, "roleOccupant", ANY(x, &x->people));
        push(x, &x->others, x->g->entries[e].dn);
    }
}

/* Put some of the added people into the agreement generator's groups. */
static void
join_groups(struct gen *x, unsigned ngon, unsigned nuniq)
{
    for (unsigned i = 0; i < ngon && x->mine.n; i++)
        if (P(x, 50))
            add(x, find_entry(x, x->gon.v[i]), "member", ANY(x, &x->mine));
    for (unsigned i = 0; i < nuniq && x->mine.n; i++)
        if (P(x, 50))
            add(x, find_entry(x, x->guniq.v[i]), "uniqueMember",
                ANY(x, &x->mine));
}

static void
make_second(struct gen *x)
{
    int things = find_entry(x, "ou=things," ACREG_SUFFIX2);

    for (unsigned i = 0, n = 1 + B(x, 5); things >= 0 && i < n; i++) {
        unsigned k = ++x->serial;
        int e =
            new_entry(x, fmt(x, "uid=e%u,ou=things," ACREG_SUFFIX2, k), things);
        add(x, e, "objectClass", "inetOrgPerson");
        add(x, e, "cn", fmt(x, "%s %u", PICK(x, firsts), k));
        add(x, e, "sn", PICK(x, lasts));
        add(x, e, "uid", fmt(x, "e%u", k));
        if (P(x, 50))
            add(x, e, "manager", ANY(x, &x->people));
        if (P(x, 50))
            add(x, e, "userPassword", fmt(x, "secret%u", k));
    }
}

static unsigned
live_entries(const struct acreG_case *g)
{
    unsigned n = 0;

    for (unsigned i = 0; i < g->nentries; i++)
        n += !omitted(g, i);
    return n;
}

static void
grow(struct gen *x)
{
    unsigned want = 30 + B(x, 171);
    unsigned ngon = x->gon.n, nuniq = x->guniq.n;

    make_ous(x);
    if (P(x, 30))
        make_roles(x);
    while (live_entries(x->g) + 8 < want)
        make_person(x);
    for (unsigned i = 0, n = B(x, 5); i < n; i++)
        make_device(x);
    make_groups(x);
    make_dynamic(x);
    join_groups(x, ngon, nuniq);
    if (x->g->ndbs > 1)
        make_second(x);
}

/* ---- connection conditions --------------------------------------------- */

/* Conditions a plain TCP connection from 127.0.0.1 decides: slapd sees
 * peer "IP=127.0.0.1:<port>", socket "IP=127.0.0.1:<port>", the listener
 * URL it was started with, domain "unknown" (no reverse lookups) and
 * every ssf 0.  ("$$" is a literal "$" in a <who> pattern.) */
static const char *const conn_conds[] = {
    "peername.ip=127.0.0.1",
    "peername.ip=127.0.0.0%255.0.0.0",
    "peername.ip=10.0.0.0%255.0.0.0",
    "peername.ip=127.0.0.1{389}",
    "peername.regex=\"^IP=127[.]0[.]0[.]1:[0-9]+$$\"",
    "peername=\"IP=127.0.0.1:389\"",
    "peername.path=/var/run/ldapi",
    "peername.ipv6=::1",
    "sockname.regex=\"^IP=127[.]0[.]0[.]1:\"",
    "sockname=\"IP=0.0.0.0:636\"",
    "sockurl.regex=\"^ldap://127[.]0[.]0[.]1:[0-9]+/$$\"",
    "sockurl=\"ldap:///\"",
    "sockurl.regex=\"^ldaps\"",
    "domain=unknown",
    "domain.regex=\"example[.]com$$\"",
    "domain.subtree=example.com",
    "ssf=1",
    "tls_ssf=128",
    "sasl_ssf=56",
    "transport_ssf=71",
};

/* The kind of a connection condition: its keyword, with the ssf family
 * as one kind ("ssf"); NULL when t is none. */
static const char *
conn_kind(const char *t)
{
    static const char *const keys[] = {"peername", "sockname", "sockurl",
                                       "domain",   "ssf",      "transport_ssf",
                                       "tls_ssf",  "sasl_ssf"};
    size_t n = strcspn(t, ".=");

    for (unsigned i = 0; i < DT_NELEM(keys); i++)
        if (strlen(keys[i]) == n && !strncasecmp(t, keys[i], n))
            return i >= 4 ? "ssf" : keys[i];
    return NULL;
}

/* A drivable condition of the same kind as t (slapd refuses a clause
 * that names one kind twice). */
static const char *
conn_replace(struct gen *x, const char *t)
{
    const char *kind = conn_kind(t), *pick[DT_NELEM(conn_conds)];
    unsigned n = 0;

    for (unsigned i = 0; i < DT_NELEM(conn_conds); i++)
        if (!strcmp(conn_kind(conn_conds[i]), kind))
            pick[n++] = conn_conds[i];
    return pick[B(x, n)];
}

/* The clause text with every connection condition replaced, and
 * realdn.regex=".*" by ".+": slapd 2.5 turns the former into the pattern
 * "*" and then fails an assertion when it prints its configuration at
 * start-up (dnaccess2text), although slaptest accepts it. */
static char *
rewrite_clause(struct gen *x, const char *by)
{
    char *out = talloc_strdup(x->g, "");
    const char *p = by;

    while (*p) {
        const char *start = p;
        int quoted = 0;
        for (; *p && (quoted || *p != ' '); p++) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                quoted = !quoted;
        }
        char *tok = talloc_strndup(x->g, start, (size_t)(p - start));
        if (conn_kind(tok))
            tok = (char *)conn_replace(x, tok);
        else if (!strcmp(tok, "realdn.regex=\".*\""))
            tok = "realdn.regex=\".+\""; /* slapd asserts at start up */
        out = talloc_asprintf_append(out, "%s%s", *out ? " " : "", tok);
        while (*p == ' ')
            p++;
    }
    if (!out)
        dt_die("out of memory");
    return out;
}

/* A rule about the entries this file added, for the first database,
 * put at position `at` of the rule list. */
static void
insert_rule(struct gen *x, unsigned at, const char *what, const char *const *by,
            unsigned nby)
{
    struct acreG_case *g = x->g;

    g->rules = talloc_realloc(g, g->rules, struct acreG_rule, g->nrules + 1);
    if (!g->rules)
        dt_die("out of memory");
    memmove(&g->rules[at + 1], &g->rules[at],
            (g->nrules++ - at) * sizeof *g->rules);
    struct acreG_rule *r = &g->rules[at];
    memset(r, 0, sizeof *r);
    r->what = talloc_strdup(g, what);
    r->by = talloc_array(g, char *, nby);
    r->omit_by = talloc_zero_array(g, uint8_t, nby);
    if (!r->what || !r->by || !r->omit_by)
        dt_die("out of memory");
    for (unsigned i = 0; i < nby; i++)
        r->by[r->nby++] = talloc_strdup(g, by[i]);
}

static const char *const tail_access[] = {"read", "search",   "=rsc",   "+rs",
                                          "none", "disclose", "compare"};
static const char *const tail_control[] = {"", "", "", " continue", " break"};

/*
 * A rule on descriptions with options (issue 12): a tag, a range of tags
 * ("lang-en-" covers lang-en and lang-en-us; "lang-" every tag), two
 * tags, an exact list ("-cn" is plain cn alone), a value condition on an
 * optioned type; with grants that let a requester compare or search
 * without reading (=c, =s) or read without searching (=r), so that
 * filter items on those attributes are Undefined where the values are
 * still returned, and the other way round.
 */
static void
optioned_rule(struct gen *x, unsigned at, const char *team)
{
    static const char *const lists[] = {
        "attrs=cn;lang-fr",
        "attrs=cn;lang-en-",
        "attrs=cn;lang-",
        "attrs=-cn",
        "attrs=-cn;lang-fr,title;lang-fr",
        "attrs=name;lang-fr",
        "attrs=cn;lang-de;lang-en-",
        "attrs=description;lang-en-,sn;lang-de",
        "attrs=CN;Lang-EN-US",
        "attrs=description;lang- val.regex=\"[Cc]all|lead\"",
        "attrs=cn;lang-fr val.regex=\" fr$\"",
        "attrs=cn val.regex=\"^[a-m]\"",
        "attrs=-cn;lang-en,-description",
        "attrs=title;lang-,givenName",
    };
    static const char *const grants[] = {"=c",     "=r",   "=s",   "=rc",
                                         "=sc",    "none", "read", "compare",
                                         "search", "=rs",  "+c",   "-s"};
    const char *by[4], *what = PICK(x, lists);
    unsigned n = 0;

    if (P(x, 30))
        what = fmt(x, "dn.subtree=\"%s\" %s", team, what);
    switch (B(x, 4)) {
    case 0:
        by[n++] = fmt(x, "users %s", PICK(x, grants));
        break;
    case 1:
        by[n++] = fmt(x, "anonymous %s", PICK(x, grants));
        by[n++] = fmt(x, "self %s", PICK(x, grants));
        break;
    case 2:
        by[n++] = fmt(x, "dn.subtree=\"%s\" %s", team, PICK(x, grants));
        break;
    default:
        break;
    }
    by[n++] = fmt(x, "* %s%s", PICK(x, grants), PICK(x, tail_control));
    insert_rule(x, at, what, by, n);
}

/* One rule drawn from templates over the added entries. */
static void
own_rule(struct gen *x, unsigned at)
{
    const char *team = ANY(x, &x->teams), *group = ANY(x, &x->gon);
    const char *person = ANY(x, &x->mine), *dyn = ANY(x, &x->dyn);
    const char *by[4], *what;
    unsigned n = 0;

    /* a '"' in a DN cannot be written inside a quoted rule value */
    if (!team || !group || !person || !dyn || strchr(person, '"'))
        return;
    if (P(x, 40)) {
        optioned_rule(x, at, team);
        return;
    }
    switch (B(x, 15)) {
    case 0:
        what = fmt(x, "dn.subtree=\"%s\"", dn_variant(x, team));
        by[n++] = fmt(x, "group=\"%s\" read", group);
        break;
    case 1:
        what = "dn.regex=\"^cn=([^,]+),ou=groups,dc=example,dc=com$\" "
               "attrs=member,cn";
        by[n++] = "group.expand=\"cn=$1,ou=groups,dc=example,dc=com\" read";
        break;
    case 2:
        what = "attrs=roleOccupant,owner,manager";
        /* distinguishedName: roleOccupant's and owner's supertype, so
         * their values count (slapd's attrs_find); manager has no SUP */
        by[n++] = fmt(
            x, "dnattr=%s read",
            PICK(x, ((const char *const[]){"roleOccupant", "owner", "manager",
                                           "distinguishedName"})));
        break;
    case 3:
        what = "dn.regex=\"^(.+,)?ou=(team[0-9]+),ou=people,"
               "dc=example,dc=com$\"";
        by[n++] = "dn.regex=\"^(.+,)?ou=$2,ou=people,dc=example,dc=com$$\" "
                  "read";
        break;
    case 4:
        what = "filter=\"(employeeType=contractor)\"";
        by[n++] = "set=\"this/manager & user\" read";
        by[n++] = "set=\"this/manager/manager & user\" search";
        break;
    case 5:
        /* one class is a single attribute to slapd: val.regex then
         * tests the values of each type the class takes */
        what = fmt(
            x,
            "dn.children=\"ou=groups,dc=example,dc=com\" attrs=%s "
            "val.regex=\"%s\"",
            PICK(x, ((const char *const[]){"member", "member", "@groupOfNames",
                                           "!person", "groupOfNames"})),
            PICK(x, ((const char *const[]){"ou=team", "ou=team", "^[a-m]",
                                           "[0-9]"})));
        by[n++] = "users read";
        break;
    case 6:
        what = fmt(x, "attrs=title val=\"%s\"", respell(x, "boss"));
        by[n++] = "users read";
        break;
    case 7:
        what = fmt(x, "dn.subtree=\"%s\"",
                   P(x, 50) ? "ou=lab+l=Berlin,dc=example,dc=com"
                            : "L=BERLIN+OU=Lab, DC=example,DC=com");
        by[n++] = fmt(x, "group/groupOfURLs/memberURL=\"%s\" read", dyn);
        break;
    case 8:
        what = fmt(x, "dn.exact=\"%s\"", dn_variant(x, person));
        by[n++] = "self write";
        by[n++] = fmt(x, "dn.children=\"%s\" read", team);
        break;
    case 9:
        what = "attrs=@groupOfNames";
        by[n++] = fmt(x, "set=\"[%s]/member* & user\" read", group);
        break;
    case 10:
        what = fmt(x, "dn.one=\"%s\" attrs=userPassword,mail", team);
        by[n++] = "self =rwx";
        by[n++] = "anonymous auth";
        break;
    case 11:
        /* slapd drops the spaces after commas of a <what> regex */
        what = "dn.regex=\"^(uid|cn)=([^,]+), ou=([^,]+), ou=people, "
               "dc=example, dc=com$\"";
        by[n++] = "dn.subtree,expand=\"ou=$3,ou=people,dc=example,dc=com\" "
                  "read";
        break;
    case 12:
        what = P(x, 50) ? "dn.regex=\".*$$\" attrs=description"
                        : "dn.subtree=\"\" attrs=description";
        by[n++] = fmt(x, "dn.subtree=\"%s\" =rsc continue", team);
        by[n++] = "users +d";
        break;
    case 13:
        what = "attrs=cn,title";
        by[n++] = "group/organizationalRole/roleOccupant=\"cn=Postmaster,"
                  "ou=roles,dc=example,dc=com\" read";
        by[n++] =
            fmt(x, "dn.regex=\"%s\" search",
                PICK(x, ((const char *const[]){"^uid=x[0-9]*1,", ",ou=team1,",
                                               "^cn=[^,]+\\\\,"})));
        break;
    default:
        what = "attrs=cn,sn,displayName";
        by[n++] = fmt(x, "dn.subtree=\"%s\" read", team);
        break;
    }
    by[n++] = fmt(x, "* %s%s", PICK(x, tail_access), PICK(x, tail_control));
    insert_rule(x, at, what, by, n);
}

/* The position of the first database rule (global rules come first). */
static unsigned
first_db_rule(const struct acreG_case *g)
{
    unsigned first = 0;

    while (first < g->nrules && g->rules[first].global)
        first++;
    return first;
}

/* 0-4 rules about the added entries, among the first database's rules,
 * and in a third of the cases a first rule that lets entries be seen
 * (the rules after it decide their attributes). */
static void
own_rules(struct gen *x)
{
    static const char *const entry_by[][2] = {{"* read", NULL},
                                              {"users read", "* search break"},
                                              {"* +rsd break", NULL},
                                              {"anonymous none", "* read"}};

    for (unsigned i = 0, n = B(x, 5); i < n; i++) {
        unsigned first = first_db_rule(x->g);
        own_rule(x, first + B(x, x->g->nrules - first + 1));
    }
    if (P(x, 35)) {
        const char *const *by = entry_by[B(x, DT_NELEM(entry_by))];
        insert_rule(x, first_db_rule(x->g),
                    P(x, 50) ? "attrs=entry" : "attrs=entry,objectClass", by,
                    by[1] ? 2 : 1);
    }
}

/* Half of the cases end the first database's rules with a permissive
 * catch-all, so that more searches return entries (rules before it
 * decide whatever they match, as before). */
static void
add_catch_all(struct gen *x)
{
    static const char *const tails[][3] = {
        {"* read", NULL, NULL},
        {"users read", "anonymous search", NULL},
        {"self write", "users read", "* disclose"},
        {"users =rsc", "* +d", NULL}};
    struct acreG_case *g = x->g;
    const char *const *t = tails[B(x, DT_NELEM(tails))];

    if (!P(x, 50))
        return;
    g->rules = talloc_realloc(g, g->rules, struct acreG_rule, g->nrules + 1);
    if (!g->rules)
        dt_die("out of memory");
    struct acreG_rule *r = &g->rules[g->nrules++];
    memset(r, 0, sizeof *r);
    r->what = talloc_strdup(g, "*");
    r->by = talloc_array(g, char *, 3);
    r->omit_by = talloc_zero_array(g, uint8_t, 3);
    if (!r->what || !r->by || !r->omit_by)
        dt_die("out of memory");
    for (unsigned i = 0; i < 3 && t[i]; i++)
        r->by[r->nby++] = talloc_strdup(g, t[i]);
}

static void
rewrite_rules(struct gen *x)
{
    for (unsigned i = 0; i < x->g->nrules; i++)
        for (unsigned j = 0; j < x->g->rules[i].nby; j++)
            x->g->rules[i].by[j] = rewrite_clause(x, x->g->rules[i].by[j]);
}

/* ---- collective attributes --------------------------------------------- */

/*
 * slapo-collect: in 40% of the cases (all with ACL_COLLECT=1 in the
 * environment, none with ACL_COLLECT=0) an OU of the first database gets
 * values of two attributes, and "overlay collect" with "collectinfo"
 * makes every entry below it show them.  slapd adds them to each result
 * and checks them against the target entry's rules (and, as the
 * requester, read on the source); acre attaches the policy to the
 * directory (acre_policy_attach_subentries) and returns them in its
 * verdicts; the comparison covers them as any other value.
 */
static void
collect(struct gen *x)
{
    static const char *const attrs[][2] = {{"l", "Berlin"},
                                           {"description", "collected"},
                                           {"telephoneNumber", "+1 555 0000"},
                                           {"st", "Bavaria"}};
    const char *env = getenv("ACL_COLLECT");
    int on = env && *env ? strcmp(env, "0") != 0 : P(x, 40);
    const char *ou = ANY(x, &x->teams);
    int e;

    if (!on || !ou || (e = find_entry(x, ou)) < 0)
        return;
    unsigned a = B(x, DT_NELEM(attrs)), b = (a + 1 + B(x, 3)) % 4;
    for (unsigned j = 0; j < x->g->entries[e].nlines; j++) {
        const char *l = x->g->entries[e].lines[j];
        if (!strncasecmp(l, attrs[a][0], strlen(attrs[a][0])) ||
            !strncasecmp(l, attrs[b][0], strlen(attrs[b][0])))
            return; /* no second value: acre refuses duplicates */
    }
    add(x, e, attrs[a][0], attrs[a][1]);
    add(x, e, attrs[b][0], attrs[b][1]);
    x->collect = fmt(x, "overlay collect\ncollectinfo \"%s\" %s,%s\n", ou,
                     attrs[a][0], attrs[b][0]);
}

/* The rules text with x->collect after the first database's rootdn. */
static char *
with_collect(struct gen *x, void *ctx, char *rules)
{
    char *at = strstr(rules, "\nrootdn ");

    if (!x->collect || !at)
        return rules;
    at = strchr(at + 1, '\n');
    return talloc_asprintf(ctx, "%.*s%s%s", (int)(at + 1 - rules), rules,
                           x->collect, at + 1);
}

/* ---- requesters -------------------------------------------------------- */

static void
add_rq(struct acl_case *c, enum acl_kind k, const char *label,
       const char *authz, const char *bind_dn, const char *pw)
{
    c->rq = talloc_realloc(c, c->rq, struct acl_rq, c->nrq + 1);
    if (!c->rq)
        dt_die("out of memory");
    struct acl_rq *r = &c->rq[c->nrq++];
    r->kind = k;
    r->label = talloc_strdup(c, label);
    r->authz = talloc_strdup(c, authz ? authz : "");
    r->bind_dn = talloc_strdup(c, bind_dn ? bind_dn : "");
    r->password = talloc_strdup(c, pw ? pw : "");
}

static void
proxy(struct gen *x, struct acl_case *c, const char *label, const char *dn)
{
    if (dn)
        add_rq(c, ACL_PROXY, label, P(x, 20) ? dn_variant(x, dn) : dn,
               ACREG_ROOTDN, NULL);
}

static void
make_requesters(struct gen *x, struct acl_case *c)
{
    unsigned nusers = 2 + B(x, 4);

    add_rq(c, ACL_ANON, "anonymous", NULL, NULL, NULL);
    if (P(x, 85))
        add_rq(c, ACL_ROOT, "rootdn", NULL, ACREG_ROOTDN, NULL);
    for (unsigned i = 0; i < nusers; i++) {
        /* mostly the people the rules name */
        const struct pool *p = P(x, 70) ? &x->people : &x->mine;
        const char *dn = ANY(x, p);
        proxy(x, c, fmt(x, "user %s", dn ? dn : ""), dn);
    }
    if (P(x, 30)) {
        const struct pool *groups = P(x, 60) ? &x->gon : &x->dyn;
        proxy(x, c, "group", ANY(x, groups));
    }
    if (P(x, 20))
        proxy(x, c, "device or role", ANY(x, &x->others));
    if (P(x, 25))
        proxy(x, c, "ghost", "uid=ghost,ou=people," ACREG_SUFFIX);
    if (P(x, 15))
        add_rq(c, ACL_PROXY, "proxied anonymous", "", ACREG_ROOTDN, NULL);
    for (unsigned i = 0, n = 1 + B(x, 2); i < n && x->pwd.n; i++) {
        const char *dp = ANY(x, &x->pwd), *tab = strchr(dp, '\t');
        char *dn = talloc_strndup(x->g, dp, (size_t)(tab - dp));
        if (in_second(dn))
            continue;
        add_rq(c, ACL_BIND, fmt(x, "bind %s", dn), NULL, dn,
               P(x, 80) ? tab + 1 : "wrong");
    }
    /* (slapd lets a rootdn proxy only as DNs of its own databases: no
     * boss without the second one's) */
    if (x->g->ndbs > 1 && !x->g->norootdn2) {
        if (P(x, 50))
            add_rq(c, ACL_ROOT, "rootdn2", NULL, ACREG_ROOTDN2, NULL);
        else
            add_rq(c, ACL_PROXY, "boss (second database)",
                   "cn=boss," ACREG_SUFFIX2, ACREG_ROOTDN2, NULL);
    }
}

/* ---- filters ----------------------------------------------------------- */

/* Collect "attr\tvalue" of every live entry (base64 undone). */
static void
collect_values(struct gen *x)
{
    struct acreG_case *g = x->g;

    for (unsigned i = 0; i < g->nentries; i++) {
        if (omitted(g, i))
            continue;
        for (unsigned j = 0; j < g->entries[i].nlines; j++) {
            const char *l = g->entries[i].lines[j];
            size_t n = strcspn(l, ":");
            struct dt_str v;
            dt_str_init(&v);
            if (l[n] == ':' && l[n + 1] == ':')
                dt_base64_decode(&v, l + n + 3, strlen(l + n + 3));
            else if (l[n] == ':')
                dt_str_puts(&v, l + n + 2);
            if (v.len && !memchr(v.p, 0, v.len)) {
                const char *av = fmt(x, "%.*s\t%s", (int)n, l, v.p);
                push(x, &x->values, av);
                if (memchr(l, ';', n))
                    push(x, &x->optvals, av);
            }
            dt_str_free(&v);
        }
    }
}

/* Append v escaped for a filter (RFC 4515 3). */
static char *
esc(struct gen *x, const char *v, size_t n)
{
    char *s = talloc_strdup(x->g, "");

    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        s = ch == '*' || ch == '(' || ch == ')' || ch == '\\' || ch == 0
                ? talloc_asprintf_append(s, "\\%02x", ch)
                : talloc_asprintf_append(s, "%c", ch);
    }
    return s;
}

static int
is_dn_type(const char *a)
{
    static const char *const dn_types[] = {"member",       "owner",
                                           "manager",      "seeAlso",
                                           "roleOccupant", "uniqueMember"};
    for (unsigned i = 0; i < DT_NELEM(dn_types); i++)
        if (!strcasecmp(a, dn_types[i]))
            return 1;
    return 0;
}

/* A substring filter over a value (cut at ASCII positions only). */
static char *
substring(struct gen *x, const char *a, const char *v)
{
    size_t n = strlen(v), cut1 = n ? B(x, (unsigned)n) : 0, cut2;
    while (cut1 > 0 && (unsigned char)v[cut1] >= 0x80)
        cut1--;
    cut2 = cut1 + (n - cut1 ? B(x, (unsigned)(n - cut1)) : 0);
    while (cut2 > cut1 && (unsigned char)v[cut2] >= 0x80)
        cut2--;
    switch (B(x, 4)) {
    case 0:
        return fmt(x, "(%s=%s*)", a, esc(x, v, cut2));
    case 1:
        return fmt(x, "(%s=*%s)", a, esc(x, v + cut1, n - cut1));
    case 2:
        if (cut2 > cut1) /* "**" is no filter */
            return fmt(x, "(%s=*%s*)", a, esc(x, v + cut1, cut2 - cut1));
        return fmt(x, "(%s=%s*)", a, esc(x, v, cut2));
    default:
        return fmt(x, "(%s=%s*%s)", a, esc(x, v, cut1),
                   esc(x, v + cut2, n - cut2));
    }
}

static const char *const classes[] = {"inetOrgPerson", "person",
                                      "groupOfNames",  "groupOfUniqueNames",
                                      "groupOfURLs",   "organizationalUnit",
                                      "device",        "organizationalRole",
                                      "top",           "dcObject"};

static const char *const other_items[] = {
    "(userPassword=*)", "(userPassword=secret1)", "(cn;lang-en=*)",
    "(name=*a*)", "(foo=bar)", "(member=*)", "(uniqueMember=*)",
    "(memberURL=*)", "(ou:dn:=people)", "(ou:dn:=team1)", "(title>=boss)",
    "(description<=m)", "(mail=*example.com)", "(objectClass=*)", "(2.5.4.3=*)",
    "(commonName=*e*)", "(entryDN=*)", "(telephoneNumber=*555*)",
    "(uid:caseExactMatch:=x1)", "(cn:caseExactMatch:=Ann Lee)",
    "(hasSubordinates=TRUE)", "(!(hasSubordinates=TRUE))",
    "(entryDN=ou=people,dc=example,dc=com)", "(roleOccupant=*)", "(owner=*)",
    /* optioned descriptions, ranges of tags, rule-only extensible items */
    "(cn;lang-fr=*)", "(cn;lang-en-=*)", "(cn;lang-=*)",
    "(CN;LANG-DE;lang-en-=*)", "(description;lang-en=*)", "(name;lang-fr=*)",
    "(title;lang-fr=patron)", "(:caseIgnoreMatch:=boss)",
    "(:caseExactMatch:=Boss)", "(:dn:caseIgnoreMatch:=people)",
    "(:dn:caseExactMatch:=team1)", "(cn;lang-fr:dn:caseIgnoreMatch:=people)",
    /* slapd's DN-relating rules, typed (without a type they would also
     * read the creatorsName slapadd stores and acre's directory has not) */
    "(entryDN:dnSubtreeMatch:=ou=people,dc=example,dc=com)",
    "(entryDN:dnOneLevelMatch:=dc=example,dc=com)",
    "(entryDN:dnSubordinateMatch:=ou=people,dc=example,dc=com)",
    "(entryDN:dnSuperiorMatch:=uid=x1,ou=people,dc=example,dc=com)",
    "(member:dnSubtreeMatch:=ou=people,dc=example,dc=com)",
    "(owner:1.3.6.1.4.1.4203.666.4.8:=ou=people,dc=example,dc=com)",
    /* not (structuralObjectClass=...): slapadd computes that attribute,
     * acre's LDIF directory does not */
};

static const char *const common[] = {"cn",    "sn",     "objectClass",
                                     "uid",   "mail",   "description",
                                     "title", "member", "ou"};

/* Is a (a type name) a subtype of name? */
static int
is_name_type(const char *a, size_t n)
{
    static const char *const subs[] = {"cn",      "commonName", "sn",
                                       "surname", "givenName",  "title",
                                       "ou",      "o",          "l"};
    for (unsigned i = 0; i < DT_NELEM(subs); i++)
        if (strlen(subs[i]) == n && !strncasecmp(a, subs[i], n))
            return 1;
    return 0;
}

/* Tag t (of n bytes) as a language range that still covers it: itself
 * with a '-' ("lang-en-" covers lang-en), a prefix ending in '-'
 * ("lang-en-" covers lang-en-us) or "lang-". */
static char *
tag_range(struct gen *x, const char *t, size_t n)
{
    const char *dash = n > 5 ? memchr(t + 5, '-', n - 5) : NULL;

    switch (B(x, 3)) {
    case 0:
        return fmt(x, "%.*s-", (int)n, t);
    case 1:
        if (dash)
            return fmt(x, "%.*s", (int)(dash + 1 - t), t);
        /* FALLTHROUGH */
    default:
        return fmt(x, "%.5s", t);
    }
}

/*
 * The description a (as the directory writes it: "cn;LANG-FR", "sn") as
 * a filter item may name it and still cover the value: in another case,
 * without its options (the plain type covers every optioned one), by
 * the supertype name, or with one tag made a range of tags.
 */
static const char *
desc_variant(struct gen *x, const char *a)
{
    const char *semi = strchr(a, ';');
    size_t tn = semi ? (size_t)(semi - a) : strlen(a);
    unsigned k = B(x, 100);

    if (k < 20)
        return desc_case(x, a);
    if (k < 30 && is_name_type(a, tn))
        return fmt(x, "name%s", semi ? semi : "");
    if (!semi)
        return a;
    if (k < 50)
        return fmt(x, "%.*s", (int)tn, a);
    /* one tag (the first) made a range; the others kept */
    const char *t = semi + 1, *end = strchr(t, ';');
    size_t n = end ? (size_t)(end - t) : strlen(t);
    if (n < 5 || strncasecmp(t, "lang-", 5))
        return a;
    return fmt(x, "%.*s;%s%s", (int)tn, a, tag_range(x, t, n), end ? end : "");
}

/* One filter item over a value of the directory. */
static char *
item(struct gen *x)
{
    const char *av =
        x->optvals.n && P(x, 30) ? ANY(x, &x->optvals) : ANY(x, &x->values);
    const char *tab = strchr(av, '\t');
    char *a = talloc_strndup(x->g, av, (size_t)(tab - av));
    const char *v = tab + 1, *d;
    unsigned k = B(x, 100);

    if (k < 10)
        return fmt(x, "(objectClass=%s)", PICK(x, classes));
    if (k < 22)
        return (char *)PICK(x, other_items);
    if (k < 34)
        return fmt(x, "(%s=*)", PICK(x, common));
    /* the value's own description, or another that covers it */
    d = P(x, 40) ? desc_variant(x, a) : a;
    if (k < 40)
        return fmt(x, "(%s=*)", d);
    if (is_dn_type(a) && k < 60) {
        v = dn_variant(x, v);
        return fmt(x, "(%s=%s)", d, esc(x, v, strlen(v)));
    }
    if (k < 60) {
        v = P(x, 60) ? respell(x, v) : v;
        return fmt(x, "(%s=%s)", d, esc(x, v, strlen(v)));
    }
    if (k < 66) /* a short prefix: many entries */
        return fmt(x, "(%s=%s*)", d, esc(x, v, (unsigned char)*v < 0x80));
    if (k < 76)
        return substring(x, d, v);
    if (k < 82)
        return fmt(x, "(%s%s=%s)", d, P(x, 50) ? ">" : "<",
                   esc(x, v, strlen(v)));
    if (k < 87)
        return fmt(x, "(%s~=%s)", d, esc(x, v, strlen(v)));
    const char *rule = P(x, 50) ? "caseExactMatch" : "caseIgnoreMatch";
    if (k < 91)
        return fmt(x, "(%s:%s:=%s)", d, rule, esc(x, v, strlen(v)));
    if (k < 95) /* no type: every attribute the rule applies to */
        return fmt(x, "(:%s%s:=%s)", P(x, 30) ? "dn:" : "", rule,
                   esc(x, v, strlen(v)));
    return fmt(x, "(%s=%s)", d, esc(x, v, strlen(v)));
}

static char *
filter(struct gen *x, unsigned depth)
{
    unsigned k = depth < 3 ? B(x, 100) : 99;
    char *s;

    if (k < 14 || (k < 26 && depth == 0)) {
        s = fmt(x, "(%c", k % 2 ? '&' : '|');
        for (unsigned i = 0, n = 1 + B(x, 3); i < n; i++)
            s = talloc_asprintf_append(s, "%s", filter(x, depth + 1));
        return talloc_asprintf_append(s, ")");
    }
    if (k < 34)
        return fmt(x, "(!%s)", filter(x, depth + 1));
    return item(x);
}

/* ---- searches ---------------------------------------------------------- */

static const char *
base(struct gen *x)
{
    unsigned k = B(x, 100);
    const char *e = ANY(x, &x->all);

    if (k < 30)
        return ACREG_SUFFIX;
    if (k < 44)
        return ANY(x, &x->homes);
    if (k < 50)
        return "ou=groups," ACREG_SUFFIX;
    if (k < 66)
        return e;
    if (k < 75)
        return fmt(x, "uid=nobody,%s", e);
    if (k < 79)
        return fmt(x, "cn=a,uid=nobody,%s", e);
    if (k < 90)
        return dn_variant(x, P(x, 50) ? e : ANY(x, &x->homes));
    if (k < 92)
        return "o=nowhere";
    if (k < 93)
        return "not a dn";
    if (k < 97 && x->g->ndbs > 1)
        return ACREG_SUFFIX2;
    return ACREG_SUFFIX;
}

static const char *const attr_pool[] = {"cn",
                                        "sn",
                                        "uid",
                                        "mail",
                                        "userPassword",
                                        "member",
                                        "uniqueMember",
                                        "memberURL",
                                        "title",
                                        "description",
                                        "manager",
                                        "seeAlso",
                                        "objectClass",
                                        "name",
                                        "cn;lang-en",
                                        "commonName",
                                        "SURNAME",
                                        "telephoneNumber",
                                        "owner",
                                        "entryDN",
                                        "givenName",
                                        "ou",
                                        "foo",
                                        "employeeType",
                                        "roleOccupant",
                                        "CN;LANG-EN",
                                        "2.5.4.4",
                                        "l",
                                        "cn;lang-fr",
                                        "cn;lang-",
                                        "cn;lang-en-",
                                        "description;lang-en",
                                        "name;lang-fr",
                                        "CN;Lang-FR",
                                        "description;lang-",
                                        "cn;lang-de;lang-en-",
                                        "title;lang-",
                                        "-cn"};

static void
attrs(struct gen *x, struct acl_case *c, struct acl_search *s)
{
    static const char *const fixed[][2] = {{"*", NULL},   {"+", NULL},
                                           {"1.1", NULL}, {"*", "+"},
                                           {"1.1", "cn"}, {"*", "entryDN"}};
    unsigned k = B(x, 10);

    if (k < 3)
        return; /* all user attributes */
    s->attrs = talloc_array(c, char *, 4);
    if (k < 6) {
        const char *const *f = fixed[B(x, DT_NELEM(fixed))];
        for (unsigned i = 0; i < 2 && f[i]; i++)
            s->attrs[s->nattrs++] = talloc_strdup(c, f[i]);
        return;
    }
    for (unsigned i = 0, n = 1 + B(x, 3); i < n; i++)
        s->attrs[s->nattrs++] = talloc_strdup(c, PICK(x, attr_pool));
}

static void
make_searches(struct gen *x, struct acl_case *c)
{
    static const int scopes[] = {0, 1, 2, 2, 2, 3};
    unsigned n = 3 + B(x, 4);

    for (unsigned i = 0; i < n; i++) {
        struct acl_search t;
        memset(&t, 0, sizeof t);
        t.scope = scopes[B(x, DT_NELEM(scopes))];
        t.base = talloc_strdup(c, base(x));
        t.filter =
            talloc_strdup(c, P(x, 12) ? "(objectClass=*)" : filter(x, 0));
        attrs(x, c, &t);
        t.attrsonly = P(x, 12);
        for (unsigned r = 0; r < c->nrq; r++) {
            c->s = talloc_realloc(c, c->s, struct acl_search, c->ns + 1);
            if (!c->s)
                dt_die("out of memory");
            c->s[c->ns] = t;
            c->s[c->ns++].rq = r;
        }
    }
}

/* ---- compares and writes (module mode) --------------------------------- */

/* The types the writes touch: what the rules name most, DN-valued ones
 * among them. */
static const char *const write_attrs[] = {"description",
                                          "title",
                                          "mail",
                                          "seeAlso",
                                          "manager",
                                          "member",
                                          "uniqueMember",
                                          "owner",
                                          "cn",
                                          "sn",
                                          "l",
                                          "telephoneNumber",
                                          "employeeType",
                                          "description;lang-en",
                                          "roleOccupant",
                                          "userPassword"};

/* A live entry of the case: its index, or -1 when there is none. */
static int
any_entry(struct gen *x)
{
    const char *dn = ANY(x, &x->all);
    return dn ? find_entry(x, dn) : -1;
}

/* One value of entry e: "attr" and its value (base64 undone), or 0 when
 * it has none to give. */
static int
entry_value(struct gen *x, int e, char **attr, char **value)
{
    const struct acreG_entry *en = &x->g->entries[e];

    for (unsigned tries = 0; tries < 8 && en->nlines; tries++) {
        unsigned j = B(x, en->nlines);
        const char *l = en->lines[j];
        size_t n = strcspn(l, ":");
        struct dt_str v;
        if (en->omit_line[j] || l[n] != ':')
            continue;
        dt_str_init(&v);
        if (l[n + 1] == ':')
            dt_base64_decode(&v, l + n + 3, strlen(l + n + 3));
        else
            dt_str_puts(&v, l + n + 2);
        int ok = v.len && !memchr(v.p, 0, v.len) && !strpbrk(v.p, "\t\n");
        if (ok) {
            *attr = talloc_strndup(x->g, l, n);
            *value = talloc_strdup(x->g, v.p);
        }
        dt_str_free(&v);
        if (ok)
            return 1;
    }
    return 0;
}

/* A value for a write of attr: a DN for a DN type, else a short word,
 * now and then one spelled as the rules' values are. */
static const char *
new_value(struct gen *x, const char *attr, const struct acl_rq *r)
{
    static const char *const words[] = {"on call", "Team Lead", "x",
                                        "boss",    "staff",     "secret"};
    const char *self = r->kind == ACL_PROXY  ? r->authz
                       : r->kind == ACL_BIND ? r->bind_dn
                                             : "";
    if (is_dn_type(attr) && *self && P(x, 30)) /* selfwrite's value */
        return P(x, 20) ? dn_variant(x, self) : self;
    if (is_dn_type(attr))
        return P(x, 80) && x->all.n ? dn_variant(x, ANY(x, &x->all))
                                    : "cn=nobody," ACREG_SUFFIX;
    if (!strcasecmp(attr, "mail"))
        return fmt(x, "w%u@example.com", B(x, 20));
    if (!strcasecmp(attr, "telephoneNumber"))
        return fmt(x, "+1 555 %04u", B(x, 10000));
    return P(x, 50) ? PICK(x, words) : fmt(x, "w%u", B(x, 50));
}

static void
push_op(struct acl_case *c, unsigned rq, const char *op, const char *dn,
        unsigned nargs, const char *const *args)
{
    c->ops = talloc_realloc(c, c->ops, struct acl_op, c->nops + 1);
    if (!c->ops)
        dt_die("out of memory");
    struct acl_op *o = &c->ops[c->nops++];
    o->rq = rq;
    o->op = talloc_strdup(c, op);
    o->dn = talloc_strdup(c, dn);
    o->nargs = nargs;
    o->args = talloc_array(c, char *, nargs + 1);
    for (unsigned i = 0; i < nargs; i++)
        o->args[i] = talloc_strdup(c, args[i]);
}

/* Compares, modifies, adds, deletes and renames as the case's requesters
 * (made by slapd in module mode only: acl_ldap_ops). */
static void
make_ops(struct gen *x, struct acl_case *c)
{
    unsigned n = 10 + B(x, 20);

    for (unsigned i = 0; i < n && c->nrq && x->all.n; i++) {
        unsigned rq = B(x, c->nrq), k = B(x, 100);
        int e = any_entry(x);
        /* slapd refuses an anonymous write before any rule, and lets a
         * rootdn do anything: mostly someone else */
        for (unsigned t = 0;
             t < 3 && k >= 35 &&
             (c->rq[rq].kind == ACL_ANON || c->rq[rq].kind == ACL_ROOT);
             t++)
            rq = B(x, c->nrq);
        const struct acl_rq *r = &c->rq[rq];
        const char *own = r->kind == ACL_PROXY  ? r->authz
                          : r->kind == ACL_BIND ? r->bind_dn
                                                : "";
        if (*own && P(x, 30) && find_entry(x, own) >= 0)
            e = find_entry(x, own); /* the rules' "self" */
        char *attr = NULL, *value = NULL;
        const char *dn, *args[8];
        if (e < 0)
            continue;
        dn =
            P(x, 15) ? dn_variant(x, x->g->entries[e].dn) : x->g->entries[e].dn;
        if (k < 35) { /* compare: a value it has, else another */
            if (P(x, 70) && entry_value(x, e, &attr, &value)) {
                args[0] = attr;
                args[1] = P(x, 20) ? respell(x, value) : value;
            } else {
                args[0] = P(x, 80) ? PICK(x, write_attrs) : PICK(x, attr_pool);
                args[1] = new_value(x, args[0], r);
            }
            push_op(c, rq, "compare", dn, 2, args);
        } else if (k < 70) { /* modify: one change of one type */
            static const char *const how[] = {"add", "delete", "replace"};
            args[0] = PICK(x, how);
            if (!strcmp(args[0], "delete") && P(x, 60) &&
                entry_value(x, e, &attr, &value)) {
                args[1] = attr;
                args[2] = value;
            } else {
                args[1] = PICK(x, write_attrs);
                args[2] = new_value(x, args[1], r);
            }
            push_op(c, rq, "modify", dn,
                    strcmp(args[0], "add") && P(x, 20) ? 2 : 3, args);
        } else if (k < 82) { /* add a child */
            const char *rdn = fmt(x, "new%u", i);
            args[0] = "objectClass";
            args[1] = "organizationalRole";
            args[2] = "cn";
            args[3] = rdn;
            args[4] = P(x, 50) ? "description" : "roleOccupant";
            args[5] = new_value(x, args[4], r);
            push_op(c, rq, "add", fmt(x, "cn=%s,%s", rdn, dn), P(x, 60) ? 6 : 4,
                    args);
        } else if (k < 91) {
            push_op(c, rq, "delete", dn, 0, args);
        } else { /* rename, now and then elsewhere */
            args[0] = fmt(x, "cn=ren%u", i);
            args[1] = P(x, 50) ? "1" : "0";
            args[2] = ANY(x, &x->all);
            push_op(c, rq, "modrdn", dn, P(x, 25) ? 3 : 2, args);
        }
    }
}

/* ---- the case ---------------------------------------------------------- */

struct acl_case *
acl_gen(void *ctx, uint64_t seed, struct acl_gen_info *info)
{
    struct acl_case *c = talloc_zero(ctx, struct acl_case);
    struct gen x;

    memset(&x, 0, sizeof x);
    if (!c || acreG_case_new(c, seed, &x.g))
        dt_die("out of memory");
    dt_rng_seed(&x.r, seed ^ 0x61636c2d67656e00ull); /* "acl-gen" */
    x.serial = 0;
    scan(&x);
    grow(&x);
    rewrite_rules(&x);
    own_rules(&x);
    add_catch_all(&x);
    collect(&x);
    collect_values(&x);
    store_orders(&x);
    c->rules = with_collect(&x, c, acreG_conf(c, x.g));
    c->ldif = acreG_ldif(c, x.g);
    if (!c->rules || !c->ldif)
        dt_die("out of memory");
    make_requesters(&x, c);
    make_searches(&x, c);
    make_ops(&x, c);
    if (info) {
        unsigned nrules = 0;
        for (unsigned i = 0; i < x.g->nrules; i++)
            nrules += !x.g->rules[i].omit;
        info->entries = live_entries(x.g);
        info->rules = nrules;
        info->requesters = c->nrq;
        info->searches = c->ns;
        info->dbs = x.g->ndbs;
    }
    talloc_free(x.g);
    return c;
}
