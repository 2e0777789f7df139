/* gst-fx — unit tests of fx_sos_parse (dsp/sosparse.c).
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "design.h"

#include "fxcheck.h"

static int near(double a, double b)
{
  return fabs(a - b) <= 1e-15 * (1.0 + fabs(b));
}

/* Parses `text` expecting success with `k` rows; checks the rows against `want` (5 values per row,
 * already normalised) when given. */
static void ok(const char *text, int k, const double *want)
{
  fx_sos_t sos[8];
  int n = -7, bad = -7;
  fx_status_t st = fx_sos_parse(text, sos, 8, &n, &bad);
  CHECK(st == FX_OK, "\"%s\": status %d (%s), bad row %d", text, st, fx_status_string(st), bad);
  if (st != FX_OK)
    return;
  CHECK(n == k, "\"%s\": %d rows, want %d", text, n, k);
  if (!want || n != k)
    return;
  for (int r = 0; r < k; r++) {
    const double *w = want + 5 * r;
    int same = near(sos[r].b0, w[0]) && near(sos[r].b1, w[1]) && near(sos[r].b2, w[2]) &&
               near(sos[r].a1, w[3]) && near(sos[r].a2, w[4]);
    CHECK(same, "\"%s\": row %d = %g %g %g %g %g", text, r, sos[r].b0, sos[r].b1, sos[r].b2,
          sos[r].a1, sos[r].a2);
  }
}

static void bad(const char *text, int capacity, fx_status_t want, int want_row)
{
  fx_sos_t sos[8];
  int n = -7, row = -7;
  fx_status_t st = fx_sos_parse(text, sos, capacity, &n, &row);
  CHECK(st == want, "\"%s\": status %d (%s), want %d (%s)", text, st, fx_status_string(st), want,
        fx_status_string(want));
  CHECK(row == want_row, "\"%s\": bad row %d, want %d", text, row, want_row);
  CHECK(n == 0, "\"%s\": n_sections %d on failure", text, n);
}

