// The definitions of `Symbolication.h` (LockstepInterposition): the one module of Lockstep that
// imports the toolchain's `Runtime` module. LockstepTesting links it but never imports it, so a
// client that loads LockstepTesting does not load `Runtime` and its extensions of standard types.
// The functions keep their C names, which `@c @implementation` checks against the header.
import LockstepInterposition

#if os(Linux) && canImport(Runtime)
  import Synchronization
  // `Backtrace(architecture:frames:images:)`, to symbolicate addresses captured earlier.
  @_spi(Internal) import Runtime
#endif

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Whether code addresses of this process can be symbolicated (`Symbolication.h`).
#if compiler(>=6.3)
  @c @implementation
#else
  @_cdecl("lockstep_symbolication_available")
#endif
func lockstep_symbolication_available() -> Bool {
  #if os(Linux) && canImport(Runtime)
    !Symbolication.architecture.isEmpty
  #else
    false
  #endif
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Symbolicates `count` code addresses, handing each frame found to `receive` (`Symbolication.h`).
#if compiler(>=6.3)
  @c @implementation
#else
  @_cdecl("lockstep_symbolicate")
#endif
func lockstep_symbolicate(
  _ addresses: UnsafePointer<UInt>?, _ count: Int32, _ returnAddresses: Bool, _ full: Bool,
  _ context: UnsafeMutableRawPointer?, _ receive: lockstep_symbol_frame_receiver?
) -> Bool {
  #if os(Linux) && canImport(Runtime)
    guard let addresses, let receive, count >= 0 else { return false }
    guard
      let symbols = Symbolication.symbolicated(
        Array(UnsafeBufferPointer(start: addresses, count: Int(count))), returnAddresses: returnAddresses,
        options: full ? .default : [])
    else { return false }
    for (index, symbols) in symbols.enumerated() {
      for symbol in symbols { Symbolication.send(symbol, index: index, context: context, to: receive) }
    }
    return true
  #else
    false
  #endif
}

#if os(Linux) && canImport(Runtime)
  /// Code addresses symbolicated with the `Runtime` module (SE-0419 backtraces).
  private enum Symbolication {
    /// The name the `Runtime` module gives this machine's architecture; empty when it has none.
    static let architecture = (try? Backtrace.capture(limit: 1))?.architecture ?? ""

    /// The symbols at each address (inlined frames first, its own last); `nil` if symbolication failed.
    static func symbolicated(
      _ addresses: [UInt], returnAddresses: Bool, options: Backtrace.SymbolicationOptions
    ) -> [[SymbolicatedBacktrace.Symbol]]? {
      guard let first = addresses.first else { return [] }
      let images = imageMap(covering: first)
      let captured = addresses.map { address in
        returnAddresses
          ? RichFrame<UInt64>.returnAddress(UInt64(address))
          : RichFrame<UInt64>.programCounter(UInt64(address))
      }
      let backtrace = Backtrace(architecture: architecture, frames: captured, images: images)
      guard let symbolicated = backtrace.symbolicated(with: images, options: options)?.frames else {
        return nil
      }
      var byAddress: [UInt: [SymbolicatedBacktrace.Symbol]] = [:]
      for frame in symbolicated {
        guard let address = address(of: frame.captured), let symbol = frame.symbol else { continue }
        byAddress[address, default: []].append(symbol)
      }
      return addresses.map { byAddress[$0] ?? [] }
    }

    /// Hands `symbol`, found at the address at `index`, to `receive`.
    static func send(
      _ symbol: SymbolicatedBacktrace.Symbol, index: Int, context: UnsafeMutableRawPointer?,
      to receive: lockstep_symbol_frame_receiver
    ) {
      let path = symbol.sourceLocation?.path
      let line = symbol.sourceLocation.map { UInt32(truncatingIfNeeded: $0.line) } ?? 0
      symbol.name.withCString { function in
        symbol.rawName.withCString { rawName in
          symbol.imageName.withCString { image in
            withOptionalCString(path) { path in
              var frame = lockstep_symbol_frame(
                function: function, raw_name: rawName, path: path, line: line, image: image)
              receive(context, Int32(index), &frame)
            }
          }
        }
      }
    }

    private static func withOptionalCString(_ string: String?, _ body: (UnsafePointer<CChar>?) -> Void) {
      guard let string else { return body(nil) }
      string.withCString(body)
    }

    private static func address(of frame: Backtrace.Frame) -> UInt? {
      switch frame {
      case .programCounter(let address), .returnAddress(let address): UInt(address)
      default: nil
      }
    }

    /// The images of the process, captured once (and again when an address lies in none of them:
    /// a library loaded since).
    private static let images = Mutex<ImageMap?>(nil)

    private static func imageMap(covering address: UInt) -> ImageMap {
      images.withLock { images in
        if let map = images, map.indexOfImage(at: Backtrace.Address(UInt64(address))) != nil { return map }
        let map = ImageMap.capture()
        images = map
        return map
      }
    }
  }
#endif
