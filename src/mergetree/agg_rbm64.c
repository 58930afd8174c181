/* mergetree/agg_rbm64.c: the rbm64 aggregate's value codec, byte-compatible with Java
 * Paimon's FieldRoaringBitmap64Agg, which stores RoaringBitmap 1.2.1's Roaring64Bitmap
 * as written by serialize(DataOutput) after runOptimize().
 *
 * That format is a dump of Java's in-memory structures, not a canonical encoding:
 *
 *   u8 tag (0 empty: nothing follows; 1 non-empty)
 *   Art: u64le keySize, then the ART nodes depth-first (a node, then its children in key
 *     order). Each node: u8 type (0 Node4, 1 Node16, 2 Node48, 3 Node256, 4 leaf),
 *     u16le count, i8 prefixLength, prefix bytes, then a body:
 *       Node4   4 key bytes, position 3 first (a big-endian int written little-endian)
 *       Node16  16 key bytes as two such longs: positions 7..0 then 15..8
 *       Node48  256 child-slot bytes indexed by key byte (0xFF none), every 8 reversed
 *       Node256 4 u64le words, bit k set when key byte k has a child
 *       leaf    6 key bytes (the value's high 48 bits, big-endian), u64le container index
 *   Containers: i32le number of first-level arrays (always 1 in practice), and per array
 *     u8 0xFE, i32le length, then per slot u8 0 (null) or u8 1, u8 type (0 run,
 *     1 bitmap, 2 array), i32le cardinality, payload (run: u16le count + u16le
 *     start/length pairs; bitmap: 1024 u64le; array: u16le values); then u64le live
 *     containers, i32le firstLevelIdx, i32le secondLevelIdx.
 *
 * Because the bytes depend on history (Node48 slot order, free container slots, array
 * capacity growth, bytes left over in Node4/Node16 after removals, leaf prefixes left by
 * node shrinking), the union keeps the accumulator's structure exactly as decoded and
 * replays Java's Roaring64Bitmap.or: the input's high keys in ascending order, each
 * either or-ed into the existing container (Container.ior with Java's result-type rules)
 * or appended as a new container slot and inserted into the ART the way Art.insert does;
 * then runOptimize converts containers to runs only where Java would. Decoding accepts
 * exactly the states Java can reach and rejects everything else as corrupt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mergetree/agg_binary.h"
#include "util/vec.h"

enum { RB_RUN = 0, RB_BITMAP = 1, RB_ARRAY = 2 };     /* Java's container type tags */
enum { RB_N4 = 0, RB_N16, RB_N48, RB_N256, RB_LEAF }; /* Java's NodeType ordinals */

#define RB_ARRAY_MAX 4096 /* ArrayContainer.DEFAULT_MAX_SIZE */
#define RB_WORDS 1024     /* 64-bit words of a bitmap container */
#define RB_EMPTY48 0xFF   /* Node48: no child for this key byte */
#define RB_TRIM_MARK 0xFE /* Containers' NOT_TRIMMED_MARK, the only one Java writes */
/* Containers.addContainer starts a new first-level array here; unreachable in memory. */
#define RB_MAX_SLOTS ((uint32_t)INT32_MAX - 10)

typedef struct rb_cont {
  uint8_t type;
  uint32_t card; /* values held, 0..65536 */
  uint32_t n;    /* array: values; run: runs */
  size_t cap;    /* uint16 entries allocated in v */
  uint16_t *v;   /* array values, or run (start, length-1) pairs */
  uint64_t *w;   /* bitmap words */
} rb_cont;

typedef struct rb_node rb_node;
struct rb_node {
  uint8_t type;
  uint8_t plen;
  uint8_t prefix[6];
  uint16_t count;
  uint8_t key[6];   /* leaf: high 48 bits, big-endian */
  uint32_t slot;    /* leaf: container slot */
  uint8_t *kb;      /* N4/N16: key byte per position; N48: slot per key byte */
  uint64_t mask[4]; /* N256: key bytes that have a child */
  rb_node **kids;   /* N4/N16: per position; N48: per slot; N256: per key byte */
};

/* One Roaring64Bitmap: its ART plus Containers' single second-level array. */
typedef struct rb64 {
  rb_node *root;
  uint64_t keys;   /* Art.keySize */
  rb_cont **slots; /* nslots entries, NULL where Java has a null slot */
  uint32_t nslots;
  uint64_t live;      /* Containers.containerSize */
  int32_t first_idx;  /* Containers.firstLevelIdx; -1 before the first container */
  int32_t second_idx; /* Containers.secondLevelIdx: slot of the last container added */
  rb_node **leaves;   /* decode: leaves in key order */
  size_t nleaves, capleaves;
} rb64;

/* ---- containers -------------------------------------------------------------------- */

static void cont_free(rb_cont *c) {
  if (!c) return;
  pm_free(c->v);
  pm_free(c->w);
  pm_free(c);
}

static int cont_reserve(rb_cont *c, uint32_t n) { return pm_grow(&c->v, &c->cap, n); }

static int cont_words(rb_cont *c) {
  if (c->w) return 0;
  c->w = pm_malloc(RB_WORDS * sizeof *c->w);
  return c->w ? 0 : PAIMON_ENOMEM;
}

static void set_range(uint64_t *w, uint32_t lo, uint32_t hi) { /* inclusive */
  uint32_t a = lo >> 6, b = hi >> 6;
  uint64_t first = ~(uint64_t)0 << (lo & 63);
  uint64_t last = ~(uint64_t)0 >> (63 - (hi & 63));
  if (a == b) {
    w[a] |= first & last;
    return;
  }
  w[a] |= first;
  for (uint32_t i = a + 1; i < b; i++) w[i] = ~(uint64_t)0;
  w[b] |= last;
}

