/*
 * dn_libldap_test.c -- differential test of acre's DN parser against
 * OpenLDAP's libldap (ldap_str2dn, LDAPv3 format).
 *
 * A seeded generator (its own PRNG, fixed seed) builds a few thousand ASCII
 * DNs over well-known naming attributes: mixed-case names, aliases and
 * OIDs, optional spaces around `,` `=` `+`, escaped specials, hex-pair
 * escapes of printable ASCII, multi-valued RDNs, `#hex` BER values, and a
 * share of deliberately malformed DNs (missing `=`, dangling or bad
 * escapes, unescaped `<` `>` `"`, bad hex, empty RDNs, bad types).  A
 * share of the DNs look already normalised (lowercase names, no escapes,
 * single spaces, one AVA per RDN), so that acre's fast path is exercised.
 *
 * The generator stays inside the part of RFC 4514 where the answer is not
 * in doubt, so that libldap and acre must agree.  It avoids on purpose:
 * empty values (acre rejects them for string syntaxes, libldap accepts),
 * duplicate AVAs in one RDN (acre rejects, libldap accepts), BER with a
 * wrong length (libldap does not decode BER), numericoids with leading
 * zeros (libldap accepts them), quoted values and `;` separators (RFC 2253
 * only, libldap rejects them in LDAPv3 mode), attribute options, NUL and
 * non-ASCII bytes.
 *
 * Every case is checked three ways:
 *   - the generator's own model against libldap (a self-check: if it
 *     fails, the generator left the unambiguous ground and needs fixing);
 *   - acre against libldap: accept/reject, number of RDNs, and per RDN the
 *     multiset of (attribute type, value) after unescaping; and libldap
 *     must read acre's pretty form back as the same AVAs;
 *   - acre against the model: the error code (and, where it is
 *     unambiguous, the offset) of malformed DNs; for valid DNs each
 *     normalised value, normalised == lowercase(pretty) for DNs without
 *     redundant spaces, and idempotence of both forms.
 *
 * Set ACRE_DN_SEED / ACRE_DN_CASES in the environment to explore other
 * seeds; every failure message names the seed, the case and the DN.
 */
#include <criterion/criterion.h>

#include <ctype.h>
#include <ldap.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "acre.h"

#define DEFAULT_SEED  0x61637265444e3031ULL /* "acreDN01" */
#define DEFAULT_CASES 6000
#define MAX_REPORTS   25 /* failures reported in detail per test */

/* ------------------------------------------------------------------------
 * PRNG: splitmix64, one independent stream per case so that a single case
 * can be reproduced from (seed, case number) alone.
 */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t
