/* format/orc/orc_write_stats.c: column statistics as ORC Java 1.9 keeps them (integer,
 * double, string with truncated bounds, decimal, date, timestamp, binary length), merged
 * per row group, stripe and file, and their protobuf form. */
#include "format/orc/orc_write.h"

#include <stdio.h>

#define STR_STATS_MAX 1024 /* ORC Java's StringStatisticsImpl.MAX_BYTES_RECORDED */

/* ---- 128-bit integers (two's complement) for decimals --------------------------------- */

/* Divides a non-negative value by 10, returning the remainder. */
unsigned pm_orcw_u128_div10(i128 *v) { return pm_orc_div10(&v->hi, &v->lo); }

/* Plain decimal text of unscaled `v` at `scale`, trailing fractional zeros removed (as
 * HiveDecimal.toString). */
static size_t dec_text(i128 v, int scale, char *out) {
  bool neg = pm_orcw_i128_neg(v);
  if (neg) v = pm_orcw_i128_negate(v);
  char digits[48];
  int nd = 0;
  while (v.lo != 0 || v.hi != 0) digits[nd++] = (char)('0' + pm_orcw_u128_div10(&v));
  /* digits[] is little-endian; drop trailing fractional zeros */
  int start = 0;
  while (start < nd && start < scale && digits[start] == '0') start++;
  int frac = scale - start; /* fractional digits kept */
  if (start == nd) {        /* value is zero */
    out[0] = '0';
    return 1;
  }
  size_t k = 0;
  if (neg) out[k++] = '-';
  int intd = nd - scale; /* integer digits (may be <= 0) */
  if (intd <= 0) {
    out[k++] = '0';
  } else {
    for (int i = nd - 1; i >= scale; i--) out[k++] = digits[i];
  }
  if (frac > 0) {
    out[k++] = '.';
    for (int i = scale - 1; i >= start; i--) out[k++] = i < nd ? digits[i] : '0';
  }
  return k;
}

/* ---- statistics -------------------------------------------------------------------------- */

void pm_orcw_stats_reset(ostats *s) {
  pm_buf smin = s->smin, smax = s->smax;
  memset(s, 0, sizeof *s);
  s->smin = smin;
  s->smax = smax;
  pm_buf_clear(&s->smin);
  pm_buf_clear(&s->smax);
  s->lmin = UINT64_MAX;
  s->tmin_ns = 0;
  s->tmax_ns = 999999;
}

void pm_orcw_stats_free(ostats *s) {
  pm_buf_free(&s->smin);
  pm_buf_free(&s->smax);
}

int pm_orcw_bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  size_t m = an < bn ? an : bn;
  int c = m ? memcmp(a, b, m) : 0;
  if (c != 0) return c;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/* Start of the UTF-8 character containing byte `i` of p. */
static size_t char_start(const uint8_t *p, size_t i) {
  while (i > 0 && (p[i] & 0xc0) == 0x80) i--;
  return i;
}

/* A string longer than the recorded limit is cut at a character boundary; the upper
 * bound then gets its last code point incremented (ORC Java's rule). */
static int set_bound(pm_buf *dst, const uint8_t *p, size_t n, bool upper) {
  pm_buf_clear(dst);
  if (n <= STR_STATS_MAX) return pm_buf_append(dst, p, n);
  size_t follow = char_start(p, STR_STATS_MAX);
  if (!upper) return pm_buf_append(dst, p, follow);
  if (follow == 0) return pm_buf_append(dst, p, 0);
  size_t last = char_start(p, follow - 1);
  PM_TRY(pm_buf_append(dst, p, last));
  /* decode the code point at last..follow, add one, re-encode */
  uint32_t cp = p[last];
  size_t len = follow - last;
  if (len == 2) cp = cp & 0x1f;
  else if (len == 3) cp = cp & 0x0f;
  else if (len >= 4) cp = cp & 0x07;
  for (size_t i = 1; i < len; i++) cp = (cp << 6) | (p[last + i] & 0x3f);
  cp++;
  uint8_t b[4];
  size_t k;
  if (cp < 0x80) {
    b[0] = (uint8_t)cp;
    k = 1;
  } else if (cp < 0x800) {
    b[0] = (uint8_t)(0xc0 | (cp >> 6));
    b[1] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 2;
  } else if (cp < 0x10000) {
    b[0] = (uint8_t)(0xe0 | (cp >> 12));
    b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    b[2] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 3;
  } else {
    b[0] = (uint8_t)(0xf0 | (cp >> 18));
    b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    b[3] = (uint8_t)(0x80 | (cp & 0x3f));
    k = 4;
  }
  return pm_buf_append(dst, b, k);
}