/* ORs the container's values into w. */
static void cont_or_into(const rb_cont *c, uint64_t *w) {
  if (c->type == RB_BITMAP) {
    for (uint32_t i = 0; i < RB_WORDS; i++) w[i] |= c->w[i];
  } else if (c->type == RB_ARRAY) {
    for (uint32_t i = 0; i < c->n; i++) w[c->v[i] >> 6] |= (uint64_t)1 << (c->v[i] & 63);
  } else {
    for (uint32_t i = 0; i < c->n; i++)
      set_range(w, c->v[2 * i], (uint32_t)c->v[2 * i] + c->v[2 * i + 1]);
  }
}

static uint32_t words_card(const uint64_t *w) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < RB_WORDS; i++) n += (uint32_t)__builtin_popcountll(w[i]);
  return n;
}

/* Number of maximal runs of set bits (each counted at its last bit). */
static uint32_t words_runs(const uint64_t *w) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < RB_WORDS; i++) {
    uint64_t next0 = i + 1 < RB_WORDS ? (w[i + 1] & 1) : 0;
    n += (uint32_t)__builtin_popcountll(w[i] & ~((w[i] >> 1) | (next0 << 63)));
  }
  return n;
}

static uint32_t array_runs(const rb_cont *c) {
  uint32_t n = c->n ? 1 : 0;
  for (uint32_t i = 1; i < c->n; i++) n += c->v[i] != (uint16_t)(c->v[i - 1] + 1);
  return n;
}

/* Rewrites c as `type` holding the values of w (card values, runs maximal runs). */
static int cont_set_from_words(rb_cont *c, const uint64_t *w, uint8_t type, uint32_t card,
                               uint32_t runs) {
  if (type == RB_BITMAP) {
    if (c->w != w) {
      PM_TRY(cont_words(c));
      memcpy(c->w, w, RB_WORDS * sizeof *w);
    }
    c->n = 0;
  } else if (type == RB_ARRAY) {
    PM_TRY(cont_reserve(c, card));
    uint32_t k = 0;
    for (uint32_t i = 0; i < RB_WORDS; i++)
      for (uint64_t x = w[i]; x; x &= x - 1)
        c->v[k++] = (uint16_t)(i * 64 + (uint32_t)__builtin_ctzll(x));
    c->n = k;
  } else {
    PM_TRY(cont_reserve(c, 2 * runs));
    uint32_t ns = 0, ne = 0;
    uint64_t carry = 0; /* bit 63 of the previous word */
    for (uint32_t i = 0; i < RB_WORDS; i++) {
      uint64_t x = w[i], next0 = i + 1 < RB_WORDS ? (w[i + 1] & 1) : 0;
      /* a word's starts all precede its ends' partners, so pair them by rank */
      for (uint64_t s = x & ~((x << 1) | carry); s; s &= s - 1)
        c->v[2 * ns++] = (uint16_t)(i * 64 + (uint32_t)__builtin_ctzll(s));
      for (uint64_t e = x & ~((x >> 1) | (next0 << 63)); e; e &= e - 1, ne++)
        c->v[2 * ne + 1] = (uint16_t)(i * 64 + (uint32_t)__builtin_ctzll(e) - c->v[2 * ne]);
      carry = x >> 63;
    }
    c->n = ns;
  }
  if (type != RB_BITMAP && c->w && c->w != w) {
    pm_free(c->w);
    c->w = NULL;
  }
  c->type = type;
  c->card = card;
  return 0;
}

static bool run_is_full(const rb_cont *c) {
  return c->type == RB_RUN && c->n == 1 && c->v[0] == 0 && c->v[1] == 0xFFFF;
}

/* a = a.ior(b) with the result container type Java 1.2.1 picks:
 *   array|array   array while the cardinalities' sum is <= 4096, else a lazily or-ed
 *                 bitmap repaired to an array when the union fits in 4096
 *   bitmap|array  bitmap (no full check)
 *   any pair with a bitmap otherwise: bitmap, or the full run when all 65536 are set
 *   run|array, array|run, run|run: RunContainer.toEfficientContainer of the union
 *   a full run absorbs anything unchanged. */
static int cont_ior(rb_cont *a, const rb_cont *b, uint64_t *w) {
  if (run_is_full(a)) return 0;
  if (a->type == RB_ARRAY && b->type == RB_ARRAY && a->card + b->card <= RB_ARRAY_MAX) {
    /* sorted merge, the common small case */
    uint16_t tmp[RB_ARRAY_MAX];
    uint32_t i = 0, j = 0, k = 0;
    while (i < a->n && j < b->n) {
      uint16_t x = a->v[i], y = b->v[j];
      tmp[k++] = x <= y ? x : y;
      i += x <= y;
      j += y <= x;
    }
    while (i < a->n) tmp[k++] = a->v[i++];
    while (j < b->n) tmp[k++] = b->v[j++];
    PM_TRY(cont_reserve(a, k));
    memcpy(a->v, tmp, k * sizeof *tmp);
    a->n = a->card = k;
    return 0;
  }
  memset(w, 0, RB_WORDS * sizeof *w);
  cont_or_into(a, w);
  cont_or_into(b, w);
  uint32_t card = words_card(w);
  uint8_t type;
  if (a->type == RB_ARRAY && b->type == RB_ARRAY) {
    type = card <= RB_ARRAY_MAX ? RB_ARRAY : RB_BITMAP;
  } else if (a->type == RB_BITMAP && b->type == RB_ARRAY) {
    type = RB_BITMAP;
  } else if (a->type == RB_BITMAP || b->type == RB_BITMAP) {
    type = card == 65536 ? RB_RUN : RB_BITMAP;
  } else {
    uint32_t runs = words_runs(w);
    uint32_t as_run = 2 + 4 * runs, as_array = 2 + 2 * card;
    if (as_run <= (as_array < 8192 ? as_array : 8192)) type = RB_RUN;
    else type = card <= RB_ARRAY_MAX ? RB_ARRAY : RB_BITMAP;
    return cont_set_from_words(a, w, type, card, runs);
  }
  return cont_set_from_words(a, w, type, card, type == RB_RUN ? words_runs(w) : 0);
}