next64(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static unsigned
below(rng *r, unsigned n)
{
    return (unsigned)(next64(r) % n);
}

static int
chance(rng *r, unsigned percent)
{
    return below(r, 100) < percent;
}

static uint64_t
seed_from_env(void)
{
    const char *s = getenv("ACRE_DN_SEED");

    return s != NULL ? strtoull(s, NULL, 0) : DEFAULT_SEED;
}

static unsigned
cases_from_env(void)
{
    const char *s = getenv("ACRE_DN_CASES");

    return s != NULL ? (unsigned)strtoul(s, NULL, 0) : DEFAULT_CASES;
}

/* ------------------------------------------------------------------------
 * The attribute types the generator uses.  `canon` is acre's spelling of
 * the type in the pretty form; NULL marks a type acre does not know, which
 * is kept as written.
 */
enum { K_CI, K_IA5, K_COUNTRY, K_EXACT }; /* K_EXACT: no case folding */

typedef struct gtype {
    const char *canon;
    const char *names[3]; /* descr spellings and the numericoid */
    int kind;
} gtype;

static const gtype types[] = {
    {"cn", {"cn", "commonName", "2.5.4.3"}, K_CI},
    {"ou", {"ou", "organizationalUnitName", "2.5.4.11"}, K_CI},
    {"o", {"o", "organizationName", "2.5.4.10"}, K_CI},
    {"dc", {"dc", "domainComponent", "0.9.2342.19200300.100.1.25"}, K_IA5},
    {"uid", {"uid", "userid", "0.9.2342.19200300.100.1.1"}, K_CI},
    {"l", {"l", "localityName", "2.5.4.7"}, K_CI},
    {"st", {"st", "stateOrProvinceName", "2.5.4.8"}, K_CI},
    {"c", {"c", "countryName", "2.5.4.6"}, K_COUNTRY},
    {"sn", {"sn", "surname", "2.5.4.4"}, K_CI},
    {"mail", {"mail", "rfc822Mailbox", "0.9.2342.19200300.100.1.3"}, K_IA5},
    {"title", {"title", "2.5.4.12", NULL}, K_CI},
    {"labeledURI", {"labeledURI", "1.3.6.1.4.1.250.1.57", NULL}, K_EXACT},
    {"memberUid", {"memberUid", "1.3.6.1.1.1.1.12", NULL}, K_EXACT},
    {NULL, {"x-acre-test", NULL, NULL}, K_CI},
    {NULL, {"fooBar", NULL, NULL}, K_CI},
    {NULL, {"1.3.6.1.4.1.99999.7", NULL, NULL}, K_CI},
};

#define NTYPES (sizeof types / sizeof types[0])

/* The pretty spelling acre should use for a type written as `name`. */
static const char *
expected_type(const char *name, size_t len)
{
    for (size_t i = 0; i < NTYPES; i++) {
        for (size_t j = 0; j < 3 && types[i].names[j] != NULL; j++) {
            const char *n = types[i].names[j];

            if (strlen(n) == len && strncasecmp(n, name, len) == 0)
                return types[i].canon;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * The model of one generated DN.
 */
#define MAX_RDNS   6
#define MAX_AVAS   3
#define MAX_TEXT   1024
#define MAX_UNITS  16
#define MAX_RENDER 16384

enum { V_STRING, V_BER_STRING, V_BER_OTHER };

typedef struct gava {
    int type;                    /* index into types[] */
    char name[48];               /* the type as written */
    int vkind;                   /* V_* */
    char text[MAX_TEXT];         /* the value as written */
    size_t bound[MAX_UNITS + 1]; /* unit starts in text, then its end */
    size_t nbound;
    unsigned char val[MAX_TEXT]; /* unescaped value, or the BER bytes */
    size_t vlen;
    char norm[MAX_TEXT]; /* expected normalised value (unescaped) */
    size_t nlen;
    int clean; /* value has no leading, trailing or double space */
} gava;

typedef struct grdn {
    int n;
    gava ava[MAX_AVAS];
} grdn;

/* Corruptions of an otherwise valid DN, with the error acre must give. */
enum {
    C_NONE,
    C_MISSING_EQ,    /* "cn x..." or a bare type at the end */
    C_DANGLING,      /* trailing backslash */
    C_UNESCAPED,     /* '<', '>' or '"' inside a value */
    C_BAD_ESCAPE,    /* '\' + non-hex, non-special */
    C_DOUBLE_COMMA,  /* ",," */
    C_LEADING_COMMA, /* ",cn=..." */
    C_TRAILING_COMMA,
    C_ODD_HEX,       /* #hex with an odd number of digits */
    C_BAD_HEX_DIGIT, /* #hex with a non-hex digit */
    C_BAD_TYPE,      /* '_' inside a descr, or ".." inside an OID */
    C_NKINDS
};

typedef struct gdn {
    int n;
    int plain; /* looks normalised: exercises acre's fast path */
    grdn rdn[MAX_RDNS];
    int corrupt; /* C_* */
    int cr, ca;  /* target RDN and AVA */
    size_t cpos; /* target unit boundary / digit / name index */
    char cch;    /* character used by the corruption */
    int variant;
    int code;    /* expected acre error code, 0 if valid */
    long offset; /* expected offset, -1 when not asserted */
    char str[MAX_RENDER];
    size_t len;
} gdn;

/* ------------------------------------------------------------------------
 * Value generation.
 */
static const char safe_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    "-._@!$%&'()*/:?[]^_{|}~=#`";
static const char escapable[] = ",+\"\\<>;=# ";
static const char hexdig[] = "0123456789abcdef";

static void
text_add(gava *v, const char *s, size_t n)
{
    cr_assert_lt(strlen(v->text) + n, sizeof v->text, "generator overflow");
    strncat(v->text, s, n);
}

static void
val_add(gava *v, unsigned char c)
{
    cr_assert_lt(v->vlen, sizeof v->val, "generator overflow");
    v->val[v->vlen++] = c;
}

static char
rand_case(rng *r, char c)
{
    if (!chance(r, 40))
        return c;
    return isupper((unsigned char)c) ? (char)tolower((unsigned char)c)
                                     : (char)toupper((unsigned char)c);
}

static void
unit_plain(rng *r, gava *v, int first)
{
    char c;

    do {
        c = safe_chars[below(r, sizeof safe_chars - 1)];
    } while (first && c == '#');
    text_add(v, &c, 1);
    val_add(v, (unsigned char)c);
}

/*
 * An escaped special.  A value never ends in "\\" here: libldap 2.5 keeps
 * an unescaped space after a trailing "\\" (it takes the space for an
 * escaped one), so the last unit writes a backslash as "\5c" instead.
 */
static void
unit_escaped(rng *r, gava *v, int last)
{
    char e[2] = {'\\', escapable[below(r, sizeof escapable - 1)]};

    if (last && e[1] == '\\')
        text_add(v, "\\5c", 3);
    else
        text_add(v, e, 2);
    val_add(v, (unsigned char)e[1]);
}

static void
unit_hexpair(rng *r, gava *v)
{
    unsigned b = 0x20 + below(r, 0x7f - 0x20);
    char e[3] = {'\\', rand_case(r, hexdig[b >> 4]),
                 rand_case(r, hexdig[b & 15])};

    text_add(v, e, 3);
    val_add(v, (unsigned char)b);
}

/* The normalised value of a plain ASCII string (caseIgnore when fold). */
static void
model_norm(gava *v, int fold)
{
    size_t i = 0, n = 0, end = v->vlen;

    while (i < end && v->val[i] == ' ')
        i++;
    while (end > i && v->val[end - 1] == ' ')
        end--;
    if (i == end) { /* only spaces: one space */
        v->norm[0] = ' ';
        v->nlen = 1;
        return;
    }
    for (; i < end; i++) {
        if (v->val[i] == ' ' && n > 0 && v->norm[n - 1] == ' ')
            continue;
        v->norm[n++] = (char)(fold ? tolower(v->val[i]) : v->val[i]);
    }
    v->nlen = n;
}

static int
model_clean(const gava *v)
{
    if (v->vlen == 0 || v->val[0] == ' ' || v->val[v->vlen - 1] == ' ')
        return 0;
    for (size_t i = 1; i < v->vlen; i++) {
        if (v->val[i] == ' ' && v->val[i - 1] == ' ')
            return 0;
    }
    return 1;
}

static void
gen_country(rng *r, gava *v)
{
    for (int i = 0; i < 2; i++) {
        char c = (char)('a' + below(r, 26));

        c = rand_case(r, c);
        v->bound[v->nbound++] = strlen(v->text);
        text_add(v, &c, 1);
        val_add(v, (unsigned char)c);
    }
}

static void
gen_string(rng *r, gava *v, int kind)
{
    unsigned n = 1 + below(r, 10);

    v->vkind = V_STRING;
    if (kind == K_COUNTRY) {
        gen_country(r, v);
    } else {
        for (unsigned u = 0; u < n; u++) {
            unsigned k = below(r, 100);

            v->bound[v->nbound++] = strlen(v->text);
            if (k < 10 && u > 0 && u + 1 < n) {
                text_add(v, " ", 1);
                val_add(v, ' ');
            } else if (k < 60) {
                unit_plain(r, v, u == 0);
            } else if (k < 80) {
                unit_escaped(r, v, u + 1 == n);
            } else {
                unit_hexpair(r, v);
            }
        }
    }
    v->bound[v->nbound++] = strlen(v->text);
    model_norm(v, kind != K_EXACT);
    v->clean = model_clean(v);
}

/*
 * A value as it appears in a normalised DN: lowercase, no escapes, single
 * inner spaces.  Such DNs take acre's fast path.
 */
static void
gen_plain(rng *r, gava *v, int kind)
{
    static const char lc[] = "abcdefghijklmnopqrstuvwxyz0123456789-.@=_";
    unsigned n = kind == K_COUNTRY ? 2 : 1 + below(r, 10);

    v->vkind = V_STRING;
    for (unsigned u = 0; u < n; u++) {
        char c = lc[below(r, kind == K_COUNTRY ? 26 : sizeof lc - 1)];

        if (u > 0 && u + 1 < n && kind != K_COUNTRY && v->val[u - 1] != ' ' &&
            chance(r, 15))
            c = ' ';
        v->bound[v->nbound++] = strlen(v->text);
        text_add(v, &c, 1);
        val_add(v, (unsigned char)c);
    }
    v->bound[v->nbound++] = strlen(v->text);
    model_norm(v, kind != K_EXACT);
    v->clean = model_clean(v);
}

/* Content of a BER string: alphanumeric words, single spaces. */
static size_t
ber_content(rng *r, unsigned char *out, int tag, int country)
{
    size_t n = country ? 2 : 1 + below(r, 20);

    if (!country && chance(r, 10))
        n = 128 + below(r, 73); /* long-form length */
    for (size_t i = 0; i < n; i++) {
        if (country)
            out[i] = (unsigned char)('A' + below(r, 26));
        else if (tag == 0x12)
            out[i] = (unsigned char)('0' + below(r, 10));
        else if (i > 0 && i + 1 < n && out[i - 1] != ' ' && chance(r, 12))
            out[i] = ' ';
        else
            out[i] = (unsigned char)safe_chars[below(r, 62)];
    }
    return n;
}

static void
ber_string(rng *r, gava *v, int kind)
{
    static const unsigned char tags[] = {0x04, 0x0c, 0x12, 0x13,
                                         0x14, 0x16, 0x1a};
    unsigned char content[256];
    int country = kind == K_COUNTRY;
    int tag = country ? 0x13 : tags[below(r, sizeof tags)];
    size_t n = ber_content(r, content, tag, country);

    v->vkind = V_BER_STRING;
    val_add(v, (unsigned char)tag);
    if (n >= 128)
        val_add(v, 0x81);
    val_add(v, (unsigned char)n);
    for (size_t i = 0; i < n; i++) {
        val_add(v, content[i]);
        v->norm[i] = (char)(kind == K_EXACT ? content[i] : tolower(content[i]));
    }
    v->nlen = n;
    v->clean = 1;
}

static void
ber_other(rng *r, gava *v)
{
    static const char *const forms[] = {"020105", "0101ff", "3003020107",
                                        "0500", "0603550403"};
    const char *h = forms[below(r, sizeof forms / sizeof forms[0])];

    v->vkind = V_BER_OTHER;
    for (size_t i = 0; h[i] != '\0'; i += 2) {
        unsigned b;

        sscanf(h + i, "%2x", &b);
        val_add(v, (unsigned char)b);
    }
    v->norm[0] = '#';
    memcpy(v->norm + 1, h, strlen(h));
    v->nlen = 1 + strlen(h);
    v->clean = 1;
}

static void
gen_hex(rng *r, gava *v, int kind)
{
    if (kind != K_COUNTRY && chance(r, 15))
        ber_other(r, v);
    else
        ber_string(r, v, kind);
    text_add(v, "#", 1);
    for (size_t i = 0; i < v->vlen; i++) {
        char d[2] = {rand_case(r, hexdig[v->val[i] >> 4]),
                     rand_case(r, hexdig[v->val[i] & 15])};

        text_add(v, d, 2);
    }
}

static void
gen_name(rng *r, gava *v, int plain)
{
    const gtype *t = &types[v->type];
    size_t nn = 0;

    while (nn < 3 && t->names[nn] != NULL)
        nn++;
    snprintf(v->name, sizeof v->name, "%s", t->names[below(r, (unsigned)nn)]);
    for (char *p = v->name; *p != '\0'; p++)
        *p = plain ? (char)tolower((unsigned char)*p) : rand_case(r, *p);
}

static void
gen_ava(rng *r, gava *v, int type, int plain, int *long_hex_used)
{
    for (;;) {
        memset(v, 0, sizeof *v);
        v->type = type;
        gen_name(r, v, plain);
        if (plain) {
            gen_plain(r, v, types[type].kind);
            return;
        }
        if (!chance(r, 8)) {
            gen_string(r, v, types[type].kind);
            return;
        }
        gen_hex(r, v, types[type].kind);
        if (v->vlen <= 130 || !*long_hex_used) { /* one long BER per DN */
            *long_hex_used |= v->vlen > 130;
            return;
        }
    }
}

static void
gen_rdn(rng *r, grdn *rd, int plain, int *long_hex_used)
{
    int used[NTYPES] = {0};

    rd->n = plain || chance(r, 75) ? 1 : 2 + (int)below(r, MAX_AVAS - 1);
    for (int a = 0; a < rd->n; a++) {
        int t;

        do { /* distinct types: no duplicate AVAs */
            t = (int)below(r, NTYPES);
        } while (used[t]);
        used[t] = 1;
        gen_ava(r, &rd->ava[a], t, plain, long_hex_used);
    }
}

/* ------------------------------------------------------------------------
 * Corruption choice.  Each kind needs a suitable target; when the DN has
 * none, fall back to a leading comma, which always applies.
 */
static int
pick_string_ava(rng *r, const gdn *d, int *cr, int *ca)
{
    for (int tries = 0; tries < 20; tries++) {
        int i = (int)below(r, (unsigned)d->n);
        int j = (int)below(r, (unsigned)d->rdn[i].n);

        if (d->rdn[i].ava[j].vkind == V_STRING) {
            *cr = i, *ca = j;
            return 1;
        }
    }
    return 0;
}

static int
pick_hex_ava(rng *r, const gdn *d, int *cr, int *ca)
{
    for (int i = 0; i < d->n; i++) {
        for (int j = 0; j < d->rdn[i].n; j++) {
            if (d->rdn[i].ava[j].vkind != V_STRING && chance(r, 70)) {
                *cr = i, *ca = j;
                return 1;
            }
        }
    }
    return 0;
}

static const char bad_after_escape[] =
    "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ!%&'()*-./:?@[]^_`{|}~";

static int
plan_value_corruption(rng *r, gdn *d)
{
    const gava *v;

    if (!pick_string_ava(r, d, &d->cr, &d->ca))
        return 0;
    v = &d->rdn[d->cr].ava[d->ca];
    d->cpos = below(r, (unsigned)v->nbound);
    if (d->corrupt == C_UNESCAPED) {
        d->cch = "<>\""[below(r, 3)];
        if (d->cch == '"' && d->cpos == 0)
            d->cch = '<'; /* a leading '"' would start a quoted value */
        d->code = ACRE_ERR_DN_UNESCAPED;
    } else {
        d->cch = bad_after_escape[below(r, sizeof bad_after_escape - 1)];
        d->variant = (int)below(r, 2); /* "\g" or "\4g" */
        d->code = ACRE_ERR_DN_ESCAPE;
    }
    return 1;
}

static int
plan_hex_corruption(rng *r, gdn *d)
{
    const gava *v;

    if (!pick_hex_ava(r, d, &d->cr, &d->ca))
        return 0;
    v = &d->rdn[d->cr].ava[d->ca];
    d->code = ACRE_ERR_DN_HEX;
    if (d->corrupt == C_BAD_HEX_DIGIT) {
        d->cpos = 1 + below(r, (unsigned)strlen(v->text) - 1);
        d->cch = "gxzGXZ-."[below(r, 8)];
    }
    return 1;
}

static int
plan_type_corruption(rng *r, gdn *d)
{
    const char *name;

    d->cr = (int)below(r, (unsigned)d->n);
    d->ca = (int)below(r, (unsigned)d->rdn[d->cr].n);
    name = d->rdn[d->cr].ava[d->ca].name;
    d->code = ACRE_ERR_DN_TYPE;
    if (isdigit((unsigned char)name[0])) {
        const char *dot = strchr(name, '.');

        d->cpos = (size_t)(dot - name); /* "2.5" -> "2..5" */
    } else {
        d->cpos = 1 + below(r, (unsigned)strlen(name)); /* '_' insert */
    }
    return 1;
}

static int
plan_corruption(rng *r, gdn *d)
{
    switch (d->corrupt) {
    case C_MISSING_EQ:
        d->cr = (int)below(r, (unsigned)d->n);
        d->ca = (int)below(r, (unsigned)d->rdn[d->cr].n);
        d->code = ACRE_ERR_DN_NO_EQUALS;
        return 1;
    case C_DANGLING: {
        const grdn *last = &d->rdn[d->n - 1];

        d->code = ACRE_ERR_DN_ESCAPE;
        return last->ava[last->n - 1].vkind == V_STRING;
    }
    case C_UNESCAPED:
    case C_BAD_ESCAPE:
        return plan_value_corruption(r, d);
    case C_DOUBLE_COMMA:
        if (d->n < 2)
            return 0;
        d->cr = 1 + (int)below(r, (unsigned)d->n - 1);
        d->code = ACRE_ERR_DN_EMPTY_RDN;
        return 1;
    case C_TRAILING_COMMA:
    case C_LEADING_COMMA:
        d->code = ACRE_ERR_DN_EMPTY_RDN;
        return 1;
    case C_ODD_HEX:
    case C_BAD_HEX_DIGIT:
        return plan_hex_corruption(r, d);
    default:
        return plan_type_corruption(r, d);
    }
}

/* ------------------------------------------------------------------------
 * Rendering of the model into a string, applying the corruption and
 * recording where acre must report it.
 */
typedef struct obuf {
    char *s;
    size_t n;
} obuf;

static void
put(obuf *o, const char *p, size_t n)
{
    cr_assert_lt(o->n + n, (size_t)MAX_RENDER, "generator overflow");
    memcpy(o->s + o->n, p, n);
    o->n += n;
    o->s[o->n] = '\0';
}

static void
puts_(obuf *o, const char *p)
{
    put(o, p, strlen(p));
}

static void
deco(rng *r, const gdn *d, obuf *o)
{
    if (!d->plain && chance(r, 25))
        put(o, "   ", 1 + below(r, 2));
}

static int
is_target(const gdn *d, int i, int j)
{
    return d->corrupt != C_NONE && d->cr == i && d->ca == j;
}

static void
render_name(gdn *d, obuf *o, const gava *v, int target)
{
    size_t n = strlen(v->name);

    if (!target || d->corrupt != C_BAD_TYPE) {
        put(o, v->name, n);
        return;
    }
    put(o, v->name, d->cpos);
    if (isdigit((unsigned char)v->name[0])) {
        put(o, ".", 1); /* offset not asserted for numericoids */
    } else {
        d->offset = (long)o->n;
        put(o, "_", 1);
    }
    put(o, v->name + d->cpos, n - d->cpos);
}

static void
render_string_value(gdn *d, obuf *o, const gava *v, int target)
{
    size_t at =
        target && (d->corrupt == C_UNESCAPED || d->corrupt == C_BAD_ESCAPE)
            ? v->bound[d->cpos]
            : (size_t)-1;

    if (at == (size_t)-1) {
        puts_(o, v->text);
        return;
    }
    put(o, v->text, at);
    d->offset = (long)o->n;
    if (d->corrupt == C_UNESCAPED) {
        put(o, &d->cch, 1);
    } else {
        put(o, "\\", 1);
        if (d->variant)
            put(o, &"0123456789abcdefABCDEF"[d->cpos % 22], 1);
        put(o, &d->cch, 1);
    }
    puts_(o, v->text + at);
}

static void
render_hex_value(gdn *d, obuf *o, const gava *v, int target)
{
    size_t n = strlen(v->text);
    size_t start = o->n;

    if (target && d->corrupt == C_ODD_HEX) {
        put(o, v->text, n - 1);
        d->offset = (long)o->n;
    } else if (target && d->corrupt == C_BAD_HEX_DIGIT) {
        puts_(o, v->text);
        o->s[start + d->cpos] = d->cch;
        d->offset = (long)(start + d->cpos);
    } else {
        puts_(o, v->text);
    }
}

static void
render_ava(rng *r, gdn *d, obuf *o, int i, int j)
{
    const gava *v = &d->rdn[i].ava[j];
    int target = is_target(d, i, j);
    int last = i == d->n - 1 && j == d->rdn[i].n - 1;

    render_name(d, o, v, target);
    if (target && d->corrupt == C_MISSING_EQ) {
        if (last && chance(r, 30)) { /* bare type at the very end */
            d->offset = (long)o->n;
            d->variant = 1;
            return;
        }
        put(o, " ", 1);
        d->offset = (long)o->n;
        put(o, "x", 1); /* "cn x..." : no '=' after the type */
    } else {
        deco(r, d, o);
        put(o, "=", 1);
        deco(r, d, o);
    }
    if (v->vkind == V_STRING)
        render_string_value(d, o, v, target);
    else
        render_hex_value(d, o, v, target);
}

static void
render_separator(rng *r, gdn *d, obuf *o, int i, int j)
{
    deco(r, d, o);
    if (j > 0) {
        put(o, "+", 1);
    } else {
        put(o, ",", 1);
        if (d->corrupt == C_DOUBLE_COMMA && d->cr == i) {
            d->offset = (long)o->n;
            put(o, ",", 1);
        }
    }
    deco(r, d, o);
}

static void
render_tail(rng *r, gdn *d, obuf *o)
{
    if (d->corrupt == C_DANGLING) {
        d->offset = (long)o->n;
        put(o, "\\", 1);
    } else if (d->corrupt == C_TRAILING_COMMA) {
        deco(r, d, o);
        put(o, ",", 1);
        d->offset = (long)o->n;
    } else if (!(d->corrupt == C_MISSING_EQ && d->variant == 1)) {
        deco(r, d, o);
    }
}

static void
render(rng *r, gdn *d)
{
    obuf o = {d->str, 0};

    d->str[0] = '\0';
    if (d->corrupt == C_LEADING_COMMA) {
        d->offset = 0;
        put(&o, ",", 1);
    }
    if (d->n > 0)
        deco(r, d, &o);
    for (int i = 0; i < d->n; i++) {
        for (int j = 0; j < d->rdn[i].n; j++) {
            if (i > 0 || j > 0)
                render_separator(r, d, &o, i, j);
            render_ava(r, d, &o, i, j);
        }
    }
    if (d->n > 0)
        render_tail(r, d, &o);
    d->len = o.n;
}

/* Generate case number k of the run with the given seed. */
static void
generate(gdn *d, uint64_t seed, unsigned k)
{
    rng r = {seed ^ (0xd1b54a32d192ed03ULL * (k + 1))};
    int long_hex_used = 0;

    memset(d, 0, sizeof *d);
    d->offset = -1;
    d->n = chance(&r, 1) ? 0 : 1 + (int)below(&r, MAX_RDNS);
    d->plain = chance(&r, 15);
    for (int i = 0; i < d->n; i++)
        gen_rdn(&r, &d->rdn[i], d->plain, &long_hex_used);
    if (d->n > 0 && chance(&r, 22)) {
        d->corrupt = 1 + (int)below(&r, C_NKINDS - 1);
        if (!plan_corruption(&r, d)) {
            d->corrupt = C_LEADING_COMMA;
            d->code = ACRE_ERR_DN_EMPTY_RDN;
        }
    }
    render(&r, d);
}

/* ------------------------------------------------------------------------
 * Helpers for comparing.
 */

/* s as a C string literal body, for messages (rotating buffers). */
static const char *
vis(const char *s, size_t n)
{
    static char bufs[4][4 * MAX_RENDER + 1];
    static unsigned k;
    char *o = bufs[k++ % 4];
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '\\' || c == '"')
            m += (size_t)sprintf(o + m, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            o[m++] = (char)c;
        else
            m += (size_t)sprintf(o + m, "\\x%02x", c);
    }
    o[m] = '\0';
    return o;
}

#define REPRO_FMT "[seed=0x%llx case=%u] reproduce: dn \"%s\" (len %zu)"
#define REPRO(seed, k, d) \
    (unsigned long long)(seed), (k), vis((d)->str, (d)->len), (d)->len

/* One AVA reduced to comparable bytes: "type=value", with the value
 * unescaped, or "#" + lowercase hex for BER values. */
typedef struct cava {
    char s[2 * MAX_TEXT + 64];
    size_t n;
} cava;

static int
cava_cmp(const void *a, const void *b)
{
    const cava *x = a, *y = b;
    size_t n = x->n < y->n ? x->n : y->n;
    int c = memcmp(x->s, y->s, n);

    return c != 0 ? c : (x->n > y->n) - (x->n < y->n);
}

static int
hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Unescape an RFC 4514 value (no quotes) into out; -1 if malformed. */
static long
unescape(const char *s, size_t n, char *out)
{
    size_t m = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            out[m++] = s[i];
        } else if (i + 2 < n && hexval(s[i + 1]) >= 0 &&
                   hexval(s[i + 2]) >= 0) {
            out[m++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else if (i + 1 < n) {
            out[m++] = s[++i];
        } else {
            return -1;
        }
    }
    return (long)m;
}

/* Split an RDN text into AVAs at unescaped '+'; returns the count. */
static int
split_rdn(const char *s, size_t n, const char **ava, size_t *alen, int max)
{
    int k = 0;
    size_t start = 0;

    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] == '\\') {
            i++;
            continue;
        }
        if (i == n || s[i] == '+') {
            if (k == max)
                return -1;
            ava[k] = s + start;
            alen[k++] = i - start;
            start = i + 1;
        }
    }
    return k;
}

