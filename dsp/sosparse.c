/* gst-fx — parser for second-order-section text (fx_sos_parse). Pure C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Accepted forms (whitespace anywhere between tokens):
 *   1. Rows "b0 b1 b2 a0 a1 a2" separated by ';'. Numbers are separated by whitespace and/or one
 *      comma. One trailing ';' is tolerated; empty rows elsewhere are errors.
 *         "1 0 0 1 -0.5 0; 0.5, 0.5, 0, 1, 0, 0"
 *   2. GStreamer's serialised GstValueArray: an outer < > holding rows < b0, b1, ... >, separated
 *      by commas. Every number may carry a GValue type cast such as "(double)", "(gdouble)",
 *      "(float)" or "(int)", as gst_value_serialize() writes for nested arrays.
 *         "< < 1, 0, 0, 1, 0.5, 0 >, < (double)1, (double)0, (double)0, (double)1, (double)0,
 *            (double)0 > >"
 *      A flat array "< b0, b1, b2, a0, a1, a2, b0, ... >" (a multiple of six numbers) is accepted
 *      too; rows are then consecutive groups of six.
 *
 * Numbers are read with strtod. The text is always read with '.' as the decimal point, whatever
 * LC_NUMERIC says (GStreamer serialises that way): each token is copied and, if the current
 * locale's decimal point differs, its '.' is translated before strtod sees it. Tokens longer than
 * 255 characters are syntax errors. strtod's other forms (exponents, hex floats, "inf", "nan")
 * parse; non-finite values are then refused with FX_ERR_NONFINITE.
 *
 * Errors: FX_ERR_SYNTAX (bad token, trailing garbage, empty row, a row without exactly six
 * numbers, unbalanced brackets), FX_ERR_NONFINITE, FX_ERR_A0, FX_ERR_UNSTABLE, each with
 * *bad_row = the 0-based row at fault; FX_ERR_CAPACITY with *bad_row = the first row that does
 * not fit. Text with no row at all (empty, blanks, "< >") is FX_ERR_SYNTAX with *bad_row = -1.
 * Errors after the last row (e.g. garbage after the closing '>') report the last row. On failure
 * *n_sections is 0. */
#include "design.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FX_TOKEN_MAX 256

typedef struct {
  const char *p;
  char dp; /* the locale's decimal point character */
} fx_scan_t;