/* Container.runOptimize, kept only when it yields a run (as Roaring64Bitmap does):
 * array -> run when 2*card > 2 + 4*runs; bitmap -> run when 8192 > 2 + 4*runs. */
static int cont_run_optimize(rb_cont *c, uint64_t *w) {
  if (c->type == RB_ARRAY) {
    uint32_t runs = array_runs(c);
    if (2 * c->card <= 2 + 4 * runs) return 0;
    memset(w, 0, RB_WORDS * sizeof *w);
    cont_or_into(c, w);
    return cont_set_from_words(c, w, RB_RUN, c->card, runs);
  }
  if (c->type == RB_BITMAP) {
    uint32_t runs = words_runs(c->w);
    if (8192 <= 2 + 4 * runs) return 0;
    memcpy(w, c->w, RB_WORDS * sizeof *w);
    return cont_set_from_words(c, w, RB_RUN, c->card, runs);
  }
  return 0;
}

/* ---- ART nodes --------------------------------------------------------------------- */

static rb_node *node_new(uint8_t type) {
  size_t nk = 0, nb = 0;
  switch (type) {
    case RB_N4:
      nk = 4;
      nb = 4;
      break;
    case RB_N16:
      nk = 16;
      nb = 16;
      break;
    case RB_N48:
      nk = 48;
      nb = 256;
      break;
    case RB_N256: nk = 256; break;
    default: break;
  }
  rb_node *n = pm_calloc(1, sizeof *n + nk * sizeof(rb_node *) + nb);
  if (!n) return NULL;
  n->type = type;
  if (nk) {
    n->kids = (rb_node **)(n + 1);
    if (nb) n->kb = (uint8_t *)(n->kids + nk);
  }
  if (type == RB_N48) memset(n->kb, RB_EMPTY48, 256);
  return n;
}

static void node_free(rb_node *n) {
  if (!n) return;
  if (n->type == RB_N4 || n->type == RB_N16) {
    for (uint16_t i = 0; i < n->count; i++) node_free(n->kids[i]);
  } else if (n->type == RB_N48) {
    for (int i = 0; i < 48; i++) node_free(n->kids[i]);
  } else if (n->type == RB_N256) {
    for (int i = 0; i < 256; i++) node_free(n->kids[i]);
  }
  pm_free(n);
}

static rb_node **child_ref(rb_node *n, uint8_t k) {
  switch (n->type) {
    case RB_N4:
    case RB_N16:
      for (uint16_t i = 0; i < n->count; i++)
        if (n->kb[i] == k) return &n->kids[i];
      return NULL;
    case RB_N48: return n->kb[k] == RB_EMPTY48 ? NULL : &n->kids[n->kb[k]];
    case RB_N256: return (n->mask[k >> 6] >> (k & 63)) & 1 ? &n->kids[k] : NULL;
    default: return NULL;
  }
}

/* Art.findByKey: the leaf's container slot, or -1. */
static int64_t art_find(rb_node *n, const uint8_t key[6]) {
  int depth = 0;
  while (n) {
    if (n->type == RB_LEAF) return memcmp(n->key, key, 6) ? -1 : (int64_t)n->slot;
    if (n->plen) {
      if (memcmp(n->prefix, key + depth, n->plen)) return -1;
      depth += n->plen;
    }
    rb_node **c = child_ref(n, key[depth]);
    if (!c) return -1;
    n = *c;
    depth++;
  }
  return -1;
}

/* Node4/Node16 insert: the new key goes into its sorted position among the first count
 * entries; bytes past count are left as they were. */
static void sorted_insert(rb_node *n, rb_node *child, uint8_t k) {
  uint16_t p = n->count;
  while (p > 0 && n->kb[p - 1] > k) {
    n->kb[p] = n->kb[p - 1];
    n->kids[p] = n->kids[p - 1];
    p--;
  }
  n->kb[p] = k;
  n->kids[p] = child;
  n->count++;
}

static void copy_prefix(rb_node *dst, const rb_node *src) {
  dst->plen = src->plen;
  memcpy(dst->prefix, src->prefix, sizeof dst->prefix);
}

/* Node.insertLeaf with Java's growth rules; returns the node now in n's place (n is
 * freed when it grew), or NULL on allocation failure (n untouched). */
