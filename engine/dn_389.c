/*
 * dn_389.c -- DN text as 389-DS stores a DN-valued attribute's value
 * (its DN syntax plugin normalises on add, keeping case): spaces around
 * separators and a value's unescaped edge spaces dropped, quoted values
 * unquoted, escapes of ordinary characters undone, and the characters a
 * value must escape written as "\XX" pairs (upper-case hex): , + " \ < >
 * ; anywhere, '#' and ' ' at the start, ' ' at the end; '=' and UTF-8 as
 * they are -- except an '=' that was escaped ("\=", "\3D") or quoted,
 * written "\3D" (slapi_dn_normalize_ext escapes every special character
 * it reads escaped or inside quotes, and '=' is one); inside quotes a run
 * of spaces is one space.  Types keep their spelling.  Checked with
 * 389-ds-base 2.3.1: "cn=x + sn=y" -> "cn=x+sn=y", cn="p+q" ->
 * "cn=p\2Bq", "cn=\41bc" -> "cn=Abc", "cn=\ lead" -> "cn=\20lead",
 * "CN=Mixed , O = Org Name" -> "CN=Mixed,O=Org Name", cn="a=b" ->
 * "cn=a\3Db", "cn=e\=f" -> "cn=e\3Df", "cn=i=j" as it is, cn="c  d" ->
 * "cn=c d".  A #-BER value is kept as written.  As 2.3.8 writes entry
 * DNs: "cn=a\20b" as it is (only "\20" among the hex pairs of
 * ordinary characters is kept), and "sn=z2+cn=z1" -> "cn=z1+sn=z2" (the
 * AVAs of a multi-valued RDN in 389's order, sort_avas).
 *
 * Invariants: reads only s[0..n); writes only to out; allocates nothing
 * but out's growth.
 */
#include "dn.h"
#include "internal.h"

#include "buf.h"

/* The escape at s[*i] ('\\'): its byte, *i past it. */
static uint8_t
unescape(const char *s, size_t n, size_t *i)
{
    size_t k = *i;
    int h, l;

    if (k + 2 < n && (h = acreE_hexval(s[k + 1])) >= 0 &&
        (l = acreE_hexval(s[k + 2])) >= 0) {
        *i = k + 3;
        return (uint8_t)(h << 4 | l);
    }
    *i = k + 2;
    return (uint8_t)s[k + 1];
}

/* The value's bytes are kept two to a byte's worth: the byte, and its
 * flags: KEEP when 389 writes it as a pair wherever it is (an '=' that
 * was escaped or quoted, "\3D"; a space written "\20"), LOWER when it
 * was written as a pair with a lower-case hex letter, which 389 copies
 * as written ("\5c"). */
enum { KEEP = 1, LOWER = 2 };

static int
put_byte(struct acreE_buf *v, uint8_t c, unsigned flags)
{
    uint8_t pair[2] = {c, (uint8_t)flags};

    return acreE_buf_put(v, pair, 2);
}

/* 389's order of two AVAs' texts (rdn_av_cmp): ASCII case ignored over
 * the shorter length, then the shorter first. */
static int
ava_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    for (size_t k = 0; k < an && k < bn; k++) {
        int x = a[k] >= 'A' && a[k] <= 'Z' ? a[k] + 32 : a[k];
        int y = b[k] >= 'A' && b[k] <= 'Z' ? b[k] + 32 : b[k];
        if (x != y)
            return x - y;
    }
    return (an > bn) - (an < bn);
}

/* The AVAs of the RDN written at out->p[r0..) sorted as 389 sorts a
 * multi-valued RDN (sort_rdn_avs: a bubble sort of adjacent AVAs, by
 * ava_cmp).  Every '+' there separates two AVAs: put_value escapes a
 * value's own. */
static int
sort_avas(struct acreE_buf *out, size_t r0)
{
    uint8_t local[256];
    struct acreE_buf t;
    int swapped = 1, rc = 0;

    if (!memchr(out->p + r0, '+', out->len - r0))
        return 0;
    acreE_buf_init(&t, local, sizeof local);
    while (swapped && !rc) {
        uint8_t *p = out->p, *a = p + r0, *e = p + out->len;
        swapped = 0;
        for (;;) {
            uint8_t *a_end = memchr(a, '+', (size_t)(e - a));
            if (!a_end)
                break;
            uint8_t *b = a_end + 1, *b_end = memchr(b, '+', (size_t)(e - b));
            size_t an = (size_t)(a_end - a), bn;
            if (!b_end)
                b_end = e;
            bn = (size_t)(b_end - b);
            if (ava_cmp(a, an, b, bn) > 0) { /* a+b -> b+a */
                t.len = 0;
                if (acreE_buf_put(&t, a, an)) {
                    rc = ACRE_ERR_NOMEM;
                    break;
                }
                memmove(a, b, bn);
                a[bn] = '+';
                memcpy(a + bn + 1, t.p, an);
                swapped = 1;
                a += bn + 1; /* the AVA moved on is compared again */
            } else {
                a = b;
            }
        }
    }
    acreE_buf_free(&t);
    return rc;
}

