import LockstepTesting

// Ordinary expressions, in a file that imports LockstepTesting alone: each must type-check as it
// does without Lockstep. A module that LockstepTesting imports — even internally — is loaded by
// this package too, and the initializers its extensions add to standard types become candidates
// here: the toolchain's `Runtime` module adds `FixedWidthInteger.init?(_: Backtrace.Address)`, and
// made `parse { Int($0) }` ambiguous. So this file fails to compile if such an import reaches a
// client.

/// Hands back a parser whose input type is inferred from its use.
func parse<Input>(_ parser: @escaping (Input) -> Int?) -> (Input) -> Int? { parser }

/// Hands back a measurement whose input type is inferred from its use.
func measure<Input>(_ measurement: @escaping (Input) -> Double?) -> (Input) -> Double? { measurement }

/// The values of ordinary conversions, each written the way app code writes it.
enum OrdinaryExpressions {
  static func values() -> [String] {
    let parsed = parse { Int($0) }
    let measured = measure { Double($0) }
    let integer = Int("42")
    let implicit: Int = .init("4") ?? 0
    let strings = [1, 2].map(String.init)
    let widened = [1, 2].map(Int64.init)
    let doubles = ["1.5", "x"].compactMap(Double.init)
    let integers = ["7", "x"].compactMap(Int.init)
    let byte = UInt8("255")
    let float: Float = .init(3)
    return [
      "\(parsed("12") ?? -1)", "\(measured("2.5") ?? -1)", "\(integer ?? -1)", "\(implicit)",
      strings.joined(separator: ","), "\(widened)", "\(doubles)", "\(integers)", "\(byte ?? 0)", "\(float)",
    ]
  }
}
