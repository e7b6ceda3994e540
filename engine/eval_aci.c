/*
 * eval_aci.c -- deciding checks under an ACI policy (389-DS's model, the
 * default, with OpenDJ's differences where the policy asks for them).
 *
 * A check of right R on entry E (an attribute, or the entry itself):
 *   1. candidates: the perms of the holders among E's ancestors, E
 *      included (aci_index.h: one hash probe per level of E's DN), made once
 *      per entry and kept in the request's scratch;
 *   2. a perm applies when its rights cover R, its ACI's targets match E
 *      (target DN or pattern, targetscope, targetfilter: once per entry
 *      and ACI) and its targetattr covers the attribute (an ACI without
 *      targetattr governs the entry itself only);
 *   3. deny first: an applicable deny whose bind rule is True or
 *      Undefined denies; then an applicable allow whose bind rule is True
 *      grants; nothing applicable denies.
 * Bind rules are three-valued (True, False, Undefined).  Those that do
 * not read the entry are decided once per request and kept per perm;
 * group and role membership of the requester once per request and group.
 *
 * Fail closed: a lookup that fails or memory that runs out while a check
 * is decided denies it (rq->err keeps the code for the caller); an
 * Undefined deny denies.
 */
#include "aci_index.h"

#include "cos.h"
#include "dn.h"
#include "entry.h"
#include "eval.h"
#include "filter.h"
#include "internal.h"
#include "match.h"
#include "policy.h"
#include "schema.h"
#include "url.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <time.h>

/* Bind-rule results (0: not known yet, in memos): True, False, and the
 * two ways 389 fails to evaluate -- Undefined (its LAS_EVAL_FAIL: a
 * failed lookup or setup) and Invalid (LAS_EVAL_INVALID: an operator or
 * value the keyword cannot evaluate), which its deny phase tells apart
 * (ACREP_ACI_ORDERED) */
#define T 1
#define F 2
#define U 3
#define I 4

#define GROUP_NEST 5 /* 389: members this many levels below a group */
#define ROLE_NEST  8 /* nested roles followed this deep */

/* A membership answered for this request: group (or role) DN -> result */
struct memo_dn {
    char *ndn;
    size_t len;
    uint8_t kind; /* 'g' group, 'r' role (normalised DN); 'G', 'R' the
                     same for a userattr value as it is stored; 'n' an
                     entry found to be no group (normalised DN) */
    uint8_t r;
};

/*
 * The walk memo (vm_walk, 389 only).  A check walks the entry's
 * candidates (fixed by the deepest holder above it) for one right and
 * one attribute type; what it asks of the entry itself on the way is a
 * short list: the targets of ACIs with a target, targetscope or
 * targetfilter, the bind rules decided per entry (userattr, self,
 * macros: perm_bind's slot 3), which ACIs of the anonymous profile take
 * it.  Everything else is the request's: rules, requester, and the
 * answers 389 keeps for the operation from the first entry that asked
 * (perm_bind's slots 0 to 2), which never change once made (389's
 * per-ACI answers, acache, can: such a change turns the memos off for
 * the rest of the request).  So a walk is a function of the answers to those
 * questions in the order it asks them: a variant records them (deps) with the
 * walk's answer.  For another entry under the same holder, the same check
 * follows the variant when the entry's answers to the variant's questions,
 * asked in that order, are the variant's; each question asked is one its own
 * walk would ask (the two agree up to there), so nothing is evaluated that
 * would not be, and 389's keep-the-first-answer rule sees the same
 * entries ask.  A walk during which a lookup or an allocation failed is
 * not recorded; nor are writes (their values), moddn (its target_to),
 * descriptions with options or explained checks.
 */
#define VM_BUCKETS  4096u      /* walks: hash buckets */
#define VM_WALKS    16384u     /* at most, per request */
#define VM_VARIANTS 8u         /* at most, per walk */
#define VM_DEPS     64u        /* at most, per variant */
#define VM_BYTES    (4u << 20) /* at most, per request (walks, variants) */
#define VM_ENTRY    (-1)       /* vm_walk's type: the entry itself */
#define VM_DENIED   (-2)       /* vm_walk's type: entry_denied */

enum { DEP_TGT = 1, DEP_BIND, DEP_ANON };

struct vm_dep {
    uint8_t kind; /* DEP_* */
    uint8_t r;    /* TGT, ANON: T/F; BIND: T/F/U */
    uint32_t idx; /* TGT: ACI number; BIND: perm; ANON: profile ACI */
};

struct vm_variant {
    struct vm_variant *next;
    uint32_t ndeps;
    uint8_t r;            /* the walk's answer */
    struct vm_dep deps[]; /* [ndeps] */
};

struct vm_walk {
    struct vm_walk *next;
    uint32_t holder; /* deepest holder + 1, 0 none */
    int type;        /* attribute type, VM_ENTRY, VM_DENIED */
    unsigned rights;
    unsigned nv;
    struct vm_variant *v;
};

/*
 * The shape memo (389 only, entry verdicts: acreV_aci_verdict, from the
 * request's second entry).  The walk memo above still matches variants
 * once per attribute (about ten per entry); an entry verdict reads one
 * right on every attribute, and what the walks of all its attributes
 * ask of the entry is, again, a short list of the same questions.  So
 * a verdict's answers are kept in a tree per deepest holder: a node
 * asks a question (a dep, as a variant has them), a child per answer
 * (T, F, U); a node keeps the read answers (attribute type, readable)
 * and the entry_denied answer of the walks that asked only questions on
 * the path to it, with the answers on that path.  An entry goes down
 * its holder's tree asking each node's question and collecting what
 * the nodes keep, until every type it has is known and entry_denied too
 * (or the tree ends).  A check still unknown walks (decide_ or
 * entry_denied_, recorded): when it asked nothing the path did not, its
 * answer is kept at the node below the deepest path question it asked;
 * else those questions are appended below the last node reached, in
 * the order asked, and the answer kept at the new end.  An entry that
 * reaches a node answers the questions above it as the entry that
 * stored there did, so the walks kept there go the same way for it (the
 * walk memo's argument, struct vm_walk).  Going down asks questions of
 * the entry that its own walks might not: targets, per-entry bind rules
 * (perm_bind's slot 3) and the profile ACIs' targets, answers which
 * hold per entry and are kept per entry only (nothing 389 keeps for the
 * operation is asked); if one fails, the entry is begun again in a new
 * epoch and decided by the walks (sm_begin).  Bounded: SM_BYTES a
 * request, SM_PATH nodes an entry's path; past them nothing more is
 * stored, and what is kept still answers.
 */
#define SM_BYTES   (4u << 20)  /* at most, per request */
#define SM_CHUNK   (64u << 10) /* allocated at a time */
#define SM_PATH    1024u       /* at most, nodes on an entry's path */
#define SM_HOLDERS (1u << 16)  /* policies with more holders: no memo */
#define SM_NEW     UINT32_MAX  /* sm_pos: asked first by the walk recorded */

/* A read answer kept at a node: type << 1 | readable. */
struct sm_ans {
    struct sm_ans *next;
    uint32_t tr;
};

struct sm_node {
    struct vm_dep q;          /* the question asked here; kind 0: none */
    struct sm_node *child[4]; /* by its answer: T, F, U, I */
    struct sm_ans *ans;       /* read answers kept here */
    uint8_t denied;           /* entry_denied's answer kept here (T, F), or 0 */
};

struct acreV_aci_rq {
    uint8_t *bind;         /* [nperms * 3]: bind outcomes kept (perm_bind) */
    uint8_t *acache;       /* [nacis]: what 389 keeps of an ACREP_ACI_STATE
                              ACI's answers (AC_*, acache_kept) */
    int stepping;          /* acache_step is walking an ACI: no other step */
    int asking;            /* a memo asks the entry: no step (acache_step) */
    uint8_t *ebind;        /* [nperms]: the outcomes perm_bind keeps for the
                              current entry only (valid when ebind_epoch is
                              the epoch) */
    uint32_t *ebind_epoch; /* [nperms] */
    uint8_t *tgt;          /* [nacis]: target verdict for the current entry */
    uint32_t *tgt_epoch;   /* [nacis] */
    uint8_t *fres;         /* [nfids]: a targetfilter's result (enum
                              acreF_result) on the current entry */
    uint32_t *fres_epoch;  /* [nfids] */
    uint8_t *fplain;       /* [nfids]: 0 not known yet, 1 acreF_plain
                              takes the filter, 2 not */
    struct acreF_hooks fhooks; /* the targetfilters' (acreV_filter_hooks) */
    const char **macro;        /* [nacis]: what a "($dn)" target matched in the
                                  current entry's DN (valid when tgt is T) */
    void *scratch;             /* per entry: macro values, expansions */
    uint32_t *hold;            /* [max_depth + 1]: the holders above the
                                  current entry, E included, top first */
    uint32_t nhold;
    uint32_t *cand; /* [nperms]: the current entry's candidates */
    uint32_t ncand;
    int cand_ok; /* cand[] is made for the current entry */
    /* cand[] split for the rights of the checks being made (decide):
     * the deny perms then the allow perms that have one of them, each
     * in cand[]'s order; made for split_rights (0: none) and the
     * entries whose deepest holder is split_holder (holder below): the
     * candidates are the perms of that holder and of those above it */
    uint32_t *split; /* [nperms] */
    uint32_t ndeny, nsplit;
    uint32_t nmixed;  /* allows in split[] of ACIs that also deny */
    uint8_t first[2]; /* the deny / allow part has an ACREP_ACI_FIRST perm:
                         decide it in 389's order (ordered_part) */
    unsigned split_rights;
    uint32_t split_holder;
    uint8_t *opts; /* [nacis]: how the ACI's targetattr takes a type:
                      0 not known yet, OPTS_BITS / OPTS_NOTBITS its
                      attr_in bit alone (it names no description with
                      options and no pattern; "!=" for NOTBITS),
                      OPTS_FULL the whole of attr_match */
    uint32_t epoch;
    struct memo_dn *memo;
    unsigned nmemo, memo_cap;
    int root; /* the requester is the root DN */
    /* proxied authorization (389): the request of the bound DN, which
     * needs the proxy right on each entry checked, or NULL */
    struct acre_request *px;
    char *px_dn;     /* the entry px's proxy right was last granted on
                        (normalised DN, ACRE_DN_MAX_LEN + 1 bytes) */
    size_t px_len;   /* its length + 1, 0 none */
    uint32_t holder; /* the current entry's deepest holder + 1, 0 none */
    /* anon_takes, for the entry of anon_epoch: profile ACIs decided,
     * taking it (bit k: anon[k]); anon_rec: recorded by the walk being
     * recorded */
    uint64_t anon_done, anon_mask, anon_rec;
    uint32_t anon_epoch;
    /* the walk memo */
    struct vm_walk **vm; /* [VM_BUCKETS], NULL until first used */
    unsigned vm_nwalks;
    size_t vm_bytes; /* kept in walks and variants so far */
    unsigned nbegin; /* entries begun (saturating): the memo from 2 */
    int vm_off;      /* the memo could not be made: none */
    int rec;         /* a walk is being recorded (rec_put) */
    uint32_t rec_no; /* which (a new number for each) */
    struct vm_dep deps[VM_DEPS]; /* its questions so far */
    uint32_t ndeps;
    uint32_t *rec_tgt;  /* [nacis], [nperms]: the rec_no a question was */
    uint32_t *rec_bind; /* recorded in, not to record it twice */
    /* the shape memo */
    struct sm_node **sm_root; /* [nholders + 1], by holder + 1 */
    uint32_t *sm_known;       /* [ntypes]: the type's read answer was
                                 collected for the entry of this epoch */
    uint8_t *sm_read;         /* [ntypes]: that answer */
    uint32_t *sm_need;        /* [ntypes]: the entry of this epoch has it */
    uint32_t *sm_at;          /* [ntypes]: as its attribute sm_at[type] */
    uint32_t tm_epoch;        /* the epoch whose entry sm_need / sm_at map
                                 whole (acreF_typemap's contract), or 0 */
    uint32_t sm_missing;      /* its types not known yet */
    struct sm_node **sm_path; /* [SM_PATH]: the nodes it went through */
    uint32_t sm_npath;
    /* the path position (sm_path index) of each question asked on it:
     * valid when the rec_tgt / rec_bind mark or anon_rec bit is set */
    uint32_t *sm_pos_tgt;  /* [nacis] */
    uint32_t *sm_pos_bind; /* [nperms] */
    uint32_t sm_pos_anon[ACREP_ACI_ANON_MAX];
    int sm_rec;       /* the walk recorded is the shape memo's */
    uint32_t sm_deep; /* 1 + the deepest path position it asked, or 0 */
    char *sm_chunk;   /* free bytes: sm_chunk[0..sm_left) */
    size_t sm_left, sm_bytes;
    int sm_off; /* not for this policy, or could not be made */
    /* candidates: the holders above the parent of the last entry whose
     * parent was probed (its normalised DN pc_dn[0..pc_len) when
     * pc_ok): hold[0..pc_nhold), the deepest pc_holder */
    char pc_dn[256];
    size_t pc_len;
    uint32_t pc_nhold, pc_holder;
    int pc_ok;
};

/* One check in progress. */
struct ck {
    struct acre_request *rq;
    struct acreV_aci_rq *st;
    const struct acreP_aci *ix;
    const acre_entry_view *e;
    uint32_t aci_no; /* the ACI whose bind rule is evaluated */
    /* a write check's value (targattrfilters): val NULL when none;
     * wkind 'a' add, 'd' delete, 'w' both */
    const void *val;
    size_t val_len;
    int wkind;
    const struct acreV_aci_tracer *tr; /* explained checks only, else NULL */
    int kept; /* explained: perm_bind answered from the request's memo */
    const struct acreP_aci_perm *by; /* explained: the perm that decided */
    unsigned rights; /* OpenDJ: the right checked (dj_userattr) */
    int vm;          /* the walk memo may answer (vm_usable has the rest) */
    /* the shape memo: sm, it answers this entry's read checks; where
     * answers are stored: sm_cur (a node without question), else a node
     * to be made at *sm_at; neither: none are stored; sm_denied, the
     * entry_denied answer found on the way down (0: none) */
    int sm;
    struct sm_node *sm_cur, **sm_at;
    uint8_t sm_denied;
};

/* sm_seen -- the shape memo's walk being recorded asked question
 * (kind, idx), already asked on the entry's path */
static inline void
sm_seen(struct acreV_aci_rq *st, int kind, uint32_t idx)
{
    uint32_t pos = kind == DEP_TGT    ? st->sm_pos_tgt[idx]
                   : kind == DEP_BIND ? st->sm_pos_bind[idx]
                                      : st->sm_pos_anon[idx];

    if (pos != SM_NEW && pos + 1 > st->sm_deep)
        st->sm_deep = pos + 1;
}

/* trace -- hand an event to the tracer (callers test c->tr first: out
 * of line and cold, so that the ordinary path pays the test alone) */
static __attribute__((noinline, cold)) void
trace_ev(struct ck *c, int kind, const struct acreP_aci_perm *p,
         const struct acreI_aci *a, const struct acreI_bind *b, int r, int why,
         int kept)
{
    struct acreV_aci_event ev = {kind, p, a, b, r, why, kept, 0};

    c->tr->fn(c->tr->arg, &ev);
}

static void
trace(struct ck *c, int kind, const struct acreP_aci_perm *p, int r, int why)
{
    trace_ev(c, kind, p, p ? p->aci : NULL, NULL, r, why, 0);
}

static int
tri_not(int r)
{
    return r == T ? F : r == F ? T : r;
}

/* ------------------------------------------------------------------------
 * Request state
 */

static int proxied(const struct acre_request *rq);
static struct acre_request *proxy_request(struct acre_request *rq,
                                          struct acreV_aci_rq *st);

