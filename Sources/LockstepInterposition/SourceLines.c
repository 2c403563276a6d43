// Where debug information places code addresses of this process: the file and line of each, read
// from the `.debug_line` section of the image that holds it. This file finds and maps the images
// and groups a call's addresses by image; `LinePrograms.c` runs each image's line programs once
// for all of them, where a lookup per address would run them all again for each. Images are mapped
// once and stay mapped, so the file names handed out stay valid. For reports: it stands in for no
// call and tells a run nothing. Linux, 64-bit ELF; elsewhere nothing is read.
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

#include "Internal/LinePrograms.h"
#include "LockstepInterposition.h"

#if defined(__linux__) && defined(__LP64__)

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

static int compare_addresses(const void *left, const void *right) {
  uintptr_t a = ((const sorted_address *)left)->address;
  uintptr_t b = ((const sorted_address *)right)->address;
  return a < b ? -1 : a > b;
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
    lockstep_run_line_programs((image_lines *)image, sorted, sorted_count, lines);
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