/* acre's pretty AVA "type=value" as a cava; -1 if it cannot be read. */
static int
cava_from_acre(const char *s, size_t n, cava *c)
{
    const char *eq = memchr(s, '=', n);
    size_t tl, vl;
    long u;

    if (eq == NULL)
        return -1;
    tl = (size_t)(eq - s);
    vl = n - tl - 1;
    memcpy(c->s, s, tl + 1);
    if (vl > 0 && eq[1] == '#') { /* BER: keep "#hex" as written */
        memcpy(c->s + tl + 1, eq + 1, vl);
        c->n = tl + 1 + vl;
        return 0;
    }
    u = unescape(eq + 1, vl, c->s + tl + 1);
    if (u < 0)
        return -1;
    c->n = tl + 1 + (size_t)u;
    return 0;
}

static void
cava_from_libldap(const LDAPAVA *a, cava *c)
{
    const char *t = expected_type(a->la_attr.bv_val, a->la_attr.bv_len);
    size_t n = 0;

    if (t != NULL) {
        n = strlen(t);
        memcpy(c->s, t, n);
    } else {
        n = a->la_attr.bv_len;
        memcpy(c->s, a->la_attr.bv_val, n);
    }
    c->s[n++] = '=';
    if (a->la_flags & LDAP_AVA_BINARY) {
        c->s[n++] = '#';
        for (size_t i = 0; i < a->la_value.bv_len; i++) {
            unsigned char b = (unsigned char)a->la_value.bv_val[i];

            c->s[n++] = hexdig[b >> 4];
            c->s[n++] = hexdig[b & 15];
        }
    } else {
        memcpy(c->s + n, a->la_value.bv_val, a->la_value.bv_len);
        n += a->la_value.bv_len;
    }
    c->n = n;
}

