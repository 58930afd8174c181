/* table/predicate.c: predicate trees, the SQL-like parser and printer, binding to a ROW
 * type, exact three-valued evaluation over Arrow batches and statistics pruning. */
#include "table/predicate_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <paimon/common.h>

/* ======================================================================================
 * Construction
 * ==================================================================================== */

static paimon_predicate *node_new(pm_pred_kind kind) {
  paimon_predicate *p = pm_calloc(1, sizeof *p);
  if (p) {
    p->kind = kind;
    p->depth = 1;
  }
  return p;
}

PAIMON_API void paimon_predicate_free(paimon_predicate *p) {
  if (!p) return;
  pm_free(p->column);
  for (size_t i = 0; i < p->nlits; i++) pm_free(p->lits[i]);
  pm_free(p->lits);
  for (size_t i = 0; i < p->nkids; i++) paimon_predicate_free(p->kids[i]);
  pm_free(p->kids);
  pm_free(p);
}

static int check_column(const char *column, paimon_error *err) {
  if (!column || !*column) return pm_fail(err, PAIMON_EINVAL, "predicate: empty column name");
  return 0;
}

/* A leaf with `n` copied literals. */
static int leaf_new(paimon_predicate **out, pm_pred_kind kind, int op, const char *column,
                    const char *const *lits, size_t n, paimon_error *err) {
  *out = NULL;
  PM_TRY(check_column(column, err));
  if (n > 0 && !lits)
    return pm_fail(err, PAIMON_EINVAL, "predicate on '%s': NULL literal list", column);
  for (size_t i = 0; i < n; i++)
    if (!lits[i])
      return pm_fail(err, PAIMON_EINVAL,
                     "predicate on '%s': NULL literal (use IS NULL to test for nulls)", column);
  if (n > ((size_t)1 << 24))
    return pm_fail(err, PAIMON_ENOMEM, "predicate on '%s': too many literals", column);
  paimon_predicate *p = node_new(kind);
  if (!p) goto oom;
  p->op = op;
  p->column = pm_strdup(column);
  if (!p->column) goto oom;
  if (n > 0) {
    p->lits = pm_calloc(n, sizeof *p->lits);
    if (!p->lits) goto oom;
    for (size_t i = 0; i < n; i++) {
      p->lits[i] = pm_strdup(lits[i]);
      if (!p->lits[i]) goto oom;
      p->nlits = i + 1;
    }
  }
  *out = p;
  return 0;
oom:
  paimon_predicate_free(p);
  return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
}

PAIMON_API int paimon_predicate_compare(paimon_predicate **out, const char *column, int op,
                                        const char *literal, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  *out = NULL;
  if (op < PAIMON_EQ || op > PAIMON_GE)
    return pm_fail(err, PAIMON_EINVAL, "predicate: unknown comparison operator %d", op);
  const char *lits[1] = {literal};
  return leaf_new(out, PM_PRED_CMP, op, column, lits, 1, err);
}

PAIMON_API int paimon_predicate_is_null(paimon_predicate **out, const char *column,
                                        paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IS_NULL, 0, column, NULL, 0, err);
}

PAIMON_API int paimon_predicate_is_not_null(paimon_predicate **out, const char *column,
                                            paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IS_NOT_NULL, 0, column, NULL, 0, err);
}

PAIMON_API int paimon_predicate_in(paimon_predicate **out, const char *column,
                                   const char *const *literals, size_t n, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  return leaf_new(out, PM_PRED_IN, 0, column, literals, n, err);
}

/* Appends `k` (owned) to the n-ary node `p`, flattening a child of the same kind. */
static int kids_append(paimon_predicate *p, paimon_predicate *k) {
  size_t add = (k->kind == p->kind) ? k->nkids : 1;
  paimon_predicate **nk = pm_realloc(p->kids, (p->nkids + add) * sizeof *nk);
  if (!nk) return PAIMON_ENOMEM;
  p->kids = nk;
  if (k->kind == p->kind) {
    for (size_t i = 0; i < k->nkids; i++) {
      p->kids[p->nkids++] = k->kids[i];
      if (k->kids[i]->depth + 1 > p->depth) p->depth = k->kids[i]->depth + 1;
    }
    k->nkids = 0;
    paimon_predicate_free(k);
  } else {
    p->kids[p->nkids++] = k;
    if (k->depth + 1 > p->depth) p->depth = k->depth + 1;
  }
  return 0;
}

static int junction(paimon_predicate **out, pm_pred_kind kind, paimon_predicate *a,
                    paimon_predicate *b, paimon_error *err) {
  if (out) *out = NULL;
  if (!out || !a || !b) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    return pm_fail(err, PAIMON_EINVAL, "predicate: NULL operand of %s",
                   kind == PM_PRED_AND ? "AND" : "OR");
  }
  paimon_predicate *p = node_new(kind);
  if (!p) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (kids_append(p, a) != 0) {
    paimon_predicate_free(a);
    paimon_predicate_free(b);
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (kids_append(p, b) != 0) {
    paimon_predicate_free(b);
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (p->depth > PM_PRED_MAX_DEPTH) {
    paimon_predicate_free(p);
    return pm_fail(err, PAIMON_EINVAL, "predicate: nested deeper than %d levels",
                   PM_PRED_MAX_DEPTH);
  }
  *out = p;
  return 0;
}

PAIMON_API int paimon_predicate_and(paimon_predicate **out, paimon_predicate *a,
                                    paimon_predicate *b, paimon_error *err) {
  return junction(out, PM_PRED_AND, a, b, err);
}

PAIMON_API int paimon_predicate_or(paimon_predicate **out, paimon_predicate *a, paimon_predicate *b,
                                   paimon_error *err) {
  return junction(out, PM_PRED_OR, a, b, err);
}

PAIMON_API int paimon_predicate_not(paimon_predicate **out, paimon_predicate *a,
                                    paimon_error *err) {
  if (out) *out = NULL;
  if (!out || !a) {
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_EINVAL, "predicate: NULL operand of NOT");
  }
  if (a->depth + 1 > PM_PRED_MAX_DEPTH) {
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_EINVAL, "predicate: nested deeper than %d levels",
                   PM_PRED_MAX_DEPTH);
  }
  paimon_predicate *p = node_new(PM_PRED_NOT);
  paimon_predicate **k = pm_malloc(sizeof *k);
  if (!p || !k) {
    pm_free(p);
    pm_free(k);
    paimon_predicate_free(a);
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  k[0] = a;
  p->kids = k;
  p->nkids = 1;
  p->depth = a->depth + 1;
  *out = p;
  return 0;
}

paimon_predicate *pm_pred_clone(const paimon_predicate *p) {
  if (!p) return NULL;
  paimon_predicate *c = node_new(p->kind);
  if (!c) return NULL;
  c->op = p->op;
  c->depth = p->depth;
  if (p->column && !(c->column = pm_strdup(p->column))) goto fail;
  if (p->nlits) {
    if (!(c->lits = pm_calloc(p->nlits, sizeof *c->lits))) goto fail;
    for (size_t i = 0; i < p->nlits; i++) {
      if (!(c->lits[i] = pm_strdup(p->lits[i]))) goto fail;
      c->nlits = i + 1;
    }
  }
  if (p->nkids) {
    if (!(c->kids = pm_calloc(p->nkids, sizeof *c->kids))) goto fail;
    for (size_t i = 0; i < p->nkids; i++) {
      if (!(c->kids[i] = pm_pred_clone(p->kids[i]))) goto fail;
      c->nkids = i + 1;
    }
  }
  return c;
fail:
  paimon_predicate_free(c);
  return NULL;
}

/* ======================================================================================
 * Column analysis
 * ==================================================================================== */

static int collect_columns(const paimon_predicate *p, const char ***names, size_t *n, size_t *cap) {
  if (p->column) {
    for (size_t i = 0; i < *n; i++)
      if (strcmp((*names)[i], p->column) == 0) return 0;
    if (*n == *cap) {
      size_t nc = *cap ? *cap * 2 : 8;
      const char **nn = pm_realloc((void *)*names, nc * sizeof *nn);
      if (!nn) return PAIMON_ENOMEM;
      *names = nn;
      *cap = nc;
    }
    (*names)[(*n)++] = p->column;
  }
  for (size_t i = 0; i < p->nkids; i++) PM_TRY(collect_columns(p->kids[i], names, n, cap));
  return 0;
}

