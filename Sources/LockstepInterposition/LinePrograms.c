// The line programs of an image's `.debug_line` section (DWARF 2 to 5), run for the addresses of
// one call of `lockstep_source_lines` (`SourceLines.c`, which maps the images): each address gets
// the row that covers it, and the first pass over an image learns which addresses each program
// covers, so that later calls run only the programs that cover theirs. Linux, 64-bit ELF, as
// `SourceLines.c`; it stands in for no call and tells a run nothing.
#if defined(__linux__) && defined(__LP64__)
  #define _GNU_SOURCE
  #include <stdlib.h>
  #include <string.h>
#endif

#include "Internal/LinePrograms.h"

#if defined(__linux__) && defined(__LP64__)

/// Reads the bytes of a line program, never past its end.
typedef struct {
  const uint8_t *at, *end;
  bool failed;
} reader;

static uint64_t read_fixed(reader *in, int size) {
  if (in->end - in->at < size) {
    in->failed = true;
    in->at = in->end;
    return 0;
  }
  uint64_t value = 0;
  for (int index = 0; index < size; index++) value |= (uint64_t)in->at[index] << (8 * index);
  in->at += size;
  return value;
}

static uint64_t read_uleb(reader *in) {
  uint64_t value = 0;
  int shift = 0;
  while (in->at < in->end) {
    uint8_t byte = *in->at++;
    if (shift < 64) value |= (uint64_t)(byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) return value;
  }
  in->failed = true;
  return value;
}

static int64_t read_sleb(reader *in) {
  int64_t value = 0;
  int shift = 0;
  uint8_t byte = 0;
  while (in->at < in->end) {
    byte = *in->at++;
    if (shift < 64) value |= (int64_t)((uint64_t)(byte & 0x7f) << shift);
    shift += 7;
    if (!(byte & 0x80)) {
      if (shift < 64 && (byte & 0x40)) value |= -((int64_t)1 << shift);
      return value;
    }
  }
  in->failed = true;
  return value;
}

static const char *read_string(reader *in) {
  const uint8_t *end = memchr(in->at, 0, (size_t)(in->end - in->at));
  if (end == NULL) {
    in->failed = true;
    in->at = in->end;
    return NULL;
  }
  const char *string = (const char *)in->at;
  in->at = end + 1;
  return string;
}

static const char *string_at(const uint8_t *section, size_t size, uint64_t offset) {
  if (section == NULL || offset >= size || memchr(section + offset, 0, size - offset) == NULL) {
    return NULL;
  }
  return (const char *)section + offset;
}

/// The DWARF forms a version 5 line table header uses.
enum {
  form_block = 0x09,
  form_data1 = 0x0b,
  form_data2 = 0x05,
  form_data4 = 0x06,
  form_data8 = 0x07,
  form_data16 = 0x1e,
  form_line_strp = 0x1f,
  form_string = 0x08,
  form_strp = 0x0e,
  form_udata = 0x0f,
};

/// Reads one attribute of a version 5 directory or file entry; its string when it is one.
static const char *read_form(
  reader *in, uint64_t form, int offset_size, const image_lines *image, bool *understood)
{
  switch (form) {
  case form_string: return read_string(in);
  case form_line_strp:
    return string_at(image->line_str, image->line_str_size, read_fixed(in, offset_size));
  case form_strp: return string_at(image->str, image->str_size, read_fixed(in, offset_size));
  case form_udata: read_uleb(in); return NULL;
  case form_data1: read_fixed(in, 1); return NULL;
  case form_data2: read_fixed(in, 2); return NULL;
  case form_data4: read_fixed(in, 4); return NULL;
  case form_data8: read_fixed(in, 8); return NULL;
  case form_data16:
    read_fixed(in, 8);
    read_fixed(in, 8);
    return NULL;
  case form_block: {
    uint64_t length = read_uleb(in);
    if ((uint64_t)(in->end - in->at) < length) {
      in->failed = true;
      in->at = in->end;
    } else {
      in->at += length;
    }
    return NULL;
  }
  default: *understood = false; return NULL;
  }
}

