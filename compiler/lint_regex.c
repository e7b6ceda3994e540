/*
 * lint_regex.c -- what the lint asks of a regular expression of the
 * OpenLDAP dialect: how badly a failing match can backtrack, a string it
 * matches, and the literal text it must end with.
 *
 * The pattern is read as the front end compiles it (openldap_regex.c):
 * POSIX ERE, case-insensitive, '.' matching every byte, a quantifier after
 * a quantifier repeating the group before it, a lone ')' a literal.  The
 * tree is small: character sets (one byte each), anchors, groups with
 * alternatives, back-references and, in <who> templates, substitutions.
 * A pattern using anything else is left alone (acreW_rx_parse gives NULL):
 * the lint says nothing rather than guess.
 *
 * The backtracking rule (LINT in acre(1); measured with PCRE2 10.42, JIT
 * on and off, match limit 100,000, which PCRE2 counts per start
 * position):
 *   - a *run* is one character (a literal, '.', a bracket, \w...) or a
 *     group of single characters, repeated with '*', '+' or '{n,}'; a
 *     group holding only a run, "(.+)", is that run;
 *   - two runs are *linked* when what lies between them is single
 *     characters (optional parts aside) each of which some byte of both
 *     runs also matches -- or, with nothing between, when the runs share a
 *     byte: the text they match together can then be split between them
 *     at many places;
 *   - a chain of k linked runs costs O(n^k) steps on a subject of n bytes
 *     that fails, when something that can fail must match after it, and
 *     O(n^(k-1)) otherwise (the last run never gives characters back:
 *     ".*,.*,.*" alone is linear);
 *   - PCRE2 then reaches its match limit, and the check is denied, on
 *     subjects of 40 to 320 bytes for degree 3 or 4 (".*,.*,.*,x": 85,
 *     "(.+),(.+),(.+),x": 319), but only from 450 to 1200 bytes for degree
 *     2 (".*,.*,x": 447, "^cn=(.+),ou=(.+),dc=(.+)$": 903): the lint
 *     reports degree 3 and more;
 *   - a group repeated without bound is exponential when one of its
 *     alternatives holds a run whose set contains every byte the other
 *     mandatory parts of the alternative can match ("(a+)+", "(.*,)*",
 *     "(a*b*)*"), and something that can fail follows: PCRE2 reaches its
 *     limit at under 50 bytes.
 * These are sufficient conditions, not a decision procedure: a pattern
 * that blows up another way is not reported.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "lint.h"

#include <limits.h>
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

#define RX_INF       UINT_MAX
#define RX_MAX_DEPTH 256
#define RX_MAX_SEPS  64
#define RX_EXAMPLE   4096 /* bytes of an example string */

enum rx_kind {
    RX_SET,     /* one byte of `set` */
    RX_BEGIN,   /* ^, \` */
    RX_END,     /* $, \' */
    RX_ASSERT,  /* \b \B \< \> */
    RX_GROUP,   /* ( alternatives ) */
    RX_BACKREF, /* \1 .. \9 */
    RX_SUBST    /* a template's $n, ${...}: unknown text */
};

struct rx_set {
    uint64_t w[4];
};

struct rx_seq {
    struct rx_node *v;
    unsigned n;
};

struct rx_node {
    enum rx_kind kind;
    unsigned min, max; /* repetitions; max RX_INF: unbounded */
    int quantified;
    struct rx_set set;  /* RX_SET */
    struct rx_seq *alt; /* RX_GROUP: its alternatives */
    unsigned nalt;
    unsigned num;    /* RX_GROUP: capture number (0: none); BACKREF */
    size_t off, end; /* the bytes of the pattern it stands for */
};

struct acreW_rx {
    const char *p;
    size_t n;
    struct rx_node top; /* a group: the top-level alternatives */
};

/* ------------------------------------------------------------------------
 * Sets
 */

static void
set_add(struct rx_set *s, unsigned char c)
{
    s->w[c >> 6] |= (uint64_t)1 << (c & 63);
}

static int
set_has(const struct rx_set *s, unsigned char c)
{
    return (s->w[c >> 6] >> (c & 63)) & 1;
}

