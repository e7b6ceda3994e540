/*
 * openldap_regex.c -- regular expressions of the OpenLDAP dialect.
 *
 * slapd compiles every pattern with the C library's regcomp(REG_EXTENDED |
 * REG_ICASE) and matches it unanchored.  acre accepts exactly the patterns
 * regcomp accepts (the check runs the same regcomp), then translates the
 * POSIX ERE into an equivalent PCRE2 pattern and compiles that, 8-bit
 * without UTF (bytes, like slapd in the C locale), CASELESS | DOTALL |
 * DOLLAR_ENDONLY, JIT-compiled where available, with match and depth
 * limits in a match context.
 *
 * The translation (erep_* below):
 *   - [...] becomes the set of bytes it stands for under REG_ICASE
 *     (glibc uppercases range ends: [?-z] is ?..Z), written out; '\' is
 *     literal there; [:class:] kept (upper and lower as alpha);
 *     single-character [.c.] and [=c=] are c; others are refused;
 *   - '\<' '\>' become \b(?=\w) \b(?<=\w); \` \' become \A \z; \w \W \s
 *     \S \b \B and back-references \1..\9 are kept; '\' before any other
 *     capital letter or 0 is that character (GNU regex), before a small
 *     letter nothing at all (glibc compares the letter as written with
 *     the subject it has uppercased), before a symbol the escaped symbol;
 *   - a ')' without its '(' is a literal; {,n} becomes {0,n};
 *   - a quantifier after a quantifier (a**, a+?) quantifies the group
 *     before it: (?:a*)* -- PCRE2 would read *+ and *? as possessive and
 *     lazy.
 * A pattern regcomp accepts that the translation or PCRE2 cannot take is
 * refused (fail closed).  Invariant: every acreI_regex with a non-NULL
 * code owns it through a talloc destructor.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "openldap_int.h"

#include <pcre2.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * The POSIX check
 */

/*
 * What glibc's regcomp would make of p, roughly, so that patterns that
 * blow it up are refused before it runs: it copies the operand of '+' once
 * more and that of {n,m} up to max(n, m) times (size), and repetitions of
 * repetitions cost it exponentially, worst with operands that can be empty
 * ("s*+++++++++++" took minutes, "(a|b*){2,20}{2,20}{2,20}" crashed it).
 * Refused: an estimated size past ERE_MAX_NODES, or a repetition nested in
 * more than one other (depth 3: "((a*)+)+", "a*{2}{2}").
 */
#define ERE_MAX_NODES 16384u
#define ERE_MAX_DEPTH 2

struct ere_cost {
    size_t size;
    int depth; /* nesting of repetition operators */
};

static size_t
cap(size_t v)
{
    return v > ERE_MAX_NODES ? ERE_MAX_NODES + 1 : v;
}

/* The repetition count of "{n}", "{n,}", "{n,m}", "{,m}" at p[*i]. */
static size_t
interval(const char *p, size_t *i)
{
    size_t a = 0, b = 0, k = *i + 1;
    while (p[k] >= '0' && p[k] <= '9')
        a = cap(a * 10 + (size_t)(p[k++] - '0'));
    if (p[k] == ',')
        for (k++; p[k] >= '0' && p[k] <= '9';)
            b = cap(b * 10 + (size_t)(p[k++] - '0'));
    while (p[k] && p[k] != '}')
        k++;
    *i = p[k] ? k + 1 : k;
    return cap((a > b ? a : b) + 1);
}

/* One bracket expression from just after its '['. */
static void
skip_bracket(const char *p, size_t *i)
{
    *i += p[*i] == '^';
    *i += p[*i] == ']';
    while (p[*i] && p[*i] != ']')
        *i += (p[*i] == '[' && p[*i + 1]) ? 2 : 1;
    *i += p[*i] == ']';
}

/* The operand starting with c (already consumed); its cost. */
static struct ere_cost ere_alt(const char *p, size_t *i, int nest);

static struct ere_cost
ere_atom(const char *p, size_t *i, char c, int nest)
{
    struct ere_cost a = {1, 0};

    if (c == '(') {
        a = nest < 64 ? ere_alt(p, i, nest + 1)
                      : (struct ere_cost){ERE_MAX_NODES + 1, 0};
        a.size = cap(a.size + 1);
        *i += p[*i] == ')';
    } else if (c == '[') {
        skip_bracket(p, i);
    } else if (c == '\\') {
        *i += p[*i] != '\0';
    }
    return a;
}

