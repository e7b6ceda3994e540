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
 * What glibc's regcomp builds from p, estimated, so that patterns that
 * blow it up are refused before it runs.  glibc turns the ERE into an NFA
 * of nodes -- one per character, set, anchor, back-reference, group
 * boundary, '*' and choice ('|', '?' and the optional copies of {n,m}) --
 * copying the operand of '+' once more and that of {n,m} max(n, m) times
 * (optional copies nested: "((x)?x)?"); then it computes, for every
 * node, the set of nodes it reaches without reading a byte (its epsilon
 * closure) and keeps them all.  Three things explode (glibc 2.36):
 *   - the closures: k operands in a row that can each match the empty
 *     string ("()*()*...", "a?a?...", "(a|)(a|)...") make each reach all
 *     that follow, about k^2/2 entries (8 KB of "()*" took 47 s and
 *     540 MB), and building them takes more time than memory;
 *   - anchors (^ $ \< \> \` \', and \b \B, which glibc makes a choice of
 *     two) in one epsilon region -- nodes joined by moves that read
 *     nothing: glibc copies the region's nodes for each combination of
 *     their conditions, exponentially when the region has an epsilon
 *     cycle (a repetition of something that can be empty): 20 of
 *     "^()*" took 7 s, 6 of "(\B\b)*" 18 s, and 30 "\b()" 261 MB;
 *   - repetitions of repetitions ("s*+++++++++++" took minutes,
 *     "(a|b*){2,20}{2,20}{2,20}" crashed it), worst when the inner one
 *     can be empty and the outer has no bound (three "(){3,23}+" took
 *     11 s).
 * The estimate follows the construction with a few numbers for each
 * sub-pattern (struct ere_cost): its nodes, the sum of their closures,
 * the closure of its entry, how many of its nodes reach its exit without
 * reading (their closures take in whatever follows), whether it can match
 * the empty string and in how many ways, and the anchors (\b \B weigh
 * ERE_W_BOUNDARY; a repetition counts its own twice, its exit and entry
 * being one region) of the regions at its entry and exit.  A pattern is
 * refused past ERE_MAX_NODES nodes; when its closures, doubled for each
 * anchor of its heaviest region, pass the caller's limit; with a region
 * weighing more than ERE_MAX_ANCHORS; or with a repetition nested in more
 * than one other (depth 3: "((a*)+)+", "a*{2}{2}") or without bound
 * around one that can be empty in more than one way ("((a|){3,9})+").
 * The sums are close for the patterns that blow up and a few times too
 * high elsewhere; the limits keep glibc's regcomp under about 0.1 s and
 * 16 MB on rule text, a few ms for a substituted pattern (measured on
 * random and adversarial patterns; tests/unit/openldap_parse_test.c
 * holds the families).
 */
#define ERE_MAX_NODES            16384u
#define ERE_MAX_CLOSURE          (1u << 17) /* rule text */
/* a pattern a check substitutes (at most 1022 bytes, some from the DN or
 * value checked): compiled per check, so held to less */
#define ERE_MAX_CLOSURE_EXPANDED (1u << 12)
#define ERE_MAX_ANCHORS          4u
#define ERE_W_BOUNDARY           2u
#define ERE_MAX_DEPTH            2
#define ERE_MAX_NEST             64                /* groups in groups */
#define ERE_HUGE                 ((size_t)1 << 40) /* estimates saturate here */
#define ERE_INF                  ((size_t)-1)      /* an unbounded repetition */

struct ere_cost {
    size_t n;       /* NFA nodes */
    size_t c;       /* entries of all their epsilon closures */
    size_t r;       /* entries of the closure of its entry */
    size_t e;       /* nodes that reach its exit without reading */
    int z;          /* can match the empty string */
    size_t paths;   /* ways to cross it without reading (no loop) */
    int depth;      /* repetition operators nested */
    size_t in, out; /* anchors (weighed) in the regions at its entry
                       and its exit */
    size_t w;       /* the heaviest region inside */
};

static const struct ere_cost ere_empty = {.z = 1, .paths = 1};
static const struct ere_cost ere_byte = {.n = 1, .c = 1, .r = 1};
static const struct ere_cost ere_eps = {
    .n = 1, .c = 1, .r = 1, .e = 1, .z = 1, .paths = 1};

static size_t
sat_add(size_t a, size_t b)
{
    return a + b > ERE_HUGE ? ERE_HUGE : a + b; /* a, b <= ERE_HUGE */
}

static size_t
sat_mul(size_t a, size_t b)
{
    return a && b > ERE_HUGE / a ? ERE_HUGE : a * b;
}

static size_t
max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* Record region g in s's heaviest. */
static void
region(struct ere_cost *s, size_t g)
{
    s->w = max_size(s->w, g);
}

/* The parts of a and b that neither joins nor builds on. */
static struct ere_cost
ere_both(struct ere_cost a, struct ere_cost b)
{
    struct ere_cost s = {0};

    s.depth = a.depth > b.depth ? a.depth : b.depth;
    s.w = max_size(a.w, b.w);
    return s;
}

/* a then b: a's open nodes now reach b's entry closure, and the regions
 * at a's exit and b's entry are one. */
static struct ere_cost
ere_seq(struct ere_cost a, struct ere_cost b)
{
    struct ere_cost s = ere_both(a, b);

    s.n = sat_add(a.n, b.n);
    s.c = sat_add(sat_add(a.c, b.c), sat_mul(a.e, b.r));
    s.r = a.z ? sat_add(a.r, b.r) : a.r;
    s.e = b.z ? sat_add(a.e, b.e) : b.e;
    s.z = a.z && b.z;
    s.paths = sat_mul(a.paths, b.paths);
    region(&s, sat_add(a.out, b.in));
    s.in = a.z ? sat_add(a.in, b.in) : a.in;
    s.out = b.z ? sat_add(a.out, b.out) : b.out;
    return s;
}

/* A choice node between a and b ('|', and '?' with b empty). */
static struct ere_cost
ere_or(struct ere_cost a, struct ere_cost b)
{
    struct ere_cost s = ere_both(a, b);

    s.n = sat_add(sat_add(a.n, b.n), 1);
    s.r = sat_add(sat_add(a.r, b.r), 1);
    s.c = sat_add(sat_add(a.c, b.c), s.r);
    s.z = a.z || b.z;
    s.paths = sat_add(a.paths, b.paths);
    s.e = sat_add(sat_add(a.e, b.e), (size_t)s.z);
    s.in = sat_add(a.in, b.in);
    s.out = sat_add(a.out, b.out);
    region(&s, s.in);
    region(&s, s.out);
    return s;
}

/* a*: a loop node; a's open nodes reach it, and through it a again, so
 * a's exit and entry regions are one. */
static struct ere_cost
ere_star(struct ere_cost a)
{
    struct ere_cost s = a;
    size_t loop = sat_add(a.out, a.in);

    s.n = sat_add(a.n, 1);
    s.r = sat_add(a.r, 1);
    s.c = sat_add(sat_add(a.c, s.r), sat_mul(a.e, s.r));
    s.e = sat_add(a.e, 1);
    s.z = 1;
    s.paths = 1;
    s.in = s.out = loop;
    region(&s, loop);
    return s;
}

/* An anchor of weight w. */
static struct ere_cost
ere_anchor(size_t w)
{
    struct ere_cost s = ere_eps;

    s.in = s.out = s.w = w;
    return s;
}

/* a{lo,hi} as glibc expands it (hi ERE_INF: unbounded; '+' is {1,},
 * '?' {0,1}, '*' {0,}).  Copies stop once past the node limit. */
static struct ere_cost
ere_repeat(struct ere_cost a, size_t lo, size_t hi)
{
    struct ere_cost t = ere_empty;

    if (a.n == 0) /* "x{0}{5}": nothing to repeat */
        return a;
    for (size_t i = 0; i < lo && t.n <= ERE_MAX_NODES; i++)
        t = ere_seq(t, a);
    if (hi == ERE_INF) {
        t = ere_seq(t, ere_star(a));
    } else if (hi > lo) {
        struct ere_cost o = ere_or(a, ere_empty);
        for (size_t i = lo + 1; i < hi && o.n <= ERE_MAX_NODES; i++)
            o = ere_or(ere_seq(o, a), ere_empty);
        t = ere_seq(t, o);
    }
    t.depth = a.depth + 1;
    if (hi == ERE_INF && a.depth > 0 && a.paths > 1) /* "(x?){3,9}+" */
        t.depth += ERE_MAX_DEPTH;
    return t;
}

/* The bounds of "{n}", "{n,}", "{n,m}", "{,m}" at p[*i] == '{'. */
static void
interval(const char *p, size_t *i, size_t *lo, size_t *hi)
{
    size_t a = 0, b = 0, k = *i + 1;
    int comma = 0, has_b = 0;

    while (p[k] >= '0' && p[k] <= '9')
        a = sat_add(sat_mul(a, 10), (size_t)(p[k++] - '0'));
    if (p[k] == ',')
        for (comma = 1, k++; p[k] >= '0' && p[k] <= '9'; has_b = 1)
            b = sat_add(sat_mul(b, 10), (size_t)(p[k++] - '0'));
    while (p[k] && p[k] != '}')
        k++;
    *i = p[k] ? k + 1 : k;
    *lo = a;
    *hi = !comma ? a : has_b ? max_size(a, b) : ERE_INF;
}

/*
 * One bracket expression from just after its '['.  As in glibc, a '['
 * inside starts a class, equivalence class or collating symbol only when
 * ':', '=' or '.' follows, and that runs to the matching ":]", "=]" or
 * ".]"; any other '[' is a byte ("[[]" is the set of '[').  Unterminated,
 * regcomp refuses the pattern, so where the skip stops does not matter.
 */
static void
skip_bracket(const char *p, size_t *i)
{
    *i += p[*i] == '^';
    *i += p[*i] == ']';
    while (p[*i] && p[*i] != ']') {
        char d = p[*i + 1];
        if (p[*i] == '[' && (d == ':' || d == '=' || d == '.')) {
            *i += 2;
            while (p[*i] && !(p[*i] == d && p[*i + 1] == ']'))
                (*i)++;
            *i += p[*i] ? 2 : 0;
        } else {
            (*i)++;
        }
    }
    *i += p[*i] == ']';
}

static struct ere_cost ere_alt(const char *p, size_t *i, int nest);

/* The atom starting with c (already consumed). */
static struct ere_cost
ere_atom(const char *p, size_t *i, char c, int nest)
{
    if (c == '(') {
        struct ere_cost g = ere_eps; /* too deep: refused below */
        g.n = ERE_HUGE;
        if (nest < ERE_MAX_NEST)
            g = ere_seq(ere_seq(ere_eps, ere_alt(p, i, nest + 1)), ere_eps);
        *i += p[*i] == ')';
        return g;
    }
    if (c == '[') {
        skip_bracket(p, i);
        return ere_byte;
    }
    if (c == '^' || c == '$')
        return ere_anchor(1);
    if (c != '\\' || !p[*i])
        return ere_byte;
    c = p[(*i)++];
    if (c == 'b' || c == 'B')
        return ere_anchor(ERE_W_BOUNDARY);
    if (c >= '1' && c <= '9') /* a back-reference may match nothing */
        return ere_eps;
    return c == '<' || c == '>' || c == '`' || c == '\'' ? ere_anchor(1)
                                                         : ere_byte;
}

