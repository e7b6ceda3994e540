/*
 * schema_int.h -- the private layout of a schema, shared by schema.c (the
 * registry: ids, lookups, loading, freezing), schema_parse.c (the input
 * formats and the RFC 4512 description parser) and schema_builtin.c (the
 * built-in definitions).  Never installed; the tests may include it.
 *
 * Invariants of an acre_schema between two calls:
 *   - attrs[0..nattrs) and classes[0..nclasses) are complete: every
 *     reference (SUP, MUST, MAY) is an id below the count, inherited fields
 *     are filled in, and no SUP chain is longer than ACRES_MAX_DEPTH;
 *   - the two name indexes hold every name and OID of those arrays;
 *   - the class bitmaps (`bits`) match the arrays;
 *   - a load either changes nothing or moves the schema from one such
 *     state to the next (every allocation happens before the switch);
 *   - once `frozen` is set nothing changes any more.
 */
#ifndef ACRE_SCHEMA_INT_H
#define ACRE_SCHEMA_INT_H

#include "schema.h"

#include "acre.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ACRES_MAGIC 0x53636d61u /* "amcS" */

/* Limits: what one load may contain, so hostile input has bounded cost. */
#define ACRES_MAX_INPUT   (16u << 20) /* bytes of one file or buffer */
#define ACRES_MAX_DEF     (1u << 20)  /* bytes of one definition */
#define ACRES_MAX_TOKEN   255         /* bytes of a name or an OID */
#define ACRES_MAX_NAMES   32          /* NAMEs of one definition */
#define ACRES_MAX_LIST    1024        /* entries of one SUP/MUST/MAY list */
#define ACRES_MAX_ATTRS   32768       /* attribute types in a schema */
#define ACRES_MAX_CLASSES 8192        /* object classes in a schema */
#define ACRES_MAX_MACROS  16384       /* objectidentifier macros */
#define ACRES_MAX_SYNTAX  16384       /* syntaxes defined by ldapsyntax */
#define ACRES_MAX_DEPTH   32          /* length of a SUP chain */

/* Rule slots of an attribute type, in the order of enum acreM_usage - 1. */
enum { ACRES_EQ = 0, ACRES_ORD = 1, ACRES_SUB = 2 };

/*
 * Matching rules are numbered in one space: 1 .. ACREM_COUNT-1 are the
 * rules of match.h, which acre can evaluate; ACREM_COUNT + i is entry i of
 * acreS_extra_rules, rules slapd knows by name that acre cannot evaluate
 * (a type using one has ACREM_NONE in its public field).  0 is none.
 */
struct acreS_rule_info {
    const char *name;
    const char *oid;
    int usage; /* enum acreM_usage */
};
extern const struct acreS_rule_info acreS_extra_rules[];
extern const unsigned acreS_nextra_rules;

/* Syntax OIDs slapd has built in that match.h does not list. */
extern const char *const acreS_extra_syntaxes[];
extern const unsigned acreS_nextra_syntaxes;

/* The built-in definitions, in load order (schema_builtin.c). */
struct acreS_part {
    const char *name; /* e.g. "core": reported in diagnostics */
    const char *text; /* OpenLDAP .schema syntax */
};
extern const struct acreS_part acreS_builtin_parts[];
extern const unsigned acreS_nbuiltin_parts;

/* 389 Directory Server's own types and classes (schema_389.c, generated):
 * what ACRE_SCHEMA_389 starts from instead of the parts above. */
extern const char acreS_389_part[];
extern const char acreS_389_acre_part[]; /* and acre's pseudo-attributes */

/* ------------------------------------------------------------------------
 * The registry
 */
struct acreS_attrx {
    struct acreS_attr pub;     /* first: acreS_attr() hands out &pub */
    const char *const *lnames; /* names[] lowercased */
    int rule[3];               /* EQ/ORD/SUB in the one rule space above */
    unsigned depth;            /* length of the SUP chain above it */
    int replaceable; /* built-in, and a slapd without it would take the
                        first definition given: one may replace it (a
                        definition loaded, the same or not, ends that) */
};

