/// The choice points a token records, as the layout reads them.
protocol TokenChoices {
  var count: Int { get }
  /// The index picked at choice point `point`.
  func choice(_ point: Int) -> Int
  /// How many jobs were eligible there.
  func readyCount(_ point: Int) -> Int
  /// The picked job's task number, modulo 4.
  func task(_ point: Int) -> Int
}

/// The bytes of an `L2.` token, written with plain arithmetic through a ``TokenByteSink`` — the
/// same code for a token in a report and for the token a signal handler writes as the process
/// crashes.
///
/// Layout: a flags byte (bit 0: the token records the whole schedule, so its step count and
/// checksum follow; clear for a token of the choices made before a crash), a varint (cancellation
/// point + 1, or 0), a varint (number of choice points), the choices (a packing byte — 2: two bits
/// a choice, 8: one varint a choice — then the choices), the numbers of eligible jobs minus 2 in
/// the same way, the picked tasks modulo 4 in two bits each, and for a whole schedule a varint
/// (its steps) and its four-byte checksum, least significant byte first.
enum ReplayTokenLayout {
  static let wholeSchedule: UInt8 = 1

  static func write<Choices: TokenChoices, Sink: TokenByteSink>(
    _ choices: Choices, cancelAtWait: Int?, whole: ScheduleCheck.Whole?, into sink: inout Sink
  ) {
    let count = choices.count
    sink.put(whole == nil ? 0 : wholeSchedule)
    Varint.write(UInt64(cancelAtWait.map { $0 &+ 1 } ?? 0), into: &sink)
    Varint.write(UInt64(count), into: &sink)
    var smallChoices = true
    var smallCounts = true
    var point = 0
    while point < count {
      if choices.choice(point) > 3 { smallChoices = false }
      if choices.readyCount(point) &- 2 > 3 { smallCounts = false }
      point &+= 1
    }
    writeValues(count, small: smallChoices, into: &sink) { choices.choice($0) }
    writeValues(count, small: smallCounts, into: &sink) { choices.readyCount($0) &- 2 }
    writeTwoBits(count, into: &sink) { choices.task($0) }
    if let whole {
      Varint.write(UInt64(whole.steps), into: &sink)
      var checksum = whole.checksum
      for _ in 0..<4 {
        sink.put(UInt8(truncatingIfNeeded: checksum))
        checksum >>= 8
      }
    }
  }

  private static func writeValues<Sink: TokenByteSink>(
    _ count: Int, small: Bool, into sink: inout Sink, _ value: (Int) -> Int
  ) {
    if small {
      sink.put(2)
      writeTwoBits(count, into: &sink, value)
    } else {
      sink.put(8)
      var point = 0
      while point < count {
        Varint.write(UInt64(value(point)), into: &sink)
        point &+= 1
      }
    }
  }

  private static func writeTwoBits<Sink: TokenByteSink>(
    _ count: Int, into sink: inout Sink, _ value: (Int) -> Int
  ) {
    var byte: UInt8 = 0
    var point = 0
    while point < count {
      byte |= UInt8(truncatingIfNeeded: value(point) & 3) << UInt8(truncatingIfNeeded: 2 * (point % 4))
      if point % 4 == 3 {
        sink.put(byte)
        byte = 0
      }
      point &+= 1
    }
    if count % 4 != 0 { sink.put(byte) }
  }

  /// Reads what ``write(_:cancelAtWait:whole:into:)`` wrote; `nil` when the bytes are not a token.
  static func read(_ bytes: [UInt8]) -> ReplayToken? {
    var position = 0
    guard let flags = bytes.first, flags & ~wholeSchedule == 0 else { return nil }
    position += 1
    guard let cancel = Varint.read(bytes, at: &position),
      let count = Varint.read(bytes, at: &position), count < 10_000_000
    else { return nil }
    let points = Int(count)
    guard let choices = readValues(points, bytes, &position),
      let counts = readValues(points, bytes, &position)?.map({ $0 + 2 }),
      let tasks = readTwoBits(points, bytes, &position)
    else { return nil }
    var whole: ScheduleCheck.Whole?
    if flags & wholeSchedule != 0 {
      guard let steps = Varint.read(bytes, at: &position), steps < 1 << 40,
        bytes.count - position == 4
      else { return nil }
      var checksum: UInt32 = 0
      for offset in 0..<4 { checksum |= UInt32(bytes[position + offset]) << (8 * offset) }
      position += 4
      whole = ScheduleCheck.Whole(steps: Int(steps), checksum: checksum)
    }
    guard position == bytes.count, zip(choices, counts).allSatisfy({ $0 < $1 }) else { return nil }
    return ReplayToken(
      choices: choices, cancelAtWait: cancel == 0 ? nil : Int(cancel - 1),
      check: ScheduleCheck(readyCounts: counts, chosenTasks: tasks, whole: whole))
  }

  private static func readValues(_ count: Int, _ bytes: [UInt8], _ position: inout Int) -> [Int]? {
    guard position < bytes.count else { return nil }
    let packing = bytes[position]
    position += 1
    switch packing {
    case 2: return readTwoBits(count, bytes, &position)
    case 8:
      var values: [Int] = []
      values.reserveCapacity(count)
      for _ in 0..<count {
        guard let value = Varint.read(bytes, at: &position), value < 1 << 31 else { return nil }
        values.append(Int(value))
      }
      return values
    default: return nil
    }
  }

  private static func readTwoBits(_ count: Int, _ bytes: [UInt8], _ position: inout Int) -> [Int]? {
    let length = (count + 3) / 4
    guard bytes.count - position >= length else { return nil }
    let values = (0..<count).map { Int(bytes[position + $0 / 4] >> (2 * UInt8($0 % 4)) & 3) }
    position += length
    return values
  }
}
