/*
 * match.c -- value validation, normalisation, ordering and substring
 * matching for the matching rules and syntaxes of match.h, under the two
 * preparation profiles of prep.h: RFC 4517 and RFC 4518 (the default), or
 * exactly what OpenLDAP slapd 2.5 does (a schema made with
 * ACRE_SCHEMA_SLAPD; slapd's servers/slapd/schema_init.c is the reference).
 *
 * Invariants:
 *   - Two values are equal under an equality rule exactly when their
 *     normalised forms are equal bytes (slapd's uniqueMemberMatch used for
 *     ~= excepted: acreM_equal), and normalising a normalised form changes
 *     nothing (idempotence).
 *   - Ordering rules compare normalised forms: strings by bytes, integers
 *     numerically, times chronologically (the canonical time form makes
 *     that byte order once the trailing 'Z' is set aside).
 *   - Substring components are prepared in the shape of the equality
 *     normal form (insignificant spaces collapsed to one), keeping one
 *     leading and/or trailing space where the component had one and its
 *     position lets it count (see "Substrings").
 *   - Memory: results are appended to the caller's acreE_buf, which is
 *     restored to its old length on error; scratch space lives on the stack
 *     and only inputs of several kilobytes reach the heap.  Cost is linear
 *     in the input (substring search: value length times pattern length).
 *
 * The profiles differ here (each difference is tested in
 * tests/unit/match_test.c; prep.c owns the string preparation itself):
 *
 *   what                      RFC 4518 profile        SLAPD profile
 *   generalizedTime fraction  of the last unit        always of the second:
 *   of an hour or minute      written, converted      its digits as written
 *   INTEGER "01", "-0"        accepted, canonical     invalid
 *   DN naming unknown types   accepted                invalid
 *   objectIdentifierMatch     descriptors of known    numeric OIDs only;
 *   assertions                classes and types are   objectClass items take
 *                             mapped to their OIDs    known classes only
 *   substring component       one space, matching a   kept as a plain space
 *   edge spaces               space or the value's    (IA5 rules: trimmed),
 *                             start or end            plain byte search
 *   ~= without an approximate the equality form       slapd's approximate
 *   rule (postalAddress)                              form: non-ASCII gone
 *   caseIgnoreList '$' made   written \24            left as '$'
 *   by preparation
 *
 * The 389 profile (prep.h) is RFC 4518's here but for its string
 * preparation (prep.c) and a caseIgnoreList value, which it prepares
 * whole, as one caseIgnore string, assertion and substrings alike.
 */
#include "match.h"
#include "internal.h"

#include "prep.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <unictype.h>
#include <uninorm.h>

#define DN_LOCAL 2048 /* bytes of stack for a parsed DN before the heap */

/* ------------------------------------------------------------------------
 * Character classes (ASCII, as slapd defines them)
 */
static int
is_hex(uint8_t c)
{
    return acreE_is_digit(c) || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

static uint8_t
to_lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* PrintableString (RFC 4517 3.2). */
static int
is_printable(uint8_t c)
{
    return acreE_is_alpha(c) || acreE_is_digit(c) || c == '\'' || c == '(' ||
           c == ')' || c == '+' || c == ',' || c == '-' || c == '.' ||
           c == '/' || c == ':' || c == '?' || c == ' ' || c == '=';
}

/* 1 when the code point starting at s[i] is a combining mark. */
static int
mark_at(const uint8_t *s, size_t n, size_t i)
{
    uint32_t c;
    size_t k;

    if (i >= n || s[i] < 0xc0)
        return 0;
    k = s[i] >= 0xf0 ? 3 : s[i] >= 0xe0 ? 2 : 1;
    if (n - i <= k)
        return 0;
    c = s[i] & (0x3fu >> k);
    for (size_t j = 1; j <= k; j++)
        c = (c << 6) | (s[i + j] & 0x3fu);
    return uc_is_general_category_withtable(c, UC_CATEGORY_MASK_M);
}

/* An RFC 4518 space: U+0020 not followed by a combining mark. */
static int
sig_space(const uint8_t *s, size_t n, size_t i)
{
    return i < n && s[i] == ' ' && !mark_at(s, n, i + 1);
}

/* An acreE_buf result as an acre error code. */
static int
put_rc(int rc)
{
    return rc ? ACRE_ERR_NOMEM : 0;
}

/* Does `schema` (NULL: the built-in one) prepare values as slapd does? */
static int
slapd_mode(const acre_schema *schema)
{
    return acreS_profile(schema) == ACRE_PROFILE_SLAPD;
}

/* ------------------------------------------------------------------------
 * Small syntaxes
 */

/* number = "0" / %x31-39 *DIGIT; returns bytes used (0: none). */
static size_t
scan_number(const uint8_t *v, size_t n)
{
    size_t i = 0;

    if (!n || !acreE_is_digit(v[0]))
        return 0;
    if (v[0] == '0')
        return 1;
    while (i < n && acreE_is_digit(v[i]))
        i++;
    return i;
}

/* numericoid with at least `min_arcs` arcs. */
static int
valid_numericoid(const uint8_t *v, size_t n, unsigned min_arcs)
{
    size_t i = 0;
    unsigned arcs = 0;

    for (;;) {
        size_t k = scan_number(v + i, n - i);
        if (!k)
            return 0;
        i += k;
        arcs++;
        if (i == n)
            return arcs >= min_arcs;
        if (v[i++] != '.')
            return 0;
    }
}

/* descr = ALPHA *( ALPHA / DIGIT / HYPHEN ) */
static int
valid_descr(const uint8_t *v, size_t n)
{
    if (!n || !acreE_is_alpha(v[0]))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!acreE_is_alpha(v[i]) && !acreE_is_digit(v[i]) && v[i] != '-')
            return 0;
    return 1;
}

/* Integer (RFC 4517 3.3.16): no leading zeros, no "-0". */
static int
valid_integer(const uint8_t *v, size_t n)
{
    size_t i = (n && v[0] == '-') ? 1 : 0;

    if (i == n || (i && v[i] == '0'))
        return 0;
    if (v[i] == '0')
        return n == 1;
    for (; i < n; i++)
        if (!acreE_is_digit(v[i]))
            return 0;
    return 1;
}

/* BitString = SQUOTE *binary-digit SQUOTE "B" */
static int
valid_bitstring(const uint8_t *v, size_t n)
{
    if (n < 3 || v[0] != '\'' || v[n - 2] != '\'' || v[n - 1] != 'B')
        return 0;
    for (size_t i = 1; i < n - 2; i++)
        if (v[i] != '0' && v[i] != '1')
            return 0;
    return 1;
}

static int
valid_boolean(const uint8_t *v, size_t n)
{
    return (n == 4 && memcmp(v, "TRUE", 4) == 0) ||
           (n == 5 && memcmp(v, "FALSE", 5) == 0);
}

/* UUID (RFC 4122 text form): 8-4-4-4-12 hex digits. */
static int
valid_uuid(const uint8_t *v, size_t n)
{
    if (n != 36)
        return 0;
    for (size_t i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? v[i] != '-' : !is_hex(v[i]))
            return 0;
    }
    return 1;
}

static int
all_of(const uint8_t *v, size_t n, int (*ok)(uint8_t))
{
    for (size_t i = 0; i < n; i++)
        if (!ok(v[i]))
            return 0;
    return 1;
}

static int
is_ascii(uint8_t c)
{
    return c < 0x80;
}

