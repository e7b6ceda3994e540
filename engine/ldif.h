/*
 * ldif.h -- a streaming RFC 2849 reader of content records.
 *
 * The reader holds one record at a time (its lines unfolded, base64
 * decoded), so memory stays bounded by the largest record, whatever the
 * file's size.  It knows nothing of schemas: the directory loader checks
 * types and values.  Change records and `:<` URL values are errors naming
 * the line (ACRE_ERR_LDIF_UNSUPPORTED).
 *
 * What it accepts: an optional `version: 1` first; LF or CR LF line ends;
 * a line starting with one space continues the previous one (also inside
 * a multi-byte character, and for comments); `#` comment lines anywhere;
 * records separated by one or more blank lines (a line of spaces alone
 * counts as blank); `desc: value`, `desc:: base64`, `desc:` (empty), with
 * options (`cn;lang-en`).  A plain value is taken as written after the
 * spaces that follow the colon, trailing spaces included (RFC 2849
 * SAFE-STRING); one starting with ':' or '<', or holding NUL or CR, must
 * be base64.  Errors carry the physical line and column of the offending
 * byte, past any folds.
 */
#ifndef ACRE_LDIF_H
#define ACRE_LDIF_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ACREL_MAX_LINE   (16u << 20)  /* one unfolded line: 16 MiB */
#define ACREL_MAX_RECORD (256u << 20) /* one record's text: 256 MiB */

struct acreL_reader;

struct acreL_attrval {
    const char *desc; /* attribute description as written */
    size_t desc_len;
    const uint8_t *val; /* decoded value (base64 already undone) */
    size_t len;
    unsigned line; /* line where the attribute starts */
    /* Where the value's text starts on `line`, for column numbers in
     * diagnostics: col is 1-based, 0 when the value was base64-encoded or
     * starts on a continuation line; the first `span` bytes of the value
     * are on that line, the rest on continuation lines. */
    unsigned col;
    size_t span;
    /* acreL_set_slapd: 1 when the base64 stopped at a byte outside the
     * alphabet (libldap's decoder failed, in place: the value is what it
     * decoded before it, and its text is not ended there) */
    unsigned cut;
};

struct acreL_record {
    const char *dn; /* decoded DN text, NUL-terminated */
    size_t dn_len;
    unsigned line;   /* line of the dn: */
    unsigned dn_col; /* as col and span of acreL_attrval, for the DN */
    size_t dn_span;
    size_t nvals;
    const struct acreL_attrval *vals;
};

/*
 * acreL_open -- a reader over `f` (not closed by the reader), or over
 * text[0..len) when f is NULL.  `name` is used in diagnostics.
 * Returns 0 or ACRE_ERR_NOMEM.
 */
int acreL_open(void *mem_ctx, FILE *f, const char *text, size_t len,
               const char *name, struct acreL_reader **out);

/*
 * acreL_set_slapd -- read attribute value lines as slapd's LDIF reader
 * (libldap ldif_parse_line2, as slapadd uses it) reads them, not as RFC
 * 2849 has them: a plain value may start with ':' or '<'; base64 is
 * decoded four letters at a time up to the first padding or the first
 * byte outside the alphabet, and what was decoded before that is the
 * value; "desc::" with no base64 at all is an error.  A base64 DN is
 * decoded so too, up to its padding, but a byte outside the alphabet
 * before that is an error (slapadd refuses an entry whose DN line it
 * cannot decode); a plain DN keeps the RFC's rules.  White space
 * before a line's description is skipped, so a record's first line may
 * start with spaces (ldif_read_record takes it as the record's start,
 * not as a continuation) and any line with a tab.
 */
void acreL_set_slapd(struct acreL_reader *r);

/*
 * acreL_next -- the next record.  Returns 1 with *rec filled (valid until
 * the next call), 0 at the end, or a negative ACRE_ERR_LDIF_* code with
 * diag naming file, line and column.
 */
int acreL_next(struct acreL_reader *r, struct acreL_record *rec,
               acre_diag *diag);

/*
 * acreL_on_comment -- call fn(arg, line, s, n) for the first physical
 * line of each comment as it is skipped: s[0..n) is the line from its '#'
 * without CR LF (valid during the call only), `line` its number.  A
 * comment's continuation lines are not shown.  fn returns 0, or
 * ACRE_ERR_NOMEM to end reading with that error.
 * Set before the first acreL_next.
 */
void acreL_on_comment(struct acreL_reader *r,
                      int (*fn)(void *arg, unsigned line, const char *s,
                                size_t n),
                      void *arg);

/* acreL_desc_is -- is av's description `name`, in any case, without
 * options (a rule-file reader's test of an attribute it reads)? */
int acreL_desc_is(const struct acreL_attrval *av, const char *name);

/* acreL_close -- free the reader (also freed with its talloc parent). */
void acreL_close(struct acreL_reader *r);

#endif /* ACRE_LDIF_H */