/* Alternatives up to ')' or the end. */
static struct ere_cost
ere_alt(const char *p, size_t *i, int nest)
{
    struct ere_cost all = {0, 0}, last = {0, 0};
    size_t branch = 0;

    while (p[*i] && p[*i] != ')') {
        char c = p[(*i)++];
        size_t mult = 0;
        if (c == '|') {
            all.size = cap(all.size + branch);
            branch = 0;
            last = (struct ere_cost){0, 0};
            continue;
        }
        if (c == '*' || c == '?')
            mult = 1;
        else if (c == '+')
            mult = 2;
        else if (c == '{')
            (*i)--, mult = interval(p, i);
        if (mult) { /* a repetition of the last operand */
            branch = cap(branch + cap(last.size * (mult - 1)));
            last.size = cap(last.size * mult);
            last.depth++;
        } else {
            last = ere_atom(p, i, c, nest);
            branch = cap(branch + last.size);
        }
        if (last.depth > all.depth)
            all.depth = last.depth;
    }
    all.size = cap(all.size + branch);
    return all;
}

int
acreO_regex_check(const char *p, const char **why, char *errbuf, size_t errlen)
{
    regex_t re;
    struct ere_cost cost = {0, 0};
    size_t i = 0;

    while (p[i] && cost.size <= ERE_MAX_NODES) { /* stray ')': literals */
        struct ere_cost part = ere_alt(p, &i, 0);
        cost.size = cap(cost.size + part.size);
        if (part.depth > cost.depth)
            cost.depth = part.depth;
        i += p[i] == ')';
    }
    if (cost.size > ERE_MAX_NODES || cost.depth > ERE_MAX_DEPTH) {
        snprintf(errbuf, errlen, "regular expression too costly to compile");
        if (why)
            *why = errbuf;
        return ACRE_ERR_RULE_LIMIT;
    }
    int rc = regcomp(&re, p, REG_EXTENDED | REG_ICASE);

    if (rc == 0) {
        regfree(&re);
        return 0;
    }
    regerror(rc, &re, errbuf, errlen);
    if (why)
        *why = errbuf;
    return ACRE_ERR_RULE_SYNTAX;
}

int
acreO_regex_test_template(const char *p, size_t n, char *errbuf, size_t errlen)
{
    char buf[256];
    size_t size = 0;
    int flag = 0;

    for (size_t i = 0; size < sizeof(buf) && i < n; i++) {
        if (flag) {
            if (p[i] == '$' || (p[i] >= '0' && p[i] <= '9'))
                buf[size++] = p[i];
            flag = 0;
        } else if (p[i] == '$') {
            flag = 1;
        } else {
            buf[size++] = p[i];
        }
    }
    if (size >= sizeof(buf) - 1) {
        snprintf(errbuf, errlen, "regular expression too large");
        return ACRE_ERR_RULE_LIMIT;
    }
    buf[size] = '\0';
    return acreO_regex_check(buf, NULL, errbuf, errlen);
}

/* ------------------------------------------------------------------------
 * ERE -> PCRE2 translation
 */

struct erep {
    const char *s;
    size_t n, i;
    char *out;      /* talloc string being built */
    size_t atom;    /* where the last atom starts in out (or -1) */
    int quantified; /* the last atom already has a quantifier */
    size_t stack[256];
    unsigned depth;
};

static int
emit(struct erep *x, const char *s, size_t n)
{
    char *o = talloc_strndup_append_buffer(x->out, s, n);

    if (!o)
        return ACRE_ERR_NOMEM;
    x->out = o;
    return 0;
}

static int
emitc(struct erep *x, char c)
{
    return emit(x, &c, 1);
}

/* Start a new atom at the current end of out. */
static void
atom_here(struct erep *x)
{
    x->atom = strlen(x->out);
    x->quantified = 0;
}

/* A byte set: the bytes a bracket expression stands for. */
struct bset {
    uint64_t w[4];
};