static int
is_numeric_char(uint8_t c)
{
    return acreE_is_digit(c) || c == ' ';
}

/*
 * PostalAddress as slapd accepts it: '$'-separated lines of UTF-8 (empty
 * lines allowed), where a backslash must start \24 or \5C.
 */
static int
valid_postal(const uint8_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i] != '\\')
            continue;
        if (n - i < 3 || !((v[i + 1] == '2' && v[i + 2] == '4') ||
                           (v[i + 1] == '5' && to_lower(v[i + 2]) == 'c')))
            return 0;
        i += 2;
    }
    return acreE_utf8_valid(v, n);
}

/* ------------------------------------------------------------------------
 * Distinguished names
 */

/* The schema handed to the DN parser: the one seam for schema support. */
static const acre_schema *
dn_schema(const acre_schema *schema)
{
    return schema;
}

/* Parser flags: slapd refuses a DN naming a type its schema lacks
 * (dn.c LDAPDN_rewrite: slap_bv2undef_ad with SLAP_AD_NOINSERT), and
 * what its dnNormalize refuses although RFC 4514 allows it (a type twice
 * in an RDN, a #-BER value: ACRE_DN_SLAPD). */
static unsigned
dn_flags(const acre_schema *schema)
{
    return slapd_mode(schema) ? ACRE_DN_STRICT | ACRE_DN_SLAPD : 0;
}

static int
dn_rc(int rc)
{
    return rc == ACRE_ERR_NOMEM ? rc : ACRE_ERR_LDIF_VALUE;
}

/* A DN too big for the stack: parsed in out's spare room, then moved. */
static int
dn_norm_big(const acre_schema *s, const uint8_t *v, size_t n,
            struct acreE_buf *out)
{
    const char *text;
    acre_dn *dn;
    size_t len, at;
    int rc;

    if (acreE_buf_grow(out, ACRE_DN_BUF_MAX + 8))
        return ACRE_ERR_NOMEM;
    at = (8 - ((uintptr_t)(out->p + out->len) & 7)) & 7;
    rc = acre_dn_parse_buf(out->p + out->len + at, ACRE_DN_BUF_MAX, s,
                           (const char *)v, n, dn_flags(s), &dn, NULL);
    if (rc)
        return dn_rc(rc);
    text = acre_dn_normalised(dn, &len);
    memmove(out->p + out->len, text, len);
    out->len += len;
    return 0;
}

/*
 * Parse v as a DN and append its normalised text to out, or only check it
 * when out is NULL.  The parsed object lives on the stack unless it is
 * too big for DN_LOCAL bytes.
 */
static int
dn_norm(const acre_schema *schema, const uint8_t *v, size_t n,
        struct acreE_buf *out)
{
    uint64_t local[DN_LOCAL / 8];
    const acre_schema *s = dn_schema(schema);
    const char *text;
    acre_dn *dn;
    size_t len;
    int rc;

    rc = acre_dn_parse_buf(local, sizeof(local), s, (const char *)v, n,
                           dn_flags(s), &dn, NULL);
    if (rc == ACRE_ERR_NOSPACE) /* it parsed, but needs more room */
        return out ? dn_norm_big(s, v, n, out) : 0;
    if (rc)
        return dn_rc(rc);
    if (!out)
        return 0;
    text = acre_dn_normalised(dn, &len);
    return put_rc(acreE_buf_put(out, text, len));
}

/*
 * NameAndOptionalUID: a DN optionally followed by "#" BitString.  As in
 * slapd, a trailing "#'...'B" that is a valid BitString is taken as the
 * UID.  *dn_len receives the length of the DN part.
 */
static void
split_uid(const uint8_t *v, size_t n, size_t *dn_len)
{
    size_t i = n;

    *dn_len = n;
    while (i > 0 && v[i - 1] != '#')
        i--;
    if (i > 0 && valid_bitstring(v + i, n - i))
        *dn_len = i - 1;
}

/* ------------------------------------------------------------------------
 * GeneralizedTime (RFC 4517 3.3.13)
 *
 *   YYYYMMDDHH[MM[SS]][(.|,)fraction](Z|(+|-)HH[MM])
 *
 * The fraction belongs to the last unit written (hour, minute or second).
 * The canonical form is UTC, YYYYMMDDHHMMSS[.fraction]Z, with the fraction
 * in seconds and without trailing zeros (slapd's form), so equal instants
 * are equal bytes.  A leap second (SS = 60) is kept as written.  slapd
 * (check_time_syntax, generalizedTimeNormalize) never converts a fraction:
 * its digits become those of the second whatever unit they followed, so
 * under the SLAPD profile "2024010112.5Z" is 12:00:00.5, not 12:30.
 */
struct gtime {
    int year, mon, day, hour, min, sec;
    int unit;            /* 1 hour, 2 minute, 3 second: owner of frac */
    const uint8_t *frac; /* fraction digits, trailing zeros dropped */
    size_t flen;
    int off; /* zone offset east of UTC, minutes */
};

static int
two_digits(const uint8_t *v, size_t n, size_t i, int *out)
{
    if (n - i < 2 || !acreE_is_digit(v[i]) || !acreE_is_digit(v[i + 1]))
        return 0;
    *out = (v[i] - '0') * 10 + (v[i + 1] - '0');
    return 1;
}

static int
month_days(int y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31};
    int leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);

    return m == 2 && leap ? 29 : days[m - 1];
}

/* Date and time fields: pairs of digits, from the century to the second. */
static int
gt_fields(const uint8_t *v, size_t n, size_t *i, struct gtime *g)
{
    int f[7] = {0};
    int k = 0;

    while (k < 7 && *i < n && acreE_is_digit(v[*i])) {
        if (!two_digits(v, n, *i, &f[k]))
            return 0;
        *i += 2;
        k++;
    }
    if (k < 5)
        return 0;
    g->year = f[0] * 100 + f[1];
    g->mon = f[2];
    g->day = f[3];
    g->hour = f[4];
    g->min = f[5];
    g->sec = f[6];
    g->unit = k - 4;
    return g->mon >= 1 && g->mon <= 12 && g->day >= 1 &&
           g->day <= month_days(g->year, g->mon) && g->hour < 24 &&
           g->min < 60 && g->sec <= 60;
}

static int
gt_fraction(const uint8_t *v, size_t n, size_t *i, struct gtime *g)
{
    size_t j = *i + 1;

    g->frac = NULL;
    g->flen = 0;
    if (*i == n || (v[*i] != '.' && v[*i] != ','))
        return 1;
    while (j < n && acreE_is_digit(v[j]))
        j++;
    if (j == *i + 1)
        return 0;
    g->frac = v + *i + 1;
    g->flen = j - *i - 1;
    while (g->flen && g->frac[g->flen - 1] == '0')
        g->flen--;
    *i = j;
    return 1;
}

static int
gt_zone(const uint8_t *v, size_t n, size_t *i, struct gtime *g)
{
    int hh, mm = 0;
    uint8_t c;

    if (*i == n)
        return 0;
    c = v[(*i)++];
    g->off = 0;
    if (c == 'Z')
        return *i == n;
    if (c != '+' && c != '-')
        return 0;
    if (!two_digits(v, n, *i, &hh) || hh >= 24)
        return 0;
    *i += 2;
    if (*i < n) {
        if (!two_digits(v, n, *i, &mm) || mm >= 60)
            return 0;
        *i += 2;
    }
    g->off = (c == '+' ? 1 : -1) * (hh * 60 + mm);
    return *i == n;
}

