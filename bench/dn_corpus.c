/*
 * dn_corpus.c -- the seeded generator of realistic DN strings (see
 * dn_corpus.h) and the corpus store.
 *
 * Shape of a generated DN, leaf first:
 *
 *   leaf  cn=<person> | uid=<login> | cn=<group> | cn=<host>, sometimes a
 *         two-AVA RDN (cn=John Smith+uid=jsmith42)
 *   mid   ou=<department>, ou=People|Groups|..., l=<city>, o=<org>
 *   top   dc=<org>,dc=<tld> (or three dc) | o=<org>,c=<CC> | l=,o=,c=
 *
 * 5 to 7 RDNs in all.  Variation: type case (cn, CN, Cn, cN), value case,
 * a space after some commas.  DN_KIND_RICH adds escapes (\, \+ \" \\ \;
 * \< \> \# and \XX hex pairs, including values whose non-ASCII characters
 * are all hex-escaped), #hex BER values, non-ASCII values and, rarely,
 * type aliases or OIDs; it keeps only DNs that have at least one escape,
 * #hex value or non-ASCII byte.
 *
 * Invariants: every DN is valid per RFC 4514; dc and c values stay ASCII
 * (IA5String, PrintableString); no RDN repeats an AVA; a DN never exceeds
 * DNB_MAX bytes (the word lists are short).
 */
#include "dn_corpus.h"

#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DNB_MAX 1024
#define N_OF(a) (sizeof(a) / sizeof *(a))

/* ---- word lists ---------------------------------------------------------- */

static const char *const given_ascii[] = {
    "John",  "Mary",   "Robert", "Patricia", "Michael", "Jennifer",
    "David", "Linda",  "James",  "Susan",    "Ahmed",   "Priya",
    "Wei",   "Carlos", "Fatima", "Olga",     "Kenji",   "Aisha",
    "Tom",   "Sarah",  "Liam",   "Emma",     "Noah",    "Chloe",
    "Raj",   "Ingrid", "Pedro",  "Yuki",     "Omar",    "Grace",
};

static const char *const surname_ascii[] = {
    "Smith",   "Johnson", "Williams", "Brown",  "Jones",   "Garcia",
    "Miller",  "Davis",   "Martinez", "Patel",  "Nguyen",  "Kim",
    "Chen",    "O'Brien", "Anderson", "Taylor", "Thomas",  "Moore",
    "Jackson", "Lee",     "Harris",   "Clark",  "Lewis",   "Walker",
    "Hall",    "Young",   "King",     "Wright", "Schmidt", "Smith-Jones",
};

/* Non-ASCII names; `eastern` names are written surname first, no space. */
static const struct {
    const char *given, *surname;
    int eastern;
} names_uni[] = {
    {"Jürgen", "Müller", 0},    {"François", "Lefèvre", 0},
    {"Anders", "Ångström", 0},  {"Søren", "Øvergård", 0},
    {"Łukasz", "Wałęsa", 0},    {"Zoë", "Çelik", 0},
    {"Antonín", "Dvořák", 0},   {"José", "Núñez", 0},
    {"Björn", "Þórsson", 0},    {"Ελένη", "Παπαδοπούλου", 0},
    {"Γιώργος", "Νικολάου", 0}, {"Дмитрий", "Иванов", 0},
    {"Анна", "Смирнова", 0},    {"太郎", "山田", 1},
    {"花子", "佐藤", 1},        {"伟", "王", 1},
    {"秀英", "李", 1},          {"민준", "김", 1},
    {"서연", "이", 1},          {"Renée", "Gauß", 0},
    {"İsmail", "Yılmaz", 0},    {"Mária", "Kovács", 0},
    {"Nguyễn", "Thị Hương", 0}, {"Åsa", "Lindqvist", 0},
};

static const char *const dept_ascii[] = {
    "Engineering",
    "Sales",
    "Marketing",
    "Finance",
    "Human Resources",
    "Legal",
    "Support",
    "Operations",
    "Research & Development",
    "IT",
    "Facilities",
    "Procurement",
    "Quality Assurance",
    "Security",
    "Customer Success",
    "Platform",
};

static const char *const dept_uni[] = {
    "Ventes Européennes",
    "Forschung und Entwicklung",
    "Développement",
    "Ressources humaines",
    "Straßenbau",
    "Вычислительный центр",
    "Τμήμα Πωλήσεων",
    "研究開発部",
    "営業部",
    "인사팀",
    "Comptabilité",
    "Säkerhet",
};