/* glibc's REG_ICASE uppercases the pattern and the subject (C locale). */
static int
upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* An end of a bracket element at s[*i]: a byte, or a one-character
 * [.c.] or [=c=]; -1 for anything else (not translated). */
static int
bracket_char(const char *s, size_t n, size_t *i)
{
    if (s[*i] == '[' && *i + 1 < n && (s[*i + 1] == '.' || s[*i + 1] == '=')) {
        char kind = s[*i + 1];
        if (*i + 4 >= n || s[*i + 3] != kind || s[*i + 4] != ']')
            return -1;
        *i += 5;
        return (unsigned char)s[*i - 3];
    }
    return (unsigned char)s[(*i)++];
}

/* "[:name:]" at s[*i]: appended to *classes as PCRE2 reads it (upper and
 * lower are alpha under REG_ICASE, as glibc has them). */
static int
bracket_class(const char *s, size_t *i, char **classes)
{
    const char *end = strstr(s + *i + 2, ":]");

    if (!end)
        return ACRE_ERR_RULE_SYNTAX;
    int len = (int)(end - (s + *i + 2));
    const char *name = s + *i + 2;
    if (len == 5 && (!strncmp(name, "upper", 5) || !strncmp(name, "lower", 5)))
        name = "alpha";
    *classes = talloc_asprintf_append(*classes, "[:%.*s:]", len, name);
    *i += (size_t)len + 4;
    return *classes ? 0 : ACRE_ERR_NOMEM;
}

/* Append set b as PCRE2 class content: runs of bytes as \xHH-\xHH. */
static int
bracket_bytes(struct erep *x, const struct bset *b)
{
    char buf[16];
    int rc = 0;

    for (unsigned c = 0; !rc && c < 256; c++) {
        if (!(b->w[c >> 6] >> (c & 63) & 1))
            continue;
        unsigned e = c;
        while (e + 1 < 256 && (b->w[(e + 1) >> 6] >> ((e + 1) & 63) & 1))
            e++;
        int len = e == c ? snprintf(buf, sizeof(buf), "\\x%02x", c)
                         : snprintf(buf, sizeof(buf), "\\x%02x-\\x%02x", c, e);
        rc = emit(x, buf, (size_t)len);
        c = e;
    }
    return rc;
}

/*
 * [...]: one bracket expression starting at x->s[x->i] == '['.  glibc
 * (REG_ICASE) uppercases the pattern and the subject, so a range is taken
 * between uppercased ends ([?-z] is ?..Z: no [ \ ] ^ _ `) and a byte
 * matches when its uppercase is in the set.  PCRE2's CASELESS matches a
 * byte when it or its other case is in the set: the same, once the small
 * letters are taken out of it.  The set is written out byte by byte.
 */
static int
erep_bracket(struct erep *x)
{
    const char *s = x->s;
    size_t i = x->i + 1, n = x->n;
    struct bset set = {{0}};
    char *classes = talloc_strdup(x, "");
    int neg = i < n && s[i] == '^', rc = 0;

    i += (size_t)neg;
    for (int first = 1; !rc && i < n && (s[i] != ']' || first); first = 0) {
        if (s[i] == '[' && i + 1 < n && s[i + 1] == ':') {
            rc = bracket_class(s, &i, &classes);
            continue;
        }
        int lo = bracket_char(s, n, &i), hi = lo;
        if (lo >= 0 && i + 1 < n && s[i] == '-' && s[i + 1] != ']') {
            i++;
            hi = bracket_char(s, n, &i);
        }
        lo = upper(lo);
        hi = upper(hi);
        if (lo < 0 || hi < lo)
            return ACRE_ERR_RULE_SYNTAX;
        for (int c = lo; c <= hi; c++)
            if (c < 'a' || c > 'z')
                set.w[c >> 6] |= (uint64_t)1 << (c & 63);
    }
    if (!rc && (i >= n || !classes))
        rc = classes ? ACRE_ERR_RULE_SYNTAX : ACRE_ERR_NOMEM;
    if (rc)
        return rc;
    x->i = i + 1;
    if (!classes[0] && !(set.w[0] | set.w[1] | set.w[2] | set.w[3]))
        return neg ? emit(x, "[\\x00-\\xff]", 11)
                   : emit(x, "[^\\x00-\\xff]", 12);
    rc = emit(x, neg ? "[^" : "[", neg ? 2u : 1u);
    if (!rc)
        rc = emit(x, classes, strlen(classes));
    if (!rc)
        rc = bracket_bytes(x, &set);
    return rc ? rc : emitc(x, ']');
}

