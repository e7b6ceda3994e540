/*
 * test_host.h -- a host of the embedding interface (acre.h: entry views
 * and acre_host) that keeps entries in structures of its own, as a
 * directory server does, for the tests that hold the engine to the
 * reference evaluators through the path servers use.
 *
 * A host is filled once from an in-memory directory (the data source the
 * tests already have): every entry is copied into the host's own arrays,
 * its attribute descriptions are resolved by their text through
 * acre_schema_attr_id, as a server would resolve them, and then:
 *   - attributes come in an order of the host's own (shuffled by a seed),
 *     so that nothing may assume the directory's order;
 *   - normalised values are handed over, or not (THOST_NO_NORMS: acre
 *     normalises what it needs itself);
 *   - lookups go through its own index; with THOST_COPY every view get()
 *     returns is a fresh copy that release() frees, and the host counts
 *     those outstanding, so that a view acre forgets to release, or uses
 *     after releasing it, shows (thost_outstanding, and ASan).
 * Faults can be injected: get() and search() fail from the n-th call on.
 */
#ifndef ACRE_TEST_HOST_H
#define ACRE_TEST_HOST_H

#include "acre.h"

#include <stddef.h>
#include <stdint.h>

#define THOST_NO_NORMS 0x1u /* hand over no normalised values */
#define THOST_COPY     0x2u /* get() returns a copy release() frees */

struct thost;

/*
 * thost_new -- a host holding copies of every entry of dir (whose schema
 * it uses), attributes shuffled by seed (0: kept in the directory's
 * order).  Freed with ctx.  Asserts on failure.
 */
struct thost *thost_new(void *ctx, const acre_directory *dir, uint64_t seed,
                        unsigned flags);

/* thost_host -- the lookup table to hand acre_request_begin. */
const acre_host *thost_host(struct thost *h);

/* thost_view -- the host's own view of the entry named dn, or NULL. */
const acre_entry_view *thost_view(const struct thost *h, const acre_dn *dn);

/* thost_entry -- the directory entry the view was copied from. */
const acre_entry *thost_entry(const acre_entry_view *v);

/* thost_count -- entries held. */
size_t thost_count(const struct thost *h);

/* thost_fail_after -- make get() and search() fail (return -1) from their
 * n-th call on, counting from now (0: never fail). */
void thost_fail_after(struct thost *h, unsigned n);

/* thost_calls -- get() and search() calls since the host was made. */
unsigned thost_calls(const struct thost *h);

/* thost_outstanding -- views get() handed out and release() did not take
 * back (THOST_COPY). */
long thost_outstanding(const struct thost *h);

/* thost_set_generation -- the generation acre_host carries. */
void thost_set_generation(struct thost *h, uint64_t gen);

/*
 * thost_replace_values -- give entry dn's attribute with description desc
 * (as the host resolves it) the values vals[0..n) instead (no normalised
 * forms), as a server's modify would; the host's generation must then
 * change for acre to see it in cached answers.  0, or -1 when there is no
 * such entry or attribute.
 */
int thost_replace_values(struct thost *h, const acre_dn *dn, const char *desc,
                         const char *const *vals, unsigned n);

#endif /* ACRE_TEST_HOST_H */