int pm_pred_columns(const paimon_predicate *p, const char ***names, size_t *n, paimon_error *err) {
  *names = NULL;
  *n = 0;
  if (!p) return 0;
  size_t cap = 0;
  if (collect_columns(p, names, n, &cap) != 0) {
    pm_free((void *)*names);
    *names = NULL;
    *n = 0;
    return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  return 0;
}

static bool name_in(const char *name, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (names[i] && strcmp(names[i], name) == 0) return true;
  return false;
}

bool pm_pred_only_columns(const paimon_predicate *p, const char *const *names, size_t n) {
  if (!p) return true;
  if (p->column && !name_in(p->column, names, n)) return false;
  for (size_t i = 0; i < p->nkids; i++)
    if (!pm_pred_only_columns(p->kids[i], names, n)) return false;
  return true;
}

int pm_pred_restrict(paimon_predicate **out, const paimon_predicate *p, const char *const *names,
                     size_t n, paimon_error *err) {
  *out = NULL;
  if (!p) return 0;
  if (pm_pred_only_columns(p, names, n)) {
    if (!(*out = pm_pred_clone(p))) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
    return 0;
  }
  if (p->kind != PM_PRED_AND) return 0; /* an OR/NOT/leaf touching other columns: drop */
  paimon_predicate *acc = NULL;
  for (size_t i = 0; i < p->nkids; i++) {
    paimon_predicate *k = NULL;
    int rc = pm_pred_restrict(&k, p->kids[i], names, n, err);
    if (rc != 0) {
      paimon_predicate_free(acc);
      return rc;
    }
    if (!k) continue;
    if (!acc) {
      acc = k;
    } else {
      rc = paimon_predicate_and(&acc, acc, k, err);
      if (rc != 0) return rc;
    }
  }
  *out = acc;
  return 0;
}

/* ======================================================================================
 * Printer
 * ==================================================================================== */

static const char *const KEYWORDS[] = {"AND",  "OR",    "NOT",     "IS",   "NULL", "IN",
                                       "TRUE", "FALSE", "BETWEEN", "DATE", "TIME", "TIMESTAMP"};

static bool word_is_keyword(const char *s, size_t n) {
  for (size_t i = 0; i < sizeof KEYWORDS / sizeof KEYWORDS[0]; i++) {
    const char *k = KEYWORDS[i];
    if (strlen(k) != n) continue;
    size_t j = 0;
    while (j < n && toupper((unsigned char)s[j]) == k[j]) j++;
    if (j == n) return true;
  }
  return false;
}

static bool ident_start(int c) { return isalpha(c) || c == '_' || c >= 0x80; }
static bool ident_char(int c) { return isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

/* Length of a number token at s ([+-]digits[.digits][e[+-]digits]), or 0. */
static size_t number_len(const char *s) {
  size_t i = 0, digits = 0;
  if (s[i] == '+' || s[i] == '-') i++;
  while (isdigit((unsigned char)s[i])) i++, digits++;
  if (s[i] == '.') {
    i++;
    while (isdigit((unsigned char)s[i])) i++, digits++;
  }
  if (digits == 0) return 0;
  if (s[i] == 'e' || s[i] == 'E') {
    size_t j = i + 1;
    if (s[j] == '+' || s[j] == '-') j++;
    if (isdigit((unsigned char)s[j])) {
      while (isdigit((unsigned char)s[j])) j++;
      i = j;
    }
  }
  return i;
}

static int print_column(pm_buf *b, const char *c) {
  size_t n = strlen(c);
  bool bare = n > 0 && ident_start((unsigned char)c[0]) && !word_is_keyword(c, n);
  for (size_t i = 0; bare && i < n; i++)
    if (!ident_char((unsigned char)c[i])) bare = false;
  if (bare) return pm_buf_append(b, c, n);
  PM_TRY(pm_buf_append(b, "\"", 1));
  for (size_t i = 0; i < n; i++)
    PM_TRY(pm_buf_append(b, c[i] == '"' ? "\"\"" : c + i, c[i] == '"' ? 2 : 1));
  return pm_buf_append(b, "\"", 1);
}

static int print_literal(pm_buf *b, const char *l) {
  size_t n = strlen(l);
  if (n > 0 && number_len(l) == n) return pm_buf_append(b, l, n);
  PM_TRY(pm_buf_append(b, "'", 1));
  for (size_t i = 0; i < n; i++)
    PM_TRY(pm_buf_append(b, l[i] == '\'' ? "''" : l + i, l[i] == '\'' ? 2 : 1));
  return pm_buf_append(b, "'", 1);
}

static const char *op_text(int op) {
  switch (op) {
    case PAIMON_EQ: return " = ";
    case PAIMON_NE: return " <> ";
    case PAIMON_LT: return " < ";
    case PAIMON_LE: return " <= ";
    case PAIMON_GT: return " > ";
    default: return " >= ";
  }
}

static int print_node(pm_buf *b, const paimon_predicate *p) {
  switch (p->kind) {
    case PM_PRED_CMP:
      PM_TRY(print_column(b, p->column));
      PM_TRY(pm_buf_append_str(b, op_text(p->op)));
      return print_literal(b, p->lits[0]);
    case PM_PRED_IS_NULL:
    case PM_PRED_IS_NOT_NULL:
      PM_TRY(print_column(b, p->column));
      return pm_buf_append_str(b, p->kind == PM_PRED_IS_NULL ? " IS NULL" : " IS NOT NULL");
    case PM_PRED_IN:
      PM_TRY(print_column(b, p->column));
      PM_TRY(pm_buf_append_str(b, " IN ("));
      for (size_t i = 0; i < p->nlits; i++) {
        if (i) PM_TRY(pm_buf_append_str(b, ", "));
        PM_TRY(print_literal(b, p->lits[i]));
      }
      return pm_buf_append_str(b, ")");
    case PM_PRED_AND:
    case PM_PRED_OR:
      for (size_t i = 0; i < p->nkids; i++) {
        const paimon_predicate *k = p->kids[i];
        bool paren = k->kind == PM_PRED_AND || k->kind == PM_PRED_OR;
        if (i) PM_TRY(pm_buf_append_str(b, p->kind == PM_PRED_AND ? " AND " : " OR "));
        if (paren) PM_TRY(pm_buf_append_str(b, "("));
        PM_TRY(print_node(b, k));
        if (paren) PM_TRY(pm_buf_append_str(b, ")"));
      }
      return 0;
    case PM_PRED_NOT: {
      const paimon_predicate *k = p->kids[0];
      bool paren = k->kind == PM_PRED_AND || k->kind == PM_PRED_OR;
      PM_TRY(pm_buf_append_str(b, paren ? "NOT (" : "NOT "));
      PM_TRY(print_node(b, k));
      return paren ? pm_buf_append_str(b, ")") : 0;
    }
  }
  return 0;
}

PAIMON_API int paimon_predicate_to_string(char **out, const paimon_predicate *p,
                                          paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "paimon_predicate_to_string: out is NULL");
  *out = NULL;
  if (!p) return pm_fail(err, PAIMON_EINVAL, "paimon_predicate_to_string: predicate is NULL");
  pm_buf b = PM_BUF_INIT;
  if (print_node(&b, p) != 0 || pm_buf_reserve(&b, 1) != 0) {
    pm_buf_free(&b);
    return pm_fail(err, PAIMON_ENOMEM, "paimon_predicate_to_string: out of memory");
  }
  *out = pm_buf_detach(&b);
  return PAIMON_OK;
}

/* ======================================================================================
 * Parser
 * ==================================================================================== */

typedef enum tok_kind { T_END, T_LP, T_RP, T_COMMA, T_OP, T_STR, T_QID, T_NUM, T_WORD } tok_kind;

typedef struct parser {
  const char *s;
  size_t pos;  /* start of the current token */
  size_t next; /* end of the current token */
  tok_kind kind;
  int op;     /* T_OP */
  char *text; /* T_STR/T_QID/T_NUM/T_WORD value (owned) */
  int depth;
  paimon_error *err;
} parser;

static int perr(parser *ps, const char *what) {
  const char *at = ps->s + ps->pos;
  if (ps->kind == T_END)
    return pm_fail(ps->err, PAIMON_EINVAL, "predicate: %s at end of input", what);
  return pm_fail(ps->err, PAIMON_EINVAL, "predicate: %s at position %zu near '%.20s'", what,
                 ps->pos + 1, at);
}

/* Reads a quoted token (quote q, doubled to escape) starting at s[i] == q. */
static int read_quoted(parser *ps, size_t i, char q) {
  pm_buf b = PM_BUF_INIT;
  size_t j = i + 1;
  for (;;) {
    if (ps->s[j] == '\0') {
      pm_buf_free(&b);
      ps->pos = i;
      return pm_fail(ps->err, PAIMON_EINVAL, "predicate: unterminated %s starting at position %zu",
                     q == '\'' ? "string" : "quoted name", i + 1);
    }
    if (ps->s[j] == q) {
      if (ps->s[j + 1] == q) {
        if (pm_buf_append(&b, &q, 1) != 0) goto oom;
        j += 2;
        continue;
      }
      j++;
      break;
    }
    if (pm_buf_append(&b, ps->s + j, 1) != 0) goto oom;
    j++;
  }
  if (pm_buf_reserve(&b, 1) != 0) goto oom;
  ps->text = pm_buf_detach(&b);
  ps->next = j;
  return 0;
oom:
  pm_buf_free(&b);
  return pm_fail(ps->err, PAIMON_ENOMEM, "predicate: out of memory");
}

static int advance(parser *ps) {
  pm_free(ps->text);
  ps->text = NULL;
  size_t i = ps->next;
  while (isspace((unsigned char)ps->s[i])) i++;
  ps->pos = i;
  char c = ps->s[i];
  size_t n;
  if (c == '\0') {
    ps->kind = T_END;
    ps->next = i;
    return 0;
  }
  if (c == '(' || c == ')' || c == ',') {
    ps->kind = c == '(' ? T_LP : c == ')' ? T_RP : T_COMMA;
    ps->next = i + 1;
    return 0;
  }
  if (c == '=' || c == '<' || c == '>' || c == '!') {
    char d = ps->s[i + 1];
    ps->kind = T_OP;
    ps->next = i + 2;
    if (c == '=') ps->op = PAIMON_EQ, ps->next = (d == '=') ? i + 2 : i + 1;
    else if (c == '!' && d == '=') ps->op = PAIMON_NE;
    else if (c == '<' && d == '>') ps->op = PAIMON_NE;
    else if (c == '<' && d == '=') ps->op = PAIMON_LE;
    else if (c == '>' && d == '=') ps->op = PAIMON_GE;
    else if (c == '<') ps->op = PAIMON_LT, ps->next = i + 1;
    else if (c == '>') ps->op = PAIMON_GT, ps->next = i + 1;
    else return perr(ps, "unexpected character");
    return 0;
  }
  if (c == '\'' || c == '"') {
    ps->kind = c == '\'' ? T_STR : T_QID;
    return read_quoted(ps, i, c);
  }
  if ((n = number_len(ps->s + i)) > 0) {
    ps->kind = T_NUM;
    ps->next = i + n;
    if (!(ps->text = pm_strndup(ps->s + i, n)))
      return pm_fail(ps->err, PAIMON_ENOMEM, "predicate: out of memory");
    return 0;
  }
  if (ident_start((unsigned char)c)) {
    size_t j = i;
    while (ident_char((unsigned char)ps->s[j])) j++;
    ps->kind = T_WORD;
    ps->next = j;
    if (!(ps->text = pm_strndup(ps->s + i, j - i)))
      return pm_fail(ps->err, PAIMON_ENOMEM, "predicate: out of memory");
    return 0;
  }
  return perr(ps, "unexpected character");
}

static bool is_kw(const parser *ps, const char *kw) {
  if (ps->kind != T_WORD) return false;
  size_t n = strlen(kw);
  if (strlen(ps->text) != n) return false;
  for (size_t i = 0; i < n; i++)
    if (toupper((unsigned char)ps->text[i]) != kw[i]) return false;
  return true;
}

/* An operand: a column (is_col) or a literal (owned text in *text). */
static int parse_operand(parser *ps, char **text, bool *is_col) {
  *text = NULL;
  if (ps->kind == T_QID) {
    *is_col = true;
  } else if (ps->kind == T_STR || ps->kind == T_NUM) {
    *is_col = false;
  } else if (ps->kind == T_WORD) {
    if (is_kw(ps, "TRUE") || is_kw(ps, "FALSE")) {
      *is_col = false;
      for (char *q = ps->text; *q; q++) *q = (char)tolower((unsigned char)*q);
    } else if (is_kw(ps, "NULL")) {
      return perr(ps, "comparison with NULL is never true (use IS NULL)");
    } else if ((is_kw(ps, "DATE") || is_kw(ps, "TIME") || is_kw(ps, "TIMESTAMP"))) {
      /* DATE '...' typed literal, otherwise a column named date/time */
      size_t save_next = ps->next, save_pos = ps->pos;
      char *word = ps->text;
      ps->text = NULL;
      size_t j = ps->next;
      while (isspace((unsigned char)ps->s[j])) j++;
      if (ps->s[j] == '\'') {
        pm_free(word);
        PM_TRY(advance(ps));
        *is_col = false;
      } else {
        ps->text = word;
        ps->next = save_next;
        ps->pos = save_pos;
        *is_col = true;
      }
    } else if (word_is_keyword(ps->text, strlen(ps->text))) {
      return perr(ps, "expected a column or a literal");
    } else {
      *is_col = true;
    }
  } else {
    return perr(ps, "expected a column or a literal");
  }
  *text = ps->text;
  ps->text = NULL;
  int rc = advance(ps);
  if (rc != 0) {
    pm_free(*text);
    *text = NULL;
  }
  return rc;
}

static int parse_literal(parser *ps, char **text) {
  bool is_col;
  if (ps->kind == T_QID ||
      (ps->kind == T_WORD && !is_kw(ps, "TRUE") && !is_kw(ps, "FALSE") && !is_kw(ps, "DATE") &&
       !is_kw(ps, "TIME") && !is_kw(ps, "TIMESTAMP") && !is_kw(ps, "NULL")))
    return perr(ps, "expected a literal");
  PM_TRY(parse_operand(ps, text, &is_col));
  if (is_col) {
    pm_free(*text);
    *text = NULL;
    return perr(ps, "expected a literal");
  }
  return 0;
}

static int parse_or(parser *ps, paimon_predicate **out);

static int flip_op(int op) {
  switch (op) {
    case PAIMON_LT: return PAIMON_GT;
    case PAIMON_LE: return PAIMON_GE;
    case PAIMON_GT: return PAIMON_LT;
    case PAIMON_GE: return PAIMON_LE;
    default: return op;
  }
}

/* column IN ( lit, ... ) after the IN keyword. */
static int parse_in_list(parser *ps, const char *column, paimon_predicate **out) {
  if (ps->kind != T_LP) return perr(ps, "expected '(' after IN");
  PM_TRY(advance(ps));
  char **lits = NULL;
  size_t n = 0, cap = 0;
  int rc = 0;
  if (ps->kind != T_RP) {
    for (;;) {
      char *l = NULL;
      PM_CHECK(parse_literal(ps, &l), done);
      if (n == cap) {
        size_t nc = cap ? cap * 2 : 8;
        char **nl = pm_realloc(lits, nc * sizeof *nl);
        if (!nl) {
          pm_free(l);
          rc = pm_fail(ps->err, PAIMON_ENOMEM, "predicate: out of memory");
          goto done;
        }
        lits = nl;
        cap = nc;
      }
      lits[n++] = l;
      if (ps->kind == T_COMMA) {
        PM_CHECK(advance(ps), done);
        continue;
      }
      break;
    }
  }
  if (ps->kind != T_RP) {
    rc = perr(ps, "expected ',' or ')' in IN list");
    goto done;
  }
  PM_CHECK(advance(ps), done);
  rc = paimon_predicate_in(out, column, (const char *const *)lits, n, ps->err);
done:
  for (size_t i = 0; i < n; i++) pm_free(lits[i]);
  pm_free(lits);
  return rc;
}

static int parse_predicate(parser *ps, paimon_predicate **out) {
  char *left = NULL, *right = NULL;
  bool lcol, rcol;
  int rc;
  PM_TRY(parse_operand(ps, &left, &lcol));
  if (lcol && is_kw(ps, "IS")) {
    PM_CHECK(advance(ps), done);
    bool neg = false;
    if (is_kw(ps, "NOT")) {
      neg = true;
      PM_CHECK(advance(ps), done);
    }
    if (!is_kw(ps, "NULL")) {
      rc = perr(ps, "expected NULL after IS");
      goto done;
    }
    PM_CHECK(advance(ps), done);
    rc = neg ? paimon_predicate_is_not_null(out, left, ps->err)
             : paimon_predicate_is_null(out, left, ps->err);
    goto done;
  }
  if (lcol && (is_kw(ps, "IN") || is_kw(ps, "NOT") || is_kw(ps, "BETWEEN"))) {
    bool neg = false;
    if (is_kw(ps, "NOT")) {
      neg = true;
      PM_CHECK(advance(ps), done);
      if (!is_kw(ps, "IN") && !is_kw(ps, "BETWEEN")) {
        rc = perr(ps, "expected IN or BETWEEN after NOT");
        goto done;
      }
    }
    paimon_predicate *p = NULL;
    if (is_kw(ps, "IN")) {
      PM_CHECK(advance(ps), done);
      PM_CHECK(parse_in_list(ps, left, &p), done);
    } else { /* BETWEEN lo AND hi -> column >= lo AND column <= hi */
      PM_CHECK(advance(ps), done);
      char *lo = NULL, *hi = NULL;
      paimon_predicate *a = NULL, *b = NULL;
      rc = parse_literal(ps, &lo);
      if (rc == 0 && !is_kw(ps, "AND")) rc = perr(ps, "expected AND in BETWEEN");
      if (rc == 0) rc = advance(ps);
      if (rc == 0) rc = parse_literal(ps, &hi);
      if (rc == 0) rc = paimon_predicate_compare(&a, left, PAIMON_GE, lo, ps->err);
      if (rc == 0) rc = paimon_predicate_compare(&b, left, PAIMON_LE, hi, ps->err);
      if (rc == 0) {
        rc = paimon_predicate_and(&p, a, b, ps->err);
      } else {
        paimon_predicate_free(a);
        paimon_predicate_free(b);
      }
      pm_free(lo);
      pm_free(hi);
      if (rc != 0) goto done;
    }
    if (neg) {
      PM_CHECK(paimon_predicate_not(&p, p, ps->err), done);
    }
    *out = p;
    rc = 0;
    goto done;
  }
  if (ps->kind != T_OP) {
    rc = perr(ps,
              lcol ? "expected a comparison, IS, IN or BETWEEN" : "expected a comparison operator");
    goto done;
  }
  int op = ps->op;
  PM_CHECK(advance(ps), done);
  PM_CHECK(parse_operand(ps, &right, &rcol), done);
  if (lcol == rcol) {
    rc = pm_fail(ps->err, PAIMON_EINVAL,
                 "predicate: a comparison needs one column and one literal (near position %zu)",
                 ps->pos + 1);
    goto done;
  }
  if (lcol) rc = paimon_predicate_compare(out, left, op, right, ps->err);
  else rc = paimon_predicate_compare(out, right, flip_op(op), left, ps->err);
done:
  pm_free(left);
  pm_free(right);
  return rc;
}

static int parse_unary(parser *ps, paimon_predicate **out) {
  *out = NULL;
  if (++ps->depth > PM_PRED_MAX_DEPTH) return perr(ps, "expression nested too deeply");
  int rc;
  if (is_kw(ps, "NOT")) {
    PM_TRY(advance(ps));
    paimon_predicate *k = NULL;
    PM_TRY(parse_unary(ps, &k));
    rc = paimon_predicate_not(out, k, ps->err);
  } else if (ps->kind == T_LP) {
    PM_TRY(advance(ps));
    PM_TRY(parse_or(ps, out));
    if (ps->kind != T_RP) {
      paimon_predicate_free(*out);
      *out = NULL;
      return perr(ps, "expected ')'");
    }
    rc = advance(ps);
    if (rc != 0) {
      paimon_predicate_free(*out);
      *out = NULL;
    }
  } else {
    rc = parse_predicate(ps, out);
  }
  ps->depth--;
  return rc;
}

static int parse_and(parser *ps, paimon_predicate **out) {
  PM_TRY(parse_unary(ps, out));
  while (is_kw(ps, "AND")) {
    paimon_predicate *r = NULL;
    int rc = advance(ps);
    if (rc == 0) rc = parse_unary(ps, &r);
    if (rc == 0) rc = paimon_predicate_and(out, *out, r, ps->err);
    else paimon_predicate_free(*out);
    if (rc != 0) {
      *out = NULL;
      return rc;
    }
  }
  return 0;
}

static int parse_or(parser *ps, paimon_predicate **out) {
  PM_TRY(parse_and(ps, out));
  while (is_kw(ps, "OR")) {
    paimon_predicate *r = NULL;
    int rc = advance(ps);
    if (rc == 0) rc = parse_and(ps, &r);
    if (rc == 0) rc = paimon_predicate_or(out, *out, r, ps->err);
    else paimon_predicate_free(*out);
    if (rc != 0) {
      *out = NULL;
      return rc;
    }
  }
  return 0;
}

PAIMON_API int paimon_predicate_parse(paimon_predicate **out, const char *text, paimon_error *err) {
  if (!out) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL out");
  *out = NULL;
  if (!text) return pm_fail(err, PAIMON_EINVAL, "predicate: NULL text");
  parser ps = {text, 0, 0, T_END, 0, NULL, 0, err};
  int rc = advance(&ps);
  if (rc == 0 && ps.kind == T_END) rc = pm_fail(err, PAIMON_EINVAL, "predicate: empty filter");
  paimon_predicate *p = NULL;
  if (rc == 0) rc = parse_or(&ps, &p);
  if (rc == 0 && ps.kind != T_END) rc = perr(&ps, "unexpected token");
  pm_free(ps.text);
  if (rc != 0) {
    paimon_predicate_free(p);
    return rc;
  }
  *out = p;
  return 0;
}

/* ======================================================================================
 * 128-bit integers (decimal values, exact literal scaling)
 * ==================================================================================== */

typedef struct i128 {
  uint64_t lo;
  int64_t hi;
} i128;

static i128 i128_load(const uint8_t *p) {
  i128 v;
  v.lo = pm_load_le64(p);
  v.hi = (int64_t)pm_load_le64(p + 8);
  return v;
}

static int i128_cmp(i128 a, i128 b) {
  if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
  if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
  return 0;
}

static i128 i128_neg(i128 a) {
  i128 r;
  r.lo = ~a.lo + 1;
  r.hi = (int64_t)(~(uint64_t)a.hi + (r.lo == 0 ? 1 : 0));
  return r;
}

/* a * 10 + d for non-negative a below 10^38 (no overflow possible). */
static i128 i128_mul10_add(i128 a, unsigned d) {
  uint64_t lo = a.lo, hi = (uint64_t)a.hi;
  uint64_t lo8 = lo << 3, hi8 = (hi << 3) | (lo >> 61);
  uint64_t lo2 = lo << 1, hi2 = (hi << 1) | (lo >> 63);
  uint64_t rlo = lo8 + lo2;
  uint64_t rhi = hi8 + hi2 + (rlo < lo8 ? 1 : 0);
  uint64_t r2 = rlo + d;
  rhi += (r2 < rlo ? 1 : 0);
  i128 r = {r2, (int64_t)rhi};
  return r;
}

static i128 i128_sub1(i128 a) {
  i128 r = a;
  if (r.lo == 0) r.hi--;
  r.lo--;
  return r;
}

/* ======================================================================================
 * Literals
 * ==================================================================================== */

/* Physical classes of comparable columns. */
typedef enum tclass { TC_NONE, TC_BOOL, TC_INT, TC_DEC, TC_FLOAT, TC_BYTES } tclass;

/* A typed literal or value. For literals: `inf` -1/+1 places it below/above every value;
 * `inexact` means the true literal lies strictly between `i`/`d` (its floor) and the next
 * representable value, so it never equals a value. */
typedef struct pm_lit {
  int inf;
  bool inexact;
  int64_t i;
  i128 d;
  double f;
  const uint8_t *bytes;
  size_t len;
  char *owned;
} pm_lit;

/* A decimal number: value = (neg ? -1 : 1) * digits * 10^exp10. */
typedef struct num {
  bool neg;
  char digits[80]; /* significant digits, no leading zeros; longer inputs are exact via
                      `sticky` (a nonzero digit was dropped past the 79th) */
  size_t ndigits;
  bool sticky;
  int64_t exp10;
} num;

static bool parse_num(const char *s, num *n) {
  memset(n, 0, sizeof *n);
  while (isspace((unsigned char)*s)) s++;
  if (*s == '+' || *s == '-') n->neg = *s++ == '-';
  bool any = false;
  int64_t frac = 0;
  for (bool dot = false;; s++) {
    if (*s == '.' && !dot) {
      dot = true;
      continue;
    }
    if (!isdigit((unsigned char)*s)) break;
    any = true;
    if (dot) frac++;
    if (n->ndigits == 0 && *s == '0') continue; /* leading zero */
    if (n->ndigits < sizeof n->digits - 1) {
      n->digits[n->ndigits++] = *s;
    } else {
      if (*s != '0') n->sticky = true;
      frac--; /* the dropped digit still scales the value */
    }
    if (frac > 100000) return false;
  }
  if (!any) return false;
  int64_t e = 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    bool eneg = false;
    if (*s == '+' || *s == '-') eneg = *s++ == '-';
    if (!isdigit((unsigned char)*s)) return false;
    for (; isdigit((unsigned char)*s); s++)
      if (e < 1000000) e = e * 10 + (*s - '0');
    if (eneg) e = -e;
  }
  while (isspace((unsigned char)*s)) s++;
  if (*s) return false;
  n->exp10 = e - frac;
  return true;
}