static rb_node *node_add_child(rb_node *n, rb_node *child, uint8_t k) {
  if (n->type == RB_N4) {
    if (n->count < 4) {
      sorted_insert(n, child, k);
      return n;
    }
    rb_node *g = node_new(RB_N16); /* firstV = key << 32: the 4 bytes, then zeros */
    if (!g) return NULL;
    copy_prefix(g, n);
    memcpy(g->kb, n->kb, 4);
    memcpy(g->kids, n->kids, 4 * sizeof *g->kids);
    g->count = 4;
    pm_free(n);
    sorted_insert(g, child, k);
    return g;
  }
  if (n->type == RB_N16) {
    if (n->count < 16) {
      sorted_insert(n, child, k);
      return n;
    }
    rb_node *g = node_new(RB_N48);
    if (!g) return NULL;
    copy_prefix(g, n);
    for (int i = 0; i < 16; i++) {
      g->kb[n->kb[i]] = (uint8_t)i;
      g->kids[i] = n->kids[i];
    }
    g->count = 16;
    pm_free(n);
    n = g; /* falls through to the Node48 insert */
  }
  if (n->type == RB_N48) {
    if (n->count < 48) {
      /* Java tries slot `count` first, else the lowest free slot */
      uint32_t pos = n->count;
      if (n->kids[pos]) {
        pos = 0;
        while (n->kids[pos]) pos++;
      }
      n->kids[pos] = child;
      n->kb[k] = (uint8_t)pos;
      n->count++;
      return n;
    }
    rb_node *g = node_new(RB_N256);
    if (!g) return NULL;
    copy_prefix(g, n);
    for (int i = 0; i < 256; i++) {
      if (n->kb[i] == RB_EMPTY48) continue;
      g->kids[i] = n->kids[n->kb[i]];
      g->mask[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    g->count = 48;
    pm_free(n);
    n = g;
  }
  n->kids[k] = child;
  n->mask[k >> 6] |= (uint64_t)1 << (k & 63);
  n->count++;
  return n;
}

static rb_node *leaf_new(const uint8_t key[6], uint32_t slot) {
  rb_node *l = node_new(RB_LEAF);
  if (!l) return NULL;
  memcpy(l->key, key, 6);
  l->slot = slot;
  return l;
}

/* Art.insert for a key not present: *ref is replaced by the node that takes its place. */
static int art_insert(rb_node **ref, const uint8_t key[6], int depth, uint32_t slot) {
  rb_node *n = *ref;
  if (!n) {
    *ref = leaf_new(key, slot);
    return *ref ? 0 : PAIMON_ENOMEM;
  }
  if (n->type == RB_LEAF) {
    int common = 0;
    while (depth + common < 6 && n->key[depth + common] == key[depth + common]) common++;
    if (depth + common >= 6) return PAIMON_ECORRUPT; /* duplicate key: caller checked */
    rb_node *g = node_new(RB_N4), *l = leaf_new(key, slot);
    if (!g || !l) {
      pm_free(g);
      pm_free(l);
      return PAIMON_ENOMEM;
    }
    g->plen = (uint8_t)common;
    memcpy(g->prefix, key + depth, (size_t)common);
    n->plen = 0; /* a leaf's prefix left by an earlier shrink is dropped here */
    sorted_insert(g, n, n->key[depth + common]);
    sorted_insert(g, l, key[depth + common]);
    *ref = g;
    return 0;
  }
  if (n->plen) {
    int m = 0;
    while (m < n->plen && n->prefix[m] == key[depth + m]) m++;
    if (m != n->plen) { /* split the prefix: a Node4 above n takes its first m bytes */
      rb_node *g = node_new(RB_N4), *l = leaf_new(key, slot);
      if (!g || !l) {
        pm_free(g);
        pm_free(l);
        return PAIMON_ENOMEM;
      }
      g->plen = (uint8_t)m;
      memcpy(g->prefix, n->prefix, (size_t)m);
      uint8_t kn = n->prefix[m];
      n->plen = (uint8_t)(n->plen - (m + 1));
      memmove(n->prefix, n->prefix + m + 1, n->plen);
      sorted_insert(g, n, kn);
      sorted_insert(g, l, key[depth + m]);
      *ref = g;
      return 0;
    }
    depth += n->plen;
  }
  rb_node **c = child_ref(n, key[depth]);
  if (c) return art_insert(c, key, depth + 1, slot);
  rb_node *l = leaf_new(key, slot);
  if (!l) return PAIMON_ENOMEM;
  rb_node *g = node_add_child(n, l, key[depth]);
  if (!g) {
    pm_free(l);
    return PAIMON_ENOMEM;
  }
  *ref = g;
  return 0;
}

/* ---- bitmap state ------------------------------------------------------------------ */

static void rb_init(rb64 *b) {
  memset(b, 0, sizeof *b);
  b->first_idx = -1;
}

static void rb_clear(rb64 *b) {
  node_free(b->root);
  for (uint32_t i = 0; i < b->nslots; i++) cont_free(b->slots[i]);
  pm_free(b->slots);
  pm_free(b->leaves);
  rb_init(b);
}

/* Containers.addContainer: next slot of the single array, grown by half as ArrayList. */
static int rb_add_container(rb64 *b, rb_cont *c, uint32_t *slot) {
  if (b->first_idx == -1) {
    b->slots = pm_calloc(1, sizeof *b->slots);
    if (!b->slots) return PAIMON_ENOMEM;
    b->nslots = 1;
    b->first_idx = 0;
    b->second_idx = 0;
  } else {
    if ((uint32_t)b->second_idx + 1 >= RB_MAX_SLOTS)
      return PAIMON_ENOMEM; /* Java would open a second array; not reachable in practice */
    b->second_idx++;
    uint32_t need = (uint32_t)b->second_idx + 1;
    if (need > b->nslots) {
      uint32_t cap = b->nslots + (b->nslots >> 1);
      if (cap < need) cap = need;
      rb_cont **s = pm_realloc(b->slots, (size_t)cap * sizeof *s);
      if (!s) return PAIMON_ENOMEM;
      memset(s + b->nslots, 0, (size_t)(cap - b->nslots) * sizeof *s);
      b->slots = s;
      b->nslots = cap;
    }
  }
  b->slots[b->second_idx] = c;
  b->live++;
  *slot = (uint32_t)b->second_idx;
  return 0;
}

/* ---- decoding ---------------------------------------------------------------------- */

typedef struct rb_reader {
  const uint8_t *p, *end;
  const char *what; /* "first value" / "second value", for messages */
  paimon_error *err;
} rb_reader;

PM_PRINTF(2, 3) static int rb_bad(rb_reader *r, const char *fmt, ...) {
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pm_fail(r->err, PAIMON_ECORRUPT, "rbm64 %s: %s", r->what, msg);
}

static int rd_need(rb_reader *r, size_t n, const char *what) {
  if ((size_t)(r->end - r->p) < n) return rb_bad(r, "truncated in %s", what);
  return 0;
}

static int rb_push_leaf(rb64 *b, rb_node *l) {
  PM_TRY(pm_grow(&b->leaves, &b->capleaves, b->nleaves + 1));
  b->leaves[b->nleaves++] = l;
  return 0;
}

/* Reads one node and its subtree. `path` holds the key bytes consumed above `depth`. */
static int rd_node(rb_reader *r, rb64 *b, int depth, uint8_t path[6], rb_node **out) {
  PM_TRY(rd_need(r, 4, "an ART node header"));
  uint8_t type = r->p[0];
  uint16_t count = pm_load_le16(r->p + 1);
  int plen = (int8_t)r->p[3];
  r->p += 4;
  if (type > RB_LEAF) return rb_bad(r, "unknown ART node type %u", type);
  int maxp = type == RB_LEAF ? 6 - depth : 5 - depth; /* an inner node needs a key byte */
  if (plen < 0 || plen > maxp)
    return rb_bad(r, "ART node prefix length %d invalid at depth %d", plen, depth);
  PM_TRY(rd_need(r, (size_t)plen, "an ART node prefix"));
  const uint8_t *prefix = r->p;
  r->p += plen;

  if (type == RB_LEAF) {
    if (count != 0) return rb_bad(r, "ART leaf with child count %u", count);
    PM_TRY(rd_need(r, 14, "an ART leaf"));
    const uint8_t *key = r->p;
    uint64_t idx = pm_load_le64(r->p + 6);
    r->p += 14;
    if (memcmp(key, path, (size_t)depth) || memcmp(key + depth, prefix, (size_t)plen))
      return rb_bad(r, "ART leaf key does not match its path");
    if (idx > INT32_MAX)
      return rb_bad(r, "ART leaf container index %llu out of range", (unsigned long long)idx);
    rb_node *l = leaf_new(key, (uint32_t)idx);
    if (!l) return PAIMON_ENOMEM;
    l->plen = (uint8_t)plen;
    memcpy(l->prefix, prefix, (size_t)plen);
    *out = l;
    return rb_push_leaf(b, l);
  }

  /* child counts Java's grow/shrink thresholds allow (shrinks at 1, 3, 12, 36) */
  static const uint16_t lo[4] = {2, 4, 13, 37}, hi[4] = {4, 16, 48, 256};
  if (count < lo[type] || count > hi[type])
    return rb_bad(r, "ART node type %u with %u children", type, count);
  static const size_t body[4] = {4, 16, 256, 32};
  PM_TRY(rd_need(r, body[type], "an ART node body"));
  rb_node *n = node_new(type);
  if (!n) return PAIMON_ENOMEM;
  *out = n; /* the caller frees a partly built subtree */
  n->count = count;
  n->plen = (uint8_t)plen;
  memcpy(n->prefix, prefix, (size_t)plen);
  memcpy(path + depth, prefix, (size_t)plen);
  const uint8_t *q = r->p;
  r->p += body[type];
  int cd = depth + plen + 1; /* depth of the children */

  if (type == RB_N4 || type == RB_N16) {
    for (int i = 0; i < (type == RB_N4 ? 4 : 8); i++) n->kb[i] = q[(type == RB_N4 ? 3 : 7) - i];
    if (type == RB_N16)
      for (int i = 0; i < 8; i++) n->kb[8 + i] = q[15 - i];
    for (uint16_t i = 1; i < count; i++)
      if (n->kb[i] <= n->kb[i - 1]) return rb_bad(r, "ART node keys not ascending");
    for (uint16_t i = 0; i < count; i++) {
      path[cd - 1] = n->kb[i];
      PM_TRY(rd_node(r, b, cd, path, &n->kids[i]));
    }
    return 0;
  }
  if (type == RB_N48) {
    uint64_t used = 0;
    uint32_t seen = 0;
    for (int i = 0; i < 256; i++) {
      uint8_t s = q[(i & ~7) + 7 - (i & 7)];
      n->kb[i] = s;
      if (s == RB_EMPTY48) continue;
      if (s >= 48 || (used >> s) & 1) return rb_bad(r, "ART Node48 child slot %u invalid", s);
      used |= (uint64_t)1 << s;
      seen++;
    }
    if (seen != count) return rb_bad(r, "ART Node48 has %u slots for %u children", seen, count);
    for (int i = 0; i < 256; i++) {
      if (n->kb[i] == RB_EMPTY48) continue;
      path[cd - 1] = (uint8_t)i;
      PM_TRY(rd_node(r, b, cd, path, &n->kids[n->kb[i]]));
    }
    return 0;
  }
  uint32_t seen = 0;
  for (int i = 0; i < 4; i++) {
    n->mask[i] = pm_load_le64(q + 8 * i);
    seen += (uint32_t)__builtin_popcountll(n->mask[i]);
  }
  if (seen != count) return rb_bad(r, "ART Node256 has %u keys for %u children", seen, count);
  for (int i = 0; i < 256; i++) {
    if (!((n->mask[i >> 6] >> (i & 63)) & 1)) continue;
    path[cd - 1] = (uint8_t)i;
    PM_TRY(rd_node(r, b, cd, path, &n->kids[i]));
  }
  return 0;
}

static int rd_container(rb_reader *r, rb_cont **out) {
  PM_TRY(rd_need(r, 5, "a container header"));
  uint8_t type = r->p[0];
  uint32_t card = pm_load_le32(r->p + 1);
  r->p += 5;
  if (type > RB_ARRAY) return rb_bad(r, "unknown container type %u", type);
  if (card > 65536) return rb_bad(r, "container cardinality %u out of range", card);
  size_t need = type == RB_BITMAP ? 8192 : type == RB_ARRAY ? 2 * (size_t)card : 2;
  PM_TRY(rd_need(r, need, "a container"));
  if (type == RB_ARRAY && card > RB_ARRAY_MAX)
    return rb_bad(r, "array container with %u values", card);
  uint32_t nruns = 0;
  if (type == RB_RUN) {
    nruns = pm_load_le16(r->p);
    r->p += 2;
    PM_TRY(rd_need(r, 4 * (size_t)nruns, "a run container"));
  }
  rb_cont *c = pm_calloc(1, sizeof *c);
  if (!c) return PAIMON_ENOMEM;
  *out = c;
  c->type = type;
  c->card = card;
  if (type == RB_BITMAP) {
    PM_TRY(cont_words(c));
    memcpy(c->w, r->p, 8192);
    r->p += 8192;
    if (words_card(c->w) != card)
      return rb_bad(r, "bitmap container cardinality %u does not match its bits", card);
    return 0;
  }
  uint32_t n = type == RB_ARRAY ? card : 2 * nruns;
  PM_TRY(cont_reserve(c, n ? n : 1));
  for (uint32_t i = 0; i < n; i++) c->v[i] = pm_load_le16(r->p + 2 * i);
  r->p += 2 * (size_t)n;
  if (type == RB_ARRAY) {
    c->n = card;
    for (uint32_t i = 1; i < card; i++)
      if (c->v[i] <= c->v[i - 1]) return rb_bad(r, "array container values not ascending");
    return 0;
  }
  c->n = nruns;
  uint32_t sum = 0, next = 0; /* next: smallest start the following run may have */
  for (uint32_t i = 0; i < nruns; i++) {
    uint32_t s = c->v[2 * i], e = s + c->v[2 * i + 1];
    if (e > 0xFFFF) return rb_bad(r, "run container run past 65535");
    if (s < next) return rb_bad(r, "run container runs overlap or are unsorted");
    next = e + 1;
    sum += e - s + 1;
  }
  if (sum != card) return rb_bad(r, "run container cardinality %u, runs hold %u", card, sum);
  return 0;
}

/* Roaring64Bitmap.deserialize(DataInput) of the whole input, with every invariant Java's
 * own operations keep checked. */
static int rb_decode(rb_reader *r, rb64 *b) {
  PM_TRY(rd_need(r, 1, "the empty tag"));
  uint8_t tag = *r->p++;
  if (tag == 0) {
    if (r->p != r->end)
      return rb_bad(r, "%zu bytes after an empty bitmap", (size_t)(r->end - r->p));
    return 0;
  }
  if (tag != 1) return rb_bad(r, "bad empty tag %u", tag);
  PM_TRY(rd_need(r, 8, "the key count"));
  b->keys = pm_load_le64(r->p);
  r->p += 8;
  uint8_t path[6] = {0};
  PM_TRY(rd_node(r, b, 0, path, &b->root));

  PM_TRY(rd_need(r, 10, "the container arrays header"));
  uint32_t arrays = pm_load_le32(r->p);
  uint8_t trim = r->p[4];
  uint32_t nslots = pm_load_le32(r->p + 5);
  r->p += 9;
  if (arrays != 1) return rb_bad(r, "%d container arrays, expected 1", (int32_t)arrays);
  if (trim != RB_TRIM_MARK) return rb_bad(r, "bad container array mark 0x%02x", trim);
  /* every slot takes at least a byte: cap the allocation by the input */
  if (nslots == 0 || nslots > INT32_MAX || nslots > (size_t)(r->end - r->p))
    return rb_bad(r, "container array length %d invalid", (int32_t)nslots);
  b->slots = pm_calloc(nslots, sizeof *b->slots);
  if (!b->slots) return PAIMON_ENOMEM;
  b->nslots = nslots;
  uint64_t nonnull = 0;
  int64_t last = -1;
  for (uint32_t j = 0; j < nslots; j++) {
    PM_TRY(rd_need(r, 1, "a container slot"));
    uint8_t mark = *r->p++;
    if (mark == 0) continue;
    if (mark != 1) return rb_bad(r, "bad container slot mark %u", mark);
    PM_TRY(rd_container(r, &b->slots[j]));
    nonnull++;
    last = j;
  }
  PM_TRY(rd_need(r, 16, "the containers trailer"));
  b->live = pm_load_le64(r->p);
  b->first_idx = (int32_t)pm_load_le32(r->p + 8);
  b->second_idx = (int32_t)pm_load_le32(r->p + 12);
  r->p += 16;
  if (r->p != r->end) return rb_bad(r, "%zu trailing bytes", (size_t)(r->end - r->p));

  if (b->first_idx != 0) return rb_bad(r, "firstLevelIdx %d, expected 0", b->first_idx);
  if (b->second_idx < 0 || (uint32_t)b->second_idx >= nslots || last > b->second_idx)
    return rb_bad(r, "secondLevelIdx %d inconsistent with %u slots", b->second_idx, nslots);
  if (b->live != nonnull || b->keys != b->nleaves || nonnull != b->nleaves)
    return rb_bad(r, "%llu keys, %zu leaves, %llu containers, %llu slots used",
                  (unsigned long long)b->keys, b->nleaves, (unsigned long long)b->live,
                  (unsigned long long)nonnull);
  /* leaves and live containers must pair up one to one */
  uint8_t *used = pm_calloc(nslots, 1);
  if (!used) return PAIMON_ENOMEM;
  for (size_t i = 0; i < b->nleaves; i++) {
    uint32_t s = b->leaves[i]->slot;
    if (s >= nslots || !b->slots[s] || used[s]) {
      pm_free(used);
      return rb_bad(r, "ART leaf refers to container slot %u that is missing or shared", s);
    }
    used[s] = 1;
  }
  pm_free(used);
  return 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

static size_t node_size(const rb_node *n) {
  static const size_t body[5] = {4, 16, 256, 32, 14};
  size_t s = 4 + n->plen + body[n->type];
  switch (n->type) {
    case RB_N4:
    case RB_N16:
      for (uint16_t i = 0; i < n->count; i++) s += node_size(n->kids[i]);
      break;
    case RB_N48:
      for (int i = 0; i < 48; i++)
        if (n->kids[i]) s += node_size(n->kids[i]);
      break;
    case RB_N256:
      for (int i = 0; i < 256; i++)
        if (n->kids[i]) s += node_size(n->kids[i]);
      break;
    default: break;
  }
  return s;
}

static size_t cont_size(const rb_cont *c) {
  if (c->type == RB_BITMAP) return 6 + 8192;
  if (c->type == RB_ARRAY) return 6 + 2 * (size_t)c->n;
  return 6 + 2 + 4 * (size_t)c->n;
}

static uint8_t *put_le16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  return p + 2;
}

static uint8_t *put_node(uint8_t *p, const rb_node *n) {
  *p++ = n->type;
  p = put_le16(p, n->count);
  *p++ = n->plen;
  memcpy(p, n->prefix, n->plen);
  p += n->plen;
  switch (n->type) {
    case RB_LEAF:
      memcpy(p, n->key, 6);
      pm_store_le64(p + 6, n->slot); /* first-level index 0 in the high half */
      return p + 14;
    case RB_N4:
      for (int i = 0; i < 4; i++) *p++ = n->kb[3 - i];
      break;
    case RB_N16:
      for (int i = 0; i < 8; i++) *p++ = n->kb[7 - i];
      for (int i = 0; i < 8; i++) *p++ = n->kb[15 - i];
      break;
    case RB_N48:
      for (int i = 0; i < 256; i++) *p++ = n->kb[(i & ~7) + 7 - (i & 7)];
      break;
    default:
      for (int i = 0; i < 4; i++, p += 8) pm_store_le64(p, n->mask[i]);
      break;
  }
  if (n->type == RB_N4 || n->type == RB_N16) {
    for (uint16_t i = 0; i < n->count; i++) p = put_node(p, n->kids[i]);
  } else if (n->type == RB_N48) {
    for (int i = 0; i < 256; i++)
      if (n->kb[i] != RB_EMPTY48) p = put_node(p, n->kids[n->kb[i]]);
  } else {
    for (int i = 0; i < 256; i++)
      if (n->kids[i]) p = put_node(p, n->kids[i]);
  }
  return p;
}

static int rb_encode(const rb64 *b, pm_buf *out, paimon_error *err) {
  pm_buf_clear(out);
  if (!b->root) return pm_buf_append(out, "\0", 1);
  size_t size = 1 + 8 + node_size(b->root) + 4 + 1 + 4 + (size_t)b->nslots + 16;
  for (uint32_t i = 0; i < b->nslots; i++)
    if (b->slots[i]) size += cont_size(b->slots[i]) - 1;
  PM_TRY(pm_buf_resize(out, size));
  uint8_t *p = out->data;
  *p++ = 1;
  pm_store_le64(p, b->keys);
  p = put_node(p + 8, b->root);
  pm_store_le32(p, 1);
  p[4] = RB_TRIM_MARK;
  pm_store_le32(p + 5, b->nslots);
  p += 9;
  for (uint32_t i = 0; i < b->nslots; i++) {
    const rb_cont *c = b->slots[i];
    if (!c) {
      *p++ = 0;
      continue;
    }
    p[0] = 1;
    p[1] = c->type;
    pm_store_le32(p + 2, c->card);
    p += 6;
    if (c->type == RB_BITMAP) {
      for (uint32_t k = 0; k < RB_WORDS; k++, p += 8) pm_store_le64(p, c->w[k]);
    } else {
      if (c->type == RB_RUN) p = put_le16(p, (uint16_t)c->n);
      uint32_t m = c->type == RB_RUN ? 2 * c->n : c->n;
      for (uint32_t k = 0; k < m; k++) p = put_le16(p, c->v[k]);
    }
  }
  pm_store_le64(p, b->live);
  pm_store_le32(p + 8, (uint32_t)b->first_idx);
  pm_store_le32(p + 12, (uint32_t)b->second_idx);
  p += 16;
  if (p != out->data + size) return pm_fail(err, PAIMON_EINVAL, "rbm64: encoded size mismatch");
  return 0;
}

/* RoaringBitmap64.serialize: runOptimize every container, then write. */
static int rb_finish(rb64 *b, uint64_t *w, pm_buf *out, paimon_error *err) {
  for (uint32_t i = 0; i < b->nslots; i++)
    if (b->slots[i]) PM_TRY(cont_run_optimize(b->slots[i], w));
  return rb_encode(b, out, err);
}

/* ---- entry points ------------------------------------------------------------------ */

static int union_run(rb64 *acc, rb64 *in, const uint8_t *a, size_t alen, const uint8_t *bb,
                     size_t blen, uint64_t *w, pm_buf *out, paimon_error *err) {
  if ((!a && alen) || (!bb && blen)) return pm_fail(err, PAIMON_EINVAL, "rbm64: NULL input");
  static const uint8_t none[1] = {0};
  if (!a) a = none; /* keeps pointer arithmetic off NULL; length stays 0 */
  if (!bb) bb = none;
  rb_reader ra = {a, a + alen, "first value", err};
  rb_reader rb = {bb, bb + blen, "second value", err};
  PM_TRY(rb_decode(&ra, acc));
  PM_TRY(rb_decode(&rb, in));
  /* Roaring64Bitmap.or: the input's keys in ascending order (its leaves were read so) */
  for (size_t i = 0; i < in->nleaves; i++) {
    const rb_node *l = in->leaves[i];
    rb_cont *c2 = in->slots[l->slot];
    int64_t s = art_find(acc->root, l->key);
    if (s >= 0) {
      PM_TRY(cont_ior(acc->slots[s], c2, w));
      continue;
    }
    uint32_t slot;
    PM_TRY(rb_add_container(acc, c2, &slot)); /* Java adds a clone; ours moves */
    in->slots[l->slot] = NULL;
    int rc = art_insert(&acc->root, l->key, 0, slot);
    if (rc == PAIMON_ECORRUPT) return pm_fail(err, rc, "rbm64: inconsistent ART");
    if (rc) return rc;
    acc->keys++;
  }
  return rb_finish(acc, w, out, err);
}

int pm_agg_rbm64_union(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, pm_buf *out,
                       paimon_error *err) {
  rb64 acc, in;
  rb_init(&acc);
  rb_init(&in);
  uint64_t *w = pm_malloc(RB_WORDS * sizeof *w);
  int rc = w ? union_run(&acc, &in, a, alen, b, blen, w, out, err) : PAIMON_ENOMEM;
  pm_free(w);
  rb_clear(&acc);
  rb_clear(&in);
  if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "rbm64: out of memory");
  return rc;
}

static int cmp_u16(const void *x, const void *y) {
  return (int)*(const uint16_t *)x - (int)*(const uint16_t *)y;
}

static int of_run(rb64 *b, const int64_t *v, size_t n, uint64_t *w, pm_buf *out) {
  /* RoaringBitmap64.add per value: containers gather their low 16 bits unsorted here;
   * Java's ArrayContainer.add turns into a bitmap at the 4097th distinct value, so only
   * the final distinct count decides the type. */
  for (size_t i = 0; i < n; i++) {
    uint64_t x = (uint64_t)v[i];
    uint8_t key[6];
    for (int k = 0; k < 6; k++) key[k] = (uint8_t)(x >> (56 - 8 * k));
    int64_t s = art_find(b->root, key);
    rb_cont *c;
    if (s >= 0) {
      c = b->slots[s];
    } else {
      c = pm_calloc(1, sizeof *c);
      if (!c) return PAIMON_ENOMEM;
      c->type = RB_ARRAY;
      uint32_t slot;
      int rc = rb_add_container(b, c, &slot);
      if (rc) {
        cont_free(c);
        return rc;
      }
      PM_TRY(art_insert(&b->root, key, 0, slot));
      b->keys++;
    }
    if (c->n == UINT32_MAX) return PAIMON_ENOMEM;
    PM_TRY(cont_reserve(c, c->n + 1));
    c->v[c->n++] = (uint16_t)x;
  }
  for (uint32_t i = 0; i < b->nslots; i++) {
    rb_cont *c = b->slots[i];
    if (!c) continue; /* spare capacity */
    qsort(c->v, c->n, sizeof *c->v, cmp_u16);
    uint32_t k = 0;
    for (uint32_t j = 0; j < c->n; j++)
      if (k == 0 || c->v[j] != c->v[k - 1]) c->v[k++] = c->v[j];
    c->n = c->card = k;
    if (k > RB_ARRAY_MAX) {
      memset(w, 0, RB_WORDS * sizeof *w);
      cont_or_into(c, w);
      PM_TRY(cont_set_from_words(c, w, RB_BITMAP, k, 0));
    }
  }
  return rb_finish(b, w, out, NULL);
}

int pm_agg_rbm64_of(const int64_t *v, size_t n, pm_buf *out, paimon_error *err) {
  if (!v && n) return pm_fail(err, PAIMON_EINVAL, "rbm64: NULL values");
  rb64 b;
  rb_init(&b);
  uint64_t *w = pm_malloc(RB_WORDS * sizeof *w);
  int rc = w ? of_run(&b, v, n, w, out) : PAIMON_ENOMEM;
  pm_free(w);
  rb_clear(&b);
  if (rc == PAIMON_ENOMEM) return pm_fail(err, rc, "rbm64: out of memory");
  if (rc) return pm_fail(err, rc, "rbm64: internal error building a bitmap");
  return 0;
}