static int
gt_parse(const uint8_t *v, size_t n, struct gtime *g)
{
    size_t i = 0;

    return gt_fields(v, n, &i, g) && gt_fraction(v, n, &i, g) &&
           gt_zone(v, n, &i, g);
}

/* Days since 1970-01-01 of a proleptic Gregorian date. */
static long
days_from_civil(int y, int m, int d)
{
    long yy = y - (m <= 2);
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

    return era * 146097 + doe - 719468;
}

static void
civil_from_days(long z, int *y, int *m, int *d)
{
    long era, doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = z - era * 146097;
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = (int)(yoe + era * 400 + (*m <= 2));
}

/*
 * Multiply the decimal fraction d[0..n) by 60 in place; returns the
 * integer part carried out (0..59).
 */
static int
mul60(uint8_t *d, size_t n)
{
    int carry = 0;

    for (size_t i = n; i-- > 0;) {
        int x = (d[i] - '0') * 60 + carry;
        d[i] = (uint8_t)('0' + x % 10);
        carry = x / 10;
    }
    return carry;
}

static void
put_num(uint8_t *p, int v, int width)
{
    while (width-- > 0) {
        p[width] = (uint8_t)('0' + v % 10);
        v /= 10;
    }
}

/*
 * Write YYYYMMDDHHMMSS at p for the UTC instant `minutes` (minutes since
 * 1970) and second `sec`.  0 when the year leaves 0000..9999.
 */
static int
gt_put(uint8_t *p, long minutes, int sec)
{
    long days = minutes >= 0 ? minutes / 1440 : -((1439 - minutes) / 1440);
    long rem = minutes - days * 1440;
    int y, m, d;

    civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999)
        return 0;
    put_num(p, y, 4);
    put_num(p + 4, m, 2);
    put_num(p + 6, d, 2);
    put_num(p + 8, (int)(rem / 60), 2);
    put_num(p + 10, (int)(rem % 60), 2);
    put_num(p + 12, sec, 2);
    return 1;
}

static int
gentime_valid(const uint8_t *v, size_t n)
{
    struct gtime g;

    return gt_parse(v, n, &g);
}

static int
gentime_norm(int slapd, const uint8_t *v, size_t n, struct acreE_buf *out)
{
    struct gtime g;
    size_t start = out->len, flen;
    uint8_t *f;
    int min, sec;
    long t;

    if (!gt_parse(v, n, &g))
        return ACRE_ERR_LDIF_VALUE;
    if (acreE_buf_grow(out, 16 + g.flen))
        return ACRE_ERR_NOMEM;
    f = out->p + start + 15;
    if (g.flen)
        memcpy(f, g.frac, g.flen);
    flen = g.flen;
    min = g.min;
    sec = g.sec;
    if (g.unit == 1 && !slapd)
        min = mul60(f, flen);
    if (g.unit <= 2 && !slapd)
        sec = mul60(f, flen);
    while (flen && f[flen - 1] == '0')
        flen--;
    t = days_from_civil(g.year, g.mon, g.day) * 1440 + g.hour * 60 + min -
        g.off;
    if (!gt_put(out->p + start, t, sec))
        return ACRE_ERR_LDIF_VALUE;
    out->p[start + 14] = '.';
    out->len = start + (flen ? 15 + flen : 14);
    out->p[out->len++] = 'Z';
    return 0;
}

/* ------------------------------------------------------------------------
 * Validation
 */
static int
validate_dn(const acre_schema *schema, int syn, const uint8_t *v, size_t n)
{
    size_t dn_len = n;

    if (syn == ACREM_SYN_NAME_UID) {
        if (n == 0)
            return 1;
        split_uid(v, n, &dn_len);
    }
    return dn_norm(schema, v, dn_len, NULL) == 0;
}

static int
validate_oid(const uint8_t *v, size_t n)
{
    return valid_descr(v, n) || valid_numericoid(v, n, 2);
}

/*
 * acreM_validate -- see match.h.  Follows slapd's validators, except that
 * OID values may be descriptors (RFC 4512) and UTF-8 is checked strictly.
 * Any thread; allocates nothing (a DN of several kilobytes excepted).
 */
