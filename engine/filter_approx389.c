/*
 * filter_approx389.c -- approximate matching (~=) the way 389-DS 2.3 does
 * it, under a 389 schema (ACRE_SCHEMA_389).
 *
 * What 389 does (plugins/syntaxes string.c, phonetic.c): every syntax but
 * the octet-string ones (octetStringMatch, or no equality rule and a
 * Binary, Octet String, JPEG or Fax syntax: never a match) hands ~= to one
 * routine that works on the values as stored and the assertion as sent,
 * neither normalised, each up to its first NUL:
 *
 *   - Words are the runs between word breaks: ASCII space, punctuation
 *     and digits, NUL, and the characters U+00A0, U+3000 and U+FEFF.
 *   - A word's code is a metaphone of at most 6 bytes, from at most 31
 *     bytes of the word: its ASCII letters in upper case and its other
 *     bytes as they are (other ASCII is dropped).  The rules are the
 *     metaphone of the C Gazette (1991) with the University of Michigan
 *     changes that slapd's approx also has, plus 389's own handling of
 *     Latin-1 letters written in UTF-8 (C3 xx): as the first letter, most
 *     become their base letter (upper case for capitals, lower case for
 *     small ones); elsewhere C-cedilla and sharp s sound S, eth and thorn
 *     0, N-tilde N, Y-acute and y-diaeresis Y, the rest nothing.  Any
 *     other non-ASCII byte is copied into the code.
 *   - For each value in turn: each word of the assertion, in order, must
 *     have the code of a word of the value after the one the previous
 *     assertion word matched.  A value that takes every word (at least
 *     one) matches.  389 keeps the result of its last code comparison
 *     across values and answers a match when that comparison was equal:
 *     so a value whose words ran out right after an assertion word
 *     matched (no comparison after it, in it or in the values after it)
 *     matches too.  An assertion without words matches nothing.
 *
 * 389 looks the letters up in a 26-entry table by (byte - 'A') for any
 * byte, in its vowel and B/D/H tests: for a byte that is no capital
 * letter it reads the bytes around the table in the server's binary.
 * tbl_vowel and tbl_bdh give what those reads find in Debian bookworm's
 * build of 389-ds-base 2.3.1 (libsyntax-plugin.so), so that lower-case
 * initials, '0' and non-ASCII bytes take the branches they take there.
 *
 * Written from that description; it shares no code with 389.
 *
 * Invariants: allocates nothing; reads no byte outside the value and the
 * assertion.
 */
#include "filter_impl.h"

#include <string.h>

#define MAXCODE  6  /* bytes of a code */
#define NT_START 4  /* the word starts after 4 NULs of look-behind */
#define NT_END   35 /* copying stops once this many bytes are written */
#define NT_SIZE  48 /* one character past NT_END, then 4 NULs */

/* A string up to its end or first NUL. */
struct str {
    const uint8_t *p, *e;
};

static unsigned
at(const struct str *s, const uint8_t *p)
{
    return p < s->e ? *p : 0;
}

/* 389's UTF8len: bytes of the character a byte starts (0: inside one). */
static unsigned
utf8_len(unsigned c)
{
    static const uint8_t len[64] = {
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
        1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 5, 6};

    return len[(c >> 2) & 0x3f];
}

static int
is_cont(const struct str *s, const uint8_t *p)
{
    return (at(s, p) & 0xc0) == 0x80;
}

/* The character after the one at p (389's LDAP_UTF8INC): a lead byte's
 * continuation bytes while there are, at most the length it announces. */
static const uint8_t *
next_char(const struct str *s, const uint8_t *p)
{
    unsigned k = utf8_len(at(s, p));

    if (k == 1)
        return p + 1;
    if (k == 0)
        k = 6;
    p++;
    for (unsigned i = 1; i < k && is_cont(s, p); i++)
        p++;
    return p;
}

/* The code point at p as 389's ldap_utf8getcc reads it. */
static unsigned long
code_point(const struct str *s, const uint8_t *p)
{
    unsigned c = at(s, p), k = utf8_len(c), more;
    unsigned long cp;

    switch (k) {
    case 1:
        return c;
    case 0:
        cp = c & 0x3f, more = 5;
        break;
    default:
        cp = c & (0x7fu >> k), more = k - 1;
        break;
    }
    for (p++; more && is_cont(s, p); more--, p++)
        cp = (cp << 6) | (*p & 0x3f);
    return cp;
}

/* iswordbreak: C-locale ASCII space, punctuation, digit, NUL; three
 * space characters beyond ASCII. */