/* One branch: atoms and their repetitions up to '|', the end or, in a
 * group, ')' (outside one, ')' is a byte that can be repeated). */
static struct ere_cost
ere_branch(const char *p, size_t *i, int nest)
{
    struct ere_cost all = ere_empty, last = ere_empty;

    while (p[*i] && (p[*i] != ')' || nest == 0) && p[*i] != '|' &&
           all.n <= ERE_MAX_NODES) {
        char c = p[(*i)++];
        size_t lo = 0, hi = ERE_INF;
        if (c == '+')
            lo = 1;
        else if (c == '?')
            hi = 1;
        else if (c == '{')
            (*i)--, interval(p, i, &lo, &hi);
        else if (c != '*') { /* a new atom: the last one is final */
            all = ere_seq(all, last);
            last = ere_atom(p, i, c, nest);
            continue;
        }
        last = ere_repeat(last, lo, hi);
    }
    return ere_seq(all, last);
}

/* Alternatives up to ')' or the end. */
static struct ere_cost
ere_alt(const char *p, size_t *i, int nest)
{
    struct ere_cost all = ere_branch(p, i, nest);

    while (p[*i] == '|' && all.n <= ERE_MAX_NODES) {
        (*i)++;
        all = ere_or(all, ere_branch(p, i, nest));
    }
    return all;
}