static void
cava_from_model(const gava *v, cava *c)
{
    const char *t = types[v->type].canon;
    size_t n;

    if (t == NULL)
        t = v->name;
    n = strlen(t);
    memcpy(c->s, t, n);
    c->s[n++] = '=';
    if (v->vkind == V_STRING) {
        memcpy(c->s + n, v->val, v->vlen);
        n += v->vlen;
    } else {
        c->s[n++] = '#';
        for (size_t i = 0; i < v->vlen; i++) {
            c->s[n++] = hexdig[v->val[i] >> 4];
            c->s[n++] = hexdig[v->val[i] & 15];
        }
    }
    c->n = n;
}

/* Sorted AVAs of RDN i, from each source.  Return the count, -1 on error. */
static int
rdn_from_acre(const acre_dn *dn, unsigned i, cava *c)
{
    const char *p, *ava[MAX_AVAS + 1];
    size_t plen, alen[MAX_AVAS + 1];
    int k;

    if (acre_dn_rdn(dn, i, NULL, NULL, &p, &plen) != 0)
        return -1;
    k = split_rdn(p, plen, ava, alen, MAX_AVAS + 1);
    for (int j = 0; j < k; j++) {
        if (cava_from_acre(ava[j], alen[j], &c[j]) != 0)
            return -1;
    }
    if (k > 0)
        qsort(c, (size_t)k, sizeof *c, cava_cmp);
    return k;
}

