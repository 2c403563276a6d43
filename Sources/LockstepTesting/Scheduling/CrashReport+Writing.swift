#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Android)
  import Android
#endif

// How the crash report's signal handler writes without allocating: the recorded choices read from
// raw memory, and a fixed buffer written out with `write(2)` whenever it fills up.

extension CrashReport {
  #if canImport(Darwin) || canImport(Glibc) || canImport(Musl) || canImport(Android)
    /// The recorded choice points, read from raw memory.
    struct RawChoices: TokenChoices {
      let trail: Trail
      let count: Int
      func choice(_ point: Int) -> Int { Int(trail.choices[point]) }
      func readyCount(_ point: Int) -> Int { Int(trail.readyCounts[point]) }
      func task(_ point: Int) -> Int { Int(trail.tasks[point]) }
    }

    /// A fixed buffer written to standard error with `write(2)` whenever it fills up.
    struct ChunkSink: TokenByteSink {
      let buffer: UnsafeMutablePointer<UInt8>
      let capacity: Int
      /// Writes nothing: for the warm-up when the handlers are installed.
      var discards = false
      var filled = 0

      mutating func put(_ byte: UInt8) {
        buffer[filled] = byte
        filled &+= 1
        if filled == capacity { flush() }
      }

      mutating func put(_ text: StaticString) {
        put(text.utf8Start, count: text.utf8CodeUnitCount)
      }

      mutating func put(_ bytes: UnsafePointer<UInt8>, count: Int) {
        var offset = 0
        while offset < count {
          put(bytes[offset])
          offset &+= 1
        }
      }

      mutating func put(decimal value: Int) {
        var divisor = 1
        while value / divisor >= 10 { divisor &*= 10 }
        while divisor > 0 {
          put(UInt8(truncatingIfNeeded: 48 &+ (value / divisor) % 10))
          divisor /= 10
        }
      }

      mutating func flush() {
        var offset = 0
        while !discards && offset < filled {
          let written = write(2, buffer + offset, filled &- offset)
          if written <= 0 { break }
          offset &+= written
        }
        filled = 0
      }
    }
  #endif
}
