/*
 * dn_types.h -- attribute types as the DN parser sees them: a canonical
 * name and an equality rule.
 *
 * Until the schema module lands, a built-in table of the naming attributes
 * of core, cosine, inetorgperson and nis answers; acreD_type_find() is the
 * one seam the schema will take over.
 */
#ifndef ACRE_DN_TYPES_H
#define ACRE_DN_TYPES_H

#include "prep.h"

#include <stddef.h>
#include <stdint.h>

#define ACRED_TYPE_NAME_MAX 256 /* longer type names are rejected */

struct acreD_type {
    const char *name;  /* canonical spelling, for the pretty form */
    const char *lname; /* lowercased, for the normalised form */
    uint8_t len;       /* bytes of name and of lname */
    uint8_t mr;        /* enum acreE_mr: the equality rule */
    uint8_t lower;     /* 1 when name is already all lowercase */
};

/*
 * acreD_type_find -- the type named by s[0..n) (a name, an alias or a
 * numeric OID, case-insensitive), or NULL when unknown.  The result is
 * static.  Any thread.
 */
const struct acreD_type *acreD_type_find(const char *s, size_t n);

/*
 * acreD_type_packed -- acreD_type_find for a name of 1 to 8 bytes given as
 * its packed key: byte j of the name, OR 0x20, in bits 8j..8j+7 (the DN
 * parser builds the key while it scans the name).  Any thread.
 */
const struct acreD_type *acreD_type_packed(uint64_t key);

#endif /* ACRE_DN_TYPES_H */
