/*
 * ldif_out.c -- LDIF records as ldapsearch -LLL prints them
 * (ldif_out.h): the base64 rule and line folding (slapd's DN text is
 * in dn_slapd.c).
 */
#include "ldif_out.h"

#include "load.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* cli_ldif_wrap -- see ldif_out.h. */
int
cli_ldif_wrap(const char *v, unsigned long *wrap)
{
    char *end;
    unsigned long long n;

    if (!strcmp(v, "no")) {
        *wrap = CLI_LDIF_WRAP_NONE;
        return 0;
    }
    if (*v < '0' || *v > '9')
        return -1;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (errno || *end || n > 0xffffffffull || n == 1)
        return -1;
    *wrap = n == 0 ? CLI_LDIF_WRAP_DEFAULT : (unsigned long)n;
    return 0;
}

static int
is_graph(unsigned char c)
{
    return c > 0x20 && c < 0x7f;
}

/* needs_base64 -- ldapsearch's rule (ldif_out.h), for a value that is
 * not empty. */
static int
needs_base64(const char *name, const unsigned char *v, size_t n)
{
    if (!strcasecmp(name, "userPassword") || !strcmp(name, "2.5.4.35") ||
        strstr(name, ";binary"))
        return 1;
    if (!is_graph(v[0]) || v[0] == ':' || v[0] == '<' || !is_graph(v[n - 1]))
        return 1;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0x20 || v[i] >= 0x7f)
            return 1;
    return 0;
}

/* put_folded -- s[0..n) after a line prefix of col bytes, folded. */
static void
put_folded(FILE *f, unsigned long wrap, size_t col, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (wrap != CLI_LDIF_WRAP_NONE && col >= wrap) {
            fputs("\n ", f);
            col = 1;
        }
        putc(s[i], f);
        col++;
    }
    putc('\n', f);
}

/* cli_ldif_line -- see ldif_out.h. */
int
cli_ldif_line(FILE *f, unsigned long wrap, const char *name, const void *val,
              size_t len)
{
    char *b64 = NULL;
    size_t blen = 0;
    FILE *m;

    if (len == 0) { /* ldapsearch: the name and a colon, nothing else */
        fprintf(f, "%s:\n", name);
        return 0;
    }
    if (!needs_base64(name, val, len)) {
        fprintf(f, "%s: ", name);
        put_folded(f, wrap, strlen(name) + 2, val, len);
        return 0;
    }
    if (!(m = open_memstream(&b64, &blen)))
        return -1;
    cli_base64(m, val, len);
    if (fclose(m)) {
        free(b64);
        return -1;
    }
    fprintf(f, "%s:: ", name);
    put_folded(f, wrap, strlen(name) + 3, b64, blen);
    free(b64);
    return 0;
}
