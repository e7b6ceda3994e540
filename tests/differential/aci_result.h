/*
 * aci_result.h -- the answers of the 389-DS ACI differential suite, and
 * their normal form.
 *
 * Both sides write one block per search, in the order of the case's
 * `searches` file (tests/differential/aci.sh):
 *
 *     # search 7
 *     dn: uid=alice,ou=people,dc=example,dc=com
 *     cn: Alice Smith
 *     userPassword:: cHctYWxpY2U=
 *
 *     # rc 0
 *
 * the LDIF being what `ldapsearch -LLL -o ldif-wrap=no` (389's side) or
 * `acre search --dialect aci -o ldif-wrap=no` (acre's side) printed, and rc
 * the program's exit status (the LDAP result code).
 *
 * The normal form makes the two comparable: entries sorted by DN, the DN
 * in lower case without spaces around `,` and `=`; in each entry the
 * attribute lines sorted, names in lower case, values base64-decoded
 * (non-printable bytes written as \XX); attributes 389 keeps for its own
 * bookkeeping (creatorsName, nsUniqueId, entryid, entryUUID, ...) dropped
 * (not numSubordinates, hasSubordinates and entrydn, which acre computes),
 * as the slapd suite drops operational attributes.  Values are compared as
 * text, never under a matching rule.
 *
 * Two answers agree when their normal forms are equal and so are their
 * exact forms: the blocks as printed, without those bookkeeping
 * attributes, so that entry and attribute order and the attribute names
 * as spelt (389 echoes a requested name as the client wrote it) count too.
 * The normal form says what differs; the exact form, how it is shown.
 */
#ifndef ACI_RESULT_H
#define ACI_RESULT_H

struct aci_answer {
    int rc;
    unsigned nentries;
    char *norm;  /* the normal form, one text */
    char *raw;   /* the block as read */
    char *exact; /* raw without 389's own attributes: order and spelling */
};

/* aci_answers_read -- every block of the file at path, in order; *n
 * blocks.  Dies on a malformed file. */
struct aci_answer *aci_answers_read(const char *path, unsigned *n);
void aci_answers_free(struct aci_answer *v, unsigned n);

#endif /* ACI_RESULT_H */