static int
rdn_from_libldap(LDAPRDN rdn, cava *c)
{
    int k = 0;

    for (; rdn[k] != NULL; k++) {
        if (k == MAX_AVAS + 1)
            return -1;
        cava_from_libldap(rdn[k], &c[k]);
    }
    qsort(c, (size_t)k, sizeof *c, cava_cmp);
    return k;
}

static int
rdn_from_model(const grdn *rd, cava *c)
{
    for (int j = 0; j < rd->n; j++)
        cava_from_model(&rd->ava[j], &c[j]);
    qsort(c, (size_t)rd->n, sizeof *c, cava_cmp);
    return rd->n;
}

static unsigned
ldn_depth(LDAPDN l)
{
    unsigned n = 0;

    while (l != NULL && l[n] != NULL)
        n++;
    return n;
}

/*
 * Compare two RDN AVA lists; on mismatch write a description to why
 * and return 0.
 */
static int
same_avas(const cava *a, int na, const cava *b, int nb, char *why, size_t wn)
{
    if (na != nb) {
        snprintf(why, wn, "%d AVAs vs %d AVAs", na, nb);
        return 0;
    }
    for (int j = 0; j < na; j++) {
        if (cava_cmp(&a[j], &b[j]) != 0) {
            snprintf(why, wn, "AVA \"%s\" vs \"%s\"", vis(a[j].s, a[j].n),
                     vis(b[j].s, b[j].n));
            return 0;
        }
    }
    return 1;
}

