/* collector/elf_symbols.c: the function symbol of an address from an ELF file's .symtab, .dynsym or separate debug file; every offset the file gives is checked against its size. */
#include "collector/elf_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_SYMBOLS_MAX_FILE (1ull << 32)   /* larger files are not mapped */

/* A file mapped read-only. */
struct elf_file {
  const uint8_t *data;
  size_t size;
};

static int elf_open(const char *path, struct elf_file *f)
{
  f->data = NULL;
  f->size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
      (uint64_t)st.st_size > ELF_SYMBOLS_MAX_FILE) {
    close(fd);
    return -1;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return -1;
  f->data = p;
  f->size = (size_t)st.st_size;
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)f->data;
  static const uint8_t ours = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
  if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0 || h->e_ident[EI_CLASS] != ELFCLASS64 ||
      h->e_ident[EI_DATA] != ours || h->e_shentsize != sizeof(Elf64_Shdr) ||
      h->e_shoff % _Alignof(Elf64_Shdr) != 0 ||
      h->e_shoff > f->size || (uint64_t)h->e_shnum * sizeof(Elf64_Shdr) > f->size - h->e_shoff ||
      h->e_shstrndx >= h->e_shnum) {
    munmap((void *)f->data, f->size);
    f->data = NULL;
    return -1;
  }
  return 0;
}

static void elf_close(struct elf_file *f)
{
  if (f->data)
    munmap((void *)f->data, f->size);
  f->data = NULL;
}

static const Elf64_Shdr *section(const struct elf_file *f, size_t i)
{
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)f->data;
  if (i >= h->e_shnum)
    return NULL;
  return (const Elf64_Shdr *)(f->data + h->e_shoff) + i;
}

/* Whether section s's bytes lie inside the file. */
static int section_in_file(const struct elf_file *f, const Elf64_Shdr *s)
{
  return s->sh_type != SHT_NOBITS && s->sh_offset <= f->size && s->sh_size <= f->size - s->sh_offset;
}

/* The NUL-terminated string at offset in string table section strtab, or NULL. */
static const char *string_at(const struct elf_file *f, const Elf64_Shdr *strtab, uint64_t offset)
{
  if (!strtab || !section_in_file(f, strtab) || offset >= strtab->sh_size)
    return NULL;
  const char *s = (const char *)f->data + strtab->sh_offset + offset;
  if (!memchr(s, '\0', strtab->sh_size - offset))
    return NULL;
  return s;
}

/* Searches the symbol table section of type type for vaddr: 1 with the
 * name copied, or 0. */
static int find_in_table(const struct elf_file *f, uint32_t type, uint64_t vaddr, char *name,
                         size_t size)
{
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)f->data;
  for (size_t i = 0; i < h->e_shnum; i++) {
    const Elf64_Shdr *s = section(f, i);
    if (s->sh_type != type || !section_in_file(f, s) || s->sh_entsize != sizeof(Elf64_Sym) ||
        s->sh_offset % _Alignof(Elf64_Sym) != 0)
      continue;
    const Elf64_Shdr *strtab = section(f, s->sh_link);
    const Elf64_Sym *syms = (const Elf64_Sym *)(f->data + s->sh_offset);
    size_t count = s->sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym *best = NULL;
    for (size_t k = 0; k < count && !best; k++) {
      const Elf64_Sym *sym = &syms[k];
      /* The first function whose range holds vaddr (aliases share one);
       * an unsized one only at its own address, which is all it says. */
      if (ELF64_ST_TYPE(sym->st_info) == STT_FUNC && sym->st_shndx != SHN_UNDEF &&
          sym->st_name != 0 && sym->st_value <= vaddr &&
          (sym->st_size ? vaddr - sym->st_value < sym->st_size : vaddr == sym->st_value))
        best = sym;
    }
    const char *text = best ? string_at(f, strtab, best->st_name) : NULL;
    if (text && *text) {
      snprintf(name, size, "%s", text);
      return 1;
    }
  }
  return 0;
}

/* The virtual address of address in f, loaded at base. */
static uint64_t vaddr_of(const struct elf_file *f, uint64_t base, uint64_t address)
{
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)f->data;
  return h->e_type == ET_EXEC ? address : address - base;
}

/* Writes the path of f's debug file under debug_dir into path (size
 * bytes), from its GNU build-id note: 1, or 0 if it has none. */
static int debug_file_path(const struct elf_file *f, const char *debug_dir, char *path, size_t size)
{
  const Elf64_Ehdr *h = (const Elf64_Ehdr *)f->data;
  for (size_t i = 0; i < h->e_shnum; i++) {
    const Elf64_Shdr *s = section(f, i);
    if (s->sh_type != SHT_NOTE || !section_in_file(f, s) || s->sh_offset % _Alignof(Elf64_Nhdr))
      continue;
    const uint8_t *p = f->data + s->sh_offset, *end = p + s->sh_size;
    while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
      const Elf64_Nhdr *n = (const Elf64_Nhdr *)p;
      size_t namesz = (n->n_namesz + 3u) & ~3u, descsz = (n->n_descsz + 3u) & ~3u;
      const uint8_t *name = p + sizeof *n, *desc = name + namesz;
      if (namesz > (size_t)(end - name) || descsz > (size_t)(end - desc))
        break;
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
          n->n_descsz >= 2 && n->n_descsz <= 64) {
        char hex[2 * 64 + 1];
        for (size_t k = 0; k < n->n_descsz; k++)
          snprintf(hex + 2 * k, 3, "%02x", desc[k]);
        int w = snprintf(path, size, "%s/.build-id/%.2s/%s.debug", debug_dir, hex, hex + 2);
        return w > 0 && (size_t)w < size;
      }
      p = desc + descsz;
    }
  }
  return 0;
}

enum elf_symbols_table coll_elf_symbols_find(const char *path, uint64_t base, uint64_t address,
                                             const char *debug_dir, char *name, size_t size)
{
  struct elf_file f;
  if (!path || !*path || size == 0 || elf_open(path, &f) != 0)
    return ELF_SYMBOLS_NONE;
  uint64_t vaddr = vaddr_of(&f, base, address);
  enum elf_symbols_table found = ELF_SYMBOLS_NONE;
  char debug_path[4096];
  if (find_in_table(&f, SHT_SYMTAB, vaddr, name, size))
    found = ELF_SYMBOLS_SYMTAB;
  else if (find_in_table(&f, SHT_DYNSYM, vaddr, name, size))
    found = ELF_SYMBOLS_DYNSYM;
  else if (debug_dir && *debug_dir && debug_file_path(&f, debug_dir, debug_path, sizeof debug_path)) {
    struct elf_file d;
    if (elf_open(debug_path, &d) == 0) {
      if (find_in_table(&d, SHT_SYMTAB, vaddr, name, size))
        found = ELF_SYMBOLS_DEBUG_FILE;
      elf_close(&d);
    }
  }
  elf_close(&f);
  return found;
}