/* Values that must be escaped, for DN_KIND_RICH. */
static const char *const special_values[] = {
    "R+D",
    "Sales + Marketing",
    "Bob \"The Boss\" Jones",
    "DOMAIN\\jsmith",
    "<Admins>",
    "Tom; Jerry",
    "#support",
    " Padded ",
    "C:\\Shares\\Finance",
    "Sales, EMEA",
    "Smith, Jones & Co.",
    "a<b>c",
};

static const char *const structural[] = {
    "People",           "Users", "Staff", "Contractors",       "Groups",
    "Service Accounts", "Hosts", "Roles", "Disabled Accounts", "Partners",
};

static const char *const groups_ascii[] = {
    "Domain Admins",   "vpn-users",    "Engineering Leads", "dev-team-42",
    "Print Operators", "wiki-editors", "Backup Operators",  "all-staff",
};

static const char *const groups_uni[] = {
    "Développeurs",      "Администраторы", "管理者",
    "Ομάδα Υποστήριξης", "Équipe Réseau",  "Entwickler München",
};

static const char *const orgs[] = {
    "Example Corp",      "Acme Inc.",    "Globex",
    "Initech",           "Umbrella Ltd", "Stark Industries",
    "Wayne Enterprises", "Hooli",
};

static const char *const cities_ascii[] = {
    "London", "New York", "Paris", "Berlin", "Tokyo", "Sydney", "Toronto",
};

static const char *const cities_uni[] = {
    "München", "Zürich", "São Paulo", "Kraków",
    "Москва",  "東京",   "Αθήνα",     "Malmö",
};

static const char *const dc_org[] = {
    "example", "acme", "globex", "initech", "umbrella", "stark", "hooli",
};

static const char *const dc_sub[] = {
    "corp", "ad", "eu", "us", "emea", "prod", "internal",
};

static const char *const dc_tld[] = {
    "com", "org", "net", "io", "de", "fr", "co",
};

static const char *const countries[] = {
    "US", "DE", "FR", "GB", "JP", "SE", "CA", "BR",
};

/* Attribute types: name, an alias and the OID (ORDER TYPE). */
enum type { T_CN, T_OU, T_O, T_DC, T_UID, T_L, T_C };

static const struct {
    const char *name, *alias, *oid;
} types[] = {
    {"cn", "commonName", "2.5.4.3"},
    {"ou", "organizationalUnitName", "2.5.4.11"},
    {"o", "organizationName", "2.5.4.10"},
    {"dc", "domainComponent", "0.9.2342.19200300.100.1.25"},
    {"uid", "userid", "0.9.2342.19200300.100.1.1"},
    {"l", "localityName", "2.5.4.7"},
    {"c", "countryName", "2.5.4.6"},
};

/* ---- one DN being written ------------------------------------------------ */

typedef struct dnb {
    bench_rng *rng;
    int rich;       /* DN_KIND_RICH */
    int marked;     /* an escape, #hex or non-ASCII byte was written */
    int hex_lower;  /* write hex digits in lower case (per value) */
    unsigned depth; /* RDNs written */
    size_t len;
    char s[DNB_MAX];
} dnb;

static void
put(dnb *b, const char *s, size_t n)
{
    if (b->len + n >= DNB_MAX) /* cannot happen with these word lists */
        abort();
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void
put_char(dnb *b, char c)
{
    put(b, &c, 1);
}

static const char *
pick(dnb *b, const char *const *list, size_t n)
{
    return list[bench_rng_below(b->rng, (uint32_t)n)];
}

#define PICK(b, list) pick(b, list, N_OF(list))

static char
upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 32) : c;
}

static char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/*
 * Write ASCII text with the case varied: mostly as given, sometimes all
 * upper, all lower, capitalised or random per letter.  `keep` is the
 * percentage left as given.
 */
static void
put_cased(dnb *b, const char *s, unsigned keep)
{
    unsigned mode = bench_rng_below(b->rng, 100);

    for (size_t i = 0; s[i]; i++) {
        char c = s[i];

        if (mode < keep)
            ;
        else if (mode < keep + (100 - keep) / 2)
            c = upper(c);
        else if (mode < 96)
            c = i == 0 ? upper(c) : lower(c);
        else
            c = bench_rng_chance(b->rng, 50) ? upper(c) : lower(c);
        put_char(b, c);
    }
}

