/* format/avro/avro_write_format.c: the Avro data-file writer behind the generic
 * pm_format_writer interface (file.format=avro). */
#include <string.h>

#include "format/avro/avro.h"

typedef struct avro_fw {
  pm_format_writer base;
  pm_avro_writer *w;
  int64_t rows;
  int64_t bytes; /* raw bytes appended, for rolling estimates */
} avro_fw;

static int fw_write(pm_format_writer *fw, const struct ArrowArray *batch, paimon_error *err) {
  avro_fw *a = (avro_fw *)fw;
  PM_TRY(pm_avro_writer_write(a->w, batch, err));
  a->rows += batch->length;
  /* coarse estimate: buffers of the batch's children */
  for (int64_t c = 0; c < batch->n_children; c++) {
    const struct ArrowArray *ch = batch->children[c];
    a->bytes += ch->length * 8;
    if (ch->n_buffers == 3 && ch->buffers[1] && ch->length > 0) {
      const int32_t *off = ch->buffers[1];
      a->bytes += off[ch->offset + ch->length] - off[ch->offset];
    }
  }
  return 0;
}

static int64_t fw_size(pm_format_writer *fw) { return ((avro_fw *)fw)->bytes; }

static int fw_finish(pm_format_writer *fw, int64_t *file_size, paimon_error *err) {
  avro_fw *a = (avro_fw *)fw;
  int rc = pm_avro_writer_finish(a->w, file_size, err);
  pm_avro_writer_free(a->w);
  pm_free(a);
  return rc;
}

static void fw_abort(pm_format_writer *fw) {
  avro_fw *a = (avro_fw *)fw;
  pm_avro_writer_free(a->w);
  pm_free(a);
}

static const pm_format_writer_ops AVRO_OPS = {fw_write, fw_size, fw_finish, fw_abort};

int pm_avro_create(pm_format_writer **out, paimon_fs *fs, const char *path,
                   const pm_type *write_type, const pm_format_write_opts *opts, paimon_error *err) {
  *out = NULL;
  pm_avro_write_opts ao;
  memset(&ao, 0, sizeof ao);
  int rc0 = pm_avro_codec_from_name(opts ? opts->compression : NULL, &ao.codec, err);
  if (rc0) return pm_fail_ctx(err, rc0, "%s", path);
  ao.level = opts ? opts->compression_level : 0;
  avro_fw *a = pm_calloc(1, sizeof *a);
  if (!a) return pm_fail(err, PAIMON_ENOMEM, "out of memory");
  a->base.ops = &AVRO_OPS;
  int rc = pm_avro_writer_open(&a->w, fs, path, write_type, &ao, err);
  if (rc) {
    pm_free(a);
    return rc;
  }
  *out = &a->base;
  return 0;
}
