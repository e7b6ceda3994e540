/*
 * ldif_out.h -- `acre search`'s output, written as ldapsearch -LLL writes
 * it (OpenLDAP 2.5's ldapsearch, checked against it: see
 * tests/golden/search-ldif-*):
 *   - an empty value is written `name:`; a value goes in base64
 *     (`name:: ...`) when it starts with a byte that is not a graphic
 *     ASCII character or is ':' or '<', ends with a non-graphic one, or
 *     holds a byte that is not printable ASCII (NUL included); a
 *     userPassword value, and a value of a description that holds
 *     ";binary" (as spelt, case-sensitive: libldap's strstr), always;
 *   - lines are folded at the wrap width: the `name: ` part is never
 *     broken; before each further byte, a line already `wrap` bytes long
 *     is ended and continued with "\n ";  ldapsearch's default (and
 *     ldif-wrap=0) is 78; ldif-wrap=no does not fold;
 *   - DNs in slapd's own text (cli_dn_slapd).
 */
#ifndef ACRE_CLI_LDIF_OUT_H
#define ACRE_CLI_LDIF_OUT_H

#include <stddef.h>
#include <stdio.h>

#define CLI_LDIF_WRAP_DEFAULT 78 /* what ldapsearch folds at by default */
#define CLI_LDIF_WRAP_NONE    0  /* ldif-wrap=no */

/*
 * cli_ldif_wrap -- parse the value of `-o ldif-wrap=V` as ldapsearch
 * does: "no" (CLI_LDIF_WRAP_NONE), or a decimal number of 32 bits, 0
 * meaning the default.  Returns 0 and sets *wrap, or -1 when V is none
 * of these or is 1 (ldapsearch 2.5.13 dies on 1).
 */
int cli_ldif_wrap(const char *v, unsigned long *wrap);

/*
 * cli_ldif_line -- write `name: value` (or `name:: base64`, see above)
 * on f, folded at wrap (CLI_LDIF_WRAP_NONE: unfolded), with its newline.
 * Returns 0, or -1 when out of memory (nothing written).
 */
int cli_ldif_line(FILE *f, unsigned long wrap, const char *name,
                  const void *val, size_t len);

/*
 * cli_dn_slapd -- acre's pretty DN text (acre_dn_pretty) as slapd writes
 * the same DN: a character a value escapes is written as a hex pair
 * ("\2C", "\2B", "\3B", "\3C", "\3E", "\22", "\5C", a leading "\23" or
 * "\20", a trailing "\20"), an '=' inside a value as "\3D"; everything
 * else (types, '#' inside a value, non-ASCII UTF-8) as it is.  Returns a
 * malloc'd NUL-terminated string, or NULL when out of memory.  In
 * dn_slapd.c, which depends on nothing else.
 */
char *cli_dn_slapd(const char *pretty);

#endif /* ACRE_CLI_LDIF_OUT_H */