static void
put_hex(dnb *b, unsigned char c)
{
    static const char up[] = "0123456789ABCDEF", lo[] = "0123456789abcdef";
    const char *d = b->hex_lower ? lo : up;

    put_char(b, d[c >> 4]);
    put_char(b, d[c & 15]);
}

/* Bytes in the UTF-8 sequence that starts with lead byte c. */
static size_t
utf8_len(unsigned char c)
{
    return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

static int
must_escape(const char *s, size_t i, size_t n)
{
    if (strchr(",+\"\\<>;", s[i]) != NULL)
        return 1;
    return (i == 0 && (s[i] == '#' || s[i] == ' ')) ||
           (i + 1 == n && s[i] == ' ');
}

/* How one value is escaped, beyond what RFC 4514 requires. */
typedef struct escaping {
    int hex_utf8; /* every non-ASCII character as \XX pairs */
    size_t odd;   /* this ASCII character as a \XX pair (legal, rare) */
} escaping;

/*
 * Write the character at s[i] of a value of n bytes with RFC 4514 escaping:
 * a special character as \c or \XX, a non-ASCII character as is or, when
 * the value is hex-escaped, as \XX pairs (every byte of it, so the value
 * stays UTF-8).  Returns the bytes of s consumed.
 */
static size_t
put_escaped_char(dnb *b, const escaping *e, const char *s, size_t i, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    size_t k = utf8_len(c);

    if (must_escape(s, i, n)) {
        put_char(b, '\\');
        if (bench_rng_chance(b->rng, 35))
            put_hex(b, c);
        else
            put_char(b, (char)c);
        b->marked = 1;
        return 1;
    }
    if (c < 0x80 && i != e->odd) {
        put_char(b, (char)c);
        return 1;
    }
    b->marked = 1;
    if (c >= 0x80 && !e->hex_utf8) {
        put(b, s + i, k);
        return k;
    }
    for (size_t j = 0; j < k; j++) {
        put_char(b, '\\');
        put_hex(b, (unsigned char)s[i + j]);
    }
    return k;
}

static void
put_escaped(dnb *b, const char *s)
{
    size_t n = strlen(s);
    escaping e = {bench_rng_chance(b->rng, 15), n};

    b->hex_lower = bench_rng_chance(b->rng, 20);
    if (bench_rng_chance(b->rng, 3))
        e.odd = bench_rng_below(b->rng, (uint32_t)n);
    for (size_t i = 0; i < n;)
        i += put_escaped_char(b, &e, s, i, n);
}

/* Write a value: plain (case varied) for ASCII DNs, escaped when rich. */
static void
put_value(dnb *b, const char *s)
{
    if (b->rich)
        put_escaped(b, s);
    else
        put_cased(b, s, 80);
}

static void
put_type(dnb *b, enum type t)
{
    if (b->rich && bench_rng_chance(b->rng, 1)) {
        if (bench_rng_chance(b->rng, 50))
            put(b, types[t].oid, strlen(types[t].oid));
        else
            put_cased(b, types[t].alias, 85);
    } else {
        put_cased(b, types[t].name, 75);
    }
    put_char(b, '=');
}

/* Start a new RDN: a comma (sometimes followed by a space), then the type.
 */
static void
rdn(dnb *b, enum type t)
{
    if (b->depth > 0) {
        put_char(b, ',');
        if (bench_rng_chance(b->rng, 8))
            put_char(b, ' ');
    }
    b->depth++;
    put_type(b, t);
}

/* Add another AVA to the current RDN. */
static void
ava(dnb *b, enum type t)
{
    put_char(b, '+');
    put_type(b, t);
}

/* ---- the parts of a DN --------------------------------------------------- */

static void
person_name(dnb *b, char *out, size_t size)
{
    const char *g, *s;

    if (b->rich && bench_rng_chance(b->rng, 60)) {
        size_t i = bench_rng_below(b->rng, N_OF(names_uni));

        if (names_uni[i].eastern)
            snprintf(out, size, "%s%s", names_uni[i].surname,
                     names_uni[i].given);
        else if (bench_rng_chance(b->rng, 30))
            snprintf(out, size, "%s, %s", names_uni[i].surname,
                     names_uni[i].given);
        else
            snprintf(out, size, "%s %s", names_uni[i].given,
                     names_uni[i].surname);
        return;
    }
    g = PICK(b, given_ascii);
    s = PICK(b, surname_ascii);
    if (b->rich && bench_rng_chance(b->rng, 40))
        snprintf(out, size, "%s, %s", s, g); /* Active Directory style */
    else
        snprintf(out, size, "%s %s", g, s);
}

static void
login(dnb *b, char *out, size_t size)
{
    const char *g = PICK(b, given_ascii), *s = PICK(b, surname_ascii);
    size_t n = 0;

    out[n++] = lower(g[0]);
    for (size_t i = 0; s[i] && n + 5 < size; i++)
        if ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z'))
            out[n++] = lower(s[i]);
    snprintf(out + n, size - n, "%u", bench_rng_below(b->rng, 1000));
}

/* A #hex value: the BER encoding of a UTF8String (tag 0x0C). */
static void
put_ber(dnb *b, const char *s)
{
    size_t n = strlen(s);

    b->hex_lower = bench_rng_chance(b->rng, 20);
    put_char(b, '#');
    put_hex(b, 0x0c);
    put_hex(b, (unsigned char)n); /* n < 128: short-form length */
    for (size_t i = 0; i < n; i++)
        put_hex(b, (unsigned char)s[i]);
    b->marked = 1;
}

static void
leaf_person(dnb *b)
{
    char name[128], uid[64];

    person_name(b, name, sizeof name);
    login(b, uid, sizeof uid);
    if (bench_rng_chance(b->rng, b->rich ? 5 : 3)) {
        int uid_first = bench_rng_chance(b->rng, 30);

        rdn(b, uid_first ? T_UID : T_CN);
        put_value(b, uid_first ? uid : name);
        ava(b, uid_first ? T_CN : T_UID);
        put_value(b, uid_first ? name : uid);
    } else {
        rdn(b, T_CN);
        put_value(b, name);
    }
}

static void
leaf_uid(dnb *b)
{
    char uid[64];

    login(b, uid, sizeof uid);
    rdn(b, T_UID);
    if (b->rich && bench_rng_chance(b->rng, 10))
        put_ber(b, uid);
    else
        put_value(b, uid);
}

static void
leaf_group(dnb *b)
{
    rdn(b, T_CN);
    if (b->rich && bench_rng_chance(b->rng, 50))
        put_value(b, bench_rng_chance(b->rng, 50) ? PICK(b, groups_uni)
                                                  : PICK(b, special_values));
    else
        put_value(b, PICK(b, groups_ascii));
}

static void
leaf_host(dnb *b)
{
    char host[64];

    snprintf(host, sizeof host, "%s%02u.%s.%s",
             bench_rng_chance(b->rng, 50) ? "web" : "ldap",
             bench_rng_below(b->rng, 100), PICK(b, dc_org), PICK(b, dc_tld));
    rdn(b, T_CN);
    put_value(b, host);
}

static void
leaf(dnb *b)
{
    unsigned p = bench_rng_below(b->rng, 100);

    if (p < 55)
        leaf_person(b);
    else if (p < 85)
        leaf_uid(b);
    else if (p < 95)
        leaf_group(b);
    else
        leaf_host(b);
}

static void
mid_ou(dnb *b, int first)
{
    rdn(b, T_OU);
    if (!first)
        put_value(b, PICK(b, structural));
    else if (b->rich && bench_rng_chance(b->rng, 40))
        put_value(b, bench_rng_chance(b->rng, 75) ? PICK(b, dept_uni)
                                                  : PICK(b, special_values));
    else
        put_value(b, PICK(b, dept_ascii));
}

static void
city(dnb *b)
{
    rdn(b, T_L);
    if (b->rich && bench_rng_chance(b->rng, 50))
        put_value(b, PICK(b, cities_uni));
    else
        put_value(b, PICK(b, cities_ascii));
}

static void
org(dnb *b)
{
    rdn(b, T_O);
    put_value(b, PICK(b, orgs));
}

/* The middle RDNs; `org_ok` is 0 when the top already names the org. */
static void
mid(dnb *b, unsigned n, int org_ok)
{
    for (unsigned i = 0; i < n; i++) {
        if (i > 0 && i + 1 == n && org_ok && bench_rng_chance(b->rng, 40))
            org(b);
        else if (i > 0 && bench_rng_chance(b->rng, 20))
            city(b);
        else
            mid_ou(b, i == 0);
    }
}

/* dc values are IA5String: ASCII, case varied, never escaped. */
static void
dc(dnb *b, const char *v)
{
    rdn(b, T_DC);
    put_cased(b, v, 75);
}

static void
top(dnb *b, unsigned n, int dc_style)
{
    if (dc_style) {
        if (n == 3)
            dc(b, PICK(b, dc_sub));
        dc(b, PICK(b, dc_org));
        dc(b, PICK(b, dc_tld));
        return;
    }
    if (n == 3)
        city(b);
    org(b);
    rdn(b, T_C);
    put_cased(b, PICK(b, countries), 90);
}

static void
generate_one(dnb *b)
{
    unsigned depth = 5 + bench_rng_below(b->rng, 3);
    unsigned ntop = 2 + bench_rng_below(b->rng, 2);
    int dc_style = bench_rng_chance(b->rng, 80);

    b->len = 0;
    b->depth = 0;
    b->marked = 0;
    b->s[0] = '\0';
    leaf(b);
    mid(b, depth - 1 - ntop, dc_style);
    top(b, ntop, dc_style);
}

/* ---- the corpus store ---------------------------------------------------- */

int
dn_corpus_init(dn_corpus *c, size_t n_hint)
{
    memset(c, 0, sizeof *c);
    c->ncap = n_hint ? n_hint : 16;
    c->cap = c->ncap * 96;
    c->text = malloc(c->cap);
    c->off = malloc(c->ncap * sizeof *c->off);
    c->len = malloc(c->ncap * sizeof *c->len);
    c->depth = malloc(c->ncap);
    if (c->text && c->off && c->len && c->depth)
        return 0;
    dn_corpus_free(c);
    return -1;
}

static int
grow(void **p, size_t size)
{
    void *q = realloc(*p, size);

    if (q == NULL)
        return -1;
    *p = q;
    return 0;
}

static int
reserve(dn_corpus *c, size_t bytes)
{
    if (c->n == c->ncap) {
        size_t m = 2 * c->ncap;

        if (grow((void **)&c->off, m * sizeof *c->off) ||
            grow((void **)&c->len, m * sizeof *c->len) ||
            grow((void **)&c->depth, m))
            return -1;
        c->ncap = m;
    }
    if (c->used + bytes > c->cap) {
        size_t m = 2 * c->cap + bytes;

        if (grow((void **)&c->text, m))
            return -1;
        c->cap = m;
    }
    return 0;
}

int
dn_corpus_add(dn_corpus *c, const char *s, size_t len, unsigned depth)
{
    if (reserve(c, len + 1) != 0)
        return -1;
    memcpy(c->text + c->used, s, len);
    c->text[c->used + len] = '\0';
    c->off[c->n] = c->used;
    c->len[c->n] = len;
    c->depth[c->n] = (unsigned char)depth;
    c->used += len + 1;
    c->n++;
    return 0;
}

int
dn_corpus_finish(dn_corpus *c)
{
    c->str = malloc((c->n + 1) * sizeof *c->str);
    if (c->str == NULL)
        return -1;
    for (size_t i = 0; i < c->n; i++)
        c->str[i] = c->text + c->off[i];
    return 0;
}

void
dn_corpus_free(dn_corpus *c)
{
    free(c->str);
    free(c->len);
    free(c->depth);
    free(c->text);
    free(c->off);
    memset(c, 0, sizeof *c);
}

int
dn_corpus_generate(dn_corpus *c, size_t n, enum dn_kind kind, uint64_t seed)
{
    bench_rng rng = {seed};
    dnb b = {.rng = &rng, .rich = kind == DN_KIND_RICH};

    if (dn_corpus_init(c, n) != 0)
        return -1;
    while (c->n < n) {
        generate_one(&b);
        if (b.rich && !b.marked)
            continue; /* a rich DN must need the slow path */
        if (dn_corpus_add(c, b.s, b.len, b.depth) != 0)
            break;
    }
    if (c->n == n && dn_corpus_finish(c) == 0)
        return 0;
    dn_corpus_free(c);
    return -1;
}