static acre_dn *
acre_parse(const gdn *d, int *rc, acre_diag *diag)
{
    acre_dn *dn = NULL;

    memset(diag, 0, sizeof *diag);
    *rc = acre_dn_parse(NULL, NULL, d->str, d->len, 0, &dn, diag);
    return *rc == 0 ? dn : NULL;
}

/* A failure counter that reports the first few in detail. */
typedef struct tally {
    unsigned bad, total;
} tally;

#define REPORT(t, ...)                 \
    do {                               \
        if ((t)->bad++ < MAX_REPORTS)  \
            cr_expect(0, __VA_ARGS__); \
    } while (0)

#define FINISH(t, what)                                                      \
    cr_assert_eq((t)->bad, 0u, "%u of %u cases: %s (seed 0x%llx)", (t)->bad, \
                 (t)->total, what, (unsigned long long)seed_from_env())

/* ------------------------------------------------------------------------
 * Per-case checks.
 */

/* libldap reads acre's pretty form as the same AVAs as the original. */
static int
pretty_vs_libldap(const acre_dn *dn, LDAPDN l, char *why, size_t wn)
{
    size_t pl;
    const char *p = acre_dn_pretty(dn, &pl);
    LDAPDN l2 = NULL;
    int rc = ldap_str2dn(p, &l2, LDAP_DN_FORMAT_LDAPV3), ok = 1;
    cava a[MAX_AVAS + 1], b[MAX_AVAS + 1];

    if (rc != LDAP_SUCCESS || ldn_depth(l2) != ldn_depth(l)) {
        snprintf(why, wn,
                 "libldap reads acre's pretty \"%s\" as rc %d, "
                 "depth %u",
                 vis(p, pl), rc, ldn_depth(l2));
        ok = 0;
    }
    for (unsigned i = 0; ok && i < ldn_depth(l); i++) {
        int na = rdn_from_libldap(l2[i], a), nb = rdn_from_libldap(l[i], b);

        ok = same_avas(a, na, b, nb, why, wn);
        if (!ok)
            snprintf(why + strlen(why), wn - strlen(why),
                     " in RDN %u of acre's pretty \"%s\"", i, vis(p, pl));
    }
    ldap_dnfree(l2);
    return ok;
}

/* Does the model agree with libldap?  (Generator self-check.) */
static int
model_vs_libldap(const gdn *d, LDAPDN l, int lrc, char *why, size_t wn)
{
    cava a[MAX_AVAS + 1], b[MAX_AVAS + 1];

    if ((lrc == LDAP_SUCCESS) != (d->corrupt == C_NONE)) {
        snprintf(why, wn, "libldap rc %d, model says %s", lrc,
                 d->corrupt == C_NONE ? "valid" : "malformed");
        return 0;
    }
    if (lrc != LDAP_SUCCESS)
        return 1;
    if ((int)ldn_depth(l) != d->n) {
        snprintf(why, wn, "libldap depth %u, model %d", ldn_depth(l), d->n);
        return 0;
    }
    for (int i = 0; i < d->n; i++) {
        int na = rdn_from_libldap(l[i], a), nb = rdn_from_model(&d->rdn[i], b);

        if (!same_avas(a, na, b, nb, why, wn))
            return 0;
    }
    return 1;
}

static int
acre_vs_libldap(const acre_dn *dn, int arc, const acre_diag *diag, LDAPDN l,
                int lrc, char *why, size_t wn)
{
    cava a[MAX_AVAS + 2], b[MAX_AVAS + 1];

    if ((arc == 0) != (lrc == LDAP_SUCCESS)) {
        snprintf(why, wn, "acre rc %d (%s at offset %zu: %s), libldap rc %d",
                 arc, acre_strerror(arc), diag->offset, diag->message, lrc);
        return 0;
    }
    if (arc != 0)
        return 1;
    if (acre_dn_depth(dn) != ldn_depth(l)) {
        snprintf(why, wn, "acre depth %u, libldap depth %u", acre_dn_depth(dn),
                 ldn_depth(l));
        return 0;
    }
    for (unsigned i = 0; i < ldn_depth(l); i++) {
        int na = rdn_from_acre(dn, i, a), nb = rdn_from_libldap(l[i], b);

        if (na < 0) {
            snprintf(why, wn, "cannot read acre's pretty RDN %u", i);
            return 0;
        }
        if (!same_avas(a, na, b, nb, why, wn)) {
            snprintf(why + strlen(why), wn - strlen(why), " in RDN %u", i);
            return 0;
        }
    }
    return pretty_vs_libldap(dn, l, why, wn);
}

static void
lower(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (char)tolower((unsigned char)s[i]);
}

/* The model AVA of RDN rd whose expected pretty type is t. */
static const gava *
model_ava(const grdn *rd, const char *t, size_t tl)
{
    for (int j = 0; j < rd->n; j++) {
        const char *c = types[rd->ava[j].type].canon;

        if (c == NULL)
            c = rd->ava[j].name;
        if (strlen(c) == tl && memcmp(c, t, tl) == 0)
            return &rd->ava[j];
    }
    return NULL;
}

