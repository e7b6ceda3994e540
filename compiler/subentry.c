/*
 * subentry.c -- RFC 3672 subtreeSpecification values: parsed into
 * struct acreU_spec and formatted back (subentry.h).
 *
 * The grammar is the GSER encoding of X.501's SubtreeSpecification
 * (RFC 3672 appendix A, RFC 3641 being definitive where the ABNF is
 * loose), with OpenDJ's extension of a Refinement that is an LDAP filter
 * in a GSER string:
 *
 *   spec       = "{" [ sp comp *( sp "," sp comp ) ] sp "}"
 *   comp       = "base" msp STRING
 *              / "specificExclusions" msp "{" [ sp chop *( sp "," sp chop ) ]
 *                sp "}"
 *              / "minimum" msp NUMBER / "maximum" msp NUMBER
 *              / "specificationFilter" msp refinement
 *   chop       = ( "chopBefore" / "chopAfter" ) sp ":" sp STRING
 *   refinement = "item" sp ":" sp OID / "and" sp ":" sp set
 *              / "or" sp ":" sp set / "not" sp ":" sp refinement
 *              / STRING                         ; OpenDJ: an LDAP filter
 *   set        = "{" [ sp refinement *( sp "," sp refinement ) ] sp "}"
 *   sp = *" "   msp = 1*" "
 *   STRING     = DQUOTE *( any UTF-8 character but DQUOTE / 2DQUOTE ) DQUOTE
 *   NUMBER     = "0" / %x31-39 *DIGIT          ; no sign, no leading zero
 *   OID        = descr / numericoid            ; RFC 4512
 *
 * What the servers accept differs: OpenLDAP 2.5 checks only that the
 * value is UTF-8 (schema_init.c: "subtreeSpecificationValidate
 * UTF8StringValidate FIXME"), OpenDJ (SubtreeSpecification.Parser) takes
 * components in any order, keywords in any case and spaces between any
 * tokens, ApacheDS spaces around ':' too.  Reading choices (where they
 * differ, the RFC wins and the message says what was expected):
 *   - spaces are U+0020 only, where GSER puts sp or msp and also, as
 *     OpenDJ and ApacheDS accept them (and RFC 3672's own examples write
 *     "chopBefore: ..."), before a comma and around the ':' of a chop
 *     or a refinement;
 *   - keywords are case-sensitive (GSER identifiers); components come in
 *     the ASN.1 order and at most once;
 *   - a filter refinement may appear wherever a refinement may, as in
 *     OpenDJ's grammar (Refinement = item / and / or / not / Filter); its
 *     text is kept unparsed and must not be empty;
 *   - strings must be valid UTF-8 without NUL bytes; a chop name must not
 *     be empty (`base ""` is the same as no base);
 *   - numbers above ACREU_MAX_NUMBER are a limit error.
 *
 * Invariants: cost is linear in the input (at most ACREU_MAX_TEXT bytes);
 * recursion is bounded by ACREU_MAX_DEPTH; the result is built under a
 * scratch context and handed over only on success, so *out is untouched
 * on error.  Thread-safe: no state outside the call.
 */
#include "subentry.h"
#include "internal.h"

#include "acre.h"
#include "buf.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * The parser state and errors
 */

struct parser {
    const char *s; /* the text, s[0..n) */
    size_t n;
    size_t i;       /* the next byte */
    void *ctx;      /* scratch talloc context of the result */
    unsigned items; /* chops and refinement nodes so far */
    int rc;         /* first error, 0 when none */
    size_t at;      /* its byte offset */
    const char *msg;
};

/* Record the first error, at byte `at`; returns -1 for `return fail(..)`. */
static int
fail_code(struct parser *P, int code, size_t at, const char *msg)
{
    if (!P->rc) {
        P->rc = code;
        P->at = at;
        P->msg = msg;
    }
    return -1;
}

static int
fail(struct parser *P, size_t at, const char *msg)
{
    return fail_code(P, ACRE_ERR_RULE_SYNTAX, at, msg);
}

static int
nomem(struct parser *P)
{
    return fail_code(P, ACRE_ERR_NOMEM, P->i, "out of memory");
}

/* The byte at the current position, or -1 at the end. */
static int
peek(const struct parser *P)
{
    return P->i < P->n ? (unsigned char)P->s[P->i] : -1;
}

/* sp: skip any spaces. */
static void
sp(struct parser *P)
{
    while (P->i < P->n && P->s[P->i] == ' ')
        P->i++;
}

