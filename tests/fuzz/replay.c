/* gst-fx — replays fuzz inputs through a target without libFuzzer: each argument is a file or a
 * directory of files (the corpus). Used by the test suite with any compiler.
 * SPDX-License-Identifier: GPL-3.0-or-later */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  uint8_t *buf;
  long len;
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc(len > 0 ? (size_t) len : 1);
  if (!buf || (len > 0 && fread(buf, 1, (size_t) len, f) != (size_t) len)) {
    fprintf(stderr, "cannot read %s\n", path);
    fclose(f);
    free(buf);
    return 1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t) len);
  free(buf);
  return 0;
}

static int cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

int main(int argc, char **argv)
{
  int files = 0, bad = 0;
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "no such file or directory: %s\n", argv[i]);
      return 1;
    }
    if (S_ISDIR(st.st_mode)) {
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      char **names = NULL;
      size_t n = 0;
      while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
          continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n] = malloc(strlen(argv[i]) + strlen(e->d_name) + 2);
        sprintf(names[n], "%s/%s", argv[i], e->d_name);
        n++;
      }
      if (d)
        closedir(d);
      qsort(names, n, sizeof *names, cmp);
      for (size_t k = 0; k < n; k++) {
        bad += run_file(names[k]);
        files++;
        free(names[k]);
      }
      free(names);
    } else {
      bad += run_file(argv[i]);
      files++;
    }
  }
  printf("replayed %d input(s), %d unreadable\n", files, bad);
  return bad || files == 0 ? 1 : 0;
}