/* Exact floor(value * 10^scale) as int128 with inexact / overflow (inf) flags. */
static void num_scale(const num *n, int32_t scale, pm_lit *out) {
  out->inf = 0;
  out->inexact = false;
  out->d.lo = 0;
  out->d.hi = 0;
  if (n->ndigits == 0) return; /* zero */
  int64_t shift = n->exp10 + scale;
  int64_t keep = (int64_t)n->ndigits + shift;
  if (keep > 38) {
    out->inf = n->neg ? -1 : 1;
    return;
  }
  bool inexact = n->sticky;
  i128 v = {0, 0};
  for (int64_t k = 0; k < keep; k++) {
    unsigned dg = k < (int64_t)n->ndigits ? (unsigned)(n->digits[k] - '0') : 0;
    v = i128_mul10_add(v, dg);
  }
  for (int64_t k = keep < 0 ? 0 : keep; k < (int64_t)n->ndigits; k++)
    if (n->digits[k] != '0') inexact = true;
  if (n->neg) {
    v = i128_neg(v);
    if (inexact) v = i128_sub1(v);
  }
  out->d = v;
  out->inexact = inexact;
}

/* As num_scale at scale 0 into an int64 (beyond int64 becomes +-inf). */
static void num_to_i64(const num *n, pm_lit *out) {
  num_scale(n, 0, out);
  if (out->inf) return;
  i128 v = out->d;
  bool fits =
      (v.hi == 0 && v.lo <= (uint64_t)INT64_MAX) || (v.hi == -1 && v.lo >= (uint64_t)INT64_MIN);
  if (!fits) {
    out->inf = v.hi < 0 ? -1 : 1;
    return;
  }
  out->i = (int64_t)v.lo;
}

