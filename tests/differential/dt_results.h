/*
 * dt_results.h -- reading what the slapd harness (slapd.sh) recorded, and
 * the records of an LDIF file, for the differential test drivers.
 *
 * The harness output is a sequence of blocks, one per search, in the
 * order of the search list:
 *
 *     # search 7
 *     dn: cn=John Smith,ou=People,dc=example,dc=com
 *     dn:: <base64 of a non-ASCII DN>
 *     # rc 0
 *
 * where rc is ldapsearch's exit status: the LDAP result code (0, 32
 * noSuchObject, ...) or 249 when ldapsearch itself rejected the filter.
 * Any other line (ldapsearch's blank lines, attributes) is ignored.
 */
#ifndef DT_RESULTS_H
#define DT_RESULTS_H

#include <stddef.h>

struct dt_result {
    int rc;
    char **dns; /* as returned, base64 undone */
    unsigned ndns, cap;
};

void dt_result_add(struct dt_result *r, const char *dn, size_t n);
void dt_result_free(struct dt_result *r);

/* dt_results_read -- every block of the file at path; *n blocks.  Dies
 * on a malformed file. */
struct dt_result *dt_results_read(const char *path, unsigned *n);
void dt_results_free(struct dt_result *v, unsigned n);

/* One LDIF record: its DN (decoded) and its text (the lines, unchanged). */
struct dt_record {
    char *dn;
    char *text;
};

/* dt_ldif_records -- split unfolded LDIF text into records (separated by
 * blank lines); a block that does not start with dn: is skipped. */
struct dt_record *dt_ldif_records(const char *text, unsigned *n);
void dt_records_free(struct dt_record *v, unsigned n);

#endif /* DT_RESULTS_H */
