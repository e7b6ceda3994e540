/*
 * bench_host.h -- a host of the embedding interface for the benchmarks:
 * entries a server keeps in structures of its own (a copy of each entry
 * of a directory: its acre_dn, attributes in reverse order, values and
 * their normalised forms, as slapd hands over a_vals and a_nvals), with
 * the lookups acre asks for.  The rows that compare the host path with
 * the directory path decide the same entries through both.
 */
#ifndef ACRE_BENCH_HOST_H
#define ACRE_BENCH_HOST_H

#include <acre.h>
#include <stddef.h>

struct bhost;

/* bhost_new -- copies of every entry of dir, under ctx; NULL when memory
 * runs out.  with_norms 0: no normalised forms (acre makes them). */
struct bhost *bhost_new(void *ctx, const acre_directory *dir, int with_norms);

/* bhost_host -- the lookups, for acre_request_begin. */
const acre_host *bhost_host(const struct bhost *h);

/* bhost_view -- the host's view of the entry named dn, or NULL. */
const acre_entry_view *bhost_view(const struct bhost *h, const acre_dn *dn);

#endif /* ACRE_BENCH_HOST_H */