static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t mp = (m + 9) % 12; /* March = 0 */
  int64_t doy = (153 * mp + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int read_digits(const char **s, int min, int max, int64_t *v) {
  int n = 0;
  *v = 0;
  while (n < max && isdigit((unsigned char)**s)) {
    *v = *v * 10 + (**s - '0');
    (*s)++;
    n++;
  }
  return n >= min ? 0 : -1;
}

/* [+-]YYYY-MM-DD -> days since epoch; advances *s. */
static bool parse_date_part(const char **s, int64_t *days) {
  const char *p = *s;
  bool neg = false;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  int64_t y, m, d;
  if (read_digits(&p, 4, 6, &y) || *p++ != '-' || read_digits(&p, 1, 2, &m) || *p++ != '-' ||
      read_digits(&p, 1, 2, &d))
    return false;
  if (neg) y = -y;
  if (m < 1 || m > 12) return false;
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int dim = mdays[m - 1] + (m == 2 && is_leap(y) ? 1 : 0);
  if (d < 1 || d > dim) return false;
  *days = days_from_civil(y, (int)m, (int)d);
  *s = p;
  return true;
}

/* HH:MM[:SS[.fffffffff]] -> seconds of day and nanos; more than 9 fraction digits set
 * *extra when nonzero. Advances *s. */
static bool parse_time_part(const char **s, int64_t *secs, int64_t *nanos, bool *extra) {
  const char *p = *s;
  int64_t h, mi, se = 0, ns = 0;
  *extra = false;
  if (read_digits(&p, 1, 2, &h) || *p++ != ':' || read_digits(&p, 2, 2, &mi)) return false;
  if (*p == ':') {
    p++;
    if (read_digits(&p, 2, 2, &se)) return false;
    if (*p == '.') {
      p++;
      int nd = 0;
      if (!isdigit((unsigned char)*p)) return false;
      for (; isdigit((unsigned char)*p); p++, nd++) {
        if (nd < 9) ns = ns * 10 + (*p - '0');
        else if (*p != '0') *extra = true;
      }
      for (; nd < 9; nd++) ns *= 10;
    }
  }
  if (h > 23 || mi > 59 || se > 59) return false;
  *secs = h * 3600 + mi * 60 + se;
  *nanos = ns;
  *s = p;
  return true;
}

/* Timestamp text -> epoch seconds + nanos (UTC wall clock, offset applied when allowed). */
static bool parse_timestamp(const char *s, bool allow_zone, int64_t *secs, int64_t *nanos,
                            bool *extra) {
  while (isspace((unsigned char)*s)) s++;
  int64_t days, tsec = 0, tns = 0;
  *extra = false;
  if (!parse_date_part(&s, &days)) return false;
  if (*s == ' ' || *s == 'T' || *s == 't') {
    s++;
    if (!parse_time_part(&s, &tsec, &tns, extra)) return false;
  }
  int64_t off = 0;
  if (allow_zone) {
    if (*s == 'Z' || *s == 'z') {
      s++;
    } else if (*s == '+' || *s == '-') {
      bool neg = *s++ == '-';
      int64_t oh, om = 0;
      if (read_digits(&s, 2, 2, &oh)) return false;
      if (*s == ':') s++;
      if (isdigit((unsigned char)*s) && read_digits(&s, 2, 2, &om)) return false;
      if (oh > 18 || om > 59) return false;
      off = (oh * 3600 + om * 60) * (neg ? -1 : 1);
    }
  }
  while (isspace((unsigned char)*s)) s++;
  if (*s) return false;
  *secs = days * 86400 + tsec - off;
  *nanos = tns;
  return true;
}

/* Exact floor of (secs, nanos) in unit 0/1/2 (ms/us/ns) with overflow to inf. */
static void ts_to_unit(int64_t secs, int64_t nanos, bool extra, int unit, pm_lit *out) {
  static const int64_t per_sec[] = {1000, 1000000, 1000000000};
  static const int64_t ns_per[] = {1000000, 1000, 1};
  int64_t ps = per_sec[unit];
  if (secs > INT64_MAX / ps - 1 || secs < INT64_MIN / ps + 1) {
    out->inf = secs < 0 ? -1 : 1;
    return;
  }
  out->i = secs * ps + nanos / ns_per[unit];
  out->inexact = extra || nanos % ns_per[unit] != 0;
}

static const char *type_name(const pm_type *t) {
  switch (t->id) {
    case PM_BOOLEAN: return "BOOLEAN";
    case PM_TINYINT: return "TINYINT";
    case PM_SMALLINT: return "SMALLINT";
    case PM_INT: return "INT";
    case PM_BIGINT: return "BIGINT";
    case PM_FLOAT: return "FLOAT";
    case PM_DOUBLE: return "DOUBLE";
    case PM_DECIMAL: return "DECIMAL";
    case PM_CHAR: return "CHAR";
    case PM_VARCHAR: return "VARCHAR";
    case PM_BINARY: return "BINARY";
    case PM_VARBINARY: return "VARBINARY";
    case PM_DATE: return "DATE";
    case PM_TIME: return "TIME";
    case PM_TIMESTAMP: return "TIMESTAMP";
    case PM_TIMESTAMP_LTZ: return "TIMESTAMP WITH LOCAL TIME ZONE";
    case PM_ARRAY: return "ARRAY";
    case PM_MULTISET: return "MULTISET";
    case PM_MAP: return "MAP";
    case PM_ROW: return "ROW";
    case PM_VARIANT: return "VARIANT";
    case PM_BLOB: return "BLOB";
  }
  return "unknown type";
}

/* Class and Arrow value width (bytes; 0 for bit-packed / variable) of a column type. */
static tclass type_class(const pm_type *t, int *width) {
  *width = 0;
  switch (t->id) {
    case PM_BOOLEAN: return TC_BOOL;
    case PM_TINYINT: *width = 1; return TC_INT;
    case PM_SMALLINT: *width = 2; return TC_INT;
    case PM_INT:
    case PM_DATE:
    case PM_TIME: *width = 4; return TC_INT;
    case PM_BIGINT:
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ: *width = 8; return TC_INT;
    case PM_FLOAT: *width = 4; return TC_FLOAT;
    case PM_DOUBLE: *width = 8; return TC_FLOAT;
    case PM_DECIMAL: *width = 16; return TC_DEC;
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY: return TC_BYTES;
    default: return TC_NONE;
  }
}

/* ASCII case-insensitive equality of n bytes (kw is lower case). */
static bool ieq(const char *s, const char *kw, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (tolower((unsigned char)s[i]) != kw[i]) return false;
  return true;
}

static int lit_parse(const pm_type *t, const char *col, const char *text, pm_lit *out,
                     paimon_error *err) {
  memset(out, 0, sizeof *out);
  num n;
  int64_t secs, nanos;
  bool extra;
  switch (t->id) {
    case PM_BOOLEAN: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      size_t len = strlen(s);
      while (len && isspace((unsigned char)s[len - 1])) len--;
      if ((len == 4 && ieq(s, "true", 4)) || (len == 1 && s[0] == '1')) out->i = 1;
      else if ((len == 5 && ieq(s, "false", 5)) || (len == 1 && s[0] == '0')) out->i = 0;
      else goto bad;
      return 0;
    }
    case PM_TINYINT:
    case PM_SMALLINT:
    case PM_INT:
    case PM_BIGINT:
      if (!parse_num(text, &n)) goto bad;
      num_to_i64(&n, out);
      return 0;
    case PM_DECIMAL:
      if (!parse_num(text, &n)) goto bad;
      num_scale(&n, t->scale, out);
      return 0;
    case PM_FLOAT:
    case PM_DOUBLE: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      char *end;
      errno = 0;
      if (t->id == PM_FLOAT) out->f = strtof(s, &end);
      else out->f = strtod(s, &end);
      if (end == s) goto bad;
      while (isspace((unsigned char)*end)) end++;
      if (*end) goto bad;
      return 0;
    }
    case PM_CHAR:
    case PM_VARCHAR:
    case PM_BINARY:
    case PM_VARBINARY:
      out->owned = pm_strdup(text);
      if (!out->owned) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
      out->bytes = (const uint8_t *)out->owned;
      out->len = strlen(text);
      return 0;
    case PM_DATE: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      int64_t days;
      if (parse_date_part(&s, &days)) {
        while (isspace((unsigned char)*s)) s++;
        if (*s) goto bad;
        out->i = days;
        return 0;
      }
      if (!parse_num(text, &n)) goto bad; /* a day number */
      num_to_i64(&n, out);
      return 0;
    }
    case PM_TIME: {
      const char *s = text;
      while (isspace((unsigned char)*s)) s++;
      if (!parse_time_part(&s, &secs, &nanos, &extra)) goto bad;
      while (isspace((unsigned char)*s)) s++;
      if (*s) goto bad;
      out->i = secs * 1000 + nanos / 1000000;
      out->inexact = extra || nanos % 1000000 != 0;
      return 0;
    }
    case PM_TIMESTAMP:
    case PM_TIMESTAMP_LTZ:
      if (!parse_timestamp(text, t->id == PM_TIMESTAMP_LTZ, &secs, &nanos, &extra)) goto bad;
      ts_to_unit(secs, nanos, extra, pm_ts_unit(t->precision), out);
      return 0;
    default:
      return pm_fail(err, PAIMON_EUNSUPPORTED,
                     "predicate on column '%s': comparisons on %s columns are not supported", col,
                     type_name(t));
  }