void
acreO_regex_cost(const char *p, struct acreO_regex_cost *out)
{
    size_t i = 0;
    struct ere_cost cost = ere_alt(p, &i, 0);

    out->nodes = cost.n;
    out->closure = cost.c;
    out->depth = cost.depth;
    out->anchors = cost.w;
}

/*
 * The literal tail of p (acreI_regex.tail): when p ends in a '$' outside
 * any group and has no '|' outside one, the plain bytes just before that
 * '$' that no quantifier repeats -- every subject p matches ends with
 * them (REG_ICASE: ignoring ASCII case).  *exact: p is '^', the tail and
 * '$'.  Anything but a plain byte (an escape, a set, '.', an anchor, a
 * group or its end, a quantifier) ends the run, so the tail is never
 * longer than what regcomp reads as literals.
 */
static uint32_t
ere_tail(const char *p, size_t n, int *exact)
{
    size_t i = 0, run = 0;
    unsigned depth = 0;

    *exact = 0;
    if (n < 2 || p[n - 1] != '$')
        return 0;
    while (i < n - 1) {
        char c = p[i++];
        if (c == '\\') {
            i += i < n;
        } else if (c == '[') {
            skip_bracket(p, &i);
        } else if (c == '(') {
            depth++;
        } else if (c == ')') {
            depth -= depth > 0;
        } else if (c == '|') {
            if (depth == 0)
                return 0;
        } else if (c == '{') {
            size_t lo, hi;
            i--;
            interval(p, &i, &lo, &hi);
        } else if (!strchr("*+?^$.", c)) {
            continue; /* a plain byte: the run goes on */
        }
        run = i; /* the run starts after what ended it */
    }
    /* the last '$' is an anchor at the top, not part of an escape, a set,
     * an interval or a group */
    if (i != n - 1 || depth != 0 || run >= n - 1)
        return 0;
    *exact = run == 1 && p[0] == '^';
    return (uint32_t)(n - 1 - run);
}