static void
set_range(struct rx_set *s, unsigned a, unsigned b)
{
    for (unsigned c = a; c <= b && c < 256; c++)
        set_add(s, (unsigned char)c);
}

/* REG_ICASE: a letter stands for both its cases (ASCII, the C locale). */
static void
set_fold(struct rx_set *s)
{
    for (unsigned c = 'a'; c <= 'z'; c++)
        if (set_has(s, (unsigned char)c) ||
            set_has(s, (unsigned char)(c - 32))) {
            set_add(s, (unsigned char)c);
            set_add(s, (unsigned char)(c - 32));
        }
}

static void
set_not(struct rx_set *s)
{
    for (int i = 0; i < 4; i++)
        s->w[i] = ~s->w[i];
}

static int
set_full(const struct rx_set *s)
{
    return !~(s->w[0] & s->w[1] & s->w[2] & s->w[3]);
}

static int
set_meet(const struct rx_set *a, const struct rx_set *b, const struct rx_set *c)
{
    for (int i = 0; i < 4; i++)
        if (a->w[i] & b->w[i] & (c ? c->w[i] : ~(uint64_t)0))
            return 1;
    return 0;
}

static int
set_within(const struct rx_set *a, const struct rx_set *b)
{
    for (int i = 0; i < 4; i++)
        if (a->w[i] & ~b->w[i])
            return 0;
    return 1;
}

/* A POSIX class name s[0..n) of the C locale. */
static int
set_class(struct rx_set *s, const char *name, size_t n)
{
    static const struct {
        const char *name;
        const char *ranges; /* pairs of bounds */
    } cls[] = {
        {"alpha", "azAZ"},   {"digit", "09"},       {"alnum", "azAZ09"},
        {"upper", "AZ"},     {"lower", "az"},       {"space", "\t\r  "},
        {"blank", "\t\t  "}, {"punct", "!/:@[`{~"}, {"print", " ~"},
        {"graph", "!~"},     {"cntrl", "\001\037"}, {"xdigit", "09afAF"},
    };

    for (size_t i = 0; i < sizeof(cls) / sizeof(cls[0]); i++) {
        if (strlen(cls[i].name) != n || memcmp(cls[i].name, name, n))
            continue;
        for (const char *r = cls[i].ranges; *r; r += 2)
            set_range(s, (unsigned char)r[0], (unsigned char)r[1]);
        if (!strcmp(cls[i].name, "cntrl"))
            set_add(s, 0x7f);
        return 0;
    }
    return -1;
}

/* ------------------------------------------------------------------------
 * Reading the pattern
 */

struct px {
    void *ctx;
    const char *p;
    size_t n, i;
    int tmpl;
    unsigned ncap;
};

static struct rx_node *
seq_push(void *ctx, struct rx_seq *s)
{
    struct rx_node *v = talloc_realloc(ctx, s->v, struct rx_node, s->n + 1);

    if (!v)
        return NULL;
    s->v = v;
    memset(&v[s->n], 0, sizeof(v[0]));
    v[s->n].min = v[s->n].max = 1;
    return &v[s->n++];
}

/* A node of kind k covering p[off..x->i). */
static struct rx_node *
add_node(struct px *x, struct rx_seq *s, enum rx_kind k, size_t off)
{
    struct rx_node *nd = seq_push(x->ctx, s);

    if (nd) {
        nd->kind = k;
        nd->off = off;
        nd->end = x->i;
    }
    return nd;
}

static int
add_char(struct px *x, struct rx_seq *s, unsigned char c, size_t off)
{
    struct rx_node *nd = add_node(x, s, RX_SET, off);

    if (!nd)
        return -1;
    set_add(&nd->set, c);
    set_fold(&nd->set);
    return 0;
}

/* A quantifier {min,max} on the last node; one already quantified is
 * first wrapped in a group, as the front end does ("a**" is (?:a*)*). */
