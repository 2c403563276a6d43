/// A small, fast generator whose sequence depends only on its seed, so samples repeat on every
/// platform and toolchain (the standard library's bounded random numbers may change).
struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform number in `0..<bound`, without modulo bias.
  mutating func next(below bound: Int) -> Int {
    precondition(bound > 0)
    let bound = UInt64(bound)
    let limit = UInt64.max - UInt64.max % bound
    while true {
      let value = next()
      if value < limit { return Int(value % bound) }
    }
  }

  /// A number in `0..<bound` by multiply-shift: one multiplication, platform-independent, with a
  /// bias far below anything a scheduler's pick can notice.
  mutating func index(below bound: Int) -> Int {
    precondition(bound > 0)
    return Int(next().multipliedFullWidth(by: UInt64(bound)).high)
  }
}