bad:
  return pm_fail(err, PAIMON_EINVAL, "predicate on column '%s': cannot parse '%.64s' as %s", col,
                 text, type_name(t));
}

/* Java's Double.compare: -0.0 < 0.0, NaN above everything and equal to itself. */
static int cmp_double(double a, double b) {
  if (a < b) return -1;
  if (a > b) return 1;
  bool na = isnan(a), nb = isnan(b);
  if (na || nb) return na == nb ? 0 : na ? 1 : -1;
  bool sa = signbit(a) != 0, sb = signbit(b) != 0;
  return sa == sb ? 0 : sa ? -1 : 1;
}

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
  size_t n = alen < blen ? alen : blen;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Compares an exact value v with literal l: -1 v < l, 0 equal, 1 v > l. */
static int cmp_val_lit(tclass tc, const pm_lit *v, const pm_lit *l) {
  if (l->inf) return -l->inf;
  int c;
  switch (tc) {
    case TC_BOOL:
    case TC_INT: c = v->i < l->i ? -1 : v->i > l->i ? 1 : 0; break;
    case TC_DEC: c = i128_cmp(v->d, l->d); break;
    case TC_FLOAT: return cmp_double(v->f, l->f);
    case TC_BYTES: return cmp_bytes(v->bytes, v->len, l->bytes, l->len);
    default: return 0;
  }
  if (c == 0 && l->inexact) c = -1; /* v == floor(l) < l */
  return c;
}

