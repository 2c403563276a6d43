import Lockstep
import Testing

/// How reports and timelines write durations: exact, the largest unit that is at least 1, up to six
/// decimals without trailing zeros.
@Suite(.timeLimit(.minutes(1)))
struct DurationTextTests {
  @Test func writesDurationsAsPeopleDo() {
    let cases: [(Duration, String)] = [
      (.zero, "0 s"), (.milliseconds(80), "80 ms"), (.milliseconds(2_080), "2.08 s"),
      (.nanoseconds(12_500), "12.5 µs"), (.seconds(600), "600 s"), (.nanoseconds(1), "1 ns"),
      (.milliseconds(-80), "-80 ms"), (.nanoseconds(1_000_001), "1.000001 ms"),
      (.nanoseconds(1_999_999_999), "2 s"), (Duration(secondsComponent: 0, attosecondsComponent: 5), "0 ns"),
      (Duration(secondsComponent: 0, attosecondsComponent: 500_000_000), "0.5 ns"),
    ]
    for (duration, text) in cases { #expect(duration.lockstepText == text, "\(duration)") }
  }

  /// The fast formatter writes exactly what the first, simpler one wrote, for durations of every
  /// size and sign.
  @Test func matchesTheReferenceFormatter() {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<20_000 {
      let seconds =
        Int64.random(in: -3...3, using: &generator) * Int64.random(in: 0...100_000, using: &generator)
      let scale = [1, 1_000, 1_000_000, 1_000_000_000, 1_000_000_000_000, 1_000_000_000_000_000]
        .randomElement(using: &generator)!
      let atto =
        Int64.random(in: 0..<1_000_000_000_000_000_000, using: &generator) / Int64(scale) * Int64(scale)
      for duration in [
        Duration(secondsComponent: seconds, attosecondsComponent: atto),
        Duration(secondsComponent: 0, attosecondsComponent: atto),
        Duration(secondsComponent: 0, attosecondsComponent: -atto),
      ] {
        #expect(duration.lockstepText == duration.referenceText, "\(duration.components)")
      }
    }
  }
}

// The formatter as first written (strings, arrays, a loop over trailing zeros): the reference.
extension Duration {
  var referenceText: String {
    let (seconds, attoseconds) = components
    // The magnitude in attoseconds, as seconds and a 0 ..< 10^18 remainder.
    var wholeSeconds = seconds
    var atto = attoseconds
    let negative = seconds < 0 || (seconds == 0 && attoseconds < 0)
    if negative {
      wholeSeconds = -seconds
      atto = -attoseconds
      if atto < 0 {
        wholeSeconds -= 1
        atto += 1_000_000_000_000_000_000
      }
    }
    let sign = negative ? "-" : ""
    if wholeSeconds == 0 && atto == 0 { return "0 s" }
    let units: [(name: String, attoseconds: Int64)] = [
      ("ms", 1_000_000_000_000_000), ("µs", 1_000_000_000_000), ("ns", 1_000_000_000),
    ]
    if wholeSeconds > 0 {
      return sign + Self.referenceDecimal(whole: wholeSeconds, fraction: atto, per: 1_000_000_000_000_000_000)
        + " s"
    }
    for unit in units where atto >= unit.attoseconds {
      return sign
        + Self.referenceDecimal(
          whole: atto / unit.attoseconds, fraction: atto % unit.attoseconds, per: unit.attoseconds)
        + " " + unit.name
    }
    return sign + Self.referenceDecimal(whole: 0, fraction: atto, per: 1_000_000_000) + " ns"
  }

  fileprivate static func referenceDecimal(whole: Int64, fraction: Int64, per: Int64) -> String {
    let scale: Int64 = 1_000_000
    // fraction / per * scale, rounded, without overflow (per <= 10^18, scale = 10^6).
    let step = per / scale
    var micro = step > 0 ? (fraction + step / 2) / step : fraction * (scale / per)
    var whole = whole
    if micro >= scale {
      whole += 1
      micro -= scale
    }
    guard micro > 0 else { return "\(whole)" }
    var digits = String(micro)
    digits = String(repeating: "0", count: 6 - digits.count) + digits
    while digits.hasSuffix("0") { digits.removeLast() }
    return "\(whole).\(digits)"
  }
}