/* '\' followed by c, outside brackets. */
static int
erep_escape(struct erep *x, char c)
{
    switch (c) {
    case '<':
        return emit(x, "\\b(?=\\w)", 8);
    case '>':
        return emit(x, "\\b(?<=\\w)", 9);
    case '`':
        return emit(x, "\\A", 2);
    case '\'':
        return emit(x, "\\z", 2);
    case 'w':
    case 'W':
    case 's':
    case 'S':
    case 'b':
    case 'B':
        return emit(x, (char[]){'\\', c}, 2);
    default:
        if (c >= '1' && c <= '9')
            return emit(x, (char[]){'\\', c}, 2);
        if (c >= 'a' && c <= 'z') /* compared, not uppercased, with the
                                     uppercased subject: never equal */
            return emit(x, "[^\\x00-\\xff]", 12);
        if ((c >= 'A' && c <= 'Z') || c == '0')
            return emitc(x, c);
        return emit(x, (char[]){'\\', c}, 2);
    }
}

/* A quantifier q[0..n) after the last atom. */
static int
erep_quantifier(struct erep *x, const char *q, size_t n)
{
    if (x->quantified && x->atom != (size_t)-1) {
        char *o = talloc_asprintf(x, "%.*s(?:%s)", (int)x->atom, x->out,
                                  x->out + x->atom);
        if (!o)
            return ACRE_ERR_NOMEM;
        talloc_free(x->out);
        x->out = o;
    }
    x->quantified = 1;
    return emit(x, q, n);
}

/* '{' of an interval: copy it up to '}', {,n} as {0,n}. */
static int
erep_interval(struct erep *x)
{
    const char *end = memchr(x->s + x->i, '}', x->n - x->i);

    if (!end)
        return ACRE_ERR_RULE_SYNTAX;
    size_t len = (size_t)(end - (x->s + x->i)) + 1;
    char buf[64];
    if (len + 2 > sizeof(buf))
        return ACRE_ERR_RULE_SYNTAX;
    if (x->s[x->i + 1] == ',')
        snprintf(buf, sizeof(buf), "{0%.*s", (int)len - 1, x->s + x->i + 1);
    else
        snprintf(buf, sizeof(buf), "%.*s", (int)len, x->s + x->i);
    x->i += len;
    return erep_quantifier(x, buf, strlen(buf));
}

static int
erep_group(struct erep *x, char c)
{
    if (c == '(') {
        if (x->depth == sizeof(x->stack) / sizeof(x->stack[0]))
            return ACRE_ERR_RULE_LIMIT;
        x->stack[x->depth++] = strlen(x->out);
        x->atom = (size_t)-1;
        x->quantified = 0;
        return emitc(x, '(');
    }
    if (x->depth == 0) { /* glibc: a lone ')' is a literal */
        atom_here(x);
        return emit(x, "\\)", 2);
    }
    int rc = emitc(x, ')');
    x->atom = x->stack[--x->depth];
    x->quantified = 0;
    return rc;
}

static int
erep_step(struct erep *x)
{
    char c = x->s[x->i];

    switch (c) {
    case '[':
        atom_here(x);
        return erep_bracket(x);
    case '\\':
        if (x->i + 1 >= x->n)
            return ACRE_ERR_RULE_SYNTAX;
        atom_here(x);
        x->i += 2;
        return erep_escape(x, x->s[x->i - 1]);
    case '*':
    case '+':
    case '?':
        x->i++;
        return erep_quantifier(x, &c, 1);
    case '{':
        return erep_interval(x);
    case '(':
    case ')':
        x->i++;
        return erep_group(x, c);
    case '|':
    case '^':
    case '$':
        x->i++;
        x->atom = (size_t)-1;
        x->quantified = 0;
        return emitc(x, c);
    default:
        atom_here(x);
        x->i++;
        return emitc(x, c);
    }
}