int pm_orcw_stat_string(ostats *s, const uint8_t *p, size_t n) {
  int rc = 0;
  if (!s->has_min) {
    s->has_min = true;
    s->lower = s->upper = n > STR_STATS_MAX;
    rc = set_bound(&s->smin, p, n, false);
    if (rc == 0) rc = set_bound(&s->smax, p, n, true);
  } else if (pm_orcw_bytes_cmp(s->smin.data, s->smin.len, p, n) > 0) {
    s->lower = n > STR_STATS_MAX;
    rc = set_bound(&s->smin, p, n, false);
  } else if (pm_orcw_bytes_cmp(s->smax.data, s->smax.len, p, n) < 0) {
    s->upper = n > STR_STATS_MAX;
    rc = set_bound(&s->smax, p, n, true);
  }
  s->ssum += n;
  return rc;
}

/* dst += src for a column of ORC kind `kind` (ORC Java's merge rules). */
int pm_orcw_stats_merge(ostats *d, const ostats *s, int kind) {
  int rc = 0;
  switch (kind) {
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->imin = s->imin;
        d->imax = s->imax;
      } else if (s->has_min) {
        if (s->imin < d->imin) d->imin = s->imin;
        if (s->imax > d->imax) d->imax = s->imax;
      }
      d->overflow |= s->overflow;
      if (!d->overflow) {
        int64_t x = s->isum;
        if ((x > 0 && d->isum > INT64_MAX - x) || (x < 0 && d->isum < INT64_MIN - x))
          d->overflow = true;
        else d->isum += x;
      }
      break;
    case PM_ORC_DATE:
      if (s->has_min) {
        if (!d->has_min || s->imin < d->imin) d->imin = s->imin;
        if (!d->has_min || s->imax > d->imax) d->imax = s->imax;
        d->has_min = true;
      }
      break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->dmin = s->dmin;
        d->dmax = s->dmax;
      } else if (s->has_min) {
        if (s->dmin < d->dmin) d->dmin = s->dmin;
        if (s->dmax > d->dmax) d->dmax = s->dmax;
      }
      d->dsum += s->dsum;
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      if (d->count == 0) {
        if (s->count != 0) {
          d->has_min = true;
          d->lower = s->lower;
          d->upper = s->upper;
          pm_buf_clear(&d->smin);
          pm_buf_clear(&d->smax);
          rc = pm_buf_append(&d->smin, s->smin.data, s->smin.len);
          if (rc == 0) rc = pm_buf_append(&d->smax, s->smax.data, s->smax.len);
        }
      } else if (s->count != 0) {
        if (pm_orcw_bytes_cmp(d->smin.data, d->smin.len, s->smin.data, s->smin.len) > 0) {
          pm_buf_clear(&d->smin);
          rc = pm_buf_append(&d->smin, s->smin.data, s->smin.len);
          d->lower = s->lower;
        }
        if (rc == 0 &&
            pm_orcw_bytes_cmp(d->smax.data, d->smax.len, s->smax.data, s->smax.len) < 0) {
          pm_buf_clear(&d->smax);
          rc = pm_buf_append(&d->smax, s->smax.data, s->smax.len);
          d->upper = s->upper;
        }
      }
      d->ssum += s->ssum;
      break;
    case PM_ORC_BINARY: d->ssum += s->ssum; break;
    case PM_ORC_BOOLEAN: d->trues += s->trues; break;
    case PM_ORC_DECIMAL:
      if (!d->has_min) {
        d->has_min = s->has_min;
        d->cmin = s->cmin;
        d->cmax = s->cmax;
        d->csum = s->csum;
        d->csum_bad = s->csum_bad;
      } else if (s->has_min) {
        if (i128_cmp(s->cmin, d->cmin) < 0) d->cmin = s->cmin;
        if (i128_cmp(s->cmax, d->cmax) > 0) d->cmax = s->cmax;
        if (d->csum_bad || s->csum_bad) {
          d->csum_bad = true;
        } else {
          d->csum = pm_orcw_i128_add(d->csum, s->csum);
          if (!i128_fits38(d->csum)) d->csum_bad = true;
        }
      }
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      if (d->count == 0) {
        if (s->count != 0) {
          d->has_min = true;
          d->tmin = s->tmin;
          d->tmax = s->tmax;
          d->tmin_ns = s->tmin_ns;
          d->tmax_ns = s->tmax_ns;
        }
      } else if (s->count != 0) {
        if (d->tmin >= s->tmin) {
          if (d->tmin > s->tmin || d->tmin_ns > s->tmin_ns) d->tmin_ns = s->tmin_ns;
          d->tmin = s->tmin;
        }
        if (d->tmax <= s->tmax) {
          if (d->tmax < s->tmax || d->tmax_ns < s->tmax_ns) d->tmax_ns = s->tmax_ns;
          d->tmax = s->tmax;
        }
      }
      break;
    case PM_ORC_LIST:
    case PM_ORC_MAP:
      if (d->count == 0) {
        d->lmin = s->lmin;
        d->lmax = s->lmax;
      } else {
        if (s->lmin < d->lmin) d->lmin = s->lmin;
        if (s->lmax > d->lmax) d->lmax = s->lmax;
      }
      d->lsum += s->lsum;
      break;
    default: break;
  }
  d->count += s->count;
  d->has_null |= s->has_null;
  d->bytes += s->bytes;
  return rc == 0 ? 0 : PAIMON_ENOMEM;
}

