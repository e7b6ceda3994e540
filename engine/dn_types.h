/*
 * dn_types.h -- an attribute type as the DN parser sees it: a canonical
 * name and the preparation of its equality rule.
 *
 * The schema (engine/schema.h) hands these out: every attribute type of a
 * schema carries one (acreS_attr()->dn), and acreS_dn_type() /
 * acreS_dn_type_packed() look them up by name for the DN parser.
 */
#ifndef ACRE_DN_TYPES_H
#define ACRE_DN_TYPES_H

#include "prep.h"

#include <stddef.h>
#include <stdint.h>

#define ACRED_TYPE_NAME_MAX 256 /* longer type names are rejected */

struct acreD_type {
    const char *name;  /* canonical spelling, for the pretty form */
    const char *lname; /* lowercased, for the normalised form; NULL for a
                          type the schema does not know (lowercased on
                          output) */
    uint8_t len;       /* bytes of name and of lname */
    uint8_t mr;        /* enum acreE_mr: the equality preparation */
    uint8_t lower;     /* 1 when name is already all lowercase */
    uint8_t syn;       /* enum acreM_syn the value must also fit under
                          slapd's profile, where the preparation of mr
                          does not check it (countryName's two printable
                          characters); 0: none */
    uint64_t lkey;     /* lname packed as the schema's short keys are (byte
                          j in bits 8j..8j+7) when len <= 8, else 0: one
                          compare tells the normalised spelling */
    uint64_t nkey;     /* name packed the same way (0 when len > 8): the
                          fast paths write either with one 8-byte store */
};

#endif /* ACRE_DN_TYPES_H */