int
acreM_validate(const acre_schema *schema, int syn, const uint8_t *v, size_t n)
{
    if (!v && n)
        return 0;
    switch (syn) {
    case ACREM_SYN_DIRECTORY_STRING:
        return n > 0 && acreE_utf8_valid(v, n);
    case ACREM_SYN_IA5_STRING:
        return all_of(v, n, is_ascii);
    case ACREM_SYN_PRINTABLE_STRING:
    case ACREM_SYN_TELEPHONE:
        return n > 0 && all_of(v, n, is_printable);
    case ACREM_SYN_NUMERIC_STRING:
        return n > 0 && all_of(v, n, is_numeric_char);
    case ACREM_SYN_DN:
    case ACREM_SYN_NAME_UID:
        return validate_dn(schema, syn, v, n);
    case ACREM_SYN_OID:
        return validate_oid(v, n);
    case ACREM_SYN_INTEGER:
        return valid_integer(v, n);
    case ACREM_SYN_BOOLEAN:
        return valid_boolean(v, n);
    case ACREM_SYN_GENTIME:
        return gentime_valid(v, n);
    case ACREM_SYN_BIT_STRING:
        return valid_bitstring(v, n);
    case ACREM_SYN_POSTAL_ADDRESS:
        return valid_postal(v, n);
    case ACREM_SYN_COUNTRY_STRING:
        return n == 2 && all_of(v, n, is_printable);
    case ACREM_SYN_UUID:
        return valid_uuid(v, n);
    case ACREM_SYN_OCTET_STRING:
    case ACREM_SYN_BINARY:
    case ACREM_SYN_UNKNOWN:
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Normalisation
 */
static int
prep_rc(int status)
{
    switch (status) {
    case ACRE_PREP_OK:
        return 0;
    case ACRE_PREP_NOMEM:
        return ACRE_ERR_NOMEM;
    default:
        return ACRE_ERR_LDIF_VALUE;
    }
}

/* Values compared as they are, once their syntax is checked. */
static int
norm_checked(int ok, const uint8_t *v, size_t n, struct acreE_buf *out)
{
    return ok ? put_rc(acreE_buf_put(out, v, n)) : ACRE_ERR_LDIF_VALUE;
}

/*
 * numericString and telephoneNumber: every space (and hyphen) goes; a
 * value left with nothing becomes one space, as in slapd.  Under the SLAPD
 * profile the value must first be of the rule's syntax, as slapd checks an
 * assertion: digits and spaces, or PrintableString (no tab, say).
 */
static int
norm_squeezed(int profile, enum acreE_mr mr, const uint8_t *v, size_t n,
              struct acreE_buf *out)
{
    size_t start = out->len;
    int rc;

    if (n == 0)
        return ACRE_ERR_LDIF_VALUE;
    if (profile == ACRE_PROFILE_SLAPD &&
        !all_of(v, n, mr == ACRE_MR_NUMERIC ? is_numeric_char : is_printable))
        return ACRE_ERR_LDIF_VALUE;
    if ((rc = prep_rc(acreE_prep_as(profile, mr, v, n, out))))
        return rc;
    return out->len == start ? put_rc(acreE_buf_putc(out, ' ')) : 0;
}

/*
 * The OID of a descriptor naming a known object class (first) or
 * attribute type, or NULL.
 */
static const char *
descr_oid(const acre_schema *schema, const uint8_t *v, size_t n)
{
    const acre_schema *s = schema;
    int id;

    if (!s && !(s = acreS_builtin()))
        return NULL;
    if ((id = acreS_class_find(s, (const char *)v, n)) >= 0)
        return acreS_class(s, id)->oid;
    if ((id = acreS_attr_find(s, (const char *)v, n)) >= 0)
        return acreS_attr(s, id)->oid;
    return NULL;
}

/* objectIdentifier: numericoid as is; descr resolved, else lowercased. */
static int
norm_oid(const acre_schema *schema, const uint8_t *v, size_t n,
         unsigned min_arcs, struct acreE_buf *out)
{
    const char *oid;

    if (valid_numericoid(v, n, min_arcs))
        return put_rc(acreE_buf_put(out, v, n));
    if (!valid_descr(v, n))
        return ACRE_ERR_LDIF_VALUE;
    if ((oid = descr_oid(schema, v, n)))
        return put_rc(acreE_buf_put(out, oid, strlen(oid)));
    for (size_t i = 0; i < n; i++)
        if (acreE_buf_putc(out, to_lower(v[i])))
            return ACRE_ERR_NOMEM;
    return 0;
}

/*
 * objectIdentifierFirstComponent / integerFirstComponent: a stored value
 * "( first ... )" gives its first word; an assertion is the bare OID or
 * integer.  Either way the result is normalised as an OID or integer;
 * slapd (firstComponentNormalize) takes a numeric OID or an INTEGER as
 * written, nothing else.
 */
static int
norm_first(const acre_schema *schema, int eq, const uint8_t *v, size_t n,
           struct acreE_buf *out)
{
    size_t i = 1, j;

    if (n >= 2 && ((v[0] == '(' && v[n - 1] == ')') ||
                   (v[0] == '{' && v[n - 1] == '}'))) {
        while (i < n - 1 && v[i] == ' ')
            i++;
        j = i;
        while (j < n - 1 && v[j] != ' ')
            j++;
        v += i;
        n = j - i;
    }
    if (slapd_mode(schema))
        return norm_checked(eq == ACREM_OID_FIRST ? valid_numericoid(v, n, 1)
                                                  : valid_integer(v, n),
                            v, n, out);
    if (eq == ACREM_OID_FIRST)
        return norm_oid(schema, v, n, 1, out);
    return prep_rc(acreE_prep(ACRE_MR_INTEGER, v, n, out));
}

/* Replace every '$' from out->p[from] on by "\24". */
static int
escape_dollars(struct acreE_buf *out, size_t from)
{
    size_t count = 0, j;

    for (size_t i = from; i < out->len; i++)
        count += out->p[i] == '$';
    if (!count)
        return 0;
    if (acreE_buf_grow(out, 2 * count))
        return ACRE_ERR_NOMEM;
    j = out->len + 2 * count;
    for (size_t i = out->len; i-- > from;) {
        if (out->p[i] == '$') {
            out->p[--j] = '4';
            out->p[--j] = '2';
            out->p[--j] = '\\';
        } else {
            out->p[--j] = out->p[i];
        }
    }
    out->len += 2 * count;
    return 0;
}

/* Length of the line starting at v[0]: up to '$' or the end. */
static size_t
line_len(const uint8_t *v, size_t n)
{
    const uint8_t *d = memchr(v, '$', n);

    return d ? (size_t)(d - v) : n;
}

/*
 * caseIgnoreList (PostalAddress): each line prepared as caseIgnore, empty
 * lines kept empty, joined by '$'.  A '$' that preparation creates (from
 * U+FF04, say) is written \24 so the form stays idempotent; slapd
 * (postalAddressNormalize) leaves it a '$', and checks the value as a
 * PostalAddress first (a backslash must start \24 or \5C).
 */
static int
norm_list(int profile, const uint8_t *v, size_t n, struct acreE_buf *out)
{
    int slapd = profile == ACRE_PROFILE_SLAPD;
    size_t i = 0;
    int rc;

    if (!(slapd ? valid_postal(v, n) : acreE_utf8_valid(v, n)))
        return ACRE_ERR_LDIF_VALUE;
    if (profile == ACRE_PROFILE_389) /* 389: one string, '$' and all */
        return prep_rc(acreE_prep_as(profile, ACRE_MR_CASE_IGNORE, v, n, out));
    for (;;) {
        size_t len = line_len(v + i, n - i), at = out->len;
        if (len) {
            rc = prep_rc(
                acreE_prep_as(profile, ACRE_MR_CASE_IGNORE, v + i, len, out));
            if (rc || (!slapd && (rc = escape_dollars(out, at))))
                return rc;
        }
        i += len;
        if (i == n)
            return 0;
        if (acreE_buf_putc(out, '$'))
            return ACRE_ERR_NOMEM;
        i++;
    }
}

static int
norm_dn(const acre_schema *schema, const uint8_t *v, size_t n,
        struct acreE_buf *out)
{
    return dn_norm(schema, v, n, out);
}

/* uniqueMember: normalised DN, then "#" and the UID as written. */
static int
norm_name_uid(const acre_schema *schema, const uint8_t *v, size_t n,
              struct acreE_buf *out)
{
    size_t dn_len;
    int rc;

    if (n == 0)
        return 0;
    split_uid(v, n, &dn_len);
    if ((rc = dn_norm(schema, v, dn_len, out)))
        return rc;
    if (dn_len == n)
        return 0;
    return put_rc(acreE_buf_put(out, v + dn_len, n - dn_len));
}

static int
norm_uuid(const uint8_t *v, size_t n, struct acreE_buf *out)
{
    if (!valid_uuid(v, n))
        return ACRE_ERR_LDIF_VALUE;
    for (size_t i = 0; i < n; i++)
        if (acreE_buf_putc(out, to_lower(v[i])))
            return ACRE_ERR_NOMEM;
    return 0;
}

/* The bytes of v before its first NUL: all that slapd's IA5 normaliser
 * reads (IA5StringNormalize stops there). */
static size_t
before_nul(const uint8_t *v, size_t n)
{
    const uint8_t *z = n ? memchr(v, 0, n) : NULL;

    return z ? (size_t)(z - v) : n;
}

/* caseIgnore, caseExact and their IA5 kin: prep.c's preparation. */
static int
norm_string(int profile, int eq, const uint8_t *v, size_t n,
            struct acreE_buf *out)
{
    static const enum acreE_mr mr[] = {
        [ACREM_CASE_IGNORE] = ACRE_MR_CASE_IGNORE,
        [ACREM_CASE_EXACT] = ACRE_MR_CASE_EXACT,
        [ACREM_CASE_IGNORE_IA5] = ACRE_MR_CASE_IGNORE_IA5,
        [ACREM_CASE_EXACT_IA5] = ACRE_MR_CASE_EXACT_IA5,
    };

    /* Directory String values are never empty; IA5 values may be. */
    if (n == 0 && (eq == ACREM_CASE_IGNORE || eq == ACREM_CASE_EXACT))
        return ACRE_ERR_LDIF_VALUE;
    if (profile == ACRE_PROFILE_SLAPD && mr[eq] != ACRE_MR_CASE_IGNORE &&
        mr[eq] != ACRE_MR_CASE_EXACT)
        n = before_nul(v, n);
    return prep_rc(acreE_prep_as(profile, mr[eq], v, n, out));
}

/* INTEGER: canonical decimal, or (slapd: no normaliser, a strict
 * validator) the value as written when it has no leading zero or "-0". */
static int
norm_integer(int profile, const uint8_t *v, size_t n, struct acreE_buf *out)
{
    if (profile == ACRE_PROFILE_SLAPD)
        return norm_checked(valid_integer(v, n), v, n, out);
    return prep_rc(acreE_prep(ACRE_MR_INTEGER, v, n, out));
}

static int
norm_rule(const acre_schema *schema, int eq, const uint8_t *v, size_t n,
          struct acreE_buf *out)
{
    int profile = acreS_profile(schema);
    int slapd = profile == ACRE_PROFILE_SLAPD;

    switch (eq) {
    case ACREM_CASE_IGNORE:
    case ACREM_CASE_EXACT:
    case ACREM_CASE_IGNORE_IA5:
    case ACREM_CASE_EXACT_IA5:
        return norm_string(profile, eq, v, n, out);
    case ACREM_NUMERIC_STRING:
        return norm_squeezed(profile, ACRE_MR_NUMERIC, v, n, out);
    case ACREM_TELEPHONE:
        return norm_squeezed(profile, ACRE_MR_TELEPHONE, v, n, out);
    case ACREM_DN:
        return norm_dn(schema, v, n, out);
    case ACREM_UNIQUE_MEMBER:
        return norm_name_uid(schema, v, n, out);
    case ACREM_OID:
        return norm_oid(schema, v, n, slapd ? 1 : 2, out);
    case ACREM_INTEGER:
        return norm_integer(profile, v, n, out);
    case ACREM_BOOLEAN:
        return norm_checked(valid_boolean(v, n), v, n, out);
    case ACREM_GENTIME:
        return gentime_norm(slapd, v, n, out);
    case ACREM_OCTET:
        return norm_checked(1, v, n, out);
    case ACREM_BIT_STRING:
        return norm_checked(valid_bitstring(v, n), v, n, out);
    case ACREM_CASE_IGNORE_LIST:
        return norm_list(profile, v, n, out);
    case ACREM_OID_FIRST:
    case ACREM_INTEGER_FIRST:
        return norm_first(schema, eq, v, n, out);
    case ACREM_UUID:
        return norm_uuid(v, n, out);
    }
    return ACRE_ERR_INVAL;
}

/*
 * acreM_normalise -- see match.h.  Accepts any rule id and normalises by
 * that rule's equality rule.  Returns 0, ACRE_ERR_NOMEM, ACRE_ERR_INVAL
 * (bad arguments) or ACRE_ERR_LDIF_VALUE; on error out is as it was.
 * Any thread.
 */
int
acreM_normalise(const acre_schema *schema, int eq, const uint8_t *v, size_t n,
                struct acreE_buf *out)
{
    const struct acreM_info *info = acreM_info(eq);
    size_t start;
    int rc;

    if (!info || !out || (!v && n))
        return ACRE_ERR_INVAL;
    if (!v)
        v = (const uint8_t *)"";
    start = out->len;
    rc = norm_rule(schema, info->eq, v, n, out);
    if (rc)
        out->len = start;
    if (rc == ACRE_ERR_NOMEM)
        acreE_nomem++; /* (buf.h) */
    return rc;
}

/* acreM_normalise_stored -- see match.h. */
int
acreM_normalise_stored(const acre_schema *schema, int eq, const uint8_t *v,
                       size_t n, struct acreE_buf *out)
{
    const struct acreM_info *info = acreM_info(eq);
    enum acreE_mr mr;

    if (!slapd_mode(schema) || !info || !out || (!v && n))
        return acreM_normalise(schema, eq, v, n, out);
    if (!v)
        v = (const uint8_t *)"";
    switch (info->eq) {
    case ACREM_CASE_IGNORE:
    case ACREM_CASE_EXACT: /* UTF8StringNormalize: empty from empty */
        return n ? acreM_normalise(schema, eq, v, n, out) : 0;
    case ACREM_CASE_IGNORE_IA5:
        mr = ACRE_MR_CASE_IGNORE_IA5, n = before_nul(v, n);
        break;
    case ACREM_CASE_EXACT_IA5:
        mr = ACRE_MR_CASE_EXACT_IA5, n = before_nul(v, n);
        break;
    case ACREM_TELEPHONE:
        mr = ACRE_MR_TELEPHONE;
        break;
    case ACREM_NUMERIC_STRING:
        mr = ACRE_MR_NUMERIC;
        break;
    case ACREM_UUID: /* UUIDNormalize reads the first 36 characters */
        return acreM_normalise(schema, eq, v, n > 36 ? 36 : n, out);
    case ACREM_BOOLEAN: /* booleanMatch compares the lengths alone */
        if (n == 4 || n == 5)
            return put_rc(acreE_buf_put(out, n == 4 ? "TRUE" : "FALSE", n));
        /* fall through */
    case ACREM_OID: /* no normaliser: the value compared as written */
    case ACREM_INTEGER:
    case ACREM_BIT_STRING:
    case ACREM_OCTET:
        return norm_checked(1, v, n, out);
    default:
        return acreM_normalise(schema, eq, v, n, out);
    }
    return prep_rc(acreE_prep_slapd_stored(mr, v, n, out));
}

/* ------------------------------------------------------------------------
 * Assertion values
 *
 * slapd checks an assertion value by the syntax of the rule it is used
 * with, then normalises it with the equality rule, telling the normaliser
 * how the value is used (value.c asserted_value_validate_normalize).  Two
 * uses change the result:
 *   - a descriptor is no objectIdentifierMatch assertion (the OID syntax
 *     is numericoidValidate), except on objectClass and
 *     structuralObjectClass, whose own syntax takes the name or OID of a
 *     class the schema knows (schema_prep.c objectClassPretty);
 *   - ~= normalises a DirectoryString "approximately": each character is
 *     lowercased (caseIgnore) and decomposed (NFKD), and only the ASCII of
 *     the result is kept (UTF8bvnormalize with LDAP_UTF8_APPROX).  Types
 *     with an approximate rule compare phonetically (filter_approx.c); the
 *     others (postalAddress) compare that form with the stored equality
 *     form, so a value with a non-ASCII letter never matches.
 */

/* Decode the code point at s[*i] of valid UTF-8; advances *i. */
static uint32_t
utf8_next(const uint8_t *s, size_t *i)
{
    uint8_t c = s[(*i)++];
    size_t k;
    uint32_t cp;

    if (c < 0x80)
        return c;
    k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
    cp = c & (0x3fu >> k);
    while (k--)
        cp = (cp << 6) | (s[(*i)++] & 0x3fu);
    return cp;
}

/*
 * slapd's space handling (UTF8StringNormalize) of out->p[start..len), in
 * place: a run of U+0020 (the only character slapd counts as a space)
 * becomes one space; a leading one goes unless `lead`, a trailing one
 * unless `trail`.  A run that leaves nothing becomes one space, unless it
 * was a leading space taken off again as trailing (a final component of
 * spaces only is empty).
 */
static void
slapd_spaces(struct acreE_buf *out, size_t start, int lead, int trail)
{
    uint8_t *base = out->p + start, *q = base, *end = out->p + out->len;
    int was = !lead;

    for (uint8_t *p = base; p < end; p++) {
        if (*p != ' ')
            *q++ = *p;
        else if (!was)
            *q++ = ' ';
        was = *p == ' ';
    }
    if (q > base && was && !trail)
        q--;
    else if (q == base && end > base)
        *q++ = ' ';
    out->len = (size_t)(q - out->p);
}

/* Append the ASCII of c's compatibility decomposition. */
static int
approx_char(uint32_t c, struct acreE_buf *out)
{
    uint32_t local[32], *d;
    size_t len = sizeof local / sizeof *local;
    int rc = 0;

    if (!(d = u32_normalize(UNINORM_NFKD, &c, 1, local, &len)))
        return ACRE_ERR_NOMEM;
    for (size_t k = 0; k < len && !rc; k++)
        if (d[k] < 0x80 && acreE_buf_putc(out, (uint8_t)d[k]))
            rc = ACRE_ERR_NOMEM;
    if (d != local)
        free(d);
    return rc;
}

/* The approximate form of a DirectoryString (see the section banner). */
static int
approx_string(int fold, const uint8_t *v, size_t n, struct acreE_buf *out)
{
    size_t start = out->len, i = 0;
    int rc = 0;

    if (!acreE_utf8_valid(v, n))
        return ACRE_ERR_LDIF_VALUE;
    while (i < n && !rc) {
        uint32_t c = utf8_next(v, &i);
        if (c < 0x80)
            rc = put_rc(
                acreE_buf_putc(out, fold ? to_lower((uint8_t)c) : (uint8_t)c));
        else
            rc = approx_char(fold ? uc_tolower(c) : c, out);
    }
    if (rc)
        return rc;
    slapd_spaces(out, start, 0, 0);
    return 0;
}

/* The approximate form of a PostalAddress: each line's, joined by '$'. */
static int
approx_list(const uint8_t *v, size_t n, struct acreE_buf *out)
{
    size_t i = 0;
    int rc;

    if (!valid_postal(v, n))
        return ACRE_ERR_LDIF_VALUE;
    for (;;) {
        size_t len = line_len(v + i, n - i);
        if (len && (rc = approx_string(1, v + i, len, out)))
            return rc;
        i += len;
        if (i == n)
            return 0;
        if (acreE_buf_putc(out, '$'))
            return ACRE_ERR_NOMEM;
        i++;
    }
}

/* Is rule the own equality rule of objectClass or structuralObjectClass,
 * used on that type? */
static int
class_item(const acre_schema *schema, int type, int rule)
{
    const acre_schema *s = schema ? schema : acreS_builtin();
    const struct acreS_known *k;

    if (!s || type < 0 || (unsigned)type >= acreS_nattrs(s))
        return 0;
    k = acreS_known(s);
    return (type == k->objectClass || type == k->structuralObjectClass) &&
           rule == acreS_attr(s, type)->eq;
}

/* objectClassPretty: the name or OID of a class the schema knows. */
static int
norm_class(const acre_schema *schema, const uint8_t *v, size_t n,
           struct acreE_buf *out)
{
    const acre_schema *s = schema ? schema : acreS_builtin();

    if (!validate_oid(v, n) || !s ||
        acreS_class_find(s, (const char *)v, n) < 0)
        return ACRE_ERR_LDIF_VALUE;
    return norm_oid(schema, v, n, 2, out);
}

static int
assert_slapd(const acre_schema *schema, int type, int rule, int eq,
             enum acreM_use use, const uint8_t *v, size_t n,
             struct acreE_buf *out)
{
    switch (eq) {
    case ACREM_OID:
        if (class_item(schema, type, rule))
            return norm_class(schema, v, n, out);
        return norm_checked(valid_numericoid(v, n, 1), v, n, out);
    case ACREM_OID_FIRST:
        return norm_checked(valid_numericoid(v, n, 1), v, n, out);
    case ACREM_INTEGER_FIRST:
        return norm_checked(valid_integer(v, n), v, n, out);
    case ACREM_CASE_IGNORE:
    case ACREM_CASE_EXACT:
        if (use != ACREM_USE_APPROX)
            break;
        if (n == 0)
            return ACRE_ERR_LDIF_VALUE;
        return approx_string(eq == ACREM_CASE_IGNORE, v, n, out);
    case ACREM_CASE_IGNORE_LIST:
        if (use == ACREM_USE_APPROX)
            return approx_list(v, n, out);
        break;
    }
    return norm_rule(schema, eq, v, n, out);
}

/*
 * acreM_assertion -- see match.h.  Returns 0, ACRE_ERR_NOMEM,
 * ACRE_ERR_INVAL or ACRE_ERR_LDIF_VALUE; on error out is as it was.
 * Any thread.
 */
int
acreM_assertion(const acre_schema *schema, int type, int rule,
                enum acreM_use use, const uint8_t *v, size_t n,
                struct acreE_buf *out)
{
    const struct acreM_info *info = acreM_info(rule);
    size_t start;
    int rc;

    if (!info || !out || (!v && n) ||
        (use != ACREM_USE_EQ && use != ACREM_USE_APPROX))
        return ACRE_ERR_INVAL;
    if (!slapd_mode(schema))
        return acreM_normalise(schema, rule, v, n, out);
    if (!v)
        v = (const uint8_t *)"";
    start = out->len;
    rc = assert_slapd(schema, type, rule, info->eq, use, v, n, out);
    if (rc)
        out->len = start;
    return rc;
}

/* slapd's uniqueMemberMatch for ~=: a UID that only one side has is
 * ignored; two UIDs must be the same. */
static int
name_uid_approx(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t ad, bd;

    split_uid(a, an, &ad);
    split_uid(b, bn, &bd);
    if (ad < an && bd < bn &&
        (an - ad != bn - bd || memcmp(a + ad, b + bd, an - ad) != 0))
        return 0;
    return ad == bd && (ad == 0 || memcmp(a, b, ad) == 0);
}

/*
 * acreM_equal -- see match.h.  Any thread; allocates nothing.
 */
int
acreM_equal(const acre_schema *schema, int eq, enum acreM_use use,
            const uint8_t *value, size_t vn, const uint8_t *asserted, size_t an)
{
    const struct acreM_info *info = acreM_info(eq);

    if ((!value && vn) || (!asserted && an))
        return 0;
    if (info && info->eq == ACREM_UNIQUE_MEMBER && use == ACREM_USE_APPROX &&
        slapd_mode(schema))
        return name_uid_approx(value, vn, asserted, an);
    return vn == an && (vn == 0 || memcmp(value, asserted, vn) == 0);
}

/* ------------------------------------------------------------------------
 * Ordering
 */
static int
cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int c = m ? memcmp(a, b, m) : 0;

    if (c)
        return c < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

/* Canonical decimals: sign, then length, then digits. */
static int
cmp_integer(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int na = an && a[0] == '-', nb = bn && b[0] == '-';
    int c;

    if (na != nb)
        return na ? -1 : 1;
    a += na, an -= na;
    b += nb, bn -= nb;
    c = an != bn ? (an < bn ? -1 : 1) : cmp_bytes(a, an, b, bn);
    return na ? -c : c;
}

/* Canonical times: the bytes before the 'Z' (a shorter fraction first). */
static int
cmp_time(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    if (an && a[an - 1] == 'Z')
        an--;
    if (bn && b[bn - 1] == 'Z')
        bn--;
    return cmp_bytes(a, an, b, bn);
}

/*
 * acreM_compare -- see match.h.  Any rule id is accepted and compared the
 * way its equality rule's forms order; unknown ids compare as octets.
 * Any thread; allocates nothing.
 */
int
acreM_compare(int ord, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    const struct acreM_info *info = acreM_info(ord);

    switch (info ? info->eq : ACREM_OCTET) {
    case ACREM_INTEGER:
    case ACREM_INTEGER_FIRST:
        return cmp_integer(a, an, b, bn);
    case ACREM_GENTIME:
        return cmp_time(a, an, b, bn);
    default:
        return cmp_bytes(a, an, b, bn);
    }
}

/* ------------------------------------------------------------------------
 * Substrings
 *
 * Components of the string rules keep the equality normal form (spaces
 * collapsed, case folded, NFKC), plus a single leading space (any, final)
 * or trailing space (initial, any) when the component had spaces there.
 * Such an edge space stands for RFC 4518's "exactly one SPACE": in the
 * RFC's doubled-space form of the value it matches a space, or the start
 * or end of the value; two components may share one space of the value,
 * one at each side.  An initial component owns the start of the value and
 * a final one its end, so an edge space of an any component can use them
 * only when there is no initial (final) component.  Components that are
 * nothing but spaces match anywhere and prepare to the empty string.
 *
 * Under the SLAPD profile a component is what slapd's normaliser gives
 * for its position (slapd_comp) and matching is a plain left-to-right
 * byte search (filter.c get_ssa, schema_init.c
 * directoryStringSubstringsMatch): "(cn=Ann Lee *)" needs "ann lee " in
 * the value, which a normalised value never ends with.
 */
enum sub_kind {
    SK_NONE,
    SK_STRING,
    SK_LIST,
    SK_NUMERIC,
    SK_PHONE,
    SK_OCTET,
    SK_DN /* ACREM_DN_SUB: components case-folded, found as plain bytes */
};

static enum sub_kind
sub_kind(int sub, enum acreE_mr *mr)
{
    const struct acreM_info *info = acreM_info(sub);

    if (sub == ACREM_DN_SUB) {
        *mr = ACRE_MR_CASE_IGNORE;
        return SK_DN;
    }
    switch (info ? info->eq : ACREM_NONE) {
    case ACREM_CASE_IGNORE:
        *mr = ACRE_MR_CASE_IGNORE;
        return SK_STRING;
    case ACREM_CASE_EXACT:
        *mr = ACRE_MR_CASE_EXACT;
        return SK_STRING;
    case ACREM_CASE_IGNORE_IA5:
        *mr = ACRE_MR_CASE_IGNORE_IA5;
        return SK_STRING;
    case ACREM_CASE_EXACT_IA5:
        *mr = ACRE_MR_CASE_EXACT_IA5;
        return SK_STRING;
    case ACREM_CASE_IGNORE_LIST:
        *mr = ACRE_MR_CASE_IGNORE;
        return SK_LIST;
    case ACREM_NUMERIC_STRING:
        *mr = ACRE_MR_NUMERIC;
        return SK_NUMERIC;
    case ACREM_TELEPHONE:
        *mr = ACRE_MR_TELEPHONE;
        return SK_PHONE;
    case ACREM_OCTET:
        *mr = ACRE_MR_OCTET;
        return SK_OCTET;
    default:
        return SK_NONE;
    }
}

/*
 * Prepare v as one component of a string rule, keeping an edge space only
 * where `lead` / `trail` allow.  The input is bracketed by '!' (which
 * neither composes nor folds) so that preparation, which trims spaces,
 * shows whether the edges held any.
 */
static int
comp_prep(int profile, enum acreE_mr mr, const uint8_t *v, size_t n, int lead,
          int trail, struct acreE_buf *out)
{
    uint8_t local[512];
    struct acreE_buf t;
    size_t start = out->len, a = 1, b;
    uint8_t *p;
    int rc;

    acreE_buf_init(&t, local, sizeof(local));
    rc = acreE_buf_putc(&t, '!') || acreE_buf_put(&t, v, n) ||
         acreE_buf_putc(&t, '!');
    rc = rc ? ACRE_ERR_NOMEM
            : prep_rc(acreE_prep_as(profile, mr, t.p, t.len, out));
    acreE_buf_free(&t);
    if (rc)
        return rc;
    p = out->p + start;
    b = out->len - start - 1;
    if (b - a == 1 && p[a] == ' ')
        a = b; /* nothing but spaces */
    if (a < b && p[a] == ' ' && !lead && !mark_at(p, b + 1, a + 1))
        a++;
    if (a < b && p[b - 1] == ' ' && !trail)
        b--;
    memmove(p, p + a, b - a);
    out->len = start + (b - a);
    return 0;
}

/*
 * caseIgnoreList: the component is cut into lines at '$'; inner line
 * edges are insignificant, only the component's own edges may keep a
 * space.  Lines are written as norm_list writes them.
 */
static int
comp_prep_list(const uint8_t *v, size_t n, enum acreM_substr_pos pos,
               struct acreE_buf *out)
{
    size_t i = 0;
    int rc;

    if (!acreE_utf8_valid(v, n))
        return ACRE_ERR_LDIF_VALUE;
    for (;;) {
        size_t len = line_len(v + i, n - i), at = out->len;
        int first = i == 0, last = i + len == n;
        if (first || last)
            rc = comp_prep(ACRE_PROFILE_RFC4518, ACRE_MR_CASE_IGNORE, v + i,
                           len, first && pos != ACREM_INITIAL,
                           last && pos != ACREM_FINAL, out);
        else
            rc = len ? prep_rc(acreE_prep(ACRE_MR_CASE_IGNORE, v + i, len, out))
                     : 0;
        if (rc || (rc = escape_dollars(out, at)))
            return rc;
        i += len;
        if (i == n)
            return 0;
        if (acreE_buf_putc(out, '$'))
            return ACRE_ERR_NOMEM;
        i++;
    }
}

/*
 * slapd's component of a DirectoryString rule at a position (lead: any or
 * final; trail: initial or any): the prepared value with its edge spaces
 * as slapd_spaces leaves them.  Bracketing by '!' shows the edges through
 * preparation, which trims them.
 */
static int
slapd_comp(enum acreE_mr mr, const uint8_t *v, size_t n, int lead, int trail,
           struct acreE_buf *out)
{
    uint8_t local[512];
    struct acreE_buf t;
    size_t start = out->len, len;
    int rc;

    acreE_buf_init(&t, local, sizeof(local));
    rc = acreE_buf_putc(&t, '!') || acreE_buf_put(&t, v, n) ||
         acreE_buf_putc(&t, '!');
    rc = rc ? ACRE_ERR_NOMEM
            : prep_rc(acreE_prep_as(ACRE_PROFILE_SLAPD, mr, t.p, t.len, out));
    acreE_buf_free(&t);
    if (rc)
        return rc;
    len = out->len - start - 2;
    memmove(out->p + start, out->p + start + 1, len);
    out->len = start + len;
    slapd_spaces(out, start, lead, trail);
    return 0;
}

/* slapd's caseIgnoreList component: every line by the same position. */
static int
slapd_comp_list(const uint8_t *v, size_t n, int lead, int trail,
                struct acreE_buf *out)
{
    size_t i = 0;
    int rc;

    if (!acreE_utf8_valid(v, n))
        return ACRE_ERR_LDIF_VALUE;
    for (;;) {
        size_t len = line_len(v + i, n - i);
        if (len && (rc = slapd_comp(ACRE_MR_CASE_IGNORE, v + i, len, lead,
                                    trail, out)))
            return rc;
        i += len;
        if (i == n)
            return 0;
        if (acreE_buf_putc(out, '$'))
            return ACRE_ERR_NOMEM;
        i++;
    }
}

/* One component under the SLAPD profile. */
static int
slapd_part(enum sub_kind kind, enum acreE_mr mr, enum acreM_substr_pos pos,
           const uint8_t *v, size_t n, struct acreE_buf *out)
{
    int lead = pos != ACREM_INITIAL, trail = pos != ACREM_FINAL;

    switch (kind) {
    case SK_STRING:
        if (mr == ACRE_MR_CASE_IGNORE || mr == ACRE_MR_CASE_EXACT)
            return slapd_comp(mr, v, n, lead, trail, out);
        n = before_nul(v, n); /* IA5: trimmed at every position */
        break;
    case SK_LIST:
        return slapd_comp_list(v, n, lead, trail, out);
    default:
        break;
    }
    return prep_rc(acreE_prep_as(ACRE_PROFILE_SLAPD, mr, v, n, out));
}

/*
 * acreM_substr_prep -- see match.h.  Returns 0, ACRE_ERR_NOMEM,
 * ACRE_ERR_LDIF_VALUE (not a valid component), ACRE_ERR_FILTER_RULE (no
 * substring semantics) or ACRE_ERR_INVAL; on error out is as it was.
 */
int
acreM_substr_prep(const acre_schema *schema, int sub, enum acreM_substr_pos pos,
                  const uint8_t *v, size_t n, struct acreE_buf *out)
{
    enum acreE_mr mr = ACRE_MR_OCTET;
    enum sub_kind kind = sub_kind(sub, &mr);
    size_t start;
    int rc;

    if (kind == SK_NONE)
        return ACRE_ERR_FILTER_RULE;
    if (!out || (!v && n) || (unsigned)pos > ACREM_FINAL)
        return ACRE_ERR_INVAL;
    if (!v)
        v = (const uint8_t *)"";
    start = out->len;
    if (kind == SK_DN) /* 389 folds each component's case (value.c) */
        rc = prep_rc(acreE_prep_as(acreS_profile(schema), mr, v, n, out));
    else if (slapd_mode(schema))
        rc = slapd_part(kind, mr, pos, v, n, out);
    else if (kind == SK_STRING ||
             (kind == SK_LIST && acreS_profile(schema) == ACRE_PROFILE_389))
        /* (389 takes a caseIgnoreList value as one string) */
        rc = comp_prep(acreS_profile(schema),
                       kind == SK_LIST ? ACRE_MR_CASE_IGNORE : mr, v, n,
                       pos != ACREM_INITIAL, pos != ACREM_FINAL, out);
    else if (kind == SK_LIST)
        rc = comp_prep_list(v, n, pos, out);
    else
        rc = prep_rc(acreE_prep(mr, v, n, out));
    if (rc)
        out->len = start;
    return rc;
}

/* The value being matched and what its edges are available for. */
struct subject {
    const uint8_t *x;
    size_t n;
    int words;    /* edge spaces of components are boundaries */
    int list;     /* '$' is a boundary too */
    int start_ok; /* no initial component owns the start */
    int end_ok;   /* no final component owns the end */
};

/* A component with its edge spaces taken off and remembered. */
struct comp {
    const uint8_t *p;
    size_t n;
    int ls, ts;
};

static struct comp
comp_split(const struct subject *s, const uint8_t *p, size_t n)
{
    struct comp k = {p, n, 0, 0};

    if (!s->words || !p)
        return k;
    if (k.n && k.p[0] == ' ' && !mark_at(k.p, k.n, 1)) {
        k.ls = 1;
        k.p++;
        k.n--;
    }
    if (k.n && k.p[k.n - 1] == ' ') {
        k.ts = 1;
        k.n--;
    }
    return k;
}

/* Is there a boundary just before x[i] / just after x[i - 1]? */
static int
before_ok(const struct subject *s, size_t i)
{
    if (i == 0)
        return s->start_ok;
    return (s->x[i - 1] == ' ' && !mark_at(s->x, s->n, i)) ||
           (s->list && s->x[i - 1] == '$');
}

static int
after_ok(const struct subject *s, size_t i)
{
    if (i == s->n)
        return s->end_ok;
    return sig_space(s->x, s->n, i) || (s->list && s->x[i] == '$');
}

static int
edges_ok(const struct subject *s, const struct comp *k, size_t at)
{
    return (!k->ls || before_ok(s, at)) && (!k->ts || after_ok(s, at + k->n));
}

/*
 * Leftmost occurrence of k in x[lo..hi) whose edges hold, or -1.  The
 * leftmost one ends first, which leaves the most room to what follows.
 */
static long
substr_find(const struct subject *s, const struct comp *k, size_t lo, size_t hi)
{
    for (size_t at = lo; at <= hi && k->n <= hi - at; at++) {
        const uint8_t *f = memmem(s->x + at, hi - at, k->p, k->n);
        if (!f)
            return -1;
        at = (size_t)(f - s->x);
        if (edges_ok(s, k, at))
            return (long)at;
    }
    return -1;
}

static int
substr_run(struct subject *s, const struct acreM_substr *pat)
{
    size_t lo = 0, hi = s->n;
    struct comp k;

    s->start_ok = pat->initial == NULL;
    s->end_ok = pat->final == NULL;
    if (pat->initial) {
        k = comp_split(s, pat->initial, pat->initial_len);
        k.ls = 0; /* the initial's leading space is the value's start */
        if (k.n > s->n || memcmp(s->x, k.p, k.n) || !edges_ok(s, &k, 0))
            return 0;
        lo = k.n;
    }
    if (pat->final) {
        k = comp_split(s, pat->final, pat->final_len);
        k.ts = 0; /* and the final's trailing space its end */
        if (k.n > s->n - lo || memcmp(s->x + s->n - k.n, k.p, k.n) ||
            !edges_ok(s, &k, s->n - k.n))
            return 0;
        hi = s->n - k.n;
    }
    for (unsigned i = 0; i < pat->nany; i++) {
        long at;
        k = comp_split(s, pat->any[i], pat->any_len[i]);
        if (k.n == 0)
            continue;
        if ((at = substr_find(s, &k, lo, hi)) < 0)
            return 0;
        lo = (size_t)at + k.n;
    }
    return 1;
}

/*
 * acreM_substr_match -- see match.h.  Returns 1 (match), 0, or
 * ACRE_ERR_FILTER_RULE / ACRE_ERR_INVAL.  Any thread; allocates nothing.
 */
int
acreM_substr_match(const acre_schema *schema, int sub,
                   const struct acreM_substr *pattern, const uint8_t *value,
                   size_t n)
{
    enum acreE_mr mr;
    enum sub_kind kind = sub_kind(sub, &mr);
    struct subject s;

    if (kind == SK_NONE)
        return ACRE_ERR_FILTER_RULE;
    if (!pattern || (!value && n) || (pattern->nany && !pattern->any))
        return ACRE_ERR_INVAL;
    s.x = value ? value : (const uint8_t *)"";
    s.n = n;
    s.words = (kind == SK_STRING || kind == SK_LIST) && !slapd_mode(schema);
    s.list = kind == SK_LIST;
    return substr_run(&s, pattern);
}