static struct acreV_aci_rq *
state(struct acre_request *rq)
{
    const struct acreP_aci *ix = rq->p->aci;
    struct acreV_aci_rq *st = rq->aci;
    size_t np = ix->nperms ? ix->nperms : 1, na = ix->set->n ? ix->set->n : 1;
    size_t nf = ix->nfids ? ix->nfids : 1;

    if (st)
        return st;
    if (!(st = talloc_zero(rq->mem, struct acreV_aci_rq)) ||
        !(st->bind = talloc_zero_array(st, uint8_t, np * 3)) ||
        !(st->acache = talloc_zero_array(st, uint8_t, na)) ||
        !(st->ebind = talloc_zero_array(st, uint8_t, np)) ||
        !(st->ebind_epoch = talloc_zero_array(st, uint32_t, np)) ||
        !(st->tgt = talloc_zero_array(st, uint8_t, na)) ||
        !(st->tgt_epoch = talloc_zero_array(st, uint32_t, na)) ||
        !(st->fres = talloc_zero_array(st, uint8_t, nf)) ||
        !(st->fres_epoch = talloc_zero_array(st, uint32_t, nf)) ||
        !(st->fplain = talloc_zero_array(st, uint8_t, nf)) ||
        !(st->macro = talloc_zero_array(st, const char *, na)) ||
        !(st->scratch = talloc_new(st)) ||
        !(st->cand = talloc_zero_array(st, uint32_t, np)) ||
        !(st->hold = talloc_zero_array(st, uint32_t, ix->max_depth + 1)) ||
        !(st->split = talloc_zero_array(st, uint32_t, np)) ||
        !(st->opts = talloc_zero_array(st, uint8_t, na)) ||
        !(st->rec_tgt = talloc_zero_array(st, uint32_t, na)) ||
        !(st->rec_bind = talloc_zero_array(st, uint32_t, np))) {
        talloc_free(st);
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    st->root = rq->authz && ix->rootdn && acre_dn_equal(rq->authz, ix->rootdn);
    if (proxied(rq) && !(st->px = proxy_request(rq, st))) {
        talloc_free(st);
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    st->fhooks = acreV_filter_hooks(rq, NULL, NULL);
    rq->aci = st;
    return st;
}

/*
 * Proxied authorization: under ACI rules an authc_dn (even the authz_dn
 * itself) stands for 389's proxied authorization control, authz_dn the
 * DN it names and authc_dn the DN bound.  389 decides the checks for the
 * proxied DN, and before them, on each entry a check first touches, the
 * proxy right of the DN bound (acl_access_allowed, with the proxy
 * pblock): without it every check of the entry is denied.  The bound DN
 * is the directory manager: no proxy right is asked (acl_skip_access_
 * check).  The 389 variant only.
 */
static int
proxied(const struct acre_request *rq)
{
    const struct acreP_aci *ix = rq->p->aci;

    return ix->set->variant == ACREI_ACI_389 && rq->who.authc_dn &&
           !(rq->authc && ix->rootdn && acre_dn_equal(rq->authc, ix->rootdn));
}

/* The request of rq's bound DN, under st (ended with it), or NULL. */
static struct acre_request *
proxy_request(struct acre_request *rq, struct acreV_aci_rq *st)
{
    acre_subject who = rq->who;
    struct acre_request *px;

    who.authz_dn = rq->who.authc_dn;
    who.authc_dn = NULL;
    if (acre_request_begin(rq->p, &who, &rq->host, &px))
        return NULL;
    talloc_steal(st, px);
    return px;
}

/*
 * Has the bound DN of a proxied request the proxy right for a check of
 * attribute d (NULL: the entry itself) on entry e?  1 when the request is
 * not proxied.  389 asks it at each check of an entry until it is
 * granted there, with the attribute that check names (its first touch:
 * acl_access_allowed updates aclpb_curr_entry_sdn only after the proxy
 * check passed), then no more until a check on another entry is granted:
 * the entry granted last is kept.  A failure of the check fails rq's.
 */
static int
proxy_gate(struct acre_request *rq, struct acreV_aci_rq *st,
           const acre_entry_view *e, const struct acreF_desc *d)
{
    struct acre_request *px = st->px;
    size_t n;
    const char *dn = acre_dn_normalised(e->dn, &n);

    if (st->px_len == n + 1 && memcmp(st->px_dn, dn, n) == 0)
        return 1;
    px->limit_hit = 0;
    px->limit_code = 0;
    px->err = 0;
    int g = acreV_aci_check(px, e, d, ACREI_ACI_PROXY);
    if (px->err && !rq->err)
        rq->err = px->err;
    if (px->limit_hit)
        acreV_fail(rq, px->limit_code ? px->limit_code : ACRE_ERR_EVAL_LIMIT);
    if (!g || px->limit_hit || px->err)
        return 0;
    if (n <= ACRE_DN_MAX_LEN &&
        (st->px_dn ||
         (st->px_dn = talloc_size(st, ACRE_DN_MAX_LEN + 1)) != NULL)) {
        memcpy(st->px_dn, dn, n);
        st->px_len = n + 1;
    }
    return 1;
}

void
acreV_aci_operation(struct acre_request *rq)
{
    if (rq->aci)
        rq->aci->px_len = 0;
}

void
acreV_aci_end(struct acre_request *rq)
{
    talloc_free(rq->aci);
    rq->aci = NULL;
}

/* ------------------------------------------------------------------------
 * Patterns: 389 compares DN patterns with the normalised DN text, without
 * case, as a substring filter (acl_match_substring): the parts between
 * '*'s are found in turn, each at its leftmost place after the previous,
 * the last one at the very end.  The first part must start the text for
 * userdn and targetattr patterns ("exact"), but may be anywhere for
 * target patterns.
 */

/* lower -- ASCII lowercase (strncasecmp's folding in the C locale) */
static inline unsigned char
lower(unsigned char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (unsigned char)(ch | 0x20) : ch;
}

/* same_ci -- strncasecmp(s, w, n) == 0, inline: the bytes are equal
 * without ASCII case up to n, or up to a NUL both have */
static inline int
same_ci(const char *s, const char *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char a = (unsigned char)s[i], b = (unsigned char)w[i];
        if (a != b && lower(a) != lower(b))
            return 0;
        if (!a)
            return 1;
    }
    return 1;
}

/* find_ci -- the leftmost w[0..wn) (wn > 0) in s[0..sn), without case */
static const char *
find_ci(const char *s, size_t sn, const char *w, size_t wn)
{
    /* the first byte before the whole comparison */
    unsigned char w0 = lower((unsigned char)w[0]);

    for (size_t i = 0; i + wn <= sn; i++)
        if (lower((unsigned char)s[i]) == w0 && same_ci(s + i, w, wn))
            return s + i;
    return NULL;
}

/*
 * glob_at -- does pattern p[0..pn) take s[0..sn)?  The final part must
 * end s, so the other parts are looked for in s[0..lim) only, lim = sn
 * less its length: each part's leftmost place there is its leftmost
 * place in s whenever the final part can still follow it (else neither
 * way takes s).  The final part is compared last (strncasecmp: long,
 * where the other parts are short).
 */
static int
glob_at(const char *p, size_t pn, const char *s, size_t sn, int exact)
{
    const char *end = p + pn, *star = memchr(p, '*', pn);
    const char *last = star;
    size_t off = 0, lim;

    if (!star) /* no wildcard: the whole text */
        return pn == sn && same_ci(p, s, sn);
    for (const char *q; (q = memchr(last + 1, '*', (size_t)(end - last - 1)));)
        last = q;
    size_t fn = (size_t)(end - last - 1); /* final */
    if (fn > sn)
        return 0;
    lim = sn - fn;
    size_t n = (size_t)(star - p); /* initial */
    if (n) {
        const char *at = exact ? (n <= lim && same_ci(s, p, n) ? s : NULL)
                               : find_ci(s, lim, p, n);
        if (!at)
            return 0;
        off = (size_t)(at - s) + n;
    }
    while (star != last) { /* any parts */
        p = star + 1;
        star = memchr(p, '*', (size_t)(end - p));
        n = (size_t)(star - p);
        if (n) {
            const char *at = find_ci(s + off, lim - off, p, n);
            if (!at)
                return 0;
            off = (size_t)(at - s) + n;
        }
    }
    return !strncasecmp(s + lim, last + 1, fn);
}

/* glob -- an exact (anchored) pattern */
static int
glob(const char *p, size_t pn, const char *s, size_t sn)
{
    return glob_at(p, pn, s, sn, 1);
}

/* ------------------------------------------------------------------------
 * Targets
 */

/* in_scope -- is dn within `scope` of base? */
static int
in_scope(const acre_dn *dn, const acre_dn *base, int scope)
{
    return acre_dn_in_scope(dn, base, scope) == 1;
}

/* macro_prefix -- 389's acl_match_prefix: the RDNs of prefix (each
 * ending in ','; "type=*" takes any value of that type) against the
 * first RDNs of ndn; the length of ndn they cover, or -1. */
static long
macro_prefix(const char *prefix, const char *ndn)
{
    const char *p = prefix, *n = ndn;

    while (*p) {
        const char *pe = strchr(p, ','), *ne = strchr(n, ',');
        if (!pe || !ne)
            return -1;
        size_t pl = (size_t)(pe - p), nl = (size_t)(ne - n);
        if (pl >= 2 && p[pl - 1] == '*' && p[pl - 2] == '=') {
            if (nl < pl - 1 || strncasecmp(p, n, pl - 1))
                return -1;
        } else if (pl != nl || strncasecmp(p, n, pl)) {
            return -1;
        }
        p = pe + 1;
        n = ne + 1;
    }
    return (long)(n - ndn);
}

/* substr_prefix -- where the text after `prefix` ends in ndn: its part
 * before the first '*' found anywhere, then the part after it found
 * further on, at least one byte further; -1 when not */
static long
substr_prefix(const char *prefix, const char *ndn)
{
    const char *star = strchr(prefix, '*'), *at = NULL, *fin;
    size_t il = (size_t)(star - prefix);

    for (const char *p = ndn; !at; p++) { /* strstr of prefix[0..il) */
        if (!strncmp(p, prefix, il))
            at = p;
        else if (!*p)
            return -1;
    }
    if (!(fin = strstr(at + il, star + 1)) || fin == at + il)
        return -1;
    return (long)(fin - ndn) + (long)strlen(star + 1);
}

/*
 * macro_target -- the part of the current entry's DN a "($dn)" target
 * pattern takes (389's acl_match_macro_in_target): the text after
 * "($dn)" must end the DN; the text before it is found in the DN -- RDN
 * by RDN from its start when it has a "type=*" RDN and ends with a whole
 * RDN, as substr_prefix says when it has a '*' and does not, else where
 * it first occurs --, and "($dn)" takes what is left between them, at
 * least one byte; NULL when the target does not take the entry.  In the
 * entry's scratch.
 */
static const char *
macro_target(struct ck *c, const char *pat)
{
    const char *m = strstr(pat, "($dn)");
    size_t nl, sl = 0;
    const char *ndn = acre_dn_normalised(c->e->dn, &nl);
    long start = 0;

    if (!m)
        return NULL;
    const char *suffix = m[5] == ',' ? m + 6 : m + 5;
    if (*suffix) {
        sl = strlen(suffix);
        if (sl >= nl || strcasecmp(suffix, ndn + nl - sl))
            return NULL;
    }
    size_t pl = (size_t)(m - pat);
    if (pl > 0) {
        char *prefix = talloc_strndup(c->st->scratch, pat, pl);
        if (!prefix) {
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
            return NULL;
        }
        if (strstr(prefix, "=*")) {
            /* RDN by RDN when the prefix ends with a whole RDN, else its
             * text before the first '*', then the rest after something
             * (389's acl_match_prefix / acl_match_substr_prefix) */
            start = prefix[pl - 1] == ',' ? macro_prefix(prefix, ndn)
                                          : substr_prefix(prefix, ndn);
        } else {
            const char *at = strstr(ndn, prefix);
            start = at ? (long)(at - ndn) + (long)pl : -1;
        }
        if (start < 0 || (size_t)start >= nl - sl)
            return NULL;
    }
    size_t end = nl - sl;
    if (end > (size_t)start && ndn[end - 1] == ',')
        end--;
    if (end <= (size_t)start)
        return NULL;
    char *v = talloc_strndup(c->st->scratch, ndn + start, end - (size_t)start);
    if (!v)
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
    return v;
}

/* rec_put -- the walk being recorded asked a question of the entry and
 * had answer r: kept once per entry and question (the caller's mark), in
 * order; a walk with more questions than a variant holds is not
 * recorded */
static __attribute__((noinline)) void
rec_put(struct acreV_aci_rq *st, int kind, uint32_t idx, int r)
{
    if (st->ndeps == VM_DEPS) {
        st->rec = 0;
        return;
    }
    st->deps[st->ndeps++] = (struct vm_dep){(uint8_t)kind, (uint8_t)r, idx};
}

/* rec_next -- a new recording: its number marks what it asks (the
 * marks start again when the number wraps) */
static void
rec_next(struct ck *c)
{
    struct acreV_aci_rq *st = c->st;

    if (++st->rec_no == 0) {
        memset(st->rec_tgt, 0,
               sizeof(uint32_t) * (c->ix->set->n ? c->ix->set->n : 1));
        memset(st->rec_bind, 0,
               sizeof(uint32_t) * (c->ix->nperms ? c->ix->nperms : 1));
        st->rec_no = 1;
    }
}

/* sm_mark_new -- (kind, idx) is asked first by the walk recorded for
 * the shape memo: no path position yet */
static inline void
sm_mark_new(struct acreV_aci_rq *st, int kind, uint32_t idx)
{
    if (kind == DEP_TGT)
        st->sm_pos_tgt[idx] = SM_NEW;
    else if (kind == DEP_BIND)
        st->sm_pos_bind[idx] = SM_NEW;
    else
        st->sm_pos_anon[idx] = SM_NEW;
}

/* rec_once -- rec_put, the first time the walk asks (mark) */
static inline void
rec_once(struct acreV_aci_rq *st, uint32_t *mark, int kind, uint32_t idx, int r)
{
    if (*mark != st->rec_no) {
        *mark = st->rec_no;
        if (st->sm_rec)
            sm_mark_new(st, kind, idx);
        rec_put(st, kind, idx, r);
    } else if (st->sm_rec) {
        sm_seen(st, kind, idx);
    }
}

/* the targets that ask something of the entry (else: all of the
 * holder's subtree) */
#define TGT_DYN (ACREI_ACI_T_TARGET | ACREI_ACI_T_SCOPE | ACREI_ACI_T_FILTER)

static int target_eval(struct ck *c, const struct acreI_aci *a, uint32_t no);

/* tfilter -- ACI no's targetfilter on the current entry: once per entry
 * and filter text; through the entry's map of types (sm_begin) when it
 * is made and the filter is plain (acreF_plain), else by acreF_eval */
static enum acreF_result
tfilter(struct ck *c, uint32_t no)
{
    struct acreV_aci_rq *st = c->st;
    uint32_t f = c->ix->fid[no];
    const struct acreF_filter *flt = c->ix->set->acis[no].t.filter;

    if (st->fres_epoch[f] == st->epoch)
        return (enum acreF_result)st->fres[f];
    if (!st->fplain[f])
        st->fplain[f] = acreF_plain(flt) ? 1 : 2;
    if (st->tm_epoch == st->epoch && st->fplain[f] == 1 &&
        !acreV_cos_active(c->rq)) {
        struct acreF_typemap m = {st->sm_need, st->sm_at, st->epoch,
                                  c->ix->attr_words * 64u};
        unsigned long before = acreE_nomem;
        enum acreF_result r = acreF_eval_typed(flt, c->e, &m);
        if (acreE_nomem != before) { /* as acreV_filter_eval */
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
            r = ACREF_UNDEFINED;
        }
        st->fres[f] = (uint8_t)r;
    } else {
        st->fres[f] = (uint8_t)acreV_filter_eval(c->rq, flt, c->e, &st->fhooks);
    }
    st->fres_epoch[f] = st->epoch;
    return (enum acreF_result)st->fres[f];
}

/* replace_all -- text with every `key` (any case, as 389's
 * acl_replace_str) replaced by val (scratch); NULL when out of memory */
static char *
replace_all(struct ck *c, const char *text, const char *key, const char *val)
{
    char *out = talloc_strdup(c->st->scratch, "");
    const char *at;
    size_t k = strlen(key);

    while (out && (at = strcasestr(text, key))) {
        out =
            talloc_asprintf_append(out, "%.*s%s", (int)(at - text), text, val);
        text = at + k;
    }
    return out ? talloc_strdup_append(out, text) : NULL;
}

/* macro_filter1 -- one expansion of a macro targetfilter, tested as 389's
 * acllas_eval_one_target_filter does: slapi_str2filter reads a filter
 * that starts with '(' up to the parenthesis closing it, one that does
 * not as a single item; one it cannot read is Undefined.  The expanded
 * text is the rule's, with DN text of the entry in it: it can only be
 * read here, as a memberURL's filter is. */
static int
macro_filter1(struct ck *c, const char *x)
{
    size_t n = strlen(x);
    struct acreF_filter *f;

    if (!n)
        return F; /* 389 skips an empty expansion */
    int rc = acreF_parse_389_text(c->st->scratch, c->rq->schema, x, n,
                                  c->ix->set->variant == ACREI_ACI_389
                                      ? ACREF_389_NAMES | ACREF_389_PARENS
                                      : 0,
                                  &f);
    if (rc == ACRE_ERR_NOMEM)
        acreV_fail(c->rq, rc);
    if (rc)
        return U;
    enum acreF_result r = acreV_filter_eval(c->rq, f, c->e, &c->st->fhooks);
    return r == ACREF_TRUE ? T : r == ACREF_FALSE ? F : U;
}

/*
 * macro_tfilter -- a targetfilter with "($dn)" or "[$dn]" (389:
 * aclutil_evaluate_macro, ACL_EVAL_TARGET_FILTER): every "($dn)" becomes
 * what the ACI's "($dn)" target took of the entry's DN (mv); with
 * "[$dn]", every one of them becomes mv, then mv from each of its RDNs
 * on (acllas_replace_dn_macro), each text tested in turn until one is
 * not False.
 */
static int
macro_tfilter(struct ck *c, const char *text, const char *mv)
{
    if (!mv)
        return F; /* 389: no matched value, no match */
    char *x = strcasestr(text, "($dn)") ? replace_all(c, text, "($dn)", mv)
                                        : talloc_strdup(c->st->scratch, text);
    if (!x) {
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return U;
    }
    if (!strcasestr(x, "[$dn]"))
        return macro_filter1(c, x);
    int r = F;
    for (const char *m = mv; *m && r == F;) {
        char *y = replace_all(c, x, "[$dn]", m);
        if (!y) {
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
            return U;
        }
        r = macro_filter1(c, y);
        const char *comma = strchr(m, ',');
        m = comma ? comma + 1 : m + strlen(m);
    }
    return r;
}

/* target_match -- do aci's targets take entry e?  Once per entry and
 * ACI (the filter above all: 389 users saw it evaluated per attribute). */
static inline int
target_match(struct ck *c, const struct acreI_aci *a, uint32_t no)
{
    struct acreV_aci_rq *st = c->st;
    int ok = st->tgt_epoch[no] == st->epoch ? st->tgt[no] == T
                                            : target_eval(c, a, no);

    if (st->rec && (a->t.has & TGT_DYN))
        rec_once(st, &st->rec_tgt[no], DEP_TGT, no, ok ? T : F);
    return ok;
}

static int
target_eval(struct ck *c, const struct acreI_aci *a, uint32_t no)
{
    struct acreV_aci_rq *st = c->st;
    const struct acreI_aci_target *t = &a->t;
    const acre_dn *edn = c->e->dn;
    const acre_dn *base = a->holder;
    int ok = 1;

    if (t->has & ACREI_ACI_T_TARGET) {
        int m;
        if (t->target.kind == ACREI_ACI_PAT_DN) {
            m = in_scope(edn, t->target.dn, ACRE_SCOPE_SUB);
            if (!t->target_neg) /* OpenDJ scopes "!=" from the holder */
                base = t->target.dn;
        } else if (t->target.kind == ACREI_ACI_PAT_NONE) {
            m = 0; /* 389: a DN no entry is under */
        } else if (t->target.flags & ACREI_ACI_MACRO_DN) {
            const char *v = macro_target(c, t->target.text);
            st->macro[no] = v;
            m = v != NULL;
        } else {
            size_t n;
            const char *s = acre_dn_normalised(edn, &n);
            m = !t->target.flags &&
                glob_at(t->target.text, t->target.len, s, n, 0);
        }
        ok = t->target_neg ? !m : m;
    }
    if (ok && (t->has & ACREI_ACI_T_SCOPE)) {
        int sc = t->scope;
        /* OpenDJ's onelevel: the children, the target itself excluded */
        ok = in_scope(edn, base, sc);
    }
    if (ok && (t->has & ACREI_ACI_T_FILTER) && !t->filter && t->filter_text) {
        /* a macro targetfilter, expanded for this entry; Undefined (a
         * text 389 cannot read) takes no entry, "!=" or not */
        int r = macro_tfilter(c, t->filter_text, st->macro[no]);
        ok = r == T ? !t->filter_neg : r == F ? t->filter_neg : 0;
    }
    if (ok && (t->has & ACREI_ACI_T_FILTER) && t->filter) {
        enum acreF_result r = tfilter(c, no);
        ok = r == ACREF_TRUE    ? !t->filter_neg
             : r == ACREF_FALSE ? t->filter_neg
             /* OpenDJ's TargetFilter: Undefined is False, then "!=" */
             : c->ix->set->variant == ACREI_ACI_OPENDJ ? t->filter_neg
                                                       : 0;
    }
    st->tgt_epoch[no] = st->epoch;
    st->tgt[no] = ok ? T : F;
    return ok;
}

/* moddn_to -- 389's target_to for a moddn check: the entry checked is
 * the destination, within the target_to DN or matching its pattern (the
 * ACI's "target !=" negating it too, as 389's ACI_TARGET_NOT does).  The
 * source, which a check does not know, is not tested: 389 skips
 * target_from without one (its get-effective-rights has none). */
static int
moddn_to(struct ck *c, const struct acreI_aci *a)
{
    const struct acreI_aci_dnpat *to = &a->t.to;
    int m;

    if (!(a->t.has & ACREI_ACI_T_TO))
        return 1;
    if (to->kind == ACREI_ACI_PAT_DN) {
        m = in_scope(c->e->dn, to->dn, ACRE_SCOPE_SUB);
    } else {
        size_t n;
        const char *s = acre_dn_normalised(c->e->dn, &n);
        m = glob_at(to->text, to->len, s, n, 0);
    }
    return a->t.target_neg ? !m : m;
}

/* opts_in -- are the options of w all among those of d? */
static int
opts_in(const struct acreS_dinfo *w, const struct acreF_desc *d)
{
    for (unsigned k = 0; k < w->nopts; k++) {
        int found = 0;
        for (unsigned j = 0; j < d->nopts && !found; j++)
            found = w->opt_len[k] == d->opt_len[j] &&
                    !memcmp(w->opts[k], d->opts[j], d->opt_len[j]);
        if (!found)
            return 0;
    }
    return 1;
}

#define OPTS_BITS    1
#define OPTS_NOTBITS 2
#define OPTS_FULL    3

/* opts_kind -- the opts[] value of ACI a (see acreV_aci_rq) */
static uint8_t
opts_kind(const acre_schema *s, const struct acreI_aci_target *t)
{
    if (t->nattr_pat)
        return OPTS_FULL;
    for (unsigned i = 0; i < t->nattrs; i++) {
        const struct acreS_dinfo *w = acreS_desc_of(s, t->attrs[i]);
        if (w && w->nopts)
            return OPTS_FULL;
    }
    return t->attr_neg ? OPTS_NOTBITS : OPTS_BITS;
}

#define NO_ATTR_RIGHTS \
    (ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_PROXY | ACREI_ACI_MODDN)

/* value_passes -- does the one value val[0..n) of attribute type `type`
 * satisfy filter f (389 tests it on an entry holding that value alone)? */
static int
value_passes(struct ck *c, const struct acreI_aci_attrfilter *f,
             const void *val, size_t n)
{
    acre_value v = {n, val};
    acre_view_attr a = {f->type, 1, &v, NULL};
    /* no value (a write asked without one, as get-effective-rights asks
     * w and o): 389 makes its test entry of no value, an empty entry */
    acre_entry_view one = {c->rq->schema, c->e->dn, val ? 1 : 0, &a, NULL};
    struct acreF_hooks h = acreV_filter_hooks(c->rq, NULL, NULL);

    return acreV_filter_eval(c->rq, f->filter, &one, &h) == ACREF_TRUE;
}

/*
 * attrfilters -- 389's targattrfilters in acl__resource_match_aci: 1 the
 * ACI is taken for this write without its targetattr being looked at, 0
 * it is not taken, -1 the filters decide nothing (go on as without).
 * Adding or deleting an entry: each filter whose attribute the entry
 * holds must hold for every value of it.  Adding or deleting a value: the
 * filter of its attribute, when there is one, must hold for the value.
 */
static int
attrfilters(struct ck *c, const struct acreP_aci_perm *p,
            const struct acreF_desc *d, unsigned rights)
{
    const struct acreI_aci_target *t = &p->aci->t;
    const struct acreI_aci_attrfilter *fl[2] = {NULL, NULL};
    unsigned nf[2] = {0, 0};
    int found = 0;

    if (!(t->has & ACREI_ACI_T_ATTRFLT) || !c->wkind)
        return -1;
    if (c->wkind != 'd') {
        fl[0] = t->add_filters;
        nf[0] = t->nadd_filters;
    }
    if (c->wkind != 'a') {
        fl[1] = t->del_filters;
        nf[1] = t->ndel_filters;
    }
    if (!d) { /* an entry added or deleted */
        if (!(rights & (ACREI_ACI_ADD | ACREI_ACI_DELETE)))
            return -1;
        for (unsigned l = 0; l < 2; l++)
            for (unsigned i = 0; i < nf[l]; i++) {
                if (fl[l][i].alias)
                    continue;
                const acre_view_attr *a = acreE_entry_attr(c->e, fl[l][i].type);
                for (unsigned j = 0; a && j < a->nvals; j++)
                    if (!value_passes(c, &fl[l][i], a->vals[j].val,
                                      a->vals[j].len))
                        return 0;
            }
        return -1;
    }
    if (!(rights & (ACREI_ACI_WRITE | ACREI_ACI_SELFWRITE)))
        return -1;
    for (unsigned l = 0; l < 2; l++)
        for (unsigned i = 0; i < nf[l]; i++) {
            /* 389 (slapi_attr_type_cmp, SLAPI_TYPE_CMP_SUBTYPE): the
             * filter's type governs a description whose options it all
             * has -- a filter on cn not cn;lang-fr -- and only when
             * named by the type's first name (no aliases) */
            if (fl[l][i].type != d->type || d->nopts || fl[l][i].alias)
                continue;
            if (!value_passes(c, &fl[l][i], c->val, c->val_len))
                return 0;
            found = 1;
            break;
        }
    return found ? 1 : -1;
}

/* pat389 -- does a targetattr pattern of t take description d of a type
 * named name?  389 matches the pattern, case-insensitively, against the
 * attribute's whole description as its entries and filters spell it:
 * the type's first name and the options ("*n" does not take
 * "cn;lang-fr"). */
static int
pat389(const struct acreI_aci_target *t, const char *name,
       const struct acreF_desc *d)
{
    char buf[256];
    size_t n = strlen(name);

    if (n >= sizeof(buf))
        return 0;
    for (size_t i = 0; i < n; i++)
        buf[i] =
            name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] + 32) : name[i];
    for (unsigned o = 0; o < d->nopts; o++) {
        if (n + 1 + d->opt_len[o] >= sizeof(buf))
            return 0;
        buf[n++] = ';';
        for (uint32_t i = 0; i < d->opt_len[o]; i++, n++) {
            char ch = d->opts[o][i];
            buf[n] = ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
        }
    }
    for (unsigned i = 0; i < t->nattr_pat; i++)
        if (glob(t->attr_pat[i], strlen(t->attr_pat[i]), buf, n))
            return 1;
    return 0;
}

/* attr_match_full -- does perm p's targetattr take description d (entry
 * level when d is NULL)?  A listed type covers its descriptions with
 * options (389 compares base types); one listed with options only those
 * that have them.  Out of line: attr_match keeps the common case. */
