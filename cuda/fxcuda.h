/* gst-fx — the CUDA backend of the SOS cascade engine (libfxcuda). C11, no GLib.
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The CUDA driver is loaded at run time (dlopen("libcuda.so.1")); without a driver or GPU every
 * function here fails cleanly with a reason and the caller stays on the CPU. An fx_cuda_t plugs
 * into one fx_cascade_t through the engine's offload hook (dsp/cascade.h): the engine keeps
 * doing coefficient changes, crossfades and warm-ups on the host, and hands each pass over the
 * running cascade to the GPU. Each pass: the input is copied into pinned staging, then copy in,
 * one kernel launch (all sections), copy out of the samples and of the state on one stream,
 * eagerly or as a replayed CUDA graph. The filter state lives on the device at stable addresses
 * between buffers; it is copied back with every buffer (C x K x 2 values), so the host always
 * holds the current state: on any CUDA failure the engine runs that very call and all later ones
 * on the CPU, with nothing lost (the failed call leaves the host arrays untouched).
 *
 * Not thread-safe per object (one streaming thread per cascade); different objects may be used
 * from different threads. */
#ifndef FX_CUDA_H
#define FX_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "cascade.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fx_cuda fx_cuda_t;

/* 1 when a usable GPU is present (driver loaded, a device of compute capability >= 7.5, the
 * embedded kernels loaded); else 0 and a reason in why (if why_len > 0). The first call does the
 * work (process-wide, once); later calls return the cached answer. */
int fx_cuda_probe(char *why, size_t why_len);

/* A backend object (own stream, device and pinned buffers, graph cache), or NULL with a reason. */
fx_cuda_t *fx_cuda_new(char *why, size_t why_len);
void fx_cuda_free(fx_cuda_t *g);

/* Makes c's passes run on g (NULL detaches). One cascade per object. Detach before freeing
 * either. */
void fx_cuda_attach(fx_cuda_t *g, fx_cascade_t *c);

/* Capture and replay a graph per (frames, channels, sections, format) (default 1). */
void fx_cuda_set_graphs(fx_cuda_t *g, int on);

/* Passes of at least this many frames per channel use the time-parallel scan kernel (for up to
 * 16 sections and at least 2 frames); 0 = automatic: the scan for long passes, from a shorter
 * length for few channels (FX_SCAN_AUTO_* in fxcuda.c; docs/cuda.md says which measurements this
 * rests on). */
void fx_cuda_set_scan_threshold(fx_cuda_t *g, size_t frames);

/* 1 when a pass of `frames` frames per channel over `channels` channels belongs on the GPU for
 * device=auto: only shapes where the GPU was measured faster than the CPU engine (docs/cuda.md,
 * "scan-threshold and device=auto"); 0 otherwise. */
int fx_cuda_auto_prefers(uint64_t frames, int channels);

/* device=auto: with on != 0 the object takes only the passes fx_cuda_auto_prefers() accepts and
 * declines the others (the engine runs them on the CPU; the state mirror follows). */
void fx_cuda_set_auto(fx_cuda_t *g, int on);
/* 1 when the latest pass offered to the object ran on the GPU (0: declined, ran on the CPU). */
int fx_cuda_last_ran(const fx_cuda_t *g);

/* Frames per chunk of the scan kernel (a power of two up to 1024; others are ignored);
 * 0 = automatic (16 below 65536 frames, 128 from there). For tests and measurements. */
void fx_cuda_set_scan_chunk(fx_cuda_t *g, unsigned frames);

/* Kernel launches issued (a graph replay counts as one). */
uint64_t fx_cuda_launches(const fx_cuda_t *g);
/* Passes that ran the time-parallel scan kernel (statistics). */
uint64_t fx_cuda_scans(const fx_cuda_t *g);
/* Graphs captured (statistics; a replay of an existing graph does not count). */
uint64_t fx_cuda_captures(const fx_cuda_t *g);

/* NULL while usable; once a driver call failed, the reason (e.g. "cuLaunchKernel failed:
 * CUDA_ERROR_LAUNCH_FAILED"). From then on g declines everything (the cascade runs on the CPU). */
const char *fx_cuda_error(const fx_cuda_t *g);

/* What runs on g, e.g. "cuda-graph-f32", "cuda-f64" (arithmetic precision as in the CPU
 * engine's backend string); dbl: the cascade's arithmetic is double. */
const char *fx_cuda_backend(fx_cuda_t *g, int dbl);

/* The device's name and compute capability ("NVIDIA H200 (9.0)"), or "" without a GPU. */
const char *fx_cuda_device_name(void);

#ifdef __cplusplus
}
#endif

#endif
