/*
 * directory.h -- the in-memory directory: entries loaded from LDIF,
 * indexed by normalised DN, linked into a tree.
 *
 * It is the embedded directory the CLI and the tests run on, and it answers
 * the questions rules ask of other entries (find an entry by DN, read an
 * attribute, list a group's members).  Loading is all-or-nothing per call;
 * once loaded, a directory is read-only and may be shared by threads.
 */
#ifndef ACRE_DIRECTORY_H
#define ACRE_DIRECTORY_H

#include "acre.h"
#include "entry.h"

#include <stddef.h>
#include <stdint.h>

struct acreE_dir;

/*
 * A directory entry (the public acre_entry): its view first, then what
 * only the directory keeps.  The view's attributes are in LDIF order (the
 * first line of each description), their values in LDIF order, with
 * normalised forms for every type that has an equality rule; host_data
 * is the entry itself.
 */
struct acreE_entry {
    acre_entry_view v;                /* first: an entry is its view */
    const char *const *desc;          /* [v.nattrs] each as first written */
    const uint32_t *desc_len;         /* [v.nattrs] */
    uint32_t id;                      /* position in load order */
    uint32_t line;                    /* LDIF line of its dn:, 0 if none */
    const struct acreE_entry *parent; /* tree links, set by the directory */
    const struct acreE_entry *first_child;
    const struct acreE_entry *next_sibling;
    uint32_t nchildren;
    uint32_t nsubs; /* entries in its subtree, itself included */
    const struct acreE_entry *first_sorted; /* children in dn2id order */
    const struct acreE_entry *next_sorted;
    const char *dn_stored; /* ACRED_DIR_389: its DN as 389 stores it (the
                              LDIF's text, acreD_text_389), else NULL */
    uint32_t dn_stored_len;
    uint32_t db; /* loaded under a policy (acreE_dir_set_holder): the index
                    + 1 of the database holding it, else 0 */
};

/* acreE_entry_of -- the directory entry a directory view belongs to. */
static inline const struct acreE_entry *
acreE_entry_of(const acre_entry_view *v)
{
    return (const struct acreE_entry *)v->host_data;
}

/* Flags for acreE_dir_new() */
/* unknown attribute types are errors, not warnings */
#define ACRED_DIR_STRICT        0x1u
/* values of one attribute equal under its equality rule are refused (the
 * LDAP add rule) instead of kept (slapadd's rule) */
#define ACRED_DIR_STRICT_VALUES 0x2u
/* entries stored as 389-DS stores them: DN values in its form
 * (acreD_text_389), no structuralObjectClass added */
#define ACRED_DIR_389           0x4u

/*
 * acreE_dir_new -- an empty directory over `schema` (NULL: built-in),
 * which it freezes.  Returns 0 or ACRE_ERR_NOMEM.
 */
int acreE_dir_new(void *mem_ctx, const acre_schema *schema, unsigned flags,
                  struct acreE_dir **out);

/*
 * acreE_dir_load_ldif -- add every entry of an LDIF file (path "-" is
 * standard input) or, when path is NULL, of text[0..len) named `name`.
 * Entries may come in any order as long as each entry's parent is in the
 * directory once the whole input is read (a parent missing from both the
 * input and the directory is ACRE_ERR_LDIF_NO_PARENT, unless the entry is
 * a suffix: an entry none of whose ancestors exist starts a new tree).
 * Checks every DN, attribute type (unknown: warning, or error when strict)
 * and value (syntax), and normalises every value.  As slapadd does: two
 * values of one attribute with equal normalised forms, or two values of a
 * SINGLE-VALUE type, are errors (ACRE_ERR_LDIF_VALUE); an RDN value missing
 * from the entry's attributes is added to them.  A suffix of an earlier
 * load becomes the child of an entry of this input that is its parent.
 * On any error nothing of this input is added.  Warnings are counted in
 * *nwarnings (may be NULL) and the first one is described in warn (may be
 * NULL). Returns 0 or an ACRE_ERR_LDIF_* code with diag filled.
 */
