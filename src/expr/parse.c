/* expr/parse.c: the predicate text form: the SQL-like parser (paimon_predicate_parse) and
 * its inverse printer (paimon_predicate_to_string), sharing one set of lexical rules. */
#include <ctype.h>

#include <paimon/common.h>

#include "expr/expr.h"
#include "util/vec.h"

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
      if (pm_grow(&lits, &cap, n + 1) != 0) {
        pm_free(l);
        rc = pm_fail(ps->err, PAIMON_ENOMEM, "predicate: out of memory");
        goto done;
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
