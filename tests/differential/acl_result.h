/*
 * acl_result.h -- the answers of one side of the access-control suite,
 * as written (slapd.out, acre.out), and their normal form.
 *
 * Raw form, one block per search of the case's searches file, in order:
 *
 *     # search 7
 *     conn IP=127.0.0.1:41234 IP=127.0.0.1:25001 ldap://127.0.0.1:25001/
 *     bind 0
 *     result 32
 *     matched: ou=People,dc=example,dc=com
 *     text: ...
 *     dn: uid=u1,ou=People,dc=example,dc=com
 *     cn: Ann Lee
 *     userPassword:: c2VjcmV0MQ==
 *
 * "conn" (slapd.out only: the connection's peer name, socket name and
 * listener URL, which acre's requester is given) and "bind" (a requester
 * that binds with a password: the bind's result code; the search is only
 * made when it is 0) are optional; "result" is the LDAP result code, or
 * libldap's negative code for an error on the client side; "matched" and
 * "text" are there when the server sent them; then each entry as LDIF.
 *
 * Normal form, what is compared: the result code (a client-side filter
 * error, -7, counts as filterError, 87); the bind code; the matched DN and
 * each entry's DN as text, not re-normalised (slapd's own form on both
 * sides: acre's side prints it as acre search does, cli_dn_slapd); each
 * attribute named as printed when the schema knows its type (both sides
 * print slapd's form: the type's first name, then the options lowercased
 * and sorted), else lowercased; operational attributes dropped but
 * entryDN, subschemaSubentry and hasSubordinates, computed alike (slapd
 * keeps its own bookkeeping there); each value normalised by its
 * equality rule, but DN-valued ones as text; attributes and values in
 * the order returned (the entry's stored order); entries in the order
 * returned (back-mdb's: acre's directory host orders a search as it
 * does).  "text" is shown, never compared.
 */
#ifndef ACL_RESULT_H
#define ACL_RESULT_H

#include "dt_util.h"

#include "acre.h"

#include <stdio.h>

/* One raw answer, as read or as made by acre. */
struct acl_raw {
    char *conn; /* NULL when absent */
    int bind;   /* -1: no bind line */
    int rc;
    char *matched; /* NULL when absent */
    char *text;
    char *ldif; /* the entries, LDIF text */
};

/* acl_raw_write -- append r's block number n (1-based) to out. */
void acl_raw_write(struct dt_str *out, unsigned n, const struct acl_raw *r);

/* acl_raw_read -- every block of file path, under talloc ctx; *n blocks.
 * Dies on a malformed file. */
struct acl_raw *acl_raw_read(void *ctx, const char *path, unsigned *n);

/*
 * acl_normal -- r in normal form, as lines of text joined by '\n': the
 * header ("bind N", "result N", "matched DN"), then for each entry
 * "dn: DN" and its "  attr: value" lines.  A talloc string under ctx.
 * Values that are not printable ASCII are written with \xx escapes.
 */
char *acl_normal(void *ctx, const acre_schema *schema, const struct acl_raw *r);

/* acl_diff -- print to f the lines of normal forms a (slapd) and b (acre)
 * that differ, "-" for a, "+" for b, with each entry's dn line for
 * context; at most max lines. */
void acl_diff(FILE *f, const char *a, const char *b, unsigned max);

/* acl_count_entries -- the number of "dn:" lines of a normal form. */
unsigned acl_count_entries(const char *normal);

#endif /* ACL_RESULT_H */