static int is_space(char ch)
{
  return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

static void skip_space(fx_scan_t *s)
{
  while (is_space(*s->p))
    s->p++;
}

static int is_alpha(char ch)
{
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
}

static int is_alnum(char ch)
{
  return is_alpha(ch) || (ch >= '0' && ch <= '9');
}

/* Reads one number at s->p (after an optional "(type)" cast). Returns 1 on success. */
static int read_number(fx_scan_t *s, double *out)
{
  skip_space(s);
  if (*s->p == '(') {
    const char *q = s->p + 1;
    while (is_space(*q))
      q++;
    if (!is_alpha(*q))
      return 0;
    while (is_alnum(*q))
      q++;
    while (is_space(*q))
      q++;
    if (*q != ')')
      return 0;
    s->p = q + 1;
    skip_space(s);
  }
  /* The token runs to the next separator. */
  const char *start = s->p;
  const char *end = start;
  while (*end && !is_space(*end) && *end != ',' && *end != ';' && *end != '<' && *end != '>')
    end++;
  size_t len = (size_t) (end - start);
  if (len == 0 || len >= FX_TOKEN_MAX)
    return 0;
  char tok[FX_TOKEN_MAX];
  memcpy(tok, start, len);
  tok[len] = '\0';
  if (s->dp != '.') {
    for (size_t i = 0; i < len; i++) {
      if (tok[i] == s->dp)
        return 0; /* a locale decimal point in the text is not ours */
      if (tok[i] == '.')
        tok[i] = s->dp;
    }
  }
  char *stop = NULL;
  double v = strtod(tok, &stop);
  if (stop != tok + len)
    return 0;
  *out = v;
  s->p = end;
  return 1;
}

/* Checks and stores one row (fx_sos_from_row normalises it and checks the result: finite after
 * the division by a0, stable). A row that does not fit is FX_ERR_CAPACITY only once its own
 * numbers are finite and a0 != 0. */
static fx_status_t emit_row(const double v[6], int row, fx_sos_t *sos, int capacity)
{
  for (int i = 0; i < 6; i++)
    if (!isfinite(v[i]))
      return FX_ERR_NONFINITE;
  if (v[3] == 0.0)
    return FX_ERR_A0;
  if (row >= capacity)
    return FX_ERR_CAPACITY;
  return fx_sos_from_row(v, &sos[row]);
}

/* Plain form: rows separated by ';'. */
static fx_status_t parse_plain(fx_scan_t *s, fx_sos_t *sos, int capacity, int *n, int *bad)
{
  int row = 0;
  for (;;) {
    double v[6];
    int k = 0;
    *bad = row;
    skip_space(s);
    if (*s->p == '\0' || *s->p == ';') {
      /* empty row: allowed only as the tolerated trailing ';' after at least one row */
      if (*s->p == '\0' && row > 0)
        break;
      if (*s->p == '\0')
        return *bad = -1, FX_ERR_SYNTAX;
      return FX_ERR_SYNTAX;
    }
    for (;;) {
      double x;
      if (!read_number(s, &x))
        return FX_ERR_SYNTAX;
      if (k == 6)
        return FX_ERR_SYNTAX; /* more than six numbers */
      v[k++] = x;
      skip_space(s);
      if (*s->p == ',') {
        s->p++;
        skip_space(s);
        if (*s->p == '\0' || *s->p == ';' || *s->p == ',')
          return FX_ERR_SYNTAX; /* dangling or doubled comma */
      }
      if (*s->p == '\0' || *s->p == ';')
        break;
    }
    if (k != 6)
      return FX_ERR_SYNTAX;
    fx_status_t st = emit_row(v, row, sos, capacity);
    if (st != FX_OK)
      return st;
    row++;
    if (*s->p == ';')
      s->p++;
    else
      break;
  }
  *n = row;
  return FX_OK;
}

/* Expects character ch after optional space. */
static int expect(fx_scan_t *s, char ch)
{
  skip_space(s);
  if (*s->p != ch)
    return 0;
  s->p++;
  return 1;
}

/* Reads comma-separated numbers up to (not including) the closing '>'. Returns the count or -1. */
static int read_list(fx_scan_t *s, double *v, int max)
{
  int k = 0;
  skip_space(s);
  if (*s->p == '>')
    return 0;
  for (;;) {
    double x;
    if (!read_number(s, &x))
      return -1;
    if (k < max)
      v[k] = x;
    k++;
    skip_space(s);
    if (*s->p == ',') {
      s->p++;
      continue;
    }
    if (*s->p == '>')
      return k;
    return -1;
  }
}

/* After a row of an array: ',' (another row follows: 1) or '>' (the end: 0), consumed; anything
 * else: -1. */
static int list_next(fx_scan_t *s)
{
  if (*s->p == ',') {
    s->p++;
    return 1;
  }
  if (*s->p == '>') {
    s->p++;
    return 0;
  }
  return -1;
}

/* GstValueArray form; s->p is just past the outer '<'. */
static fx_status_t parse_array(fx_scan_t *s, fx_sos_t *sos, int capacity, int *n, int *bad)
{
  int row = 0;
  skip_space(s);
  *bad = -1;
  if (*s->p == '<') {
    /* nested rows */
    for (;;) {
      double v[6];
      *bad = row;
      if (!expect(s, '<'))
        return FX_ERR_SYNTAX;
      int k = read_list(s, v, 6);
      if (k != 6)
        return FX_ERR_SYNTAX;
      s->p++; /* the row's '>' */
      fx_status_t st = emit_row(v, row, sos, capacity);
      if (st != FX_OK)
        return st;
      row++;
      skip_space(s);
      const int more = list_next(s);
      if (more < 0)
        return FX_ERR_SYNTAX;
      if (!more)
        break;
    }
  } else {
    /* flat: groups of six */
    if (*s->p == '>')
      return FX_ERR_SYNTAX; /* "< >": no rows, *bad = -1 */
    for (;;) {
      double v[6];
      int k = 0;
      *bad = row;
      for (; k < 6; k++) {
        if (!read_number(s, &v[k]))
          return FX_ERR_SYNTAX;
        skip_space(s);
        if (k < 5) {
          if (*s->p != ',')
            return FX_ERR_SYNTAX;
          s->p++;
        }
      }
      fx_status_t st = emit_row(v, row, sos, capacity);
      if (st != FX_OK)
        return st;
      row++;
      const int more = list_next(s);
      if (more < 0)
        return FX_ERR_SYNTAX;
      if (!more)
        break;
    }
  }
  skip_space(s);
  if (*s->p != '\0') {
    *bad = row - 1;
    return FX_ERR_SYNTAX; /* trailing garbage */
  }
  *n = row;
  return FX_OK;
}

fx_status_t fx_sos_parse(const char *text, fx_sos_t *sos, int capacity, int *n_sections,
                         int *bad_row)
{
  int n = 0, bad = -1;
  fx_status_t st;
  if (n_sections)
    *n_sections = 0;
  if (bad_row)
    *bad_row = -1;
  if (!text || (!sos && capacity > 0))
    return FX_ERR_SYNTAX;
  if (capacity < 0)
    capacity = 0;

  fx_scan_t s;
  s.p = text;
  s.dp = '.';
  const struct lconv *lc = localeconv();
  if (lc && lc->decimal_point && lc->decimal_point[0] && !lc->decimal_point[1])
    s.dp = lc->decimal_point[0];

  skip_space(&s);
  if (*s.p == '<') {
    s.p++;
    st = parse_array(&s, sos, capacity, &n, &bad);
  } else {
    st = parse_plain(&s, sos, capacity, &n, &bad);
  }
  if (st != FX_OK) {
    if (bad_row)
      *bad_row = bad;
    return st;
  }
  if (n_sections)
    *n_sections = n;
  return FX_OK;
}
