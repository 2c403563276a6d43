extension Duration {
  /// The duration as people write it: `80 ms`, `2.08 s`, `12.5 µs`, `0 s` — the largest unit
  /// in which it is at least 1, with the decimals it needs (at most six) and no trailing zeros.
  /// Exact: computed from the integer components, never through floating point.
  package var lockstepText: String {
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
      return sign + Self.decimal(whole: wholeSeconds, fraction: atto, per: 1_000_000_000_000_000_000) + " s"
    }
    for unit in units where atto >= unit.attoseconds {
      return sign
        + Self.decimal(
          whole: atto / unit.attoseconds, fraction: atto % unit.attoseconds, per: unit.attoseconds)
        + " " + unit.name
    }
    return sign + Self.decimal(whole: 0, fraction: atto, per: 1_000_000_000) + " ns"
  }

  /// `whole` and `fraction / per` as a decimal with at most six digits after the point, rounded
  /// half up, trailing zeros dropped.
  private static func decimal(whole: Int64, fraction: Int64, per: Int64) -> String {
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