static int
quantify(struct px *x, struct rx_seq *s, unsigned min, unsigned max)
{
    if (s->n == 0)
        return -1;
    struct rx_node *last = &s->v[s->n - 1];
    if (last->kind == RX_BEGIN || last->kind == RX_END ||
        last->kind == RX_ASSERT)
        return -1;
    if (last->quantified) {
        struct rx_seq *in = talloc_zero(x->ctx, struct rx_seq);
        struct rx_node copy = *last;
        if (!in || !seq_push(x->ctx, in))
            return -1;
        in->v[0] = copy;
        memset(last, 0, sizeof(*last));
        last->kind = RX_GROUP;
        last->alt = in;
        last->nalt = 1;
        last->off = copy.off;
    }
    last->min = min;
    last->max = max;
    last->quantified = 1;
    last->end = x->i;
    return 0;
}

static unsigned
read_count(struct px *x)
{
    unsigned long v = 0;

    while (x->i < x->n && x->p[x->i] >= '0' && x->p[x->i] <= '9') {
        v = v * 10 + (unsigned long)(x->p[x->i++] - '0');
        if (v > 0xffff)
            v = 0xffff;
    }
    return (unsigned)v;
}

/* {n}, {n,}, {n,m}, {,m} */
static int
interval(struct px *x, struct rx_seq *s)
{
    unsigned min, max;

    x->i++;
    min = read_count(x);
    max = min;
    if (x->i < x->n && x->p[x->i] == ',') {
        x->i++;
        max = x->i < x->n && x->p[x->i] != '}' ? read_count(x) : RX_INF;
    }
    if (x->i >= x->n || x->p[x->i] != '}')
        return -1;
    x->i++;
    return quantify(x, s, min, max);
}

/* One [..] item that starts with '[': a class, [.c.] or [=c=]. */
static int
bracket_special(struct px *x, size_t *i, struct rx_set *set)
{
    char kind = x->p[*i + 1];
    const char *end = NULL;

    for (size_t k = *i + 2; k + 1 < x->n && !end; k++)
        if (x->p[k] == kind && x->p[k + 1] == ']')
            end = x->p + k;
    if (!end)
        return -1;
    const char *name = x->p + *i + 2;
    size_t len = (size_t)(end - name);
    *i = (size_t)(end - x->p) + 2;
    if (kind == ':')
        return set_class(set, name, len);
    if (len != 1)
        return -1;
    set_add(set, (unsigned char)name[0]);
    return 0;
}

static int
bracket(struct px *x, struct rx_seq *s)
{
    size_t off = x->i, i = x->i + 1;
    struct rx_set set = {{0}};
    int neg = 0;

    if (i < x->n && x->p[i] == '^')
        neg = 1, i++;
    if (i < x->n && x->p[i] == ']')
        set_add(&set, ']'), i++;
    while (i < x->n && x->p[i] != ']') {
        unsigned char c = (unsigned char)x->p[i];
        if (c == '[' && i + 1 < x->n &&
            (x->p[i + 1] == ':' || x->p[i + 1] == '.' || x->p[i + 1] == '=')) {
            if (bracket_special(x, &i, &set))
                return -1;
        } else if (i + 2 < x->n && x->p[i + 1] == '-' && x->p[i + 2] != ']') {
            if (x->p[i + 2] == '[')
                return -1;
            set_range(&set, c, (unsigned char)x->p[i + 2]);
            i += 3;
        } else {
            set_add(&set, c);
            i++;
        }
    }
    if (i >= x->n)
        return -1;
    x->i = i + 1;
    set_fold(&set);
    if (neg)
        set_not(&set);
    struct rx_node *nd = add_node(x, s, RX_SET, off);
    if (!nd)
        return -1;
    nd->set = set;
    return 0;
}

static int
escape(struct px *x, struct rx_seq *s)
{
    size_t off = x->i;
    struct rx_set set = {{0}};
    enum rx_kind k = RX_SET;

    if (x->i + 1 >= x->n)
        return -1;
    char c = x->p[x->i + 1];
    x->i += 2;
    switch (c) {
    case 'w':
    case 'W':
        set_range(&set, 'a', 'z');
        set_range(&set, 'A', 'Z');
        set_range(&set, '0', '9');
        set_add(&set, '_');
        if (c == 'W')
            set_not(&set);
        break;
    case 's':
    case 'S':
        set_range(&set, '\t', '\r');
        set_add(&set, ' ');
        if (c == 'S')
            set_not(&set);
        break;
    case 'b':
    case 'B':
    case '<':
    case '>':
        k = RX_ASSERT;
        break;
    case '`':
        k = RX_BEGIN;
        break;
    case '\'':
        k = RX_END;
        break;
    default:
        if (c >= '1' && c <= '9') {
            struct rx_node *nd = add_node(x, s, RX_BACKREF, off);
            if (!nd)
                return -1;
            nd->num = (unsigned)(c - '0');
            return 0;
        }
        return add_char(x, s, (unsigned char)c, off);
    }
    struct rx_node *nd = add_node(x, s, k, off);
    if (!nd)
        return -1;
    nd->set = set;
    return 0;
}