struct acreS_classx {
    struct acreS_class pub;
    const char *const *lnames;
    const uint64_t *anc; /* bitmap over class ids: itself and ancestors */
    unsigned depth;
};

/*
 * A name index: names of 1..8 bytes live in `sh`, packed into a word
 * (byte j in bits 8j..8j+7, lowercase), so a lookup is one multiplicative
 * hash, one probe (the table is at most a quarter full) and one 64-bit
 * compare; longer names and OIDs live in `lg` with their hash.
 */
struct acreS_sslot {
    uint64_t key; /* 0: empty */
    int32_t id;
    uint32_t len;
};

struct acreS_lslot {
    const char *key; /* lowercase; NULL: empty */
    uint32_t len;
    uint32_t hash;
    int32_t id;
};

struct acreS_index {
    struct acreS_sslot *sh;
    uint32_t shmask, shbits;
    struct acreS_lslot *lg;
    uint32_t lgmask;
};

struct acreS_macro {
    const char *name; /* as written; compared case-insensitively */
    const char *oid;  /* numeric, already expanded */
};

/* An attribute option slapd.conf's attributeoptions (cn=config:
 * olcAttributeOptions) defines (ad.c ad_define_option): a tagging
 * option, or a prefix of them when it ends in '-' or '=' */
struct acreS_optdef {
    const char *name; /* as written; compared case-insensitively */
    unsigned len;
};

struct acre_schema {
    struct acreS_hot hot; /* first (schema.h): the magic, then what is
                             derived from attrs */
    int frozen;           /* read and set atomically */
    struct acreS_attrx *attrs;
    unsigned nattrs;
    struct acreS_classx *classes;
    unsigned nclasses;
    struct acreS_index ai, ci;
    struct acreS_macro *macros;
    unsigned nmacros;
    const char **syntaxes; /* OIDs defined by ldapsyntax / ldapSyntaxes */
    unsigned nsyntaxes;
    /* the options attributeoptions defined; optdefs_set 0: none yet, and
     * slapd's default, "lang-" alone, stands (the first directive
     * replaces it) */
    struct acreS_optdef *optdefs;
    unsigned noptdefs;
    int optdefs_set;
    uint64_t *bits; /* per class: all_must, all_may, anc */
    unsigned awords, cwords;
    int top; /* class id of `top`, or -1 */
    struct acreS_known known;
    int profile;      /* enum acreE_profile: how values are prepared */
    int syntax_match; /* ACRE_SCHEMA_SYNTAX_MATCH: rules a type lacks
                         are its syntax's (acreS_rules) */
    int is389;        /* ACRE_SCHEMA_389: ~= as 389 matches it */
    /* descriptions with options (acreS_desc_intern): one per schema
     * object, made with it, never copied from another schema */
    struct acreS_descs *descs;
};

/*
 * The descriptions with options of a frozen schema.  Id nattrs + k is
 * chunk[k / ACRES_DESC_CHUNK][k % ACRES_DESC_CHUNK]; a chunk pointer and
 * the records in it are written once, under `lock`, before the id is
 * handed out, and never again.  `ix` (under `lock`) maps a description's
 * type and options to its id: open addressing, id + 1, 0 empty.
 */
#define ACRES_DESC_CHUNK  1024u
#define ACRES_DESC_CHUNKS (ACRE_SCHEMA_MAX_DESCS / ACRES_DESC_CHUNK)

struct acreS_descs {
    pthread_mutex_t lock;
    unsigned n; /* records given */
    struct acreS_dinfo *chunk[ACRES_DESC_CHUNKS];
    uint32_t *ix;
    uint32_t ixmask; /* 0: no table yet */
};

/* ------------------------------------------------------------------------
 * One load: the parser fills a stage, the registry checks and commits it.
 */