static int __attribute__((noinline))
attr_match_full(struct ck *c, const struct acreP_aci_perm *p,
                const struct acreF_desc *d, unsigned rights)
{
    uint8_t *kind = &c->st->opts[p->aci_no];

    /* targattrfilters first, for the writes they govern (attrfilters
     * answers -1 to every other check) */
    if (c->wkind) {
        int f = attrfilters(c, p, d, rights);
        if (f >= 0)
            return f;
    }
    const struct acreI_aci_target *t = &p->aci->t;
    const acre_schema *s = c->rq->schema;

    /* 389 (acl__resource_match_aci): an ACI without targetattr takes
     * attribute checks only for rights that need none (add, delete,
     * proxy, moddn); one with a targetattr takes the entry itself for
     * those rights too, and for any right when it has write and an allow
     * rule (its modrdn case, which asks nothing of the right checked) */
    if ((p->aci_rights & NO_ATTR_RIGHTS) && (rights & NO_ATTR_RIGHTS) &&
        (!d || !(p->flags & ACREP_ACI_HASATTR)))
        return 1;
    if (!(p->flags & ACREP_ACI_HASATTR))
        return d == NULL;
    if (!d)
        return (p->aci_rights & ACREI_ACI_WRITE) && p->aci_allow;
    if (d->type < 0) /* a name the schema does not know ("1.1") */
        return t->attr_star ? !t->attr_neg : t->attr_neg;
    int m = (p->attr_in[d->type / 64] >> (d->type % 64)) & 1;
    if (!*kind)
        *kind = opts_kind(s, t);
    for (unsigned i = 0; !m && *kind == OPTS_FULL && i < t->nattrs; i++) {
        const struct acreS_dinfo *w = acreS_desc_of(s, t->attrs[i]);
        m = w && w->nopts && w->type == d->type && opts_in(w, d);
    }
    if (!m && t->nattr_pat) {
        const struct acreS_attr *at = acreS_attr(s, d->type);
        if (c->ix->set->variant == ACREI_ACI_389)
            m = pat389(t, at->dn.name, d);
        for (unsigned i = 0;
             c->ix->set->variant != ACREI_ACI_389 && !m && i < t->nattr_pat;
             i++)
            for (unsigned k = 0; !m && k < at->nnames; k++)
                m = glob(t->attr_pat[i], strlen(t->attr_pat[i]), at->names[k],
                         strlen(at->names[k]));
    }
    return t->attr_neg ? !m : m;
}

/* attr_match -- attr_match_full, with its common cases first, inline and
 * without reading the ACI: a check that is not a write (no
 * targattrfilters) against an ACI without targetattr, at entry level, or
 * of a known type against a targetattr that is a plain bitmap */
static inline int
attr_match(struct ck *c, const struct acreP_aci_perm *p,
           const struct acreF_desc *d, unsigned rights)
{
    if (!c->wkind) {
        uint8_t kind = c->st->opts[p->aci_no];
        int noattr =
            (p->aci_rights & NO_ATTR_RIGHTS) && (rights & NO_ATTR_RIGHTS);
        if (!(p->flags & ACREP_ACI_HASATTR))
            return !d || noattr;
        if (!d)
            return noattr ||
                   ((p->aci_rights & ACREI_ACI_WRITE) && p->aci_allow);
        if ((kind == OPTS_BITS || kind == OPTS_NOTBITS) && d->type >= 0)
            return (int)((p->attr_in[d->type / 64] >> (d->type % 64)) & 1) ^
                   (kind == OPTS_NOTBITS);
    }
    return attr_match_full(c, p, d, rights);
}

/* desc_of -- the description of attribute id as a filter item has it */
static int
desc_of(const acre_schema *s, int id, struct acreF_desc *out)
{
    const struct acreS_dinfo *d = acreS_desc_of(s, id);

    if (!d)
        return -1;
    *out = (struct acreF_desc){d->type, d->nopts, d->opts, d->opt_len};
    return 0;
}

/* ------------------------------------------------------------------------
 * Candidates: the perms of the holders among e's ancestors
 */

/* probe -- the holder at level d of the current entry, if any, added
 * to hold[] */
static void
probe(struct ck *c, unsigned d, const uint64_t *h)
{
    const struct acreP_aci *ix = c->ix;
    struct acreV_aci_rq *st = c->st;
    const acre_dn *edn = c->e->dn;

    for (uint32_t k = (uint32_t)h[d] & ix->hash_mask; ix->hash[k];
         k = (k + 1) & ix->hash_mask) {
        const struct acreP_aci_holder *hd = &ix->holders[ix->hash[k] - 1];
        size_t an, hn;
        if (hd->hash != h[d] || hd->depth != d) /* before the bytes */
            continue;
        const char *as = acre_dn_ancestor(edn, d, &an);
        const char *hs = acre_dn_normalised(hd->dn, &hn);
        if (an != hn || memcmp(as, hs, an))
            continue;
        st->hold[st->nhold++] = ix->hash[k] - 1;
        st->holder = ix->hash[k];
    }
}

/* candidates -- the holders above the current entry, E included, in
 * hold[]: those above its parent are the previous entry's when the two
 * have the same parent (pc_*), else probed level by level */
static void
candidates(struct ck *c)
{
    const struct acreP_aci *ix = c->ix;
    struct acreV_aci_rq *st = c->st;
    const acre_dn *edn = c->e->dn;
    unsigned depth = acre_dn_depth(edn), d = 0;
    const uint64_t *h = acreD_h(edn);

    st->nhold = 0;
    st->holder = 0;
    st->cand_ok = 0;
    if (depth > 0) {
        size_t pn;
        const char *ps = acre_dn_ancestor(edn, depth - 1, &pn);
        if (st->pc_ok && pn == st->pc_len && !memcmp(ps, st->pc_dn, pn)) {
            st->nhold = st->pc_nhold;
            st->holder = st->pc_holder;
            d = depth;
        } else {
            for (; d < depth && d <= ix->max_depth; d++)
                /* 389: ACIs of the root DSE govern the root DSE only;
                 * OpenDJ's global ACIs (held at the root DN) govern
                 * every entry */
                if (d > 0 || ix->set->variant == ACREI_ACI_OPENDJ)
                    probe(c, d, h);
            d = depth;
            st->pc_ok = pn <= sizeof st->pc_dn;
            if (st->pc_ok) {
                memcpy(st->pc_dn, ps, pn);
                st->pc_len = pn;
                st->pc_nhold = st->nhold;
                st->pc_holder = st->holder;
            }
        }
    }
    if (d <= ix->max_depth)
        probe(c, d, h);
}

/* cands -- the current entry's candidates in cand[] (made when first
 * needed: a check the walk memo answers needs none) */
static inline void
cands(struct ck *c)
{
    struct acreV_aci_rq *st = c->st;

    if (st->cand_ok)
        return;
    st->ncand = 0;
    for (uint32_t j = 0; j < st->nhold; j++) {
        const struct acreP_aci_holder *hd = &c->ix->holders[st->hold[j]];
        for (uint32_t i = 0; i < hd->n; i++)
            st->cand[st->ncand++] = hd->first + i;
    }
    st->cand_ok = 1;
}

/* begin -- start the checks of entry e (a new epoch: target memos reset) */
static int
begin(struct ck *c, struct acre_request *rq, const acre_entry_view *e)
{
    c->val = NULL;
    c->val_len = 0;
    c->wkind = 0;
    c->rq = rq;
    c->ix = rq->p->aci;
    c->e = e;
    c->tr = NULL;
    if (!(c->st = state(rq)))
        return -1;
    if (++c->st->epoch == 0) {
        memset(c->st->tgt_epoch, 0,
               sizeof(uint32_t) * (c->ix->set->n ? c->ix->set->n : 1));
        memset(c->st->ebind_epoch, 0,
               sizeof(uint32_t) * (c->ix->nperms ? c->ix->nperms : 1));
        memset(c->st->fres_epoch, 0,
               sizeof(uint32_t) * (c->ix->nfids ? c->ix->nfids : 1));
        c->st->anon_epoch = 0;
        c->st->tm_epoch = 0;
        if (c->st->sm_known) {
            size_t nt = (size_t)c->ix->attr_words * 64;
            memset(c->st->sm_known, 0, nt * sizeof(uint32_t));
            memset(c->st->sm_need, 0, nt * sizeof(uint32_t));
        }
        c->st->epoch = 1;
    }
    talloc_free_children(c->st->scratch);
    if (c->st->nbegin < 2)
        c->st->nbegin++;
    candidates(c);
    if (c->ix->set->variant == ACREI_ACI_OPENDJ)
        cands(c);
    /* no memos under proxied authorization: every check is decided,
     * each after the proxy gate (decide) */
    c->vm = c->st->nbegin > 1 && !c->st->vm_off && !c->st->root && !c->st->px &&
            c->ix->set->variant != ACREI_ACI_OPENDJ;
    c->sm = 0;
    return 0;
}

/* ------------------------------------------------------------------------
 * The requester
 */

/* user_entry -- the requester's entry, or NULL (anonymous, none, or the
 * lookup failed: *undef set then). */
static const acre_entry_view *
user_entry(struct ck *c, int *undef)
{
    const acre_entry_view *u;

    if (!c->rq->authz)
        return NULL;
    u = acreV_authz_entry(c->rq);
    if (!u && c->rq->limit_hit)
        *undef = 1;
    return u;
}

/* ldap_prefix -- does s[0..n) start with "ldap://" or "ldaps://", case
 * aside?  The only URLs 389's acllas__client_match_URL reads. */
static int
ldap_prefix(const char *s, size_t n)
{
    return (n >= 7 && !strncasecmp(s, "ldap://", 7)) ||
           (n >= 8 && !strncasecmp(s, "ldaps://", 8));
}

/*
 * url_takes -- does the LDAP URL text s[0..n) (a memberURL or #LDAPURL
 * value) take entry u (its base and scope; its filter, when it has one)?
 * T, F or U (a bad URL).  389 (acllas__client_match_URL) answers only T
 * or F: a URL that is not ldap:// or ldaps://, whose DN or filter does
 * not parse, or that has no filter takes no one (its host is skipped:
 * "ldap:///host:port/dc=x" has the DN "host:port/dc=x", which is no DN).
 */
static int
url_takes(struct ck *c, const char *s, size_t n, const acre_entry_view *u)
{
    struct acre_request *rq = c->rq;
    int v389 = c->ix->set->variant == ACREI_ACI_389;
    void *tmp = talloc_new(NULL);
    struct acreE_url url;
    acre_dn *base = NULL;
    struct acreF_filter *f = NULL;
    int r = v389 ? F : U;

    if (!tmp) {
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return U;
    }
    /* each step: 0 read, ACRE_ERR_NOMEM, anything else unreadable */
    int rc = v389 && !ldap_prefix(s, n) ? -1 : acreE_url_parse(tmp, s, n, &url);
    if (!rc && v389 && !url.filter)
        rc = -1;
    if (!rc)
        rc = acre_dn_parse(tmp, rq->schema, url.dn, strlen(url.dn), 0, &base,
                           NULL);
    if (!rc && url.filter)
        rc = acreF_parse_flags(tmp, rq->schema, url.filter, strlen(url.filter),
                               v389 ? ACREF_389_RAWSUBS | ACREF_389_PARENS : 0,
                               &f, NULL);
    if (!rc) {
        struct acreF_hooks h = acreV_filter_hooks(rq, NULL, NULL);
        r = in_scope(u->dn, base, url.scope) &&
                    (!f || acreV_filter_eval(c->rq, f, u, &h) == ACREF_TRUE)
                ? T
                : F;
    } else if (rc == ACRE_ERR_NOMEM) {
        acreV_fail(rq, ACRE_ERR_NOMEM); /* never read as False: deny */
        r = U;
    }
    talloc_free(tmp);
    return r;
}

/* memo_find / memo_put -- membership answers of this request: open
 * addressing on (kind, bytes), memo_cap slots (a power of two), at most
 * half used */
static uint64_t
memo_hash(int kind, const char *ndn, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)kind;

    for (; n >= 8; n -= 8, ndn += 8) { /* 8 bytes at a time */
        uint64_t w;
        memcpy(&w, ndn, 8);
        h = (h ^ w) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)ndn[i]) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

static struct memo_dn *
memo_find(struct acreV_aci_rq *st, int kind, const char *ndn, size_t n)
{
    if (!st->nmemo)
        return NULL;
    for (size_t k = memo_hash(kind, ndn, n) & (st->memo_cap - 1);
         st->memo[k].ndn; k = (k + 1) & (st->memo_cap - 1))
        if (st->memo[k].kind == kind && st->memo[k].len == n &&
            !memcmp(st->memo[k].ndn, ndn, n))
            return &st->memo[k];
    return NULL;
}

/* memo_slot -- where (kind, ndn) goes in m[cap] */
static struct memo_dn *
memo_slot(struct memo_dn *m, unsigned cap, int kind, const char *ndn, size_t n)
{
    size_t k = memo_hash(kind, ndn, n) & (cap - 1);

    while (m[k].ndn)
        k = (k + 1) & (cap - 1);
    return &m[k];
}

/* a failed allocation keeps nothing: the answer is asked again */
static void
memo_put(struct ck *c, int kind, const char *ndn, size_t n, int r)
{
    struct acreV_aci_rq *st = c->st;

    if (2 * (st->nmemo + 1) > st->memo_cap) {
        unsigned cap = st->memo_cap ? st->memo_cap * 2 : 64;
        struct memo_dn *m = talloc_zero_array(st, struct memo_dn, cap);
        if (!m)
            return;
        for (unsigned i = 0; i < st->memo_cap; i++)
            if (st->memo[i].ndn)
                *memo_slot(m, cap, st->memo[i].kind, st->memo[i].ndn,
                           st->memo[i].len) = st->memo[i];
        talloc_free(st->memo);
        st->memo = m;
        st->memo_cap = cap;
    }
    char *k = talloc_size(st, n + 1); /* never NULL for "" */
    if (!k)
        return;
    memcpy(k, ndn, n);
    k[n] = 0;
    *memo_slot(st->memo, st->memo_cap, kind, ndn, n) =
        (struct memo_dn){k, n, (uint8_t)kind, (uint8_t)r};
    st->nmemo++;
}

/* The requester's normalised DN text. */
static int
is_user(struct ck *c, const char *ndn, size_t n)
{
    return c->rq->authz && n == c->rq->authz_len &&
           !memcmp(ndn, c->rq->authz_norm, n);
}

/* parse_dn -- s[0..n) as a DN under ctx, or NULL; a failed allocation
 * is recorded (acreV_fail), so that the check it was for denies. */
static acre_dn *
parse_dn(struct ck *c, void *ctx, const char *s, size_t n)
{
    acre_dn *dn = NULL;
    int rc = acre_dn_parse(ctx, c->rq->schema, s, n, 0, &dn, NULL);

    if (rc == ACRE_ERR_NOMEM)
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
    return rc ? NULL : dn;
}

/* value_dn -- value j of attribute a parsed as a DN (uniqueMember's
 * optional "#'...'B" uid dropped) into tmp, or NULL. */
static acre_dn *
value_dn(struct ck *c, void *tmp, const acre_view_attr *a, unsigned j)
{
    const char *v = a->vals[j].val;
    size_t n = a->vals[j].len;
    acre_dn *dn;

    if ((dn = parse_dn(c, tmp, v, n)))
        return dn;
    const char *hash = memchr(v, '#', n);
    while (hash) { /* the last '#' starts the optional uid */
        const char *next = memchr(hash + 1, '#', n - (size_t)(hash + 1 - v));
        if (!next)
            break;
        hash = next;
    }
    return hash ? parse_dn(c, tmp, v, (size_t)(hash - v)) : NULL;
}

static int find_attr(const acre_schema *s, const acre_entry_view *e,
                     const char *name, const acre_view_attr **out);
static int role_has(struct ck *c, void *tmp, const acre_dn *rdn,
                    unsigned depth);
static int has_class(const acre_schema *s, const acre_entry_view *e,
                     const char *name);

/* A level of group_has: DNs met at one depth below the named group, each
 * once (a hash set over the full-DN hash, so that wide groups stay
 * linear). */
struct glevel {
    const acre_dn **dn;
    uint32_t n, cap;  /* cap: a power of two, twice n at least */
    uint32_t *slot;   /* [cap]: index + 1 into dn, 0 free */
    uint32_t nogroup; /* members left out: entries this request found to
                         be no group ('n' in memo[]), which would answer F */
};

/* glevel_add -- add dn to l unless it is there; -1 on a failed
 * allocation. */
static int
glevel_add(void *tmp, struct glevel *l, const acre_dn *dn)
{
    uint64_t h = acreD_h(dn)[dn->depth];

    if (2 * (l->n + 1) > l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 16;
        uint32_t *slot = talloc_zero_array(tmp, uint32_t, cap);
        const acre_dn **v = talloc_realloc(tmp, l->dn, const acre_dn *, cap);
        if (!slot || !v)
            return -1;
        l->dn = v;
        for (uint32_t i = 0; i < l->n; i++) {
            uint64_t k = acreD_h(v[i])[v[i]->depth] & (cap - 1);
            while (slot[k])
                k = (k + 1) & (cap - 1);
            slot[k] = i + 1;
        }
        talloc_free(l->slot);
        l->slot = slot;
        l->cap = cap;
    }
    uint64_t k = h & (l->cap - 1);
    for (; l->slot[k]; k = (k + 1) & (l->cap - 1))
        if (acre_dn_equal(l->dn[l->slot[k] - 1], dn))
            return 0;
    l->dn[l->n] = dn;
    l->slot[k] = ++l->n;
    return 0;
}

/* is_group -- the object classes of 389's group search (filter_groups):
 * values compared as they are stored, as 389's objectclass filter does
 * (has_class of each, in one pass over the values) */
static int
is_group(const acre_schema *s, const acre_entry_view *g)
{
#define GROUP_CLASS(name)     \
    {                         \
        name, sizeof name - 1 \
    }

    static const struct {
        const char *name;
        size_t len;
    } classes[] = {
        GROUP_CLASS("groupOfNames"), GROUP_CLASS("groupOfUniqueNames"),
        GROUP_CLASS("groupOfCertificates"), GROUP_CLASS("groupOfURLs")};

#undef GROUP_CLASS
    const acre_view_attr *a;

    if (!find_attr(s, g, "objectClass", &a))
        return 0;
    for (unsigned j = 0; j < a->nvals; j++)
        for (unsigned k = 0; k < sizeof classes / sizeof *classes; k++)
            if (a->vals[j].len == classes[k].len &&
                !strncasecmp(a->vals[j].val, classes[k].name, classes[k].len))
                return 1;
    return 0;
}

/* group_direct -- is the requester a direct member of group entry g (a
 * member / uniqueMember value, or a memberURL taking its entry)?  T, F
 * or U; adds g's member values to next when next is not NULL. */
static int
group_direct(struct ck *c, void *tmp, const acre_entry_view *g,
             struct glevel *next)
{
    const acre_schema *s = c->rq->schema;
    static const char *const lists[] = {"member", "uniqueMember"};
    const acre_view_attr *a;
    int r = F;

    for (unsigned k = 0; k < 2; k++) {
        if (!find_attr(s, g, lists[k], &a))
            continue;
        if (acreV_attr_lists(s, a, c->rq->authz_norm, c->rq->authz_len))
            return T;
        for (unsigned j = 0; next && j < a->nvals; j++) {
            if (a->norms &&
                memo_find(c->st, 'n', a->norms[j].val, a->norms[j].len)) {
                next->nogroup++; /* no need to parse it */
                continue;
            }
            acre_dn *m = value_dn(c, tmp, a, j);
            if (m && glevel_add(tmp, next, m)) {
                acreV_fail(c->rq, ACRE_ERR_NOMEM);
                return U;
            }
        }
    }
    if (find_attr(s, g, "memberURL", &a)) {
        int und = 0;
        const acre_entry_view *u = user_entry(c, &und);
        for (unsigned j = 0; u && j < a->nvals; j++) {
            int x = url_takes(c, a->vals[j].val, a->vals[j].len, u);
            if (x == T)
                return T;
            if (x == U)
                r = U;
        }
        if (und)
            r = U;
    }
    return r;
}

/*
 * group_has -- is the requester a member of group gdn?  T, F or U.
 * 389's acllas__user_ismember_of_group, level by level from the named
 * group (level 0): every member value of the groups of one level (the
 * entries of 389's group object classes) makes the next level, users and
 * groups alike, and is not looked for in the levels before (389 keeps no
 * list of the groups it has seen).  The requester listed by a group of
 * level 0..GROUP_NEST is T; the levels running out before level
 * GROUP_NEST + 1 is F; reaching it -- a member listed by a group of level
 * GROUP_NEST - 1, whatever it is, or a cycle -- is U, as is a failed
 * lookup.  An entry looked up and found to be no group is kept in memo[]
 * ('n', its normalised DN) for the request: a member value whose host
 * normal form names it is then neither parsed nor looked up again, but
 * still makes the next level (glevel.nogroup), where it would answer F.
 */
static int
group_has(struct ck *c, void *tmp, const acre_dn *gdn)
{
    struct glevel lv[2] = {{0}};
    int r = F;

    if (glevel_add(tmp, &lv[0], gdn)) {
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return U;
    }
    for (unsigned level = 0; level <= GROUP_NEST; level++) {
        struct glevel *cur = &lv[level & 1], *next = &lv[!(level & 1)];
        next->n = next->nogroup = 0;
        if (next->slot)
            memset(next->slot, 0, next->cap * sizeof *next->slot);
        for (uint32_t i = 0; i < cur->n; i++) {
            const acre_entry_view *g;
            if (!acreV_host_get(c->rq, cur->dn[i], &g)) {
                if (c->rq->limit_hit)
                    r = U;
                continue;
            }
            int x = F;
            if (is_group(c->rq->schema, g)) {
                x = group_direct(c, tmp, g, level < GROUP_NEST ? next : NULL);
            } else {
                size_t n;
                const char *ndn = acre_dn_normalised(cur->dn[i], &n);
                if (!memo_find(c->st, 'n', ndn, n))
                    memo_put(c, 'n', ndn, n, F);
            }
            acreV_host_release(c->rq, g);
            if (x == T)
                return T;
            if (x == U)
                r = U;
        }
        if (level == GROUP_NEST)
            return U;
        if (!next->n && !next->nogroup)
            return r;
    }
    return U;
}