/* '$' of a template: $$ is '$'; $n and ${...} are substituted text. */
static int
dollar(struct px *x, struct rx_seq *s)
{
    size_t off = x->i;
    char c = x->i + 1 < x->n ? x->p[x->i + 1] : '\0';

    if (!x->tmpl || c == '$' || !(c == '{' || (c >= '0' && c <= '9'))) {
        x->i += x->tmpl && c == '$' ? 2 : 1;
        return add_node(x, s, RX_END, off) ? 0 : -1;
    }
    x->i++;
    if (c == '{') {
        while (x->i < x->n && x->p[x->i] != '}')
            x->i++;
        x->i += x->i < x->n;
    } else {
        while (x->i < x->n && x->p[x->i] >= '0' && x->p[x->i] <= '9')
            x->i++;
    }
    return add_node(x, s, RX_SUBST, off) ? 0 : -1;
}

static int parse_alts(struct px *x, struct rx_node *g, int depth);

static int
group(struct px *x, struct rx_seq *s, int depth)
{
    size_t off = x->i;
    struct rx_node g = {.kind = RX_GROUP, .min = 1, .max = 1, .off = off};

    x->i++;
    g.num = ++x->ncap;
    if (parse_alts(x, &g, depth + 1))
        return -1;
    if (x->i >= x->n || x->p[x->i] != ')')
        return -1;
    x->i++;
    struct rx_node *nd = add_node(x, s, RX_GROUP, off);
    if (!nd)
        return -1;
    g.end = x->i;
    *nd = g;
    return 0;
}

static int
step(struct px *x, struct rx_seq *s, int depth)
{
    size_t off = x->i;
    char c = x->p[x->i];

    switch (c) {
    case '(':
        return group(x, s, depth);
    case '*':
    case '+':
    case '?':
        x->i++;
        return quantify(x, s, c == '+', c == '?' ? 1 : RX_INF);
    case '{':
        return interval(x, s);
    case '[':
        return bracket(x, s);
    case '\\':
        return escape(x, s);
    case '^':
        x->i++;
        return add_node(x, s, RX_BEGIN, off) ? 0 : -1;
    case '$':
        return dollar(x, s);
    case '.': {
        x->i++;
        struct rx_node *nd = add_node(x, s, RX_SET, off);
        if (!nd)
            return -1;
        set_not(&nd->set);
        return 0;
    }
    default: /* a lone ')' at the top is a literal too */
        x->i++;
        return add_char(x, s, (unsigned char)c, off);
    }
}

/* The alternatives of group g, up to its ')' (or the end at the top). */
static int
parse_alts(struct px *x, struct rx_node *g, int depth)
{
    if (depth > RX_MAX_DEPTH)
        return -1;
    g->alt = talloc_zero(x->ctx, struct rx_seq);
    if (!g->alt)
        return -1;
    g->nalt = 1;
    while (x->i < x->n && !(depth > 0 && x->p[x->i] == ')')) {
        if (x->p[x->i] == '|') {
            struct rx_seq *v =
                talloc_realloc(x->ctx, g->alt, struct rx_seq, g->nalt + 1);
            if (!v)
                return -1;
            g->alt = v;
            memset(&v[g->nalt++], 0, sizeof(v[0]));
            x->i++;
            continue;
        }
        if (step(x, &g->alt[g->nalt - 1], depth))
            return -1;
    }
    return 0;
}