/* Check one normalised AVA against the model; 0 and why on mismatch. */
static int
check_norm_ava(const grdn *rd, const char *pa, size_t pl, const char *na,
               size_t nl, char *why, size_t wn)
{
    const char *peq = memchr(pa, '=', pl), *neq = memchr(na, '=', nl);
    char want[MAX_TEXT + 64], got[MAX_TEXT + 64];
    const gava *v;
    long u;

    if (peq == NULL || neq == NULL ||
        (v = model_ava(rd, pa, (size_t)(peq - pa))) == NULL) {
        snprintf(why, wn, "unreadable AVA \"%s\" / \"%s\"", vis(pa, pl),
                 vis(na, nl));
        return 0;
    }
    memcpy(want, pa, (size_t)(peq - pa));
    lower(want, (size_t)(peq - pa));
    if ((size_t)(neq - na) != (size_t)(peq - pa) ||
        memcmp(want, na, (size_t)(neq - na)) != 0) {
        snprintf(why, wn, "normalised type of \"%s\" is \"%s\"", vis(pa, pl),
                 vis(na, nl));
        return 0;
    }
    nl -= (size_t)(neq - na) + 1;  /* now the length of the value text */
    if (v->vkind == V_BER_OTHER) { /* "#hex" is not an escape */
        memcpy(got, neq + 1, nl);
        u = (long)nl;
    } else {
        u = unescape(neq + 1, nl, got);
    }
    if (u != (long)v->nlen || memcmp(got, v->norm, v->nlen) != 0) {
        snprintf(why, wn, "normalised AVA \"%s\", want value \"%s\"",
                 vis(na, (size_t)(neq - na) + 1 + nl), vis(v->norm, v->nlen));
        return 0;
    }
    return 1;
}

static int
check_norm_rdn(const acre_dn *dn, unsigned i, const grdn *rd, char *why,
               size_t wn)
{
    const char *p, *n, *pa[MAX_AVAS + 1], *na[MAX_AVAS + 1];
    size_t pl, nl, pal[MAX_AVAS + 1], nal[MAX_AVAS + 1];
    int kp, kn;

    if (acre_dn_rdn(dn, i, &n, &nl, &p, &pl) != 0) {
        snprintf(why, wn, "acre_dn_rdn(%u) failed", i);
        return 0;
    }
    kp = split_rdn(p, pl, pa, pal, MAX_AVAS + 1);
    kn = split_rdn(n, nl, na, nal, MAX_AVAS + 1);
    if (kp != rd->n || kn != rd->n) {
        snprintf(why, wn, "RDN %u: pretty \"%s\" / normalised \"%s\"", i,
                 vis(p, pl), vis(n, nl));
        return 0;
    }
    for (int j = 0; j < kp; j++) {
        if (!check_norm_ava(rd, pa[j], pal[j], na[j], nal[j], why, wn))
            return 0;
    }
    return 1;
}

/* No BER, no redundant spaces, and only caseIgnore(IA5) types. */
static int
dn_is_clean(const gdn *d)
{
    for (int i = 0; i < d->n; i++) {
        for (int j = 0; j < d->rdn[i].n; j++) {
            const gava *v = &d->rdn[i].ava[j];

            if (v->vkind != V_STRING || !v->clean ||
                types[v->type].kind == K_EXACT)
                return 0;
        }
    }
    return 1;
}

/* Re-parse text and compare its normalised form with want. */
static int
reparses_to(const char *text, size_t len, const char *want, size_t wlen,
            const char *what, char *why, size_t wn)
{
    acre_dn *dn = NULL;
    acre_diag diag;
    int rc = acre_dn_parse(NULL, NULL, text, len, 0, &dn, &diag);
    size_t gl = 0;
    const char *got;
    int ok;

    if (rc != 0) {
        snprintf(why, wn, "%s \"%s\" does not parse: %s at %zu", what,
                 vis(text, len), acre_strerror(rc), diag.offset);
        return 0;
    }
    got = acre_dn_normalised(dn, &gl);
    ok = gl == wlen && memcmp(got, want, wlen) == 0;
    if (!ok)
        snprintf(why, wn, "%s \"%s\" normalises to \"%s\", want \"%s\"", what,
                 vis(text, len), vis(got, gl), vis(want, wlen));
    acre_dn_free(dn);
    return ok;
}

static int
check_forms(const acre_dn *dn, const gdn *d, char *why, size_t wn)
{
    size_t nl, pl;
    const char *n = acre_dn_normalised(dn, &nl);
    const char *p = acre_dn_pretty(dn, &pl);
    char lp[MAX_RENDER];

    for (int i = 0; i < d->n; i++) {
        if (!check_norm_rdn(dn, (unsigned)i, &d->rdn[i], why, wn))
            return 0;
    }
    memcpy(lp, p, pl);
    lower(lp, pl);
    if (dn_is_clean(d) && (nl != pl || memcmp(lp, n, nl) != 0)) {
        snprintf(why, wn, "normalised \"%s\" != lowercase(pretty \"%s\")",
                 vis(n, nl), vis(p, pl));
        return 0;
    }
    return reparses_to(n, nl, n, nl, "normalised", why, wn) &&
           reparses_to(p, pl, n, nl, "pretty", why, wn);
}

/* ------------------------------------------------------------------------
 * The tests.
 */
TestSuite(dn_libldap, .timeout = 120);

/* The generator's model must agree with libldap on every case; if not, the
 * generator left the ground where RFC 4514 is unambiguous. */
Test(dn_libldap, generator_agrees_with_libldap)
{
    static gdn d;
    uint64_t seed = seed_from_env();
    tally t = {0, cases_from_env()};

    for (unsigned k = 0; k < t.total; k++) {
        LDAPDN l = NULL;
        char why[2 * MAX_RENDER];
        int lrc;

        generate(&d, seed, k);
        lrc = ldap_str2dn(d.str, &l, LDAP_DN_FORMAT_LDAPV3);
        if (!model_vs_libldap(&d, l, lrc, why, sizeof why))
            REPORT(&t, "generator vs libldap: %s " REPRO_FMT, why,
                   REPRO(seed, k, &d));
        ldap_dnfree(l);
    }
    FINISH(&t, "generator model disagrees with libldap");
}

