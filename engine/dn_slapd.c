/*
 * dn_slapd.c -- acre's DN text as slapd writes the same DN: each escape
 * acre writes as "\c" (a special character) or "\xx" (a byte it cannot
 * show) becomes slapd's "\XX" pair (upper-case hex), and an '=' inside a
 * value becomes "\3D".  Used by the CLI and the slapd differential for
 * printed DNs (cli_dn_slapd, from the pretty form) and by the directory
 * for back-mdb's order of siblings (from the normalised form, the dn2id
 * key slapd sorts on).
 *
 * Invariants: reads s[0..n), writes at most 3n bytes of out; allocates
 * nothing.
 */
#include "dn.h"
#include "internal.h"

/* put_hex -- c as slapd's "\XX". */
static size_t
put_hex(char *o, unsigned char c)
{
    static const char hx[] = "0123456789ABCDEF";

    o[0] = '\\';
    o[1] = hx[c >> 4];
    o[2] = hx[c & 15];
    return 3;
}

/* step -- slapd's bytes for the character (or escape) at s[*i] into
 * o[0..3), *i past it; *in_value tracks whether a value is being read (a
 * value runs from the '=' after its type to the next unescaped ',' or
 * '+').  Returns how many bytes it wrote. */
static size_t
step(const char *s, size_t n, size_t *i, int *in_value, char *o)
{
    unsigned char c = (unsigned char)s[*i];

    *i += 1;
    if (c == '\\' && *i + 1 < n && acreE_hexval(s[*i]) >= 0 &&
        acreE_hexval(s[*i + 1]) >= 0) {
        c = (unsigned char)(acreE_hexval(s[*i]) * 16 + acreE_hexval(s[*i + 1]));
        *i += 2;
        return put_hex(o, c);
    }
    if (c == '\\' && *i < n)
        return put_hex(o, (unsigned char)s[(*i)++]);
    if (!*in_value)
        *in_value = c == '=';
    else if (c == ',' || c == '+')
        *in_value = 0;
    else if (c == '=')
        return put_hex(o, c);
    o[0] = (char)c;
    return 1;
}

/* acreD_text_slapd -- see dn.h. */
size_t
acreD_text_slapd(const char *s, size_t n, char *out)
{
    size_t i = 0, len = 0;
    int in_value = 0;

    while (i < n)
        len += step(s, n, &i, &in_value, out + len);
    return len;
}

/* slapd_len -- the length of acreD_text_slapd's text of s[0..n). */
static size_t
slapd_len(const char *s, size_t n)
{
    char o[3];
    size_t i = 0, len = 0;
    int in_value = 0;

    while (i < n)
        len += step(s, n, &i, &in_value, o);
    return len;
}

/* acreD_cmp_slapd -- see dn.h. */
int
acreD_cmp_slapd(const char *a, size_t an, const char *b, size_t bn)
{
    size_t la = slapd_len(a, an), lb = slapd_len(b, bn);
    size_t i = 0, j = 0, na = 0, nb = 0, pa = 0, pb = 0;
    int va = 0, vb = 0;
    char oa[3], ob[3];

    if (la != lb)
        return la < lb ? -1 : 1;
    for (size_t k = 0; k < la; k++) {
        if (pa == na)
            na = step(a, an, &i, &va, oa), pa = 0;
        if (pb == nb)
            nb = step(b, bn, &j, &vb, ob), pb = 0;
        unsigned char x = (unsigned char)oa[pa++], y = (unsigned char)ob[pb++];
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}
