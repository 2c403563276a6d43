// What `SourceLines.c` (the images) and `LinePrograms.c` (their DWARF line programs) share.
// Private to the target (not under include/).
#ifndef LOCKSTEP_INTERNAL_LINE_PROGRAMS_H
#define LOCKSTEP_INTERNAL_LINE_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "SourceLines.h"

#if defined(__linux__) && defined(__LP64__)

/// The addresses one line program covers, learned the first time it runs: later calls skip the
/// programs that cover none of their addresses.
typedef struct {
  const uint8_t *start;
  uintptr_t low, high;
} unit_range;

/// A mapped image and its line sections; `line == NULL` when it has none that can be read.
typedef struct {
  uintptr_t bias;
  const uint8_t *line, *line_str, *str;
  size_t line_size, line_str_size, str_size;
  /// Every line program's range, once one call has run them all; `NULL` before.
  unit_range *units;
  size_t unit_count;
} image_lines;

/// The addresses of one call, sorted by where they sit in their image.
typedef struct {
  uintptr_t address;  // in the image's own addresses (the load bias taken off)
  int index;          // in the caller's arrays
} sorted_address;

/// Runs the line programs of `image` that cover any of the `count` addresses of `sorted`, giving
/// each its row in `lines`: all of them the first time, which learns what each covers.
void lockstep_run_line_programs(
  image_lines *image, const sorted_address *sorted, int count, lockstep_source_line *lines);

#endif

#endif
