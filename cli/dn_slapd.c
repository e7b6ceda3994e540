/*
 * dn_slapd.c -- cli_dn_slapd (ldif_out.h): acre's pretty DN text as slapd
 * writes the same DN.  On its own, with no dependency, so that the slapd
 * differential (tests/differential/acl_acre.c) prints DNs as acre search
 * does.
 */
#include "ldif_out.h"

#include <stdlib.h>
#include <string.h>

/* put_hex -- c as slapd's "\XX". */
static char *
put_hex(char *o, unsigned char c)
{
    static const char hx[] = "0123456789ABCDEF";

    *o++ = '\\';
    *o++ = hx[c >> 4];
    *o++ = hx[c & 15];
    return o;
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* cli_dn_slapd -- see ldif_out.h.  acre's pretty text escapes a special
 * character as "\c" and a byte it cannot show as "\xx"; a value runs
 * from the '=' after its type to the next unescaped ',' or '+'. */
char *
cli_dn_slapd(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1), *o = out;
    int in_value = 0;

    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
            hexval(s[i + 2]) >= 0) {
            o = put_hex(
                o, (unsigned char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
            i += 2;
        } else if (c == '\\' && i + 1 < n) {
            o = put_hex(o, (unsigned char)s[++i]);
        } else if (!in_value) {
            in_value = c == '=';
            *o++ = (char)c;
        } else if (c == ',' || c == '+') {
            in_value = 0;
            *o++ = (char)c;
        } else if (c == '=') {
            o = put_hex(o, c);
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    return out;
}
