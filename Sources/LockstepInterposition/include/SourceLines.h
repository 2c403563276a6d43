// The file and line of code addresses, read from the images' DWARF line tables (`SourceLines.c`,
// `LinePrograms.c`).
#ifndef LOCKSTEP_SOURCE_LINES_H
#define LOCKSTEP_SOURCE_LINES_H

#include <stdbool.h>
#include <stdint.h>

/// Where debug information places one code address: its source file's name as the image's line
/// table spells it (often a path; valid for the life of the process) and line.
typedef struct lockstep_source_line {
  /// The file's name; `NULL` when no row of the line table covers the address.
  const char *file;
  /// The line; code on no line (compiler-generated: a landing pad, padding) has the line of the
  /// last row before it in its sequence, and 0 when there is none.
  uint32_t line;
  /// Whether the image holding the address has a line table this reader reads.
  bool readable;
} lockstep_source_line;

/// The file and line of each of `count` code addresses of this process (an instruction's own
/// address, not a return address), read from the `.debug_line` sections of the images that hold
/// them in one pass per image. Returns how many lie in an image whose line table was read; 0 where
/// none can be (not Linux, no debug information, compressed sections).
int lockstep_source_lines(const uintptr_t *addresses, int count, lockstep_source_line *lines);

#endif