int acreE_dir_load_ldif(struct acreE_dir *d, const char *path, const char *text,
                        size_t len, const char *name, unsigned *nwarnings,
                        acre_diag *warn, acre_diag *diag);

/*
 * acreE_dir_set_progress -- have later loads into d call fn(arg, name,
 * records, offset) every ACRED_PROGRESS_EVERY records staged: the input's
 * name, the records of that input staged so far and the byte offset
 * reached in its file (0 for text input or a stream without offsets).
 * fn NULL: no calls.  fn must not touch d.
 */
#define ACRED_PROGRESS_EVERY 4096

typedef void (*acreE_progress_fn)(void *arg, const char *name, size_t records,
                                  uint64_t offset);

void acreE_dir_set_progress(struct acreE_dir *d, acreE_progress_fn fn,
                            void *arg);

/*
 * acreE_dir_set_holder -- have later loads into d refuse an entry for
 * which fn(arg, dn) returns 0: no database of a policy holds it (slapadd's
 * "not configured to hold"); else fn returns the index + 1 of the
 * database that does, kept as the entry's db: a search then orders each
 * database's entries as that database's back-mdb does, and an entry's
 * subordinates are those of its own database.  fn NULL: no check.  fn
 * must not touch d.
 */
typedef int (*acreE_holder_fn)(void *arg, const acre_dn *dn);

void acreE_dir_set_holder(struct acreE_dir *d, acreE_holder_fn fn, void *arg);

const acre_schema *acreE_dir_schema(const struct acreE_dir *d);
size_t acreE_dir_count(const struct acreE_dir *d);

/* acreE_dir_find -- the entry named dn, or NULL. */
const struct acreE_entry *acreE_dir_find(const struct acreE_dir *d,
                                         const acre_dn *dn);

/*
 * acreE_dir_matched -- the deepest existing entry at or above dn (the
 * matchedDN of a noSuchObject result), or NULL when none.
 */
const struct acreE_entry *acreE_dir_matched(const struct acreE_dir *d,
                                            const acre_dn *dn);

/*
 * acreE_dir_host -- d's host lookups (acre.h: acre_host): get, search and
 * has_children over its entries, generation 0.  Lives as long as d.
 */
const acre_host *acreE_dir_host(const struct acreE_dir *d);

/*
 * acreE_dir_is_host -- 1 when h is a directory's (acreE_dir_host: its
 * views are directory entries, acreE_entry_of), else 0.  Any thread.
 */
int acreE_dir_is_host(const acre_host *h);

/*
 * acreE_dir_walk -- call fn for each entry within `scope` of `base`, the
 * base first, then the others in load order (by entry ID, as back-mdb and
 * 389's back-ldbm return them).  fn returns 0 to go on, anything else to
 * stop (that value is returned).  Returns 0, fn's value,
 * ACRE_ERR_NO_SUCH_OBJECT when base is missing, or ACRE_ERR_NOMEM.
 */
typedef int (*acreE_visit_fn)(void *ctx, const struct acreE_entry *e);

int acreE_dir_walk(const struct acreE_dir *d, const acre_dn *base, int scope,
                   acreE_visit_fn fn, void *ctx);

/*
 * acreE_dir_search -- acreE_dir_walk in the order the server d stands
 * for returns a search (the host's search): by entry ID for 389
 * (ACRED_DIR_389) and for a subtree search from a database's root; any
 * other one-level, subtree or children search in back-mdb's dn2id order
 * when no index narrows its candidates: the base's children (by the
 * length, then the bytes, of slapd's normalised RDN), then the same below
 * each child with children, in that order.  From the root DN, when no
 * entry has it, every naming context: one level the tree roots in load
 * order, a subtree every entry by ID (ACRED_DIR_389: tree after tree, in
 * load order).  Same returns.
 */
int acreE_dir_search(const struct acreE_dir *d, const acre_dn *base, int scope,
                     acreE_visit_fn fn, void *ctx);

/* acreE_dir_suffixes -- the roots of the trees (entries with no parent). */
const struct acreE_entry *const *acreE_dir_suffixes(const struct acreE_dir *d,
                                                    size_t *n);

#endif /* ACRE_DIRECTORY_H */
