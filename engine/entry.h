/*
 * entry.h -- the engine's model of a directory entry: a DN and attributes,
 * each value kept as stored and as normalised by its type's equality rule.
 *
 * Entries are built once (LDIF load, or a host adapter) and never change
 * afterwards; evaluation reads them without locks.  Attributes are sorted
 * by type id, then by options, so lookups are a binary search.
 */
#ifndef ACRE_ENTRY_H
#define ACRE_ENTRY_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>

struct acreE_value {
    const uint8_t *val; /* as stored (not NUL-terminated) */
    uint32_t len;
    const uint8_t *norm; /* by the type's equality rule; NULL when the type
                            has none (such values never match equality) */
    uint32_t nlen;
};

struct acreE_attr {
    int type;         /* schema attribute id */
    const char *desc; /* description as written: "cn;lang-en" */
    uint32_t desc_len;
    uint32_t nopts; /* options, lowercased and sorted */
    const char *const *opts;
    const uint32_t *opt_len;
    uint32_t nvals;
    const struct acreE_value *vals;
    /* vals[order[0]], vals[order[1]], ... ascend by acreE_norm_cmp of their
     * normalised forms (for binary search); NULL when not computed (e.g.
     * the type has no equality rule, or a host built the entry). */
    const uint32_t *order;
};

struct acreE_entry {
    const acre_dn *dn;
    uint32_t nattrs;
    const struct acreE_attr *attrs; /* sorted by (type, options) */
    uint32_t id;                    /* position in load order */
    uint32_t line;                  /* LDIF line of its dn:, 0 if none */
    /* tree links, set by the directory */
    const struct acreE_entry *parent;
    const struct acreE_entry *first_child;
    const struct acreE_entry *next_sibling;
    uint32_t nchildren;
};

/*
 * acreE_entry_attr -- the attribute of type `type` with no options, or
 * NULL.  Binary search.
 */
const struct acreE_attr *acreE_entry_attr(const struct acreE_entry *e,
                                          int type);

/*
 * acreE_entry_find_first -- index of the first attribute with type `type`
 * (any options) or e->nattrs when none; the others follow it.
 */
uint32_t acreE_entry_find_first(const struct acreE_entry *e, int type);

/*
 * acreE_attr_has_value -- 1 when attribute a holds a value whose normalised
 * form is norm[0..n), else 0 (binary search through a->order when set).
 */
int acreE_attr_has_value(const struct acreE_attr *a, const uint8_t *norm,
                         size_t n);

/*
 * acreE_entry_has_value -- 1 when attribute `type` (no options) holds a
 * value whose normalised form is norm[0..n), else 0.
 */
int acreE_entry_has_value(const struct acreE_entry *e, int type,
                          const uint8_t *norm, size_t n);

/*
 * acreE_norm_cmp -- the order of normalised values used by acreE_attr.order:
 * shorter first, then bytewise.  <0, 0 or >0; equal means the same value.
 */
int acreE_norm_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

#endif /* ACRE_ENTRY_H */