/* acreW_rx_parse -- see lint.h. */
struct acreW_rx *
acreW_rx_parse(void *ctx, const char *p, size_t n, int tmpl)
{
    struct acreW_rx *rx = talloc_zero(ctx, struct acreW_rx);
    struct px x = {rx, p, n, 0, tmpl, 0};

    if (!rx)
        return NULL;
    rx->p = p;
    rx->n = n;
    rx->top.kind = RX_GROUP;
    rx->top.min = rx->top.max = 1;
    rx->top.end = n;
    if (parse_alts(&x, &rx->top, 0)) {
        talloc_free(rx);
        return NULL;
    }
    return rx;
}

/* ------------------------------------------------------------------------
 * Backtracking
 */

/* The node's operand is one byte of *out: a set, or a group each of
 * whose alternatives is one such node taken once. */
static int
atom_set(const struct rx_node *nd, struct rx_set *out)
{
    if (nd->kind == RX_SET) {
        *out = nd->set;
        return 1;
    }
    if (nd->kind != RX_GROUP)
        return 0;
    memset(out, 0, sizeof(*out));
    for (unsigned a = 0; a < nd->nalt; a++) {
        struct rx_set s;
        const struct rx_seq *q = &nd->alt[a];
        if (q->n != 1 || q->v[0].min != 1 || q->v[0].max != 1 ||
            !atom_set(&q->v[0], &s))
            return 0;
        for (int i = 0; i < 4; i++)
            out->w[i] |= s.w[i];
    }
    return 1;
}

/* An unbounded repeat of one byte (a run), or a group holding only one. */
static int
is_run(const struct rx_node *nd, struct rx_set *out)
{
    if (nd->max == RX_INF && atom_set(nd, out))
        return 1;
    return nd->kind == RX_GROUP && nd->min == 1 && nd->max == 1 &&
           nd->nalt == 1 && nd->alt[0].n == 1 && is_run(&nd->alt[0].v[0], out);
}

/* Can the node fail where it is tried (it must match something, or it is
 * an assertion)?  Back-references and substitutions may be empty: no. */
static int can_fail_seq(const struct rx_seq *s);

static int
can_fail(const struct rx_node *nd)
{
    switch (nd->kind) {
    case RX_BEGIN:
    case RX_END:
    case RX_ASSERT:
        return 1;
    case RX_SET:
        return nd->min >= 1;
    case RX_GROUP:
        if (nd->min == 0)
            return 0;
        for (unsigned a = 0; a < nd->nalt; a++)
            if (!can_fail_seq(&nd->alt[a]))
                return 0;
        return 1;
    default:
        return 0;
    }
}

static int
can_fail_seq(const struct rx_seq *s)
{
    for (unsigned i = 0; i < s->n; i++)
        if (can_fail(&s->v[i]))
            return 1;
    return 0;
}

/* Must something that can fail match after s->v[from - 1]?  last: the
 * set of the run just before (an end anchor after a run of every byte
 * never fails); tail: something that can fail follows the sequence. */
static int
follows(const struct rx_seq *s, unsigned from, const struct rx_set *last,
        int tail)
{
    for (unsigned m = from; m < s->n; m++) {
        if (s->v[m].kind == RX_END && last && set_full(last))
            continue;
        if (can_fail(&s->v[m]))
            return 1;
    }
    return tail;
}

struct bt {
    const struct acreW_rx *rx;
    int worst; /* -1 exponential, else the highest degree */
    char *why;
    size_t cap;
};

static void
note(struct bt *b, int worst, const struct rx_node *from,
     const struct rx_node *to, const char *what)
{
    if (b->worst < 0 || (worst >= 0 && worst <= b->worst))
        return;
    b->worst = worst;
    snprintf(b->why, b->cap, "\"%.*s\" %s", (int)(to->end - from->off),
             b->rx->p + from->off, what);
}

/* A chain of k runs ending at s->v[last]. */
static void
chain_end(struct bt *b, const struct rx_seq *s, unsigned k, unsigned first,
          unsigned last, const struct rx_set *L, int tail)
{
    if (k < 2)
        return;
    unsigned d = follows(s, last + 1, L, tail) ? k : k - 1;
    if (d >= 3)
        note(b, (int)d, &s->v[first], &s->v[last],
             "repeats without bound several times in a row over characters "
             "they share, so a failing match tries every way to split the "
             "text between them");
}