/* msp: one or more spaces, after a component name. */
static int
msp(struct parser *P)
{
    if (peek(P) != ' ')
        return fail(P, P->i, "expected a space after the component name");
    sp(P);
    return 0;
}

/* One item more (a chop or a refinement node), within ACREU_MAX_ITEMS. */
static int
count_item(struct parser *P, size_t at)
{
    if (++P->items > ACREU_MAX_ITEMS)
        return fail_code(P, ACRE_ERR_RULE_LIMIT, at,
                         "more than 1024 exclusions and refinements");
    return 0;
}

/*
 * After an element of a braced list: 1 when another follows (a comma,
 * then sp), 0 when the list ends (sp, then the closing brace, consumed),
 * -1 on error.  `what` is the message when neither comes.
 */
static int
list_next(struct parser *P, const char *what)
{
    sp(P);
    if (peek(P) == ',') {
        P->i++;
        sp(P);
        return 1;
    }
    if (peek(P) == '}') {
        P->i++;
        return 0;
    }
    return fail(P, P->i, what);
}

/* ------------------------------------------------------------------------
 * Tokens: identifiers, strings, numbers, object identifiers
 */

/* An identifier (letters, digits, hyphens, starting with a letter) at the
 * current position: its length, 0 when there is none. */
static size_t
ident(struct parser *P)
{
    size_t k = P->i;

    if (k >= P->n || !acreE_is_alpha((unsigned char)P->s[k]))
        return 0;
    while (k < P->n &&
           (acreE_is_alpha((unsigned char)P->s[k]) ||
            acreE_is_digit((unsigned char)P->s[k]) || P->s[k] == '-'))
        k++;
    return k - P->i;
}

/* The index of s[0..n) in words[0..nwords), -1 when absent; *folded is set
 * when it matches a word only case-insensitively. */
static int
keyword(const char *s, size_t n, const char *const *words, int nwords,
        int *folded)
{
    *folded = 0;
    for (int k = 0; k < nwords; k++)
        if (strlen(words[k]) == n && memcmp(words[k], s, n) == 0)
            return k;
    for (int k = 0; k < nwords; k++)
        if (strlen(words[k]) == n && strncasecmp(words[k], s, n) == 0)
            *folded = 1;
    return -1;
}

/* The length of the UTF-8 character at s[0..n) (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 when invalid. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xbf;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4;
    else
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (n < len || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xbf)
            return 0;
    return len;
}

/*
 * A GSER string at the current position (the opening quote): checked in
 * one pass that finds its end and length, then copied with each "" made
 * one ", as a talloc string under P->ctx in *out.
 */
static int
string(struct parser *P, const char **out)
{
    size_t start = P->i, k = P->i + 1, len = 0;
    char *buf;

    if (peek(P) != '"')
        return fail(P, P->i, "expected a quoted string");
    for (;;) {
        if (k >= P->n)
            return fail(P, start, "unterminated string");
        unsigned char c = (unsigned char)P->s[k];
        size_t step = 1;
        if (c == '"' && (k + 1 >= P->n || P->s[k + 1] != '"'))
            break;
        if (c == '"')
            step = 2;
        else if (c == 0)
            return fail(P, k, "NUL byte in a string");
        else if (!(step = utf8_len((const unsigned char *)P->s + k, P->n - k)))
            return fail(P, k, "invalid UTF-8 in a string");
        len += c == '"' ? 1 : step;
        k += step;
    }
    if (!(buf = talloc_size(P->ctx, len + 1)))
        return nomem(P);
    len = 0;
    for (size_t j = start + 1; j < k; j++) {
        buf[len++] = P->s[j];
        if (P->s[j] == '"')
            j++;
    }
    buf[len] = '\0';
    P->i = k + 1;
    *out = buf;
    return 0;
}

/* A BaseDistance: "0" or a positive number without leading zeros. */
static int
number(struct parser *P, unsigned *out)
{
    size_t start = P->i;
    unsigned long long v = 0;

    if (peek(P) == '-' || peek(P) == '+')
        return fail(P, P->i, "a distance is a number without sign");
    if (!acreE_is_digit(peek(P)))
        return fail(P, P->i, "expected a number");
    if (peek(P) == '0' && P->i + 1 < P->n &&
        acreE_is_digit((unsigned char)P->s[P->i + 1]))
        return fail(P, P->i, "a number must not have leading zeros");
    while (acreE_is_digit(peek(P))) {
        v = v * 10 + (unsigned)(P->s[P->i] - '0');
        if (v > ACREU_MAX_NUMBER)
            return fail_code(P, ACRE_ERR_RULE_LIMIT, start,
                             "number too large (limit 4294967294)");
        P->i++;
    }
    *out = (unsigned)v;
    return 0;
}

