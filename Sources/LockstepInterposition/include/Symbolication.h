// The symbolication of code addresses for reports, as LockstepTesting asks for it. The toolchain's
// `Runtime` module (SE-0419 backtraces) does it, imported by the Swift target
// `LockstepSymbolication` alone, which defines these functions: LockstepTesting reaches them
// through this header rather than an import, so that a client that loads LockstepTesting does not
// load `Runtime`, whose extensions of standard types (`FixedWidthInteger.init?(_:)` from a
// `Backtrace.Address`) would make ordinary expressions of the client ambiguous. Linux with the
// `Runtime` module; elsewhere nothing is symbolicated.
#ifndef LOCKSTEP_SYMBOLICATION_H
#define LOCKSTEP_SYMBOLICATION_H

#include <stdbool.h>
#include <stdint.h>

/// One frame at a code address: the function that holds the code, or one inlined there.
typedef struct lockstep_symbol_frame {
  /// The function's demangled name.
  const char *function;
  /// The symbol's mangled name.
  const char *raw_name;
  /// The source file's path as debug information names it; `NULL` when it names none.
  const char *path;
  /// The source line; 0 when not known.
  uint32_t line;
  /// The name of the image that holds the code.
  const char *image;
} lockstep_symbol_frame;

/// Receives one frame found at `addresses[index]`; the strings are valid during the call only.
typedef void (*lockstep_symbol_frame_receiver)(void *context, int index, const lockstep_symbol_frame *frame);

/// Whether code addresses of this process can be symbolicated (`false` where the `Runtime` module
/// is not, or does not know the machine's architecture).
bool lockstep_symbolication_available(void);

/// Symbolicates `count` code addresses of this process: return addresses of calls when
/// `return_addresses` (the call is the instruction before each), instructions otherwise. With
/// `full`, each address's inlined frames and source locations too (the `Runtime` module's line
/// lookup, which runs an image's whole line table for every address); without, the function that
/// holds the code alone, with no location. Calls `receive` once for each frame found, in the order
/// of the addresses, an address's inlined frames before its own; returns `false`, having called
/// it for none, when symbolication failed.
bool lockstep_symbolicate(
  const uintptr_t *addresses, int count, bool return_addresses, bool full, void *context,
  lockstep_symbol_frame_receiver receive);

#endif