/* Translate the ERE s[0..n) into a PCRE2 pattern under ctx. */
static int
ere_to_pcre2(void *ctx, const char *s, size_t n, char **out)
{
    struct erep *x = talloc_zero(ctx, struct erep);
    int rc = 0;

    if (!x || !(x->out = talloc_strdup(x, "")))
        return ACRE_ERR_NOMEM;
    x->s = s;
    x->n = n;
    x->atom = (size_t)-1;
    while (!rc && x->i < n)
        rc = erep_step(x);
    if (!rc)
        *out = talloc_steal(ctx, x->out);
    talloc_free(x);
    return rc;
}

/* ------------------------------------------------------------------------
 * PCRE2 compilation
 */

/* Owns the PCRE2 objects of one acreI_regex. */
struct pcre_holder {
    pcre2_code *code;
    pcre2_match_context *mctx;
    regex_t px; /* the POSIX pattern, when has_px */
    int has_px;
};

static int
holder_free(struct pcre_holder *h)
{
    pcre2_match_context_free(h->mctx);
    pcre2_code_free(h->code);
    if (h->has_px)
        regfree(&h->px);
    return 0;
}

/* pat: the PCRE2 translation; posix: the pattern as written, also
 * compiled with regcomp when it has an alternation (acreI_regex.posix). */
static int
pcre_compile(void *ctx, const char *pat, const char *posix,
             struct acreI_regex *re, const char **why)
{
    static __thread char msg[160];
    int err;
    PCRE2_SIZE off;
    struct pcre_holder *h = talloc_zero(ctx, struct pcre_holder);

    if (!h)
        return ACRE_ERR_NOMEM;
    talloc_set_destructor(h, holder_free);
    h->code =
        pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
                      PCRE2_CASELESS | PCRE2_DOTALL | PCRE2_DOLLAR_ENDONLY |
                          PCRE2_NEVER_UTF | PCRE2_NEVER_BACKSLASH_C,
                      &err, &off, NULL);
    if (!h->code) {
        pcre2_get_error_message(err, (PCRE2_UCHAR *)msg, sizeof(msg));
        *why = msg; /* static: only for the message, copied at once */
        talloc_free(h);
        return ACRE_ERR_RULE_SYNTAX;
    }
    (void)pcre2_jit_compile(h->code, PCRE2_JIT_COMPLETE);
    h->mctx = pcre2_match_context_create(NULL);
    if (!h->mctx) {
        talloc_free(h);
        return ACRE_ERR_NOMEM;
    }
    pcre2_set_match_limit(h->mctx, ACREI_REGEX_MATCH_LIMIT);
    pcre2_set_depth_limit(h->mctx, ACREI_REGEX_DEPTH_LIMIT);
    uint32_t cap = 0;
    pcre2_pattern_info(h->code, PCRE2_INFO_CAPTURECOUNT, &cap);
    if (strchr(posix, '|')) {
        if (regcomp(&h->px, posix, REG_EXTENDED | REG_ICASE)) {
            talloc_free(h);
            return ACRE_ERR_NOMEM; /* acreO_regex_check accepted it */
        }
        h->has_px = 1;
    }
    re->code = h->code;
    re->mctx = h->mctx;
    re->ncapture = cap;
    re->posix = h->has_px ? &h->px : NULL;
    return 0;
}

int
acreO_regex_compile(void *ctx, const char *p, size_t n, struct acreI_regex *re,
                    const char **why)
{
    static __thread char errbuf[160];
    char *pat, *pcre = NULL;
    int rc;

    if (n > ACREO_MAX_REGEX) {
        *why = "regular expression too long";
        return ACRE_ERR_RULE_LIMIT;
    }
    if (memchr(p, '\0', n)) {
        *why = "NUL byte in regular expression";
        return ACRE_ERR_RULE_SYNTAX;
    }
    pat = talloc_strndup(ctx, p, n);
    if (!pat)
        return ACRE_ERR_NOMEM;
    if ((rc = acreO_regex_check(pat, why, errbuf, sizeof(errbuf))))
        return rc;
    rc = ere_to_pcre2(ctx, pat, n, &pcre);
    if (rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_LIMIT)
        *why = "POSIX construct acre cannot translate";
    if (!rc)
        rc = pcre_compile(ctx, pcre, pat, re, why);
    talloc_free(pcre);
    if (rc)
        return rc;
    re->pattern = pat;
    re->len = n;
    return 0;
}