/* An OBJECT-IDENTIFIER: a descr (letter, then letters, digits, hyphens)
 * or a numericoid (numbers without leading zeros, joined by dots). */
static int
oid(struct parser *P, const char **out)
{
    size_t start = P->i, k;

    if (acreE_is_alpha(peek(P))) {
        k = ident(P);
        P->i += k;
    } else if (acreE_is_digit(peek(P))) {
        for (;;) {
            if (!acreE_is_digit(peek(P)))
                return fail(P, P->i, "malformed numeric OID");
            if (peek(P) == '0' && P->i + 1 < P->n &&
                acreE_is_digit((unsigned char)P->s[P->i + 1]))
                return fail(P, P->i, "leading zero in a numeric OID");
            while (acreE_is_digit(peek(P)))
                P->i++;
            if (peek(P) != '.')
                break;
            P->i++;
        }
        if (P->i - start < 3 || !memchr(P->s + start, '.', P->i - start))
            return fail(P, start, "a numeric OID has at least two parts");
    } else {
        return fail(P, P->i, "expected an object class name or OID");
    }
    *out = talloc_strndup(P->ctx, P->s + start, P->i - start);
    return *out ? 0 : nomem(P);
}

/* ------------------------------------------------------------------------
 * Refinements
 */

static int refinement(struct parser *P, unsigned level,
                      struct acreU_refine **out);

static struct acreU_refine *
new_refine(struct parser *P, enum acreU_refine_kind kind)
{
    struct acreU_refine *r = talloc_zero(P->ctx, struct acreU_refine);

    if (r)
        r->kind = kind;
    else
        nomem(P);
    return r;
}

/* Append sub to r->sub. */
static int
add_sub(struct parser *P, struct acreU_refine *r, struct acreU_refine *sub)
{
    struct acreU_refine **v =
        talloc_realloc(P->ctx, r->sub, struct acreU_refine *, r->nsub + 1);

    if (!v)
        return nomem(P);
    v[r->nsub++] = sub;
    r->sub = v;
    return 0;
}

/* The set of an and: or or:, elements at nesting `level`. */
static int
refine_set(struct parser *P, unsigned level, struct acreU_refine *r)
{
    int more;

    if (peek(P) != '{')
        return fail(P, P->i, "expected '{' after 'and:' or 'or:'");
    P->i++;
    sp(P);
    if (peek(P) == '}') {
        P->i++;
        return 0;
    }
    do {
        struct acreU_refine *sub;
        if (refinement(P, level, &sub) || add_sub(P, r, sub))
            return -1;
        more = list_next(P, "expected ',' or '}' after a refinement");
    } while (more > 0);
    return more;
}

static const char *const refine_words[] = {"item", "and", "or", "not"};

/* One refinement at nesting `level` (the number of enclosing and/or/not). */
static int
refinement(struct parser *P, unsigned level, struct acreU_refine **out)
{
    size_t start = P->i, k;
    int folded, w;
    struct acreU_refine *r;

    if (count_item(P, start))
        return -1;
    if (peek(P) == '"') {
        if (!(r = new_refine(P, ACREU_FILTER)) || string(P, &r->text))
            return -1;
        if (!*r->text)
            return fail(P, start, "empty filter");
        *out = r;
        return 0;
    }
    k = ident(P);
    w = keyword(P->s + P->i, k, refine_words, 4, &folded);
    if (w < 0)
        return fail(P, start,
                    folded ? "refinement keywords are lowercase: item, and, "
                             "or, not"
                           : "expected a refinement: item:, and:, or:, not: "
                             "or a quoted filter");
    P->i += k;
    sp(P);
    if (peek(P) != ':')
        return fail(P, P->i, "expected ':' after the refinement keyword");
    P->i++;
    sp(P);
    if (w != ACREU_ITEM && level >= ACREU_MAX_DEPTH)
        return fail_code(P, ACRE_ERR_RULE_LIMIT, start,
                         "refinements nested deeper than 32");
    if (!(r = new_refine(P, (enum acreU_refine_kind)w)))
        return -1;
    *out = r;
    if (w == ACREU_ITEM)
        return oid(P, &r->text);
    if (w == ACREU_NOT) {
        struct acreU_refine *sub;
        return refinement(P, level + 1, &sub) || add_sub(P, r, sub) ? -1 : 0;
    }
    return refine_set(P, level + 1, r);
}

/* ------------------------------------------------------------------------
 * Components
 */