/* acre and libldap agree on accept/reject and on the structure. */
Test(dn_libldap, acre_agrees_with_libldap)
{
    static gdn d;
    uint64_t seed = seed_from_env();
    tally t = {0, cases_from_env()};
    unsigned accepted = 0;

    for (unsigned k = 0; k < t.total; k++) {
        LDAPDN l = NULL;
        acre_diag diag;
        char why[2 * MAX_RENDER];
        int lrc, arc;
        acre_dn *dn;

        generate(&d, seed, k);
        lrc = ldap_str2dn(d.str, &l, LDAP_DN_FORMAT_LDAPV3);
        dn = acre_parse(&d, &arc, &diag);
        accepted += arc == 0;
        if (!acre_vs_libldap(dn, arc, &diag, l, lrc, why, sizeof why))
            REPORT(&t, "acre vs libldap: %s " REPRO_FMT, why,
                   REPRO(seed, k, &d));
        acre_dn_free(dn);
        ldap_dnfree(l);
    }
    FINISH(&t, "acre disagrees with libldap");
    /* The generator must exercise both sides. */
    cr_assert_gt(accepted, t.total / 2, "only %u of %u accepted", accepted,
                 t.total);
    cr_assert_lt(accepted, t.total - t.total / 10, "%u of %u accepted",
                 accepted, t.total);
}

/* Malformed cases fail with the error the corruption calls for, at the
 * position of the corruption where that is unambiguous. */
Test(dn_libldap, acre_error_codes)
{
    static gdn d;
    uint64_t seed = seed_from_env();
    tally t = {0, cases_from_env()};

    for (unsigned k = 0; k < t.total; k++) {
        acre_diag diag;
        int rc;
        acre_dn *dn;

        generate(&d, seed, k);
        if (d.corrupt == C_NONE)
            continue;
        dn = acre_parse(&d, &rc, &diag);
        acre_dn_free(dn);
        if (rc != d.code || (d.offset >= 0 && diag.offset != (size_t)d.offset))
            REPORT(&t,
                   "got %s (%d) at offset %zu, want %s (%d) at offset %ld "
                   "(-1: any) " REPRO_FMT,
                   acre_strerror(rc), rc, diag.offset, acre_strerror(d.code),
                   d.code, d.offset, REPRO(seed, k, &d));
    }
    FINISH(&t, "wrong error code or offset");
}

/* Valid cases: normalised values per syntax, normalised ==
 * lowercase(pretty) when there are no redundant spaces, idempotence. */
Test(dn_libldap, acre_normalised_forms)
{
    static gdn d;
    uint64_t seed = seed_from_env();
    tally t = {0, cases_from_env()};

    for (unsigned k = 0; k < t.total; k++) {
        acre_diag diag;
        char why[4 * MAX_RENDER];
        int rc;
        acre_dn *dn;

        generate(&d, seed, k);
        if (d.corrupt != C_NONE)
            continue;
        dn = acre_parse(&d, &rc, &diag);
        if (rc != 0)
            REPORT(&t, "rejected: %s at offset %zu (%s) " REPRO_FMT,
                   acre_strerror(rc), diag.offset, diag.message,
                   REPRO(seed, k, &d));
        else if (!check_forms(dn, &d, why, sizeof why))
            REPORT(&t, "%s " REPRO_FMT, why, REPRO(seed, k, &d));
        acre_dn_free(dn);
    }
    FINISH(&t, "wrong normalised or pretty form");
}

/* slapd reads DNs with libldap in its lenient LDAP format, which drops
 * attribute options from a descriptor ("cn;lang-en=x" names cn) but not
 * from an OID; acre's slapd profile must read them alike.  RFC 4514
 * allows no options, so acre's own profile refuses them all. */
/*
 * slapd_vs_libldap -- each of dns[0..n) read by the slapd profile and by
 * ldap_str2dn(LDAP_DN_FORMAT_LDAP), slapd's reader, must agree; with
 * rfc_refuses, the RFC 4514 profile must refuse each.  Returns how many
 * the slapd profile accepted.
 */
static unsigned
slapd_vs_libldap(const char *const *dns, size_t n, int rfc_refuses)
{
    acre_schema *slapd;
    unsigned accepted = 0;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &slapd, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        LDAPDN l = NULL;
        acre_diag diag = {0};
        acre_dn *dn = NULL;
        char why[2 * MAX_RENDER];
        int lrc = ldap_str2dn(dns[i], &l, LDAP_DN_FORMAT_LDAP);
        int arc =
            acre_dn_parse(NULL, slapd, dns[i], strlen(dns[i]), 0, &dn, &diag);

        accepted += arc == 0;
        cr_expect(acre_vs_libldap(arc ? NULL : dn, arc, &diag, l, lrc, why,
                                  sizeof why),
                  "%s: %s", dns[i], why);
        acre_dn_free(dn);
        ldap_dnfree(l);
        dn = NULL;
        if (rfc_refuses)
            cr_expect_neq(
                acre_dn_parse(NULL, NULL, dns[i], strlen(dns[i]), 0, &dn, NULL),
                0, "%s: RFC 4514 profile accepts it", dns[i]);
        acre_dn_free(dn);
    }
    acre_schema_free(slapd);
    return accepted;
}

Test(dn_libldap, slapd_profile_drops_type_options)
{
    static const char *const dns[] = {
        "cn;=manager,dc=example,dc=com",
        "CN;lang-en;x-y=Manager,DC=example,dc=com",
        "cn;x =a",
        "cn;x;;y-1=a+uid;z=b,o=x",
        "dc=x,ou;binary=y",
        "cn;x!=a",
        "cn;x.y=a",
        "2.5.4.3;x=a",
        "cn ;x=a",
        "cn;x y=a",
    };

    cr_expect_eq(slapd_vs_libldap(dns, sizeof dns / sizeof dns[0], 1), 5u);
}

/* slapd's reader (libldap, LDAP_DN_ASCII_SPACE) takes a tab, a line feed
 * or a carriage return for a space around types and values: the slapd
 * profile reads these DNs as ldap_str2dn(LDAP_DN_FORMAT_LDAP) does. */
Test(dn_libldap, slapd_profile_takes_ldap_spaces)
{
    static const char *const dns[] = {
        "uid=u2,ou\t=people,dc=example,dc=com",
        "uid=u2\t,\tou=\tpeople\t\t,dc=example,dc=com",
        "\r\ncn=x\n,dc=com\r",
        "cn=a\tb,dc=com",
        "cn=a\t\\ ,dc=com",
        "cn=\t#0403616263\t,dc=com",
        "cn\t\t=\"a b\"\t,dc=com",
        "cn\t;x=a",
        "cn=a\v,dc=com",
        "ou=people\t,dc=com",
        "dc=com\r",
    };

    cr_expect_eq(slapd_vs_libldap(dns, sizeof dns / sizeof dns[0], 0), 10u);
}