/* Reads logical row j of `a` (its offset is added here). */
static void read_val(tclass tc, int width, const struct ArrowArray *a, int64_t j, pm_lit *v) {
  int64_t k = a->offset + j;
  switch (tc) {
    case TC_BOOL: {
      const uint8_t *d = a->buffers[1];
      v->i = (d[k >> 3] >> (k & 7)) & 1;
      break;
    }
    case TC_INT:
      switch (width) {
        case 1: v->i = ((const int8_t *)a->buffers[1])[k]; break;
        case 2: v->i = ((const int16_t *)a->buffers[1])[k]; break;
        case 4: v->i = ((const int32_t *)a->buffers[1])[k]; break;
        default: v->i = ((const int64_t *)a->buffers[1])[k]; break;
      }
      break;
    case TC_DEC: v->d = i128_load((const uint8_t *)a->buffers[1] + 16 * k); break;
    case TC_FLOAT:
      v->f = width == 4 ? (double)((const float *)a->buffers[1])[k]
                        : ((const double *)a->buffers[1])[k];
      break;
    case TC_BYTES: {
      const int32_t *off = a->buffers[1];
      /* producers may omit the data buffer when every value is empty */
      if (a->buffers[2]) {
        v->bytes = (const uint8_t *)a->buffers[2] + off[k];
        v->len = (size_t)(off[k + 1] - off[k]);
      } else {
        v->bytes = (const uint8_t *)"";
        v->len = 0;
      }
      break;
    }
    default: break;
  }
}

/* ======================================================================================
 * Binding
 * ==================================================================================== */

typedef struct bnode {
  pm_pred_kind kind;
  int op;
  int32_t field;
  tclass tc;
  int width;
  const pm_type *type;
  size_t nlits; /* CMP: 1; IN: exact literals, sorted, unique */
  pm_lit *lits;
  size_t nkids;
  struct bnode *kids;
} bnode;

struct pm_pred {
  bnode root;
  const pm_type *row;
  int32_t *fields;
  size_t nfields;
  int depth;
  pm_buf *scratch; /* one per depth level */
};

static void bnode_clear(bnode *n) {
  for (size_t i = 0; i < n->nlits; i++) pm_free(n->lits[i].owned);
  pm_free(n->lits);
  for (size_t i = 0; i < n->nkids; i++) bnode_clear(&n->kids[i]);
  pm_free(n->kids);
}

void pm_pred_free(pm_pred *b) {
  if (!b) return;
  bnode_clear(&b->root);
  pm_free(b->fields);
  if (b->scratch)
    for (int i = 0; i <= b->depth; i++) pm_buf_free(&b->scratch[i]);
  pm_free(b->scratch);
  pm_free(b);
}

static int lit_sort_cmp(const pm_lit *a, const pm_lit *b, tclass tc) {
  return cmp_val_lit(tc, a, b);
}

/* Insertion sort + dedupe (IN lists are short; avoids qsort's global context). */
static size_t sort_unique(pm_lit *l, size_t n, tclass tc) {
  for (size_t i = 1; i < n; i++) {
    pm_lit x = l[i];
    size_t j = i;
    while (j > 0 && lit_sort_cmp(&l[j - 1], &x, tc) > 0) {
      l[j] = l[j - 1];
      j--;
    }
    l[j] = x;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m > 0 && lit_sort_cmp(&l[m - 1], &l[i], tc) == 0) {
      pm_free(l[i].owned);
      continue;
    }
    l[m++] = l[i];
  }
  return m;
}

