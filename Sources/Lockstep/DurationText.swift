extension Duration {
  /// The duration as people write it: `80 ms`, `2.08 s`, `12.5 µs`, `0 s` — the largest unit
  /// in which it is at least 1, with the decimals it needs (at most six) and no trailing zeros.
  /// Exact: computed from the integer components, never through floating point.
  ///
  /// Cheap, because timelines and reports format many of them: no arrays, no searching for
  /// trailing zeros in strings, one small string built once.
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
    if wholeSeconds == 0 && atto == 0 { return "0 s" }
    let whole: Int64
    let fraction: Int64
    let per: Int64
    let unit: String
    if wholeSeconds > 0 {
      (whole, fraction, per, unit) = (wholeSeconds, atto, 1_000_000_000_000_000_000, " s")
    } else if atto >= 1_000_000_000_000_000 {
      (whole, fraction, per, unit) = (
        atto / 1_000_000_000_000_000, atto % 1_000_000_000_000_000, 1_000_000_000_000_000, " ms"
      )
    } else if atto >= 1_000_000_000_000 {
      (whole, fraction, per, unit) = (
        atto / 1_000_000_000_000, atto % 1_000_000_000_000, 1_000_000_000_000, " µs"
      )
    } else if atto >= 1_000_000_000 {
      (whole, fraction, per, unit) = (atto / 1_000_000_000, atto % 1_000_000_000, 1_000_000_000, " ns")
    } else {
      (whole, fraction, per, unit) = (0, atto, 1_000_000_000, " ns")
    }
    var text = negative ? "-" : ""
    Self.appendDecimal(whole: whole, fraction: fraction, per: per, to: &text)
    text += unit
    return text
  }

  /// Appends `whole` and `fraction / per` as a decimal with at most six digits after the point,
  /// rounded half up, trailing zeros dropped.
  private static func appendDecimal(whole: Int64, fraction: Int64, per: Int64, to text: inout String) {
    let scale: Int64 = 1_000_000
    // fraction / per * scale, rounded, without overflow (per <= 10^18, scale = 10^6).
    let step = per / scale
    var micro = step > 0 ? (fraction + step / 2) / step : fraction * (scale / per)
    var whole = whole
    if micro >= scale {
      whole += 1
      micro -= scale
    }
    text += String(whole)
    guard micro > 0 else { return }
    // Drop trailing zeros arithmetically; `digits` is how many decimals are left.
    var digits = 6
    while micro % 10 == 0 {
      micro /= 10
      digits -= 1
    }
    let decimals = String(micro)
    text += "."
    for _ in decimals.utf8.count..<digits { text += "0" }
    text += decimals
  }
}
