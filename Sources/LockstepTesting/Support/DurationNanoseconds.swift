extension Duration {
  /// The duration to the millisecond, as people write it: `12 ms`, `1.5 s`.
  var millisecondsText: String {
    Duration.milliseconds(Int64((self / .milliseconds(1)).rounded())).lockstepText
  }

  /// The duration in whole nanoseconds, finer parts dropped. A duration of more than 292 years
  /// overflows `Int64`; the callers' durations (sleeps, run bounds) are far shorter.
  var wholeNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
