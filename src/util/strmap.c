/* util/strmap.c: see strmap.h. */
#include "util/strmap.h"

#include "util/vec.h"

static uint64_t str_hash(const char *s) { return pm_hash_bytes64((const uint8_t *)s, strlen(s)); }

/* Slot holding `key`, or the empty slot where it would go. */
static size_t slot_of(const pm_strmap *m, const char *key) {
  size_t mask = m->nslot - 1, j = (size_t)str_hash(key) & mask;
  while (m->slot[j] && strcmp(m->keys[m->slot[j] - 1], key) != 0) j = (j + 1) & mask;
  return j;
}

static int rehash(pm_strmap *m, size_t nslot) {
  uint32_t *s = pm_calloc(nslot, sizeof *s);
  if (!s) return PAIMON_ENOMEM;
  pm_free(m->slot);
  m->slot = s;
  m->nslot = nslot;
  for (size_t i = 0; i < m->n; i++) m->slot[slot_of(m, m->keys[i])] = (uint32_t)(i + 1);
  return PAIMON_OK;
}

int64_t pm_strmap_find(const pm_strmap *m, const char *key) {
  if (!m->nslot) return -1;
  uint32_t s = m->slot[slot_of(m, key)];
  return s ? (int64_t)s - 1 : -1;
}

bool pm_strmap_get(const pm_strmap *m, const char *key, int64_t *val) {
  int64_t i = pm_strmap_find(m, key);
  if (i < 0) return false;
  if (val) *val = m->vals[i];
  return true;
}

int pm_strmap_put(pm_strmap *m, const char *key, int64_t val, paimon_error *err) {
  int64_t at = pm_strmap_find(m, key);
  if (at >= 0) {
    m->vals[at] = val;
    return PAIMON_OK;
  }
  if (m->n >= UINT32_MAX - 1) return pm_fail(err, PAIMON_ENOMEM, "string map: too many keys");
  /* load factor at most 1/2 */
  if ((m->n + 1) * 2 > m->nslot && rehash(m, m->nslot ? m->nslot * 2 : 16))
    return pm_fail(err, PAIMON_ENOMEM, "string map: out of memory");
  size_t kcap = m->cap;
  if (pm_grow(&m->keys, &kcap, m->n + 1) || pm_grow(&m->vals, &m->cap, m->n + 1))
    return pm_fail(err, PAIMON_ENOMEM, "string map: out of memory");
  char *k = pm_strdup(key);
  if (!k) return pm_fail(err, PAIMON_ENOMEM, "string map: out of memory");
  m->keys[m->n] = k;
  m->vals[m->n] = val;
  m->slot[slot_of(m, k)] = (uint32_t)(m->n + 1);
  m->n++;
  return PAIMON_OK;
}

void pm_strmap_clear(pm_strmap *m) {
  for (size_t i = 0; i < m->n; i++) pm_free(m->keys[i]);
  m->n = 0;
  if (m->nslot) memset(m->slot, 0, m->nslot * sizeof *m->slot);
}

void pm_strmap_free(pm_strmap *m) {
  pm_strmap_clear(m);
  pm_free(m->keys);
  pm_free(m->vals);
  pm_free(m->slot);
  memset(m, 0, sizeof *m);
}
