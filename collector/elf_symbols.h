/* collector/elf_symbols.h: the function symbol of an address from an ELF file's own tables (.symtab, .dynsym) or its separate debug file. */
#ifndef LJLEAK_COLLECTOR_ELF_SYMBOLS_H
#define LJLEAK_COLLECTOR_ELF_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* Which table named a function. */
enum elf_symbols_table {
  ELF_SYMBOLS_NONE,
  ELF_SYMBOLS_SYMTAB,        /* the file's .symtab (not stripped) */
  ELF_SYMBOLS_DYNSYM,        /* the file's .dynsym (exported) */
  ELF_SYMBOLS_DEBUG_FILE     /* the .symtab of DEBUG_DIR/.build-id/xx/yyyy.debug */
};

/* The debug files' root when none is given: where Debian's -dbgsym
 * packages install theirs. */
#define ELF_SYMBOLS_DEBUG_DIR "/usr/lib/debug"

/* Names the function that holds address in the ELF object at path, loaded
 * at base (dladdr's dli_fbase): the FUNC symbol whose range holds it, or
 * one of size 0 at exactly that address; from .symtab, then
 * .dynsym, then the .symtab of the debug file with the object's build-id
 * under debug_dir (NULL: none looked for). Writes the name into name (size
 * bytes) and returns the table that had it, or ELF_SYMBOLS_NONE (no such
 * symbol, or a file that cannot be read or is no ELF64 object of this
 * byte order). Reads the files through mmap; never allocates with malloc,
 * so the allocator hook may call it. */
enum elf_symbols_table coll_elf_symbols_find(const char *path, uint64_t base, uint64_t address,
                                             const char *debug_dir, char *name, size_t size);

#endif