static int
linked(const struct rx_set *L, const struct rx_set *seps, unsigned nseps,
       const struct rx_set *R)
{
    if (nseps == 0)
        return set_meet(L, R, NULL);
    for (unsigned j = 0; j < nseps; j++)
        if (!set_meet(L, &seps[j], R))
            return 0;
    return 1;
}

/* Does alternative q of a repeated group split text in many ways: a run
 * in it whose set holds every byte its other mandatory parts match? */
static int
ambiguous_alt(const struct rx_seq *q, struct rx_set *run)
{
    for (unsigned r = 0; r < q->n; r++) {
        if (!is_run(&q->v[r], run))
            continue;
        int ok = 1;
        for (unsigned e = 0; e < q->n && ok; e++) {
            struct rx_set es;
            const struct rx_node *nd = &q->v[e];
            if (e == r || nd->min == 0)
                continue;
            ok = nd->kind != RX_BACKREF && nd->kind != RX_SUBST &&
                 atom_set(nd, &es) && set_within(&es, run);
        }
        if (ok)
            return 1;
    }
    return 0;
}

static void scan_seq(struct bt *b, const struct rx_seq *s, int tail);

/* A group: what is inside it, and the group itself when repeated. */
static void
scan_group(struct bt *b, const struct rx_seq *s, unsigned i, int tail)
{
    const struct rx_node *g = &s->v[i];
    int after = follows(s, i + 1, NULL, tail);
    struct rx_set run;

    for (unsigned a = 0; a < g->nalt; a++)
        scan_seq(b, &g->alt[a], after || g->max > 1);
    if (g->max != RX_INF)
        return;
    for (unsigned a = 0; a < g->nalt; a++)
        if (ambiguous_alt(&g->alt[a], &run) && follows(s, i + 1, &run, tail))
            note(b, -1, g, g,
                 "repeats a group that can match the same text in more than "
                 "one way, so a failing match tries exponentially many");
}

static void
scan_seq(struct bt *b, const struct rx_seq *s, int tail)
{
    struct rx_set L = {{0}}, seps[RX_MAX_SEPS], c;
    unsigned k = 0, nseps = 0, first = 0, last = 0;

    for (unsigned i = 0; i < s->n; i++) {
        const struct rx_node *nd = &s->v[i];
        if (nd->kind == RX_GROUP)
            scan_group(b, s, i, tail);
        if (is_run(nd, &c)) {
            if (k > 0 && linked(&L, seps, nseps, &c)) {
                k++;
            } else {
                chain_end(b, s, k, first, last, &L, tail);
                k = 1;
                first = i;
            }
            L = c;
            nseps = 0;
            last = i;
        } else if (k > 0 && nd->min >= 1 && nd->max != RX_INF &&
                   atom_set(nd, &c) && nseps < RX_MAX_SEPS) {
            seps[nseps++] = c;
        } else if (nd->min == 0) {
            continue; /* optional: the split may leave it out */
        } else {
            chain_end(b, s, k, first, last, &L, tail);
            k = 0;
        }
    }
    chain_end(b, s, k, first, last, &L, tail);
}

/* acreW_rx_backtrack -- see lint.h. */
int
acreW_rx_backtrack(const struct acreW_rx *rx, char *why, size_t cap)
{
    struct bt b = {rx, 0, why, cap};

    if (cap)
        why[0] = '\0';
    for (unsigned a = 0; a < rx->top.nalt; a++)
        scan_seq(&b, &rx->top.alt[a], 0);
    return b.worst;
}

/* ------------------------------------------------------------------------
 * An example string
 */

struct ex {
    char buf[RX_EXAMPLE];
    size_t len;
    size_t cap_off[10], cap_len[10];
    int have[10];
    int bad;
};

/* The byte to stand for a set: a letter or digit when it has one. */
static int
pick(const struct rx_set *s)
{
    static const char pref[] = "xabcdefghijklmnopqrstuvwyz0123456789-._";

    for (const char *p = pref; *p; p++)
        if (set_has(s, (unsigned char)*p))
            return (unsigned char)*p;
    for (unsigned c = 1; c < 256; c++)
        if (set_has(s, (unsigned char)c))
            return (int)c;
    return -1;
}

static void ex_seq(struct ex *e, const struct rx_seq *s);