/* Would p cost regcomp too much (closure limit max_closure)? */
static int
too_costly(const char *p, size_t max_closure)
{
    struct acreO_regex_cost c;

    acreO_regex_cost(p, &c);
    if (c.nodes > ERE_MAX_NODES || c.depth > ERE_MAX_DEPTH ||
        c.anchors > ERE_MAX_ANCHORS)
        return 1;
    return sat_mul(c.closure, (size_t)1 << c.anchors) > max_closure;
}

/* slapd's regcomp of p, once the estimate says it is affordable
 * (closure limit max_closure). */
static int
regex_check(const char *p, size_t max_closure, const char **why, char *errbuf,
            size_t errlen)
{
    regex_t re;

    if (too_costly(p, max_closure)) {
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
    if (rc == REG_ESPACE) /* not the pattern's fault: memory ran out */
        return ACRE_ERR_NOMEM;
    regerror(rc, &re, errbuf, errlen);
    if (why)
        *why = errbuf;
    return ACRE_ERR_RULE_SYNTAX;
}

int
acreO_regex_check(const char *p, const char **why, char *errbuf, size_t errlen)
{
    return regex_check(p, ERE_MAX_CLOSURE, why, errbuf, errlen);
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
    unsigned flags; /* ACREI_RE_ALT, _BACKREF, _WORD met */
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
    if (c == '<' || c == '>' || c == 'b' || c == 'B')
        x->flags |= ACREI_RE_WORD;
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
        if (c >= '1' && c <= '9') {
            x->flags |= ACREI_RE_BACKREF;
            return emit(x, (char[]){'\\', c}, 2);
        }
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
        x->flags |= c == '|' ? ACREI_RE_ALT : 0;
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

/* Translate the ERE s[0..n) into a PCRE2 pattern under ctx; OUT *flags
 * the ACREI_RE_ALT, _BACKREF and _WORD it holds. */
static int
ere_to_pcre2(void *ctx, const char *s, size_t n, char **out, unsigned *flags)
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
    if (!rc) {
        *out = talloc_steal(ctx, x->out);
        *flags = x->flags;
    }
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
};

static int
holder_free(struct pcre_holder *h)
{
    pcre2_match_context_free(h->mctx);
    pcre2_code_free(h->code);
    return 0;
}

/* Compile the PCRE2 translation pat into re (JIT too when jit). */
static int
pcre_compile(void *ctx, const char *pat, int jit, struct acreI_regex *re,
             const char **why)
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
    if (!h->code && err == PCRE2_ERROR_HEAP_FAILED) {
        talloc_free(h);
        return ACRE_ERR_NOMEM;
    }
    if (!h->code) {
        pcre2_get_error_message(err, (PCRE2_UCHAR *)msg, sizeof(msg));
        *why = msg; /* static: only for the message, copied at once */
        talloc_free(h);
        return ACRE_ERR_RULE_SYNTAX;
    }
    if (jit)
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
    re->code = h->code;
    re->mctx = h->mctx;
    re->ncapture = cap;
    return 0;
}