/*
 * dj_group_has -- OpenDJ's group membership (GroupManager and
 * StaticGroup.isMember): the requester listed by the group or by any
 * group nested in it, at any depth, each group examined once (so cycles
 * end); a dynamic group (memberURL) takes the requester's entry.  An
 * entry of none of the group classes is no group.  Never Undefined (a
 * failed lookup still fails the check: perm_bind).
 */
static int
dj_group_has(struct ck *c, void *tmp, const acre_dn *gdn)
{
    struct glevel seen = {0};

    if (glevel_add(tmp, &seen, gdn)) {
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return U;
    }
    for (uint32_t i = 0; i < seen.n; i++) {
        const acre_entry_view *g;
        if (!acreV_host_get(c->rq, seen.dn[i], &g))
            continue;
        int x = is_group(c->rq->schema, g) ? group_direct(c, tmp, g, &seen) : F;
        acreV_host_release(c->rq, g);
        if (x == T)
            return T;
    }
    return F;
}

/* memo_ask -- kind 'g' (group) or 'r' (role) of dn for the requester,
 * answered once per request: group_has or role_has the first time. */
static int
memo_ask(struct ck *c, int kind, const acre_dn *dn)
{
    size_t n;
    const char *ndn = acre_dn_normalised(dn, &n);
    struct memo_dn *m;

    if (!c->rq->authz)
        return F;
    if ((m = memo_find(c->st, kind, ndn, n)))
        return m->r;
    void *tmp = talloc_new(NULL);
    if (!tmp) {
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return U;
    }
    int r = kind == 'g' && c->ix->set->variant == ACREI_ACI_OPENDJ
                ? dj_group_has(c, tmp, dn)
            : kind == 'g' ? group_has(c, tmp, dn)
                          : role_has(c, tmp, dn, 0);
    talloc_free(tmp);
    if (!c->rq->limit_hit)
        memo_put(c, kind, ndn, n, r);
    return r;
}

/* member_of -- the requester in group gdn (memoised per request) */
static int
member_of(struct ck *c, const acre_dn *gdn)
{
    return memo_ask(c, 'g', gdn);
}

/* has_class -- does e list object class `name` (without case)? */
static int
has_class(const acre_schema *s, const acre_entry_view *e, const char *name)
{
    const acre_view_attr *a;
    size_t n = strlen(name);

    if (!find_attr(s, e, "objectClass", &a))
        return 0;
    for (unsigned j = 0; j < a->nvals; j++)
        if (a->vals[j].len == n && !strncasecmp(a->vals[j].val, name, n))
            return 1;
    return 0;
}

/*
 * role_has -- does the requester hold role rdn (389 roles: managed,
 * filtered, nested; the requester must be below the role's parent, or
 * below its nsRoleScopeDN's parent: acreV_role_scope)?
 */
static int
role_has(struct ck *c, void *tmp, const acre_dn *rdn, unsigned depth)
{
    const acre_schema *s = c->rq->schema;
    const acre_entry_view *role, *u;
    const acre_view_attr *a;
    int und = 0, r = F;
    size_t n;

    if (depth > ROLE_NEST || !(u = user_entry(c, &und)))
        return und ? U : F;
    if (!acreV_host_get(c->rq, rdn, &role))
        return c->rq->limit_hit ? U : F;
    const acre_dn *scope; /* the role's DN, or its nsRoleScopeDN */
    if (acreV_role_scope(c->rq, tmp, role, &scope)) {
        acreV_host_release(c->rq, role);
        acreV_fail(c->rq, ACRE_ERR_NOMEM);
        return U;
    }
    unsigned pd = acre_dn_depth(scope);
    const char *pn = acre_dn_ancestor(scope, pd ? pd - 1 : 0, &n);
    size_t un;
    const char *us = acre_dn_normalised(u->dn, &un);
    int below = pd && un >= n && !memcmp(us + un - n, pn, n) &&
                (un == n || (n == 0 || us[un - n - 1] == ','));
    if (!below) {
        r = F;
    } else if (has_class(s, role, "nsManagedRoleDefinition")) {
        /* nsRoleDN has no equality rule: compare the values as DNs */
        if (find_attr(s, u, "nsRoleDN", &a))
            for (unsigned j = 0; r != T && j < a->nvals; j++) {
                acre_dn *v = value_dn(c, tmp, a, j);
                if (v && acre_dn_equal(v, rdn))
                    r = T;
            }
    } else if (has_class(s, role, "nsFilteredRoleDefinition")) {
        if (find_attr(s, role, "nsRoleFilter", &a)) {
            struct acreF_filter *f;
            struct acreF_hooks h = acreV_filter_hooks(c->rq, NULL, NULL);
            /* the roles plugin reads it with slapi_str2filter; a filter
             * it cannot read holds no one, memory that runs out fails */
            int prc = acreF_parse_flags(tmp, s, a->vals[0].val, a->vals[0].len,
                                        ACREF_389_PARENS, &f, NULL);
            if (prc == ACRE_ERR_NOMEM) {
                acreV_fail(c->rq, ACRE_ERR_NOMEM);
                r = U;
            } else if (prc == 0) {
                r = acreV_filter_eval(c->rq, f, u, &h) == ACREF_TRUE ? T : F;
            }
        }
    } else if (has_class(s, role, "nsNestedRoleDefinition") &&
               find_attr(s, role, "nsRoleDN", &a)) {
        for (unsigned j = 0; r != T && j < a->nvals; j++) {
            acre_dn *sub = value_dn(c, tmp, a, j);
            int x = sub ? role_has(c, tmp, sub, depth + 1) : F;
            if (x == T || (x == U && r == F))
                r = x;
        }
    }
    acreV_host_release(c->rq, role);
    return r;
}

/* has_role -- the requester holds role rdn (memoised per request) */
static int
has_role(struct ck *c, const acre_dn *rdn)
{
    return memo_ask(c, 'r', rdn);
}

/* ------------------------------------------------------------------------
 * Bind rules
 */

/* find_attr -- e's attribute named `name` (no options), or 0. */
static int
find_attr(const acre_schema *s, const acre_entry_view *e, const char *name,
          const acre_view_attr **out)
{
    int type = acreS_attr_find(s, name, strlen(name));

    *out = type >= 0 ? acreE_entry_attr(e, type) : NULL;
    return *out != NULL;
}

/* ancestor -- e's DN `level` levels up (0: e itself), into tmp. */
static const acre_dn *
ancestor(struct ck *c, void *tmp, unsigned level)
{
    const acre_dn *edn = c->e->dn;
    unsigned depth = acre_dn_depth(edn);
    size_t n;

    if (level == 0)
        return edn;
    if (level > depth)
        return NULL;
    const char *s = acre_dn_ancestor(edn, depth - level, &n);
    return parse_dn(c, tmp, s, n);
}

/* url_user -- does subject URL t (base, scope, filter) take entry u?
 * 389: not without a filter (acllas__client_match_URL). */
static int
url_user(struct ck *c, const struct acreI_aci_term *t, const acre_entry_view *u)
{
    if (t->pat.kind != ACREI_ACI_PAT_DN ||
        !in_scope(u->dn, t->pat.dn, t->scope))
        return F;
    if (!t->filter)
        return c->ix->set->variant == ACREI_ACI_389 ? F : T;
    struct acreF_hooks h = acreV_filter_hooks(c->rq, NULL, NULL);
    return acreV_filter_eval(c->rq, t->filter, u, &h) == ACREF_TRUE ? T : F;
}

struct ugroups {
    struct ck *c;
    const struct acreF_filter *f;
    int r;
};

static int
ugroup_visit(void *arg, const acre_entry_view *g)
{
    struct ugroups *w = arg;
    struct acreF_hooks h = acreV_filter_hooks(w->c->rq, NULL, NULL);

    if (acreV_filter_eval(w->c->rq, w->f, g, &h) != ACREF_TRUE)
        return 0;
    int x = member_of(w->c, g->dn);
    if (x == T || (x == U && w->r == F))
        w->r = x;
    return w->r == T;
}

/* url_groups -- groupdn="ldap:///base??scope?(filter)": the requester in
 * one of the groups the URL's search finds (389: none without a filter) */
static int
url_groups(struct ck *c, const struct acreI_aci_term *t)
{
    struct ugroups w = {c, t->filter, F};
    struct acre_request *rq = c->rq;

    if (!t->filter || t->pat.kind != ACREI_ACI_PAT_DN || !rq->authz)
        return F;
    if (!rq->host.search) {
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return U;
    }
    if (rq->host.search(rq->host.arg, t->pat.dn, t->scope, ugroup_visit, &w) <
        0) {
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return U;
    }
    return w.r;
}

/* macro_cand -- one expanded subject DN (or userdn pattern) */
static int
macro_cand(struct ck *c, enum acreI_aci_kw kw, const char *text)
{
    acre_dn *dn;

    if (kw == ACREI_ACI_USERDN && strchr(text, '?')) {
        /* a URL (389: acllas_eval_one_user, acllas__client_match_URL) */
        int und = 0;
        const acre_entry_view *u = user_entry(c, &und);
        char *url = talloc_asprintf(c->st->scratch, "ldap:///%s", text);
        if (!url) {
            acreV_fail(c->rq, ACRE_ERR_NOMEM);
            return U;
        }
        return !u ? (und ? U : F) : url_takes(c, url, strlen(url), u);
    }
    if (kw == ACREI_ACI_USERDN && strchr(text, '*'))
        return glob(text, strlen(text), c->rq->authz_norm, c->rq->authz_len)
                   ? T
                   : F;
    if (!(dn = parse_dn(c, c->st->scratch, text, strlen(text))))
        return c->rq->limit_hit ? U : F;
    if (kw == ACREI_ACI_GROUPDN)
        return member_of(c, dn);
    if (kw == ACREI_ACI_ROLEDN)
        return has_role(c, dn);
    return acre_dn_equal(c->rq->authz, dn) ? T : F;
}

/* replace1 -- text with its first `key` replaced by val (scratch) */
static char *
replace1(struct ck *c, const char *text, const char *key, const char *val,
         size_t vlen)
{
    const char *at = strstr(text, key);

    if (!at)
        return NULL;
    return talloc_asprintf(c->st->scratch, "%.*s%.*s%s", (int)(at - text), text,
                           (int)vlen, val, at + strlen(key));
}

/*
 * macro_expand -- a subject with macros, each expansion tried in turn
 * (True wins, then Undefined): "($dn)" is what the ACI's "($dn)" target
 * took of the entry's DN (none: False); "[$dn]" that and each of its
 * ancestors; "($attr.NAME)" each value of the entry's attribute NAME.
 */
static int
macro_expand(struct ck *c, enum acreI_aci_kw kw, const char *text,
             unsigned depth)
{
    const char *mv = c->st->macro[c->aci_no], *at;
    char *x;
    int r = F;

    if (!text || depth > 8)
        return U;
    if (strstr(text, "($dn)")) {
        if (!mv)
            return F;
        if (!(x = replace1(c, text, "($dn)", mv, strlen(mv))))
            return U;
        return macro_expand(c, kw, x, depth + 1);
    }
    if (strstr(text, "[$dn]")) {
        for (const char *m = mv; m && *m && r != T;) {
            if (!(x = replace1(c, text, "[$dn]", m, strlen(m))))
                return U;
            int v = macro_expand(c, kw, x, depth + 1);
            if (v == T || (v == U && r == F))
                r = v;
            const char *comma = strchr(m, ',');
            m = comma ? comma + 1 : NULL;
        }
        return r;
    }
    if ((at = strstr(text, "($attr."))) {
        const char *end = strchr(at, ')');
        if (!end)
            return F;
        int type =
            acreS_attr_find(c->rq->schema, at + 7, (size_t)(end - at - 7));
        char *key = talloc_strndup(c->st->scratch, at, (size_t)(end - at + 1));
        const acre_view_attr *a =
            type >= 0 ? acreE_entry_attr(c->e, type) : NULL;
        for (unsigned j = 0; key && a && j < a->nvals && r != T; j++) {
            if (!(x = replace1(c, text, key, a->vals[j].val, a->vals[j].len)))
                return U;
            int v = macro_expand(c, kw, x, depth + 1);
            if (v == T || (v == U && r == F))
                r = v;
        }
        return r;
    }
    return macro_cand(c, kw, text);
}

/* term -- one userdn / groupdn / roledn term for the requester. */
static int
term(struct ck *c, enum acreI_aci_kw kw, const struct acreI_aci_term *t)
{
    struct acre_request *rq = c->rq;
    const acre_dn *edn = c->e->dn;

    if (t->kind == ACREI_ACI_S_ANYONE) /* groupdn, roledn: 389 only */
        return T;
    if (!rq->authz)
        return F; /* anonymous matches only anyone */
    switch (t->kind) {
    case ACREI_ACI_S_ALL:
        return T;
    case ACREI_ACI_S_SELF:
        return acre_dn_equal(rq->authz, edn) ? T : F;
    case ACREI_ACI_S_PARENT: {
        unsigned d = acre_dn_depth(edn);
        size_t n;
        const char *p = acre_dn_ancestor(edn, d ? d - 1 : 0, &n);
        return d && is_user(c, p, n) ? T : F;
    }
    case ACREI_ACI_S_DN:
        if (kw == ACREI_ACI_GROUPDN)
            return member_of(c, t->pat.dn);
        if (kw == ACREI_ACI_ROLEDN)
            return has_role(c, t->pat.dn);
        return acre_dn_equal(rq->authz, t->pat.dn) ? T : F;
    case ACREI_ACI_S_PATTERN:
        if (t->pat.flags)
            return macro_expand(c, kw, t->pat.text, 0);
        if (kw != ACREI_ACI_USERDN)
            return F; /* 389 parses it as a DN, which names no group */
        return glob(t->pat.text, t->pat.len, rq->authz_norm, rq->authz_len) ? T
                                                                            : F;
    case ACREI_ACI_S_URL:
        if (t->scope < 0) /* 389: a scope its URL parser refuses */
            return F;
        if (t->pat.flags && kw == ACREI_ACI_USERDN &&
            c->ix->set->variant == ACREI_ACI_389)
            /* 389 expands the macros of the whole URL, then reads it */
            return macro_expand(c, kw, t->url, 0);
        if (kw == ACREI_ACI_GROUPDN)
            return url_groups(c, t);
        if (kw != ACREI_ACI_USERDN)
            return F;
        {
            int und = 0;
            const acre_entry_view *u = user_entry(c, &und);
            if (!u)
                return und ? U : F;
            return url_user(c, t, u);
        }
    default:
        return U;
    }
}

/* terms -- a "||" list: True wins, then Undefined.  389's userdn list
 * stops at a self or parent term whether it matched or not, and takes
 * only anyone for an anonymous requester; its groupdn and roledn lists
 * stop there at the first term that is not anyone. */
static int
terms(struct ck *c, const struct acreI_bind *b)
{
    int r = F;

    for (unsigned i = 0; r != T && i < b->nterms; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        if (!c->rq->authz && t->kind != ACREI_ACI_S_ANYONE) {
            if (b->kw == ACREI_ACI_USERDN)
                continue;
            break;
        }
        int x = term(c, b->kw, t);
        if (x == T || (x == U && r == F))
            r = x;
        if (b->kw == ACREI_ACI_USERDN &&
            (t->kind == ACREI_ACI_S_SELF || t->kind == ACREI_ACI_S_PARENT))
            break;
    }
    return r;
}

/* userattr -- userattr="[parent[...].]attr#KIND" on e (or its ancestors) */
/* Is value j of a (a DN) the requester's DN? */
static int
value_is_requester(struct ck *c, void *tmp, const acre_view_attr *a, unsigned j)
{
    struct acre_request *rq = c->rq;
    int was = rq->limit_hit;

    rq->limit_hit = 0;
    acre_dn *g = value_dn(c, tmp, a, j);
    int eq = g && acre_dn_equal(g, rq->authz);
    rq->limit_hit |= was;
    return eq;
}

/* The groups found so far by groupdnattr_url's upward search. */
struct upward {
    struct ck *c;
    void *tmp;
    const char *x; /* the member looked for: a normalised DN */
    size_t xn;
    const char **g; /* the groups' normalised DNs */
    size_t *gn;
    unsigned n, cap;
    int nomem;
};

static int
upward_visit(void *arg, const acre_entry_view *g)
{
    static const char *const lists[] = {"member", "uniqueMember"};
    struct upward *w = arg;
    const acre_schema *s = w->c->rq->schema;
    const acre_view_attr *a;
    size_t n;
    const char *dn = acre_dn_ancestor(g->dn, acre_dn_depth(g->dn), &n);
    int hit = 0;

    for (unsigned k = 0; k < 2 && !hit; k++)
        hit = find_attr(s, g, lists[k], &a) &&
              acreV_attr_lists(s, a, w->x, w->xn);
    for (unsigned i = 0; hit && i < w->n; i++)
        if (w->gn[i] == n && !memcmp(w->g[i], dn, n))
            hit = 0;
    if (!hit)
        return 0;
    if (w->n == w->cap) {
        unsigned cap = w->cap ? 2 * w->cap : 8;
        const char **ng = talloc_realloc(w->tmp, w->g, const char *, cap);
        size_t *nn = ng ? talloc_realloc(w->tmp, w->gn, size_t, cap) : NULL;
        if (ng)
            w->g = ng;
        if (!nn)
            return w->nomem = 1;
        w->gn = nn;
        w->cap = cap;
    }
    /* a copy: the host's view lives for the callback only */
    if (!(w->g[w->n] = talloc_strndup(w->tmp, dn, n)))
        return w->nomem = 1;
    w->gn[w->n++] = n;
    return 0;
}

/*
 * groupdnattr_url -- groupdnattr="ldap:///BASE?ATTR" (389's
 * acllas__eval_memberGroupDnAttr): the requester's groups are found
 * upwards, every entry under BASE whose member or uniqueMember lists the
 * requester, then every entry under BASE listing one of those, and so
 * on (no depth limit, each group once); the rule holds when a value of
 * the entry's ATTR is the requester's DN or one of those groups.  A
 * value that is no DN ends the test False, as it ends 389's.  (389 keeps
 * the groups it found for the requester, under every base searched,
 * across operations, and skips the search of a base when it searched
 * that base or one below it in the operation: acre searches BASE alone,
 * every time.)
 */
static int
groupdnattr_url(struct ck *c, const struct acreI_bind *b)
{
    struct acre_request *rq = c->rq;
    const acre_view_attr *a =
        b->attr >= 0 && b->nterms ? acreE_entry_attr(c->e, b->attr) : NULL;
    struct upward w = {.c = c,
                       .tmp = c->st->scratch,
                       .x = rq->authz_norm,
                       .xn = rq->authz_len};

    if (!a)
        return F;
    if (!rq->host.search) {
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return U;
    }
    for (unsigned i = 0; i == 0 || i <= w.n; i++) {
        if (i) {
            w.x = w.g[i - 1];
            w.xn = w.gn[i - 1];
        }
        if (rq->host.search(rq->host.arg, b->terms[0].pat.dn, ACRE_SCOPE_SUB,
                            upward_visit, &w) < 0 ||
            w.nomem) {
            acreV_fail(rq, w.nomem ? ACRE_ERR_NOMEM : ACRE_ERR_LOOKUP);
            return U;
        }
    }
    for (unsigned j = 0; j < a->nvals; j++) {
        acre_dn *v = value_dn(c, w.tmp, a, j);
        size_t n;
        if (!v)
            return rq->limit_hit ? U : F;
        const char *t = acre_dn_ancestor(v, acre_dn_depth(v), &n);
        if (acre_dn_equal(v, rq->authz))
            return T;
        for (unsigned i = 0; i < w.n; i++)
            if (w.gn[i] == n && !memcmp(w.g[i], t, n))
                return T;
    }
    return F;
}

