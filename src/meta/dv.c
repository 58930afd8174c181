/* meta/dv.c: deletion-vector blocks of DELETION_VECTORS index files
 * (format-metadata.md §4.3). The roaring bitmaps are decoded by our own strict reader of
 * the portable format (RoaringFormatSpec) rather than CRoaring: the installed CRoaring
 * (0.2.x) has no validation of container contents, and an inconsistent container
 * (bitmap cardinality, unsorted arrays, overlapping runs) must be PAIMON_ECORRUPT here. */
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "meta/meta.h"

#define DV_MAGIC32 1581511376u
#define DV_MAGIC64 1681511377u
#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define MAX_POSITIONS ((int64_t)(PM_MAX_ALLOC / sizeof(int64_t)))

typedef struct {
  const uint8_t *p, *end;
} rd;

static bool need(const rd *r, size_t n) { return (size_t)(r->end - r->p) >= n; }

static int bad(paimon_error *err, const char *what) {
  return pm_fail(err, PAIMON_ECORRUPT, "deletion vector: %s", what);
}

typedef struct {
  int64_t *v;
  int64_t n, cap;
} posvec;

static int pos_reserve(posvec *pv, int64_t extra, paimon_error *err) {
  if (extra > MAX_POSITIONS - pv->n) return bad(err, "more positions than the allocation limit");
  if (pv->n + extra <= pv->cap) return 0;
  int64_t nc = pv->cap ? pv->cap : 64;
  while (nc < pv->n + extra) nc *= 2;
  if (nc > MAX_POSITIONS) nc = MAX_POSITIONS;
  int64_t *nv = pm_realloc(pv->v, (size_t)nc * sizeof(int64_t));
  if (!nv) return pm_fail(err, PAIMON_ENOMEM, "deletion vector: out of memory");
  pv->v = nv;
  pv->cap = nc;
  return 0;
}

/* One portable 32-bit roaring bitmap at r->p; appends (high << 32) | value, ascending. */
static int read_roaring32(rd *r, int64_t high, posvec *pv, paimon_error *err) {
  if (!need(r, 4)) return bad(err, "truncated roaring cookie");
  uint32_t cookie = pm_load_le32(r->p);
  r->p += 4;
  uint32_t n;
  const uint8_t *runflags = NULL;
  bool has_offsets;
  if ((cookie & 0xffff) == COOKIE_RUN) {
    n = (cookie >> 16) + 1;
    size_t rl = (n + 7) / 8;
    if (!need(r, rl)) return bad(err, "truncated run flags");
    runflags = r->p;
    r->p += rl;
    has_offsets = n >= 4;
  } else if (cookie == COOKIE_NO_RUN) {
    if (!need(r, 4)) return bad(err, "truncated container count");
    n = pm_load_le32(r->p);
    r->p += 4;
    if (n > 65536) return bad(err, "more than 65536 containers");
    has_offsets = true;
  } else {
    return bad(err, "unknown roaring cookie");
  }
  if (!need(r, (size_t)n * 4)) return bad(err, "truncated container headers");
  const uint8_t *hdr = r->p;
  r->p += (size_t)n * 4;
  if (has_offsets) {
    if (!need(r, (size_t)n * 4)) return bad(err, "truncated container offsets");
    r->p += (size_t)n * 4; /* containers follow in order; offsets are redundant */
  }
  int32_t prev_key = -1;
  for (uint32_t i = 0; i < n; i++) {
    int32_t key = pm_load_le16(hdr + 4 * i);
    int32_t card = (int32_t)pm_load_le16(hdr + 4 * i + 2) + 1;
    if (key <= prev_key) return bad(err, "container keys not ascending");
    prev_key = key;
    int64_t base = (high << 32) | ((int64_t)key << 16);
    int32_t got = 0;
    PM_TRY(pos_reserve(pv, card, err)); /* per container: memory follows the bytes read */
    if (runflags && ((runflags[i / 8] >> (i % 8)) & 1)) {
      if (!need(r, 2)) return bad(err, "truncated run container");
      uint32_t nr = pm_load_le16(r->p);
      r->p += 2;
      if (!need(r, (size_t)nr * 4)) return bad(err, "truncated runs");
      int32_t next_free = 0;
      for (uint32_t k = 0; k < nr; k++) {
        int32_t s = pm_load_le16(r->p + 4 * k), l = pm_load_le16(r->p + 4 * k + 2);
        if (s < next_free || s + l > 65535) return bad(err, "runs overlap or overflow");
        if (got + l + 1 > card) return bad(err, "run container exceeds its cardinality");
        for (int32_t v = s; v <= s + l; v++) pv->v[pv->n++] = base | v;
        got += l + 1;
        next_free = s + l + 1;
      }
      r->p += (size_t)nr * 4;
    } else if (card > 4096) {
      if (!need(r, 8192)) return bad(err, "truncated bitmap container");
      for (int w = 0; w < 1024; w++) {
        uint64_t word = pm_load_le64(r->p + 8 * w);
        while (word) {
          int bit = 0;
          uint64_t t = word;
          while (!(t & 1)) t >>= 1, bit++;
          if (got >= card) return bad(err, "bitmap container exceeds its cardinality");
          pv->v[pv->n++] = base | (w * 64 + bit);
          got++;
          word &= word - 1;
        }
      }
      r->p += 8192;
    } else {
      if (!need(r, (size_t)card * 2)) return bad(err, "truncated array container");
      int32_t prev = -1;
      for (int32_t k = 0; k < card; k++) {
        int32_t v = pm_load_le16(r->p + 2 * k);
        if (v <= prev) return bad(err, "array container not ascending");
        prev = v;
        pv->v[pv->n++] = base | v;
      }
      got = card;
      r->p += (size_t)card * 2;
    }
    if (got != card) return bad(err, "container cardinality mismatch");
  }
  return 0;
}

