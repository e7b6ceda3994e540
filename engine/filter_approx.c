/*
 * filter_approx.c -- approximate matching (~=) the way slapd does it.
 *
 * What slapd does (servers/slapd/schema_init.c approxMatch, phonetic.c):
 * caseIgnoreMatch and caseExactMatch have the approximate rule
 * directoryStringApproxMatch, caseIgnoreIA5Match and caseExactIA5Match
 * have IA5StringApproxMatch; every other type falls back to its equality
 * rule.  Both approximate rules reduce the value and the assertion to
 * ASCII (compatibility decomposition, then every non-ASCII code point is
 * dropped, so "Müller" becomes "Muller"), split them into words at each
 * space, and give each word its metaphone code (at most 4 letters, from
 * the word's letters up to its first digit, punctuation or other space).
 * The assertion matches when every one of its non-empty words has the
 * code of some word of the value, in the same order (a word of the value
 * serves at most once); an assertion without words matches nothing.
 *
 * The metaphone variant is the one slapd builds by default (the C Gazette
 * 1991 version with the University of Michigan changes), reproduced rule
 * for rule including its quirks, so that acre and slapd agree: B is only
 * sounded at the end of a word (and not after M), the letter after a
 * non-initial X is swallowed by the KS it becomes, G before E, I or Y is
 * kept as G, and the first letter is dropped from PN-, KN-, GN-, AE- and
 * WR-.  This file was written from that description; it shares no code
 * with slapd.
 *
 * Invariants: matching allocates nothing and reads each value once;
 * invalid UTF-8 never matches.
 */
#include "filter_impl.h"

#include <string.h>
#include <talloc.h>
#include <uninorm.h>
#include <unistr.h>

#define PH_LEN     4  /* letters of a code */
#define PH_LETTERS 31 /* letters of a word that are looked at */
#define PH_PAD     4  /* NULs around the letters, read by look-behind */

/* ------------------------------------------------------------------------
 * ASCII reduction: a UTF-8 string as the ASCII characters that survive
 * compatibility decomposition.
 */

struct fold {
    const uint8_t *s;
    size_t n, i;
    char pend[UC_DECOMPOSITION_MAX_LENGTH];
    unsigned np, pi;
    size_t silent; /* code points that left no ASCII character */
};

static void
decompose(struct fold *f, ucs4_t uc, int depth)
{
    ucs4_t d[UC_DECOMPOSITION_MAX_LENGTH];
    int tag, n;

    if (uc < 0x80) {
        if (f->np < sizeof f->pend)
            f->pend[f->np++] = (char)uc;
        return;
    }
    if (depth >= 8 || (n = uc_decomposition(uc, &tag, d)) <= 0)
        return;
    for (int k = 0; k < n; k++)
        decompose(f, d[k], depth + 1);
}

/* The next ASCII character, -1 at the end, -2 on invalid UTF-8. */
static int
fold_next(struct fold *f)
{
    while (f->pi == f->np) {
        ucs4_t uc;
        int k;

        if (f->i >= f->n)
            return -1;
        if (f->s[f->i] < 0x80)
            return f->s[f->i++];
        k = u8_mbtoucr(&uc, f->s + f->i, f->n - f->i);
        if (k <= 0)
            return -2;
        f->i += (size_t)k;
        f->np = f->pi = 0;
        decompose(f, uc, 0);
        f->silent += f->np == 0;
    }
    return (unsigned char)f->pend[f->pi++];
}

/* ------------------------------------------------------------------------
 * Metaphone
 */