static void
ex_node(struct ex *e, const struct rx_node *nd)
{
    unsigned times = nd->min;

    if (times == 0 && nd->max == RX_INF)
        times = 1;
    for (unsigned t = 0; t < times && !e->bad; t++) {
        size_t at = e->len;
        switch (nd->kind) {
        case RX_SET: {
            int c = pick(&nd->set);
            if (c < 0 || e->len + 1 >= sizeof(e->buf))
                e->bad = 1;
            else
                e->buf[e->len++] = (char)c;
            break;
        }
        case RX_GROUP:
            ex_seq(e, &nd->alt[0]);
            if (nd->num > 0 && nd->num < 10) {
                e->cap_off[nd->num] = at;
                e->cap_len[nd->num] = e->len - at;
                e->have[nd->num] = 1;
            }
            break;
        case RX_BACKREF:
            if (!e->have[nd->num] ||
                e->len + e->cap_len[nd->num] >= sizeof(e->buf)) {
                e->bad = 1;
                break;
            }
            memmove(e->buf + e->len, e->buf + e->cap_off[nd->num],
                    e->cap_len[nd->num]);
            e->len += e->cap_len[nd->num];
            break;
        case RX_SUBST:
            e->bad = 1;
            break;
        default: /* anchors match no text */
            break;
        }
    }
}

static void
ex_seq(struct ex *e, const struct rx_seq *s)
{
    for (unsigned i = 0; i < s->n && !e->bad; i++)
        ex_node(e, &s->v[i]);
}

/* acreW_rx_example -- see lint.h. */
char *
acreW_rx_example(void *ctx, const struct acreW_rx *rx)
{
    struct ex *e = talloc_zero(NULL, struct ex);
    char *out = NULL;

    if (!e)
        return NULL;
    ex_seq(e, &rx->top.alt[0]);
    if (!e->bad)
        out = talloc_strndup(ctx, e->buf, e->len);
    talloc_free(e);
    return out;
}

/* ------------------------------------------------------------------------
 * The literal end
 */

/* The one byte (lowercased) a set of one letter's two cases, or one
 * byte, stands for; -1 otherwise. */
static int
single_byte(const struct rx_set *s)
{
    int found = -1, n = 0;

    for (unsigned c = 0; c < 256; c++) {
        if (!set_has(s, (unsigned char)c))
            continue;
        unsigned char l = (unsigned char)(c - 'A' < 26u ? c + 32 : c);
        if (found < 0)
            found = l;
        else if (found != l)
            return -1;
        n++;
    }
    return n ? found : -1;
}

/* acreW_rx_end_literal -- see lint.h. */
size_t
acreW_rx_end_literal(const struct acreW_rx *rx, char *buf, size_t cap)
{
    if (rx->top.nalt != 1 || cap == 0)
        return 0;
    const struct rx_seq *s = &rx->top.alt[0];
    if (s->n < 2 || s->v[s->n - 1].kind != RX_END || s->v[s->n - 1].quantified)
        return 0;
    size_t len = 0;
    for (unsigned i = s->n - 1; i-- > 0 && len < cap;) {
        const struct rx_node *nd = &s->v[i];
        int c = nd->kind == RX_SET && nd->min == 1 && nd->max == 1
                    ? single_byte(&nd->set)
                    : -1;
        if (c < 0)
            break;
        buf[len++] = (char)c;
    }
    for (size_t i = 0; i < len / 2; i++) {
        char t = buf[i];
        buf[i] = buf[len - 1 - i];
        buf[len - 1 - i] = t;
    }
    return len;
}

/* ------------------------------------------------------------------------
 * Matching
 */

/* acreW_re_match -- see lint.h. */
int
acreW_re_match(const struct acreI_regex *re, const char *s, size_t n,
               size_t *start)
{
    if (!re->code)
        return -1;
    pcre2_match_data *md =
        pcre2_match_data_create_from_pattern((pcre2_code *)re->code, NULL);
    if (!md)
        return -1;
    int rc = pcre2_match((pcre2_code *)re->code, (PCRE2_SPTR)s, n, 0, 0, md,
                         (pcre2_match_context *)re->mctx);
    if (rc >= 0 && start)
        *start = pcre2_get_ovector_pointer(md)[0];
    pcre2_match_data_free(md);
    return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}