int pm_dv_decode(const uint8_t *block, size_t len, pm_dv *out, paimon_error *err) {
  out->count = 0;
  out->positions = NULL;
  if (len < 12) return bad(err, "block shorter than 12 bytes");
  uint32_t size = pm_load_be32(block);
  if ((size_t)size != len - 8)
    return pm_fail(err, PAIMON_ECORRUPT, "deletion vector: size %u but block of %zu bytes", size,
                   len);
  const uint8_t *body = block + 4;
  uint32_t crc = pm_load_be32(block + 4 + size);
  if (pm_crc32(0, body, size) != crc) return bad(err, "CRC mismatch");
  rd r = {body + 4, body + size};
  posvec pv = {NULL, 0, 0};
  int rc = 0;
  if (pm_load_be32(body) == DV_MAGIC32) {
    rc = read_roaring32(&r, 0, &pv, err);
  } else if (pm_load_le32(body) == DV_MAGIC64) {
    /* 64-bit: int64 LE bitmap count, then (int32 LE high key, 32-bit bitmap) each. */
    if (!need(&r, 8)) {
      rc = bad(err, "truncated 64-bit bitmap count");
    } else {
      int64_t cnt = (int64_t)pm_load_le64(r.p);
      r.p += 8;
      if (cnt < 0 || cnt > (int64_t)(r.end - r.p) / 8) rc = bad(err, "bad 64-bit bitmap count");
      int64_t prev_high = -1;
      for (int64_t k = 0; rc == 0 && k < cnt; k++) {
        if (!need(&r, 4)) {
          rc = bad(err, "truncated 64-bit high key");
          break;
        }
        int32_t high = (int32_t)pm_load_le32(r.p);
        r.p += 4;
        if (high < 0 || high <= prev_high) {
          rc = bad(err, "64-bit high keys negative or not ascending");
          break;
        }
        prev_high = high;
        rc = read_roaring32(&r, high, &pv, err);
      }
    }
  } else {
    rc = bad(err, "unknown magic");
  }
  if (rc == 0 && r.p != r.end) rc = bad(err, "trailing bytes after the bitmap");
  if (rc) {
    pm_free(pv.v);
    return rc;
  }
  out->count = pv.n;
  out->positions = pv.v;
  return 0;
}

int pm_roaring32_validate(const uint8_t *p, size_t len, size_t *used, paimon_error *err) {
  rd r = {p, p + len};
  posvec pv = {NULL, 0, 0};
  int rc = read_roaring32(&r, 0, &pv, err);
  pm_free(pv.v);
  if (rc) {
    /* the reader speaks of deletion vectors; this bitmap is a plain value */
    const char *m = err ? strchr(err->message, ':') : NULL;
    return pm_fail(err, rc, "roaring bitmap:%s", m ? m + 1 : " invalid");
  }
  *used = (size_t)(r.p - p);
  return 0;
}

int pm_dv_read(paimon_fs *fs, const char *path, int64_t offset, int64_t length, pm_dv *out,
               paimon_error *err) {
  out->count = 0;
  out->positions = NULL;
  if (offset < 1 || length < 4 || (uint64_t)length > PM_MAX_ALLOC - 8)
    return pm_fail(err, PAIMON_ECORRUPT, "%s: bad deletion vector range (%lld, %lld)", path,
                   (long long)offset, (long long)length);
  paimon_rfile *f = NULL;
  PM_TRY(pm_fs_open_read(fs, path, &f, err));
  uint8_t *buf = NULL;
  int rc = 0;
  uint8_t ver, head[8];
  PM_CHECK(pm_rfile_read_exact(f, path, &ver, 1, 0, err), done);
  if (ver != 1) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: deletion vector file version %u", path, ver);
    goto done;
  }
  /* DeletionVectorMeta.length is the size for 32-bit vectors and the whole block (size +
   * 8) for 64-bit ones (Bitmap64DeletionVector.serializeTo returns both; Java 1.4.1
   * DeletionVector.read checks each so). */
  PM_CHECK(pm_rfile_read_exact(f, path, head, 8, offset, err), done);
  uint32_t size = pm_load_be32(head);
  bool is64 = pm_load_le32(head + 4) == DV_MAGIC64;
  if (size != (uint64_t)length && !(is64 && (uint64_t)size + 8 == (uint64_t)length)) {
    rc = pm_fail(err, PAIMON_ECORRUPT, "%s: deletion vector at %lld has size %u, index says %lld",
                 path, (long long)offset, size, (long long)length);
    goto done;
  }
  if (!(buf = pm_malloc((size_t)size + 8))) {
    rc = pm_fail(err, PAIMON_ENOMEM, "%s: out of memory", path);
    goto done;
  }
  PM_CHECK(pm_rfile_read_exact(f, path, buf, (size_t)size + 8, offset, err), done);
  rc = pm_dv_decode(buf, (size_t)size + 8, out, err);
  if (rc) pm_fail_ctx(err, rc, "%s at offset %lld", path, (long long)offset);
done:
  pm_free(buf);
  f->close(f);
  return rc;
}

void pm_dv_clear(pm_dv *dv) {
  if (!dv) return;
  pm_free(dv->positions);
  dv->positions = NULL;
  dv->count = 0;
}
