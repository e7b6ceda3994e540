/*
 * entry.h -- how the engine reads an entry: through the entry view a host
 * presents (acre.h: acre_entry_view), never through a layout of its own.
 *
 * A view's attributes are in the host's order; an attribute is an
 * interned description id (type and options: schema.h, acreS_dinfo) and
 * values as stored, with their normalised forms when the host has them.
 * Everything here reads views and allocates nothing, except that
 * normalising a value longer than the caller's buffer moves that buffer to
 * the heap (buf.h; the caller frees it).
 *
 * The in-memory directory (directory.c) is one producer of views: its
 * entries carry their normalised values.
 */
#ifndef ACRE_ENTRY_H
#define ACRE_ENTRY_H

#include "acre.h"
#include "buf.h"
#include "schema.h"

#include <stddef.h>
#include <stdint.h>

/* acreE_attr_info -- the description (type, options) of attribute a. */
static inline const struct acreS_dinfo *
acreE_attr_info(const acre_schema *s, const acre_view_attr *a)
{
    return acreS_desc_of(s, a->id);
}

/* acreE_attr_type -- the type id of attribute a (-1 for a bad id). */
static inline int
acreE_attr_type(const acre_schema *s, const acre_view_attr *a)
{
    const struct acreS_dinfo *d = acreS_desc_of(s, a->id);

    return d ? d->type : -1;
}

/*
 * acreE_entry_attr -- the attribute of e whose description is type `type`
 * alone (no options), or NULL.  A scan of the view.
 */
const acre_view_attr *acreE_entry_attr(const acre_entry_view *e, int type);

/*
 * acreE_norm_stored -- append to out the form a stored value v[0..n) of
 * attribute type `type` (with a rule) is compared in: its equality rule's,
 * as the server normalised it when it stored it (acreM_normalise_stored:
 * under slapd's schema, a value of a rule slapd has no normaliser for is
 * kept as written, an IA5 value may hold any byte), save objectClass and
 * structuralObjectClass, whose values slapd looks up as classes.  The
 * one normaliser of stored values: the loader, acreE_value_norm and
 * acre_value_normalise all use it.  Returns acreM_normalise's codes.
 */
int acreE_norm_stored(const acre_schema *s, int type, const uint8_t *v,
                      size_t n, struct acreE_buf *out);

/*
 * acreE_value_norm -- value j of attribute a as normalised by its type's
 * equality rule (acreE_norm_stored): the host's norms[j] when it gave
 * them, else normalised now into b (emptied first).  NULL when the type
 * has no equality rule or the value is not valid for it (such a value
 * never matches equality).  *len receives the length.
 */
const uint8_t *acreE_value_norm(const acre_schema *s, const acre_view_attr *a,
                                unsigned j, struct acreE_buf *b, size_t *len);

/*
 * acreE_attr_has_value -- 1 when attribute a holds a value whose
 * normalised form is norm[0..n), else 0.
 */
int acreE_attr_has_value(const acre_schema *s, const acre_view_attr *a,
                         const uint8_t *norm, size_t n);

/*
 * acreE_entry_has_value -- 1 when attribute `type` (no options) of e holds
 * a value whose normalised form is norm[0..n), else 0.
 */
int acreE_entry_has_value(const acre_schema *s, const acre_entry_view *e,
                          int type, const uint8_t *norm, size_t n);

/*
 * acreE_norm_cmp -- an order of normalised values: shorter first, then
 * bytewise.  <0, 0 or >0; equal means the same value.
 */
int acreE_norm_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

/*
 * acreE_view_check -- is view e usable under schema s: its schema is s,
 * its DN is set, and every attribute has an id s gave and at least one
 * value?  1 yes, 0 no.  A scan of the attribute ids only.
 */
int acreE_view_check(const acre_schema *s, const acre_entry_view *e);

#endif /* ACRE_ENTRY_H */