/* re's flags (the translation found `flags`) and, for a pattern whose
 * submatches come from regexec, what regexec may pay per byte. */
static void
posix_form(const char *pat, unsigned flags, struct acreI_regex *re)
{
    struct acreO_regex_cost c;

    re->flags = flags;
    re->cost = 0;
    if ((flags & ACREI_RE_ALT) && !(flags & ACREI_RE_BACKREF)) {
        acreO_regex_cost(pat, &c); /* nodes <= 16384 */
        re->flags |= ACREI_RE_POSIX;
        re->cost = (uint32_t)((c.nodes + ACREI_POSIX_STATE) *
                              (flags & ACREI_RE_WORD ? ACREI_POSIX_WORD : 1));
    }
}

/* acreO_regex_compile with a closure limit; jit: JIT-compile too. */
static int
regex_compile(void *ctx, const char *p, size_t n, size_t max_closure, int jit,
              struct acreI_regex *re, const char **why)
{
    static __thread char errbuf[160];
    char *pat, *pcre = NULL;
    unsigned flags = 0;
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
    if ((rc = regex_check(pat, max_closure, why, errbuf, sizeof(errbuf))))
        return rc;
    rc = ere_to_pcre2(ctx, pat, n, &pcre, &flags);
    if (rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_LIMIT)
        *why = "POSIX construct acre cannot translate";
    if (!rc)
        rc = pcre_compile(ctx, pcre, jit, re, why);
    talloc_free(pcre);
    if (rc)
        return rc;
    re->pattern = pat;
    re->len = n;
    posix_form(pat, flags, re);
    int exact;
    re->tail = ere_tail(pat, n, &exact);
    if (exact)
        re->flags |= ACREI_RE_EXACT;
    return 0;
}

int
acreO_regex_compile(void *ctx, const char *p, size_t n, struct acreI_regex *re,
                    const char **why)
{
    return regex_compile(ctx, p, n, ERE_MAX_CLOSURE, 1, re, why);
}

int
acreO_regex_compile_expanded(void *ctx, const char *p, size_t n,
                             struct acreI_regex *re, const char **why)
{
    return regex_compile(ctx, p, n, ERE_MAX_CLOSURE_EXPANDED, 0, re, why);
}