static int bind_node(bnode *bn, const paimon_predicate *p, const pm_type *row, paimon_error *err) {
  memset(bn, 0, sizeof *bn);
  bn->kind = p->kind;
  bn->op = p->op;
  if (p->column) {
    int32_t f = -1;
    for (int32_t i = 0; i < row->nfields; i++)
      if (strcmp(row->fields[i].name, p->column) == 0) {
        f = i;
        break;
      }
    if (f < 0) return pm_fail(err, PAIMON_EINVAL, "predicate: unknown column '%s'", p->column);
    bn->field = f;
    bn->type = row->fields[f].type;
    bn->tc = type_class(bn->type, &bn->width);
    if (p->kind == PM_PRED_CMP || p->kind == PM_PRED_IN) {
      if (bn->tc == TC_NONE)
        return pm_fail(err, PAIMON_EUNSUPPORTED,
                       "predicate on column '%s': comparisons on %s columns are not supported",
                       p->column, type_name(bn->type));
      if (p->nlits) {
        bn->lits = pm_calloc(p->nlits, sizeof *bn->lits);
        if (!bn->lits) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
      }
      for (size_t i = 0; i < p->nlits; i++) {
        pm_lit l;
        PM_TRY(lit_parse(bn->type, p->column, p->lits[i], &l, err));
        if (p->kind == PM_PRED_IN && (l.inf || l.inexact)) {
          pm_free(l.owned); /* never equal to any value */
          continue;
        }
        bn->lits[bn->nlits++] = l;
      }
      if (p->kind == PM_PRED_IN) bn->nlits = sort_unique(bn->lits, bn->nlits, bn->tc);
    }
  }
  if (p->nkids) {
    bn->kids = pm_calloc(p->nkids, sizeof *bn->kids);
    if (!bn->kids) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
    for (size_t i = 0; i < p->nkids; i++) {
      bn->nkids = i + 1;
      PM_TRY(bind_node(&bn->kids[i], p->kids[i], row, err));
    }
  }
  return 0;
}

static int collect_fields(const bnode *n, int32_t *fields, size_t *nf) {
  if (n->kind != PM_PRED_AND && n->kind != PM_PRED_OR && n->kind != PM_PRED_NOT) {
    size_t i = 0;
    while (i < *nf && fields[i] < n->field) i++;
    if (i == *nf || fields[i] != n->field) {
      memmove(fields + i + 1, fields + i, (*nf - i) * sizeof *fields);
      fields[i] = n->field;
      (*nf)++;
    }
  }
  for (size_t i = 0; i < n->nkids; i++) collect_fields(&n->kids[i], fields, nf);
  return 0;
}

int pm_pred_bind(pm_pred **out, const paimon_predicate *p, const pm_type *row, paimon_error *err) {
  *out = NULL;
  if (!p || !row || row->id != PM_ROW)
    return pm_fail(err, PAIMON_EINVAL, "predicate: bind needs a predicate and a ROW type");
  pm_pred *b = pm_calloc(1, sizeof *b);
  if (!b) return pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  b->row = row;
  b->depth = p->depth;
  int rc = bind_node(&b->root, p, row, err);
  if (rc == 0) {
    b->fields = pm_malloc((size_t)(row->nfields > 0 ? row->nfields : 1) * sizeof *b->fields);
    b->scratch = pm_calloc((size_t)b->depth + 1, sizeof *b->scratch);
    if (!b->fields || !b->scratch) rc = pm_fail(err, PAIMON_ENOMEM, "predicate: out of memory");
  }
  if (rc != 0) {
    pm_pred_free(b);
    return rc;
  }
  collect_fields(&b->root, b->fields, &b->nfields);
  *out = b;
  return 0;
}

size_t pm_pred_fields(const pm_pred *b, const int32_t **fields) {
  *fields = b->fields;
  return b->nfields;
}

/* ======================================================================================
 * Evaluation: per-row FALSE (0) / TRUE (1) / UNKNOWN (2)
 * ==================================================================================== */

enum { V_F = 0, V_T = 1, V_U = 2 };

static const uint8_t AND_TAB[9] = {V_F, V_F, V_F, V_F, V_T, V_U, V_F, V_U, V_U};
static const uint8_t OR_TAB[9] = {V_F, V_T, V_U, V_T, V_T, V_T, V_U, V_T, V_U};

/* Result per comparison outcome c in {-1, 0, 1} (index c + 1). */
static void op_results(int op, uint8_t r[3]) {
  r[0] = op == PAIMON_NE || op == PAIMON_LT || op == PAIMON_LE;
  r[1] = op == PAIMON_EQ || op == PAIMON_LE || op == PAIMON_GE;
  r[2] = op == PAIMON_NE || op == PAIMON_GT || op == PAIMON_GE;
}

#define PM_CMP_LOOP(T)                                         \
  do {                                                         \
    const T *d_ = (const T *)c->buffers[1] + c->offset + base; \
    for (int64_t i = 0; i < n; i++) {                          \
      int64_t v_ = d_[i];                                      \
      out[i] = v_ < k ? rl : v_ > k ? rg : re;                 \
    }                                                          \
  } while (0)

static bool in_contains(const bnode *bn, const pm_lit *v) {
  size_t lo = 0, hi = bn->nlits;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = cmp_val_lit(bn->tc, v, &bn->lits[mid]);
    if (c == 0) return true;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return false;
}

static void eval_leaf(const bnode *bn, const struct ArrowArray *c, int64_t base, int64_t n,
                      uint8_t *out) {
  if (bn->kind == PM_PRED_IS_NULL || bn->kind == PM_PRED_IS_NOT_NULL) {
    uint8_t vnull = bn->kind == PM_PRED_IS_NULL ? V_T : V_F;
    const uint8_t *vb = c->buffers[0];
    if (!vb || c->null_count == 0) {
      memset(out, vnull ^ 1, (size_t)n);
      return;
    }
    for (int64_t i = 0; i < n; i++) {
      int64_t j = c->offset + base + i;
      out[i] = ((vb[j >> 3] >> (j & 7)) & 1) ? (uint8_t)(vnull ^ 1) : vnull;
    }
    return;
  }
  if (bn->kind == PM_PRED_IN) {
    pm_lit v;
    memset(&v, 0, sizeof v);
    for (int64_t i = 0; i < n; i++) {
      read_val(bn->tc, bn->width, c, base + i, &v);
      out[i] = bn->nlits && in_contains(bn, &v) ? V_T : V_F;
    }
  } else {
    uint8_t r[3];
    op_results(bn->op, r);
    const pm_lit *l = &bn->lits[0];
    if (l->inf) {
      memset(out, r[l->inf > 0 ? 0 : 2], (size_t)n);
    } else if (bn->tc == TC_INT) {
      int64_t k = l->i;
      uint8_t rl = r[0], rg = r[2], re = l->inexact ? r[0] : r[1];
      switch (bn->width) {
        case 1: PM_CMP_LOOP(int8_t); break;
        case 2: PM_CMP_LOOP(int16_t); break;
        case 4: PM_CMP_LOOP(int32_t); break;
        default: PM_CMP_LOOP(int64_t); break;
      }
    } else {
      pm_lit v;
      memset(&v, 0, sizeof v);
      for (int64_t i = 0; i < n; i++) {
        read_val(bn->tc, bn->width, c, base + i, &v);
        out[i] = r[cmp_val_lit(bn->tc, &v, l) + 1];
      }
    }
  }
  const uint8_t *vb = c->buffers[0];
  if (vb && c->null_count != 0)
    for (int64_t i = 0; i < n; i++) {
      int64_t j = c->offset + base + i;
      if (!((vb[j >> 3] >> (j & 7)) & 1)) out[i] = V_U;
    }
}

static int eval_node(pm_pred *b, const bnode *bn, const struct ArrowArray *batch, int64_t n,
                     uint8_t *out, int level) {
  if (bn->kind == PM_PRED_NOT) {
    PM_TRY(eval_node(b, &bn->kids[0], batch, n, out, level + 1));
    for (int64_t i = 0; i < n; i++)
      if (out[i] != V_U) out[i] ^= 1;
    return 0;
  }
  if (bn->kind == PM_PRED_AND || bn->kind == PM_PRED_OR) {
    PM_TRY(eval_node(b, &bn->kids[0], batch, n, out, level + 1));
    pm_buf *s = &b->scratch[level];
    pm_buf_clear(s);
    if (pm_buf_reserve(s, (size_t)n) != 0) return PAIMON_ENOMEM;
    const uint8_t *tab = bn->kind == PM_PRED_AND ? AND_TAB : OR_TAB;
    for (size_t k = 1; k < bn->nkids; k++) {
      PM_TRY(eval_node(b, &bn->kids[k], batch, n, s->data, level + 1));
      for (int64_t i = 0; i < n; i++) out[i] = tab[out[i] * 3 + s->data[i]];
    }
    return 0;
  }
  eval_leaf(bn, batch->children[bn->field], batch->offset, n, out);
  return 0;
}