static int
add_chop(struct parser *P, struct acreU_spec *spec, const char *local,
         int after)
{
    struct acreU_chop *v = talloc_realloc(P->ctx, spec->chops,
                                          struct acreU_chop, spec->nchops + 1);

    if (!v)
        return nomem(P);
    v[spec->nchops].local = local;
    v[spec->nchops].after = after;
    spec->nchops++;
    spec->chops = v;
    return 0;
}

static const char *const chop_words[] = {"chopBefore", "chopAfter"};

static int
chop(struct parser *P, struct acreU_spec *spec)
{
    size_t start = P->i, k = ident(P), sat;
    int folded, w = keyword(P->s + P->i, k, chop_words, 2, &folded);
    const char *local;

    if (w < 0)
        return fail(P, start,
                    folded ? "exclusion keywords are chopBefore and "
                             "chopAfter (case-sensitive)"
                           : "expected chopBefore: or chopAfter:");
    if (count_item(P, start))
        return -1;
    P->i += k;
    sp(P);
    if (peek(P) != ':')
        return fail(P, P->i, "expected ':' after chopBefore or chopAfter");
    P->i++;
    sp(P);
    sat = P->i;
    if (string(P, &local))
        return -1;
    if (!*local)
        return fail(P, sat, "an exclusion names an entry: it cannot be \"\"");
    return add_chop(P, spec, local, w);
}

static int
exclusions(struct parser *P, struct acreU_spec *spec)
{
    int more;

    if (peek(P) != '{')
        return fail(P, P->i, "expected '{' after specificExclusions");
    P->i++;
    sp(P);
    if (peek(P) == '}') {
        P->i++;
        return 0;
    }
    do {
        if (chop(P, spec))
            return -1;
        more = list_next(P, "expected ',' or '}' after an exclusion");
    } while (more > 0);
    return more;
}

enum { C_BASE, C_EXCL, C_MIN, C_MAX, C_FILTER, NCOMP };

static const char *const comp_words[NCOMP] = {
    "base", "specificExclusions", "minimum", "maximum", "specificationFilter"};

/* One component; *last is the index of the previous one (-1: none) and
 * *seen the set of those already given. */
static int
component(struct parser *P, struct acreU_spec *spec, int *last, unsigned *seen)
{
    size_t start = P->i, k = ident(P);
    int folded, c = keyword(P->s + P->i, k, comp_words, NCOMP, &folded);

    if (c < 0 && k == 0)
        return fail(P, start, "expected a component name or '}'");
    if (c < 0)
        return fail(P, start,
                    folded ? "component names are case-sensitive: base, "
                             "specificExclusions, minimum, maximum, "
                             "specificationFilter"
                           : "unknown component: expected base, "
                             "specificExclusions, minimum, maximum or "
                             "specificationFilter");
    if (*seen & (1u << c))
        return fail(P, start, "component given twice");
    if (c < *last)
        return fail(P, start,
                    "components must come in the order base, "
                    "specificExclusions, minimum, maximum, "
                    "specificationFilter");
    *last = c;
    *seen |= 1u << c;
    P->i += k;
    if (msp(P))
        return -1;
    switch (c) {
    case C_BASE:
        return string(P, &spec->base);
    case C_EXCL:
        return exclusions(P, spec);
    case C_MIN:
        return number(P, &spec->minimum);
    case C_MAX:
        return number(P, &spec->maximum);
    default:
        return refinement(P, 0, &spec->refine);
    }
}

static int
spec_body(struct parser *P, struct acreU_spec *spec)
{
    int last = -1, more;
    unsigned seen = 0;

    if (peek(P) != '{')
        return fail(P, P->i, "a subtree specification starts with '{'");
    P->i++;
    sp(P);
    if (peek(P) == '}') {
        P->i++;
    } else {
        do {
            if (component(P, spec, &last, &seen))
                return -1;
            more = list_next(P, "expected ',' or '}' after a component");
        } while (more > 0);
        if (more < 0)
            return -1;
    }
    if (P->i < P->n)
        return fail(P, P->i, "text after the closing '}'");
    return 0;
}

int
acreU_spec_parse(void *mem_ctx, const char *text, size_t len,
                 struct acreU_spec **out, unsigned *col, const char **msg)
{
    struct parser P = {0};
    struct acreU_spec *spec;

