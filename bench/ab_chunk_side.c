/* gst-fx — one side of bench/ab_chunk.c: the chunk tables and records of one source tree.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * bench/ab-chunk.sh compiles this file once per tree, against that tree's dsp/ headers and with
 * AB_SIDE set to a or b, so that each kernel gets tables and records of its own tree's layout
 * (a change may add fields to fx_chunk_sec_t or fx_chunk_rec_t). The tree's chunk.c is part of
 * this unit; the script hides its symbols, leaving ab_<side>_tables and ab_<side>_records. */
#include "chunk.c"

#include <stdlib.h>

#define AB_CAT3(a, b, c) a##b##c
#define AB_NAME(side, what) AB_CAT3(ab_, side, what)

/* The tables of K sections from their double coefficients (5 per section). */
void *AB_NAME(AB_SIDE, _tables)(const double *coef, int K);
void *AB_NAME(AB_SIDE, _tables)(const double *coef, int K)
{
  fx_chunk_sec_t *ps = calloc((size_t) K, sizeof(*ps));
  for (int k = 0; ps && k < K; k++)
    fx_chunk_sec_build(ps + k, coef + 5 * k);
  return ps;
}

/* n zeroed records. */
void *AB_NAME(AB_SIDE, _records)(size_t n);
void *AB_NAME(AB_SIDE, _records)(size_t n)
{
  return calloc(n, sizeof(fx_chunk_rec_t));
}