static bool child_ok(const bnode *bn, const struct ArrowArray *c, int64_t need) {
  if (!c || c->length < need || c->offset < 0) return false;
  if (bn->kind == PM_PRED_IS_NULL || bn->kind == PM_PRED_IS_NOT_NULL) return true;
  if (need > 0 && (c->n_buffers < (bn->tc == TC_BYTES ? 3 : 2) || !c->buffers[1])) return false;
  return true;
}

static int check_shape(const bnode *bn, const struct ArrowArray *batch, int64_t need,
                       paimon_error *err) {
  if (bn->kind == PM_PRED_AND || bn->kind == PM_PRED_OR || bn->kind == PM_PRED_NOT) {
    for (size_t i = 0; i < bn->nkids; i++) PM_TRY(check_shape(&bn->kids[i], batch, need, err));
    return 0;
  }
  if (bn->field >= batch->n_children || !child_ok(bn, batch->children[bn->field], need))
    return pm_fail(err, PAIMON_EINVAL, "predicate: batch column %d does not match the bound type",
                   (int)bn->field);
  return 0;
}

int pm_pred_eval(pm_pred *b, const struct ArrowArray *batch, uint8_t *sel, int64_t *nsel,
                 paimon_error *err) {
  if (nsel) *nsel = 0;
  if (!b || !batch || batch->length < 0 || batch->offset < 0)
    return pm_fail(err, PAIMON_EINVAL, "predicate: bad batch");
  int64_t n = batch->length;
  if (n == 0) return 0;
  PM_TRY(check_shape(&b->root, batch, batch->offset + n, err));
  int rc = eval_node(b, &b->root, batch, n, sel, 0);
  if (rc != 0) return pm_fail(err, rc, "predicate: out of memory evaluating a batch");
  const uint8_t *vb = batch->n_buffers > 0 ? batch->buffers[0] : NULL;
  int64_t cnt = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t s = sel[i] == V_T;
    if (vb && s) {
      int64_t j = batch->offset + i;
      s = (vb[j >> 3] >> (j & 7)) & 1;
    }
    sel[i] = s;
    cnt += s;
  }
  if (nsel) *nsel = cnt;
  return 0;
}

/* ======================================================================================
 * Statistics: which outcomes can occur among the unit's rows
 * ==================================================================================== */

enum { P_T = 1, P_F = 2, P_U = 4 };

static bool stat_val(const bnode *bn, const struct ArrowArray *a, int64_t row, pm_lit *v) {
  if (!a || !a->release || row < 0 || row >= a->length) return false;
  if (a->n_buffers > 0 && a->buffers[0]) {
    const uint8_t *vb = a->buffers[0];
    int64_t j = a->offset + row;
    if (!((vb[j >> 3] >> (j & 7)) & 1)) return false;
  }
  if (a->n_buffers < (bn->tc == TC_BYTES ? 3 : 2) || !a->buffers[1]) return false;
  memset(v, 0, sizeof *v);
  read_val(bn->tc, bn->width, a, row, v);
  return true;
}

static int leaf_possible(const bnode *bn, const pm_pred_stats *s) {
  int64_t nc = s->null_counts ? s->null_counts[bn->field] : -1;
  int64_t rc = s->row_count;
  bool all_null = nc >= 0 && rc >= 0 && nc >= rc;
  bool no_null = nc == 0;
  if (bn->kind == PM_PRED_IS_NULL) return all_null ? P_T : no_null ? P_F : P_T | P_F;
  if (bn->kind == PM_PRED_IS_NOT_NULL) return all_null ? P_F : no_null ? P_T : P_T | P_F;
  if (all_null) return P_U;
  int m = no_null ? 0 : P_U;
  pm_lit lo, hi;
  if (!s->min || !s->max || !stat_val(bn, s->min[bn->field], s->row, &lo) ||
      !stat_val(bn, s->max[bn->field], s->row, &hi))
    return m | P_T | P_F;
  if (bn->tc == TC_FLOAT) {
    /* NaN may hide from the bounds and sorts above all: widen max to NaN, and min's zero
     * to -0.0 (writers normalise signed zeros differently). */
    hi.f = NAN;
    if (lo.f == 0) lo.f = -0.0;
  }
  if (bn->kind == PM_PRED_IN) {
    bool any_in = false;
    for (size_t i = 0; i < bn->nlits; i++)
      if (cmp_val_lit(bn->tc, &lo, &bn->lits[i]) <= 0 &&
          cmp_val_lit(bn->tc, &hi, &bn->lits[i]) >= 0)
        any_in = true;
    bool all_eq = cmp_val_lit(bn->tc, &lo, &hi) == 0 && bn->nlits && in_contains(bn, &lo);
    return m | (any_in ? P_T : 0) | (all_eq ? 0 : P_F);
  }
  const pm_lit *l = &bn->lits[0];
  int cl = cmp_val_lit(bn->tc, &lo, l), ch = cmp_val_lit(bn->tc, &hi, l);
  bool t = true, f = true;
  switch (bn->op) {
    case PAIMON_EQ:
      t = cl <= 0 && ch >= 0;
      f = !(cl == 0 && ch == 0);
      break;
    case PAIMON_NE:
      t = !(cl == 0 && ch == 0);
      f = cl <= 0 && ch >= 0;
      break;
    case PAIMON_LT:
      t = cl < 0;
      f = ch >= 0;
      break;
    case PAIMON_LE:
      t = cl <= 0;
      f = ch > 0;
      break;
    case PAIMON_GT:
      t = ch > 0;
      f = cl <= 0;
      break;
    case PAIMON_GE:
      t = ch >= 0;
      f = cl < 0;
      break;
  }
  return m | (t ? P_T : 0) | (f ? P_F : 0);
}

static int node_possible(const bnode *bn, const pm_pred_stats *s) {
  switch (bn->kind) {
    case PM_PRED_NOT: {
      int k = node_possible(&bn->kids[0], s);
      return (k & P_U) | ((k & P_T) ? P_F : 0) | ((k & P_F) ? P_T : 0);
    }
    case PM_PRED_AND:
    case PM_PRED_OR: {
      bool is_and = bn->kind == PM_PRED_AND;
      int t = is_and ? P_T : 0, f = is_and ? 0 : P_F, u = 0;
      for (size_t i = 0; i < bn->nkids; i++) {
        int k = node_possible(&bn->kids[i], s);
        if (is_and) {
          if (!(k & P_T)) t = 0;
          f |= k & P_F;
        } else {
          t |= k & P_T;
          if (!(k & P_F)) f = 0;
        }
        u |= k & P_U;
      }
      return t | f | u;
    }
    default: return leaf_possible(bn, s);
  }
}

bool pm_pred_may_match(const pm_pred *b, const pm_pred_stats *s) {
  if (!b || !s) return true;
  if (s->row_count == 0) return false;
  return (node_possible(&b->root, s) & P_T) != 0;
}

bool pm_pred_may_match_cols(const pm_pred *b, const pm_col_stats *stats, int64_t rows) {
  if (!b || !stats) return true;
  int32_t nf = b->row->nfields;
  const struct ArrowArray *small_min[16], *small_max[16];
  int64_t small_nc[16];
  const struct ArrowArray **mins = small_min, **maxs = small_max;
  int64_t *ncs = small_nc;
  if (nf > 16) {
    mins = pm_malloc((size_t)nf * sizeof *mins);
    maxs = pm_malloc((size_t)nf * sizeof *maxs);
    ncs = pm_malloc((size_t)nf * sizeof *ncs);
    if (!mins || !maxs || !ncs) {
      pm_free(mins);
      pm_free(maxs);
      pm_free(ncs);
      return true;
    }
  }
  for (int32_t i = 0; i < nf; i++) {
    mins[i] = stats[i].has_min_max ? &stats[i].min : NULL;
    maxs[i] = stats[i].has_min_max ? &stats[i].max : NULL;
    ncs[i] = stats[i].null_count;
  }
  pm_pred_stats s = {rows, mins, maxs, 0, ncs};
  bool r = pm_pred_may_match(b, &s);
  if (nf > 16) {
    pm_free(mins);
    pm_free(maxs);
    pm_free(ncs);
  }
  return r;
}
