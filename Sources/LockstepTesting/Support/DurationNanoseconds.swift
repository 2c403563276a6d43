extension Duration {
  /// The duration in whole nanoseconds, finer parts dropped. A duration of more than 292 years
  /// overflows `Int64`; the callers' durations (sleeps, run bounds) are far shorter.
  var wholeNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