static int
is_break(const struct str *s, const uint8_t *p)
{
    unsigned c = at(s, p);

    if (c < 0x80)
        return c == 0 || c == ' ' || (c >= '\t' && c <= '\r') ||
               (c >= '!' && c <= '/') || (c >= '0' && c <= '@') ||
               (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
    unsigned long cp = code_point(s, p);
    return cp == 0xa0 || cp == 0x3000 || cp == 0xfeff;
}

static const uint8_t *
first_word(const struct str *s, const uint8_t *p)
{
    while (p && is_break(s, p))
        p = at(s, p) ? next_char(s, p) : NULL;
    return p;
}

static const uint8_t *
next_word(const struct str *s, const uint8_t *p)
{
    while (!is_break(s, p))
        p = next_char(s, p);
    return first_word(s, p);
}

/* ------------------------------------------------------------------------
 * The code of a word
 */

/* Bits of the letter table as 389 reads it for byte c (c - 'A' any
 * index): AEIOU (tbl_vowel) and BDH (tbl_bdh), from 'A'..'Z' and the
 * bytes around the table in Debian's binary (see the banner). */
static const uint64_t tbl_vowel[4] = {
    0x01b9f9ddffdf9ddcull, 0xd455550550208222ull, 0xbd12fe953e8105fcull,
    0xb6ba0a6b6f49e9adull};
static const uint64_t tbl_bdh[4] = {
    0x01b999bdb9d99ddcull, 0xd000541000000114ull, 0x830462d57ebb48c5ull,
    0x520601d520d58754ull};

static int
bit(const uint64_t *t, unsigned c)
{
    return (t[c >> 6] >> (c & 63)) & 1;
}

/* vsvfn for the letters, either case; 0 for anything else */
static unsigned
letter_code(unsigned c)
{
    static const uint8_t v[26] = {1, 16, 4, 16, 9, 2, 4, 16, 9, 2, 0, 2, 2,
                                  2, 1,  4, 0,  2, 4, 4, 1,  0, 0, 0, 8, 0};

    if (c >= 'A' && c <= 'Z')
        return v[c - 'A'];
    if (c >= 'a' && c <= 'z')
        return v[c - 'a'];
    return 0;
}

static int
vowel(const uint8_t *x)
{
    if (x[0] && bit(tbl_vowel, x[0]))
        return 1;
    if (x[0] != 0xc3 || !x[1])
        return 0;
    unsigned b = x[1];
    return (b >= 0x80 && b < 0x87) || (b >= 0x88 && b < 0x90) ||
           (b >= 0x92 && b < 0x97) || (b >= 0x98 && b < 0x9d) ||
           (b >= 0xa0 && b < 0xa7) || (b >= 0xa8 && b < 0xb0) ||
           (b >= 0xb2 && b < 0xb7) || (b >= 0xb8 && b < 0xbd);
}

static int
frontv(const uint8_t *x) /* EIY */
{
    if (x[0] && (letter_code(x[0]) & 8))
        return 1;
    return x[0] == 0xc3 && x[1] &&
           ((x[1] >= 0x88 && x[1] < 0x90) || (x[1] >= 0xa8 && x[1] < 0xb0));
}

static int
same(unsigned c) /* FJLMNR */
{
    return c && (letter_code(c) & 2);
}

static int
varson(unsigned c) /* CGPST */
{
    return c && (letter_code(c) & 4);
}

static int
noghf(unsigned c) /* BDH */
{
    return c && bit(tbl_bdh, c);
}

/* A Latin-1 initial (C3 b) as 389 rewrites it: its letter, or 0 when it
 * leaves the initial alone. */
static uint8_t
latin1_initial(unsigned b)
{
    static const char up[] = "AAAAAAECEEEEIIII0NOOOOO\0OUUUUY0s";
    static const char low[] = "aaaaaaeceeeeiiii0nooooo\0ouuuuy0y";

    if (b >= 0x80 && b < 0xa0)
        return (uint8_t)up[b - 0x80];
    if (b >= 0xa0 && b <= 0xbf)
        return (uint8_t)low[b - 0xa0];
    return 0;
}

/* The code of the word at w (NUL-terminated into out[MAXCODE + 1]). */
static void
phonetic(const struct str *s, const uint8_t *w, char *out)
{
    uint8_t nt[NT_SIZE];
    uint8_t *n = nt + NT_START, *n_end, *n_start;
    char *m = out, *m_end = out + MAXCODE;
    int ks = 0;

    memset(nt, 0, sizeof nt);
    while (!is_break(s, w) && n < nt + NT_END) {
        unsigned c = at(s, w);
        if (c < 0x80) {
            if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
                *n++ = (uint8_t)(c & ~0x20u);
            w++;
        } else { /* ldap_utf8copy: the character's bytes */
            const uint8_t *e = next_char(s, w);
            while (w < e)
                *n++ = *w++;
        }
    }
    *m = '\0';
    if (n == nt + NT_START)
        return;
    n_end = n;
    n = nt + NT_START;

    switch (*n) { /* PN, KN, GN, AE, WR, WH and X at the start */
    case 'P':
    case 'K':
    case 'G':
    case 'A':
        if (n[1] == (*n == 'A' ? 'E' : 'N'))
            *n++ = 0;
        break;
    case 'W':
        if (n[1] == 'R' || n[1] == 'H')
            *n++ = 0;
        break;
    case 'X':
        *n = 'S';
        break;
    case 0xc3:
        if (latin1_initial(n[1])) {
            *n++ = 0;
            *n = latin1_initial(*n);
        }
        break;
    }

    for (n_start = n; n <= n_end && m < m_end; n++) {
        unsigned c = *n;
        if (ks) {
            ks = 0;
            *m++ = 'S';
        } else if (c >= 0x80) {
            if (c != 0xc3) {
                *m++ = (char)c;
            } else if (n + 1 <= n_end) {
                switch (*++n) {
                case 0x87: /* C with cedilla */
                case 0x9f: /* sharp s */
                case 0xa7:
                    *m++ = 'S';
                    break;
                case 0x90: /* eth, thorn */
                case 0x9e:
                case 0xb0:
                case 0xbe:
                    *m++ = '0';
                    break;
                case 0x91: /* N with tilde */
                case 0xb1:
                    *m++ = 'N';
                    break;
                case 0x9d: /* Y with acute, y with diaeresis */
                case 0xbd:
                case 0xbf:
                    *m++ = 'Y';
                    break;
                }
            }
        } else if (n[-1] == c && c != 'C') {
            continue; /* a doubled letter, but CC */
        } else if (same(c) || (n == n_start && vowel(n))) {
            *m++ = (char)c;
        } else {
            switch (c) {
            case 'B': /* unless in -MB */
                if (n < n_end - 1 && n[-1] != 'M')
                    *m++ = 'B';
                break;
            case 'C':
                if (n[-1] != 'S' || !frontv(n + 1)) {
                    if (n[1] == 'I' && n[2] == 'A')
                        *m++ = 'X';
                    else if (frontv(n + 1))
                        *m++ = 'S';
                    else if (n[1] == 'H')
                        *m++ = (n == n_start && !vowel(n + 2)) || n[-1] == 'S'
                                   ? 'K'
                                   : 'X';
                    else
                        *m++ = 'K';
                }
                break;
            case 'D':
                *m++ = n[1] == 'G' && frontv(n + 2) ? 'J' : 'T';
                break;
            case 'G':
                if ((n[1] != 'J' || vowel(n + 2)) &&
                    (n[1] != 'N' ||
                     (n + 1 < n_end && (n[2] != 'E' || n[3] != 'D'))) &&
                    (n[-1] != 'D' || !frontv(n + 1)))
                    *m++ = frontv(n + 1) && n[2] != 'G' ? 'G' : 'K';
                else if (n[1] == 'H' && !noghf(n[-3]) && n[-4] != 'H')
                    *m++ = 'F';
                break;
            case 'H':
                if (!varson(n[-1]) && (!vowel(n - 1) || vowel(n + 1)))
                    *m++ = 'H';
                break;
            case 'K':
                if (n[-1] != 'C')
                    *m++ = 'K';
                break;
            case 'P':
                *m++ = n[1] == 'H' ? 'F' : 'P';
                break;
            case 'Q':
                *m++ = 'K';
                break;
            case 'S':
                *m++ =
                    n[1] == 'H' || (n[1] == 'I' && (n[2] == 'O' || n[2] == 'A'))
                        ? 'X'
                        : 'S';
                break;
            case 'T':
                if (n[1] == 'I' && (n[2] == 'O' || n[2] == 'A'))
                    *m++ = 'X';
                else if (n[1] == 'H')
                    *m++ = '0';
                else if (n[1] != 'C' || n[2] != 'H')
                    *m++ = 'T';
                break;
            case 'V':
                *m++ = 'F';
                break;
            case 'W':
            case 'Y':
                if (vowel(n + 1))
                    *m++ = (char)c;
                break;
            case 'X':
                if (n == n_start) {
                    *m++ = 'S';
                } else {
                    *m++ = 'K';
                    ks = 1;
                }
                break;
            case 'Z':
                *m++ = 'S';
                break;
            }
        }
    }
    *m = '\0';
}

/* ------------------------------------------------------------------------
 * Matching
 */

static struct str
str_of(const uint8_t *v, size_t n)
{
    const uint8_t *z = n ? memchr(v, 0, n) : NULL;

    return (struct str){v, z ? z : v + n};
}

/* acreF_approx389 -- see filter_impl.h. */
int
acreF_approx389(const uint8_t *as, size_t an, const acre_value *vals,
                uint32_t nvals)
{
    struct str a = str_of(as, an);
    char c1[MAXCODE + 1], c2[MAXCODE + 1];
    int rc = -1;

    for (uint32_t i = 0; i < nvals; i++) {
        struct str v = str_of(vals[i].val, vals[i].len);
        const uint8_t *w1, *w2 = v.p;
        unsigned words = 0;

        for (w1 = first_word(&a, a.p); w1; w1 = next_word(&a, w1)) {
            words++;
            phonetic(&a, w1, c1);
            for (w2 = first_word(&v, w2); w2; w2 = next_word(&v, w2)) {
                phonetic(&v, w2, c2);
                if ((rc = strcmp(c1, c2)) == 0)
                    break;
            }
            if (!w2)
                break;
            w2 = next_word(&v, w2);
        }
        if (!w1 && words > 0)
            return 1;
    }
    return rc == 0;
}