static int
userattr(struct ck *c, const struct acreI_bind *b)
{
    struct acre_request *rq = c->rq;
    const acre_schema *s = rq->schema;
    void *tmp;
    int r = F;

    /* anonymous: 389's group and role kinds are False at once; a value
     * rule is True when both the entry and the requester's entry hold
     * the value, else Undefined (never False); USERDN and SELFDN
     * (DS_LASUserDnAttrEval) look at the levels as for anyone, with the
     * empty DN: SELFDN's several values on the entry make Undefined */
    int anon_dn = !rq->authz && (b->uakind == ACREI_ACI_UA_USERDN ||
                                 b->uakind == ACREI_ACI_UA_SELFDN);
    if (!rq->authz && !anon_dn)
        return b->uakind == ACREI_ACI_UA_VALUE ? U : F;
    if (b->uakind == ACREI_ACI_UA_GROUPURL)
        return groupdnattr_url(c, b);
    tmp = c->st->scratch; /* the entry's: freed by the next begin() */
    if (b->uakind == ACREI_ACI_UA_VALUE && b->attr < 0)
        r = U;
    /* the levels asked, lowest first (none given: the entry's alone) */
    for (unsigned lv = b->levels ? b->levels : 1u; r != T && lv; lv &= lv - 1) {
        unsigned l = (unsigned)__builtin_ctz(lv);
        const acre_dn *adn = ancestor(c, tmp, l);
        const acre_entry_view *ae = NULL;
        const acre_view_attr *a;
        if (!adn)
            continue;
        if (l == 0)
            ae = c->e;
        else if (!acreV_host_get(rq, adn, &ae)) {
            if (rq->limit_hit)
                r = U;
            continue;
        }
        a = b->attr >= 0 ? acreE_entry_attr(ae, b->attr) : NULL;
        if (!a && b->uakind == ACREI_ACI_UA_VALUE && r == F)
            r = U;
        switch (a ? b->uakind : 0) {
        case ACREI_ACI_UA_SELFDN:
            /* 389 (DS_LASUserDnAttrEval): on the entry itself, SELFDN
             * needs the attribute to hold exactly one value; with more,
             * that level is Undefined (a level that matches still wins) */
            if (l == 0 && a->nvals != 1) {
                if (r == F)
                    r = U;
                break;
            }
            /* fall through */
        case ACREI_ACI_UA_USERDN:
            if (anon_dn ? acreV_attr_lists(s, a, "", 0)
                        : acreV_attr_lists(s, a, rq->authz_norm, rq->authz_len))
                r = T;
            break;
        case ACREI_ACI_UA_GROUPDN:
        case ACREI_ACI_UA_ROLEDN:
            for (unsigned j = 0; r != T && j < a->nvals; j++) {
                int kind = b->uakind == ACREI_ACI_UA_GROUPDN ? 'G' : 'R';
                /* 389 (DS_LASGroupDnAttrEval): an ancestor's value that
                 * is the requester's own DN is True, before membership */
                if (kind == 'G' && l != 0 && value_is_requester(c, tmp, a, j)) {
                    r = T;
                    break;
                }
                const struct memo_dn *m =
                    memo_find(c->st, kind, a->vals[j].val, a->vals[j].len);
                int x;
                if (m) {
                    x = m->r;
                } else {
                    int was = rq->limit_hit;
                    rq->limit_hit = 0;
                    acre_dn *g = value_dn(c, tmp, a, j);
                    x = !g ? F : kind == 'G' ? member_of(c, g) : has_role(c, g);
                    if (!rq->limit_hit)
                        memo_put(c, kind, a->vals[j].val, a->vals[j].len, x);
                    rq->limit_hit |= was;
                }
                if (x == T || (x == U && r == F))
                    r = x;
            }
            break;
        case ACREI_ACI_UA_LDAPURL: {
            int und = 0;
            const acre_entry_view *u = user_entry(c, &und);
            for (unsigned j = 0; u && r != T && j < a->nvals; j++) {
                int x = url_takes(c, a->vals[j].val, a->vals[j].len, u);
                if (x == T || (x == U && r == F))
                    r = x;
            }
            break;
        }
        case ACREI_ACI_UA_VALUE: {
            /* 389: both the entry and the requester's entry hold the
             * value; otherwise the rule cannot be evaluated */
            int und = 0;
            const acre_entry_view *u = user_entry(c, &und);
            const acre_view_attr *ua = u ? acreE_entry_attr(u, b->attr) : NULL;
            int x = U;
            for (unsigned j = 0; ua && x != T && j < a->nvals; j++) {
                size_t nl;
                struct acreE_buf buf;
                uint8_t local[256];
                acreE_buf_init(&buf, local, sizeof local);
                const uint8_t *nv = acreE_value_norm(s, a, j, &buf, &nl);
                if (nv && acreE_attr_has_value(s, ua, nv, nl)) {
                    size_t vl;
                    struct acreE_buf b2;
                    uint8_t l2[256];
                    acreE_buf_init(&b2, l2, sizeof l2);
                    /* the rule's value must be this one */
                    acre_value rv = {b->value_len, b->value};
                    acre_view_attr one = {a->id, 1, &rv, NULL};
                    const uint8_t *bn = acreE_value_norm(s, &one, 0, &b2, &vl);
                    if (bn && vl == nl && !memcmp(bn, nv, nl))
                        x = T;
                    acreE_buf_free(&b2);
                }
                acreE_buf_free(&buf);
            }
            if (x == T)
                r = T;
            else if (r == F)
                r = U;
            break;
        }
        default:
            break;
        }
        if (l != 0)
            acreV_host_release(rq, ae);
    }
    return r;
}

/*
 * userattr_op -- a userattr / userdnattr / groupdnattr rule with its
 * operator, as 389 2.3.1 applies it.  The typed userattr forms go
 * through the kind's own LAS (DS_LASGroupDnAttrEval, ...), which applies
 * "!=", and DS_LASUserAttrEval applies it once more: "!=" answers as "="
 * does -- except where the kind's LAS answers False before looking at
 * its operator (groupdnattr and roles for an anonymous requester, roles
 * for an entry without the attribute), which the second "!=" makes True.
 * The value form and the old keywords apply "!=" once.  An Undefined
 * typed form is Invalid (below).
 */
static int
userattr_op(struct ck *c, const struct acreI_bind *b)
{
    int ne = b->op == ACREI_ACI_NE;
    int early = 0;

    if (b->kw == ACREI_ACI_GROUPDNATTR ||
        (b->kw == ACREI_ACI_USERATTR && (b->uakind == ACREI_ACI_UA_GROUPDN ||
                                         b->uakind == ACREI_ACI_UA_ROLEDN)))
        early = !c->rq->authz;
    if (b->kw == ACREI_ACI_USERATTR && b->uakind == ACREI_ACI_UA_ROLEDN &&
        ((b->levels & ~1u) || b->attr < 0 || !acreE_entry_attr(c->e, b->attr)))
        early = 1; /* the attribute named by the whole text, on the entry */
    if (early)     /* the kind's LAS: False, whatever the operator */
        return b->kw == ACREI_ACI_USERATTR && ne ? T : F;
    int r = userattr(c, b);
    if (b->kw == ACREI_ACI_USERATTR && b->uakind != ACREI_ACI_UA_VALUE)
        /* "!=" twice; a FAIL of the kind's LAS leaves DS_LASUserAttrEval
         * answering 0, no LAS result: libaccess ends the rule with an
         * error (EvalToRes: ACL_RES_ERROR) that neither phase acts on,
         * as it does for Invalid */
        return r == U ? I : r;
    return ne ? tri_not(r) : r;
}

/* The requester's address from "IP=a.b.c.d:port" / "IP=[v6]:port". */
static int
peer_addr(const char *peer, int *family, uint8_t out[16])
{
    char buf[64];
    const char *p, *end;

    if (!peer || strncmp(peer, "IP=", 3))
        return -1;
    p = peer + 3;
    if (*p == '[') {
        end = strchr(++p, ']');
    } else {
        end = strrchr(p, ':');
        if (!end)
            end = p + strlen(p);
    }
    if (!end || (size_t)(end - p) >= sizeof buf)
        return -1;
    memcpy(buf, p, (size_t)(end - p));
    buf[end - p] = 0;
    memset(out, 0, 16);
    if (inet_pton(AF_INET, buf, out) == 1) {
        *family = 4;
        return 0;
    }
    if (inet_pton(AF_INET6, buf, out) == 1) {
        *family = 6;
        return 0;
    }
    return -1;
}

/* the leading bits x[0..n) and y[0..n) share */
static unsigned
lead_bits(const uint8_t *x, const uint8_t *y, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (x[i] != y[i])
            return 8 * i + (unsigned)__builtin_clz((unsigned)(x[i] ^ y[i])) -
                   24;
    return 8 * n;
}

/* the length of a (contiguous) prefix mask */
static unsigned
prefix_len(const uint8_t *m, unsigned n)
{
    unsigned k = 0;

    while (k < n && m[k] == 0xff)
        k++;
    return 8 * k + (k < n ? (unsigned)__builtin_clz(~(unsigned)m[k] << 24) : 0);
}

/*
 * ip_tree -- 389's answer (lasip.cpp) for an address: its prefixes, added
 * in turn to a bit tree, where the address's path ends at some depth j
 * with True or False.  A prefix of length L sharing k leading bits with
 * the address: when k >= L the path now ends True at depth L - 1; else
 * the prefix's walk turns a shorter ending (j < k) into new nodes, and
 * the address's path ends False at depth k ("10.*" then "10.1.2.3" leaves
 * 10.9.9.9 False).  Netmask 0: every address True.  No tree: False.
 */
static int
ip_tree(const struct acreI_bind *b, int fam, const uint8_t *addr)
{
    unsigned n = fam == 4 ? 4 : 16, j = 0;
    int tree = 0, r = F;

    for (unsigned i = 0; i < b->naddrs; i++) {
        const struct acreI_aci_addr *a = &b->addrs[i];
        if (a->family != fam)
            continue;
        unsigned len = prefix_len(a->mask, n), k = lead_bits(addr, a->addr, n);
        if (!len || k >= len) {
            j = len ? len - 1 : 0;
            r = T;
        } else if (!tree || j < k) {
            j = k;
            r = F;
        }
        tree = 1;
    }
    return r;
}

static int
ip_rule(struct ck *c, const struct acreI_bind *b)
{
    uint8_t addr[16];
    int fam;

    /* LASIpEval: no address is a failure, a value it cannot read Invalid */
    if (peer_addr(c->rq->who.peername, &fam, addr))
        return U;
    if (b->ipmode == ACREI_IP_NEVER)
        return I;
    if (b->ipmode == ACREI_IP_TREE) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
                                           0, 0, 0, 0, 0xff, 0xff};
        if (fam == 6 && !memcmp(addr, mapped, 12))
            return ip_tree(b, 4, addr + 12);
        return ip_tree(b, fam, addr);
    }
    for (unsigned i = 0; i < b->naddrs; i++) {
        const struct acreI_aci_addr *a = &b->addrs[i];
        unsigned n = a->family == 4 ? 4 : 16, k = 0;
        if (a->family != fam)
            continue;
        while (k < n && (addr[k] & a->mask[k]) == (a->addr[k] & a->mask[k]))
            k++;
        if (k == n)
            return T;
    }
    return F;
}

/*
 * dns_389 -- does 389's table of dns names p (dns_389 in aci_kw.c: the
 * names joined by ',') take host?  LASDnsBuild keys a name as written, a
 * name "*X" as X (the rest, a '*' in it literal), and "*" alone takes
 * every host (so does "**", keyed "*"); LASDnsMatch looks up, case aside, the
 * whole host name and then each of its tails that starts at a '.' past its
 * first byte.  So
 * "*example.com" takes example.com alone and "*.example.com" the names
 * below it; "*host" never takes localhost.
 */
static int
dns_389(const char *host, const char *p)
{
    size_t hl = strlen(host);

    while (p && *p) {
        size_t n = strcspn(p, ", ");
        const char *e = p[n] ? p + n : NULL;
        const char *key = *p == '*' && n > 1 ? p + 1 : p;
        size_t kn = *p == '*' && n > 1 ? n - 1 : n;
        if (kn == 1 && *key == '*') /* "*" or "**": the key "*" */
            return 1;
        for (const char *t = host; t; t = strchr(t + 1, '.'))
            if ((size_t)(host + hl - t) == kn && !strncasecmp(t, key, kn))
                return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

static int
dns_rule(struct ck *c, const struct acreI_bind *b)
{
    const char *host = c->rq->who.domain, *p = b->text;

    if (!host)
        return U;
    if (c->ix->set->variant == ACREI_ACI_389)
        return dns_389(host, p) ? T : F;
    while (p && *p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && *p == ' ')
            p++, n--;
        while (n && p[n - 1] == ' ')
            n--;
        if (n && glob(p, n, host, strlen(host)))
            return T;
        p = e ? e + 1 : NULL;
    }
    return F;
}

/* method -- the requester's authentication method in 389's words */
static void
method(const struct acre_request *rq, char *out, size_t size)
{
    const char *m = rq->who.auth_method;

    if (!m)
        m = rq->authz ? "simple" : "none";
    if (!strncasecmp(m, "sasl/", 5))
        snprintf(out, size, "sasl %s", m + 5);
    else
        snprintf(out, size, "%s", m);
}

/* auth_matches -- does an authmethod value take method m?  389: "none"
 * takes every method; "sasl MECH" the mechanism; else the same name. */
static int
auth_matches(const char *rule, const char *m)
{
    while (*rule == ' ')
        rule++;
    if (!strcasecmp(rule, "none"))
        return 1;
    if (!strncasecmp(rule, "sasl ", 5) && !strncasecmp(m, "sasl ", 5)) {
        rule += 5;
        m += 5;
        while (*rule == ' ')
            rule++;
    }
    return !strcasecmp(rule, m);
}

static int
cmp_num(enum acreI_aci_op op, long have, long want)
{
    switch (op) {
    case ACREI_ACI_EQ:
        return have == want;
    case ACREI_ACI_NE:
        return have != want;
    case ACREI_ACI_LT:
        return have < want;
    case ACREI_ACI_LE:
        return have <= want;
    case ACREI_ACI_GT:
        return have > want;
    case ACREI_ACI_GE:
        return have >= want;
    }
    return 0;
}

/* timeofday -- the time now (hhmm) against the rule, as 389's
 * LASTimeOfDayEval: a range takes only = (inside it) and != (outside),
 * any other operator, or a range part too long, is Invalid. */
static int
timeofday(const struct acreI_bind *b, long now)
{
    int in;

    if (b->tod == ACREI_TOD_VALUE)
        return cmp_num(b->op, now, b->num) ? T : F;
    if (b->tod == ACREI_TOD_INVALID ||
        (b->op != ACREI_ACI_EQ && b->op != ACREI_ACI_NE))
        return I;
    in = b->num_end >= b->num ? now >= b->num && now <= b->num_end
                              : now >= b->num || now <= b->num_end;
    return in == (b->op == ACREI_ACI_EQ) ? T : F;
}

static void
local_time(const struct acre_request *rq, struct tm *tm)
{
    time_t t = (time_t)rq->who.time; /* set at acre_request_begin */

    localtime_r(&t, tm);
}

static inline __attribute__((always_inline)) int
bind_node(struct ck *c, const struct acreI_bind *b, unsigned depth,
          const int traced);
static int bind_traced(struct ck *c, const struct acreI_bind *b,
                       unsigned depth);

/* bind_rule -- bind rule b for the check: T, F, U or I.  bind_traced is
 * its copy for an explained check, which also reports each keyword test
 * and each "not" it evaluates (bind_node, inlined in both, recurses into
 * its own copy: the ordinary walk tests nothing). */
static int
bind_rule(struct ck *c, const struct acreI_bind *b, unsigned depth)
{
    return bind_node(c, b, depth, 0);
}

static __attribute__((noinline, cold)) int
bind_traced(struct ck *c, const struct acreI_bind *b, unsigned depth)
{
    int r = bind_node(c, b, depth, 1);

    if (b && b->kw != ACREI_ACI_AND && b->kw != ACREI_ACI_OR)
        trace_ev(c, ACREV_ACI_EV_TERM, NULL, NULL, b, r, 0, 0);
    return r;
}

static inline __attribute__((always_inline)) int
bind_node(struct ck *c, const struct acreI_bind *b, unsigned depth,
          const int traced)
{
    int r;
    struct tm tm;
    char m[64];

    if (!b || depth > 64)
        return U;
    /* 389 stores <= and >= with any keyword (ir_aci.h) */
    if (b->op > ACREI_ACI_NE)
        switch (acreI_aci_order_answer(b->kw)) {
        case ACREI_ORDER_FALSE:
            return F;
        case ACREI_ORDER_INVALID:
            return I;
        case ACREI_ORDER_FAIL:
            return U;
        default:
            break;
        }
    switch (b->kw) {
    /* 389 (libaccess) walks a bind rule left to right and stops at the
     * first keyword it cannot evaluate: Undefined (or Invalid) ends the
     * rule whatever follows ("U or T" is Undefined, "F and U" False) */
    case ACREI_ACI_AND:
        r = traced ? bind_traced(c, b->a, depth + 1)
                   : bind_rule(c, b->a, depth + 1);
        if (r != T)
            return r;
        return traced ? bind_traced(c, b->b, depth + 1)
                      : bind_rule(c, b->b, depth + 1);
    case ACREI_ACI_OR:
        r = traced ? bind_traced(c, b->a, depth + 1)
                   : bind_rule(c, b->a, depth + 1);
        if (r != F)
            return r;
        return traced ? bind_traced(c, b->b, depth + 1)
                      : bind_rule(c, b->b, depth + 1);
    case ACREI_ACI_NOT:
        return tri_not(traced ? bind_traced(c, b->a, depth + 1)
                              : bind_rule(c, b->a, depth + 1));
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        r = terms(c, b);
        break;
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return userattr_op(c, b);
    case ACREI_ACI_AUTHMETHOD:
        method(c->rq, m, sizeof m);
        r = auth_matches(b->text, m) ? T : F;
        break;
    case ACREI_ACI_SSF:
        return cmp_num(b->op, (long)c->rq->who.ssf, b->num) ? T : F;
    case ACREI_ACI_IP:
        r = ip_rule(c, b);
        break;
    case ACREI_ACI_DNS:
        r = dns_rule(c, b);
        break;
    case ACREI_ACI_DAYOFWEEK:
        local_time(c->rq, &tm);
        r = (b->days >> tm.tm_wday) & 1 ? T : F;
        break;
    case ACREI_ACI_TIMEOFDAY:
        local_time(c->rq, &tm);
        return timeofday(b, tm.tm_hour * 100L + tm.tm_min);
    default:
        return U;
    }
    return b->op == ACREI_ACI_NE ? tri_not(r) : r;
}

/* rewalk -- an explained check meeting an answer the request kept: the
 * rule is walked again for its terms, the kept answer stands (c->kept
 * says when the walk disagrees); out of line, off the ordinary path */
static __attribute__((noinline, cold)) int
rewalk(struct ck *c, const struct acreP_aci_perm *p, int kept)
{
    int was = c->rq->limit_hit;

    c->rq->limit_hit = 0;
    c->aci_no = p->aci_no;
    c->kept = bind_traced(c, p->perm->bind, 0) != kept;
    c->rq->limit_hit = was; /* what failed on the way decides nothing */
    return kept;
}

static int dj_bind(struct ck *c, const struct acreI_bind *b, unsigned depth);
static int dj_decide(struct ck *c, const struct acreF_desc *d, unsigned rights,
                     int *deny_eval, int *test);
static int dj_visible(struct ck *c);
static int dj_item(void *arg, const struct acreF_desc *d);

/* bind_slot -- where perm p's answer for `rights` is kept: 0 read, 1
 * search (389, an ACI not evaluated per entry: from the first entry that
 * asked), 2 for the request (the rule reads no entry), 3 for the current
 * entry only, 4 by the ACI's answer as 389 keeps it (ACREP_ACI_STATE:
 * acache_kept, else as 2 or 3) */
static inline unsigned
bind_slot(const struct ck *c, const struct acreP_aci_perm *p, unsigned rights)
{
    if (c->ix->set->variant != ACREI_ACI_OPENDJ &&
        !(p->flags & ACREP_ACI_PERENTRY) &&
        (rights & (ACREI_ACI_READ | ACREI_ACI_SEARCH)))
        return p->flags & ACREP_ACI_STATE ? 4 : rights & ACREI_ACI_READ ? 0 : 1;
    return p->flags & ACREP_ACI_ENTRYDEP ? 3 : 2;
}

/*
 * 389's result cache (acl.c acl__TestRights, aclpb_cache_result) for the
 * ACIs it matters to (ACREP_ACI_STATE): per ACI and operation, bits of
 * what the ACI's walk answered for read and for search.  The deny phase
 * (which sees every ACI with a deny rule, whatever its rights) denies on
 * a DENY kept and passes on a SKIP kept, and for search on an ALLOW kept
 * too; for read an ALLOW kept does not spare it the walk.  The allow
 * phase grants on an ALLOW kept and passes on a SKIP kept.  A walk that
 * fails (FAIL) denies and keeps nothing.  ALLOW and SKIP kept for one
 * right make 389 mark the whole entry invalid (-1), after which it walks
 * the ACI afresh every time, for read and search (AC_FRESH).
 */
#define AC_RD    0x01u /* read: DENY kept */
#define AC_RA    0x02u /* read: ALLOW kept */
#define AC_RS    0x04u /* read: SKIP kept */
#define AC_SD    0x08u /* search: DENY */
#define AC_SA    0x10u /* search: ALLOW */
#define AC_SS    0x20u /* search: SKIP */
#define AC_FRESH 0x80u /* invalid: walked afresh from now on */
_Static_assert(AC_SD == AC_RD << 3 && AC_SA == AC_RA << 3 &&
                   AC_SS == AC_RS << 3,
               "a search bit is its read bit shifted by 3 (acache_step)");

/* acache_kept -- perm p's answer (T, F) for `rights` as the ACI's kept
 * answer makes it (a DENY kept: its denies True; an ALLOW kept, where it
 * decides: its allows True; a SKIP kept: all False), or 0 when the ACI is
 * walked afresh (nothing kept, a read ALLOW, AC_FRESH) */
static inline int
acache_kept(const struct ck *c, const struct acreP_aci_perm *p, unsigned rights)
{
    unsigned s = c->st->acache[p->aci_no];

    if (s & AC_FRESH)
        return 0;
    if (rights & ACREI_ACI_READ)
        return s & AC_RD ? (p->deny ? T : F) : s & AC_RS ? F : 0;
    return s & AC_SD   ? (p->deny ? T : F)
           : s & AC_SA ? (p->deny ? F : T)
           : s & AC_SS ? F
                       : 0;
}

static int aci_walk(struct ck *c, uint32_t pi, unsigned rights);

/*
 * acache_step -- 389 has walked the ACI of perm pi for `rights` on the
 * current entry (its deny phase: the ACI has a deny rule): keep what it
 * keeps.  A change of what was kept for a right (a read ALLOW that meets
 * a DENY or a SKIP) makes answers the memos kept for other entries stale:
 * they are not used again in this request.
 */
static void
acache_step(struct ck *c, uint32_t pi, unsigned rights)
{
    struct acreV_aci_rq *st = c->st;
    uint8_t *s = &st->acache[c->ix->perms[pi].aci_no];
    int rd = (rights & ACREI_ACI_READ) != 0, was = c->rq->limit_hit, w;

    if (st->stepping || st->asking || (*s & AC_FRESH))
        return;
    st->stepping = 1;
    c->rq->limit_hit = 0;
    w = aci_walk(c, pi, rights);
    st->stepping = 0;
    if (c->rq->limit_hit) { /* failed: nothing kept, the check denies */
        c->rq->limit_hit |= was;
        return;
    }
    c->rq->limit_hit = was;
    if (w == ACREV_ACI_WALK_FAIL)
        return;
    unsigned mine = rd ? AC_RD | AC_RA | AC_RS : AC_SD | AC_SA | AC_SS;
    unsigned add = w == ACREV_ACI_WALK_DENY    ? AC_RD
                   : w == ACREV_ACI_WALK_ALLOW ? AC_RA
                                               : AC_RS;
    unsigned n = *s | (rd ? add : add << 3);
    if (((n & AC_RA) && (n & AC_RS)) || ((n & AC_SA) && (n & AC_SS)))
        n = AC_FRESH;
    if (n == *s)
        return;
    if ((*s & mine) || n == AC_FRESH) {
        st->vm_off = st->sm_off = 1;
        c->vm = 0;
    }
    *s = (uint8_t)n;
}

/*
 * perm_bind -- perm pi's bind rule for a check of `rights`.  Kept per
 * request: under 389 (aci_index.h: ACREP_ACI_PERENTRY), read and search
 * answers of ACIs 389 does not evaluate per entry are kept from the first
 * entry that asked, as 389 keeps them (ACREP_ACI_STATE ACIs: as the
 * ACI's kept answer makes them, acache); otherwise answers that do not
 * depend on the entry are kept for the request, the others for the
 * current entry (its other attributes ask again: the same answer).
 * bind_at keeps them in a given slot.
 */
static inline __attribute__((always_inline)) int
bind_at(struct ck *c, uint32_t pi, unsigned rights, unsigned slot,
        const int traced)
{
    const struct acreP_aci_perm *p = &c->ix->perms[pi];
    int opendj = c->ix->set->variant == ACREI_ACI_OPENDJ;
    int r;

    if (slot < 3 && c->st->bind[pi * 3 + slot]) {
        if (traced)
            return rewalk(c, p, c->st->bind[pi * 3 + slot]);
        return c->st->bind[pi * 3 + slot];
    }
    if (slot == 3 && c->st->ebind_epoch[pi] == c->st->epoch) {
        if (traced)
            return rewalk(c, p, c->st->ebind[pi]);
        if (c->st->rec)
            rec_once(c->st, &c->st->rec_bind[pi], DEP_BIND, pi,
                     c->st->ebind[pi]);
        return c->st->ebind[pi];
    }
    int was = c->rq->limit_hit;
    c->rq->limit_hit = 0;
    c->aci_no = p->aci_no;
    c->rights = rights;
    r = opendj   ? dj_bind(c, p->perm->bind, 0)
        : traced ? bind_traced(c, p->perm->bind, 0)
                 : bind_rule(c, p->perm->bind, 0);
    if (c->rq->limit_hit)
        r = U; /* a failed lookup: fail closed */
    else if (slot < 3)
        c->st->bind[pi * 3 + slot] = (uint8_t)r;
    else {
        c->st->ebind[pi] = (uint8_t)r;
        c->st->ebind_epoch[pi] = c->st->epoch;
    }
    if (slot == 3 && c->st->rec)
        rec_once(c->st, &c->st->rec_bind[pi], DEP_BIND, pi, r);
    c->rq->limit_hit |= was;
    return r;
}

static inline __attribute__((always_inline)) int
perm_bind_(struct ck *c, uint32_t pi, unsigned rights, const int traced)
{
    const struct acreP_aci_perm *p = &c->ix->perms[pi];
    unsigned slot = bind_slot(c, p, rights);
    int r;

    if (__builtin_expect(slot == 4, 0)) {
        if ((r = acache_kept(c, p, rights)))
            return traced ? rewalk(c, p, r) : r;
        r = bind_at(c, pi, rights, p->flags & ACREP_ACI_ENTRYDEP ? 3 : 2,
                    traced);
        acache_step(c, pi, rights);
        return r;
    }
    return bind_at(c, pi, rights, slot, traced);
}

/* bind_kept -- perm pi's answer for `rights` when the request keeps it
 * (perm_bind's slots 0 to 2) and has it; else 0 */
static inline int
bind_kept(struct ck *c, uint32_t pi, unsigned rights)
{
    unsigned slot = bind_slot(c, &c->ix->perms[pi], rights);

    return slot < 3    ? c->st->bind[pi * 3 + slot]
           : slot == 4 ? acache_kept(c, &c->ix->perms[pi], rights)
                       : 0;
}

static int
perm_bind(struct ck *c, uint32_t pi, unsigned rights)
{
    return perm_bind_(c, pi, rights, 0);
}

/* bind_asked -- perm_bind for a memo's question: the entry's answer, with
 * no step of 389's cache (the question is the memo's, not 389's walk) */
static int
bind_asked(struct ck *c, uint32_t pi, unsigned rights)
{
    int r;

    c->st->asking = 1;
    r = perm_bind(c, pi, rights);
    c->st->asking = 0;
    return r;
}

/* ------------------------------------------------------------------------
 * Decisions
 */

/* aci_walk's answers (aci_index.h); an error is the bind-rule answer
 * that made it */
#define WALK_ALLOW ACREV_ACI_WALK_ALLOW
#define WALK_DENY  ACREV_ACI_WALK_DENY
#define WALK_FAIL  ACREV_ACI_WALK_FAIL
_Static_assert(WALK_FAIL == U && ACREV_ACI_WALK_INVALID == I,
               "a walk's error is the bind rule's answer");

/*
 * aci_walk -- 389's libaccess on the ACI of perm pi for `rights`
 * (ACL_INTEvalTestRights): its perms for the right in text order, every
 * deny absolute (aclparse.c writes "deny absolute").  A deny True ends
 * the walk with DENY, a deny Undefined or Invalid with its error; but
 * an error an allow left before either ends it instead.  An allow True
 * makes the answer ALLOW and forgets an allow's error; an allow
 * Undefined or Invalid is kept, when no error is.  At the end: ALLOW,
 * else the error kept, else nothing.  For ACREP_ACI_ORDERED perms, whose
 * order can matter: 389's deny phase denies at DENY or FAIL (acl.c:
 * acl__TestRights) and goes on at INVALID; its allow phase grants at
 * ALLOW only.  The perms' answers are perm_bind's, kept as ever.
 */
static int
aci_walk(struct ck *c, uint32_t pi, unsigned rights)
{
    const struct acreP_aci_perm *p0 = &c->ix->perms[pi];
    uint32_t end = p0->aci_first + p0->aci->nperms;
    int err = 0, allowed = 0;

    for (uint32_t q = p0->aci_first; q < end; q++) {
        const struct acreP_aci_perm *p = &c->ix->perms[q];
        if (!(p->rights & rights))
            continue;
        int b = perm_bind(c, q, rights);
        if (b == U || b == I) {
            if (p->deny)
                return err ? err : b;
            if (!err)
                err = b;
        } else if (b == T) {
            if (p->deny)
                return err ? err : WALK_DENY;
            allowed = 1;
            err = 0;
        }
    }
    return allowed ? WALK_ALLOW : err;
}

/* fires -- does perm pi, whose bind rule answered b, deny (a deny perm)
 * or grant (an allow)?  Alone, a deny whose rule is not False denies and
 * an allow whose rule is True grants; in an ACREP_ACI_ORDERED ACI the
 * ACI's walk decides. */
static inline int
fires(struct ck *c, uint32_t pi, unsigned rights, int b)
{
    const struct acreP_aci_perm *p = &c->ix->perms[pi];

    if (p->deny ? b == F : b != T)
        return 0;
    if (__builtin_expect(!(p->flags & ACREP_ACI_ORDERED), 1))
        return 1;
    int w = aci_walk(c, pi, rights);
    return p->deny ? w == WALK_DENY || w == WALK_FAIL : w == WALK_ALLOW;
}

/* anon_said -- what the anonymous profile decided (r), told to an
 * explained check */
static int
anon_said(struct ck *c, const struct acreI_aci *a, int r)
{
    if (c->tr)
        trace_ev(c, ACREV_ACI_EV_ANON, NULL, a, NULL, r, 0, 0);
    return r;
}

/* anon_takes -- does anon[k] of the profile take the current entry?
 * Once per entry and ACI. */
static int
anon_takes(struct ck *c, unsigned k)
{
    struct acreV_aci_rq *st = c->st;
    uint64_t bit = (uint64_t)1 << k;

    if (st->anon_epoch != st->epoch) {
        st->anon_done = st->anon_mask = 0;
        st->anon_epoch = st->epoch;
    }
    if (!(st->anon_done & bit)) {
        const struct acreP_aci_anon *pa = &c->ix->anon[k];
        const struct acreI_aci_target *t = &pa->aci->t;
        int m =
            pa->target && /* NULL: a target no entry is under */
            in_scope(c->e->dn, pa->target, ACRE_SCOPE_SUB) &&
            (acre_dn_depth(pa->target) != 0 || acre_dn_depth(c->e->dn) == 0);
        if (m && (t->has & ACREI_ACI_T_FILTER) && t->filter)
            m = tfilter(c, pa->aci_no) == ACREF_TRUE;
        else if (m && pa->raw_filter) /* a macro one, unexpanded */
            m = acreV_filter_eval(c->rq, pa->raw_filter, c->e, &st->fhooks) ==
                ACREF_TRUE;
        st->anon_done |= bit;
        if (m)
            st->anon_mask |= bit;
    }
    if (st->rec && !(st->anon_rec & bit)) {
        st->anon_rec |= bit;
        if (st->sm_rec)
            sm_mark_new(st, DEP_ANON, k);
        rec_put(st, DEP_ANON, k, st->anon_mask & bit ? T : F);
    } else if (st->rec && st->sm_rec) {
        sm_seen(st, DEP_ANON, k);
    }
    return (st->anon_mask & bit) != 0;
}

/* anon -- 389's anonymous profile (aci_index.h) for `rights` on d (NULL:
 * the entry): 1 granted, 0 denied, -1 no profile ACI takes the entry
 * (decide the normal way). */
static int
anon(struct ck *c, const struct acreF_desc *d, unsigned rights)
{
    const struct acreP_aci *ix = c->ix;
    int taken = 0;

    for (unsigned k = 0; k < ix->nanon; k++) {
        const struct acreP_aci_anon *pa = &ix->anon[k];
        const struct acreI_aci_target *t = &pa->aci->t;
        if (!anon_takes(c, k))
            continue;
        if (!(pa->rights & rights))
            continue;
        taken++;
        if (!d)
            return anon_said(c, pa->aci, 1);
        int m = t->attr_star;
        for (unsigned i = 0; !m && d->type >= 0 && i < t->nattrs; i++) {
            const struct acreS_dinfo *w =
                acreS_desc_of(c->rq->schema, t->attrs[i]);
            m = w && w->type == d->type;
        }
        if (t->attr_neg ? !m : m)
            return anon_said(c, pa->aci, 1);
    }
    return taken ? anon_said(c, NULL, 0) : -1;
}

/* profile -- anon() when 389 asks its anonymous profile: for read and
 * search, when the DN *bound* is anonymous (acl_access_allowed's
 * clientDn, SLAPI_REQUESTOR_DN), whatever DN a proxied authorization
 * names, and before it asks the bound DN's proxy right; -1 otherwise. */
static int
profile(struct ck *c, const struct acreF_desc *d, unsigned rights)
{
    if (c->rq->authc || !c->ix->anon_valid ||
        !(rights & (ACREI_ACI_READ | ACREI_ACI_SEARCH)))
        return -1;
    return anon(c, d, rights);
}

/* split -- the current entry's candidates that have one of `rights`,
 * denies first, for decide (kept for the next entries of the same
 * deepest holder, until other rights are checked). */
static void
split(struct ck *c, unsigned rights)
{
    struct acreV_aci_rq *st = c->st;
    uint32_t n = 0, nmixed = 0;

    cands(c);
    st->first[0] = st->first[1] = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < st->ncand; i++) {
            const struct acreP_aci_perm *p = &c->ix->perms[st->cand[i]];
            if (p->deny == (pass == 0) && (p->rights & rights)) {
                st->split[n++] = st->cand[i];
                nmixed += pass == 1 && p->aci_deny;
                st->first[pass] |= (p->flags & ACREP_ACI_FIRST) != 0;
            }
        }
        if (pass == 0)
            st->ndeny = n;
    }
    st->nsplit = n;
    st->nmixed = nmixed;
    st->split_rights = rights;
    st->split_holder = st->holder;
}

