// Where debug information places code addresses of this process: the file and line of each, read
// from the `.debug_line` section of the image that holds it (DWARF 2 to 5). One pass over the
// image's line programs answers every address of a call, where a lookup per address would run them
// all again for each. Images are mapped once and stay mapped, so the file names handed out stay
// valid. Linux, 64-bit ELF; elsewhere nothing is read.
#if defined(__linux__) && defined(__LP64__)
  #define _GNU_SOURCE
  #include <elf.h>
  #include <fcntl.h>
  #include <link.h>
  #include <pthread.h>
  #include <stdlib.h>
  #include <string.h>
  #include <sys/mman.h>
  #include <sys/stat.h>
  #include <unistd.h>
#endif

#include "LockstepInterposition.h"

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

enum { image_limit = 64 };
static image_lines images[image_limit];
static int image_count;
static pthread_mutex_t images_lock = PTHREAD_MUTEX_INITIALIZER;

/// The image holding an address, as `dl_iterate_phdr` finds it.
typedef struct {
  uintptr_t address;
  uintptr_t bias;
  const char *path;
  bool found;
} image_search;

static int find_image(struct dl_phdr_info *info, size_t size, void *context) {
  (void)size;
  image_search *search = context;
  for (int index = 0; index < info->dlpi_phnum; index++) {
    const ElfW(Phdr) *header = &info->dlpi_phdr[index];
    if (header->p_type != PT_LOAD) continue;
    uintptr_t start = info->dlpi_addr + header->p_vaddr;
    if (search->address >= start && search->address < start + header->p_memsz) {
      search->bias = info->dlpi_addr;
      search->path = info->dlpi_name;
      search->found = true;
      return 1;
    }
  }
  return 0;
}

/// Maps the ELF file at `path` and finds its line sections in `image`.
static void map_image(const char *path, image_lines *image) {
  int file = open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return;
  struct stat status;
  void *mapped = MAP_FAILED;
  if (fstat(file, &status) == 0 && status.st_size > (off_t)sizeof(Elf64_Ehdr)) {
    mapped = mmap(NULL, (size_t)status.st_size, PROT_READ, MAP_PRIVATE, file, 0);
  }
  close(file);
  if (mapped == MAP_FAILED) return;
  const uint8_t *base = mapped;
  size_t size = (size_t)status.st_size;
  const Elf64_Ehdr *header = mapped;
  if (memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 || header->e_ident[EI_CLASS] != ELFCLASS64
    || header->e_shentsize != sizeof(Elf64_Shdr) || header->e_shoff > size
    || header->e_shnum > (size - header->e_shoff) / sizeof(Elf64_Shdr)
    || header->e_shstrndx >= header->e_shnum)
  {
    munmap(mapped, size);
    return;
  }
  const Elf64_Shdr *sections = (const Elf64_Shdr *)(base + header->e_shoff);
  const Elf64_Shdr *names = &sections[header->e_shstrndx];
  if (names->sh_offset > size || names->sh_size > size - names->sh_offset) {
    munmap(mapped, size);
    return;
  }
  for (int index = 0; index < header->e_shnum; index++) {
    const Elf64_Shdr *section = &sections[index];
    if (section->sh_name >= names->sh_size || section->sh_type == SHT_NOBITS) continue;
    if (section->sh_offset > size || section->sh_size > size - section->sh_offset) continue;
    // Compressed debug sections are left to the slower reader.
    if (section->sh_flags & SHF_COMPRESSED) continue;
    const char *name = (const char *)base + names->sh_offset + section->sh_name;
    const uint8_t *contents = base + section->sh_offset;
    if (strcmp(name, ".debug_line") == 0) {
      image->line = contents;
      image->line_size = section->sh_size;
    } else if (strcmp(name, ".debug_line_str") == 0) {
      image->line_str = contents;
      image->line_str_size = section->sh_size;
    } else if (strcmp(name, ".debug_str") == 0) {
      image->str = contents;
      image->str_size = section->sh_size;
    }
  }
  if (image->line == NULL) munmap(mapped, size);
}

/// The image holding `address`, mapped the first time; `NULL` when no image holds it or the
/// process has mapped as many as it keeps.
static const image_lines *image_holding(uintptr_t address) {
  image_search search = {.address = address};
  dl_iterate_phdr(find_image, &search);
  if (!search.found) return NULL;
  for (int index = 0; index < image_count; index++) {
    if (images[index].bias == search.bias) return &images[index];
  }
  if (image_count == image_limit) return NULL;
  image_lines *image = &images[image_count++];
  *image = (image_lines){.bias = search.bias};
  const char *path = search.path;
  if (path == NULL || path[0] == '\0') path = "/proc/self/exe";
  map_image(path, image);
  return image;
}

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

/// The addresses of one call, sorted by where they sit in their image.
typedef struct {
  uintptr_t address;  // in the image's own addresses (the load bias taken off)
  int index;          // in the caller's arrays
} sorted_address;

static int compare_addresses(const void *left, const void *right) {
  uintptr_t a = ((const sorted_address *)left)->address;
  uintptr_t b = ((const sorted_address *)right)->address;
  return a < b ? -1 : a > b;
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
static void run_units(
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

int lockstep_source_lines(const uintptr_t *addresses, int count, lockstep_source_line *lines) {
  if (count <= 0) return 0;
  sorted_address *sorted = malloc(sizeof *sorted * (size_t)count);
  const image_lines **holders = malloc(sizeof *holders * (size_t)count);
  if (sorted == NULL || holders == NULL) {
    free(sorted);
    free(holders);
    return -1;
  }
  int readable = 0;
  lockstep_private_mutex_lock(&images_lock);
  for (int index = 0; index < count; index++) {
    lines[index] = (lockstep_source_line){0};
    holders[index] = image_holding(addresses[index]);
    if (holders[index] != NULL && holders[index]->line != NULL) {
      lines[index].readable = true;
      readable++;
    }
  }
  // One pass over each image's line programs answers all of its addresses.
  for (int first = 0; first < count; first++) {
    const image_lines *image = holders[first];
    if (image == NULL || image->line == NULL) continue;
    bool earlier = false;
    for (int index = 0; index < first && !earlier; index++) earlier = holders[index] == image;
    if (earlier) continue;
    int sorted_count = 0;
    for (int index = first; index < count; index++) {
      if (holders[index] != image) continue;
      sorted[sorted_count++] = (sorted_address){addresses[index] - image->bias, index};
    }
    qsort(sorted, (size_t)sorted_count, sizeof *sorted, compare_addresses);
    run_units((image_lines *)image, sorted, sorted_count, lines);
  }
  lockstep_private_mutex_unlock(&images_lock);
  free(sorted);
  free(holders);
  return readable;
}

#else

int lockstep_source_lines(const uintptr_t *addresses, int count, lockstep_source_line *lines) {
  for (int index = 0; index < count; index++) lines[index] = (lockstep_source_line){0};
  (void)addresses;
  return 0;
}

#endif