int main(void)
{
  const double two[] = {1, 0, 0, -0.5, 0, 0.25, 0.25, 0, 0, 0};
  /* plain form */
  ok("1 0 0 1 -0.5 0; 0.5, 0.5, 0, 2, 0, 0", 2, two);
  ok("  1 0 0 1 -0.5 0 ;\n0.5 0.5 0 2 0 0 ;  ", 2, two);
  ok("1,0,0,1,-0.5,0;0.5,0.5,0,2,0,0", 2, two);
  ok("1 , 0 ,0, 1\t-5e-1 0;+5E-1 0.5 0 2.0 -0 .0", 2, two);
  /* GstValueArray forms */
  ok("< < 1, 0, 0, 1, -0.5, 0 >, < 0.5, 0.5, 0, 2, 0, 0 > >", 2, two);
  ok("<<1,0,0,1,-0.5,0>,<0.5,0.5,0,2,0,0>>", 2, two);
  ok("< < (double)1, (double)0, (double)0, (double)1, (double)-0.5, (double)0 >, "
     "< (double)0.5, (double)0.5, (double)0, (double)2, (double)0, (double)0 > >",
     2, two);
  ok("< < (gdouble) 1, (float)0, (int)0, (double)1, (double)-0.5, (double)0 > >", 1, two);
  ok("< 1, 0, 0, 1, -0.5, 0, 0.5, 0.5, 0, 2, 0, 0 >", 2, two); /* flat */
  /* a second-order low-pass row as scipy prints it */
  ok("0.00094469, 0.00188938, 0.00094469, 1.0, -1.91119707, 0.91497583", 1, NULL);
  /* many rows up to the capacity */
  {
    char text[4096] = "";
    for (int i = 0; i < 8; i++)
      strcat(text, "1 0.5 0.25 1 -0.9 0.2;");
    ok(text, 8, NULL);
  }

  /* errors, with the row at fault */
  bad("", 8, FX_ERR_SYNTAX, -1);
  bad("   ", 8, FX_ERR_SYNTAX, -1);
  bad("< >", 8, FX_ERR_SYNTAX, -1);
  bad("1 0 0 1 0", 8, FX_ERR_SYNTAX, 0);                  /* five values */
  bad("1 0 0 1 0 0; 1 0 0 1 0 0 0", 8, FX_ERR_SYNTAX, 1); /* seven values */
  bad("1 0 0 1 0 0;; 1 0 0 1 0 0", 8, FX_ERR_SYNTAX, 1);  /* empty row */
  bad("; 1 0 0 1 0 0", 8, FX_ERR_SYNTAX, 0);
  bad("1 0 0 1 0 0x", 8, FX_ERR_SYNTAX, 0); /* trailing garbage in a number */
  bad("1 0 0 1 0 0; 1 0 0 1 0 0 junk", 8, FX_ERR_SYNTAX, 1);
  bad("1,,0 0 1 0 0", 8, FX_ERR_SYNTAX, 0);
  bad("1 0 0 1 0 0,", 8, FX_ERR_SYNTAX, 0);
  bad("1 0 0 1 0 0; 1 0 0 0 0 0", 8, FX_ERR_A0, 1);
  bad("1 0 0 1 nan 0", 8, FX_ERR_NONFINITE, 0);
  bad("1 0 0 1 0 0; 1 0 0 1 0 inf", 8, FX_ERR_NONFINITE, 1);
  bad("1e999 0 0 1 0 0", 8, FX_ERR_NONFINITE, 0);
  bad("1 0 0 1 0 0; 1 0 0 1 0 0; 1 0 0 1 -2.5 1.5", 8, FX_ERR_UNSTABLE, 2);
  bad("1 0 0 1 0 1", 8, FX_ERR_UNSTABLE, 0); /* poles on the unit circle */
  bad("1 0 0 1 0 0; 1 0 0 1 0 0", 1, FX_ERR_CAPACITY, 1);
  bad("< < 1, 0, 0, 1, 0, 0 >, < 1, 0, 0, 1, 0 > >", 8, FX_ERR_SYNTAX, 1);
  bad("< < 1, 0, 0, 1, 0, 0 > > junk", 8, FX_ERR_SYNTAX, 0);
  bad("< < 1, 0, 0, 1, 0, 0 >", 8, FX_ERR_SYNTAX, 0); /* unclosed */
  bad("< < 1, 0, 0, 1, 0, 0 >, >", 8, FX_ERR_SYNTAX, 1);
  bad("< < (double)1, (double), 0, 1, 0, 0 > >", 8, FX_ERR_SYNTAX, 0);
  bad("< < 1, 0, 0, 1, 0, 0 >, < 1, 0, 0, 0, 0, 0 > >", 8, FX_ERR_A0, 1);
  bad("< < 1, 0, 0, 1, 0, 0 >, < 1, 0, 0, 1, 2, 0 > >", 8, FX_ERR_UNSTABLE, 1);
  bad("< 1, 0, 0, 1, 0, 0, 1, 0 >", 8, FX_ERR_SYNTAX, 1); /* flat, not a multiple of six */

  /* NULL out-pointers are allowed */
  {
    fx_sos_t s[2];
    CHECK(fx_sos_parse("1 0 0 1 0 0", s, 2, NULL, NULL) == FX_OK, "NULL outputs");
  }

  /* The decimal point is '.' whatever the locale. */
  const char *locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", NULL};
  int tried = 0;
  for (int i = 0; locales[i]; i++) {
    if (setlocale(LC_NUMERIC, locales[i])) {
      tried = 1;
      ok("1 0 0 1 -0.5 0; 0.5, 0.5, 0, 2, 0, 0", 2, two);
      bad("1 0 0 1 -0,5 0", 8, FX_ERR_SYNTAX, 0); /* seven values: "-0" and "5" */
      setlocale(LC_NUMERIC, "C");
      break;
    }
  }
  if (!tried)
    printf("test_sosparse: no comma-decimal locale installed; locale check skipped\n");

  printf("test_sosparse: %d checks, %d failed\n", checks, failures);
  return failures ? 1 : 0;
}