/* takes -- does perm pi take this check (targetattr, target, moddn's
 * target_to)?  Its rights are the caller's to test. */
static int
takes(struct ck *c, uint32_t pi, const struct acreF_desc *d, unsigned rights,
      int moddn)
{
    const struct acreP_aci_perm *p = &c->ix->perms[pi];

    return attr_match(c, p, d, rights) && target_match(c, p->aci, p->aci_no) &&
           (!moddn || moddn_to(c, p->aci));
}

/*
 * ordered_part -- one part of split[] (the denies, deny set, or the
 * allows), from..to, decided in 389's order (acl__scan_for_acis,
 * acl__TestRights): the first ACI of each level (ACREP_ACI_LEVELS) that
 * takes the check, by level, then the other ACIs in list order.  Only a
 * part holding an ACREP_ACI_FIRST perm needs it: the order decides which
 * entry asks such a rule first, and so its answer for the operation.
 * 1 when a deny denies (deny set) or an allow grants, else 0.
 */
static int
ordered_part(struct ck *c, uint32_t from, uint32_t to,
             const struct acreF_desc *d, unsigned rights, int moddn, int deny)
{
    const uint32_t *sp = c->st->split;
    uint32_t slot[ACREP_ACI_LEVELS];

    for (unsigned l = 0; l < ACREP_ACI_LEVELS; l++)
        slot[l] = UINT32_MAX;
    for (uint32_t i = from; i < to; i++) {
        const struct acreP_aci_perm *p = &c->ix->perms[sp[i]];
        if (slot[p->level] == UINT32_MAX && takes(c, sp[i], d, rights, moddn))
            slot[p->level] = p->aci_no;
    }
    for (unsigned l = 0; l <= ACREP_ACI_LEVELS; l++) {
        for (uint32_t i = from; i < to; i++) {
            const struct acreP_aci_perm *p = &c->ix->perms[sp[i]];
            int in_slot = slot[p->level] == p->aci_no;
            if ((l < ACREP_ACI_LEVELS ? !in_slot || p->level != l : in_slot) ||
                !takes(c, sp[i], d, rights, moddn))
                continue;
            if (fires(c, sp[i], rights, perm_bind(c, sp[i], rights)))
                return 1;
        }
    }
    return 0;
}

/*
 * mixed_fail -- 389's deny phase hands each ACI with a deny rule to
 * libaccess whole (acl__TestRights, ACL_INTEvalTestRights): an allow of
 * that ACI for the right whose bind rule fails (Undefined), when no
 * allow of it is True, makes the ACI's answer an error, which the deny
 * phase takes as a deny (ACL_RES_FAIL); in an ACREP_ACI_ORDERED ACI its
 * walk decides.  list[from..to): the candidate perms to look through
 * (allows of such ACIs are the ones weighed).
 */
static int
mixed_fail(struct ck *c, const uint32_t *list, uint32_t from, uint32_t to,
           const struct acreF_desc *d, unsigned rights, int moddn)
{
    for (uint32_t i = from; i < to; i++) {
        uint32_t pi = list[i];
        const struct acreP_aci_perm *p = &c->ix->perms[pi];
        if (p->deny || !p->aci_deny || !(p->rights & rights) ||
            !takes(c, pi, d, rights, moddn) || perm_bind(c, pi, rights) != U)
            continue;
        if (p->flags & ACREP_ACI_ORDERED) {
            int w = aci_walk(c, pi, rights);
            if (w == WALK_DENY || w == WALK_FAIL)
                return 1;
            continue;
        }
        int t = 0;
        for (uint32_t k = from; !t && k < to; k++) {
            uint32_t pk = list[k];
            const struct acreP_aci_perm *q = &c->ix->perms[pk];
            t = pk != pi && !q->deny && q->aci_no == p->aci_no &&
                (q->rights & rights) && takes(c, pk, d, rights, moddn) &&
                perm_bind(c, pk, rights) == T;
        }
        if (!t)
            return 1;
    }
    return 0;
}

/* decide_ -- `rights` on attribute id (entry level: id < 0) of the
 * current entry; `traced` (a constant) tells each step to c->tr: decide
 * and decide_traced are its copies, the ordinary ones without a trace
 * test; `moddn`: a moddn check, which also tests target_to. */
static inline __attribute__((always_inline)) int
decide_(struct ck *c, const struct acreF_desc *d, unsigned rights,
        const int traced, const int moddn)
{
    int allow = 0, was = c->rq->limit_hit;

    if (c->st->root) {
        if (traced)
            trace(c, ACREV_ACI_EV_ROOT, NULL, 1, 0);
        return 1;
    }
    if (c->ix->set->variant == ACREI_ACI_OPENDJ)
        return dj_decide(c, d, rights, NULL, NULL);
    if (!c->st->px) {
        int r = profile(c, d, rights);
        if (r >= 0)
            return r;
    }
    if (!traced) {
        if (c->st->split_rights != rights ||
            c->st->split_holder != c->st->holder)
            split(c, rights);
        /* the denies first, then the allows (split: both in cand[]'s
         * order) */
        for (uint32_t i = 0; i < c->st->nsplit; i++) {
            uint32_t pi = c->st->split[i];
            const struct acreP_aci_perm *p = &c->ix->perms[pi];
            if (i == c->st->ndeny && c->st->nmixed &&
                mixed_fail(c, c->st->split, c->st->ndeny, c->st->nsplit, d,
                           rights, moddn))
                return 0;
            if (i == 0 && c->st->first[0]) { /* 389's order: see there */
                if (ordered_part(c, 0, c->st->ndeny, d, rights, moddn, 1))
                    return 0;
                if ((i = c->st->ndeny) == c->st->nsplit)
                    break;
                pi = c->st->split[i];
                p = &c->ix->perms[pi];
                if (c->st->nmixed &&
                    mixed_fail(c, c->st->split, c->st->ndeny, c->st->nsplit, d,
                               rights, moddn))
                    return 0;
            }
            if (i == c->st->ndeny && c->st->first[1]) {
                allow = ordered_part(c, i, c->st->nsplit, d, rights, moddn, 0);
                break;
            }
            if (!attr_match(c, p, d, rights))
                continue;
            /* an answer the request keeps that leaves the perm nothing
             * to decide spares its target (never one asked early: 389
             * keeps the first entry's) */
            int k = bind_kept(c, pi, rights);
            if (k && (i < c->st->ndeny ? k == F : k != T))
                continue;
            if (!target_match(c, p->aci, p->aci_no))
                continue;
            if (moddn && !moddn_to(c, p->aci))
                continue;
            if (fires(c, pi, rights, perm_bind(c, pi, rights))) {
                if (i < c->st->ndeny)
                    return 0;
                allow = 1;
                break;
            }
        }
    } else {
        /* every candidate, each skipped one told with its reason */
        cands(c);
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 &&
                mixed_fail(c, c->st->cand, 0, c->st->ncand, d, rights, moddn))
                return 0; /* decided by no one perm: no decider */
            for (uint32_t i = 0; i < c->st->ncand; i++) {
                uint32_t pi = c->st->cand[i];
                const struct acreP_aci_perm *p = &c->ix->perms[pi];
                if (p->deny != (pass == 0))
                    continue;
                int why = !(p->rights & rights)          ? ACREV_ACI_WHY_RIGHTS
                          : !attr_match(c, p, d, rights) ? ACREV_ACI_WHY_ATTR
                          : !target_match(c, p->aci, p->aci_no) ||
                                  (moddn && !moddn_to(c, p->aci))
                              ? ACREV_ACI_WHY_TARGET
                              : 0;
                if (why) {
                    trace(c, ACREV_ACI_EV_SKIP, p, 0, why);
                    continue;
                }
                c->kept = 0; /* rewalk sets it */
                int b = perm_bind_(c, pi, rights, traced);
                trace_ev(c, ACREV_ACI_EV_PERM, p, p->aci, NULL, b,
                         p->flags & ACREP_ACI_ORDERED
                             ? 1 + aci_walk(c, pi, rights)
                             : 0,
                         c->kept);
                if (!fires(c, pi, rights, b))
                    continue;
                c->by = p;
                if (pass == 0)
                    return 0;
                allow = 1;
                break;
            }
        }
    }
    /* anything that failed on the way (a target's allocation, a lookup)
     * denies, even when an allow was found */
    if (c->rq->limit_hit && !was)
        return 0;
    return allow;
}

/* ------------------------------------------------------------------------
 * The walk memo (see struct vm_walk)
 */

static int entry_denied_(struct ck *c);

/* vm_usable -- may this check go through the memo? */
static inline int
vm_usable(struct ck *c, const struct acreF_desc *d)
{
    /* a type the schema does not know (-1) would meet VM_ENTRY's key */
    return c->vm && !c->wkind && !c->tr && !c->st->rec && !c->rq->limit_hit &&
           (!d || (!d->nopts && d->type >= 0));
}