/* v[0..vn) (pairs, put_byte) as a value of 389's stored form. */
static int
put_value(struct acreE_buf *out, const uint8_t *pv, size_t vn)
{
    static const char hex[] = "0123456789ABCDEF", lower[] = "0123456789abcdef";

    for (size_t k = 0; k < vn; k++) {
        uint8_t c = pv[2 * k], f = pv[2 * k + 1];
        int esc = c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' ||
                  c == '>' || c == ';' || c == 0 || (f & KEEP) ||
                  (k == 0 && (c == '#' || c == ' ')) ||
                  (k + 1 == vn && c == ' ');
        const char *h = f & LOWER ? lower : hex;
        char pair[3] = {'\\', h[c >> 4], h[c & 15]};
        if (esc ? acreE_buf_put(out, pair, 3) : acreE_buf_putc(out, c))
            return ACRE_ERR_NOMEM;
    }
    return 0;
}

/* acreD_text_389 -- see dn.h. */
int
acreD_text_389(const char *s, size_t n, struct acreE_buf *out)
{
    uint8_t local[256];
    struct acreE_buf v;
    size_t i = 0, start = out->len;
    int rc = 0;

    acreE_buf_init(&v, local, sizeof local);
    size_t r0 = out->len; /* where the RDN being written starts */
    while (i < n && !rc) {
        size_t t0, t1;

        while (i < n && s[i] == ' ')
            i++;
        t0 = i;
        while (i < n && s[i] != '=' && s[i] != ' ')
            i++;
        t1 = i;
        while (i < n && s[i] == ' ')
            i++;
        if (i == n || s[i] != '=' || t1 == t0) {
            rc = ACRE_ERR_INVAL;
            break;
        }
        i++;
        while (i < n && s[i] == ' ')
            i++;
        v.len = 0;
        if (acreE_buf_put(out, s + t0, t1 - t0) || acreE_buf_putc(out, '=')) {
            rc = ACRE_ERR_NOMEM;
            break;
        }
        if (i < n && s[i] == '#') { /* BER: as written, to the separator */
            size_t b = i;
            while (i < n && s[i] != ',' && s[i] != '+' && s[i] != ';' &&
                   s[i] != ' ')
                i++;
            if (acreE_buf_put(out, s + b, i - b))
                rc = ACRE_ERR_NOMEM;
            while (i < n && s[i] == ' ')
                i++;
        } else if (i < n && s[i] == '"') {
            for (i++; i < n && s[i] != '"' && !rc;) {
                int space = s[i] == ' ';
                uint8_t c = s[i] == '\\' && i + 1 < n ? unescape(s, n, &i)
                                                      : (uint8_t)s[i++];
                if (space && v.len >= 2 && v.p[v.len - 2] == ' ')
                    continue; /* a run of spaces is one */
                rc = put_byte(&v, c, c == '=' ? KEEP : 0) ? ACRE_ERR_NOMEM : 0;
            }
            if (!rc && i == n)
                rc = ACRE_ERR_INVAL;
            for (i++; i < n && s[i] == ' ';)
                i++;
            if (!rc)
                rc = put_value(out, v.p, v.len / 2);
        } else {
            size_t keep = 0; /* v up to its last significant byte */
            while (i < n && s[i] != ',' && s[i] != '+' && s[i] != ';' && !rc) {
                int escaped = s[i] == '\\' && i + 1 < n;
                /* 389 leaves a space's pair "\20" as written */
                int hex20 =
                    escaped && i + 2 < n && s[i + 1] == '2' && s[i + 2] == '0';
                size_t at = i;
                uint8_t c = escaped ? unescape(s, n, &i) : (uint8_t)s[i++];
                unsigned f = (escaped && c == '=') || hex20 ? KEEP : 0;
                if (i == at + 3 && ((s[at + 1] >= 'a' && s[at + 1] <= 'f') ||
                                    (s[at + 2] >= 'a' && s[at + 2] <= 'f')))
                    f |= LOWER;
                rc = put_byte(&v, c, f) ? ACRE_ERR_NOMEM : 0;
                if (escaped || c != ' ')
                    keep = v.len / 2;
            }
            if (!rc)
                rc = put_value(out, v.p, keep);
        }
        if (!rc && (i == n || s[i] != '+')) /* the RDN's end */
            rc = sort_avas(out, r0);
        if (!rc && i < n) {
            if (s[i] != ',' && s[i] != '+' && s[i] != ';')
                rc = ACRE_ERR_INVAL;
            else if (acreE_buf_putc(out, s[i] == '+' ? '+' : ','))
                rc = ACRE_ERR_NOMEM;
            else if (++i == n)
                rc = ACRE_ERR_INVAL; /* a separator with nothing after */
            if (s[i - 1] != '+')
                r0 = out->len;
        }
    }
    acreE_buf_free(&v);
    if (rc)
        out->len = start;
    return rc;
}