    if (!out || (!text && len))
        return ACRE_ERR_INVAL;
    if (len > ACREU_MAX_TEXT) {
        if (col)
            *col = ACREU_MAX_TEXT + 1;
        if (msg)
            *msg = "subtree specification longer than 65536 bytes";
        return ACRE_ERR_RULE_LIMIT;
    }
    P.s = text ? text : "";
    P.n = len;
    P.ctx = talloc_new(NULL);
    spec = P.ctx ? talloc_zero(P.ctx, struct acreU_spec) : NULL;
    if (!spec) {
        talloc_free(P.ctx);
        return ACRE_ERR_NOMEM;
    }
    spec->base = "";
    spec->maximum = ACREU_NO_MAX;
    if (spec_body(&P, spec)) {
        if (col)
            *col = (unsigned)P.at + 1;
        if (msg)
            *msg = P.msg;
        talloc_free(P.ctx);
        return P.rc;
    }
    /* the spec leaves the scratch context, which then hangs off it */
    *out = talloc_steal(mem_ctx, spec);
    talloc_steal(spec, P.ctx);
    return 0;
}

/* ------------------------------------------------------------------------
 * Formatting
 */

static int
put_str(struct acreE_buf *b, const char *s)
{
    return acreE_buf_put(b, s, strlen(s));
}

/* A GSER string: s in quotes, each " doubled. */
static int
put_quoted(struct acreE_buf *b, const char *s)
{
    int rc = acreE_buf_putc(b, '"');

    for (; !rc && *s; s++)
        rc = *s == '"' ? put_str(b, "\"\"") : acreE_buf_putc(b, (uint8_t)*s);
    return rc ? rc : acreE_buf_putc(b, '"');
}

static int
put_refine(struct acreE_buf *b, const struct acreU_refine *r)
{
    int rc = 0;

    switch (r->kind) {
    case ACREU_ITEM:
        return put_str(b, "item:") || put_str(b, r->text) ? ACRE_ERR_NOMEM : 0;
    case ACREU_FILTER:
        return put_quoted(b, r->text);
    case ACREU_NOT:
        if (put_str(b, "not:"))
            return ACRE_ERR_NOMEM;
        return r->nsub ? put_refine(b, r->sub[0]) : ACRE_ERR_INVAL;
    default:
        rc = put_str(b, r->kind == ACREU_AND ? "and:{" : "or:{");
        for (unsigned k = 0; !rc && k < r->nsub; k++) {
            rc = put_str(b, k ? ", " : " ");
            if (!rc)
                rc = put_refine(b, r->sub[k]);
        }
        if (!rc)
            rc = put_str(b, r->nsub ? " }" : "}");
        return rc;
    }
}

/* The separator before the next component: "{ " first, ", " after. */
static int
put_sep(struct acreE_buf *b, int *first)
{
    int rc = put_str(b, *first ? "{ " : ", ");

    *first = 0;
    return rc;
}

static int
put_spec(struct acreE_buf *b, const struct acreU_spec *spec)
{
    int first = 1, rc = 0;
    char num[16];

    if (spec->base && *spec->base)
        rc = put_sep(b, &first) || put_str(b, "base ") ||
             put_quoted(b, spec->base);
    if (!rc && spec->nchops) {
        rc = put_sep(b, &first) || put_str(b, "specificExclusions {");
        for (unsigned k = 0; !rc && k < spec->nchops; k++)
            rc = put_str(b, k ? ", " : " ") ||
                 put_str(b,
                         spec->chops[k].after ? "chopAfter:" : "chopBefore:") ||
                 put_quoted(b, spec->chops[k].local);
        if (!rc)
            rc = put_str(b, " }");
    }
    if (!rc && spec->minimum) {
        snprintf(num, sizeof(num), "%u", spec->minimum);
        rc = put_sep(b, &first) || put_str(b, "minimum ") || put_str(b, num);
    }
    if (!rc && spec->maximum != ACREU_NO_MAX) {
        snprintf(num, sizeof(num), "%u", spec->maximum);
        rc = put_sep(b, &first) || put_str(b, "maximum ") || put_str(b, num);
    }
    if (!rc && spec->refine)
        rc = put_sep(b, &first) || put_str(b, "specificationFilter ") ||
             put_refine(b, spec->refine);
    if (!rc)
        rc = put_str(b, first ? "{}" : " }");
    return rc;
}

char *
acreU_spec_format(void *mem_ctx, const struct acreU_spec *spec)
{
    uint8_t local[256];
    struct acreE_buf b;
    char *out = NULL;

    if (!spec)
        return NULL;
    acreE_buf_init(&b, local, sizeof(local));
    if (put_spec(&b, spec) == 0)
        out = talloc_strndup(mem_ctx, (const char *)b.p, b.len);
    acreE_buf_free(&b);
    return out;
}