/// The first of `count` sorted addresses at or after `address`.
static int first_at_or_after(const sorted_address *sorted, int count, uintptr_t address) {
  int low = 0, high = count;
  while (low < high) {
    int middle = low + (high - low) / 2;
    if (sorted[middle].address < address) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/// Gives the row that starts at `start` (file `file`, line `line`) to the addresses it covers,
/// up to `end`, that no row has yet.
static void cover(
  const sorted_address *sorted, int count, uintptr_t start, uintptr_t end, const char *file,
  uint64_t line, lockstep_source_line *lines)
{
  if (end <= start) return;
  for (int at = first_at_or_after(sorted, count, start); at < count && sorted[at].address < end; at++) {
    lockstep_source_line *out = &lines[sorted[at].index];
    if (out->file != NULL) continue;
    out->file = file != NULL ? file : "";
    out->line = (uint32_t)line;
  }
}

/// Runs one line program (a unit of `.debug_line` starting at `in->at`), giving each address in
/// `sorted` its row. Returns where the next unit starts, or `NULL` when this one cannot be read.
static const uint8_t *run_unit(
  reader *in, const image_lines *image, const sorted_address *sorted, int count,
  lockstep_source_line *lines, unit_range *range)
{
  range->start = in->at;
  range->low = UINTPTR_MAX;
  range->high = 0;
  int offset_size = 4;
  uint64_t length = read_fixed(in, 4);
  if (length == 0xffffffff) {
    offset_size = 8;
    length = read_fixed(in, 8);
  }
  if (in->failed || length > (uint64_t)(in->end - in->at)) return NULL;
  const uint8_t *unit_end = in->at + length;
  reader unit = {.at = in->at, .end = unit_end};
  uint16_t version = (uint16_t)read_fixed(&unit, 2);
  if (version < 2 || version > 5) return unit_end;
  if (version >= 5) {
    read_fixed(&unit, 1);  // address size
    read_fixed(&unit, 1);  // segment selector size
  }
  uint64_t header_length = read_fixed(&unit, offset_size);
  if (unit.failed || header_length > (uint64_t)(unit.end - unit.at)) return unit_end;
  const uint8_t *program = unit.at + header_length;
  uint8_t minimum_instruction_length = (uint8_t)read_fixed(&unit, 1);
  if (version >= 4) read_fixed(&unit, 1);  // maximum operations per instruction
  read_fixed(&unit, 1);                     // default is_stmt
  int8_t line_base = (int8_t)read_fixed(&unit, 1);
  uint8_t line_range = (uint8_t)read_fixed(&unit, 1);
  uint8_t opcode_base = (uint8_t)read_fixed(&unit, 1);
  if (unit.failed || line_range == 0 || opcode_base == 0) return unit_end;
  const uint8_t *opcode_lengths = unit.at;
  if (unit.end - unit.at < opcode_base - 1) return unit_end;
  unit.at += opcode_base - 1;

  // The file names, by the numbers the program uses: from 1 before version 5, from 0 since.
  const char **files = NULL;
  uint64_t file_count = 0;
  uint64_t first_file = version >= 5 ? 0 : 1;
  if (version >= 5) {
    bool understood = true;
    for (int table = 0; table < 2 && !unit.failed && understood; table++) {
      uint8_t format_count = (uint8_t)read_fixed(&unit, 1);
      uint64_t format[2 * 255];
      for (int index = 0; index < format_count; index++) {
        format[2 * index] = read_uleb(&unit);
        format[2 * index + 1] = read_uleb(&unit);
      }
      uint64_t entries = read_uleb(&unit);
      if (unit.failed || entries > (uint64_t)(unit.end - unit.at)) {
        understood = false;
        break;
      }
      if (table == 1) {
        files = calloc(entries + 1, sizeof *files);
        if (files == NULL) return unit_end;
        file_count = entries;
      }
      for (uint64_t entry = 0; entry < entries && !unit.failed && understood; entry++) {
        for (int index = 0; index < format_count; index++) {
          const char *string = read_form(&unit, format[2 * index + 1], offset_size, image, &understood);
          // DW_LNCT_path
          if (table == 1 && format[2 * index] == 1) files[entry] = string;
        }
      }
    }
    if (!understood || unit.failed) {
      free(files);
      return unit_end;
    }
  } else {
    while (!unit.failed && unit.at < unit.end && *unit.at != 0) read_string(&unit);
    read_fixed(&unit, 1);
    const uint8_t *names = unit.at;
    while (!unit.failed && unit.at < unit.end && *unit.at != 0) {
      read_string(&unit);
      read_uleb(&unit);
      read_uleb(&unit);
      read_uleb(&unit);
      file_count++;
    }
    files = calloc(file_count + 1, sizeof *files);
    if (files == NULL) return unit_end;
    unit.at = names;
    for (uint64_t entry = 0; entry < file_count; entry++) {
      files[entry] = read_string(&unit);
      read_uleb(&unit);
      read_uleb(&unit);
      read_uleb(&unit);
    }
  }

  reader code = {.at = program, .end = unit_end};
  uintptr_t address = 0;
  uint64_t file = 1, line = 1;
  // The row before, which covers the addresses up to the next row's.
  bool has_row = false;
  uintptr_t row_address = 0;
  uint64_t row_file = 0, row_line = 0;
  // The last row of the sequence on a line: code on no line (line 0, compiler-generated, such as
  // a landing pad or the padding after a function's last instruction) is given its line.
  uint64_t lined_file = 0, lined_line = 0;
#define FILE_NAME(number) \
  ((number) >= first_file && (number) - first_file < file_count ? files[(number) - first_file] : NULL)
#define EMIT(ends_sequence) \
  do { \
    if (has_row && row_line != 0) lined_file = row_file, lined_line = row_line; \
    if (has_row) { \
      bool lined = row_line == 0 && lined_line != 0; \
      cover(sorted, count, row_address, address, FILE_NAME(lined ? lined_file : row_file), \
        lined ? lined_line : row_line, lines); \
    } \
    if (has_row && row_address < range->low) range->low = row_address; \
    if (has_row && address > range->high) range->high = address; \
    if (ends_sequence) lined_line = 0; \
    has_row = !(ends_sequence); \
    row_address = address; \
    row_file = file; \
    row_line = line; \
  } while (0)
  while (code.at < code.end && !code.failed) {
    uint8_t opcode = *code.at++;
    if (opcode >= opcode_base) {
      uint8_t adjusted = opcode - opcode_base;
      address += (uintptr_t)(adjusted / line_range) * minimum_instruction_length;
      line += (uint64_t)(int64_t)(line_base + adjusted % line_range);
      EMIT(false);
      continue;
    }
    switch (opcode) {
    case 0: {
      uint64_t size = read_uleb(&code);
      if (size == 0 || size > (uint64_t)(code.end - code.at)) {
        code.failed = true;
        break;
      }
      const uint8_t *next = code.at + size;
      uint8_t extended = *code.at++;
      if (extended == 1) {  // end_sequence
        EMIT(true);
        address = 0;
        file = 1;
        line = 1;
      } else if (extended == 2) {  // set_address
        int bytes = (int)size - 1;
        address = (uintptr_t)read_fixed(&code, bytes > 8 ? 8 : bytes);
      }
      code.at = next;
      break;
    }
    case 1: EMIT(false); break;  // copy
    case 2: address += (uintptr_t)read_uleb(&code) * minimum_instruction_length; break;
    case 3: line += (uint64_t)read_sleb(&code); break;
    case 4: file = read_uleb(&code); break;
    case 5: read_uleb(&code); break;  // column
    case 8: address += (uintptr_t)((255 - opcode_base) / line_range) * minimum_instruction_length; break;
    case 9: address += (uintptr_t)read_fixed(&code, 2); break;
    case 6: case 7: case 10: case 11: break;
    default:
      for (int argument = 0; argument < opcode_lengths[opcode - 1]; argument++) read_uleb(&code);
      break;
    }
  }
#undef EMIT
#undef FILE_NAME
  free(files);
  return unit_end;
}

/// Runs the line programs of `image` that cover any of `sorted`: all of them the first time, which
/// learns what each covers.
void lockstep_run_line_programs(
  image_lines *image, const sorted_address *sorted, int count, lockstep_source_line *lines)
{
  unit_range range;
  if (image->units != NULL) {
    for (size_t unit = 0; unit < image->unit_count; unit++) {
      const unit_range *known = &image->units[unit];
      int at = first_at_or_after(sorted, count, known->low);
      if (at == count || sorted[at].address >= known->high) continue;
      reader in = {.at = known->start, .end = image->line + image->line_size};
      run_unit(&in, image, sorted, count, lines, &range);
    }
    return;
  }
  size_t capacity = 64;
  image->units = malloc(sizeof *image->units * capacity);
  reader in = {.at = image->line, .end = image->line + image->line_size};
  while (in.at < in.end) {
    const uint8_t *next = run_unit(&in, image, sorted, count, lines, &range);
    if (next == NULL) break;
    in.at = next;
    if (image->units == NULL || range.low >= range.high) continue;
    if (image->unit_count == capacity) {
      capacity *= 2;
      unit_range *grown = realloc(image->units, sizeof *image->units * capacity);
      if (grown == NULL) {
        free(image->units);
        image->units = NULL;
        continue;
      }
      image->units = grown;
    }
    image->units[image->unit_count++] = range;
  }
  // Learned only when every program was read: a unit past a broken one would be skipped for good.
  if (in.at < in.end) {
    free(image->units);
    image->units = NULL;
    image->unit_count = 0;
  }
}

#endif