static inline uint64_t
vm_hash(uint32_t holder, int type, unsigned rights)
{
    uint64_t h = ((uint64_t)holder << 32 | (uint32_t)type) ^
                 (uint64_t)rights * 0x9e3779b97f4a7c15ull;

    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

/* vm_match -- are the entry's answers to v's questions v's?  1 yes, 0
 * no, -1 a lookup failed on the way */
static int
vm_match(struct ck *c, const struct vm_variant *v, unsigned rights)
{
    for (uint32_t i = 0; i < v->ndeps; i++) {
        const struct vm_dep *d = &v->deps[i];
        int r;
        if (d->kind == DEP_TGT)
            r = target_match(c, &c->ix->set->acis[d->idx], d->idx) ? T : F;
        else if (d->kind == DEP_BIND)
            r = bind_asked(c, d->idx, rights);
        else
            r = anon_takes(c, d->idx) ? T : F;
        if (c->rq->limit_hit)
            return -1;
        if (r != d->r)
            return 0;
    }
    return 1;
}

/* vm_store -- keep the walk just recorded, with answer r, as a variant
 * of w (NULL: a new walk in bucket b); a failed allocation keeps nothing
 * (the memo saves time, it decides nothing) */
static void
vm_store(struct ck *c, struct vm_walk *w, struct vm_walk **b, int type,
         unsigned rights, int r)
{
    struct acreV_aci_rq *st = c->st;
    struct vm_variant *v, **at;
    size_t vsize = sizeof *v + st->ndeps * sizeof *v->deps;

    if (st->vm_bytes + vsize + sizeof *w > VM_BYTES)
        return;
    if (!w) {
        if (st->vm_nwalks == VM_WALKS || !(w = talloc_zero(st, struct vm_walk)))
            return;
        st->vm_bytes += sizeof *w;
        w->holder = st->holder;
        w->type = type;
        w->rights = rights;
        w->next = *b;
        *b = w;
        st->vm_nwalks++;
    }
    if (w->nv == VM_VARIANTS || !(v = talloc_size(w, vsize)))
        return;
    st->vm_bytes += vsize;
    talloc_set_name_const(v, "struct vm_variant");
    v->next = NULL;
    v->ndeps = st->ndeps;
    v->r = (uint8_t)r;
    memcpy(v->deps, st->deps, st->ndeps * sizeof *v->deps);
    for (at = &w->v; *at; at = &(*at)->next)
        ;
    *at = v;
    w->nv++;
}

/* vm_walk -- decide_ (type an attribute type or VM_ENTRY) or
 * entry_denied_ (VM_DENIED) through the memo */
static int
vm_walk(struct ck *c, const struct acreF_desc *d, int type, unsigned rights)
{
    struct acreV_aci_rq *st = c->st;
    struct vm_walk **b, *w;
    int r;

    if (!st->vm &&
        !(st->vm = talloc_zero_array(st, struct vm_walk *, VM_BUCKETS))) {
        st->vm_off = 1;
        c->vm = 0;
        return type == VM_DENIED ? entry_denied_(c)
                                 : decide_(c, d, rights, 0, 0);
    }
    b = &st->vm[vm_hash(st->holder, type, rights) & (VM_BUCKETS - 1)];
    for (w = *b; w; w = w->next)
        if (w->holder == st->holder && w->type == type && w->rights == rights)
            break;
    for (const struct vm_variant *v = w ? w->v : NULL; v; v = v->next) {
        int m = vm_match(c, v, rights);
        if (m > 0)
            return v->r;
        if (m < 0) /* as the walk: a failure on the way denies */
            return type == VM_DENIED;
    }
    rec_next(c);
    st->rec = 1;
    st->ndeps = 0;
    st->anon_rec = 0;
    r = type == VM_DENIED ? entry_denied_(c) : decide_(c, d, rights, 0, 0);
    if (st->rec && !c->rq->limit_hit && !c->rq->err)
        vm_store(c, w, b, type, rights, r);
    st->rec = 0;
    return r;
}

/* ------------------------------------------------------------------------
 * The shape memo (see struct sm_node)
 */

/* sm_alloc -- n zeroed bytes of the request's memo, or NULL (full) */
static void *
sm_alloc(struct acreV_aci_rq *st, size_t n)
{
    void *p;

    n = (n + 15) & ~(size_t)15;
    if (n > st->sm_left) {
        if (n > SM_CHUNK || st->sm_bytes + SM_CHUNK > SM_BYTES ||
            !(st->sm_chunk = talloc_zero_size(st, SM_CHUNK)))
            return NULL;
        st->sm_bytes += SM_CHUNK;
        st->sm_left = SM_CHUNK;
    }
    p = st->sm_chunk;
    st->sm_chunk += n;
    st->sm_left -= n;
    return p;
}

/* sm_init -- the memo's tables, at its first use; 0, or -1 (no memo for
 * this request) */
static int
sm_init(struct ck *c)
{
    struct acreV_aci_rq *st = c->st;
    size_t nt = (size_t)c->ix->attr_words * 64;
    size_t na = c->ix->set->n ? c->ix->set->n : 1;
    size_t np = c->ix->nperms ? c->ix->nperms : 1;

    if (c->ix->nholders >= SM_HOLDERS || !nt ||
        !(st->sm_root =
              talloc_zero_array(st, struct sm_node *, c->ix->nholders + 1)) ||
        !(st->sm_known = talloc_zero_array(st, uint32_t, nt)) ||
        !(st->sm_need = talloc_zero_array(st, uint32_t, nt)) ||
        !(st->sm_at = talloc_zero_array(st, uint32_t, nt)) ||
        !(st->sm_read = talloc_zero_array(st, uint8_t, nt)) ||
        !(st->sm_path = talloc_zero_array(st, struct sm_node *, SM_PATH)) ||
        !(st->sm_pos_tgt = talloc_zero_array(st, uint32_t, na)) ||
        !(st->sm_pos_bind = talloc_zero_array(st, uint32_t, np))) {
        st->sm_off = 1;
        return -1;
    }
    return 0;
}

/* sm_ask -- the current entry's answer to question q (not recorded) */
static int
sm_ask(struct ck *c, const struct vm_dep *q)
{
    if (q->kind == DEP_TGT)
        return target_match(c, &c->ix->set->acis[q->idx], q->idx) ? T : F;
    if (q->kind == DEP_BIND)
        return bind_asked(c, q->idx, ACREI_ACI_READ);
    return anon_takes(c, q->idx) ? T : F;
}

/* sm_mark -- q is asked on the entry's path at position pos: a walk
 * recorded now does not record it again, and knows where it is */
static void
sm_mark(struct acreV_aci_rq *st, const struct vm_dep *q, uint32_t pos)
{
    if (q->kind == DEP_TGT) {
        st->rec_tgt[q->idx] = st->rec_no;
        st->sm_pos_tgt[q->idx] = pos;
    } else if (q->kind == DEP_BIND) {
        st->rec_bind[q->idx] = st->rec_no;
        st->sm_pos_bind[q->idx] = pos;
    } else {
        st->anon_rec |= (uint64_t)1 << q->idx;
        st->sm_pos_anon[q->idx] = pos;
    }
}

/* sm_take -- collect what node n keeps; 1 when the entry needs nothing
 * more (each of its types known, and entry_denied) */
static int
sm_take(struct ck *c, const struct sm_node *n)
{
    struct acreV_aci_rq *st = c->st;
    uint32_t ep = st->epoch, missing = st->sm_missing;
    uint32_t *known = st->sm_known;     /* locals: the byte stores could */
    const uint32_t *need = st->sm_need; /* alias them */
    uint8_t *readable = st->sm_read;

    if (n->denied)
        c->sm_denied = n->denied;
    for (const struct sm_ans *a = n->ans; a; a = a->next) {
        uint32_t t = a->tr >> 1;
        if (known[t] != ep) {
            known[t] = ep;
            readable[t] = (uint8_t)(a->tr & 1);
            missing -= need[t] == ep;
        }
    }
    st->sm_missing = missing;
    return !missing && c->sm_denied;
}

/* sm_type -- may the memo answer read on d? */
static inline int
sm_type(const struct ck *c, const struct acreF_desc *d)
{
    return d && !d->nopts && d->type >= 0 &&
           (unsigned)d->type < c->ix->attr_words * 64u && !c->rq->limit_hit;
}

/*
 * sm_begin -- the current entry (begun) down its holder's tree: c->sm
 * set when the memo answers its read checks.  0, or -1 when a question
 * failed on the way (nothing is left of it in rq; the caller begins the
 * entry again and decides it without the memo).
 */
static int
sm_begin(struct ck *c)
{
    struct acre_request *rq = c->rq;
    struct acreV_aci_rq *st = c->st;
    int err = rq->err, code = rq->limit_code;
    unsigned nt = c->ix->attr_words * 64u, nh = acreS_ntypes(rq->schema);
    uint32_t ep = st->epoch;
    struct sm_node **at, *n;

    if (!c->vm || st->sm_off)
        return 0;
    if (st->holder &&
        c->ix->holders[st->holder - 1].depth == acre_dn_depth(c->e->dn)) {
        /* the entry holds ACIs: its walks are asked again only by
         * entries below it (a person holding an ACI of their own has
         * none), so it is decided without the memos */
        c->vm = 0;
        return 0;
    }
    if (!st->sm_root && sm_init(c))
        return 0;
    int whole = 1; /* each attribute in the map (tfilter) */
    uint32_t missing = 0, *need = st->sm_need, *pos = st->sm_at;
    const acre_view_attr *attrs = c->e->attrs;
    for (unsigned i = 0, na = c->e->nattrs; i < na; i++) {
        int type = attrs[i].id; /* below nh: a type alone */
        if ((unsigned)type >= nh) {
            const struct acreS_dinfo *w = acreS_desc_of(rq->schema, type);
            type = w && !w->nopts ? w->type : -1;
        }
        if (type >= 0 && (unsigned)type < nt && need[type] != ep) {
            need[type] = ep;
            pos[type] = i;
            missing++;
        } else {
            whole = 0;
        }
    }
    st->sm_missing = missing;
    st->tm_epoch = whole ? ep : 0;
    rec_next(c);
    st->anon_rec = 0;
    st->sm_npath = 0;
    c->sm_denied = 0;
    c->sm_cur = NULL;
    c->sm_at = NULL;
    at = &st->sm_root[st->holder];
    for (n = *at; n; n = *at) {
        if (sm_take(c, n) || st->sm_npath == SM_PATH)
            break; /* nothing to store: sm_cur and sm_at NULL */
        st->sm_path[st->sm_npath++] = n;
        if (!n->q.kind) {
            c->sm_cur = n;
            break;
        }
        int a = sm_ask(c, &n->q);
        if (rq->limit_hit) {
            rq->limit_hit = 0;
            rq->limit_code = code;
            rq->err = err;
            return -1;
        }
        sm_mark(st, &n->q, st->sm_npath - 1);
        at = &n->child[a - 1];
    }
    if (!n)
        c->sm_at = at;
    c->sm = 1;
    return 0;
}

/* sm_start -- start recording a walk for the shape memo; 0 when nothing
 * can be stored (the caller walks as without the memo) */
static int
sm_start(struct ck *c)
{
    struct acreV_aci_rq *st = c->st;

    if (!c->sm_cur && !c->sm_at)
        return 0;
    st->rec = 1;
    st->sm_rec = 1;
    st->sm_deep = 0;
    st->ndeps = 0;
    return 1;
}

/* sm_end -- where the walk just recorded is kept: the node below the
 * deepest path question it asked, or the end of a chain of the
 * questions it asked first, appended below the path; NULL when nothing
 * can be stored (the entry then stores nothing more: its later walks'
 * marks would assume questions on a path not made) */
static struct sm_node *
sm_end(struct ck *c)
{
    struct acreV_aci_rq *st = c->st;
    struct sm_node *n = c->sm_cur, **at = c->sm_at;
    int ok = st->rec && !c->rq->limit_hit && !c->rq->err;

    st->rec = 0;
    st->sm_rec = 0;
    c->sm_cur = NULL;
    c->sm_at = NULL;
    if (!ok)
        return NULL;
    if (!st->ndeps && st->sm_deep < st->sm_npath) {
        c->sm_cur = n;
        c->sm_at = at;
        return st->sm_path[st->sm_deep];
    }
    if (!n) {
        if (!at || st->sm_npath == SM_PATH || !(n = sm_alloc(st, sizeof *n)))
            return NULL;
        *at = n;
        st->sm_path[st->sm_npath++] = n;
    }
    for (uint32_t i = 0; i < st->ndeps; i++) {
        struct sm_node *m;
        if (st->sm_npath == SM_PATH || !(m = sm_alloc(st, sizeof *m)))
            return NULL;
        n->q = st->deps[i];
        n->child[st->deps[i].r - 1] = m;
        sm_mark(st, &n->q, st->sm_npath - 1);
        st->sm_path[st->sm_npath++] = m;
        n = m;
    }
    c->sm_cur = n;
    return n;
}

/* sm_read -- read on d (sm_type) through the memo */
static int
sm_read(struct ck *c, const struct acreF_desc *d)
{
    struct acreV_aci_rq *st = c->st;
    uint32_t t = (uint32_t)d->type;
    struct sm_node *n;
    struct sm_ans *a;
    int r;

    if (st->sm_known[t] == st->epoch)
        return st->sm_read[t];
    if (!sm_start(c))
        return vm_usable(c, d) ? vm_walk(c, d, d->type, ACREI_ACI_READ)
                               : decide_(c, d, ACREI_ACI_READ, 0, 0);
    r = decide_(c, d, ACREI_ACI_READ, 0, 0);
    if (!(n = sm_end(c)))
        return r;
    if (!(a = sm_alloc(st, sizeof *a))) {
        c->sm_cur = NULL;
        c->sm_at = NULL;
        return r;
    }
    a->tr = t << 1 | (r != 0);
    a->next = n->ans;
    n->ans = a;
    st->sm_known[t] = st->epoch;
    st->sm_read[t] = (uint8_t)(r != 0);
    return r;
}

/* sm_denied -- entry_denied through the memo */
static int
sm_denied(struct ck *c)
{
    struct sm_node *n;
    int r;

    if (c->sm_denied)
        return c->sm_denied == T;
    if (!sm_start(c))
        return vm_usable(c, NULL) ? vm_walk(c, NULL, VM_DENIED, ACREI_ACI_READ)
                                  : entry_denied_(c);
    r = entry_denied_(c);
    if ((n = sm_end(c)))
        n->denied = c->sm_denied = r ? T : F;
    return r;
}

static int
decide(struct ck *c, const struct acreF_desc *d, unsigned rights)
{
    /* proxied authorization: the anonymous profile when the DN bound is
     * anonymous, then the DN bound's proxy right */
    if (c->st->px) {
        int r = profile(c, d, rights);
        if (r >= 0)
            return r;
        if (!proxy_gate(c->rq, c->st, c->e, d))
            return 0;
    }
    /* moddn (asked by get-effective-rights alone) in a copy of its own */
    if (rights & ACREI_ACI_MODDN)
        return decide_(c, d, rights, 0, 1);
    if (c->sm && rights == ACREI_ACI_READ && sm_type(c, d))
        return sm_read(c, d);
    if (vm_usable(c, d))
        return vm_walk(c, d, d ? d->type : VM_ENTRY, rights);
    return decide_(c, d, rights, 0, 0);
}

static __attribute__((noinline)) int
decide_traced(struct ck *c, const struct acreF_desc *d, unsigned rights)
{
    return decide_(c, d, rights, 1, (rights & ACREI_ACI_MODDN) != 0);
}

int
acreV_aci_check(struct acre_request *rq, const acre_entry_view *e,
                const struct acreF_desc *attr, unsigned rights)
{
    struct ck c;

    if (begin(&c, rq, e))
        return 0;
    return decide(&c, attr, rights);
}

/* is_self_value -- 389's "adding or deleting myself" test: a value of a
 * DN or Name-and-Optional-UID attribute that names the requester: 389
 * normalises the value as a DN and compares it with the requester's
 * normalised DN as strings (acl_access_allowed), whatever the
 * attribute's equality rule -- nsRoleDN has none */
static int
is_self_value(struct ck *c, int type)
{
    const struct acreS_attr *at = acreS_attr(c->rq->schema, type);
    int syn = at && at->syntax
                  ? acreM_syntax_find(at->syntax, strlen(at->syntax))
                  : ACREM_SYN_UNKNOWN;

    if (!c->rq->authz || !c->val || !c->val_len ||
        (syn != ACREM_SYN_DN && syn != ACREM_SYN_NAME_UID))
        return 0;
    acre_dn *d;
    size_t n;
    if (acre_dn_parse(NULL, c->rq->schema, c->val, c->val_len, 0, &d, NULL))
        return 0; /* not a DN, or no memory: not the requester */
    const char *norm = acre_dn_normalised(d, &n);
    int self =
        norm && n == c->rq->authz_len && !memcmp(norm, c->rq->authz_norm, n);
    acre_dn_free(d);
    return self;
}

int
acreV_aci_access(struct acre_request *rq, const acre_entry_view *e,
                 const struct acreF_desc *attr, int right, const void *val,
                 size_t val_len)
{
    struct ck c;
    unsigned r = acreV_aci_rights(right, attr == NULL);

    if (!r || begin(&c, rq, e))
        return 0;
    if (right == ACRE_RIGHT_ADD || right == ACRE_RIGHT_DELETE ||
        right == ACRE_RIGHT_WRITE) {
        c.wkind = right == ACRE_RIGHT_ADD      ? 'a'
                  : right == ACRE_RIGHT_DELETE ? 'd'
                                               : 'w';
        c.val = attr ? val : NULL;
        c.val_len = attr ? val_len : 0;
    }
    /* 389: writing one's own DN is tested as selfwrite first, then as
     * write (acl_access_allowed's second acl__TestRights) */
    if (attr && r == ACREI_ACI_WRITE && attr->type >= 0 &&
        is_self_value(&c, attr->type) && decide(&c, attr, ACREI_ACI_SELFWRITE))
        return 1;
    return decide(&c, attr, r);
}

/* acreV_aci_explain -- see aci_index.h. */
int
acreV_aci_explain(struct acre_request *rq, const acre_entry_view *e,
                  const struct acreF_desc *attr, unsigned rights,
                  const struct acreV_aci_tracer *t)
{
    struct ck c;
    int g, was = rq->limit_hit;

    if (begin(&c, rq, e)) {
        struct acreV_aci_event ev = {
            ACREV_ACI_EV_END, NULL, NULL, NULL, 0, 0, 0, 1};
        t->fn(t->arg, &ev);
        return 0;
    }
    c.tr = t;
    c.by = NULL;
    c.kept = 0;
    /* as decide(): the profile of an anonymous DN bound, the proxy right */
    g = c.st->px ? profile(&c, attr, rights) : -1;
    if (g < 0 && c.st->px && !proxy_gate(rq, c.st, e, attr)) {
        struct acreV_aci_event ev = {
            ACREV_ACI_EV_PROXY,   NULL, NULL, NULL, 0, 0, 0,
            rq->limit_hit && !was};
        t->fn(t->arg, &ev);
        return 0;
    }
    if (g < 0)
        g = decide_traced(&c, attr, rights);
    struct acreV_aci_event ev = {
        ACREV_ACI_EV_END,     c.by, c.by ? c.by->aci : NULL, NULL, g, 0, 0,
        rq->limit_hit && !was};
    t->fn(t->arg, &ev);
    return g;
}

unsigned
acreV_aci_rights(int right, int entry)
{
    switch (right) {
    case ACRE_RIGHT_COMPARE:
        return ACREI_ACI_COMPARE;
    case ACRE_RIGHT_SEARCH:
        return ACREI_ACI_SEARCH;
    case ACRE_RIGHT_READ:
        return ACREI_ACI_READ;
    case ACRE_RIGHT_ADD:
        return entry ? ACREI_ACI_ADD : ACREI_ACI_WRITE;
    case ACRE_RIGHT_DELETE:
        return entry ? ACREI_ACI_DELETE : ACREI_ACI_WRITE;
    case ACRE_RIGHT_WRITE:
        return ACREI_ACI_WRITE;
    default:
        return 0;
    }
}

/*
 * entry_denied -- 389's check of the entry itself once an attribute is
 * readable (acl_read_access_allowed_on_entry, then acl__TestRights for
 * attr NULL).  It is made only when an ACI without targetattr whose
 * rights include read takes the entry (389's "entry test rule").  The
 * ACIs it weighs are those whose rights include read and whose targets
 * take the entry, without targetattr -- or with one, when their rights
 * include write (selfwrite too) and they have an allow rule
 * (acl__resource_match_aci keeps those for an attribute-less check, its
 * modrdn case).  A deny among them hides the entry when no allow is among
 * them (whatever its bind rule: 389 then evaluates nothing), else when
 * the bind rule of one of its deny perms for read is True or Undefined.
 * The allows' bind rules play no part.
 */
static int
entry_denied_(struct ck *c)
{
    int deny = 0, allow = 0, test = 0;

    cands(c);
    for (uint32_t i = 0; i < c->st->ncand; i++) {
        const struct acreP_aci_perm *p = &c->ix->perms[c->st->cand[i]];
        if (!(p->aci_rights & ACREI_ACI_READ) ||
            !attr_match(c, p, NULL, ACREI_ACI_READ) ||
            !target_match(c, p->aci, p->aci_no))
            continue;
        test |= !(p->flags & ACREP_ACI_HASATTR);
        deny |= p->aci_deny;
        allow |= p->aci_allow;
    }
    if (!test || !deny)
        return 0;
    if (!allow)
        return 1;
    for (uint32_t i = 0; i < c->st->ncand; i++) {
        uint32_t pi = c->st->cand[i];
        const struct acreP_aci_perm *p = &c->ix->perms[pi];
        if (!p->deny || !(p->rights & ACREI_ACI_READ) ||
            !attr_match(c, p, NULL, ACREI_ACI_READ) ||
            !target_match(c, p->aci, p->aci_no))
            continue;
        if (fires(c, pi, ACREI_ACI_READ, perm_bind(c, pi, ACREI_ACI_READ)))
            return 1;
    }
    return mixed_fail(c, c->st->cand, 0, c->st->ncand, NULL, ACREI_ACI_READ, 0);
}

static int
entry_denied(struct ck *c)
{
    if (c->sm && !c->rq->limit_hit)
        return sm_denied(c);
    if (vm_usable(c, NULL))
        return vm_walk(c, NULL, VM_DENIED, ACREI_ACI_READ);
    return entry_denied_(c);
}

/* operational -- is description id an operational attribute? */
static int
operational(const acre_schema *s, int id)
{
    const struct acreS_dinfo *d = acreS_desc_of(s, id);
    const struct acreS_attr *at = d ? acreS_attr(s, d->type) : NULL;

    return at && at->usage != ACRES_USER;
}

/* read_check -- decide read on d, the shape memo's answer first */
static inline int
read_check(struct ck *c, const struct acreF_desc *d)
{
    if (c->sm && sm_type(c, d) && c->st->sm_known[d->type] == c->st->epoch)
        return c->st->sm_read[d->type];
    return decide(c, d, ACREI_ACI_READ);
}

/* visible -- 389's acl_read_access_allowed_on_entry: the anonymous
 * profile when it takes the entry; else read on some attribute (stored
 * order; operational ones skipped after the first) and no entry-level
 * deny (entry_denied).  *read_at: the attribute found readable that way
 * (the ones before it that were asked are not), else NO_ATTR. */
#define NO_ATTR UINT32_MAX

static int
visible(struct ck *c, uint32_t *read_at)
{
    const acre_entry_view *e = c->e;
    int found = 0;

    *read_at = NO_ATTR;
    if (c->st->root)
        return 1;
    if (c->ix->set->variant == ACREI_ACI_OPENDJ)
        return dj_visible(c);
    int r = profile(c, NULL, ACREI_ACI_READ);
    if (r >= 0)
        return r;
    for (unsigned i = 0; !found && i < e->nattrs; i++) {
        struct acreF_desc d;
        if ((i > 0 && operational(c->rq->schema, e->attrs[i].id)) ||
            desc_of(c->rq->schema, e->attrs[i].id, &d))
            continue;
        if ((found = read_check(c, &d)))
            *read_at = i;
    }
    return found && !entry_denied(c);
}

/* ------------------------------------------------------------------------
 * OpenDJ (ACRE_COMPILE_ACI_OPENDJ): its dseecompat handler, read from
 * OpenDJ's sources (org.opends.server.authorization.dseecompat); the
 * class or method that does each step is named with it.
 */

/* dj_oper -- is attribute type `type` operational?  A name the schema
 * does not know is a user attribute (OpenDJ makes a placeholder type). */
static int
dj_oper(const acre_schema *s, int type)
{
    return type >= 0 && acreS_attr(s, type)->usage != ACRES_USER;
}

/* dj_attr_in -- TargetAttr.isApplicable: "*" and "+" together take
 * everything; else an operational type is taken by "+" or by being
 * listed among the operational names, a user type by "*" or by being
 * listed among the user names (the type itself: no subtypes, options
 * ignored); "!=" negates within that class only when the class has "*" /
 * "+" or names. */
static int
dj_attr_in(struct ck *c, const struct acreI_aci_target *t,
           const struct acreF_desc *d)
{
    const acre_schema *s = c->rq->schema;
    int oper = dj_oper(s, d->type);

    if (t->attr_star && t->attr_plus)
        return !t->attr_neg;
    int all = oper ? t->attr_plus : t->attr_star;
    int named = !oper && t->attr_unknown, m = all;
    for (unsigned i = 0; i < t->nattrs; i++) {
        const struct acreS_dinfo *w = acreS_desc_of(s, t->attrs[i]);
        if (!w || dj_oper(s, w->type) != oper)
            continue;
        named = 1;
        m |= d->type >= 0 && w->type == d->type;
    }
    if ((all || named) && t->attr_neg)
        return !m;
    return m;
}

#define DJ_SKIP_RIGHTS (ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_PROXY)

/* dj_applies -- Aci.isApplicable for a check of `rights` on d (NULL: the
 * entry itself): no targetcontrol / extop (hasNoExtOpOrTargetControl),
 * rights in common -- read and search count as one (haveSimilarRights)
 * --, target, targetscope and targetfilter (AciTargets.isTargetApplicable,
 * isTargetFilterApplicable), then the targetattr part
 * (isTargetAttrApplicable): with both an attribute and a targetattr,
 * TargetAttr.isApplicable; with only one of them, taken when the ACI has
 * one of add, delete, proxy and the check asks nothing else, or -- the
 * entry itself against a targetattr -- when the ACI has write; with
 * neither, taken.  *test is set when the ACI has neither targetattr nor
 * targattrfilters (the "entry test rule").  ACI a's first perm is pi. */
static int
dj_applies(struct ck *c, uint32_t pi, const struct acreF_desc *d,
           unsigned rights, int *test)
{
    const struct acreP_aci_perm *p = &c->ix->perms[pi];
    const struct acreI_aci_target *t = &p->aci->t;
    const unsigned rs = ACREI_ACI_READ | ACREI_ACI_SEARCH;
    int has = (t->has & ACREI_ACI_T_ATTR) != 0;

    if (t->has & (ACREI_ACI_T_CONTROL | ACREI_ACI_T_EXTOP))
        return 0;
    if (!(p->aci_rights & rights) && !((p->aci_rights & rs) && (rights & rs)))
        return 0;
    if (!target_match(c, p->aci, p->aci_no))
        return 0;
    if (test && !has && !(t->has & ACREI_ACI_T_ATTRFLT))
        *test = 1;
    if (d && has)
        return dj_attr_in(c, t, d);
    if (d || has) {
        if ((p->aci_rights & DJ_SKIP_RIGHTS) && !(rights & ~DJ_SKIP_RIGHTS))
            return 1;
        return !d && has && (p->aci_rights & ACREI_ACI_WRITE);
    }
    return 1;
}

/* dj_aci -- AciBody.evaluate of the ACI whose perms are cand[i0..i1):
 * each perm with the right in turn (allow perms skipped for the deny
 * list); a bind rule that fails (Undefined) ends the walk with FAIL (U),
 * a True one with True. */
static int
dj_aci(struct ck *c, uint32_t i0, uint32_t i1, unsigned rights, int deny)
{
    for (uint32_t i = i0; i < i1; i++) {
        uint32_t pi = c->st->cand[i];
        const struct acreP_aci_perm *p = &c->ix->perms[pi];
        if ((deny && !p->deny) || !(p->rights & rights))
            continue;
        int r = perm_bind(c, pi, rights);
        if (r != F)
            return r;
    }
    return F;
}

/* dj_next -- the end of the ACI whose perms start at cand[i]. */
static uint32_t
dj_next(struct ck *c, uint32_t i)
{
    uint32_t no = c->ix->perms[c->st->cand[i]].aci_no, j = i + 1;

    while (j < c->st->ncand && c->ix->perms[c->st->cand[j]].aci_no == no)
        j++;
    return j;
}

/*
 * dj_decide -- AciHandler.accessAllowed: the applicable ACIs
 * (createApplicableList) go to the deny list when they have a deny perm
 * and to the allow list when they have an allow perm; both empty denies
 * (NO_ALLOW_ACIS); a deny ACI that evaluates True or FAIL denies
 * (EVALUATED_DENY_ACI); then an allow ACI that evaluates True grants;
 * else denied (NO_MATCHED_ALLOWS_ACIS).  *deny_eval (may be NULL): the
 * answer came from the deny list or from empty lists
 * (AciContainer.isDenyEval); *test: an entry test rule was applicable.
 */
static int
dj_decide(struct ck *c, const struct acreF_desc *d, unsigned rights,
          int *deny_eval, int *test)
{
    int was = c->rq->limit_hit, any = 0, allow = 0, de = 0;
    uint32_t n = c->st->ncand;

    for (uint32_t i = 0; i < n; i = dj_next(c, i))
        any |= dj_applies(c, c->st->cand[i], d, rights, test);
    if (!any)
        de = 1;
    for (uint32_t i = 0; any && !de && i < n; i = dj_next(c, i))
        de = c->ix->perms[c->st->cand[i]].aci_deny &&
             dj_applies(c, c->st->cand[i], d, rights, NULL) &&
             dj_aci(c, i, dj_next(c, i), rights, 1) != F;
    for (uint32_t i = 0; any && !de && !allow && i < n; i = dj_next(c, i))
        allow = c->ix->perms[c->st->cand[i]].aci_allow &&
                dj_applies(c, c->st->cand[i], d, rights, NULL) &&
                dj_aci(c, i, dj_next(c, i), rights, 0) == T;
    if (deny_eval)
        *deny_eval = de;
    /* a failed lookup or allocation on the way denies */
    if (c->rq->limit_hit && !was)
        return 0;
    return allow;
}

/* dj_terms -- UserDN / GroupDN.evaluate: a "||" list is True when a
 * term matches (every term looked at: no stop at self or parent; a
 * groupdn URL names the group at its base DN, scope and filter unused); an
 * anonymous requester matches only anyone; nothing is Undefined (a
 * lookup that fails still fails the check: perm_bind). */
static int
dj_terms(struct ck *c, const struct acreI_bind *b)
{
    for (unsigned i = 0; i < b->nterms; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        if (!c->rq->authz && t->kind != ACREI_ACI_S_ANYONE)
            continue;
        /* GroupDN.decode keeps only an LDAP URL's base DN */
        if (b->kw == ACREI_ACI_GROUPDN && t->kind == ACREI_ACI_S_URL) {
            if (t->pat.kind == ACREI_ACI_PAT_DN && t->pat.dn &&
                member_of(c, t->pat.dn) == T)
                return T;
            continue;
        }
        if (term(c, b->kw, t) == T)
            return T;
    }
    return F;
}

/* dj_value_in -- does attribute a (may be NULL) hold value v[0..n)? */
static int
dj_value_in(struct ck *c, const acre_view_attr *a, int type, const char *v,
            size_t n)
{
    const acre_schema *s = c->rq->schema;
    struct acreE_buf buf;
    uint8_t local[256];
    size_t nl;
    int r = 0;

    if (!a)
        return 0;
    acreE_buf_init(&buf, local, sizeof local);
    acre_value rv = {n, v};
    acre_view_attr one = {type, 1, &rv, NULL};
    const uint8_t *nv = acreE_value_norm(s, &one, 0, &buf, &nl);
    r = nv && acreE_attr_has_value(s, a, nv, nl);
    acreE_buf_free(&buf);
    return r;
}

/* dj_ua_entry -- UserAttr.evalEntryAttr on entry ae's attribute a:
 * USERDN lists the requester; GROUPDN names a group the requester is in
 * (GroupDN.evaluate: the values in order, a value that is no DN ends the
 * walk). */
static int
dj_ua_entry(struct ck *c, void *tmp, const struct acreI_bind *b,
            const acre_view_attr *a)
{
    if (b->uakind == ACREI_ACI_UA_USERDN)
        return acreV_attr_lists(c->rq->schema, a, c->rq->authz_norm,
                                c->rq->authz_len);
    for (unsigned j = 0; j < a->nvals; j++) {
        acre_dn *g = value_dn(c, tmp, a, j);
        if (!g)
            return 0;
        if (member_of(c, g) == T)
            return 1;
    }
    return 0;
}

/*
 * dj_userattr -- UserAttr.evaluate, "!=" applied once
 * (EnumEvalResult.getRet):
 *   attr#USERDN / attr#GROUPDN (parent[...] levels, ParentInheritance):
 *     level 0 is the entry (Undefined for an add: FAIL unless matched),
 *     level l its l-th ancestor, looked up;
 *   attr#LDAPURL: a URL value of the entry that takes the requester;
 *   attr#value (SELFDN is no kind to OpenDJ: a value like any other): the
 *     requester's entry and the entry both hold the value (evalVAL).
 * ROLEDN is refused by OpenDJ's parser (and acre's for this variant).
 */
static int
dj_userattr(struct ck *c, const struct acreI_bind *b)
{
    struct acre_request *rq = c->rq;
    int m = 0, undef = 0;
    void *tmp;

    if (b->attr < 0 || b->uakind == ACREI_ACI_UA_ROLEDN)
        m = 0;
    else if (b->uakind == ACREI_ACI_UA_VALUE ||
             b->uakind == ACREI_ACI_UA_SELFDN) {
        int und = 0;
        const acre_entry_view *u = rq->authz ? user_entry(c, &und) : NULL;
        const char *v = b->uakind == ACREI_ACI_UA_SELFDN ? "SELFDN" : b->value;
        size_t n = b->uakind == ACREI_ACI_UA_SELFDN ? 6 : b->value_len;
        m = u && dj_value_in(c, acreE_entry_attr(u, b->attr), b->attr, v, n) &&
            dj_value_in(c, acreE_entry_attr(c->e, b->attr), b->attr, v, n);
    } else if (b->uakind == ACREI_ACI_UA_LDAPURL) {
        int und = 0;
        const acre_entry_view *u = rq->authz ? user_entry(c, &und) : NULL;
        const acre_view_attr *a = acreE_entry_attr(c->e, b->attr);
        for (unsigned j = 0; u && a && !m && j < a->nvals; j++) {
            int x = url_takes(c, a->vals[j].val, a->vals[j].len, u);
            m = x == T;
            undef = x == U;
            if (undef)
                break;
        }
    } else if (rq->authz) {
        if (!(tmp = talloc_new(NULL))) {
            acreV_fail(rq, ACRE_ERR_NOMEM);
            return U;
        }
        for (unsigned l = 0; !m && l < 32; l++) {
            if (!((b->levels ? b->levels : 1u) & (1u << l)))
                continue;
            const acre_entry_view *ae = NULL;
            const acre_view_attr *a;
            if (l == 0) {
                if (c->rights & ACREI_ACI_ADD) {
                    undef = 1;
                    continue;
                }
                ae = c->e;
            } else {
                const acre_dn *adn = ancestor(c, tmp, l);
                if (!adn || !acreV_host_get(rq, adn, &ae))
                    continue;
            }
            if ((a = acreE_entry_attr(ae, b->attr)))
                m = dj_ua_entry(c, tmp, b, a);
            if (l != 0)
                acreV_host_release(rq, ae);
        }
        talloc_free(tmp);
    }
    if (m || !undef)
        return (b->op == ACREI_ACI_NE) != !m ? F : T;
    return U;
}

/*
 * dj_bind -- BindRule.evaluate: "and" is True when both sides are, "or"
 * when one is, else False (a FAIL inside is False: evalComplex); "not"
 * turns True into False and anything else into True
 * (EnumEvalResult.negate); each keyword is True or False, "!=" negating
 * it (getRet), but for the FAIL of an undefined userattr, and Undefined
 * where acre cannot know (an ip or dns rule without the peer's address).
 */
static int
dj_bind(struct ck *c, const struct acreI_bind *b, unsigned depth)
{
    int l, r;

    if (!b || depth > 64)
        return U;
    switch (b->kw) {
    case ACREI_ACI_AND:
        l = dj_bind(c, b->a, depth + 1);
        r = dj_bind(c, b->b, depth + 1);
        return l == T && r == T ? T : F;
    case ACREI_ACI_OR:
        l = dj_bind(c, b->a, depth + 1);
        r = dj_bind(c, b->b, depth + 1);
        return l == T || r == T ? T : F;
    case ACREI_ACI_NOT:
        return dj_bind(c, b->a, depth + 1) == T ? F : T;
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
        r = dj_terms(c, b);
        return b->op == ACREI_ACI_NE ? tri_not(r) : r;
    case ACREI_ACI_ROLEDN: /* refused by the parser: never True */
        return F;
    case ACREI_ACI_USERATTR:
        return dj_userattr(c, b);
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return F; /* refused by the parser */
    case ACREI_ACI_TIMEOFDAY: {
        /* TimeOfDay.evaluate: "=" and "!=" both test the time against the
         * value with "!=", then "!=" is negated: "=" is True at any other
         * time, "!=" only at that minute */
        struct tm tm;
        local_time(c->rq, &tm);
        long now = tm.tm_hour * 100L + tm.tm_min;
        if (b->op == ACREI_ACI_EQ || b->op == ACREI_ACI_NE)
            return (now != b->num) == (b->op == ACREI_ACI_EQ) ? T : F;
        return cmp_num(b->op, now, b->num) ? T : F;
    }
    default: /* as 389, its two failures one (OpenDJ has no deny walk) */
        r = bind_rule(c, b, depth);
        return r == I ? U : r;
    }
}

/* dj_entry_order -- AciHandler.getAllAttrs: objectClass first, then the
 * user attributes, then the operational ones (pass 0, 1, 2). */
static int
dj_in_pass(struct ck *c, const acre_view_attr *a, unsigned pass, int oc)
{
    const struct acreS_dinfo *w = acreS_desc_of(c->rq->schema, a->id);
    int type = w ? w->type : -1;

    if (pass == 0)
        return type == oc;
    if (type == oc)
        return 0;
    return dj_oper(c->rq->schema, type) == (pass == 2);
}

/*
 * dj_visible -- AciHandler.accessAllowedEntry (maySend, after the filter
 * test): read on the entry's attributes in getAllAttrs order until one
 * is allowed (none: not returned); then, when an entry test rule was met
 * on the way (an applicable ACI without targetattr nor targattrfilters:
 * isTargetAttrApplicable), read on the entry itself, and the entry is
 * kept unless that check was denied by the deny list or by empty lists
 * (isDenyEval: no allow among the ACIs that take the entry itself is an
 * implicit grant).
 */
static int
dj_visible(struct ck *c)
{
    const acre_entry_view *e = c->e;
    int oc = acreS_attr_find(c->rq->schema, "objectClass", 11);
    int found = 0, test = 0, de = 0;

    if (c->st->root)
        return 1;
    for (unsigned pass = 0; !found && pass < 3; pass++)
        for (unsigned i = 0; !found && i < e->nattrs; i++) {
            struct acreF_desc d;
            if (!dj_in_pass(c, &e->attrs[i], pass, oc) ||
                desc_of(c->rq->schema, e->attrs[i].id, &d))
                continue;
            found = dj_decide(c, &d, ACREI_ACI_READ, NULL, &test);
        }
    if (!found)
        return 0;
    if (test && !dj_decide(c, NULL, ACREI_ACI_READ, &de, NULL) && de)
        return 0;
    return 1;
}

/* dj_item -- AciHandler.testFilter's leaf: search on the item's
 * attribute (an item without one, a rule-only extensible match: on the
 * entry itself). */
static int
dj_item(void *arg, const struct acreF_desc *d)
{
    struct ck *c = arg;

    return decide(c, d, ACREI_ACI_SEARCH);
}

int
acreV_aci_verdict(struct acre_request *rq, const acre_entry_view *e,
                  int (*select)(void *arg, const acre_view_attr *a), void *arg,
                  acre_verdict *out)
{
    struct ck c;
    uint32_t read_at;

    rq->limit_hit = 0;
    if (begin(&c, rq, e) || (sm_begin(&c) && begin(&c, rq, e)))
        return rq->err ? rq->err : ACRE_ERR_NOMEM;
    out->visible = visible(&c, &read_at);
    if (rq->limit_hit) /* something failed: no answer is reused */
        read_at = NO_ATTR;
    if (!out->visible) /* the caller clears the verdict */
        return rq->err;
    /* the shape memo's answers by type: a type alone's id is the type;
     * what the loop reads is in locals (the byte stores below could
     * alias it) */
    unsigned nk = c.sm ? c.ix->attr_words * 64u : 0;
    if (nk > acreS_ntypes(rq->schema))
        nk = acreS_ntypes(rq->schema);
    const uint32_t *known = c.sm ? c.st->sm_known : NULL;
    const uint32_t ep = c.st->epoch;
    const uint8_t *readable = c.sm ? c.st->sm_read : NULL;
    const acre_view_attr *attrs = e->attrs;
    uint8_t *v_attr = rq->v_attr, *v_value = rq->v_value;
    const uint32_t *v_first = rq->v_first;
    uint32_t first = read_at == NO_ATTR ? 0 : read_at + 1, nattrs = e->nattrs;
    for (uint32_t i = 0; i < nattrs; i++) {
        const acre_view_attr *a = &attrs[i];
        unsigned id = (unsigned)a->id;
        struct acreF_desc d;
        int g;
        if (!a->nvals || (select && !select(arg, a)))
            g = 0; /* not selected: denied */
        else if (id < nk && i >= first && known[id] == ep && !rq->limit_hit)
            g = readable[id]; /* read_check's, without desc_of */
        else if (desc_of(rq->schema, a->id, &d))
            g = 0; /* no type: denied */
        /* visible() asked read on the attributes up to read_at already
         * (not on operational ones after the first): the same answers */
        else if (read_at != NO_ATTR && i == read_at)
            g = 1;
        else if (read_at != NO_ATTR && i < read_at &&
                 (i == 0 || !operational(rq->schema, a->id)))
            g = 0;
        else
            g = read_check(&c, &d);
        v_attr[i] = g ? ACRE_ATTR_ALL : ACRE_ATTR_NONE;
        if (a->nvals == 1)
            v_value[v_first[i]] = (uint8_t)g;
        else
            memset(v_value + v_first[i], g, a->nvals);
    }
    return rq->err;
}

/* ------------------------------------------------------------------------
 * Filters: search on each item's attribute (389: an item without it is
 * Undefined; the filter module does the three-valued rest)
 */

struct fx {
    struct ck c;
    const acre_entry_view *e;
};

static int
filter_item(void *ctx, const acre_entry_view *e, const struct acreF_desc *d,
            const uint8_t *value, size_t len)
{
    struct fx *x = ctx;

    if (e != x->e && begin(&x->c, x->c.rq, e))
        return 0;
    x->e = e;
    return decide(&x->c, d, ACREI_ACI_SEARCH);
}

int
acreV_aci_filter(struct acre_request *rq, const struct acreF_filter *f,
                 const acre_entry_view *e, int scope)
{
    struct fx x;

    rq->limit_hit = 0;
    if (begin(&x.c, rq, e))
        return rq->err ? rq->err : ACRE_ERR_NOMEM;
    x.e = e;
    if (rq->p->aci->set->variant == ACREI_ACI_OPENDJ) {
        /* OpenDJ: the backend matches the filter as it is, then maySend
         * asks search on every attribute it names (testFilter) */
        struct acreF_hooks plain = acreV_filter_hooks(rq, NULL, NULL);
        if (acreV_filter_eval(rq, f, e, &plain) != ACREF_TRUE)
            return rq->err;
        int ok = acreF_every_item(f, dj_item, &x.c);
        return rq->err ? rq->err : ok;
    }
    struct acreF_hooks h = acreV_filter_hooks(rq, filter_item, &x);
    enum acreF_result r =
        acreV_filter_eval_389(rq, f, e, &h, scope != ACRE_SCOPE_BASE);
    if (rq->err)
        return rq->err;
    if (r != ACREF_TRUE)
        return 0;
    /* 389 also tests the filter as it is, without access control (its
     * candidate test): an item the requester may not search still takes
     * the entry out when it decides the filter against it */
    struct acreF_hooks plain = acreV_filter_hooks(rq, NULL, NULL);
    return acreV_filter_eval(rq, f, e, &plain) == ACREF_TRUE;
}

/* acreV_aci_may_send -- see aci_index.h. */
int
acreV_aci_may_send(struct acre_request *rq, const struct acreF_filter *f,
                   const acre_entry_view *e)
{
    struct ck c;
    uint32_t read_at;

    rq->limit_hit = 0;
    if (begin(&c, rq, e))
        return rq->err ? rq->err : ACRE_ERR_NOMEM;
    int ok = acreF_every_item(f, dj_item, &c) && visible(&c, &read_at);
    return rq->err ? rq->err : ok;
}

/* acreV_aci_ldapsubentry -- see aci_index.h. */
int
acreV_aci_ldapsubentry(const acre_schema *s, const acre_entry_view *e)
{
    return has_class(s, e, "ldapSubEntry");
}