/* Serializes a ColumnStatistics message body (fields in number order). */
void pm_orcw_stats_ser(pm_pbw *p, int kind, int scale, const ostats *s, bool with_bytes) {
  size_t m;
  char t[48];
  pm_pbw_varint(p, 1, s->count);
  switch (kind) {
    case PM_ORC_BYTE:
    case PM_ORC_SHORT:
    case PM_ORC_INT:
    case PM_ORC_LONG:
      m = pm_pbw_begin(p, 2);
      if (s->has_min) {
        pm_pbw_sint(p, 1, s->imin);
        pm_pbw_sint(p, 2, s->imax);
      }
      if (!s->overflow) pm_pbw_sint(p, 3, s->isum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_FLOAT:
    case PM_ORC_DOUBLE:
      m = pm_pbw_begin(p, 3);
      if (s->has_min) {
        pm_pbw_double(p, 1, s->dmin);
        pm_pbw_double(p, 2, s->dmax);
      }
      pm_pbw_double(p, 3, s->dsum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_STRING:
    case PM_ORC_VARCHAR:
    case PM_ORC_CHAR:
      m = pm_pbw_begin(p, 4);
      if (s->count != 0) {
        if (!s->lower) pm_pbw_bytes(p, 1, s->smin.data, s->smin.len);
        if (!s->upper) pm_pbw_bytes(p, 2, s->smax.data, s->smax.len);
        pm_pbw_sint(p, 3, (int64_t)s->ssum);
        if (s->lower) pm_pbw_bytes(p, 4, s->smin.data, s->smin.len);
        if (s->upper) pm_pbw_bytes(p, 5, s->smax.data, s->smax.len);
      }
      pm_pbw_end(p, m);
      break;
    case PM_ORC_BOOLEAN: {
      uint64_t trues = s->trues;
      m = pm_pbw_begin(p, 5);
      pm_pbw_packed(p, 1, &trues, 1);
      pm_pbw_end(p, m);
      break;
    }
    case PM_ORC_DECIMAL:
      m = pm_pbw_begin(p, 6);
      if (s->count != 0 && s->has_min) {
        pm_pbw_bytes(p, 1, t, dec_text(s->cmin, scale, t));
        pm_pbw_bytes(p, 2, t, dec_text(s->cmax, scale, t));
      }
      if (!s->csum_bad) pm_pbw_bytes(p, 3, t, dec_text(s->csum, scale, t));
      pm_pbw_end(p, m);
      break;
    case PM_ORC_DATE:
      m = pm_pbw_begin(p, 7);
      if (s->count != 0 && s->has_min) {
        pm_pbw_sint(p, 1, s->imin);
        pm_pbw_sint(p, 2, s->imax);
      }
      pm_pbw_end(p, m);
      break;
    case PM_ORC_BINARY:
      m = pm_pbw_begin(p, 8);
      pm_pbw_sint(p, 1, (int64_t)s->ssum);
      pm_pbw_end(p, m);
      break;
    case PM_ORC_TIMESTAMP:
    case PM_ORC_TIMESTAMP_INSTANT:
      m = pm_pbw_begin(p, 9);
      if (s->count != 0) {
        pm_pbw_sint(p, 3, s->tmin);
        pm_pbw_sint(p, 4, s->tmax);
        if (s->tmin_ns != 0) pm_pbw_varint(p, 5, (uint64_t)(s->tmin_ns + 1));
        if (s->tmax_ns != 999999) pm_pbw_varint(p, 6, (uint64_t)(s->tmax_ns + 1));
      }
      pm_pbw_end(p, m);
      break;
    default: break;
  }
  pm_pbw_varint(p, 10, s->has_null ? 1 : 0);
  if (with_bytes && s->bytes != 0) pm_pbw_varint(p, 11, s->bytes);
  if (kind == PM_ORC_LIST || kind == PM_ORC_MAP) {
    m = pm_pbw_begin(p, 12);
    if (s->count != 0) {
      pm_pbw_varint(p, 1, s->lmin);
      pm_pbw_varint(p, 2, s->lmax);
    }
    if (s->lsum != 0) pm_pbw_varint(p, 3, s->lsum);
    pm_pbw_end(p, m);
  }
}