/* Where a definition's text is in the input, to report line:column. */
struct acreS_where {
    size_t off;    /* .schema: offset of the text in the input */
    unsigned line; /* LDIF: line of the attribute (0 for .schema) */
    unsigned skip; /* LDIF: bytes dropped from the value's start */
};

/* A reference as written (not NUL-terminated) and where it is. */
struct acreS_ref {
    const char *s; /* NULL when absent */
    uint32_t n;
    uint32_t pos; /* byte offset in the definition's text */
};

struct acreS_atdef {
    struct acreS_where where;
    const char *oid; /* numeric, macros expanded */
    uint32_t oid_pos;
    const char **names;
    uint32_t *name_pos;
    unsigned nnames;
    const char *desc;
    struct acreS_ref sup;
    struct acreS_ref rule[3];
    const char *syntax; /* numeric, expanded; NULL when absent */
    uint32_t syntax_pos;
    unsigned syntax_len;
    unsigned flags;
    enum acreS_usage usage;
};

struct acreS_ocdef {
    struct acreS_where where;
    const char *oid;
    uint32_t oid_pos;
    const char **names;
    uint32_t *name_pos;
    unsigned nnames;
    const char *desc;
    struct acreS_ref *sup, *must, *may;
    unsigned nsup, nmust, nmay;
    enum acreS_kind kind;
    unsigned flags;
};

/* An option of attributeoptions, with where it was written. */
struct acreS_optstage {
    struct acreS_optdef def;
    struct acreS_where where;
    size_t pos;
};

struct acreS_stage {
    void *mem;  /* scratch: freed when the load ends */
    void *keep; /* child of mem, stolen by the schema on success */
    const acre_schema *s;
    const char *file; /* for diagnostics, may be NULL */
    const char *text; /* the whole input */
    size_t len;
    acre_diag *diag;
    struct acreS_atdef *at;
    unsigned nat, atcap;
    struct acreS_ocdef *oc;
    unsigned noc, occap;
    struct acreS_macro *mac;
    unsigned nmac, maccap;
    const char **syn;
    unsigned nsyn, syncap;
    struct acreS_optstage *opt; /* attributeoptions, in order */
    unsigned nopt, optcap;
};

/*
 * acreS_parse -- read st->text (format recognised from the content) into
 * st.  Returns 0, ACRE_ERR_NOMEM or an ACRE_ERR_SCHEMA_* code with
 * st->diag filled.  Checks syntax only; references are left to the caller.
 */
int acreS_parse(struct acreS_stage *st);

/*
 * acreS_fail -- report an error at byte `pos` of the definition text
 * described by `w` (line, column and input offset computed from
 * st->text).  Returns code.
 */
int acreS_fail(struct acreS_stage *st, const struct acreS_where *w, size_t pos,
               int code, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/*
 * acreS_macro_find -- the OID a macro name stands for (the stage's own
 * macros first, then the schema's), or NULL.
 */
const char *acreS_macro_find(const struct acreS_stage *st, const char *name,
                             size_t n);

/*
 * acreS_builtin_error -- why the built-in schema could not be built (the
 * diagnostic of the failing load), for the tests; NULL when it was built.
 */
const acre_diag *acreS_builtin_error(void);

/* acreS_is_descr / acreS_is_numericoid -- RFC 4512 lexical checks. */
int acreS_is_descr(const char *s, size_t n);
int acreS_is_numericoid(const char *s, size_t n);

/*
 * acreS_rule_find -- a matching rule by name (case-insensitive) or OID in
 * the one rule space above; 0 when unknown.  acreS_rule_name and
 * acreS_rule_usage give its name and enum acreM_usage (NULL / 0 for 0).
 */
int acreS_rule_find(const char *s, size_t n);
const char *acreS_rule_name(int rule);
int acreS_rule_usage(int rule);

#endif /* ACRE_SCHEMA_INT_H */