static int
is_letter(int c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/* Ends the part of a word metaphone reads: NUL, white space, a digit or
 * punctuation (the C locale's isspace, isdigit and ispunct). */
static int
is_break(int c)
{
    return c == 0 || (c >= 9 && c <= 13) ||
           (c >= 0x20 && c <= 0x7e && !is_letter(c));
}

static int
in_set(int c, const char *set)
{
    return c != 0 && strchr(set, c) != NULL;
}

#define VOWEL(c)  in_set((c), "AEIOU")
#define PLAIN(c)  in_set((c), "FJLMNR") /* sound as themselves */
#define VARSON(c) in_set((c), "CGPST")
#define FRONTV(c) in_set((c), "EIY")
#define NOGHF(c)  in_set((c), "BDH")

/* The sound of C at w[k] (s: first letter), or 0 for none. */
static char
sound_c(const char *w, int k, int s)
{
    if (w[k - 1] == 'S' && FRONTV(w[k + 1]))
        return 0; /* -SCE-, -SCI-, -SCY- */
    if (w[k + 1] == 'I' && w[k + 2] == 'A')
        return 'X';
    if (FRONTV(w[k + 1]))
        return 'S';
    if (w[k + 1] == 'H')
        return (k == s && !VOWEL(w[k + 2])) || w[k - 1] == 'S' ? 'K' : 'X';
    return 'K';
}

/* The sound of G at w[k] (end: one past the last letter), or 0. */
static char
sound_g(const char *w, int k, int end)
{
    int keep = (w[k + 1] != 'J' || VOWEL(w[k + 2])) &&
               (w[k + 1] != 'N' ||
                (k + 1 < end && (w[k + 2] != 'E' || w[k + 3] != 'D'))) &&
               (w[k - 1] != 'D' || !FRONTV(w[k + 1]));

    if (keep)
        return FRONTV(w[k + 1]) && w[k + 2] != 'G' ? 'G' : 'K';
    if (w[k + 1] == 'H' && !NOGHF(w[k - 3]) && w[k - 4] != 'H')
        return 'F';
    return 0;
}

static char
sound_t(const char *w, int k)
{
    if (w[k + 1] == 'I' && (w[k + 2] == 'O' || w[k + 2] == 'A'))
        return 'X';
    if (w[k + 1] == 'H')
        return '0';
    if (w[k + 1] == 'C' && w[k + 2] == 'H')
        return 0;
    return 'T';
}

/* The sound of the consonant w[k] that is not PLAIN; X is done apart. */
static char
sound(const char *w, int k, int s, int end)
{
    int c = w[k], next = w[k + 1];

    switch (c) {
    case 'B':
        return k == end - 1 && w[k - 1] != 'M' ? 'B' : 0;
    case 'C':
        return sound_c(w, k, s);
    case 'D':
        return next == 'G' && FRONTV(w[k + 2]) ? 'J' : 'T';
    case 'G':
        return sound_g(w, k, end);
    case 'H':
        return !VARSON(w[k - 1]) && (!VOWEL(w[k - 1]) || VOWEL(next)) ? 'H' : 0;
    case 'K':
        return w[k - 1] != 'C' ? 'K' : 0;
    case 'P':
        return next == 'H' ? 'F' : 'P';
    case 'Q':
        return 'K';
    case 'S':
        return next == 'H' ||
                       (next == 'I' && (w[k + 2] == 'O' || w[k + 2] == 'A'))
                   ? 'X'
                   : 'S';
    case 'T':
        return sound_t(w, k);
    case 'V':
        return 'F';
    case 'W':
    case 'Y':
        return VOWEL(next) ? (char)c : 0;
    case 'Z':
        return 'S';
    default:
        return 0; /* vowels after the first letter, NUL */
    }
}

/* Drop or change the first letter of PN-, KN-, GN-, AE-, WR-, WH-, X-. */
static int
skip_initial(char *w, int s)
{
    switch (w[s]) {
    case 'P':
    case 'K':
    case 'G':
    case 'A':
        if (w[s + 1] == (w[s] == 'A' ? 'E' : 'N')) {
            w[s] = 0;
            return s + 1;
        }
        return s;
    case 'W':
        if (w[s + 1] != 'R' && w[s + 1] != 'H')
            return s;
        if (w[s + 1] == 'H') /* WH- sounds as W- */
            w[s + 1] = 'W';
        w[s] = 0;
        return s + 1;
    case 'X':
        w[s] = 'S';
        return s;
    default:
        return s;
    }
}

/* acreF_metaphone -- see filter_impl.h. */
void
acreF_metaphone(const char *letters, size_t n, acreF_code out)
{
    char w[PH_PAD + PH_LETTERS + PH_PAD] = {0};
    int s = PH_PAD, end, len = 0, ks = 0;

    if (n > PH_LETTERS)
        n = PH_LETTERS;
    for (size_t i = 0; i < n; i++)
        w[PH_PAD + i] = (char)(letters[i] & ~0x20);
    end = PH_PAD + (int)n;
    if (n)
        s = skip_initial(w, s);
    for (int k = s; n && k <= end && len < PH_LEN; k++) {
        char c = w[k], o;

        if (ks) { /* the S of an X sounded KS takes this letter's place */
            ks = 0;
            out[len++] = 'S';
            continue;
        }
        if (c == w[k - 1] && c != 'C')
            continue;
        if (PLAIN(c) || (k == s && VOWEL(c)))
            o = c;
        else if (c == 'X')
            o = k == s ? 'S' : (ks = 1, 'K');
        else
            o = sound(w, k, s, end);
        if (o)
            out[len++] = o;
    }
    out[len] = '\0';
}

/* ------------------------------------------------------------------------
 * Words
 */

struct words {
    struct fold f;
    int done;
    int collapse; /* runs of spaces are one, edge spaces none */
    int nwords;
};

/*
 * The next space-separated word: 1 with its code and length in
 * characters, 0 after the last word, -1 on invalid UTF-8.  A string of k
 * spaces has k + 1 words, empty ones included.
 */
static int
word_next(struct words *ws, acreF_code code, size_t *chars)
{
    char letters[PH_LETTERS];
    size_t nl = 0, raw = 0, silent = ws->f.silent;
    int broken = 0;

    if (ws->done)
        return 0;
    for (;;) {
        int c = fold_next(&ws->f);
        int empty = raw == 0 && ws->f.silent == silent;

        if (ws->collapse && c == ' ' && empty)
            continue; /* leading or repeated space */
        if (ws->collapse && c == -1 && empty && ws->nwords) {
            ws->done = 1; /* trailing spaces: no empty last word */
            return 0;
        }
        if (c == -2)
            return -1;
        if (c == -1) {
            ws->done = 1;
            break;
        }
        if (c == ' ')
            break;
        raw++;
        if (broken || (broken = is_break(c)))
            continue;
        if (is_letter(c) && nl < PH_LETTERS)
            letters[nl++] = (char)c;
    }
    acreF_metaphone(letters, nl, code);
    *chars = raw;
    ws->nwords++;
    return 1;
}

static void
words_init(struct words *ws, const uint8_t *s, size_t n)
{
    memset(ws, 0, sizeof *ws);
    ws->f.s = s;
    ws->f.n = n;
}

/* acreF_approx_rule -- see filter_impl.h. */
int
acreF_approx_rule(int eq)
{
    return eq == ACREM_CASE_IGNORE || eq == ACREM_CASE_EXACT ||
           eq == ACREM_CASE_IGNORE_IA5 || eq == ACREM_CASE_EXACT_IA5;
}

/* acreF_approx_codes -- see filter_impl.h. */
int
acreF_approx_codes(void *ctx, const uint8_t *s, size_t n,
                   const acreF_code **out, unsigned *nout)
{
    struct words ws;
    acreF_code code, *codes = NULL;
    unsigned k = 0, cap = 0;
    size_t chars;
    int rc;

    *out = NULL;
    *nout = 0;
    words_init(&ws, s, n);
    while ((rc = word_next(&ws, code, &chars)) == 1) {
        if (chars == 0)
            continue;
        if (k == cap) { /* doubling: linear in the number of words */
            acreF_code *more =
                talloc_realloc(ctx, codes, acreF_code, cap ? 2 * cap : 4);
            if (!more) {
                talloc_free(codes);
                return ACRE_ERR_NOMEM;
            }
            codes = more;
            cap = cap ? 2 * cap : 4;
        }
        memcpy(codes[k++], code, sizeof code);
    }
    if (rc < 0) {
        talloc_free(codes);
        return 1;
    }
    *out = codes;
    *nout = k;
    return 0;
}

/* acreF_approx_keys -- see filter_impl.h. */
int
acreF_approx_keys(const uint8_t *v, size_t n, const acreF_code *codes,
                  unsigned ncodes, uint64_t *found)
{
    struct words ws;
    acreF_code code;
    size_t chars;
    int rc;

    words_init(&ws, v, n);
    while ((rc = word_next(&ws, code, &chars)) == 1) {
        if (!chars || !*code)
            continue; /* no word, or a word without a code: no key */
        for (unsigned k = 0; k < ncodes && k < 64; k++)
            if (!strcmp(code, codes[k]))
                *found |= 1ull << k;
    }
    return rc < 0 ? -1 : 0;
}

/* acreF_approx_match -- see filter_impl.h. */
int
acreF_approx_match(const acreF_code *codes, unsigned ncodes, const uint8_t *v,
                   size_t n)
{
    struct words ws;
    acreF_code code;
    unsigned k = 0;
    size_t chars;
    int rc;

    if (ncodes == 0)
        return 0;
    words_init(&ws, v, n);
    ws.collapse = 1;
    while (k < ncodes && (rc = word_next(&ws, code, &chars)) == 1)
        if (strcmp(code, codes[k]) == 0)
            k++;
    if (k < ncodes)
        return 0;
    /* the rest of an invalid value still makes it no match */
    while ((rc = word_next(&ws, code, &chars)) == 1)
        ;
    return rc == 0;
}
